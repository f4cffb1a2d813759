/* reader.c: the streaming segment reader (kf_segment_iter, segment.h).
 *
 * Three stages, each in file order:
 *
 *   walker   reads the file with pread into chunks (reused buffers of
 *            chunk_bytes; a chunk always ends at an entry boundary, so every
 *            entry lies whole in one chunk), frames the entries (length,
 *            magic, minimum size) and parses their headers. Framing damage
 *            (zero fill, torn or impossible lengths, bad magic) is handled
 *            here: it resynchronises with resync.c's forward scan and puts the
 *            problems into the chunk as items, in order.
 *   workers  check each batch's CRC and, with o->deep, decode its records
 *            (unless the caller decodes them itself: kf_segment_scan with
 *            o->records).
 *   consumer (kf_segment_iter_next, the caller's thread) takes the chunks in
 *            order, delivers problems and batches, and settles CRC failures:
 *            the walker framed past the damaged batch on the guess that its
 *            length field is right; when the entry right after it is
 *            well-formed (the broker's and the old serial reader's "next
 *            intact batch" too) the stream goes on, otherwise the consumer
 *            asks the walker to resynchronise from the damaged batch, which
 *            starts a new generation: chunks of the old one are dropped.
 *
 * With threads, the walker has its own thread and workers their own; without
 * (small files, 1 core, o->threads == 1) the consumer runs each stage itself
 * when it needs the next chunk. Either way the output is the same. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/reader_internal.h"
#include "format/resync.h"
#include "kfsck/segment.h"

#define DEFAULT_CHUNK ((size_t)1 << 20)
#define MIN_CHUNK ((size_t)64)
#define THREADED_MIN_SIZE ((uint64_t)4 << 20)
#define ZERO_RUN_REPORT 1024    /* zero runs this long inside damage are named */
#define MAX_WORKERS 8

enum { IT_BATCH = 1, IT_PROBLEM, IT_BADMAGIC };
enum { C_FREE = 0, C_FILLING, C_FILLED, C_CHECKING, C_CHECKED, C_CONSUMING };

typedef struct item {
    uint8_t kind;
    bool parse_ok;          /* kf_batch_parse said KF_OK (else v0/v1 lengths wrong) */
    bool crc_ok;            /* worker */
    uint32_t aux;           /* IT_PROBLEM / IT_BADMAGIC: index into probs */
    kf_batch b;
} item;

typedef struct wproblem {
    kf_problem p;
    bool sets_valid;        /* broker recovery truncates here */
    bool counts_bad;        /* one damaged entry or region */
    int64_t last_offset;    /* IT_BADMAGIC: the kept batch's last offset */
} wproblem;

typedef struct dcheck {
    bool done, ok;
    uint64_t records;
    const char *code;
    bool ctl_malformed;
    uint32_t ctl_extra;
    uint32_t msg;           /* index into msgs, UINT32_MAX: none */
} dcheck;

typedef struct chunk {
    int state;
    uint64_t seq, gen;
    uint64_t start;         /* file position of data[0] */
    const uint8_t *data;    /* buf, or the memory source's bytes */
    uint8_t *buf;
    size_t cap, len;
    item *items;
    size_t nitems, capitems;
    wproblem *probs;
    size_t nprobs, capprobs;
    dcheck *checks;         /* check_records: one per item */
    size_t capchecks;
    char (*msgs)[200];
    size_t nmsgs, capmsgs;
    bool end;               /* the last chunk of its generation */
    uint64_t end_pos;       /* where the walker stopped */
    uint64_t end_size;      /* the readable size then (lower if the file shrank) */
    bool nomem, ioerr;
} chunk;

typedef struct request {
    uint64_t gen;           /* generation it starts */
    uint64_t pos;           /* the damaged batch */
    bool has_off;
    int64_t off;
    char msg[200];
} request;

struct kf_segment_iter {
    kf_scan_opts o;
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
    chunk *chunks;
    size_t nchunks;
    request req;            /* the newest restart request (req.gen > wgen: pending) */
    bool stop;
    atomic_uint_fast64_t gen; /* the consumer's generation */
    pthread_t walker_thread, worker_threads[MAX_WORKERS];
    bool walker_started;
    unsigned workers_started;
    kf_buf unthreaded_scratch; /* the caller's thread's, when it checks chunks */
    kf_buf walker_scratch;

