/* pool.h: the library's one worker pool: items 0..n-1 worked on by up to
 * `jobs` threads, their results handed back on the caller's thread in
 * item order as they are finished, so a job streams its results in order
 * while later items are still being worked on (scan's partitions,
 * predict's). Private to the library; the CPU count it defaults to is
 * kf_cpu_count (common.h). */
#ifndef KFSCK_BYTES_POOL_H
#define KFSCK_BYTES_POOL_H

#include <stddef.h>

/* Works on item i (on any thread). */
typedef void (*kf_pool_work_fn)(void *ctx, size_t i);
/* Item i is finished (on the caller's thread, in order of i): 0 to go on,
 * else stop handing back (the workers finish what they hold; later items
 * are not started) and kf_pool_run returns that value. */
typedef int (*kf_pool_done_fn)(void *ctx, size_t i);

/* Runs work over n items on min(jobs, n) threads (jobs 0: kf_cpu_count();
 * jobs 1, or no thread could start: all on the caller's thread), calling
 * done (may be NULL) for each in order. Returns 0, done's nonzero value,
 * or KF_ERR_NOMEM. */
int kf_pool_run(size_t n, unsigned jobs, kf_pool_work_fn work, kf_pool_done_fn done, void *ctx);

#endif
