/* offset_range.c: the batches of one log that hold offsets first..last
 * (kf_range_read, offset_range.h): the segment to start in by base offset,
 * the position in it by its offset index (kf_segment_seek), then a forward
 * read that passes on only what concerns the range, and names each run of
 * wanted offsets that no intact batch holds (offset_not_found).
 *
 * The answer must not depend on where the read began: damage before the
 * range is never reported, and the problems of a damaged stretch are held
 * until the next intact batch says whether the stretch hides wanted offsets
 * (then they are passed on, and the run's reason is "damaged") or not (then
 * they are dropped, as a read from the index's position would never have
 * seen them). A batch's own problems go with it. docs/formats.md §5.6. */
#include "kfsck/sys/offset_range.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/opts.h"
#include "bytes/report.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/common.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/names.h"

#define STRETCH_MAX_EVENTS 32 /* problems and stretches held for one damaged stretch */

/* A problem or a damaged stretch held until the stretch is settled. */
typedef struct held_event {
    bool is_damaged;
    size_t seg;              /* the segment it is in */
    kf_problem p;
    kf_damaged d;
    uint8_t *bytes;          /* d's bytes, copied */
    char message[sizeof ((kf_problem *)0)->message]; /* d's message, copied */
} held_event;

typedef struct range_state {
    const kf_range_opts *o;
    const kf_partition_copy *log;
    kf_range_result *res;
    size_t seg;              /* the segment being read */
    int64_t cursor;          /* the next wanted offset not yet accounted for */
    bool done;               /* every wanted offset is accounted for */
    bool have_cur;           /* a batch is current (its problems carry its position) */
    uint64_t cur_pos;
    bool cur_wanted;         /* the current batch holds wanted offsets (it was passed on) */
    /* the stretch since the last intact batch */
    bool stretch_damaged;    /* an error was met in it: */
    size_t stretch_seg;      /* the segment and position of the first */
    uint64_t stretch_pos;
    held_event ev[STRETCH_MAX_EVENTS];
    size_t nev;
    uint64_t ev_dropped;     /* events past STRETCH_MAX_EVENTS */
    bool nomem;
    int64_t log_start;       /* the log start offset (log_start_of), -1 when unknown */
} range_state;

void kf_range_opts_init(kf_range_opts *o)
{
    *o = (kf_range_opts)KF_RANGE_OPTIONS_INIT;
}

static const char *seg_path(const range_state *s, size_t seg)
{
    return s->log->nseg ? s->log->segments[seg] : s->log->label; /* a log of no segment: its directory */
}

static void pass_problem(range_state *s, const kf_problem *p, size_t seg)
{
    kf_problem_pass(s->o->scan.problem_fn, s->o->scan.problem_ctx, p, p->file ? NULL : seg_path(s, seg),
                    &s->res->errors, &s->res->warnings);
}

static void drop_stretch(range_state *s)
{
    for (size_t i = 0; i < s->nev; i++)
        free(s->ev[i].bytes);
    s->nev = 0;
    s->ev_dropped = 0;
    s->stretch_damaged = false;
}

/* The stretch hides wanted offsets: pass its problems and stretches on. */
static void flush_stretch(range_state *s)
{
    for (size_t i = 0; i < s->nev; i++) {
        held_event *e = &s->ev[i];
        if (!e->is_damaged) {
            pass_problem(s, &e->p, e->seg);
        } else if (s->o->scan.damaged_fn) {
            e->d.file = seg_path(s, e->seg);
            e->d.bytes = e->bytes;
            e->d.message = e->d.message ? e->message : NULL;
            s->o->scan.damaged_fn(s->o->scan.damaged_ctx, &e->d);
        }
    }
    if (s->ev_dropped) {
        const held_event *first = &s->ev[0], *last = &s->ev[s->nev - 1];
        kf_problem q;
        kf_problem_fill(&q, first->is_damaged ? first->d.code : first->p.code, KF_SEV_ERROR,
                        last->is_damaged ? last->d.position : last->p.position, false, 0,
                        "and %llu more problems in this damaged stretch, not shown",
                        (unsigned long long)s->ev_dropped);
        pass_problem(s, &q, s->ev[s->nev - 1].seg);
    }
    drop_stretch(s);
}

