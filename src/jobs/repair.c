/* repair.c: the repair plan for a segment or a partition directory: which
 * byte ranges of which segment are kept, streamed from the mapped input to
 * safe output files with indexes rebuilt by the recovery rule; and what
 * becomes of .txnindex, .snapshot, leader-epoch-checkpoint and
 * partition.metadata (copied when they agree with the repaired log, else
 * rebuilt or dropped, with the reason). Producer state is replayed over the
 * kept batches (producer_state.c): each output segment's .txnindex is
 * rebuilt from its kept ABORT markers, and a snapshot that disagrees with
 * the repaired log is replaced by one rebuilt at the repaired log end.
 *
 * Default mode is what broker recovery (LogSegment.recover + LogLoader)
 * leaves: the first segment that recovery would truncate is cut at its
 * valid_bytes and every later segment is dropped. Salvage mode keeps every
 * batch that passes all of verify's per-batch checks, found with the
 * resynchronising segment iterator, as long as offsets strictly increase
 * across the whole partition. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/checkpoint.h"
#include "kfsck/cursor.h"
#include "kfsck/file.h"
#include "kfsck/index.h"
#include "kfsck/names.h"
#include "kfsck/producer_state.h"
#include "kfsck/repair.h"
#include "kfsck/segment.h"
#include "kfsck/snapshot.h"
#include "format/resync.h"

void kf_repair_opts_init(kf_repair_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
}

/* ---- per-batch deep check (what verify checks inside one batch) ---------- */

typedef struct first_problem {
    const char *code;
    uint64_t errors;
} first_problem;

static void first_problem_fn(void *ctx, const kf_problem *p)
{
    first_problem *fp = ctx;
    if (p->severity != KF_SEV_ERROR)
        return;
    if (!fp->code)
        fp->code = p->code;
    fp->errors++;
}

bool kf_batch_deep_ok(const kf_batch *b, size_t max_batch_bytes, const char **code, int64_t *first, int64_t *last)
{
    kf_source *m;
    if (kf_source_memory(&m, b->bytes, b->size) != KF_OK) {
        *code = "out_of_memory";
        *first = b->base_offset;
        *last = b->last_offset;
        return false;
    }
    kf_scan_opts so;
    kf_scan_opts_init(&so);
    so.deep = true;
    so.resync = false;
    so.base_offset = -1;
    so.max_batch_bytes = max_batch_bytes ? max_batch_bytes : KF_DEFAULT_MAX_BATCH_BYTES;
    first_problem fp = {NULL, 0};
    so.problem_fn = first_problem_fn;
    so.problem_ctx = &fp;
    so.threads = 1;
    so.keep_cache = true;
    kf_segment_summary sum;
    int rc = kf_segment_scan(m, &so, &sum);
    kf_source_close(m);
    *first = sum.has_offsets ? sum.first_offset : b->base_offset;
    *last = sum.has_offsets ? sum.last_offset : b->last_offset;
    if (rc != KF_OK) {
        *code = "out_of_memory";
        return false;
    }
    if (fp.errors || sum.batches != 1) {
        *code = fp.code ? fp.code : KF_P_BAD_RECORD;
        return false;
    }
    *code = NULL;
    return true;
}

/* ---- small helpers -------------------------------------------------------- */


static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The input segment of a repair: the source, and a window for random access. */
typedef struct seg_in {
    kf_source *src;
    kf_window w;
    uint64_t size;
} seg_in;

static bool range_all_zero(seg_in *m, uint64_t start, uint64_t end)
{
    return kf_zero_run_end(&m->w, start, end) >= end;
}

typedef struct le_entry {
    int32_t epoch;
    int64_t start;
} le_entry;

typedef struct off_range {
    int64_t first, last; /* last INT64_MAX when unknown */
} off_range;

typedef struct repair_ctx {
    const kf_repair_opts *o;
    kf_repair_result *res;
    const char *out_dir;
    bool truncated;           /* default mode: a segment was cut, later ones go */
    bool have_prev;
    int64_t prev_last;        /* last offset kept so far (partition-wide) */
    int64_t last_base;        /* base offset of the last segment kept */
    bool have_base;
    /* leader epochs: rebuilt from the kept batches, and the input's */
    le_entry *le;
    size_t nle, cap_le;
    le_entry *in_le;
    size_t nin_le, cap_in_le;
    size_t in_le_k;           /* input entry covering the current batch */
    bool in_le_ok;            /* parsed and so far consistent */
    char in_le_why[200];
    /* offsets lost (for the producer snapshot check) */
    off_range *lost;
    size_t nlost, cap_lost;
    kf_buf buf;
    /* producer state replayed over the kept batches */
    kf_pstate *ps;
    int64_t ps_seed;          /* offset of the snapshot it started from, -1: empty */
    bool snap_written;        /* the rebuilt <leo>.snapshot was written */
    /* the current output segment's rebuilt .txnindex */
    uint8_t *txn_out;
    size_t txn_len, txn_cap;
} repair_ctx;

