/* readahead.c: a helper thread that maps a segment's pages ahead of the
 * scanner and unmaps them behind it.
 *
 * Reading a mapped file costs page-table work (faults, then teardown at
 * munmap) that is as large as the checksum work itself. With a second core
 * this thread does it in parallel: it prefaults (MADV_POPULATE_READ, or one
 * read per page on kernels without it) at most RA_AHEAD bytes ahead of the
 * scanner's published position, and drops mappings (MADV_DONTNEED: the page
 * cache keeps the data) more than RA_BEHIND bytes behind it, so page tables
 * stay bounded on files of any size. Pages it has not reached, or has
 * dropped, simply fault in as usual: correctness never depends on it. */
#include "format/readahead.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define RA_CHUNK ((uint64_t)4 << 20)
#define RA_AHEAD ((uint64_t)64 << 20)
#define RA_BEHIND ((uint64_t)16 << 20)
#define RA_MIN_SIZE ((uint64_t)32 << 20)

static void populate(const uint8_t *p, uint64_t n, bool *use_madvise)
{
    if (*use_madvise && madvise((void *)p, (size_t)n, MADV_POPULATE_READ) == 0)
        return;
    if (*use_madvise && errno != EINVAL)
        return; /* e.g. EFAULT past EOF: let the scanner meet it */
    *use_madvise = false;
    volatile uint8_t sink = 0;
    long page = sysconf(_SC_PAGESIZE);
    for (uint64_t i = 0; i < n; i += (uint64_t)page)
        sink ^= p[i];
    (void)sink;
}

static void *ra_main(void *arg)
{
    kf_readahead *ra = arg;
    const uint8_t *base = ra->data;
    uint64_t size = ra->size, done = 0, released = 0;
    bool use_madvise = true;
    while (!atomic_load_explicit(&ra->stop, memory_order_relaxed) && (done < size || released + RA_BEHIND + RA_CHUNK < size)) {
        uint64_t consumer = atomic_load_explicit(&ra->consumer, memory_order_relaxed);
        bool worked = false;
        if (done < (consumer & ~(RA_CHUNK - 1)))
            done = consumer & ~(RA_CHUNK - 1); /* the scanner jumped (a hole): so do we */
        if (done < size && done < consumer + RA_AHEAD) {
            uint64_t n = size - done < RA_CHUNK ? size - done : RA_CHUNK;
            populate(base + done, n, &use_madvise);
            done += n;
            worked = true;
        }
        if (consumer > released + RA_BEHIND + RA_CHUNK) {
            madvise((void *)(base + released), (size_t)RA_CHUNK, MADV_DONTNEED);
            released += RA_CHUNK;
            worked = true;
        }
        if (!worked) {
            if (done >= size && consumer >= size)
                break;
            struct timespec ts = {0, 100000}; /* 0.1 ms */
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

void kf_readahead_start(kf_readahead *ra, const uint8_t *data, uint64_t size)
{
    memset(ra, 0, sizeof *ra);
    ra->data = data;
    ra->size = size;
    atomic_init(&ra->consumer, 0);
    atomic_init(&ra->stop, 0);
    if (!data || size < RA_MIN_SIZE || sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return;
    ra->running = pthread_create(&ra->thread, NULL, ra_main, ra) == 0;
}

void kf_readahead_stop(kf_readahead *ra)
{
    if (!ra->running)
        return;
    atomic_store(&ra->stop, 1);
    pthread_join(ra->thread, NULL);
    ra->running = false;
}