    /* consumer state */
    uint64_t cseq;          /* next chunk to consume */
    chunk *cur;             /* the chunk being consumed */
    size_t ci;              /* next item in cur */
    item *held;             /* a looked-ahead item to take first */
    chunk *held_chunk;
    chunk *ret_chunk;       /* the chunk of the batch last returned */
    size_t ret_index;
    kf_segment_summary sum;
    bool valid_set;
    bool finished;
    uint64_t end_pos, end_size; /* from the generation's last chunk */
    int err;                /* sticky kf_err */
    kf_batch_check check;
    bool skipped_has_last;  /* IT_BADMAGIC since the last batch returned */
    int64_t skipped_last;
    kf_buf rbuf;            /* records of the caller's batches */
};

/* ---- chunk buffers ------------------------------------------------------ */

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
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

static item *add_item(kf_segment_iter *it, chunk *c)
{
    item *ni = grow(c->items, &c->capitems, c->nitems + 1, sizeof *ni);
    if (!ni) {
        c->nomem = true;
        return NULL;
    }
    c->items = ni;
    if (it->check_records) {
        size_t cap = c->capchecks;
        dcheck *nc = grow(c->checks, &cap, c->nitems + 1, sizeof *nc);
        if (!nc) {
            c->nomem = true;
            return NULL;
        }
        c->checks = nc;
        c->capchecks = cap;
    }
    item *x = &c->items[c->nitems++];
    memset(x, 0, sizeof *x);
    return x;
}

/* A problem item (kind IT_PROBLEM unless the caller changes it). */
static wproblem *add_problem(kf_segment_iter *it, chunk *c, const char *code, kf_severity sev, uint64_t pos,
                             bool has_off, int64_t off, uint64_t length, bool has_length, const char *msg)
{
    wproblem *np = grow(c->probs, &c->capprobs, c->nprobs + 1, sizeof *np);
    if (!np) {
        c->nomem = true;
        return NULL;
    }
    c->probs = np;
    item *x = add_item(it, c);
    if (!x)
        return NULL;
    x->kind = IT_PROBLEM;
    x->aux = (uint32_t)c->nprobs;
    wproblem *w = &c->probs[c->nprobs++];
    memset(w, 0, sizeof *w);
    w->p.code = code;
    w->p.severity = sev;
    w->p.position = pos;
    w->p.has_offset = has_off;
    w->p.offset = has_off ? off : 0;
    w->p.has_length = has_length;
    w->p.length = length;
    snprintf(w->p.message, sizeof w->p.message, "%s", msg);
    return w;
}

/* Load [pos, pos + n) into c (n <= file bytes left). False on failure. */
static bool load(kf_segment_iter *it, chunk *c, uint64_t pos, size_t n)
{
    c->start = pos;
    const uint8_t *mem = kf_source_data(it->src);
    if (mem) {
        c->data = mem + pos;
        c->len = n;
        return true;
    }
    if (n > c->cap) {
        uint8_t *nb = realloc(c->buf, n);
        if (!nb) {
            c->nomem = true;
            return false;
        }
        c->buf = nb;
        c->cap = n;
    }
    kf_source_will_read(it->src, pos + n);
    int64_t got = kf_source_pread(it->src, pos, c->buf, n);
    if (got < 0) {
        c->ioerr = true;
        return false;
    }
    if ((size_t)got < n) /* the file shrank since it was opened */
        it->wsize = pos + (uint64_t)got;
    c->data = c->buf;
    c->len = (size_t)got;
    return true;
}

/* ---- walker ------------------------------------------------------------- */

static void walker_set_end(kf_segment_iter *it, chunk *c)
{
    if (it->win.size < it->wsize)
        it->wsize = it->win.size;
    c->end = true;
    c->end_pos = it->wpos < it->wsize ? it->wpos : it->wsize;
    c->end_size = it->wsize;
    it->wdone = true;
}

/* Damage starting at pos: report it, resynchronise, and move wpos to where
 * reading resumes. hint_next: where the entry after it would start if its
 * length is right (0: none). */