static int fail(repair_ctx *c, const char *path, int err_no, const char *what)
{
    size_t n = strlen(path);
    if (n >= sizeof c->res->err_path)
        n = sizeof c->res->err_path - 1;
    memcpy(c->res->err_path, path, n);
    c->res->err_path[n] = 0;
    c->res->err_no = err_no;
    snprintf(c->res->err_what, sizeof c->res->err_what, "%s", what);
    return KF_ERR_IO;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static void add_lost(repair_ctx *c, int64_t first, int64_t last)
{
    if (grow((void **)&c->lost, &c->cap_lost, c->nlost + 1, sizeof *c->lost) == 0)
        c->lost[c->nlost++] = (off_range){first, last};
}

/* A kept batch: feed the leader-epoch rebuild and check the input's. */
static void note_epoch(repair_ctx *c, int64_t base, int32_t epoch)
{
    if (epoch < 0)
        return;
    if (c->nle == 0 || epoch > c->le[c->nle - 1].epoch) {
        if (grow((void **)&c->le, &c->cap_le, c->nle + 1, sizeof *c->le) == 0)
            c->le[c->nle++] = (le_entry){epoch, base};
    }
    if (!c->in_le_ok)
        return;
    while (c->in_le_k + 1 < c->nin_le && c->in_le[c->in_le_k + 1].start <= base)
        c->in_le_k++;
    if (c->nin_le == 0 || c->in_le[c->in_le_k].start > base || c->in_le[c->in_le_k].epoch != epoch) {
        c->in_le_ok = false;
        snprintf(c->in_le_why, sizeof c->in_le_why,
                 "the batch at offset %lld has leader epoch %d, the checkpoint says %s%d", (long long)base, epoch,
                 c->nin_le == 0 || c->in_le[c->in_le_k].start > base ? "no epoch, first entry epoch " : "epoch ",
                 c->nin_le ? c->in_le[c->in_le_k].epoch : -1);
    }
}

static void emit_file(repair_ctx *c, const char *input, const char *output, const char *action, const char *fmt,
                      ...) __attribute__((format(printf, 5, 6)));

static void emit_file(repair_ctx *c, const char *input, const char *output, const char *action, const char *fmt, ...)
{
    if (!c->o->file_fn)
        return;
    kf_repair_file f;
    memset(&f, 0, sizeof f);
    f.input = input;
    f.output = output;
    f.action = action;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f.reason, sizeof f.reason, fmt, ap);
    va_end(ap);
    c->o->file_fn(c->o->ctx, &f);
}

static void emit_drop(repair_ctx *c, kf_repair_drop *d)
{
    c->res->dropped_ranges++;
    if (d->data_loss)
        c->res->data_loss_ranges++;
    if (d->data_loss && d->has_first)
        add_lost(c, d->first_offset, d->has_last ? d->last_offset : INT64_MAX);
    if (c->o->drop_fn)
        c->o->drop_fn(c->o->ctx, d);
}

/* Fill the offsets and data_loss of a drop of [start,end) in m. */
static void finish_drop(kf_repair_drop *d, seg_in *m, bool has_first, int64_t first, bool has_last, int64_t last)
{
    d->has_first = has_first;
    d->first_offset = first;
    d->has_last = has_last;
    d->last_offset = last;
    if (has_first && has_last && last < first)
        d->has_first = d->has_last = false;
    bool zero = range_all_zero(m, d->start, d->end);
    /* only zero bytes and no offset known lost: not data */
    d->data_loss = !(zero && !d->has_first);
    /* a zero-filled tail after the last batch (preallocated): no offsets either */
    if (zero && d->end == m->size && !d->has_last) {
        d->data_loss = false;
        d->has_first = false;
    }
}

/* The header of an entry at pos whose length is unusable: its last offset,
 * when the v2 header is there and continues the offsets sensibly. */
static bool header_last(seg_in *m, uint64_t pos, int64_t expect_first, int64_t *last)
{
    size_t avail;
    const uint8_t *h = kf_window_at(&m->w, pos, KF_V2_HEADER_SIZE, &avail);
    if (!h || avail < KF_V2_HEADER_SIZE || h[16] != 2)
        return false;
    kf_batch hb;
    kf_batch_parse(h, KF_V2_HEADER_SIZE, pos, &hb);
    int64_t base = hb.base_offset;
    int32_t delta = hb.last_offset_delta;
    if (base != expect_first || delta < 0 || delta > (1 << 20))
        return false;
    *last = base + delta;
    return true;
}

/* ---- the txnindex of a segment: entries matched with kept ABORT markers --- */

typedef struct txn_check {
    const uint8_t *data;
    uint64_t n;          /* whole entries */
    uint64_t k;          /* next entry to match */
    bool *keep;          /* per entry */
    uint64_t unmatched;  /* entries whose marker is not kept */
    uint64_t missing;    /* kept ABORT markers with no entry */
    bool bad_format;
} txn_check;

/* The input entry for a kept ABORT marker, or NULL. */
static const uint8_t *txn_see_abort(txn_check *t, int64_t marker, int64_t pid)
{
    while (t->k < t->n) {
        kf_txn_entry e;
        kf_txn_index_get(t->data, t->k, &e);
        if (e.last_offset < marker) {
            t->unmatched++;
            t->k++;
            continue;
        }
        if (e.last_offset == marker && e.producer_id == pid && e.version == 0 && e.first_offset <= e.last_offset) {
            t->keep[t->k] = true;
            return t->data + t->k++ * KF_TXN_ENTRY_SIZE;
        }
        break;
    }
    t->missing++;
    return NULL;
}

/* A kept batch: replay it into the producer state; an ABORT marker adds its
 * entry to the segment's rebuilt .txnindex (the input's entry for it when
 * the transaction began before what was replayed: a log start past 0 with
 * no snapshot there). Returns KF_OK or KF_ERR_NOMEM. */
static int ps_batch(repair_ctx *c, txn_check *t, const uint8_t *p, uint32_t size)
{
    kf_pstate_step st;
    if (kf_pstate_add(c->ps, p, size, &c->buf, c->o->max_batch_bytes, &st) != KF_OK)
        return KF_ERR_NOMEM;
    if (!st.marker || !st.abort)
        return KF_OK;
    const uint8_t *in = t && t->data ? txn_see_abort(t, st.base_offset, st.producer_id) : NULL;
    uint8_t ent[KF_TXN_ENTRY_SIZE];
    if (st.has_aborted)
        kf_aborted_txn_encode(&st.aborted, ent);
    else if (in)
        memcpy(ent, in, KF_TXN_ENTRY_SIZE);
    else
        return KF_OK;
    if (grow((void **)&c->txn_out, &c->txn_cap, c->txn_len + KF_TXN_ENTRY_SIZE, 1) != 0)
        return KF_ERR_NOMEM;
    memcpy(c->txn_out + c->txn_len, ent, KF_TXN_ENTRY_SIZE);
    c->txn_len += KF_TXN_ENTRY_SIZE;
    return KF_OK;
}

typedef struct txn_probs {
    uint64_t n;
} txn_probs;

static void count_problem(void *ctx, const kf_problem *p)
{
    (void)p;
    ((txn_probs *)ctx)->n++;
}

/* ---- one segment ------------------------------------------------------------ */

