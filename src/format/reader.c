/* reader.c: the streaming segment reader (kf_segment_iter, segment.h): its
 * public iterator (open, next, close) and the consumer stage. Reading and
 * framing are reader_walker.c, the threads and the in-order hand-off of
 * chunks reader_pool.c; the state they share is in reader_internal.h.
 *
 * Three stages, each in file order:
 *
 *   framing  takes the blocks of the file (read with pread into reused
 *            buffers, by any thread, several at a time) in order, puts the
 *            start of the entry the previous block ended in in front of
 *            each, so that every entry lies whole in one chunk, frames the
 *            entries (length, magic, minimum size) and parses their
 *            headers. Framing damage (zero fill, torn or impossible
 *            lengths, bad magic) is handled here: it resynchronises with
 *            resync.c's forward scan and puts the problems into the chunk
 *            as items, in order.
 *   checks   verify each batch's CRC and, with o->deep, decode its records
 *            (unless the caller decodes them itself: kf_segment_scan with
 *            o->records); any thread, several chunks at a time.
 *   consumer (kf_segment_iter_next, the caller's thread) takes the chunks in
 *            order, delivers problems and batches, and settles CRC failures:
 *            framing went past the damaged batch on the guess that its
 *            length field is right; when the entry right after it is
 *            well-formed (the broker's and the old serial reader's "next
 *            intact batch" too) the stream goes on, otherwise the consumer
 *            asks for a resynchronisation from the damaged batch, which
 *            starts a new generation: chunks of the old one are dropped.
 *
 * With threads, helper threads and the caller's take whichever task is
 * next; without (small files, 1 core, o->threads == 1) the consumer does
 * each task itself when it needs the next chunk. Either way the output is
 * the same. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes/error.h"
#include "format/source.h"
#include "bytes/opts.h"
#include "format/block_cache.h"
#include "format/reader_internal.h"

#define DEFAULT_CHUNK ((size_t)1 << 20)
#define SMALL_CHUNK ((size_t)256 << 10) /* the smallest default block (default_chunk) */
#define MIN_CHUNK ((size_t)64)
#define THREADED_MIN_SIZE ((uint64_t)4 << 20)

/* ---- consumer ----------------------------------------------------------- */

/* The next item of the stream (current generation), or NULL at the end. */
static reader_item *next_item(kf_segment_iter *it, reader_chunk **owner)
{
    if (it->held) {
        reader_item *x = it->held;
        *owner = it->held_chunk;
        it->held = NULL;
        return x;
    }
    for (;;) {
        if (it->cur && it->ci < it->cur->nitems) {
            *owner = it->cur;
            return &it->cur->items[it->ci++];
        }
        if (it->cur) {
            reader_chunk *c = it->cur;
            if (c->nomem || c->ioerr) {
                it->err = c->nomem ? KF_ERR_NOMEM : KF_ERR_IO;
                return NULL;
            }
            if (c->end) {
                it->end_pos = c->end_pos;
                it->end_size = c->end_size;
                return NULL;
            }
            if (c != it->ret_chunk)
                kf_reader_release(it, c, true);
            it->cur = NULL;
        }
        if (!(it->cur = kf_reader_take_chunk(it))) {
            it->err = KF_ERR_NOMEM;
            return NULL;
        }
        it->ci = 0;
    }
}

static void deliver(kf_segment_iter *it, const kf_problem *p)
{
    if (p->severity == KF_SEV_ERROR)
        it->sum.errors++;
    else
        it->sum.warnings++;
    if (it->o.problem_fn)
        it->o.problem_fn(it->o.problem_ctx, p);
}

static void set_valid(kf_segment_iter *it, uint64_t pos)
{
    if (!it->valid_set) {
        it->valid_set = true;
        it->sum.valid_bytes = pos;
    }
}

