/* reader_internal.h: the streaming segment reader's internals. Two parts:
 * what the segment scan (segment.c) needs beyond the public iterator, and
 * the chunks, items and iterator state that the reader's own files share
 * (reader.c the public iterator and its consumer, reader_walker.c the
 * reads of blocks and the framing, reader_pool.c the threads, which take
 * whatever task is next, and the in-order hand-off of chunks). Private. */
#ifndef KFSCK_FORMAT_READER_INTERNAL_H
#define KFSCK_FORMAT_READER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/resync.h"
#include "kfsck/sys/segment.h"

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
#define MAX_WORKERS 8  /* helper threads */
#define READ_ALIGN 4096 /* where reads land in a chunk's buffer */
#define MAX_CHUNKS 16  /* chunks in flight: 2 x 1 MiB of buffer each by default */

/* What an item of a chunk is: a batch, a problem, or a batch whose only
 * damage is its magic byte (kept by the broker). */
enum { IT_BATCH = 1, IT_PROBLEM, IT_BADMAGIC };
/* A chunk's state, in the order it goes through them (then C_FREE again):
 * its block of the file is read, then framed (in file order), checked,
 * consumed (in file order). */
enum { C_FREE = 0, C_READING, C_READ, C_FRAMING, C_FILLED, C_CHECKING, C_CHECKED, C_CONSUMING };

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

/* A stretch of the file, its items, and the checks of them; one of a few
 * reused buffers (it->chunks). Any thread reads a block of the file
 * [bstart, bstart + blen) into buf + it->carry_room; framing puts the
 * start of the entry the previous block ended in (the carry) in front of
 * it, so that the chunk's data holds whole entries. */
typedef struct reader_chunk {
    int state;
    uint64_t seq, gen;      /* seq: order of framing (FILLED and after) */
    uint64_t rseq, grid;    /* order of the block's read; the read plan it belongs to */
    uint64_t bstart;        /* the block */
    size_t blen, got;       /* asked for, read (less: the file shrank) */
    bool direct;            /* the block is read past the page cache when buf allows */
    signed char huge;       /* buf is backed by huge pages: 1, 0, or -1 not asked yet */
    int read_err;           /* the read's: 0, KF_ERR_NOMEM or KF_ERR_IO */
    uint64_t start;         /* file position of data[0] */
    const uint8_t *data;    /* in buf, or the memory source's bytes */
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

    /* framing state (the thread holding it->framing) */
    kf_window win;
    uint64_t wpos, wsize;   /* wsize: readable size, lowered if the file shrinks */
    uint64_t wgen;
    bool wdone;             /* reached the end of wgen */
    uint64_t next_seq;
    size_t carry_room;      /* bytes in front of each block for the carry */
    uint8_t *carry;         /* the entry the last framed block ended in, */
    size_t carry_len;       /* [wpos, wpos + carry_len), when it goes on in the next block */

    /* shared (it->mu when threaded) */
    pthread_mutex_t mu;
    pthread_cond_t cv_helper, cv_consumer;
    unsigned helpers_waiting;
    bool consumer_waiting;
    reader_chunk *chunks;
    size_t nchunks;
    /* the read plan: blocks of chunk_bytes from where framing will go on */
    uint64_t rpos;          /* the next block to read */
    uint64_t grid;          /* plan number: blocks of an older plan are dropped unread */
    bool rdone;             /* no more blocks in this plan */
    bool cold;              /* the last block handed out was not all in the page cache */
    bool direct;            /* and is read past it (two such reads at a time) */
    atomic_bool small_pages; /* a buffer was not huge pages: no more reads past the cache */
    unsigned reads;         /* blocks being read */
    uint64_t next_rseq, fseq; /* the next block to hand out, to frame */
    bool framing;           /* a thread is framing (one at a time, in file order) */
    reader_restart_request req; /* the newest restart request (req.gen > wgen: pending) */
    bool stop;
    atomic_uint_fast64_t gen; /* the consumer's generation */
    pthread_t helper_threads[MAX_WORKERS];
    unsigned nhelpers, helpers_started;
    kf_buf consumer_scratch; /* the caller's thread's, when it checks chunks */

    /* consumer state */
    uint64_t cseq;          /* next chunk to consume (it->mu when threaded) */
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

/* reader_walker.c: read c's block (any thread); frame c, whose block
 * is the next in file order (true: the read plan must start again at
 * it->wpos); begin the generation of restart request r in c. */
void kf_reader_read_block(kf_segment_iter *it, reader_chunk *c);
bool kf_reader_frame(kf_segment_iter *it, reader_chunk *c);
void kf_reader_walker_restart(kf_segment_iter *it, reader_chunk *c, const reader_restart_request *r);

/* reader_pool.c: the helper threads (arg: the iterator); the next chunk
 * of the consumer's generation, checked (NULL on failure); giving a chunk
 * back (in_order: the stream is past it, so its pages may be dropped). */
void *kf_reader_helper_main(void *arg);
reader_chunk *kf_reader_take_chunk(kf_segment_iter *it);
void kf_reader_release(kf_segment_iter *it, reader_chunk *c, bool in_order);
/* With it->mu held (threaded): wakes a waiting thread when there is work
 * for it (the consumer: when its next chunk is ready). */
void kf_reader_wake(kf_segment_iter *it);

#endif