typedef struct seg_job {
    const char *in_path;       /* input .log */
    const char *log_name;      /* output .log file name */
    int64_t base;              /* from the name (-1 unknown) */
    int64_t next_base;         /* next segment's base, -1 when last */
    const char *txn_path;      /* input .txnindex or NULL */
} seg_job;

typedef struct gap_state {
    uint64_t start;            /* first byte not copied */
    const char *reason;        /* first cause met in the gap */
    char message[200];
    bool has_rej;
    int64_t rej_last;          /* max last offset of intact batches rejected in the gap */
} gap_state;

typedef struct iter_probs {
    gap_state *g;
    uint64_t from;             /* only problems at or after */
} iter_probs;

static void iter_problem(void *ctx, const kf_problem *p)
{
    iter_probs *ip = ctx;
    if (p->position < ip->from || ip->g->reason)
        return;
    ip->g->reason = p->code;
    snprintf(ip->g->message, sizeof ip->g->message, "%.190s", p->message);
    char *cut = strstr(ip->g->message, "; ");
    if (cut && (strstr(cut, "skipped") || strstr(cut, "no intact batch")))
        *cut = 0;
}

static void drop_whole_segment(repair_ctx *c, const seg_job *j, seg_in *m)
{
    kf_repair_drop d;
    memset(&d, 0, sizeof d);
    d.file = j->in_path;
    d.start = 0;
    d.end = m->size;
    d.reason = "after_truncation";
    snprintf(d.message, sizeof d.message,
             "broker recovery truncated an earlier segment, so it deletes this later segment");
    /* its offsets: the intact batches in it */
    kf_scan_opts so;
    kf_scan_opts_init(&so);
    so.resync = true;
    so.base_offset = j->base;
    kf_segment_iter *it;
    bool hf = false, hl = false;
    int64_t first = 0, last = 0;
    if (kf_segment_iter_open(&it, m->src, &so) == KF_OK) {
        kf_batch b;
        bool dmg;
        while (kf_segment_iter_next(it, &b, &dmg) == 1) {
            if (!hf) {
                hf = true;
                first = b.base_offset;
            }
            hl = true;
            last = b.last_offset;
        }
        kf_segment_iter_close(it);
    }
    if (j->next_base >= 0) {
        hl = true;
        last = j->next_base - 1;
    }
    if (j->base >= 0) {
        hf = true;
        first = j->base;
    }
    if (m->size == 0) {
        hf = hl = false;
    }
    finish_drop(&d, m, hf, first, hl, last);
    if (m->size == 0)
        d.data_loss = false;
    emit_drop(c, &d);
}

