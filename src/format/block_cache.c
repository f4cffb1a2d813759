/* block_cache.c: the read buffers of closed segment readers, kept for the
 * next one. A job that reads many segments (scan, compaction, repair,
 * merge) opens a reader per segment; each allocated its chunks' 1 MiB
 * buffers anew and the kernel zeroed and mapped their pages again: on 10
 * segments of 15 MB that was about 10 % of compaction's CPU (measured
 * with perf stat). Readers on several threads (scan --jobs) share the
 * cache under one lock, taken twice per buffer per reader. At most
 * BLOCK_CACHE_BYTES are kept, so memory stays bounded: what is cached was
 * resident already, in the reader that gave it back.
 *
 * Buffers of 2 MiB and more are whole huge pages (2 MiB-aligned, sizes
 * rounded up, MADV_HUGEPAGE): a cold block is read into them past the page
 * cache (O_DIRECT), and the disk then gets one physically contiguous range
 * per read instead of a list of 4 KiB pages. Measured on a 2-CPU VM, 1 GiB
 * evicted, two 1 MiB reads at a time: 0.50x cat's speed into 4 KiB pages,
 * 1.17x into huge pages. */
#include "format/block_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "format/reader_internal.h"

enum { BLOCK_CACHE_SLOTS = 32 };
#define BLOCK_CACHE_BYTES ((size_t)24 << 20)

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *buf;
    size_t cap;
} cache[BLOCK_CACHE_SLOTS];
static size_t cache_n, cache_bytes;

void *kf_block_take(size_t n, size_t *cap, bool *fresh)
{
    pthread_mutex_lock(&cache_mu);
    /* the smallest cached buffer that holds n */
    size_t best = cache_n;
    for (size_t i = 0; i < cache_n; i++)
        if (cache[i].cap >= n && (best == cache_n || cache[i].cap < cache[best].cap))
            best = i;
    if (best < cache_n) {
        void *buf = cache[best].buf;
        *cap = cache[best].cap;
        cache_bytes -= cache[best].cap;
        cache[best] = cache[--cache_n];
        pthread_mutex_unlock(&cache_mu);
        *fresh = false;
        return buf;
    }
    pthread_mutex_unlock(&cache_mu);
    void *buf = NULL;
    if (n >= HUGE_PAGE) {
        n = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (posix_memalign(&buf, HUGE_PAGE, n) != 0)
            return NULL;
#ifdef MADV_HUGEPAGE
        (void)madvise(buf, n, MADV_HUGEPAGE); /* refused: small pages, and no reads past the cache */
#endif
    } else if (posix_memalign(&buf, READ_ALIGN, n) != 0) {
        return NULL;
    }
    *cap = n;
    *fresh = true;
    return buf;
}

/* MADV_COLLAPSE (Linux 6.1) backs a range with huge pages now or says it
 * cannot, whatever the system's THP setting; on an older kernel it is
 * refused, and the buffer counts as small pages. */
#if defined(__linux__) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25
#endif

bool kf_block_huge(void *buf, size_t cap)
{
#ifdef MADV_COLLAPSE
    if (!buf || cap < HUGE_PAGE || (uintptr_t)buf % HUGE_PAGE || cap % HUGE_PAGE)
        return false;
    return madvise(buf, cap, MADV_COLLAPSE) == 0;
#else
    (void)buf; (void)cap;
    return false;
#endif
}

void kf_block_give(void *buf, size_t cap)
{
    if (!buf)
        return;
    void *drop = buf;
    pthread_mutex_lock(&cache_mu);
    if (cache_n < BLOCK_CACHE_SLOTS && cache_bytes + cap <= BLOCK_CACHE_BYTES) {
        cache[cache_n].buf = buf;
        cache[cache_n].cap = cap;
        cache_n++;
        cache_bytes += cap;
        drop = NULL;
    } else if (cache_n > 0) {
        /* full: a larger buffer takes the place of the smallest (readers
         * of small files leave small ones, which the next full-size
         * reader cannot use) */
        size_t small = 0;
        for (size_t i = 1; i < cache_n; i++)
            if (cache[i].cap < cache[small].cap)
                small = i;
        if (cache[small].cap < cap && cache_bytes - cache[small].cap + cap <= BLOCK_CACHE_BYTES) {
            drop = cache[small].buf;
            cache_bytes = cache_bytes - cache[small].cap + cap;
            cache[small].buf = buf;
            cache[small].cap = cap;
        }
    }
    pthread_mutex_unlock(&cache_mu);
    free(drop);
}
