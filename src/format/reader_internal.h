/* reader_internal.h: the streaming segment reader's internals. Two parts:
 * what the segment scan (segment.c) needs beyond the public iterator, and
 * the chunks, items and iterator state that the reader's own files share
 * (reader.c the public iterator and its consumer, reader_walker.c the
 * chunk walker and framing, reader_pool.c the worker pool and the in-order
 * hand-off of chunks). Private. */
#ifndef KFSCK_FORMAT_READER_INTERNAL_H
#define KFSCK_FORMAT_READER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/resync.h"
#include "kfsck/segment.h"

/* kf_segment_iter_open, with the records' check left out when
 * check_records is false: for a caller that decodes every intact batch's
 * records itself (kf_segment_scan with o->records), so the workers need
 * not decompress them too. The iterator still behaves as with o->deep
 * otherwise (v0/v1 messages with wrong lengths are returned, header_ok
 * false); kf_segment_iter_check's record fields stay zero. */
int kf_segment_iter_open_checking(kf_segment_iter **it, kf_source *src, const kf_segment_scan_opts *o,
                                  bool check_records);

/* The size of the caller's version of kf_segment_scan_opts (bytes/opts.h):
 * version 1 ends before start_position. */
size_t kf_segment_scan_opts_size(const kf_segment_scan_opts *o);

/* The highest last offset of the batches skipped since the batch last
 * returned whose only damage is their magic byte (the broker keeps them, so
 * later batches' offsets are judged against them). */
bool kf_segment_iter_skipped_last(const kf_segment_iter *it, int64_t *last);

/* Has damage that broker recovery stops at been met yet (valid_bytes known)? */
bool kf_segment_iter_valid_set(const kf_segment_iter *it);

/* ---- the reader's own: chunks, items, the iterator ------------------------ */

#define ZERO_RUN_REPORT 1024 /* zero runs this long inside damage are named */
#define MAX_WORKERS 8

/* What an item of a chunk is: a batch, a problem, or a batch whose only
 * damage is its magic byte (kept by the broker). */
enum { IT_BATCH = 1, IT_PROBLEM, IT_BADMAGIC };
/* A chunk's state, in the order it goes through them (then C_FREE again). */
enum { C_FREE = 0, C_FILLING, C_FILLED, C_CHECKING, C_CHECKED, C_CONSUMING };

/* One thing the walker found in a chunk, in file order. */
typedef struct reader_item {
    uint8_t kind;
    bool parse_ok;          /* kf_batch_parse said KF_OK (else v0/v1 lengths wrong) */
    bool crc_ok;            /* worker */
    uint32_t aux;           /* IT_PROBLEM / IT_BADMAGIC: index into probs */
    kf_batch b;
} reader_item;

/* A problem the walker met, with what it means for the broker's recovery. */
typedef struct reader_problem {
    kf_problem p;
    bool sets_valid;        /* broker recovery truncates here */
    bool counts_bad;        /* one damaged entry or region */
    bool torn_tail;         /* the last entry runs past the end of the file as opened:
                               damage, or an entry a broker is appending (the file grew) */
    int64_t last_offset;    /* IT_BADMAGIC: the kept batch's last offset */
} reader_problem;

/* A worker's check of a batch's records (when the iterator checks them). */
typedef struct reader_records_check {
    bool done, ok;
    uint64_t records;
    const char *code;
    bool ctl_malformed;
    uint32_t ctl_extra;
    uint32_t msg;           /* index into msgs, UINT32_MAX: none */
} reader_records_check;

/* A stretch of the file the walker read, its items, and the workers'
 * checks of them; one of a few reused buffers (it->chunks). */