static void walker_skip_damage(kf_segment_iter *it, chunk *c, uint64_t pos, const char *code, bool has_off,
                               int64_t off, const char *msg, uint64_t hint_next)
{
    kf_window *w = &it->win;
    w->size = it->wsize;
    uint64_t size = it->wsize;
    uint64_t next = size;
    if (it->o.resync) {
        if (hint_next > pos && hint_next < size && kf_entry_plausible(w, hint_next))
            next = hint_next;
        else
            next = kf_find_next(w, pos + 1);
    }
    if (w->nomem)
        c->nomem = true;
    char full[240];
    if (next < size)
        snprintf(full, sizeof full, "%.160s; %llu bytes skipped to the next intact batch at position %llu", msg,
                 (unsigned long long)(next - pos), (unsigned long long)next);
    else
        snprintf(full, sizeof full, "%.200s; no intact batch after it", msg);
    wproblem *wp = add_problem(it, c, code, KF_SEV_ERROR, pos, has_off, off, 0, false, full);
    if (wp) {
        wp->sets_valid = true;
        wp->counts_bad = true;
    }
    /* Name long zero runs inside the skipped range (zeroed pages, holes). */
    uint64_t p = pos;
    while (p < next) {
        size_t avail;
        const uint8_t *d = kf_window_at(w, p, 1, &avail);
        if (!d)
            break;
        size_t n = avail < next - p ? avail : (size_t)(next - p);
        if (d[0] != 0) {
            const uint8_t *nz = memchr(d, 0, n);
            p = nz ? p + (uint64_t)(nz - d) : p + n;
            continue;
        }
        uint64_t z = kf_zero_run_end(w, p, next);
        if (z - p >= ZERO_RUN_REPORT)
            add_problem(it, c, KF_P_ZERO_FILL, KF_SEV_ERROR, p, false, 0, z - p, true,
                        z == size ? "zero-filled range up to the end of the segment"
                                  : "zero-filled range inside the segment");
        p = z;
    }
    it->wpos = next;
    if (w->size < it->wsize) /* the file shrank under the window */
        it->wsize = w->size;
}

/* The base offset field of the entry at pos, when its 8 bytes are there:
 * a framing problem names it even when nothing else of the entry is sane. */
static bool offset_at(kf_segment_iter *it, uint64_t pos, int64_t *off)
{
    size_t avail;
    const uint8_t *q = kf_window_at(&it->win, pos, 8, &avail);
    if (!q || avail < 8)
        return false;
    *off = (int64_t)kf_be64(q);
    return true;
}

/* Framing damage at wpos (the 17-byte frame says size < 14, or fewer than 18
 * bytes are left). Moves wpos on. */
static void walker_bad_frame(kf_segment_iter *it, chunk *c, bool short_tail, int32_t len)
{
    kf_window *w = &it->win;
    w->size = it->wsize;
    uint64_t pos = it->wpos, size = it->wsize;
    char msg[200];
    uint64_t z = kf_zero_run_end(w, pos, size);
    if (z >= size) { /* zeros up to the end: a preallocated tail (a sample's end says nothing) */
        wproblem *wp = add_problem(it, c, it->o.limited ? NULL : KF_P_ZERO_FILL, KF_SEV_WARNING, pos, false, 0,
                                   size - pos, true,
                                   "zero-filled tail after the last batch (preallocated or never written)");
        if (wp)
            wp->sets_valid = true;
        it->wpos = size;
        return;
    }
    if (short_tail) {
        wproblem *wp;
        if (it->o.limited) {
            wp = add_problem(it, c, NULL, KF_SEV_WARNING, pos, false, 0, 0, false, "");
        } else {
            snprintf(msg, sizeof msg, "%llu trailing bytes are too few for an entry header",
                     (unsigned long long)(size - pos));
            int64_t off = 0;
            bool has_off = offset_at(it, pos, &off);
            wp = add_problem(it, c, KF_P_TRUNCATED, KF_SEV_ERROR, pos, has_off, off, 0, false, msg);
            if (wp)
                wp->counts_bad = true;
        }
        if (wp)
            wp->sets_valid = true;
        it->wpos = size;
        return;
    }
    if (z - pos >= KF_HEADER_UP_TO_MAGIC + 1) {
        /* a zeroed range followed by data: reported once, whole; a batch may
         * start with up to 11 zero bytes (offset 0), so look from z - 12 */
        uint64_t from = z - pos > 12 ? z - 12 : pos + 1;
        uint64_t next = it->o.resync ? kf_find_next(w, from) : size;
        uint64_t zend = next < z ? next : z;
        wproblem *wp = add_problem(it, c, KF_P_ZERO_FILL, KF_SEV_ERROR, pos, false, 0, zend - pos, true,
                                   "zero-filled range inside the segment");
        if (wp) {
            wp->sets_valid = true;
            wp->counts_bad = true;
        }
        it->wpos = next;
        return;
    }
    snprintf(msg, sizeof msg, "size field %d is below the minimum entry size of 14", len);
    int64_t off = 0;
    bool has_off = offset_at(it, pos, &off);
    walker_skip_damage(it, c, pos, KF_P_BAD_LENGTH, has_off, off, msg, 0);
}