static void take_problem(kf_segment_iter *it, reader_chunk *c, reader_item *x)
{
    reader_problem *w = &c->probs[x->aux];
    if (w->sets_valid)
        set_valid(it, w->p.position);
    if (w->torn_tail && !kf_source_data(it->src)) { /* settled at the end (finish) */
        it->torn = w->p;
        it->torn_held = true;
        it->torn_counts_bad = w->counts_bad;
        return;
    }
    if (w->counts_bad)
        it->sum.bad_batches++;
    if (x->kind == IT_BADMAGIC) {
        if (!it->skipped_has_last || w->last_offset > it->skipped_last)
            it->skipped_last = w->last_offset;
        it->skipped_has_last = true;
    }
    if (w->p.code)
        deliver(it, &w->p);
}

/* A batch whose CRC does not hold, at x (in chunk c). */
static void crc_damage(kf_segment_iter *it, reader_chunk *c, reader_item *x)
{
    /* x's chunk may be released by the look-ahead below: take what is needed now */
    const kf_batch *b = &x->b;
    uint64_t pos = b->position, next = pos + b->size;
    int64_t base_offset = b->base_offset;
    char msg[200];
    snprintf(msg, sizeof msg, "stored CRC %u does not match the computed CRC of the batch", b->crc);
    /* Zero runs inside the batch, while its bytes are at hand. */
    uint64_t zpos[8], zlen[8];
    size_t nz = 0;
    for (uint32_t i = 0; i < b->size && nz < 8;) { /* at most 8: a batch is at most a few zeroed pages */
        if (b->bytes[i]) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j < b->size && !b->bytes[j])
            j++;
        if (j - i >= ZERO_RUN_REPORT) {
            zpos[nz] = pos + i;
            zlen[nz++] = j - i;
        }
        i = j;
    }
    /* Is the entry right after it well-formed? */
    bool plausible = false;
    reader_chunk *nc = NULL;
    reader_item *y = NULL;
    if (!it->o.no_resync) {
        y = next_item(it, &nc);
        if (y && y->kind == IT_BATCH && y->b.position == next && y->crc_ok && y->parse_ok &&
            y->b.size - KF_LOG_OVERHEAD <= KF_RESYNC_MAX_BATCH)
            plausible = y->b.magic != 2 || kf_v2_header_plausible(y->b.bytes, y->b.size - KF_LOG_OVERHEAD);
    }
    b = NULL;
    if (!plausible) {
        /* framing resynchronises from pos and reports it */
        if (it->threaded)
            pthread_mutex_lock(&it->mu);
        uint64_t g = atomic_load(&it->gen) + 1;
        it->req.gen = g;
        it->req.pos = pos;
        it->req.has_off = true;
        it->req.off = base_offset;
        snprintf(it->req.msg, sizeof it->req.msg, "%s", msg);
        atomic_store(&it->gen, g);
        if (it->threaded) {
            kf_reader_wake(it);
            pthread_mutex_unlock(&it->mu);
        }
        /* chunks of the old generation, including the current one, are dropped */
        if (it->cur && it->cur != it->ret_chunk)
            kf_reader_release(it, it->cur, false);
        it->cur = NULL;
        it->held = NULL;
        return;
    }
    char full[240];
    snprintf(full, sizeof full, "%.160s; %llu bytes skipped to the next intact batch at position %llu", msg,
             (unsigned long long)(next - pos), (unsigned long long)next);
    set_valid(it, pos);
    it->sum.bad_batches++;
    kf_problem p = {0};
    p.code = KF_P_CRC_MISMATCH;
    p.severity = KF_SEV_ERROR;
    p.position = pos;
    p.has_offset = true;
    p.offset = base_offset;
    snprintf(p.message, sizeof p.message, "%s", full);
    deliver(it, &p);
    for (size_t i = 0; i < nz; i++) {
        kf_problem z = {0};
        z.code = KF_P_ZERO_FILL;
        z.severity = KF_SEV_ERROR;
        z.position = zpos[i];
        z.has_length = true;
        z.length = zlen[i];
        snprintf(z.message, sizeof z.message, "zero-filled range inside the segment");
        deliver(it, &z);
    }
    it->held = y;
    it->held_chunk = nc;
}