static int repair_segment(repair_ctx *c, const seg_job *j)
{
    const kf_repair_opts *o = c->o;
    seg_in m;
    memset(&m, 0, sizeof m);
    int open_err = 0;
    if (kf_source_open(&m.src, j->in_path, 0, &open_err) != KF_OK)
        return fail(c, j->in_path, open_err, open_err == EINVAL ? "not a regular file" : "cannot read");
    kf_window_init(&m.w, m.src);
    m.size = kf_source_size(m.src);
    if (c->truncated) {
        drop_whole_segment(c, j, &m);
        if (j->txn_path)
            emit_file(c, j->txn_path, NULL, "dropped", "its segment was dropped (after a truncated segment)");
        kf_window_free(&m.w);
        kf_source_close(m.src);
        return KF_OK;
    }
    int64_t base = j->base;
    if (base < 0) { /* unknown from the name: the first intact batch's */
        uint64_t p = kf_find_next(&m.w, 0);
        size_t avail;
        const uint8_t *h = p < m.size ? kf_window_at(&m.w, p, 8, &avail) : NULL;
        base = h && avail >= 8 ? (int64_t)kf_be64(h) : 0;
    }

    char stem[64];
    snprintf(stem, sizeof stem, "%020lld", (long long)base);
    char ixname[96], tixname[96], txnname[96];
    snprintf(ixname, sizeof ixname, "%s.index", stem);
    snprintf(tixname, sizeof tixname, "%s.timeindex", stem);
    snprintf(txnname, sizeof txnname, "%s.txnindex", stem);

    int err_no = 0;
    kf_out_file *lf = NULL, *ixf = NULL, *tixf = NULL;
    int rc = KF_OK;
    char *out_log = kf_path_join(c->out_dir, j->log_name);
    char *out_ix = kf_path_join(c->out_dir, ixname);
    char *out_tix = kf_path_join(c->out_dir, tixname);
    if (!out_log || !out_ix || !out_tix) {
        rc = fail(c, j->in_path, ENOMEM, "out of memory");
        goto done;
    }
    if (kf_out_open(&lf, c->out_dir, j->log_name, o->force, &err_no) != KF_OK) {
        rc = fail(c, out_log, err_no, err_no == EEXIST ? "already exists (use --force to overwrite)" : "cannot create");
        goto done;
    }
    if (kf_out_open(&ixf, c->out_dir, ixname, o->force, &err_no) != KF_OK) {
        rc = fail(c, out_ix, err_no, err_no == EEXIST ? "already exists (use --force to overwrite)" : "cannot create");
        goto done;
    }
    if (kf_out_open(&tixf, c->out_dir, tixname, o->force, &err_no) != KF_OK) {
        rc = fail(c, out_tix, err_no, err_no == EEXIST ? "already exists (use --force to overwrite)" : "cannot create");
        goto done;
    }

    /* the segment's txnindex, matched against the kept ABORT markers */
    uint8_t *tm_data = NULL;
    uint64_t tm_size = 0;
    txn_check tc;
    memset(&tc, 0, sizeof tc);
    bool have_txn = false;
    if (j->txn_path && kf_file_read_all(j->txn_path, KF_SMALL_FILE_MAX, &tm_data, &tm_size, NULL) == KF_OK) {
        have_txn = true;
        tc.data = tm_data;
        tc.n = kf_txn_index_count(tm_size);
        tc.keep = calloc(tc.n ? tc.n : 1, sizeof *tc.keep);
        txn_probs tp = {0};
        kf_txn_index_check(tm_data, tm_size, base, count_problem, &tp);
        tc.bad_format = tp.n > 0;
        if (!tc.keep) {
            rc = fail(c, j->txn_path, ENOMEM, "out of memory");
            free(tm_data);
            goto done;
        }
    }
    c->txn_len = 0;

    kf_index_builder ib;
    kf_index_builder_init(&ib, base, ixf, tixf);
    kf_repair_segment sr;
    memset(&sr, 0, sizeof sr);
    sr.input = j->in_path;
    sr.output = out_log;
    sr.input_size = m.size;

    if (!o->salvage) {
        uint64_t vb = kf_recovery_point(m.src, j->base);
        uint64_t pos = 0;
        while (pos < vb && rc == KF_OK) {
            uint32_t bsize;
            int8_t magic;
            size_t avail;
            const uint8_t *p = kf_window_at(&m.w, pos, KF_HEADER_UP_TO_MAGIC + 1, &avail);
            if (!p || kf_batch_frame(p, vb - pos < avail ? vb - pos : avail, &bsize, &magic) == KF_FRAME_SHORT_TAIL)
                break; /* cannot happen below valid_bytes */
            if (avail < bsize)
                p = kf_window_at(&m.w, pos, bsize, &avail);
            if (!p || avail < bsize || kf_batch_frame(p, vb - pos < avail ? vb - pos : avail, &bsize, &magic) != KF_FRAME_OK)
                break; /* the file changed under us */
            int64_t last, maxts;
            kf_entry_broker_view(p, bsize, &last, &maxts);
            int brc = kf_index_builder_add(&ib, bsize, last, maxts);
            if (brc == KF_ERR_IO) {
                rc = fail(c, out_ix, errno, "cannot write");
                break;
            }
            if (brc != KF_OK) {
                vb = pos; /* recovery would throw here */
                break;
            }
            if (kf_out_write(lf, p, bsize) != KF_OK) {
                rc = fail(c, out_log, errno, "cannot write");
                break;
            }
            int64_t first = magic >= 2 ? (int64_t)kf_be64(p) : last;
            if (magic >= 2)
                note_epoch(c, first, (int32_t)kf_be32(p + 12));
            if (ps_batch(c, have_txn ? &tc : NULL, p, bsize) != KF_OK) {
                rc = fail(c, j->in_path, ENOMEM, "out of memory");
                break;
            }
            if (!sr.has_offsets) {
                sr.has_offsets = true;
                sr.first_offset = first;
            }
            sr.last_offset = last;
            sr.batches++;
            c->have_prev = true;
            c->prev_last = last;
            pos += bsize;
        }
        if (rc == KF_OK && vb < m.size) {
            kf_repair_drop d;
            memset(&d, 0, sizeof d);
            d.file = j->in_path;
            d.start = vb;
            d.end = m.size;
            gap_state g;
            memset(&g, 0, sizeof g);
            iter_probs ip = {&g, vb};
            kf_scan_opts so;
            kf_scan_opts_init(&so);
            so.resync = true;
            so.base_offset = j->base;
            so.problem_fn = iter_problem;
            so.problem_ctx = &ip;
            kf_segment_iter *it;
            uint64_t intact_after = 0;
            bool hl = false;
            int64_t last = 0;
            if (kf_segment_iter_open(&it, m.src, &so) == KF_OK) {
                kf_batch b;
                bool dmg;
                while (kf_segment_iter_next(it, &b, &dmg) == 1) {
                    if (b.position >= vb) {
                        intact_after++;
                        if (!hl || b.last_offset > last)
                            last = b.last_offset;
                        hl = true;
                    }
                }
                kf_segment_iter_close(it);
            }
            bool hf = c->have_prev || j->base >= 0;
            int64_t first = c->have_prev && sr.has_offsets ? c->prev_last + 1 : (j->base >= 0 ? j->base : 0);
            if (c->have_prev && !sr.has_offsets)
                first = j->base >= 0 ? j->base : c->prev_last + 1;
            if (!hl && hf)
                hl = header_last(&m, vb, first, &last);
            if (!hl && j->next_base >= 0) {
                hl = true;
                last = j->next_base - 1;
            }
            d.reason = g.reason ? g.reason : (vb == 0 && m.size ? KF_P_OFFSET_REGRESSION : KF_P_TRUNCATED);
            if (intact_after)
                snprintf(d.message, sizeof d.message,
                         "broker recovery truncates here (%.90s); %llu intact batches after it are dropped too (--salvage keeps them)",
                         g.message[0] ? g.message : d.reason, (unsigned long long)intact_after);
            else
                snprintf(d.message, sizeof d.message, "broker recovery truncates here: %.190s",
                         g.message[0] ? g.message : d.reason);
            finish_drop(&d, &m, hf, first, hl, last);
            emit_drop(c, &d);
            c->truncated = true;
        }
    } else {
        /* salvage: every batch that passes verify's checks, offsets increasing */
        gap_state g;
        memset(&g, 0, sizeof g);
        iter_probs ip = {&g, 0};
        kf_scan_opts so;
        kf_scan_opts_init(&so);
        so.resync = true;
        so.base_offset = j->base;
        so.problem_fn = iter_problem;
        so.problem_ctx = &ip;
        kf_segment_iter *it = NULL;
        if (kf_segment_iter_open(&it, m.src, &so) != KF_OK) {
            rc = fail(c, j->in_path, ENOMEM, "out of memory");
        }
        kf_batch b;
        bool dmg;
        /* offsets: the first offset a gap may have lost */
        bool gap_has_first = c->have_prev || j->base >= 0;
        int64_t gap_first = c->have_prev ? c->prev_last + 1 : j->base;
        if (j->base >= 0 && (!c->have_prev || gap_first < j->base))
            gap_first = j->base;
        while (rc == KF_OK && kf_segment_iter_next(it, &b, &dmg) == 1) {
            const char *code = NULL;
            int64_t first, last;
            char why[200] = "";
            bool ok = kf_batch_deep_ok(&b, o->max_batch_bytes, &code, &first, &last);
            if (ok && c->have_prev && first <= c->prev_last) {
                ok = false;
                code = KF_P_OFFSET_REGRESSION;
                snprintf(why, sizeof why, "batch at offset %lld is not after the last kept offset %lld",
                         (long long)first, (long long)c->prev_last);
            } else if (ok && j->base >= 0 && first < j->base) {
                ok = false;
                code = KF_P_BASE_OFFSET_MISMATCH;
                snprintf(why, sizeof why, "batch at offset %lld is below the segment's base offset %lld",
                         (long long)first, (long long)j->base);
            } else if (ok && last - base > INT32_MAX) {
                ok = false;
                code = KF_P_OFFSET_OVERFLOW;
                snprintf(why, sizeof why, "last offset %lld does not fit the segment's relative offsets",
                         (long long)last);
            } else if (ok && j->next_base >= 0 && last >= j->next_base) {
                ok = false;
                code = KF_P_SEGMENT_OVERLAP;
                snprintf(why, sizeof why, "batch ends at offset %lld, at or past the next segment's base %lld",
                         (long long)last, (long long)j->next_base);
            } else if (!ok) {
                snprintf(why, sizeof why, "intact batch fails verify's checks (%s)", code);
            }
            if (!ok) {
                if (!g.reason || b.position < g.start) {
                    g.reason = code;
                    snprintf(g.message, sizeof g.message, "%s", why);
                }
                if (!g.has_rej || b.last_offset > g.rej_last)
                    g.rej_last = b.last_offset;
                g.has_rej = true;
                continue;
            }
            if (b.position > g.start) {
                kf_repair_drop d;
                memset(&d, 0, sizeof d);
                d.file = j->in_path;
                d.start = g.start;
                d.end = b.position;
                d.reason = g.reason ? g.reason : KF_P_BAD_LENGTH;
                snprintf(d.message, sizeof d.message, "%.200s", g.message[0] ? g.message : "damaged range");
                finish_drop(&d, &m, gap_has_first, gap_first, true, first - 1);
                emit_drop(c, &d);
            }
            int64_t bl, bts;
            kf_entry_broker_view(b.bytes, b.size, &bl, &bts);
            int brc = kf_index_builder_add(&ib, b.size, bl, bts);
            if (brc == KF_ERR_IO) {
                rc = fail(c, out_ix, errno, "cannot write");
                break;
            }
            if (brc != KF_OK) { /* cannot happen: offsets were checked */
                rc = fail(c, out_ix, EINVAL, "index rebuild failed");
                break;
            }
            if (kf_out_write(lf, b.bytes, b.size) != KF_OK) {
                rc = fail(c, out_log, errno, "cannot write");
                break;
            }
            if (b.magic == 2)
                note_epoch(c, b.base_offset, b.partition_leader_epoch);
            if (ps_batch(c, have_txn ? &tc : NULL, b.bytes, b.size) != KF_OK) {
                rc = fail(c, j->in_path, ENOMEM, "out of memory");
                break;
            }
            if (!sr.has_offsets) {
                sr.has_offsets = true;
                sr.first_offset = first;
            }
            sr.last_offset = last;
            sr.batches++;
            c->have_prev = true;
            c->prev_last = last;
            gap_has_first = true;
            gap_first = last + 1;
            memset(&g, 0, sizeof g);
            g.start = b.position + b.size;
            ip.from = g.start;
        }
        if (rc == KF_OK && g.start < m.size) {
            kf_repair_drop d;
            memset(&d, 0, sizeof d);
            d.file = j->in_path;
            d.start = g.start;
            d.end = m.size;
            d.reason = g.reason ? g.reason : KF_P_TRUNCATED;
            snprintf(d.message, sizeof d.message, "%.200s", g.message[0] ? g.message : "damaged range");
            bool hl = false;
            int64_t last = 0;
            if (j->next_base >= 0) {
                hl = true;
                last = j->next_base - 1;
            } else if (g.has_rej) {
                hl = true;
                last = g.rej_last;
            } else if (gap_has_first) {
                hl = header_last(&m, g.start, gap_first, &last);
            }
            finish_drop(&d, &m, gap_has_first, gap_first, hl, last);
            emit_drop(c, &d);
        }
        if (it)
            kf_segment_iter_close(it);
    }

    if (rc == KF_OK && kf_index_builder_finish(&ib) == KF_ERR_IO)
        rc = fail(c, out_tix, errno, "cannot write");
    sr.size = kf_out_size(lf);
    sr.index_entries = ib.index_entries;
    sr.time_entries = ib.time_entries;
    if (rc == KF_OK) {
        /* indexes first: the .log appears last, with its indexes beside it */
        kf_out_file *f = ixf;
        ixf = NULL;
        if (kf_out_commit(f, &err_no) != KF_OK)
            rc = fail(c, out_ix, err_no, "cannot write");
    }
    if (rc == KF_OK) {
        kf_out_file *f = tixf;
        tixf = NULL;
        if (kf_out_commit(f, &err_no) != KF_OK)
            rc = fail(c, out_tix, err_no, "cannot write");
    }
    if (rc == KF_OK) {
        kf_out_file *f = lf;
        lf = NULL;
        if (kf_out_commit(f, &err_no) != KF_OK)
            rc = fail(c, out_log, err_no, "cannot write");
    }
    if (rc == KF_OK) {
        c->res->segments_written++;
        c->have_base = true;
        c->last_base = base;
        if (o->segment_fn)
            o->segment_fn(o->ctx, &sr);
    }

    /* the txnindex: rebuilt from the kept ABORT markers */
    if (rc == KF_OK) {
        char *out_txn = kf_path_join(c->out_dir, txnname);
        uint64_t nout = c->txn_len / KF_TXN_ENTRY_SIZE;
        if (c->txn_len) {
            if (!out_txn || kf_out_write_file(c->out_dir, txnname, c->txn_out, c->txn_len, o->force, &err_no) != KF_OK)
                rc = fail(c, out_txn ? out_txn : c->out_dir, out_txn ? err_no : ENOMEM, "cannot write");
        }
        if (rc != KF_OK) {
            /* reported by the caller */
        } else if (have_txn && c->txn_len == tm_size && (c->txn_len == 0 || memcmp(c->txn_out, tm_data, tm_size) == 0)) {
            if (c->txn_len)
                emit_file(c, j->txn_path, out_txn, "copied",
                          "every entry names an ABORT marker kept in the repaired segment (the same as rebuilt from them)");
            else
                emit_file(c, j->txn_path, NULL, "dropped", "empty, and no aborted transaction ends in the repaired segment");
        } else if (have_txn && !c->txn_len) {
            emit_file(c, j->txn_path, NULL, "dropped",
                      "no aborted transaction ends in the repaired segment (%llu input entries, none kept)",
                      (unsigned long long)tc.n);
        } else if (have_txn) {
            uint64_t kept = 0;
            for (uint64_t i = 0; i < tc.n; i++)
                kept += tc.keep[i];
            emit_file(c, j->txn_path, out_txn, "rebuilt",
                      "from the ABORT markers kept in the repaired segment: %llu entries (%llu of the input's %llu "
                      "name a kept marker%s)",
                      (unsigned long long)nout, (unsigned long long)kept, (unsigned long long)tc.n,
                      tc.bad_format ? "; the input had malformed entries" : "");
        } else if (c->txn_len) {
            emit_file(c, j->txn_path, out_txn, "rebuilt",
                      "%s; rebuilt from the %llu ABORT markers of aborted transactions in the repaired segment",
                      j->txn_path ? "the input cannot be read" : "missing in the input", (unsigned long long)nout);
        } else if (j->txn_path) {
            emit_file(c, j->txn_path, NULL, "dropped",
                      "cannot be read, and no aborted transaction ends in the repaired segment");
        }
        free(out_txn);
    }
    if (have_txn) {
        free(tc.keep);
        free(tm_data);
    }

done:
    kf_out_abort(lf);
    kf_out_abort(ixf);
    kf_out_abort(tixf);
    free(out_log);
    free(out_ix);
    free(out_tix);
    kf_window_free(&m.w);
    kf_source_close(m.src);
    return rc;
}

