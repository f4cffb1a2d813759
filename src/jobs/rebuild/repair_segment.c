/* repair_segment.c: one input segment of a repair, read in one pass with
 * the streaming reader: which of its batches are kept and written to the
 * partition writer, and which byte ranges are dropped and why (each a
 * kf_repair_drop). Default mode keeps what broker recovery keeps
 * (default_batch, default_end: the cut at valid_bytes, the entries too large
 * to read whole copied as they are, the refusal where recovery's index
 * rebuild would throw); salvage mode keeps every batch that passes verify's
 * per-batch checks as long as offsets increase (salvage_batch,
 * salvage_end). A segment after a cut is dropped whole. The input's
 * .txnindex is matched with the kept ABORT markers to say what became of
 * it. The partition walk that calls this is repair.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/grow.h"
#include "bytes/error.h"
#include "format/entry_peek.h"
#include "format/intact.h"
#include "format/resync.h"
#include "format/source.h"
#include "jobs/rebuild/rebuild.h"
#include "jobs/rebuild/repair_internal.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/segment.h"

static void emit_drop(repair_ctx *c, kf_repair_drop *d)
{
    c->res->dropped_ranges++;
    if (d->data_loss)
        c->res->data_loss_ranges++;
    if (d->data_loss && d->has_first &&
        KF_GROW(c->lost, c->nlost, c->cap_lost, 16))
        c->lost[c->nlost++] = (repair_range){d->first_offset, d->has_last ? d->last_offset : INT64_MAX};
    if (c->o->drop_fn)
        c->o->drop_fn(c->o->ctx, d);
}

/* ---- the input's .txnindex, matched with the kept ABORT markers ------------------ */

typedef struct txn_check {
    const char *path;
    kf_index ix;         /* read in pieces, whatever its size */
    uint64_t n;          /* whole entries */
    uint64_t k;          /* next entry to match */
    uint64_t kept;       /* entries that name a kept marker */
    bool bad_format;
} txn_check;

static void count_problem(void *ctx, const kf_problem *p)
{
    (void)p;
    *(bool *)ctx = true;
}

/* The input .txnindex at path (NULL: none). One that exists but cannot be
 * read is an `unreadable` warning: the segment's .txnindex is then rebuilt
 * from its kept ABORT markers (report_txnindex). */
static bool txn_read(txn_check *t, const char *path, int64_t base, const kf_repair_opts *o)
{
    memset(t, 0, sizeof *t);
    int err_no = 0;
    int rc = path ? kf_error_errno(kf_index_open_path(&t->ix, path, KF_TXN_ENTRY_SIZE, base), &err_no) : KF_ERR_IO;
    if (path && rc != KF_OK)
        rebuild_unreadable(o->problem_fn, o->ctx, path, rc, err_no);
    if (rc != KF_OK)
        return false;
    t->path = path;
    t->n = t->ix.entries;
    kf_txn_index_check(&t->ix, count_problem, &t->bad_format);
    return true;
}

static void txn_free(txn_check *t)
{
    if (t->path)
        kf_index_close(&t->ix);
    memset(t, 0, sizeof *t);
}

/* The input entry for a kept ABORT marker. */
static bool txn_see_abort(txn_check *t, int64_t marker, int64_t pid, kf_txn_entry *out)
{
    while (t->k < t->n) {
        kf_txn_entry e;
        kf_txn_index_entry(&t->ix, t->k, &e);
        if (e.last_offset < marker) {
            t->k++;
            continue;
        }
        if (e.last_offset == marker && e.producer_id == pid && e.version == 0 && e.first_offset <= e.last_offset) {
            t->k++;
            t->kept++;
            *out = e;
            return true;
        }
        break;
    }
    return false;
}

/* ---- one input segment -------------------------------------------------------------- */


/* What the reader reported, as the cause of a dropped range. */
typedef struct cause {
    const char *code;
    char message[200];
} cause;