/* The torn tail held by take_problem. When the file grew while it was read,
 * the entry is one a broker is appending, cut at the size the file had when
 * it was opened: a warning, not a damaged entry (valid_bytes stays at its
 * start: where a broker recovering the file as read would cut). */
static void settle_torn_tail(kf_segment_iter *it, bool grew, uint64_t opened, uint64_t now)
{
    kf_problem p = it->torn;
    it->torn_held = false;
    if (grew) {
        char what[sizeof p.message];
        memcpy(what, p.message, sizeof what);
        p.severity = KF_SEV_WARNING;
        snprintf(p.message, sizeof p.message,
                 "%.90s; the file grew from %llu to %llu bytes while it was read (a broker appending to it): "
                 "the entry is being written",
                 what, (unsigned long long)opened, (unsigned long long)now);
    } else if (it->torn_counts_bad) {
        it->sum.bad_batches++;
    }
    deliver(it, &p);
}

static void finish(kf_segment_iter *it)
{
    if (it->finished)
        return;
    it->finished = true;
    kf_problem p = {0};
    p.code = KF_P_TRUNCATED;
    uint64_t opened = kf_source_size(it->src);
    bool shrunk = kf_source_shrunk(it->src) && !it->o.limited;
    uint64_t now = !shrunk && !it->o.limited && !kf_source_data(it->src) ? kf_source_size_now(it->src) : opened;
    bool torn = it->torn_held;
    if (torn)
        settle_torn_tail(it, now > opened, opened, now);
    if (shrunk) {
        p.severity = KF_SEV_ERROR;
        p.position = it->end_size;
        snprintf(p.message, sizeof p.message,
                 "the file shrank while it was read: it had %llu bytes when opened, reads ended at %llu",
                 (unsigned long long)opened, (unsigned long long)it->end_size);
        set_valid(it, it->end_size);
        deliver(it, &p);
    } else if (now > opened && !torn) { /* (a torn tail said so itself) */
        p.severity = KF_SEV_WARNING;
        p.position = opened;
        snprintf(p.message, sizeof p.message,
                 "the file grew from %llu to %llu bytes while it was read (is a broker writing to it?); "
                 "the bytes past %llu were not read",
                 (unsigned long long)opened, (unsigned long long)now, (unsigned long long)opened);
        deliver(it, &p);
    }
    if (!it->valid_set)
        it->sum.valid_bytes = it->end_pos;
}

int kf_segment_iter_next(kf_segment_iter *it, kf_batch *out, bool *damaged)
{
    uint64_t bad0 = it->sum.bad_batches;
    int got = 0;
    if (it->ret_chunk && it->ret_chunk != it->cur && it->ret_chunk != it->held_chunk)
        kf_reader_release(it, it->ret_chunk, true);
    it->ret_chunk = NULL;
    it->skipped_has_last = false;
    while (!it->err && !it->finished) {
        reader_chunk *c;
        reader_item *x = next_item(it, &c);
        if (!x) {
            if (!it->err)
                finish(it);
            else if (it->torn_held)
                settle_torn_tail(it, false, 0, 0);
            break;
        }
        if (x->kind == IT_BADMAGIC && it->o.broker_view) {
            /* delivered as a problem, and returned: the broker keeps it */
            take_problem(it, c, x);
            it->skipped_has_last = false;
            memset(&it->check, 0, sizeof it->check);
            it->check.header_ok = true;
            it->check.bad_magic = true;
            *out = x->b;
            it->ret_chunk = c;
            got = 1;
            break;
        }
        if (x->kind != IT_BATCH) {
            take_problem(it, c, x);
            continue;
        }
        if (!x->crc_ok) {
            crc_damage(it, c, x);
            continue;
        }
        memset(&it->check, 0, sizeof it->check);
        it->check.header_ok = x->parse_ok;
        if (it->check_records) {
            reader_records_check *d = &c->checks[x - c->items];
            it->check.deep_done = d->done;
            it->check.records_ok = d->ok;
            it->check.records = d->records;
            it->check.code = d->code;
            it->check.message = d->msg != UINT32_MAX ? c->msgs[d->msg] : NULL;
            it->check.control_malformed = d->ctl_malformed;
            it->check.control_extra = d->ctl_extra;
        }
        if (!x->parse_ok && !it->o.deep && !it->o.broker_view) { /* CRC-valid v0/v1 message with impossible lengths */
            it->sum.bad_batches++;
            continue;
        }
        it->sum.batches++;
        *out = x->b;
        it->ret_chunk = c;
        got = 1;
        break;
    }
    if (damaged)
        *damaged = it->sum.bad_batches != bad0;
    if (it->err)
        return -it->err;
    return got;
}