/* ---- partition-level files ----------------------------------------------- */

static void le_entry_fn(void *ctx, const kf_checkpoint_entry *e)
{
    repair_ctx *c = ctx;
    if (grow((void **)&c->in_le, &c->cap_in_le, c->nin_le + 1, sizeof *c->in_le) == 0)
        c->in_le[c->nin_le++] = (le_entry){e->epoch, e->offset};
}

static void le_problem_fn(void *ctx, const kf_problem *p)
{
    repair_ctx *c = ctx;
    if (c->in_le_ok) {
        c->in_le_ok = false;
        snprintf(c->in_le_why, sizeof c->in_le_why, "it does not parse: %.150s", p->message);
    }
}

static int write_leader_epochs(repair_ctx *c, const char *in_path, bool in_present, bool in_read, int64_t leo)
{
    char *outp = kf_path_join(c->out_dir, "leader-epoch-checkpoint");
    int err_no = 0, rc = KF_OK;
    /* the broker truncates the cache to the log end: entries starting at or past it go */
    size_t keep_in = 0;
    while (keep_in < c->nin_le && c->in_le[keep_in].start < leo)
        keep_in++;
    bool consistent = in_present && in_read && c->in_le_ok;
    const le_entry *src = consistent ? c->in_le : c->le;
    size_t n = consistent ? keep_in : c->nle;
    if (!in_present && n == 0) {
        free(outp);
        return KF_OK;
    }
    size_t cap = 32 + n * 48;
    char *text = malloc(cap);
    if (!text) {
        free(outp);
        return fail(c, in_path, ENOMEM, "out of memory");
    }
    size_t len = (size_t)snprintf(text, cap, "0\n%zu\n", n);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%d %lld\n", src[i].epoch, (long long)src[i].start);
    if (kf_out_write_file(c->out_dir, "leader-epoch-checkpoint", text, len, c->o->force, &err_no) != KF_OK) {
        rc = fail(c, outp, err_no, "cannot write");
    } else if (consistent && keep_in == c->nin_le) {
        emit_file(c, in_path, outp, "copied", "every kept batch's leader epoch agrees with it");
    } else if (consistent) {
        emit_file(c, in_path, outp, "truncated",
                  "%zu entries start at or past the repaired log end offset %lld (the broker drops them too)",
                  c->nin_le - keep_in, (long long)leo);
    } else if (!in_present) {
        emit_file(c, NULL, outp, "rebuilt", "missing in the input; rebuilt from the kept batches' leader epochs");
    } else if (!in_read) {
        emit_file(c, in_path, outp, "rebuilt", "the input cannot be read; rebuilt from the kept batches' leader epochs");
    } else {
        emit_file(c, in_path, outp, "rebuilt", "%s; rebuilt from the kept batches' leader epochs", c->in_le_why);
    }
    free(text);
    free(outp);
    return rc;
}