/* The pass over one segment. */
typedef struct seg_pass {
    repair_ctx *c;
    const repair_segment_job *j;
    kf_source *src;
    kf_window w;              /* random access: zero runs */
    uint64_t size;
    kf_segment_iter *it;
    txn_check tc;
    bool have_txn;
    uint64_t kept;            /* entries written to this segment */
    uint64_t kept_read;       /* ... of them returned by the reader */
    /* salvage: the range being skipped */
    uint64_t gap_start;       /* first byte not copied */
    cause gap;                /* first cause met in the gap */
    bool has_rej;
    int64_t rej_last;         /* max last offset of intact batches rejected in the gap */
    /* default: where the output stops */
    bool cut;
    uint64_t cut_pos;
    cause refusal;            /* the writer's, when it refused a batch */
    cause after;              /* the first problem at or past the cut */
    uint64_t intact_after;    /* intact batches from the cut on */
    bool has_after_last;
    int64_t after_last;
    bool has_kept_last;
    int64_t kept_last;        /* max last offset written to this segment */
    uint64_t *large;          /* entries too large to read whole, to copy */
    size_t nlarge, caplarge, klarge;
    /* the input leader-epoch check when the segment started (rewind) */
    size_t in_le_k0;
    bool in_le_ok0;
    char in_le_why0[200];
} seg_pass;

static void set_cause(cause *g, const kf_problem *p)
{
    g->code = p->code;
    snprintf(g->message, sizeof g->message, "%.190s", p->message);
    char *cut = strstr(g->message, "; ");
    if (cut && (strstr(cut, "skipped") || strstr(cut, "no intact batch")))
        *cut = 0;
}

static void pass_problem(void *ctx, const kf_problem *p)
{
    seg_pass *s = ctx;
    if (!p->code)
        return;
    if (s->c->o->salvage) {
        if (p->position >= s->gap_start && !s->gap.code)
            set_cause(&s->gap, p);
        return;
    }
    if (!s->cut && !strcmp(p->code, KF_P_BATCH_TOO_LARGE) &&
        KF_GROW(s->large, s->nlarge, s->caplarge, 16))
        s->large[s->nlarge++] = p->position; /* the broker keeps it: copied if before the cut */
    uint64_t vb;
    uint64_t from = s->cut ? s->cut_pos : kf_segment_iter_recovery_point(s->it, &vb) ? vb : UINT64_MAX;
    if (!s->after.code && p->position >= from)
        set_cause(&s->after, p);
}

/* Fill the offsets and data_loss of a drop of [start,end). */
static void finish_drop(seg_pass *s, kf_repair_drop *d, bool has_first, int64_t first, bool has_last, int64_t last)
{
    d->has_first = has_first;
    d->first_offset = first;
    d->has_last = has_last;
    d->last_offset = last;
    if (has_first && has_last && last < first)
        d->has_first = d->has_last = false;
    bool zero = kf_zero_run_end(&s->w, d->start, d->end) >= d->end;
    /* only zero bytes and no offset known lost: not data */
    d->data_loss = !(zero && !d->has_first);
    /* a zero-filled tail after the last batch (preallocated): no offsets either */
    if (zero && d->end == s->size && !d->has_last) {
        d->data_loss = false;
        d->has_first = false;
    }
}

/* A kept batch: the input's leader-epoch check and .txnindex match. */
static int kept(seg_pass *s, const kf_batch *b)
{
    repair_ctx *c = s->c;
    s->kept++;
    s->kept_read++;
    if (!s->has_kept_last || b->last_offset > s->kept_last)
        s->kept_last = b->last_offset;
    s->has_kept_last = true;
    if (b->magic >= 2)
        repair_check_epoch(c, b->base_offset, b->partition_leader_epoch);
    const kf_pstate_step *st = kf_part_writer_step(c->w);
    kf_txn_entry in;
    if (!st->marker || !st->abort || !s->have_txn || !txn_see_abort(&s->tc, st->base_offset, st->producer_id, &in) ||
        st->has_aborted)
        return KF_OK;
    /* the transaction began before what was replayed (a log start past 0
     * with no snapshot there): the input's entry stands */
    kf_aborted_txn t = {in.producer_id, in.first_offset, in.last_offset, in.last_stable_offset};
    return kf_part_writer_txn_entry(c->w, &t) == KF_OK ? KF_OK : repair_writer_fail(c);
}

static void count_after(seg_pass *s, uint64_t n, int64_t last)
{
    s->intact_after += n;
    if (!s->has_after_last || last > s->after_last)
        s->after_last = last;
    s->has_after_last = true;
}

