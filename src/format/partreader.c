/* partreader.c: the partition reader (partition.h): one log over all copies
 * of a partition, with its conflicts and holes.
 *
 * Each copy has a cursor: a streaming segment iterator over its segments in
 * turn, and one look-ahead batch (its head), the copy's next intact batch.
 * Damage met before a head (what the iterator skipped, batches that are not
 * intact, unreadable segments) is a window of offsets the copy lost: from
 * after its previous intact batch to before the head, or, at its end, to
 * the last offset a torn entry's header still names (else open-ended).
 *
 * A step (kf_part_reader_next) first leaves out the divergent heads that
 * come before every candidate, then takes the best candidate, checks the
 * gap before it for a hole, and leaves out the other copies' heads over its
 * offsets (the copies holding the same bytes agree). Left-out batches join
 * the windows (offsets only they hold are a hole) and the open conflict.
 * Left-out batches are met in increasing first offset, so a conflict is
 * complete once the log has moved past its end. Windows are dropped once
 * the log has moved past them, so memory stays bounded by the damage around
 * the current offsets (and one epoch entry per leader epoch). */
#include "bytes/opts.h"
#include "kfsck/sys/part_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/report.h"
#include "format/entry_peek.h"
#include "format/epoch_stream.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"
#include "format/intact.h"
#include "kfsck/sys/segment.h"

typedef struct window {
    int64_t lo, hi;     /* offsets; lo INT64_MIN: unknown start, hi INT64_MAX: open end */
    size_t copy;
    bool left_out;      /* held only by a left-out batch (else damage) */
} window;

typedef struct epoch_start {
    int32_t epoch;
    int64_t start;      /* earliest known start offset */
    size_t copy;        /* the copy that showed it */
} epoch_start;

typedef struct lost {
    kf_part_hole h;
    size_t copy;
    bool left_out;
    uint64_t stretches;   /* holes this one stands for (more once the list is full) */
} lost;

struct kf_part_reader;

typedef struct cursor {
    struct kf_part_reader *r;
    size_t idx;
    const kf_partition_copy *c;
    size_t seg;
    kf_source *src;
    kf_segment_iter *it;
    const char *file;
    bool has_peek, done;
    kf_batch peek;
    int64_t first;          /* of the head */
    int32_t epoch;          /* of the head: -1 for v0/v1 */
    bool have_prev;
    int64_t prev_last;      /* the copy's last intact batch */
    bool pending_damage;
    int64_t damage_lo;
    bool tail_known;        /* a damaged entry's header names its last offset */
    int64_t tail_last;
    kf_epoch_stream ckpt;   /* its checkpoint's entries, in pieces: none unless it parses whole */
    kf_leader_epoch next_ckpt; /* the first entry not reached yet by its batches */
    bool has_next_ckpt;
    bool unreadable, nomem;
} cursor;

struct kf_part_reader {
    const kf_partition *p;
    kf_part_reader_opts o;
    cursor *ks;
    size_t n;
    int64_t next;           /* the first offset not taken yet */
    cursor *consume;        /* the cursor whose batch was returned last */
    bool ended;
    window *win;
    size_t nwin, capwin;
    epoch_start *ep;
    size_t nep, capep;
    /* the step: the batch taken and the copies agreeing with it */
    cursor *best;
    bool *agree;
    /* the open conflict */
    bool cf_open;
    kf_part_conflict cf;
    int32_t *cf_eps;
    bool *cf_has;
    const char *cf_file;    /* where its first left-out batch is */
    uint64_t cf_pos;
    lost *lost;
    size_t nlost, caplost;
    kf_part_result res;
    kf_buf buf;
    bool nomem;
};