/* The entry at wpos runs past the end of the file. */
static void walker_torn(kf_segment_iter *it, chunk *c, const uint8_t *p, int32_t len)
{
    uint64_t pos = it->wpos, size = it->wsize;
    int64_t off = (int64_t)kf_be64(p);
    char msg[200];
    if (it->o.limited) {
        wproblem *wp = add_problem(it, c, NULL, KF_SEV_WARNING, pos, false, 0, 0, false, "");
        if (wp)
            wp->sets_valid = true;
        it->wpos = size;
        return;
    }
    kf_window *w = &it->win;
    w->size = size;
    uint64_t next = it->o.resync ? kf_find_next(w, pos + 1) : size;
    if (next < size) {
        snprintf(msg, sizeof msg, "length %d runs past the end of the file (%llu bytes left)", len,
                 (unsigned long long)(size - pos));
        walker_skip_damage(it, c, pos, KF_P_BAD_LENGTH, true, off, msg, next);
        return;
    }
    snprintf(msg, sizeof msg, "last entry is torn: it needs %lld bytes, %llu are present",
             (long long)len + KF_LOG_OVERHEAD, (unsigned long long)(size - pos));
    wproblem *wp = add_problem(it, c, KF_P_TRUNCATED, KF_SEV_ERROR, pos, true, off, 0, false, msg);
    if (wp) {
        wp->sets_valid = true;
        wp->counts_bad = true;
    }
    it->wpos = size;
}

/* An entry whose size is past what we read whole. Its CRC is checked in
 * pieces; whole or not, it is not handed on (its bytes are not in memory). */
static void walker_too_large(kf_segment_iter *it, chunk *c, const uint8_t *p, uint32_t bsize)
{
    uint64_t pos = it->wpos;
    int magic = p[16];
    kf_window *w = &it->win;
    w->size = it->wsize;
    bool ok = false;
    if (magic == 2 || magic == 0 || magic == 1) {
        bool v2 = magic == 2;
        bool read_ok;
        uint32_t crc = kf_window_crc(w, v2, pos + (v2 ? 21 : 16), bsize - (v2 ? 21 : 16), &read_ok);
        ok = read_ok && crc == kf_be32(p + (v2 ? 17 : 12));
    }
    char msg[200];
    if (!ok) {
        snprintf(msg, sizeof msg, "entry of %u bytes (larger than --max-batch-bytes) does not hold its CRC", bsize);
        walker_skip_damage(it, c, pos, KF_P_CRC_MISMATCH, true, (int64_t)kf_be64(p), msg, pos + bsize);
        return;
    }
    snprintf(msg, sizeof msg,
             "batch of %u bytes is larger than --max-batch-bytes (%zu): its CRC holds but it was not read; "
             "raise --max-batch-bytes to check it",
             bsize, it->max_entry);
    wproblem *wp = add_problem(it, c, KF_P_BATCH_TOO_LARGE, KF_SEV_ERROR, pos, true, (int64_t)kf_be64(p), 0,
                               false, msg);
    if (wp)
        wp->counts_bad = true; /* the broker keeps it: valid_bytes does not move */
    it->wpos = pos + bsize;
}