/* Default mode: the writer refused the entry at pos as broker recovery's
 * index rebuild would: cut there, or empty the whole segment. */
static int refused(seg_pass *s, uint64_t pos)
{
    repair_ctx *c = s->c;
    const kf_part_refusal *f = kf_part_writer_refusal(c->w);
    s->cut = true;
    s->cut_pos = pos;
    s->refusal.code = f->code;
    snprintf(s->refusal.message, sizeof s->refusal.message, "%s", f->message);
    if (strcmp(f->code, KF_P_OFFSET_REGRESSION))
        return KF_OK;
    /* recovery truncates the whole segment: what was written of it goes */
    s->cut_pos = 0;
    if (s->kept_read)
        count_after(s, s->kept_read, s->kept_last);
    s->kept = s->kept_read = 0;
    s->has_kept_last = false;
    s->after.code = NULL;
    if (kf_part_writer_rewind(c->w) != KF_OK)
        return repair_writer_fail(c);
    if (repair_rewind_epochs(c, s->in_le_k0, s->in_le_ok0, s->in_le_why0) != KF_OK)
        return repair_fail(c, c->in_le_path, ENOMEM, "out of memory");
    if (s->have_txn) {
        s->tc.k = 0;
        s->tc.kept = 0;
    }
    return KF_OK;
}

/* Default mode: copy the entries too large to read whole before `before`. */
static int copy_large(seg_pass *s, uint64_t before)
{
    for (; !s->cut && s->klarge < s->nlarge && s->large[s->klarge] < before; s->klarge++) {
        kf_batch h;
        int rc = kf_part_writer_add_large(s->c->w, s->src, s->large[s->klarge], &h);
        if (rc == KF_ERR_CORRUPT) {
            rc = refused(s, s->large[s->klarge]);
        } else if (rc == KF_OK) {
            s->kept++;
            if (h.magic >= 2)
                repair_check_epoch(s->c, h.base_offset, h.partition_leader_epoch);
        } else {
            return repair_writer_fail(s->c);
        }
        if (rc != KF_OK)
            return rc;
    }
    return KF_OK;
}

/* Default mode: one entry the reader returned. */
static int default_batch(seg_pass *s, const kf_batch *b)
{
    uint64_t vb;
    if (!s->cut && kf_segment_iter_recovery_point(s->it, &vb) && b->position >= vb) {
        int rc = copy_large(s, vb);
        if (rc != KF_OK)
            return rc;
        if (!s->cut) {
            s->cut = true;
            s->cut_pos = vb;
        }
    }
    int rc = copy_large(s, b->position);
    if (rc != KF_OK)
        return rc;
    if (s->cut) {
        count_after(s, 1, b->last_offset);
        return KF_OK;
    }
    rc = kf_part_writer_add(s->c->w, b);
    if (rc == KF_ERR_CORRUPT) {
        if ((rc = refused(s, b->position)) == KF_OK)
            count_after(s, 1, b->last_offset);
        return rc;
    }
    if (rc != KF_OK)
        return repair_writer_fail(s->c);
    return kept(s, b);
}

/* Default mode: the end of the segment. */
static int default_end(seg_pass *s)
{
    repair_ctx *c = s->c;
    const repair_segment_job *j = s->j;
    uint64_t vb = s->size;
    if (!s->cut && kf_segment_iter_recovery_point(s->it, &vb)) {
        int rc = copy_large(s, vb);
        if (rc != KF_OK)
            return rc;
    }
    if (!s->cut && vb < s->size) {
        s->cut = true;
        s->cut_pos = vb;
    }
    if (!s->cut || s->cut_pos >= s->size)
        return KF_OK;
    kf_repair_drop d;
    memset(&d, 0, sizeof d);
    d.file = j->in_path;
    d.start = s->cut_pos;
    d.end = s->size;
    int64_t prev = 0;
    bool has_prev = kf_part_writer_last_offset(c->w, &prev);
    bool hf = has_prev || j->base >= 0;
    int64_t first = has_prev && s->kept ? prev + 1 : (j->base >= 0 ? j->base : 0);
    if (has_prev && !s->kept)
        first = j->base >= 0 ? j->base : prev + 1;
    bool hl = s->has_after_last;
    int64_t last = s->after_last;
    if (!hl && hf)
        hl = kf_peek_entry_last(s->src, s->cut_pos, first, &last);
    if (!hl && j->next_base >= 0) {
        hl = true;
        last = j->next_base - 1;
    }
    const cause *why = s->refusal.code ? &s->refusal : &s->after;
    const char *message = why->message[0] ? why->message : why->code ? why->code : KF_P_TRUNCATED;
    d.reason = why->code ? why->code : KF_P_TRUNCATED;
    if (s->intact_after)
        snprintf(d.message, sizeof d.message,
                 "broker recovery truncates here (%.90s); %llu intact batches after it are dropped too (--salvage "
                 "keeps them)",
                 message, (unsigned long long)s->intact_after);
    else
        snprintf(d.message, sizeof d.message, "broker recovery truncates here: %.190s", message);
    finish_drop(s, &d, hf, first, hl, last);
    emit_drop(c, &d);
    c->truncated = true;
    return KF_OK;
}