const kf_batch_check *kf_segment_iter_check(const kf_segment_iter *it) { return &it->check; }

const kf_segment_summary *kf_segment_iter_summary(const kf_segment_iter *it) { return &it->sum; }

int kf_segment_iter_records(kf_segment_iter *it, kf_batch *b, kf_record_iter *rit)
{
    return kf_records_begin(rit, b, &it->rbuf, it->o.max_batch_bytes);
}

bool kf_segment_iter_valid_set(const kf_segment_iter *it) { return it->valid_set; }

bool kf_segment_iter_recovery_point(const kf_segment_iter *it, uint64_t *valid_bytes)
{
    if (!it->valid_set && !it->finished)
        return false;
    *valid_bytes = it->sum.valid_bytes;
    return true;
}

bool kf_segment_iter_skipped_last(const kf_segment_iter *it, int64_t *last)
{
    if (it->skipped_has_last)
        *last = it->skipped_last;
    return it->skipped_has_last;
}

/* ---- open / close ------------------------------------------------------- */

/* The block size when the caller names none: DEFAULT_CHUNK, or for less
 * than 64 blocks' worth of file left to read, a 64th of it (a power of two,
 * at least SMALL_CHUNK). Each chunk's buffer is fresh pages the kernel
 * faults in once per run, and a short run never amortises 1 MiB of them:
 * measured on 2 CPUs from the page cache, verify of 16 MiB 0.54x cat with
 * 1 MiB blocks, 0.68x with 256 KiB; of 64 MiB 0.84x against 0.89x. A
 * batch larger than the block is read on its own, as at any block size. */
static size_t default_chunk(const kf_source *src, uint64_t from)
{
    uint64_t size = kf_source_size(src), left = from < size ? size - from : 0;
    size_t c = SMALL_CHUNK;
    while (c < DEFAULT_CHUNK && (uint64_t)c * 64 < left)
        c *= 2;
    return c;
}

int kf_segment_iter_open(kf_segment_iter **out, kf_source *src, const kf_segment_scan_opts *o)
{
    return kf_segment_iter_open_checking(out, src, o, true);
}

