/* pool.c: the worker pool of pool.h and the CPU count of common.h. Workers
 * take the next item under one lock and mark it finished under the same
 * lock; the caller's thread waits for item i, hands it back, then i + 1. */
#include "bytes/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "bytes/error.h"
#include "kfsck/common.h"

#define KF_CPU_COUNT_MAX 256

unsigned kf_cpu_count(void)
{
    long n = 0;
    cpu_set_t set;
    /* the CPUs this process may run on (taskset, a container's cpuset),
     * else those online */
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n <= 0 ? 1 : n > KF_CPU_COUNT_MAX ? KF_CPU_COUNT_MAX : (unsigned)n;
}

typedef struct pool {
    size_t n, next;
    kf_pool_work_fn work;
    void *ctx;
    bool *finished;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        p->work(p->ctx, i);
        pthread_mutex_lock(&p->mu);
        p->finished[i] = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

int kf_pool_run(size_t n, unsigned jobs, kf_pool_work_fn work, kf_pool_done_fn done, void *ctx)
{
    if (!jobs)
        jobs = kf_cpu_count();
    size_t nthreads = jobs > 1 && n > 1 ? (jobs < n ? jobs : n) : 0;
    int rc = 0;
    if (!nthreads) { /* one job: in order on this thread */
        for (size_t i = 0; i < n && !rc; i++) {
            work(ctx, i);
            rc = done ? done(ctx, i) : 0;
        }
        return rc;
    }
    pool p = {n, 0, work, ctx, calloc(n, sizeof *p.finished), PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    pthread_t *th = calloc(nthreads, sizeof *th);
    if (!p.finished || !th) {
        free(p.finished);
        free(th);
        return kf_error_nomem();
    }
    size_t started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, worker, &p) != 0)
            break;
    if (!started)
        worker(&p); /* no thread could start: every item here */
    for (size_t i = 0; i < n && !rc; i++) {
        pthread_mutex_lock(&p.mu);
        while (!p.finished[i])
            pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
        rc = done ? done(ctx, i) : 0;
    }
    if (rc) { /* no more items start; the workers finish theirs */
        pthread_mutex_lock(&p.mu);
        p.next = p.n;
        pthread_mutex_unlock(&p.mu);
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    free(p.finished);
    free(th);
    return rc;
}