/* Write the producer state replayed over the kept batches as
 * <leo>.snapshot, in place of the input snapshot in_path (why: what is wrong
 * with it). A snapshot at the repaired log end that the input holds, or one
 * already rebuilt, takes the place instead. */
static int rebuild_snapshot(repair_ctx *c, const char *in_path, int64_t snap_off, bool leo_in_input, bool have_leo,
                            int64_t leo, const char *why)
{
    char name[64];
    snprintf(name, sizeof name, "%020lld.snapshot", (long long)leo);
    if (!have_leo) {
        emit_file(c, in_path, NULL, "dropped", "%s; no segment is left to rebuild producer state from", why);
        return KF_OK;
    }
    if (c->snap_written || (leo_in_input && snap_off != leo)) {
        emit_file(c, in_path, NULL, "dropped", "%s; the snapshot %s at the repaired log end offset replaces it", why,
                  name);
        return KF_OK;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    char *outp = kf_path_join(c->out_dir, name);
    int err_no = 0, rc = KF_OK;
    if (!outp || kf_pstate_snapshot(c->ps, &data, &len) != KF_OK) {
        rc = fail(c, in_path, ENOMEM, "out of memory");
    } else if (kf_out_write_file(c->out_dir, name, data, len, c->o->force, &err_no) != KF_OK) {
        rc = fail(c, outp, err_no, "cannot write");
    } else {
        c->snap_written = true;
        char from[96] = "";
        if (c->ps_seed >= 0)
            snprintf(from, sizeof from, "the snapshot at offset %lld and ", (long long)c->ps_seed);
        emit_file(c, in_path, outp, "rebuilt",
                  "%s; rebuilt at the repaired log end offset %lld from %sthe kept batches (%zu producers)", why,
                  (long long)leo, from, kf_pstate_producers(c->ps));
    }
    free(data);
    free(outp);
    return rc;
}

static int do_snapshot(repair_ctx *c, const char *in_path, const char *name, int64_t snap_off, bool have_leo, int64_t leo,
                       bool leo_in_input)
{
    kf_bytes m;
    char wbuf[240];
    if (kf_file_read_all(in_path, KF_SMALL_FILE_MAX, &m.data, &m.size, NULL) != KF_OK)
        return rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, "it cannot be read");
    kf_snapshot s;
    char msg[200];
    int rc = KF_OK;
    if (kf_snapshot_parse(m.data, m.size, &s, msg, sizeof msg) != KF_OK) {
        snprintf(wbuf, sizeof wbuf, "corrupt (%.200s)", msg);
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, wbuf);
    } else if (!have_leo || snap_off > leo) {
        snprintf(wbuf, sizeof wbuf, "it covers offsets up to %lld, past the repaired log end offset %lld",
                 (long long)snap_off, (long long)(have_leo ? leo : 0));
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, wbuf);
    } else {
        const char *why = NULL;
        for (uint64_t i = 0; i < s.entries && !why; i++) {
            kf_snapshot_entry e;
            kf_snapshot_get(&s, i, &e);
            int64_t offs[2] = {e.last_offset, e.current_txn_first_offset};
            for (int k = 0; k < 2 && !why; k++) {
                if (offs[k] < 0)
                    continue;
                for (size_t r = 0; r < c->nlost; r++)
                    if (offs[k] >= c->lost[r].first && offs[k] <= c->lost[r].last) {
                        snprintf(wbuf, sizeof wbuf, "producer %lld's state names offset %lld, which was dropped",
                                 (long long)e.producer_id, (long long)offs[k]);
                        why = wbuf;
                        break;
                    }
            }
        }
        if (why) {
            rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, why);
        } else {
            char *outp = kf_path_join(c->out_dir, name);
            int err_no = 0;
            if (kf_out_write_file(c->out_dir, name, m.data, m.size, c->o->force, &err_no) != KF_OK)
                rc = fail(c, outp, err_no, "cannot write");
            else
                emit_file(c, in_path, outp, "copied", "its producer state names no dropped offset");
            free(outp);
        }
    }
    free(m.data);
    return rc;
}