int kf_segment_iter_open_checking(kf_segment_iter **out, kf_source *src, const kf_segment_scan_opts *o,
                                  bool check_records)
{
    *out = NULL;
    kf_segment_iter *it;
    int rc = KF_OPTS_NEW_GROWN(&it, kf_segment_iter, o, kf_segment_scan_opts_size(o), KF_SEGMENT_SCAN_OPTIONS_VERSION,
                               max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    o = &it->o;
    if (it->o.records)
        it->o.deep = true;
    it->check_records = it->o.deep && check_records;
    it->src = src;
    it->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : default_chunk(src, o->start_position);
    if (it->chunk_bytes < MIN_CHUNK)
        it->chunk_bytes = MIN_CHUNK;
    it->max_entry = o->max_batch_bytes > it->chunk_bytes ? o->max_batch_bytes : it->chunk_bytes;
    if (it->max_entry > UINT32_MAX)
        it->max_entry = UINT32_MAX;
    it->wsize = kf_source_size(src);
    it->wpos = o->start_position < it->wsize ? o->start_position : it->wsize;
    kf_window_init(&it->win, src);
    kf_source_sequential(src);
    if (!o->keep_cache) {
        kf_source_gentle(src, true);
        kf_source_read_from(src, it->wpos);
    }
    it->rpos = it->wpos;
    atomic_init(&it->gen, 0);
    atomic_init(&it->small_pages, false);
    unsigned cpus = kf_cpu_count();
    unsigned threads = o->threads ? o->threads : (kf_source_size(src) >= THREADED_MIN_SIZE && cpus >= 2 ? cpus : 1);
    it->threaded = threads > 1;
    /* threads in all: the helpers and the caller's thread, which does the
     * same tasks while it waits for the next chunk */
    it->nhelpers = threads > 1 ? threads - 1 : 0;
    if (it->nhelpers > MAX_WORKERS)
        it->nhelpers = MAX_WORKERS;
    /* a chunk being read or checked for each thread, and one the consumer
     * holds. No deeper: a chunk's buffer is 1 MiB of fresh pages, faulted
     * in once per run (0.35 ms per MiB on the VMs measured), and reading
     * further ahead gains nothing: from the page cache a thread copies a
     * block faster than another checks one, and from a disk the kernel's
     * own read-ahead runs ahead of every thread. Measured on 2 CPUs, hot
     * 256 MiB: 7 chunks (two per thread and three) 0.92x cat, 3 chunks
     * 0.97x; cold, no change either way. Threaded or not, at least three
     * (1 helper + 2): the consumer may hold two while the next is read. */
    it->nchunks = it->threaded ? (size_t)it->nhelpers + 2 : 3;
    if (it->nchunks > MAX_CHUNKS)
        it->nchunks = MAX_CHUNKS;
    it->chunks = calloc(it->nchunks, sizeof *it->chunks);
    /* the carry: the start of an entry that goes on in the next block (a
     * larger one starts a block of its own) */
    it->carry_room = kf_source_data(src) ? 0 : (it->chunk_bytes + READ_ALIGN - 1) / READ_ALIGN * READ_ALIGN;
    it->carry = it->carry_room ? malloc(it->carry_room) : NULL;
    if (!it->chunks || (it->carry_room && !it->carry)) {
        free(it->chunks);
        free(it->carry);
        free(it);
        return kf_error_nomem();
    }
    if (it->threaded) {
        pthread_mutex_init(&it->mu, NULL);
        pthread_cond_init(&it->cv_helper, NULL);
        pthread_cond_init(&it->cv_consumer, NULL);
        for (unsigned i = 0; i < it->nhelpers; i++)
            if (pthread_create(&it->helper_threads[i], NULL, kf_reader_helper_main, it) == 0)
                it->helpers_started++;
        if (it->helpers_started < it->nhelpers) {
            /* no threads to be had: read on the caller's thread */
            kf_segment_iter_close(it);
            kf_segment_scan_opts o1 = *o;
            o1.threads = 1;
            return kf_segment_iter_open_checking(out, src, &o1, check_records);
        }
    }
    *out = it;
    return KF_OK;
}

void kf_segment_iter_close(kf_segment_iter *it)
{
    if (!it)
        return;
    if (it->threaded) {
        pthread_mutex_lock(&it->mu);
        it->stop = true;
        pthread_cond_broadcast(&it->cv_helper);
        pthread_mutex_unlock(&it->mu);
        for (unsigned i = 0; i < it->helpers_started; i++)
            pthread_join(it->helper_threads[i], NULL);
        pthread_mutex_destroy(&it->mu);
        pthread_cond_destroy(&it->cv_helper);
        pthread_cond_destroy(&it->cv_consumer);
    }
    for (size_t i = 0; i < it->nchunks; i++) {
        reader_chunk *c = &it->chunks[i];
        kf_block_give(c->buf, c->cap);
        free(c->items);
        free(c->probs);
        free(c->checks);
        free(c->msgs);
    }
    free(it->chunks);
    free(it->carry);
    kf_window_free(&it->win);
    kf_buf_free(&it->consumer_scratch);
    kf_buf_free(&it->rbuf);
    free(it);
}