/* Fill c from wpos: whole entries, and the damage met on the way. */
static void walker_fill(kf_segment_iter *it, chunk *c)
{
    c->nitems = c->nprobs = c->nmsgs = 0;
    c->end = c->nomem = c->ioerr = false;
    c->len = 0;
    c->start = it->wpos;
    if (it->wpos >= it->wsize) {
        walker_set_end(it, c);
        return;
    }
    size_t want = it->chunk_bytes;
    if (want > it->wsize - it->wpos)
        want = (size_t)(it->wsize - it->wpos);
    if (!load(it, c, it->wpos, want))
        return;
    for (;;) {
        if (c->nomem || c->ioerr)
            return;
        uint64_t pos = it->wpos, size = it->wsize;
        if (pos >= size) {
            walker_set_end(it, c);
            return;
        }
        if (pos < c->start || pos > c->start + c->len)
            return; /* damage handling moved outside this chunk: the next one starts there */
        size_t off = (size_t)(pos - c->start);
        size_t in_chunk = c->len - off;
        uint64_t left = size - pos;
        if (in_chunk < KF_HEADER_UP_TO_MAGIC + 1 && in_chunk < left)
            return; /* the frame straddles the chunk's end */
        const uint8_t *p = c->data + off;
        uint32_t bsize;
        int8_t magic;
        kf_frame fr = kf_batch_frame(p, left, &bsize, &magic);
        if (fr != KF_FRAME_OK) {
            int32_t len = fr == KF_FRAME_SHORT_TAIL ? 0 : (int32_t)kf_be32(p + 8);
            if (fr == KF_FRAME_TORN)
                walker_torn(it, c, p, len);
            else
                walker_bad_frame(it, c, fr == KF_FRAME_SHORT_TAIL, len);
            continue;
        }
        if (bsize > in_chunk) {
            if (off > 0)
                return; /* it starts the next chunk */
            if (bsize > it->max_entry) {
                walker_too_large(it, c, p, bsize);
                continue;
            }
            if (!load(it, c, pos, bsize))
                return;
            if (c->len < bsize)
                continue; /* the file shrank under it: framing sees the new end */
            p = c->data;
            in_chunk = c->len;
        }
        kf_batch b;
        int prc = kf_batch_parse(p, bsize, pos, &b);
        char msg[200];
        if (prc == KF_ERR_UNSUPPORTED && (b.magic < 0 || b.magic > 2)) {
            /* FileLogInputStream reads any magic >= 2 as a v2 batch, and the
             * v2 CRC does not cover the magic byte: if the rest holds, the
             * broker keeps this batch, so valid_bytes does not move. */
            int64_t boff = (int64_t)kf_be64(p);
            if (b.magic > 2 && kf_batch_parse_broker(p, bsize, pos, &b) == KF_OK && kf_batch_verify_crc(&b)) {
                snprintf(msg, sizeof msg,
                         "magic byte %d is not 0, 1 or 2 (the rest of the batch is intact; "
                         "a broker would read it as magic 2)",
                         b.magic);
                wproblem *wp = add_problem(it, c, KF_P_BAD_MAGIC, KF_SEV_ERROR, pos, true, boff, 0, false, msg);
                if (wp) {
                    item *bm = &c->items[c->nitems - 1];
                    bm->kind = IT_BADMAGIC;
                    bm->b = b;
                    bm->crc_ok = true;
                    wp->counts_bad = true;
                    wp->last_offset = bm->b.last_offset;
                }
                it->wpos = pos + bsize;
                continue;
            }
            snprintf(msg, sizeof msg, "magic byte %d is not 0, 1 or 2", b.magic);
            walker_skip_damage(it, c, pos, KF_P_BAD_MAGIC, true, boff, msg, pos + bsize);
            continue;
        }
        bool min_ok = b.magic == 2 ? bsize >= KF_V2_HEADER_SIZE : bsize >= KF_LOG_OVERHEAD + KF_V0_MIN_SIZE;
        if (!min_ok) {
            snprintf(msg, sizeof msg, "entry of %u bytes is below the minimum of %d for magic %d", bsize,
                     b.magic == 2 ? KF_V2_HEADER_SIZE : KF_LOG_OVERHEAD + KF_V0_MIN_SIZE, b.magic);
            walker_skip_damage(it, c, pos, KF_P_BAD_LENGTH, true, (int64_t)kf_be64(p), msg, pos + bsize);
            continue;
        }
        item *x = add_item(it, c);
        if (!x)
            return;
        x->kind = IT_BATCH;
        x->parse_ok = prc == KF_OK;
        x->b = b;
        it->wpos = pos + bsize;
    }
}

/* A restart request of a newer generation: begin it in c. */
static void walker_restart(kf_segment_iter *it, chunk *c, const request *r)
{
    it->wgen = r->gen;
    it->wdone = false;
    c->nitems = c->nprobs = c->nmsgs = 0;
    c->end = c->nomem = c->ioerr = false;
    c->len = 0;
    c->data = c->buf;
    c->start = r->pos;
    it->wpos = r->pos;
    walker_skip_damage(it, c, r->pos, KF_P_CRC_MISMATCH, r->has_off, r->off, r->msg, 0);
    if (it->wpos >= it->wsize)
        walker_set_end(it, c);
}

/* ---- workers ------------------------------------------------------------ */