static int do_metadata(repair_ctx *c, const char *in_path)
{
    kf_bytes m;
    if (kf_file_read_all(in_path, KF_SMALL_FILE_MAX, &m.data, &m.size, NULL) != KF_OK) {
        emit_file(c, in_path, NULL, "dropped", "cannot be read");
        return KF_OK;
    }
    kf_partition_metadata pm;
    char msg[200];
    int rc = KF_OK;
    if (kf_partition_metadata_parse(m.data, m.size, &pm, msg, sizeof msg) != KF_OK) {
        emit_file(c, in_path, NULL, "dropped", "invalid (%s); the broker writes it again from the controller's topic id",
                  msg);
    } else {
        char *outp = kf_path_join(c->out_dir, "partition.metadata");
        int err_no = 0;
        if (kf_out_write_file(c->out_dir, "partition.metadata", m.data, m.size, c->o->force, &err_no) != KF_OK)
            rc = fail(c, outp, err_no, "cannot write");
        else
            emit_file(c, in_path, outp, "copied", "valid");
        free(outp);
    }
    free(m.data);
    return rc;
}

/* ---- entry points -------------------------------------------------------- */

typedef struct seg_name {
    char *name;
    int64_t base;
} seg_name;

static int cmp_seg(const void *a, const void *b)
{
    const seg_name *x = a, *y = b;
    if (x->base != y->base)
        return x->base < y->base ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void ctx_free(repair_ctx *c)
{
    free(c->le);
    free(c->in_le);
    free(c->lost);
    free(c->txn_out);
    kf_pstate_free(c->ps);
    kf_buf_free(&c->buf);
}

int kf_repair_partition(const char *in_dir, const char *out_dir, const kf_repair_opts *o, kf_repair_result *res)
{
    memset(res, 0, sizeof *res);
    repair_ctx c;
    memset(&c, 0, sizeof c);
    int rc = KF_OK;
    c.o = o;
    c.res = res;
    c.out_dir = out_dir;
    c.ps_seed = -1;
    c.ps = kf_pstate_new();
    if (!c.ps)
        return fail(&c, in_dir, ENOMEM, "out of memory");
    DIR *d = opendir(in_dir);
    if (!d) {
        rc = fail(&c, in_dir, errno, "cannot list directory");
        ctx_free(&c);
        return rc;
    }
    seg_name *segs = NULL;
    size_t nseg = 0, cap_seg = 0;
    char **others = NULL;
    size_t nother = 0, cap_other = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        kf_name_info ni = kf_classify_name(e->d_name);
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0 && ni.base_offset >= 0) {
            if (grow((void **)&segs, &cap_seg, nseg + 1, sizeof *segs) != 0) {
                rc = fail(&c, in_dir, ENOMEM, "out of memory");
                break;
            }
            segs[nseg].name = strdup(e->d_name);
            segs[nseg].base = ni.base_offset;
            nseg++;
        } else {
            if (grow((void **)&others, &cap_other, nother + 1, sizeof *others) != 0) {
                rc = fail(&c, in_dir, ENOMEM, "out of memory");
                break;
            }
            others[nother++] = strdup(e->d_name);
        }
    }
    closedir(d);
    if (nseg)
        qsort(segs, nseg, sizeof *segs, cmp_seg);
    if (nother)
        qsort(others, nother, sizeof *others, cmp_str);

    int err_no = 0;
    if (rc == KF_OK && kf_mkdirs(out_dir, &err_no) != KF_OK)
        rc = fail(&c, out_dir, err_no, "cannot create directory");

    /* the input's leader-epoch checkpoint, checked against kept batches as they go */
    char *le_path = kf_path_join(in_dir, "leader-epoch-checkpoint");
    bool le_present = false, le_read = false;
    kf_bytes lm;
    int le_err = 0;
    if (rc == KF_OK && kf_file_read_all(le_path, KF_SMALL_FILE_MAX, &lm.data, &lm.size, &le_err) == KF_OK) {
        le_present = le_read = true;
        c.in_le_ok = true;
        int32_t ver = -1;
        kf_checkpoint_parse(lm.data, lm.size, KF_CKPT_LEADER_EPOCH, &ver, le_entry_fn, &c, le_problem_fn, &c);
        free(lm.data);
    } else if (rc == KF_OK && le_err != ENOENT) {
        le_present = true;
    }

    /* producer state before the log start: the snapshot there, when the
     * early segments were deleted (as the broker loads it) */
    for (size_t i = 0; i < nother && rc == KF_OK && nseg && segs[0].base > 0; i++) {
        kf_name_info ni = kf_classify_name(others[i]);
        if (ni.kind != KF_FILE_SNAPSHOT || ni.suffix[0] || ni.base_offset != segs[0].base)
            continue;
        char *p = kf_path_join(in_dir, others[i]);
        kf_bytes sm;
        if (p && kf_file_read_all(p, KF_SMALL_FILE_MAX, &sm.data, &sm.size, NULL) == KF_OK) {
            kf_snapshot s;
            char msg[200];
            if (kf_snapshot_parse(sm.data, sm.size, &s, msg, sizeof msg) == KF_OK) {
                if (kf_pstate_load(c.ps, &s) != KF_OK)
                    rc = fail(&c, p, ENOMEM, "out of memory");
                c.ps_seed = ni.base_offset;
            }
            free(sm.data);
        }
        free(p);
    }

    for (size_t i = 0; i < nseg && rc == KF_OK; i++) {
        char *in_path = kf_path_join(in_dir, segs[i].name);
        char txnname[96];
        snprintf(txnname, sizeof txnname, "%020lld.txnindex", (long long)segs[i].base);
        char *txn_path = kf_path_join(in_dir, txnname);
        bool has_txn = kf_file_exists(txn_path);
        seg_job j = {in_path, segs[i].name, segs[i].base, i + 1 < nseg ? segs[i + 1].base : -1,
                     has_txn ? txn_path : NULL};
        rc = repair_segment(&c, &j);
        free(in_path);
        free(txn_path);
    }

    int64_t leo = c.have_prev ? c.prev_last + 1 : (c.have_base ? c.last_base : 0);
    bool have_leo = c.have_prev || c.have_base;
    if (rc == KF_OK && (le_present || c.nle))
        rc = write_leader_epochs(&c, le_path, le_present, le_read, leo);

    bool leo_in_input = false;
    for (size_t i = 0; i < nother; i++) {
        kf_name_info ni = kf_classify_name(others[i]);
        if (ni.kind == KF_FILE_SNAPSHOT && !ni.suffix[0] && have_leo && ni.base_offset == leo)
            leo_in_input = true;
    }
    for (size_t i = 0; i < nother && rc == KF_OK; i++) {
        const char *name = others[i];
        kf_name_info ni = kf_classify_name(name);
        char *p = kf_path_join(in_dir, name);
        if (ni.suffix[0]) {
            emit_file(&c, p, NULL, "skipped", "a %s file: the broker deletes or replaces it at load", ni.suffix);
        } else if (ni.kind == KF_FILE_SNAPSHOT) {
            rc = do_snapshot(&c, p, name, ni.base_offset, have_leo, leo, leo_in_input);
        } else if (ni.kind == KF_FILE_PARTITION_METADATA) {
            rc = do_metadata(&c, p);
        } else if (ni.kind == KF_FILE_INDEX || ni.kind == KF_FILE_TIMEINDEX || ni.kind == KF_FILE_TXNINDEX ||
                   ni.kind == KF_FILE_LEADER_EPOCH) {
            /* handled with the segments / above */
            bool orphan = false;
            if (ni.kind != KF_FILE_LEADER_EPOCH) {
                orphan = true;
                for (size_t k = 0; k < nseg; k++)
                    if (segs[k].base == ni.base_offset)
                        orphan = false;
            }
            if (orphan)
                emit_file(&c, p, NULL, "dropped", "no segment with base offset %lld", (long long)ni.base_offset);
        } else {
            emit_file(&c, p, NULL, "skipped", "not a file the broker loads from a partition directory");
        }
        free(p);
    }

    for (size_t i = 0; i < nseg; i++)
        free(segs[i].name);
    free(segs);
    for (size_t i = 0; i < nother; i++)
        free(others[i]);
    free(others);
    free(le_path);
    ctx_free(&c);
    return rc;
}