static held_event *hold(range_state *s)
{
    if (s->nev >= STRETCH_MAX_EVENTS) {
        s->ev_dropped++;
        return NULL;
    }
    held_event *e = &s->ev[s->nev++];
    memset(e, 0, sizeof *e);
    e->seg = s->seg;
    return e;
}

/* One offset_not_found for from..to, for the reason why (not_found), at
 * pos of segment seg. In damage, next is the first offset of the next
 * intact batch (-1: none follows), where a consumer that skips the damage
 * resumes. */
enum nf_reason { NF_BELOW, NF_PAST, NF_DAMAGED, NF_GAP };

static void report_not_found(range_state *s, int64_t from, int64_t to, size_t seg, uint64_t pos, enum nf_reason why,
                             int64_t next)
{
    static const char *const reasons[] = {KF_RANGE_BELOW_LOG_START, KF_RANGE_PAST_LOG_END, KF_RANGE_DAMAGED,
                                          KF_RANGE_GAP};
    static const char *const words[] = {"below the log start offset", "past the log's last intact batch",
                                        "in a damaged stretch of the segment",
                                        "in a gap of the log (compaction or retention)"};
    char more[96] = "";
    if (why == NF_BELOW)
        snprintf(more, sizeof more, " (%lld)", (long long)s->log_start);
    else if (why == NF_DAMAGED && next >= 0)
        snprintf(more, sizeof more, " from byte %llu; the next intact batch begins at offset %lld",
                 (unsigned long long)pos, (long long)next);
    else if (why == NF_DAMAGED)
        snprintf(more, sizeof more, " from byte %llu; no intact batch follows it", (unsigned long long)pos);
    kf_problem q;
    if (from == to)
        kf_problem_fill(&q, KF_P_OFFSET_NOT_FOUND, KF_SEV_WARNING, pos, true, from,
                        "no intact batch holds offset %lld: %s%s", (long long)from, words[why], more);
    else
        kf_problem_fill(&q, KF_P_OFFSET_NOT_FOUND, KF_SEV_WARNING, pos, true, from,
                        "no intact batch holds offsets %lld..%lld: %s%s", (long long)from, (long long)to, words[why],
                        more);
    kf_problem_add_int(&q, "last_offset", to);
    kf_problem_add_text(&q, "reason", reasons[why]);
    if (why == NF_DAMAGED && next >= 0)
        kf_problem_add_int(&q, "next_offset", next);
    else if (why == NF_DAMAGED)
        kf_problem_add_null(&q, "next_offset");
    pass_problem(s, &q, seg);
}

/* Wanted offsets from..to that no intact batch holds, before the batch at
 * pos of the current segment, whose first offset is next (or its end:
 * at_end when no segment follows, next -1). In a damaged stretch they are
 * "damaged", reported where the stretch begins; else the part below the
 * log start offset is "below_log_start", and the rest "past_log_end" after
 * the log's last batch, "gap" before an intact batch. */
static void not_found(range_state *s, int64_t from, int64_t to, uint64_t pos, bool at_end, int64_t next)
{
    if (s->stretch_damaged) {
        size_t seg = s->stretch_seg;
        uint64_t start = s->stretch_pos;
        flush_stretch(s);
        report_not_found(s, from, to, seg, start, NF_DAMAGED, next);
        return;
    }
    drop_stretch(s);
    if (s->log_start >= 0 && from < s->log_start) {
        int64_t below_last = to < s->log_start - 1 ? to : s->log_start - 1;
        report_not_found(s, from, below_last, s->seg, pos, NF_BELOW, -1);
        if (below_last == to)
            return;
        from = below_last + 1;
    }
    report_not_found(s, from, to, s->seg, pos, at_end ? NF_PAST : NF_GAP, -1);
}