static void check_records(kf_segment_iter *it, chunk *c, size_t i, kf_buf *scratch)
{
    item *x = &c->items[i];
    dcheck *d = &c->checks[i];
    memset(d, 0, sizeof *d);
    d->msg = UINT32_MAX;
    d->done = true;
    kf_record_iter ri;
    int rc = kf_records_begin(&ri, &x->b, scratch, it->o.max_batch_bytes);
    uint64_t count = 0;
    int n = 0;
    bool marker = false; /* a transaction marker stands alone in its batch; KRaft
                            control batches may hold several control records */
    if (rc == KF_OK) {
        kf_record r;
        while ((n = kf_records_next(&ri, &r)) == 1) {
            count++;
            if (x->b.control) {
                kf_control ctl;
                bool parsed = kf_control_parse(&r, &ctl) == KF_OK;
                if (count == 1)
                    marker = parsed && (ctl.type == KF_CONTROL_ABORT || ctl.type == KF_CONTROL_COMMIT);
                if (!parsed)
                    d->ctl_malformed = true;
                else if (count > 1 && marker)
                    d->ctl_extra++;
            }
        }
    }
    d->records = count;
    d->ok = rc == KF_OK && n == 0;
    if (!d->ok) {
        d->code = ri.err_code ? ri.err_code : KF_P_BAD_RECORD;
        size_t cap = c->capmsgs;
        char(*nm)[200] = grow(c->msgs, &cap, c->nmsgs + 1, sizeof *nm);
        if (nm) {
            c->msgs = nm;
            c->capmsgs = cap;
            snprintf(c->msgs[c->nmsgs], sizeof c->msgs[0], "%s", ri.err_msg);
            d->msg = (uint32_t)c->nmsgs++;
        }
    }
}

static void check_chunk(kf_segment_iter *it, chunk *c, kf_buf *scratch)
{
    for (size_t i = 0; i < c->nitems; i++) {
        item *x = &c->items[i];
        if (x->kind != IT_BATCH)
            continue;
        x->crc_ok = kf_batch_verify_crc(&x->b);
        if (it->check_records) {
            c->checks[i].done = false;
            if (x->crc_ok && x->parse_ok)
                check_records(it, c, i, scratch);
        }
        if (atomic_load_explicit(&it->gen, memory_order_relaxed) > c->gen)
            return; /* dropped by the consumer already: skip the rest */
    }
}

/* ---- threads ------------------------------------------------------------ */

static chunk *find_chunk(kf_segment_iter *it, int state)
{
    chunk *best = NULL;
    for (size_t i = 0; i < it->nchunks; i++)
        if (it->chunks[i].state == state && (!best || it->chunks[i].seq < best->seq))
            best = &it->chunks[i];
    return best;
}

static void *walker_main(void *arg)
{
    kf_segment_iter *it = arg;
    pthread_mutex_lock(&it->mu);
    for (;;) {
        bool restart = it->req.gen > it->wgen;
        chunk *c = NULL;
        while (!it->stop && ((it->wdone && !restart) || !(c = find_chunk(it, C_FREE)))) {
            /* nothing to read into: check a chunk rather than wait (with
             * compressed data, reading is the light part) */
            chunk *w = find_chunk(it, C_FILLED);
            if (w) {
                w->state = C_CHECKING;
                pthread_mutex_unlock(&it->mu);
                check_chunk(it, w, &it->walker_scratch);
                pthread_mutex_lock(&it->mu);
                w->state = C_CHECKED;
                pthread_cond_broadcast(&it->cv_consumer);
            } else {
                pthread_cond_wait(&it->cv_walker, &it->mu);
            }
            restart = it->req.gen > it->wgen;
        }
        if (it->stop)
            break;
        request r = it->req;
        c->state = C_FILLING;
        c->seq = it->next_seq++;
        pthread_mutex_unlock(&it->mu);
        if (restart)
            walker_restart(it, c, &r);
        else
            walker_fill(it, c);
        pthread_mutex_lock(&it->mu);
        c->gen = it->wgen;
        c->state = C_FILLED;
        pthread_cond_signal(&it->cv_worker);
        pthread_cond_signal(&it->cv_consumer); /* the caller checks chunks too */
    }
    pthread_mutex_unlock(&it->mu);
    return NULL;
}

static void *worker_main(void *arg)
{
    kf_segment_iter *it = arg;
    kf_buf scratch = {0};
    pthread_mutex_lock(&it->mu);
    for (;;) {
        chunk *c = NULL;
        while (!it->stop && !(c = find_chunk(it, C_FILLED)))
            pthread_cond_wait(&it->cv_worker, &it->mu);
        if (it->stop)
            break;
        c->state = C_CHECKING;
        pthread_mutex_unlock(&it->mu);
        check_chunk(it, c, &scratch);
        pthread_mutex_lock(&it->mu);
        c->state = C_CHECKED;
        pthread_cond_broadcast(&it->cv_consumer);
    }
    pthread_mutex_unlock(&it->mu);
    kf_buf_free(&scratch);
    return NULL;
}

/* ---- consumer ----------------------------------------------------------- */

static void release(kf_segment_iter *it, chunk *c, bool in_order)
{
    if (!c)
        return;
    if (in_order && !it->o.keep_cache)
        kf_source_done_below(it->src, c->start);
    if (it->threaded) {
        pthread_mutex_lock(&it->mu);
        c->state = C_FREE;
        pthread_cond_signal(&it->cv_walker);
        pthread_mutex_unlock(&it->mu);
    } else {
        c->state = C_FREE;
    }
}