typedef struct reader_chunk {
    int state;
    uint64_t seq, gen;
    uint64_t start;         /* file position of data[0] */
    const uint8_t *data;    /* buf, or the memory source's bytes */
    uint8_t *buf;
    size_t cap, len;
    reader_item *items;
    size_t nitems, capitems;
    reader_problem *probs;
    size_t nprobs, capprobs;
    reader_records_check *checks; /* check_records: one per item */
    size_t capchecks;
    char (*msgs)[200];
    size_t nmsgs, capmsgs;
    bool end;               /* the last chunk of its generation */
    uint64_t end_pos;       /* where the walker stopped */
    uint64_t end_size;      /* the readable size then (lower if the file shrank) */
    bool nomem, ioerr;
} reader_chunk;

/* The consumer's request that the walker resynchronise from a batch whose
 * CRC failed. */
typedef struct reader_restart_request {
    uint64_t gen;           /* generation it starts */
    uint64_t pos;           /* the damaged batch */
    bool has_off;
    int64_t off;
    char msg[200];
} reader_restart_request;

/* The iterator: options, the walker's, the shared and the consumer's state. */
struct kf_segment_iter {
    kf_segment_scan_opts o;
    kf_source *src;
    bool check_records;     /* workers decode records (o.deep, unless the caller does) */
    size_t chunk_bytes;
    size_t max_entry;       /* largest entry read whole */
    bool threaded;
    unsigned nworkers;

    /* walker state (walker thread, or the consumer when unthreaded) */
    kf_window win;
    uint64_t wpos, wsize;   /* wsize: readable size, lowered if the file shrinks */
    uint64_t wgen;
    bool wdone;             /* reached the end of wgen */
    uint64_t next_seq;

    /* shared */
    pthread_mutex_t mu;
    pthread_cond_t cv_walker, cv_worker, cv_consumer;
    reader_chunk *chunks;
    size_t nchunks;
    reader_restart_request req; /* the newest restart request (req.gen > wgen: pending) */
    bool stop;
    atomic_uint_fast64_t gen; /* the consumer's generation */
    pthread_t walker_thread, worker_threads[MAX_WORKERS];
    bool walker_started;
    unsigned workers_started;
    kf_buf unthreaded_scratch; /* the caller's thread's, when it checks chunks */
    kf_buf walker_scratch;

    /* consumer state */
    uint64_t cseq;          /* next chunk to consume */
    reader_chunk *cur;      /* the chunk being consumed */
    size_t ci;              /* next item in cur */
    reader_item *held;      /* a looked-ahead item to take first */
    reader_chunk *held_chunk;
    reader_chunk *ret_chunk; /* the chunk of the batch last returned */
    size_t ret_index;
    kf_segment_summary sum;
    bool valid_set;
    bool finished;
    uint64_t end_pos, end_size; /* from the generation's last chunk */
    int err;                /* sticky kf_err */
    kf_batch_check check;
    kf_problem torn;        /* a torn tail, delivered once the end shows whether the file grew */
    bool torn_held, torn_counts_bad;
    bool skipped_has_last;  /* IT_BADMAGIC since the last batch returned */
    int64_t skipped_last;
    kf_buf rbuf;            /* records of the caller's batches */
};

/* Grows the array p of *cap elements of elem bytes to hold need (doubling;
 * *cap updated). p itself when it is big enough, NULL when memory ran out
 * (p is then still valid). */
static inline void *kf_reader_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
}

/* reader_walker.c: fill c with the whole entries from it->wpos and the
 * damage met on the way; begin the generation of restart request r in c. */
void kf_reader_walker_fill(kf_segment_iter *it, reader_chunk *c);
void kf_reader_walker_restart(kf_segment_iter *it, reader_chunk *c, const reader_restart_request *r);

/* reader_pool.c: the walker's and the workers' threads (arg: the
 * iterator); the next chunk of the consumer's generation, checked (NULL on
 * failure); giving a chunk back (in_order: the stream is past it, so its
 * pages may be dropped). */
void *kf_reader_walker_main(void *arg);
void *kf_reader_worker_main(void *arg);
reader_chunk *kf_reader_take_chunk(kf_segment_iter *it);
void kf_reader_release(kf_segment_iter *it, reader_chunk *c, bool in_order);

#endif