/* Salvage mode: the first offset a gap before the next kept batch may have lost. */
static bool gap_first(seg_pass *s, int64_t *first)
{
    int64_t prev;
    bool has_prev = kf_part_writer_last_offset(s->c->w, &prev);
    *first = has_prev ? prev + 1 : s->j->base;
    if (s->j->base >= 0 && (!has_prev || *first < s->j->base))
        *first = s->j->base;
    return has_prev || s->j->base >= 0;
}

/* Salvage mode: the range being skipped, from gap_start to end, as a drop
 * whose reason is the first cause met in it (default_reason when none was);
 * *first its first offset (gap_first), and whether that is known. */
static bool gap_drop(seg_pass *s, uint64_t end, const char *default_reason, kf_repair_drop *d, int64_t *first)
{
    memset(d, 0, sizeof *d);
    d->file = s->j->in_path;
    d->start = s->gap_start;
    d->end = end;
    d->reason = s->gap.code ? s->gap.code : default_reason;
    snprintf(d->message, sizeof d->message, "%.200s", s->gap.message[0] ? s->gap.message : "damaged range");
    return gap_first(s, first);
}

/* Salvage mode: one batch the reader returned (CRC intact). */
static int salvage_batch(seg_pass *s, const kf_batch *b)
{
    repair_ctx *c = s->c;
    const repair_segment_job *j = s->j;
    const char *code = NULL;
    char why[200] = "", detail[200];
    int64_t first = kf_batch_first_offset(b), last = b->last_offset, prev = 0;
    bool has_prev = kf_part_writer_last_offset(c->w, &prev);
    bool ok = kf_batch_intact(b, kf_segment_iter_check(s->it), &code, detail, sizeof detail);
    if (!ok)
        snprintf(why, sizeof why, "intact batch fails verify's checks (%s: %.150s)", code, detail);
    else if (!kf_batch_offsets_fit(b, has_prev, prev, j->base, &code, why, sizeof why))
        ok = false;
    else if (j->next_base >= 0 && last >= j->next_base) {
        ok = false;
        code = KF_P_SEGMENT_OVERLAP;
        snprintf(why, sizeof why, "batch ends at offset %lld, at or past the next segment's base %lld",
                 (long long)last, (long long)j->next_base);
    }
    if (!ok) {
        if (!s->gap.code) {
            s->gap.code = code;
            snprintf(s->gap.message, sizeof s->gap.message, "%s", why);
        }
        if (!s->has_rej || last > s->rej_last)
            s->rej_last = last;
        s->has_rej = true;
        return KF_OK;
    }
    if (b->position > s->gap_start) {
        kf_repair_drop d;
        int64_t gf;
        bool hf = gap_drop(s, b->position, KF_P_BAD_LENGTH, &d, &gf);
        finish_drop(s, &d, hf, gf, true, first - 1);
        emit_drop(c, &d);
    }
    int rc = kf_part_writer_add(c->w, b);
    if (rc == KF_ERR_CORRUPT) /* cannot happen: the offsets were checked */
        return repair_fail(c, j->in_path, EINVAL, kf_part_writer_refusal(c->w)->message);
    if (rc != KF_OK)
        return repair_writer_fail(c);
    memset(&s->gap, 0, sizeof s->gap);
    s->has_rej = false;
    s->gap_start = b->position + b->size;
    return kept(s, b);
}