int kf_repair_segment_file(const char *log_path, const char *out_dir, const kf_repair_opts *o, kf_repair_result *res)
{
    memset(res, 0, sizeof *res);
    repair_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.res = res;
    c.out_dir = out_dir;
    c.ps_seed = -1;
    c.ps = kf_pstate_new();
    if (!c.ps)
        return fail(&c, out_dir, ENOMEM, "out of memory");
    int err_no = 0;
    if (kf_mkdirs(out_dir, &err_no) != KF_OK) {
        int rc = fail(&c, out_dir, err_no, "cannot create directory");
        ctx_free(&c);
        return rc;
    }
    const char *name = base_name(log_path);
    kf_name_info ni = kf_classify_name(name);
    int64_t base = ni.kind == KF_FILE_LOG ? ni.base_offset : -1;
    char *txn_path = NULL;
    if (base >= 0) {
        size_t n = strlen(log_path);
        size_t sl = strlen(ni.suffix);
        txn_path = malloc(n + 16);
        if (txn_path) {
            memcpy(txn_path, log_path, n - sl - 4);
            strcpy(txn_path + n - sl - 4, ".txnindex");
            if (!kf_file_exists(txn_path)) {
                free(txn_path);
                txn_path = NULL;
            }
        }
    }
    seg_job j = {log_path, name, base, -1, txn_path};
    int rc = repair_segment(&c, &j);
    free(txn_path);
    ctx_free(&c);
    return rc;
}