static int range_batch(void *ctx, const kf_batch *b)
{
    range_state *s = ctx;
    const kf_range_opts *o = s->o;
    if (s->done)
        return 1;
    s->have_cur = true;
    s->cur_pos = b->position;
    s->cur_wanted = false;
    int64_t lo = b->base_offset_known ? b->base_offset : b->last_offset;
    if (b->last_offset < s->cursor) { /* wholly before what is still wanted */
        drop_stretch(s);
        return 0;
    }
    if (lo > s->cursor) {
        int64_t run_last = lo - 1 < o->last ? lo - 1 : o->last;
        not_found(s, s->cursor, run_last, b->position, false, lo);
        if (lo > o->last) {
            s->done = true;
            return 1;
        }
        s->cursor = lo;
    } else {
        drop_stretch(s);
    }
    s->cur_wanted = true;
    int rc = o->scan.batch_fn ? o->scan.batch_fn(o->scan.ctx, b) : 0;
    if (b->last_offset >= o->last) {
        s->done = true;
        if (!o->scan.records)
            return 1; /* with records, the next batch stops the read, after these records */
    } else {
        s->cursor = b->last_offset + 1;
    }
    return rc;
}

static int range_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    range_state *s = ctx;
    if (!s->cur_wanted || r->offset < s->o->first)
        return 0;
    if (r->offset > s->o->last)
        return 1; /* past the range: nothing after it is wanted */
    int rc = s->o->scan.record_fn ? s->o->scan.record_fn(s->o->scan.ctx, b, r) : 0;
    /* the last wanted record: stop here rather than read on to the next batch */
    return rc ? rc : s->done && r->offset >= b->last_offset;
}

static void range_problem(void *ctx, const kf_problem *p)
{
    range_state *s = ctx;
    if (s->have_cur && p->position == s->cur_pos) { /* about the current batch */
        if (s->cur_wanted)
            pass_problem(s, p, s->seg);
        return;
    }
    if (p->severity == KF_SEV_ERROR && !s->stretch_damaged) {
        s->stretch_damaged = true;
        s->stretch_seg = s->seg;
        s->stretch_pos = p->position;
    }
    held_event *e = hold(s);
    if (e)
        e->p = *p;
}

static void range_damaged(void *ctx, const kf_damaged *d)
{
    range_state *s = ctx;
    held_event *e = hold(s);
    if (!e)
        return;
    e->is_damaged = true;
    e->d = *d;
    e->d.bytes = NULL;
    if (d->message)
        snprintf(e->message, sizeof e->message, "%s", d->message);
    if (d->nbytes) {
        if (!(e->bytes = malloc(d->nbytes))) {
            s->nomem = true;
            e->d.nbytes = 0;
            return;
        }
        memcpy(e->bytes, d->bytes, d->nbytes);
    }
}

/* The log start offset as the broker loads it (LogLoader.load:
 * max(the log-start-offset-checkpoint's entry, the first segment's base
 * offset)): the first segment's base from its name, raised by the entry of
 * the data dir holding the segments' partition dir when there is one; -1
 * when the first segment's name gives no base. */
static int log_start_of(const kf_partition_copy *log, int64_t *start)
{
    *start = log->nseg ? log->bases[0] : -1;
    if (*start < 0)
        return KF_OK;
    char *pdir = kf_path_dir(log->segments[0]);
    char *ddir = pdir ? kf_path_dir(pdir) : NULL;
    char *ckpt = ddir ? kf_path_join(ddir, "log-start-offset-checkpoint") : NULL;
    int rc = ckpt ? KF_OK : KF_ERR_NOMEM;
    char topic[256];
    int32_t partition;
    if (rc == KF_OK && kf_parse_partition_dir(kf_path_base(pdir), topic, sizeof topic, &partition)) {
        bool found;
        int64_t offset;
        /* a checkpoint that is missing or damaged only leaves the segments' word */
        if (kf_checkpoint_find(ckpt, topic, partition, &found, &offset, NULL, NULL) == KF_ERR_NOMEM)
            rc = KF_ERR_NOMEM;
        if (found && offset > *start)
            *start = offset;
    }
    free(pdir);
    free(ddir);
    free(ckpt);
    return rc;
}

/* The segment to begin with: the last whose base offset (from its name) is
 * at or below the first wanted offset; the first when a name says none. */
static size_t first_segment(const kf_partition_copy *log, int64_t first)
{
    size_t k = 0;
    for (size_t i = 0; i < log->nseg; i++) {
        if (log->bases[i] < 0)
            return 0;
        if (log->bases[i] <= first)
            k = i;
    }
    return k;
}