/* The next chunk of the consumer's generation, checked; NULL on failure. */
static chunk *take_chunk(kf_segment_iter *it)
{
    uint64_t gen = atomic_load(&it->gen);
    for (;;) {
        chunk *c = NULL;
        if (it->threaded) {
            pthread_mutex_lock(&it->mu);
            for (;;) {
                for (size_t i = 0; i < it->nchunks; i++)
                    if (it->chunks[i].state >= C_FILLING && it->chunks[i].seq == it->cseq)
                        c = &it->chunks[i];
                if (c && c->state == C_CHECKED)
                    break;
                c = NULL;
                /* rather than wait, check a chunk that is waiting for a
                 * worker (the oldest first: most likely the one we need) */
                chunk *w = find_chunk(it, C_FILLED);
                if (w) {
                    w->state = C_CHECKING;
                    pthread_mutex_unlock(&it->mu);
                    check_chunk(it, w, &it->unthreaded_scratch);
                    pthread_mutex_lock(&it->mu);
                    w->state = C_CHECKED;
                    pthread_cond_broadcast(&it->cv_consumer);
                    continue;
                }
                pthread_cond_wait(&it->cv_consumer, &it->mu);
            }
            c->state = C_CONSUMING;
            pthread_mutex_unlock(&it->mu);
        } else {
            c = find_chunk(it, C_FREE);
            if (!c)
                return NULL; /* cannot happen: at most two chunks are held */
            bool restart = it->req.gen > it->wgen;
            c->seq = it->next_seq++;
            if (restart)
                walker_restart(it, c, &it->req);
            else
                walker_fill(it, c);
            c->gen = it->wgen;
            check_chunk(it, c, &it->unthreaded_scratch);
            c->state = C_CONSUMING;
        }
        it->cseq++;
        if (c->gen < gen) {
            release(it, c, false);
            continue;
        }
        return c;
    }
}