void kf_part_reader_opts_init(kf_part_reader_opts *o)
{
    *o = (kf_part_reader_opts)KF_PART_READER_OPTIONS_INIT;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static void count_problem(kf_part_reader *r, const kf_problem *p)
{
    kf_problem_pass(r->o.problem_fn, r->o.problem_ctx, p, NULL, &r->res.errors, &r->res.warnings);
}

/* ---- what is known of the leader epochs ---------------------------------- */

static void note_epoch(kf_part_reader *r, int32_t epoch, int64_t start, size_t copy)
{
    if (epoch < 0)
        return;
    for (size_t i = 0; i < r->nep; i++) {
        epoch_start *e = &r->ep[i];
        if (e->epoch != epoch)
            continue;
        if (start < e->start || (start == e->start && copy < e->copy)) {
            e->start = start;
            e->copy = copy;
        }
        return;
    }
    if (!grow((void **)&r->ep, &r->capep, r->nep + 1, sizeof *r->ep)) {
        r->nomem = true;
        return;
    }
    r->ep[r->nep++] = (epoch_start){epoch, start, copy};
}

/* A batch of this epoch ending at last: the highest epoch above it that
 * starts at or before last, or NULL (not divergent). */
static const epoch_start *divergent_by(const kf_part_reader *r, int32_t epoch, int64_t last)
{
    if (epoch < 0)
        return NULL;
    const epoch_start *best = NULL;
    for (size_t i = 0; i < r->nep; i++) {
        const epoch_start *e = &r->ep[i];
        if (e->epoch > epoch && e->start <= last && (!best || e->epoch > best->epoch))
            best = e;
    }
    return best;
}

/* The copy's leader-epoch-checkpoint, when it is a directory holding one
 * that parses whole. Its entries become evidence once the copy's own
 * batches reach them, read from the file as they do. */
static void load_checkpoint(cursor *k)
{
    char *path = kf_path_join(k->c->label, "leader-epoch-checkpoint");
    if (!path || kf_epoch_stream_open(&k->ckpt, path, NULL, NULL) != KF_OK)
        k->nomem = true;
    k->has_next_ckpt = kf_epoch_stream_next(&k->ckpt, &k->next_ckpt) == 1;
    free(path);
}

/* ---- cursors ----------------------------------------------------------------- */

static void cursor_problem(void *ctx, const kf_problem *p)
{
    cursor *k = ctx;
    kf_problem q = *p;
    if (!q.file)
        q.file = k->file;
    /* a torn or broken entry whose v2 header still names its offsets */
    if (!k->tail_known && p->severity == KF_SEV_ERROR) {
        int64_t expect = k->have_prev ? k->prev_last + 1 : k->c->bases[k->seg];
        k->tail_known = kf_peek_entry_last(k->src, p->position, expect, &k->tail_last);
    }
    count_problem(k->r, &q);
}

static void add_window(kf_part_reader *r, int64_t lo, int64_t hi, size_t copy, bool left_out)
{
    if (hi < lo)
        return; /* nothing between the batches around the damage */
    if (!left_out)
        r->res.damaged_ranges++;
    if (!grow((void **)&r->win, &r->capwin, r->nwin + 1, sizeof *r->win)) {
        r->nomem = true;
        return;
    }
    r->win[r->nwin++] = (window){lo, hi, copy, left_out};
}

static void close_segment(cursor *k)
{
    kf_segment_iter_close(k->it);
    k->it = NULL;
    kf_source_close(k->src);
    k->src = NULL;
}

static void note_damage(cursor *k)
{
    if (!k->pending_damage) {
        k->pending_damage = true;
        if (k->have_prev)
            k->damage_lo = k->prev_last + 1;
        else
            k->damage_lo = k->c->nseg && k->c->bases[0] >= 0 ? k->c->bases[0] : INT64_MIN;
    }
}

static void batch_problem(cursor *k, const kf_batch *b, const char *code, const char *msg)
{
    kf_problem p;
    kf_problem_fill(&p, code, KF_SEV_ERROR, b->position, true, kf_batch_first_offset(b), "%s", msg);
    p.file = k->file;
    count_problem(k->r, &p);
}

/* Is the batch the iterator returned intact in this copy? */
static bool intact(cursor *k, const kf_batch *b)
{
    const char *code;
    char msg[200];
    if (k->r->o.deep && !kf_batch_intact(b, kf_segment_iter_check(k->it), &code, msg, sizeof msg)) {
        batch_problem(k, b, code, msg);
        return false;
    }
    if (!kf_batch_offsets_fit(b, k->have_prev, k->prev_last, k->c->bases[k->seg], &code, msg, sizeof msg)) {
        batch_problem(k, b, code, msg);
        return false;
    }
    return true;
}

static bool open_segment(cursor *k)
{
    const char *path = k->c->segments[k->seg];
    k->file = path;
    int err_no = 0;
    int orc = kf_error_errno(kf_source_open(&k->src, path, 0), &err_no);
    if (orc == KF_ERR_NOMEM) {
        k->nomem = true;
        return false;
    }
    if (orc != KF_OK) {
        kf_problem p = {0};
        p.code = KF_P_UNREADABLE;
        p.severity = KF_SEV_ERROR;
        p.file = path;
        snprintf(p.message, sizeof p.message, "cannot read: %s",
                 err_no == EINVAL ? "not a regular file" : strerror(err_no));
        count_problem(k->r, &p);
        k->unreadable = true;
        note_damage(k);
        return false;
    }
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.deep = k->r->o.deep;
    o.max_batch_bytes = k->r->o.max_batch_bytes;
    o.threads = k->r->o.threads;
    o.chunk_bytes = k->r->o.chunk_bytes;
    o.has_base_offset = k->c->bases[k->seg] >= 0;
    o.base_offset = k->c->bases[k->seg];
    o.problem_fn = cursor_problem;
    o.problem_ctx = k;
    if (kf_segment_iter_open(&k->it, k->src, &o) != KF_OK) {
        k->nomem = true;
        kf_source_close(k->src);
        k->src = NULL;
        return false;
    }
    return true;
}

/* Move k to its next intact batch. */
static void advance(cursor *k)
{
    kf_part_reader *r = k->r;
    k->has_peek = false;
    while (!k->done && !k->nomem) {
        if (!k->it) {
            if (k->seg >= k->c->nseg) {
                k->done = true;
                break;
            }
            if (!open_segment(k)) {
                if (k->nomem)
                    break;
                k->seg++;
                continue;
            }
        }
        bool damaged = false;
        int got = kf_segment_iter_next(k->it, &k->peek, &damaged);
        if (damaged)
            note_damage(k);
        if (got == -KF_ERR_NOMEM) {
            k->nomem = true;
            break;
        }
        if (got < 0) { /* a read failed: the rest of this segment is lost */
            kf_problem p = {0};
            p.code = KF_P_UNREADABLE;
            p.severity = KF_SEV_ERROR;
            p.file = k->file;
            snprintf(p.message, sizeof p.message, "read error: %s", strerror(errno));
            count_problem(r, &p);
            k->unreadable = true;
            note_damage(k);
        }
        if (got > 0 && !intact(k, &k->peek)) {
            note_damage(k);
            continue;
        }
        if (got > 0) {
            k->first = kf_batch_first_offset(&k->peek);
            k->epoch = k->peek.magic >= 2 ? k->peek.partition_leader_epoch : -1;
            if (k->pending_damage) {
                add_window(r, k->damage_lo, k->first - 1, k->idx, false);
                k->pending_damage = false;
            }
            k->tail_known = false;
            k->has_peek = true;
            /* what this copy shows of the leader epochs */
            note_epoch(r, k->epoch, k->first, k->idx);
            while (k->has_next_ckpt && k->next_ckpt.start_offset <= k->peek.last_offset) {
                note_epoch(r, k->next_ckpt.epoch, k->next_ckpt.start_offset, k->idx);
                k->has_next_ckpt = kf_epoch_stream_next(&k->ckpt, &k->next_ckpt) == 1;
            }
            return;
        }
        close_segment(k);
        k->seg++;
    }
    if (k->pending_damage) {
        add_window(r, k->damage_lo, k->tail_known ? k->tail_last : INT64_MAX, k->idx, false);
        k->pending_damage = false;
    }
}

/* The head was used (taken, agreeing or left out): the copy goes on. */
static void consumed(cursor *k)
{
    k->prev_last = k->peek.last_offset;
    k->have_prev = true;
    advance(k);
}

/* ---- conflicts and holes ------------------------------------------------------ */

static void emit_conflict(kf_part_reader *r)
{
    if (!r->cf_open)
        return;
    r->cf_open = false;
    r->res.disagreements++;
    if (r->o.conflict_fn) {
        r->o.conflict_fn(r->o.event_ctx, &r->cf);
        return;
    }
    kf_problem p;
    kf_problem_fill(&p, KF_P_COPIES_DISAGREE, KF_SEV_WARNING, r->cf_pos, true, r->cf.start_offset, "%s",
                    ""); /* the message is written below */
    p.file = r->cf_file;
    size_t copies = 0; /* the copies whose batches disagree: the chosen one and those left out */
    for (size_t i = 0; i < r->n; i++)
        copies += r->cf_has[i] || i == r->cf.chosen;
    int n = copies > 1 ? snprintf(p.message, sizeof p.message,
                                  "copies hold different batches at offsets %lld..%lld; using %.80s's (leader epochs",
                                  (long long)r->cf.start_offset, (long long)r->cf.end_offset,
                                  r->p->copies[r->cf.chosen].label)
                       : snprintf(p.message, sizeof p.message,
                                  "the batches of this copy at offsets %lld..%lld are of a lower leader epoch than "
                                  "its epoch history gives there: a history the cluster discarded, left out (leader "
                                  "epochs",
                                  (long long)r->cf.start_offset, (long long)r->cf.end_offset);
    for (size_t i = 0; i < r->n && n > 0 && (size_t)n < sizeof p.message; i++)
        if (r->cf_has[i])
            n += snprintf(p.message + n, sizeof p.message - (size_t)n, " %d", r->cf_eps[i]);
    if (n > 0 && (size_t)n < sizeof p.message)
        snprintf(p.message + n, sizeof p.message - (size_t)n, ")");
    count_problem(r, &p);
}

/* Leave out the head of k (not the batch taken): a conflict, and a window. */
static void leave_out(kf_part_reader *r, cursor *k)
{
    int64_t lo = k->first, hi = k->peek.last_offset;
    add_window(r, lo, hi, k->idx, true);
    if (r->cf_open && lo <= r->cf.end_offset + 1 && lo >= r->cf.start_offset) {
        if (hi > r->cf.end_offset)
            r->cf.end_offset = hi;
    } else {
        emit_conflict(r);
        memset(r->cf_has, 0, r->n * sizeof *r->cf_has);
        r->cf_open = true;
        r->cf.start_offset = lo;
        r->cf.end_offset = hi;
        r->cf_file = k->file;
        r->cf_pos = k->peek.position;
        cursor *b = r->best;
        if (b && b->first <= lo && lo <= b->peek.last_offset) {
            /* the batch taken here, and the copies holding it too */
            r->cf.chosen = b->idx;
            for (size_t i = 0; i < r->n; i++)
                if (&r->ks[i] == b || r->agree[i]) {
                    r->cf_has[i] = true;
                    r->cf_eps[i] = b->epoch;
                }
        } else {
            /* nothing taken here: the copy that showed the higher epoch */
            const epoch_start *e = divergent_by(r, k->epoch, hi);
            r->cf.chosen = e ? e->copy : k->idx;
            if (e) {
                r->cf_has[e->copy] = true;
                r->cf_eps[e->copy] = e->epoch;
            }
        }
    }
    if (!r->cf_has[k->idx]) {
        r->cf_has[k->idx] = true;
        r->cf_eps[k->idx] = k->epoch;
    }
    consumed(k);
}

/* A hole in [lo, hi] (to the end of the log when end): the offsets there
 * that windows cover. */
static void check_gap(kf_part_reader *r, int64_t lo, int64_t hi, bool end)
{
    bool any = false, open = false, damage = false;
    int64_t wlo = INT64_MAX, whi = INT64_MIN;
    size_t copy = 0;
    bool left_out = false;
    for (size_t i = 0; i < r->nwin; i++) {
        window w = r->win[i];
        if (w.hi < lo || (!end && w.lo > hi))
            continue;
        /* damage of unknown extent at a copy's end covers its offsets up to
         * the next one another copy supplies: only a gap where it starts */
        if (w.hi == INT64_MAX && w.lo < lo)
            continue;
        if (!any) {
            copy = w.copy;
            left_out = w.left_out;
        }
        any = true;
        damage |= !w.left_out;
        if (w.lo < wlo)
            wlo = w.lo;
        if (w.hi == INT64_MAX)
            open = true;
        else if (w.hi > whi)
            whi = w.hi;
    }
    if (!any)
        return;
    kf_part_hole h;
    h.discarded = !damage;
    h.start_offset = wlo > lo ? wlo : lo;
    h.has_start = h.start_offset != INT64_MIN;
    if (end) {
        h.has_end = !open;
        h.end_offset = open ? 0 : whi;
    } else {
        h.has_end = true;
        h.end_offset = open || whi > hi ? hi : whi;
    }
    r->res.uncovered++;
    if (r->o.hole_fn) {
        r->o.hole_fn(r->o.event_ctx, &h);
        return;
    }
    if (r->nlost >= KF_PROBLEMS_LISTED_MAX) {
        /* memory stays bounded whatever the damage: past the first
         * KF_PROBLEMS_LISTED_MAX holes each new one widens the last (the
         * offsets between them are counted lost too: never fewer than are) */
        lost *l = &r->lost[r->nlost - 1];
        l->h.discarded &= h.discarded;
        l->left_out &= left_out;
        l->h.has_end = h.has_end;
        l->h.end_offset = h.end_offset;
        l->stretches++;
        return;
    }
    if (!grow((void **)&r->lost, &r->caplost, r->nlost + 1, sizeof *r->lost)) {
        r->nomem = true;
        return;
    }
    r->lost[r->nlost++] = (lost){h, copy, left_out, 1};
}

/* Windows the log has moved past can no longer make a hole. */
static void prune_windows(kf_part_reader *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nwin; i++)
        if (r->win[i].hi >= r->next)
            r->win[k++] = r->win[i];
    r->nwin = k;
}