/* Salvage mode: the range after the last batch kept. */
static void salvage_end(seg_pass *s)
{
    const repair_segment_job *j = s->j;
    if (s->gap_start >= s->size)
        return;
    kf_repair_drop d;
    int64_t gf;
    bool hf = gap_drop(s, s->size, KF_P_TRUNCATED, &d, &gf);
    bool hl = false;
    int64_t last = 0;
    if (j->next_base >= 0) {
        hl = true;
        last = j->next_base - 1;
    } else if (s->has_rej) {
        hl = true;
        last = s->rej_last;
    } else if (hf) {
        hl = kf_peek_entry_last(s->src, s->gap_start, gf, &last);
    }
    finish_drop(s, &d, hf, gf, hl, last);
    emit_drop(s->c, &d);
}

/* A segment after a truncated one: dropped whole, with the offsets it held. */
static void drop_whole_segment(seg_pass *s, const kf_segment_scan_opts *so)
{
    const repair_segment_job *j = s->j;
    kf_repair_drop d;
    memset(&d, 0, sizeof d);
    d.file = j->in_path;
    d.start = 0;
    d.end = s->size;
    d.reason = "after_truncation";
    snprintf(d.message, sizeof d.message,
             "broker recovery truncated an earlier segment, so it deletes this later segment");
    /* its offsets: from the file names, else the intact batches in it */
    kf_segment_scan_opts o = *so;
    o.problem_fn = NULL;
    kf_segment_iter *it;
    bool hf = false, hl = false;
    int64_t first = 0, last = 0;
    bool named = j->base >= 0 && j->next_base >= 0;
    if (!named && kf_segment_iter_open(&it, s->src, &o) == KF_OK) {
        kf_batch b;
        while (kf_segment_iter_next(it, &b, NULL) == 1) {
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
    if (s->size == 0)
        hf = hl = false;
    finish_drop(s, &d, hf, first, hl, last);
    if (s->size == 0)
        d.data_loss = false;
    emit_drop(s->c, &d);
}

/* The segment's .txnindex: what the kept ABORT markers make of it. */
static int report_txnindex(seg_pass *s, const kf_part_segment *ps)
{
    repair_ctx *c = s->c;
    const repair_segment_job *j = s->j;
    const txn_check *t = &s->tc;
    uint64_t nout = ps->txn_len / KF_TXN_ENTRY_SIZE;
    bool same = false;
    if (s->have_txn && ps->txn_len == t->ix.size) {
        if (!ps->txn_len)
            same = true;
        else if (kf_files_same(t->path, ps->txn_written, &same) == KF_ERR_NOMEM)
            return repair_fail(c, t->path, ENOMEM, "out of memory");
    }
    if (same) {
        if (ps->txn_len)
            repair_emit_file(
                c, j->txn_path, ps->txn_path, "copied",
                "every entry names an ABORT marker kept in the repaired segment (the same as rebuilt from them)");
        else
            repair_emit_file(c, j->txn_path, NULL, "dropped",
                             "empty, and no aborted transaction ends in the repaired segment");
    } else if (s->have_txn && !ps->txn_len) {
        repair_emit_file(c, j->txn_path, NULL, "dropped",
                         "no aborted transaction ends in the repaired segment (%llu input entries, none kept)",
                         (unsigned long long)t->n);
    } else if (s->have_txn) {
        uint64_t kept = t->kept;
        repair_emit_file(c, j->txn_path, ps->txn_path, "rebuilt",
                         "from the ABORT markers kept in the repaired segment: %llu entries (%llu of the input's %llu "
                         "name a kept marker%s)",
                         (unsigned long long)nout, (unsigned long long)kept, (unsigned long long)t->n,
                         t->bad_format ? "; the input had malformed entries" : "");
    } else if (ps->txn_len) {
        repair_emit_file(c, j->txn_path, ps->txn_path, "rebuilt",
                         "%s; rebuilt from the %llu ABORT markers of aborted transactions in the repaired segment",
                         j->txn_path ? "the input cannot be read" : "missing in the input", (unsigned long long)nout);
    } else if (j->txn_path) {
        repair_emit_file(c, j->txn_path, NULL, "dropped",
                         "cannot be read, and no aborted transaction ends in the repaired segment");
    }
    return KF_OK;
}

static int run_pass(seg_pass *s)
{
    repair_ctx *c = s->c;
    const repair_segment_job *j = s->j;
    kf_batch b;
    int got = kf_segment_iter_next(s->it, &b, NULL);
    /* a base offset unknown from the name: the first batch's offset field */
    int64_t base = j->base;
    if (base < 0)
        base = got == 1 ? (b.magic >= 2 ? b.base_offset : b.last_offset) : 0;
    if (kf_part_writer_segment(c->w, base, j->log_name, j->in_path) != KF_OK)
        return repair_writer_fail(c);
    s->have_txn = txn_read(&s->tc, j->txn_path, base, c->o);
    s->in_le_k0 = c->in_le_k;
    s->in_le_ok0 = c->in_le_ok;
    memcpy(s->in_le_why0, c->in_le_why, sizeof s->in_le_why0);
    int rc = KF_OK;
    for (; got == 1 && rc == KF_OK; got = kf_segment_iter_next(s->it, &b, NULL))
        rc = c->o->salvage ? salvage_batch(s, &b) : default_batch(s, &b);
    if (rc != KF_OK)
        return rc;
    if (got == -KF_ERR_NOMEM)
        return repair_fail(c, j->in_path, ENOMEM, "out of memory");
    if (got < 0)
        return repair_fail(c, j->in_path, errno ? errno : EIO, "cannot read");
    if (kf_source_shrunk(s->src)) {
        /* reads came back short of the size it had when opened: what was
         * read is no state the file was ever in, and the end no tear */
        char what[160];
        snprintf(what, sizeof what,
                 "the file shrank while it was read (it had %llu bytes when opened; is a broker writing to it?): "
                 "nothing is written",
                 (unsigned long long)s->size);
        return repair_fail(c, j->in_path, 0, what);
    }
    if (c->o->salvage)
        salvage_end(s);
    else if ((rc = default_end(s)) != KF_OK)
        return rc;
    kf_part_segment ps;
    if (kf_part_writer_close_segment(c->w, &ps) != KF_OK)
        return repair_writer_fail(c);
    c->res->segments_written++;
    rebuild_segment_done(c->t.od, c->o->segment_fn, c->o->ctx, &ps, j->in_path, s->size);
    return report_txnindex(s, &ps);
}

int repair_segment(repair_ctx *c, const repair_segment_job *j)
{
    seg_pass s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.j = j;
    int open_err = 0;
    if (kf_error_errno(kf_source_open(&s.src, j->in_path, 0), &open_err) != KF_OK)
        return repair_fail(c, j->in_path, open_err, open_err == EINVAL ? "not a regular file" : "cannot read");
    kf_window_init(&s.w, s.src);
    s.size = kf_source_size(s.src);
    kf_segment_scan_opts so;
    kf_segment_scan_opts_init(&so);
    so.has_base_offset = j->base >= 0;
    so.base_offset = j->base;
    so.max_batch_bytes = c->o->max_batch_bytes;
    so.threads = c->o->threads;
    so.chunk_bytes = c->o->chunk_bytes;
    int rc = KF_OK;
    if (c->truncated) {
        so.deep = false;
        drop_whole_segment(&s, &so);
        if (j->txn_path)
            repair_emit_file(c, j->txn_path, NULL, "dropped", "its segment was dropped (after a truncated segment)");
    } else {
        so.deep = c->o->salvage;      /* salvage keeps what passes verify's checks */
        so.broker_view = !c->o->salvage; /* default keeps what the broker keeps */
        so.problem_fn = pass_problem;
        so.problem_ctx = &s;
        if (kf_segment_iter_open(&s.it, s.src, &so) != KF_OK)
            rc = repair_fail(c, j->in_path, ENOMEM, "out of memory");
        else
            rc = run_pass(&s);
    }
    kf_segment_iter_close(s.it);
    txn_free(&s.tc);
    free(s.large);
    kf_window_free(&s.w);
    kf_source_close(s.src);
    return rc;
}