/* Where to begin segment i: its index's answer for the cursor. */
static int seek_in(range_state *s, kf_source *src, size_t i, uint64_t *pos)
{
    *pos = 0;
    int64_t base = s->log->bases[i];
    if (s->o->no_seek || base < 0 || s->cursor <= base)
        return KF_OK;
    char *ipath = kf_sibling_path(seg_path(s, i), ".index");
    if (!ipath)
        return KF_ERR_NOMEM;
    kf_source *isrc;
    int rc = kf_source_open(&isrc, ipath, 0);
    free(ipath);
    if (rc != KF_OK) /* no index, or one that cannot be read: it is only a hint */
        return rc == KF_ERR_NOMEM ? rc : KF_OK;
    kf_index ix;
    rc = kf_offset_index_open(&ix, isrc, base);
    if (rc == KF_OK) {
        bool from_index;
        rc = kf_segment_seek(src, &ix, s->cursor, s->o->scan.max_batch_bytes, pos, &from_index);
        kf_index_close(&ix);
        if (from_index) {
            s->res->seeks++;
            s->res->bytes_skipped += *pos;
        }
    }
    kf_source_close(isrc);
    return rc;
}

static int read_segment(range_state *s, size_t i)
{
    const kf_range_opts *o = s->o;
    const char *path = seg_path(s, i);
    kf_source *src;
    int rc = kf_source_open(&src, path, 0);
    if (rc != KF_OK)
        return rc;
    uint64_t pos;
    rc = seek_in(s, src, i, &pos);
    if (rc != KF_OK) {
        kf_source_close(src);
        return rc;
    }
    if (o->segment_fn)
        o->segment_fn(o->segment_ctx, path);
    s->res->segments_read++;
    kf_segment_scan_opts so = o->scan;
    /* one offset lies in a batch or two: reading ahead on other threads
     * would only read megabytes past it */
    if (!so.threads && o->first == o->last)
        so.threads = 1;
    so.has_base_offset = s->log->bases[i] >= 0;
    so.base_offset = s->log->bases[i];
    so.start_position = pos;
    so.offset_index = so.time_index = NULL;
    so.batch_fn = range_batch;
    so.record_fn = range_record;
    so.ctx = s;
    so.problem_fn = range_problem;
    so.problem_ctx = s;
    so.damaged_fn = o->scan.damaged_fn ? range_damaged : NULL;
    so.damaged_ctx = s;
    s->seg = i;
    s->have_cur = false;
    kf_segment_summary sum;
    rc = kf_segment_scan(src, &so, &sum);
    uint64_t size = kf_source_size(src);
    kf_source_close(src);
    if (rc == KF_OK && !s->done && i + 1 == s->log->nseg)
        not_found(s, s->cursor, o->last, size, true, -1);
    if (rc == KF_OK && s->nomem)
        rc = KF_ERR_NOMEM;
    return rc;
}

int kf_range_read(const kf_partition_copy *log, const kf_range_opts *o, kf_range_result *res)
{
    kf_range_result own_res;
    if (!res)
        res = &own_res;
    memset(res, 0, sizeof *res);
    kf_range_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_RANGE_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_opts_nested(&own.scan.version, KF_SEGMENT_SCAN_OPTIONS_VERSION);
    range_state *s = calloc(1, sizeof *s);
    if (!s)
        return kf_error_nomem();
    s->o = &own;
    s->log = log;
    s->res = res;
    s->cursor = own.first;
    int rc = KF_OK;
    if (own.first > own.last) {
        free(s);
        return KF_OK;
    }
    rc = log_start_of(log, &s->log_start);
    if (rc != KF_OK) {
        free(s);
        return rc;
    }
    size_t k = first_segment(log, own.first);
    for (size_t i = k; i < log->nseg && !s->done && rc == KF_OK; i++)
        rc = read_segment(s, i);
    if (!log->nseg) /* nothing holds any offset */
        not_found(s, s->cursor, own.last, 0, true, -1);
    drop_stretch(s);
    free(s);
    return rc;
}