/* ---- the reader ------------------------------------------------------------- */

int kf_part_reader_open(kf_part_reader **out, const kf_partition *p, const kf_part_reader_opts *o)
{
    *out = NULL;
    kf_part_reader *r;
    int rc = KF_OPTS_NEW(&r, kf_part_reader, o, KF_PART_READER_OPTIONS_VERSION, max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    size_t n = p->ncopies;
    r->ks = calloc(n ? n : 1, sizeof *r->ks);
    r->agree = calloc(n ? n : 1, sizeof *r->agree);
    r->cf_has = calloc(n ? n : 1, sizeof *r->cf_has);
    r->cf_eps = calloc(n ? n : 1, sizeof *r->cf_eps);
    if (!r->ks || !r->agree || !r->cf_has || !r->cf_eps) {
        kf_part_reader_close(r, NULL);
        return kf_error_nomem();
    }
    r->p = p;
    r->n = n;
    r->next = INT64_MIN;
    r->cf.ncopies = n;
    r->cf.leader_epochs = r->cf_eps;
    r->cf.has = r->cf_has;
    for (size_t i = 0; i < n; i++) {
        r->ks[i].r = r;
        r->ks[i].idx = i;
        r->ks[i].c = &p->copies[i];
        load_checkpoint(&r->ks[i]);
    }
    for (size_t i = 0; i < n; i++)
        advance(&r->ks[i]);
    *out = r;
    return KF_OK;
}

static bool nomem(kf_part_reader *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->ks[i].nomem)
            r->nomem = true;
    return r->nomem;
}

