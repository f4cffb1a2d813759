/* readahead.h: internal; see readahead.c. */
#ifndef KFSCK_READAHEAD_H
#define KFSCK_READAHEAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct kf_readahead {
    const uint8_t *data;
    uint64_t size;
    _Atomic uint64_t consumer; /* the scanner's position */
    atomic_int stop;
    pthread_t thread;
    bool running;
} kf_readahead;

/* Starts the thread for mappings of 32 MiB or more on machines with 2+ cores. */
void kf_readahead_start(kf_readahead *ra, const uint8_t *data, uint64_t size);
static inline void kf_readahead_note(kf_readahead *ra, uint64_t pos)
{
    if (ra->running)
        atomic_store_explicit(&ra->consumer, pos, memory_order_relaxed);
}
void kf_readahead_stop(kf_readahead *ra);

#endif