/* The next item of the stream (current generation), or NULL at the end. */
static item *next_item(kf_segment_iter *it, chunk **owner)
{
    if (it->held) {
        item *x = it->held;
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
            chunk *c = it->cur;
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
                release(it, c, true);
            it->cur = NULL;
        }
        if (!(it->cur = take_chunk(it))) {
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

static void take_problem(kf_segment_iter *it, chunk *c, item *x)
{
    wproblem *w = &c->probs[x->aux];
    if (w->sets_valid)
        set_valid(it, w->p.position);
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
static void crc_damage(kf_segment_iter *it, chunk *c, item *x)
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
    chunk *nc = NULL;
    item *y = NULL;
    if (it->o.resync) {
        y = next_item(it, &nc);
        if (y && y->kind == IT_BATCH && y->b.position == next && y->crc_ok && y->parse_ok &&
            y->b.size - KF_LOG_OVERHEAD <= KF_RESYNC_MAX_BATCH)
            plausible = y->b.magic != 2 || kf_v2_header_plausible(y->b.bytes, y->b.size - KF_LOG_OVERHEAD);
    }
    b = NULL;
    if (!plausible) {
        /* the walker resynchronises from pos and reports it */
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
            pthread_cond_signal(&it->cv_walker);
            pthread_mutex_unlock(&it->mu);
        }
        /* chunks of the old generation, including the current one, are dropped */
        if (it->cur && it->cur != it->ret_chunk)
            release(it, it->cur, false);
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

static void finish(kf_segment_iter *it)
{
    if (it->finished)
        return;
    it->finished = true;
    kf_problem p = {0};
    p.code = KF_P_TRUNCATED;
    uint64_t opened = kf_source_size(it->src);
    if (kf_source_shrunk(it->src) && !it->o.limited) {
        p.severity = KF_SEV_ERROR;
        p.position = it->end_size;
        snprintf(p.message, sizeof p.message,
                 "the file shrank while it was read: it had %llu bytes when opened, reads ended at %llu",
                 (unsigned long long)opened, (unsigned long long)it->end_size);
        set_valid(it, it->end_size);
        deliver(it, &p);
    } else if (!it->o.limited && !kf_source_data(it->src)) {
        uint64_t now = kf_source_size_now(it->src);
        if (now > opened) {
            p.severity = KF_SEV_WARNING;
            p.position = opened;
            snprintf(p.message, sizeof p.message,
                     "the file grew from %llu to %llu bytes while it was read (is a broker writing to it?); "
                     "the bytes past %llu were not read",
                     (unsigned long long)opened, (unsigned long long)now, (unsigned long long)opened);
            deliver(it, &p);
        }
    }
    if (!it->valid_set)
        it->sum.valid_bytes = it->end_pos;
}

int kf_segment_iter_next(kf_segment_iter *it, kf_batch *out, bool *damaged)
{
    uint64_t bad0 = it->sum.bad_batches;
    int got = 0;
    if (it->ret_chunk && it->ret_chunk != it->cur && it->ret_chunk != it->held_chunk)
        release(it, it->ret_chunk, true);
    it->ret_chunk = NULL;
    it->skipped_has_last = false;
    while (!it->err && !it->finished) {
        chunk *c;
        item *x = next_item(it, &c);
        if (!x) {
            if (!it->err)
                finish(it);
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
            dcheck *d = &c->checks[x - c->items];
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

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int kf_segment_iter_open(kf_segment_iter **out, kf_source *src, const kf_scan_opts *o)
{
    return kf_segment_iter_open_checking(out, src, o, true);
}

int kf_segment_iter_open_checking(kf_segment_iter **out, kf_source *src, const kf_scan_opts *o, bool check_records)
{
    *out = NULL;
    kf_segment_iter *it = calloc(1, sizeof *it);
    if (!it)
        return KF_ERR_NOMEM;
    it->o = *o;
    if (it->o.records)
        it->o.deep = true;
    it->check_records = it->o.deep && check_records;
    it->src = src;
    it->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK;
    if (it->chunk_bytes < MIN_CHUNK)
        it->chunk_bytes = MIN_CHUNK;
    it->max_entry = o->max_batch_bytes > it->chunk_bytes ? o->max_batch_bytes : it->chunk_bytes;
    if (it->max_entry > UINT32_MAX)
        it->max_entry = UINT32_MAX;
    it->wsize = kf_source_size(src);
    kf_window_init(&it->win, src);
    if (!o->keep_cache)
        kf_source_gentle(src, true);
    atomic_init(&it->gen, 0);
    unsigned cpus = online_cpus();
    unsigned threads = o->threads ? o->threads : (kf_source_size(src) >= THREADED_MIN_SIZE && cpus >= 2 ? cpus : 1);
    it->threaded = threads > 1;
    /* threads in all: the walker, the workers, and the caller's thread,
     * which checks chunks too while it waits for the next one */
    it->nworkers = threads > 2 ? threads - 2 : 0;
    if (it->nworkers > MAX_WORKERS)
        it->nworkers = MAX_WORKERS;
    it->nchunks = it->threaded ? 2 * (size_t)it->nworkers + 6 : 3;
    it->chunks = calloc(it->nchunks, sizeof *it->chunks);
    if (!it->chunks) {
        free(it);
        return KF_ERR_NOMEM;
    }
    if (it->threaded) {
        pthread_mutex_init(&it->mu, NULL);
        pthread_cond_init(&it->cv_walker, NULL);
        pthread_cond_init(&it->cv_worker, NULL);
        pthread_cond_init(&it->cv_consumer, NULL);
        it->walker_started = pthread_create(&it->walker_thread, NULL, walker_main, it) == 0;
        for (unsigned i = 0; i < it->nworkers && it->walker_started; i++)
            if (pthread_create(&it->worker_threads[i], NULL, worker_main, it) == 0)
                it->workers_started++;
        if (!it->walker_started || it->workers_started < it->nworkers) {
            /* no threads to be had: read on the caller's thread */
            kf_segment_iter_close(it);
            kf_scan_opts o1 = *o;
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
        pthread_cond_broadcast(&it->cv_walker);
        pthread_cond_broadcast(&it->cv_worker);
        pthread_mutex_unlock(&it->mu);
        if (it->walker_started)
            pthread_join(it->walker_thread, NULL);
        for (unsigned i = 0; i < it->workers_started; i++)
            pthread_join(it->worker_threads[i], NULL);
        pthread_mutex_destroy(&it->mu);
        pthread_cond_destroy(&it->cv_walker);
        pthread_cond_destroy(&it->cv_worker);
        pthread_cond_destroy(&it->cv_consumer);
    }
    for (size_t i = 0; i < it->nchunks; i++) {
        chunk *c = &it->chunks[i];
        free(c->buf);
        free(c->items);
        free(c->probs);
        free(c->checks);
        free(c->msgs);
    }
    free(it->chunks);
    kf_window_free(&it->win);
    kf_buf_free(&it->unthreaded_scratch);
    kf_buf_free(&it->walker_scratch);
    kf_buf_free(&it->rbuf);
    free(it);
}