/* Before the next batch of the log is taken: candidates (intact heads, not
 * divergent), the best of them, and the first divergent head. */
static cursor *pick(kf_part_reader *r, cursor **first_divergent)
{
    cursor *best = NULL, *div = NULL;
    for (size_t i = 0; i < r->n; i++) {
        cursor *k = &r->ks[i];
        if (!k->has_peek)
            continue;
        if (divergent_by(r, k->epoch, k->peek.last_offset)) {
            if (!div || k->first < div->first)
                div = k;
            continue;
        }
        if (!best || k->first < best->first || (k->first == best->first && k->epoch > best->epoch))
            best = k;
    }
    *first_divergent = div;
    return best;
}

int kf_part_reader_next(kf_part_reader *r, kf_batch *out)
{
    if (r->consume) {
        consumed(r->consume);
        r->consume = NULL;
    }
    if (r->ended)
        return 0;
    if (r->cf_open && r->next != INT64_MIN && r->cf.end_offset < r->next - 1)
        emit_conflict(r);
    prune_windows(r);
    r->best = NULL;
    memset(r->agree, 0, r->n * sizeof *r->agree);
    cursor *best, *div;
    for (;;) {
        if (nomem(r))
            return kf_error_set(-KF_ERR_NOMEM, ENOMEM, NULL, "out of memory");
        best = pick(r, &div);
        if (!div || (best && div->first >= best->first))
            break;
        leave_out(r, div); /* divergent, before anything that could be taken */
    }
    if (!best) {
        check_gap(r, r->next, INT64_MAX, true);
        emit_conflict(r);
        r->ended = true;
        return nomem(r) ? -KF_ERR_NOMEM : 0;
    }
    if (best->first > r->next)
        check_gap(r, r->next, best->first - 1, false);
    /* the copies that hold the very bytes taken agree */
    r->best = best;
    for (size_t i = 0; i < r->n; i++) {
        cursor *k = &r->ks[i];
        r->agree[i] = k != best && k->has_peek && k->first == best->first && k->peek.size == best->peek.size &&
                      memcmp(k->peek.bytes, best->peek.bytes, best->peek.size) == 0;
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->agree[i])
            consumed(&r->ks[i]);
    /* the others' batches over the offsets taken are left out, lowest first */
    for (;;) {
        if (nomem(r))
            return kf_error_set(-KF_ERR_NOMEM, ENOMEM, NULL, "out of memory");
        cursor *low = NULL;
        for (size_t i = 0; i < r->n; i++) {
            cursor *k = &r->ks[i];
            if (k != best && k->has_peek && k->first <= best->peek.last_offset && (!low || k->first < low->first))
                low = k;
        }
        if (!low)
            break;
        leave_out(r, low);
    }
    r->res.batches++;
    r->res.has_offsets = true;
    r->res.last_offset = best->peek.last_offset;
    r->next = best->peek.last_offset + 1;
    r->consume = best; /* advanced on the next call, so its bytes stay valid until then */
    *out = best->peek;
    return 1;
}

size_t kf_part_reader_holes(const kf_part_reader *r) { return r->nlost; }

const kf_part_hole *kf_part_reader_hole(const kf_part_reader *r, size_t i)
{
    return i < r->nlost ? &r->lost[i].h : NULL;
}

const char *kf_part_reader_file(const kf_part_reader *r) { return r->consume ? r->consume->file : NULL; }

size_t kf_part_reader_copy(const kf_part_reader *r) { return r->consume ? r->consume->idx : 0; }

int kf_part_reader_records(kf_part_reader *r, kf_batch *b, kf_record_iter *it)
{
    if (r->consume && r->consume->it)
        return kf_segment_iter_records(r->consume->it, b, it);
    return kf_records_begin(it, b, &r->buf, r->o.max_batch_bytes);
}

static void report_lost(kf_part_reader *r, const lost *l)
{
    char range[64];
    const kf_part_hole *h = &l->h;
    if (!h->has_start && !h->has_end)
        snprintf(range, sizeof range, "(all of them)");
    else if (!h->has_end)
        snprintf(range, sizeof range, "from %lld on", (long long)h->start_offset);
    else if (!h->has_start)
        snprintf(range, sizeof range, "up to %lld", (long long)h->end_offset);
    else
        snprintf(range, sizeof range, "%lld..%lld", (long long)h->start_offset, (long long)h->end_offset);
    kf_problem p = {0};
    p.code = KF_P_OFFSETS_LOST;
    p.severity = KF_SEV_ERROR;
    p.file = r->p->copies[l->copy].label;
    p.has_offset = h->has_start;
    p.offset = h->has_start ? h->start_offset : 0;
    char more[96] = "";
    if (l->stretches > 1)
        snprintf(more, sizeof more, " (%llu separate stretches, counted as one past the first %d holes)",
                 (unsigned long long)l->stretches, KF_PROBLEMS_LISTED_MAX);
    if (l->left_out)
        snprintf(p.message, sizeof p.message,
                 "offsets %s are held only by batches of a history the cluster discarded (a lower leader epoch "
                 "past the start of a higher one)%s",
                 range, more);
    else
        snprintf(p.message, sizeof p.message,
                 "offsets %s are damaged in this copy and no other copy given holds them intact%s", range, more);
    count_problem(r, &p);
}

void kf_part_reader_close(kf_part_reader *r, kf_part_result *res)
{
    if (!r) {
        if (res)
            memset(res, 0, sizeof *res);
        return;
    }
    for (size_t i = 0; i < r->nlost; i++)
        report_lost(r, &r->lost[i]);
    for (size_t i = 0; r->ks && i < r->n; i++) {
        cursor *k = &r->ks[i];
        r->res.unreadable |= k->unreadable;
        close_segment(k);
        kf_epoch_stream_close(&k->ckpt);
    }
    if (res)
        *res = r->res;
    kf_buf_free(&r->buf);
    free(r->ks);
    free(r->agree);
    free(r->cf_has);
    free(r->cf_eps);
    free(r->win);
    free(r->ep);
    free(r->lost);
    free(r);
}
