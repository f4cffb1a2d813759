/* segment.c: one pass over a .log segment, on the streaming reader
 * (reader.c).
 *
 * Follows broker recovery (LogSegment.recover, docs/formats.md §9.2) to
 * find valid_bytes, the point where a recovering broker would truncate, and
 * goes further than the broker: it decodes every record, checks offsets and
 * counts, and checks the segment's .index and .timeindex against the batches
 * in the same pass (both are sorted, so this is a merge and keeps nothing per
 * batch). The reader does the framing, resynchronisation, CRCs and record
 * decoding; this file adds the checks that need the batches in order. */
#include "bytes/opts.h"
#include "kfsck/sys/segment.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/report.h"
#include "format/reader_internal.h"
#include "format/resync.h"

#define INDEX_INTERVAL_BYTES 4096 /* the broker's default index.interval.bytes */
#define PROGRESS_STEP ((uint64_t)64 << 20)

void kf_segment_scan_opts_init(kf_segment_scan_opts *o)
{
    *o = (kf_segment_scan_opts)KF_SEGMENT_SCAN_OPTIONS_INIT;
}

size_t kf_segment_scan_opts_size(const kf_segment_scan_opts *o)
{
    return o && o->version == 1 ? offsetof(kf_segment_scan_opts, start_position) : sizeof *o;
}

uint64_t kf_find_next_batch(const uint8_t *data, uint64_t size, uint64_t from)
{
    kf_source *src;
    if (kf_source_memory(&src, data, size) != KF_OK)
        return size;
    kf_window w;
    kf_window_init(&w, src);
    uint64_t next = kf_find_next(&w, from);
    kf_window_free(&w);
    kf_source_close(src);
    return next;
}

/* ---- index cross-checks -------------------------------------------------- */

typedef struct index_check {
    const kf_index *ix;
    uint64_t k;              /* next entry to match */
    bool pending;            /* entry k-1 matched a batch; its offset span is open */
    int64_t pending_offset;
    uint64_t pending_slot;
    int64_t span_last;       /* max last offset of batches since the pending entry */
    int64_t last_pos;        /* position of the last entry taken in order */
} index_check;

typedef struct time_check {
    const kf_index *ix;
    uint64_t k;
} time_check;

typedef struct scan_state {
    uint64_t size;           /* of the source */
    const kf_segment_scan_opts *o;
    kf_segment_summary *sum;
    bool recovery_zero;      /* an index append during recovery would throw */
    /* broker-recovery index simulation */
    uint64_t rec_last_index_pos;
    int64_t rec_last_index_off;
    bool rec_has_index;
    int64_t rec_max_ts;
    int64_t rec_max_ts_off;
    int64_t rec_last_time_off;
    bool rec_has_time;
    /* offsets */
    bool have_prev;
    int64_t prev_last;
    int64_t max_ts_before, max_ts;
    index_check oi;
    time_check ti;
    kf_segment_iter *it;
    kf_source *src;
    /* o->damaged_fn: the damaged stretch being read (opened by a reader
     * problem, closed by the next one, the next intact batch or the end) */
    bool damage_open;
    uint64_t damage_pos;
    const char *damage_code;
    char damage_msg[sizeof ((kf_problem *)0)->message];
    uint8_t *damage_buf;     /* KF_DAMAGED_BYTES_MAX bytes, allocated on first use */
    bool nomem;
} scan_state;

static void problem(scan_state *s, const char *code, kf_severity sev, uint64_t pos, bool has_off, int64_t off,
                    uint64_t length, bool has_length, const char *msg)
{
    if (sev == KF_SEV_ERROR)
        s->sum->errors++;
    else
        s->sum->warnings++;
    if (!s->o->problem_fn)
        return;
    kf_problem p = {0};
    p.code = code;
    p.severity = sev;
    p.position = pos;
    p.has_offset = has_off;
    p.offset = has_off ? off : 0;
    p.has_length = has_length;
    p.length = length;
    snprintf(p.message, sizeof p.message, "%s", msg);
    s->o->problem_fn(s->o->problem_ctx, &p);
}

/* An index entry that does not match the log: an error counted in the
 * summary, reported (words from fmt) to the offset or time index's own
 * problem callback, at the entry's byte position. */
static void index_problem(scan_state *s, bool time, const char *code, uint64_t slot, int64_t off, const char *fmt,
                          ...) __attribute__((format(printf, 6, 7)));
static void index_problem(scan_state *s, bool time, const char *code, uint64_t slot, int64_t off, const char *fmt,
                          ...)
{
    kf_problem_fn fn = time ? s->o->timeindex_problem_fn : s->o->index_problem_fn;
    void *ctx = time ? s->o->timeindex_problem_ctx : s->o->index_problem_ctx;
    s->sum->errors++;
    if (!fn)
        return;
    va_list ap;
    va_start(ap, fmt);
    kf_vreport_in(fn, ctx, NULL, code, KF_SEV_ERROR, slot * (uint64_t)(time ? 12 : 8), true, off, fmt, ap);
    va_end(ap);
}

static void close_pending_index(scan_state *s)
{
    index_check *c = &s->oi;
    if (!c->pending)
        return;
    c->pending = false;
    if (c->pending_offset > c->span_last)
        index_problem(s, false, KF_P_INDEX_MISMATCH, c->pending_slot, c->pending_offset,
                      "index entry offset %lld is past the batches at its position (last offset %lld)",
                      (long long)c->pending_offset, (long long)c->span_last);
}

static void check_offset_index(scan_state *s, const kf_batch *b)
{
    index_check *c = &s->oi;
    if (!c->ix)
        return;
    while (c->k < c->ix->entries) {
        int64_t off, pos;
        kf_offset_index_get(c->ix, c->k, &off, &pos);
        if ((uint64_t)pos > b->position)
            break;
        if (c->k > 0 && pos < c->last_pos) {
            c->k++; /* out of order: the index's own check reports it */
            continue;
        }
        c->last_pos = pos;
        close_pending_index(s);
        if ((uint64_t)pos < b->position) {
            index_problem(s, false, KF_P_INDEX_MISMATCH, c->k, off,
                          "index entry position %lld is not the start of a batch", (long long)pos);
        } else if (off < b->base_offset) {
            index_problem(s, false, KF_P_INDEX_MISMATCH, c->k, off,
                          "index entry offset %lld is below the base offset %lld of the batch at position %lld",
                          (long long)off, (long long)b->base_offset, (long long)pos);
        } else {
            c->pending = true;
            c->pending_offset = off;
            c->pending_slot = c->k;
            c->span_last = b->last_offset;
        }
        c->k++;
    }
    if (c->pending && b->last_offset > c->span_last)
        c->span_last = b->last_offset;
}

static void finish_offset_index(scan_state *s)
{
    index_check *c = &s->oi;
    if (!c->ix)
        return;
    close_pending_index(s);
    uint64_t valid = s->sum->valid_bytes;
    for (; c->k < c->ix->entries; c->k++) {
        int64_t off, pos;
        kf_offset_index_get(c->ix, c->k, &off, &pos);
        if ((uint64_t)pos >= s->size)
            index_problem(s, false, KF_P_INDEX_BEYOND_LOG, c->k, off,
                          "index entry position %lld is past the end of the log (%llu bytes)", (long long)pos,
                          (unsigned long long)s->size);
        else if ((uint64_t)pos >= valid)
            index_problem(s, false, KF_P_INDEX_BEYOND_LOG, c->k, off,
                          "index entry position %lld is past the last valid byte (%llu)", (long long)pos,
                          (unsigned long long)valid);
        else
            index_problem(s, false, KF_P_INDEX_MISMATCH, c->k, off,
                          "index entry position %lld is not the start of a batch", (long long)pos);
    }
}

static void check_time_index(scan_state *s, const kf_batch *b)
{
    time_check *c = &s->ti;
    if (!c->ix)
        return;
    while (c->k < c->ix->entries) {
        int64_t ts, off;
        kf_time_index_get(c->ix, c->k, &ts, &off);
        if (off > b->last_offset)
            break;
        if (off >= b->base_offset && !(ts == s->max_ts || (ts >= s->max_ts_before && ts <= s->max_ts)))
            index_problem(s, true, KF_P_INDEX_MISMATCH, c->k, off,
                          "time index entry timestamp %lld does not match the log (max timestamp %lld up to offset %lld)",
                          (long long)ts, (long long)s->max_ts, (long long)off);
        c->k++;
    }
}

static void finish_time_index(scan_state *s)
{
    time_check *c = &s->ti;
    if (!c->ix)
        return;
    for (; c->k < c->ix->entries; c->k++) {
        int64_t ts, off;
        kf_time_index_get(c->ix, c->k, &ts, &off);
        index_problem(s, true, KF_P_INDEX_BEYOND_LOG, c->k, off,
                      "time index entry offset %lld is past the last offset in the log", (long long)off);
    }
}

/* Broker recovery rebuilds the indexes while it reads; an append whose
 * offset does not increase throws InvalidOffsetException, and the broker
 * then truncates the whole segment to 0 bytes (docs/formats.md §9.3). */
static void simulate_recovery_index(scan_state *s, const kf_batch *b, uint64_t valid_pos)
{
    if (b->max_timestamp > s->rec_max_ts) {
        s->rec_max_ts = b->max_timestamp;
        s->rec_max_ts_off = b->last_offset;
    }
    if (valid_pos - s->rec_last_index_pos > INDEX_INTERVAL_BYTES) {
        if (s->rec_has_index && b->last_offset <= s->rec_last_index_off)
            s->recovery_zero = true;
        s->rec_has_index = true;
        s->rec_last_index_off = b->last_offset;
        if (s->rec_has_time && s->rec_max_ts_off < s->rec_last_time_off)
            s->recovery_zero = true;
        s->rec_has_time = true;
        s->rec_last_time_off = s->rec_max_ts_off;
        s->rec_last_index_pos = valid_pos;
    }
}

/* ---- the pass ----------------------------------------------------------- */

/* The problem callback the iterator gets: counted into the scan's summary
 * by the iterator itself, forwarded as is. */
/* o->damaged_fn: the stretch from damage_pos to end, with the header
 * fields and the first bytes read from the source. */
static void close_damage(scan_state *s, uint64_t end)
{
    if (!s->damage_open)
        return;
    s->damage_open = false;
    if (end <= s->damage_pos)
        return;
    if (!s->damage_buf && !(s->damage_buf = malloc(KF_DAMAGED_BYTES_MAX))) {
        s->nomem = true;
        return;
    }
    kf_damaged d;
    memset(&d, 0, sizeof d);
    d.position = s->damage_pos;
    d.length = end - s->damage_pos;
    d.code = s->damage_code;
    d.message = s->damage_msg;
    size_t want = d.length < KF_DAMAGED_BYTES_MAX ? (size_t)d.length : KF_DAMAGED_BYTES_MAX;
    int64_t got = kf_source_pread(s->src, d.position, s->damage_buf, want);
    d.bytes = s->damage_buf;
    d.nbytes = got > 0 ? (size_t)got : 0;
    kf_damaged_header(d.bytes, d.nbytes, &d);
    s->o->damaged_fn(s->o->damaged_ctx, &d);
}

static void forward_problem(void *ctx, const kf_problem *p)
{
    scan_state *s = ctx;
    if (s->o->problem_fn)
        s->o->problem_fn(s->o->problem_ctx, p);
    /* damage the reader skipped (zero runs are no batch to show) */
    if (s->o->damaged_fn && p->severity == KF_SEV_ERROR && strcmp(p->code, KF_P_ZERO_FILL)) {
        close_damage(s, p->position);
        s->damage_open = true;
        s->damage_pos = p->position;
        s->damage_code = p->code;
        snprintf(s->damage_msg, sizeof s->damage_msg, "%s", p->message);
    }
}

/* The records of an intact batch: from the reader's check, or, when the
 * caller wants each record, decoded here. */
static int scan_records(scan_state *s, kf_batch *b, bool *bad)
{
    const kf_segment_scan_opts *o = s->o;
    const kf_batch_check *ck = kf_segment_iter_check(s->it);
    if (!o->records) {
        if (o->batch_fn && o->batch_fn(o->ctx, b))
            return -1;
        if (ck->control_malformed)
            problem(s, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false,
                    "malformed control record");
        for (uint32_t i = 0; i < ck->control_extra; i++)
            problem(s, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false,
                    "a transaction marker batch holds more than one record");
        s->sum->records += ck->records;
        if (!ck->records_ok) {
            problem(s, ck->code ? ck->code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0,
                    false, ck->message ? ck->message : "");
            *bad = true;
        }
        if (ck->control_malformed || ck->control_extra)
            *bad = true;
        return KF_OK;
    }
    kf_record_iter it;
    int rc = kf_segment_iter_records(s->it, b, &it);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        if (o->batch_fn && o->batch_fn(o->ctx, b))
            return -1;
        problem(s, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false,
                it.err_msg);
        *bad = true;
        return KF_OK;
    }
    if (o->batch_fn && o->batch_fn(o->ctx, b))
        return -1;
    kf_record r;
    int n;
    uint64_t count = 0;
    bool marker = false; /* a transaction marker stands alone in its batch; KRaft
                            control batches may hold several control records */
    while ((n = kf_records_next(&it, &r)) == 1) {
        count++;
        if (b->control) {
            kf_control ctl;
            bool parsed = kf_control_parse(&r, &ctl) == KF_OK;
            if (count == 1)
                marker = parsed && (ctl.type == KF_CONTROL_ABORT || ctl.type == KF_CONTROL_COMMIT);
            if (!parsed || (count > 1 && marker)) {
                problem(s, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false,
                        parsed ? "a transaction marker batch holds more than one record" : "malformed control record");
                *bad = true;
            }
        }
        if (o->record_fn && o->record_fn(o->ctx, b, &r))
            return -1;
    }
    s->sum->records += count;
    if (n < 0) {
        problem(s, it.err_code, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false, it.err_msg);
        *bad = true;
    }
    return KF_OK;
}

/* Header-level checks of an intact batch that the broker does not make. */
static void check_batch_header(scan_state *s, const kf_batch *b, bool *bad)
{
    char msg[200];
    if (b->magic == 2 && b->count > 0 && (int64_t)b->count > (int64_t)b->last_offset_delta + 1) {
        snprintf(msg, sizeof msg, "batch holds %d records but spans only %lld offsets", b->count,
                 (long long)b->last_offset_delta + 1);
        problem(s, KF_P_COUNT_MISMATCH, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false, msg);
        *bad = true;
    }
    if (b->magic == 2 && b->last_offset_delta < 0) {
        problem(s, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false,
                "negative last offset delta");
        *bad = true;
    }
    int64_t first = b->base_offset_known ? b->base_offset : b->last_offset;
    if (s->have_prev && first <= s->prev_last) {
        snprintf(msg, sizeof msg, "batch starts at offset %lld, not after the previous batch's last offset %lld",
                 (long long)first, (long long)s->prev_last);
        problem(s, KF_P_OFFSET_REGRESSION, KF_SEV_ERROR, b->position, true, first, 0, false, msg);
        *bad = true;
    }
    if (kf_batch_last_offset_overflows(b)) {
        snprintf(msg, sizeof msg, "batch at offset %lld: its last offset + 1 (the next offset) is past 2^63-1, the "
                 "largest offset there is", (long long)first);
        problem(s, KF_P_LAST_OFFSET_OVERFLOW, KF_SEV_ERROR, b->position, true, first, 0, false, msg);
        *bad = true;
        return;
    }
    int64_t base = s->o->base_offset;
    if (s->o->has_base_offset && base >= 0) {
        if (first < base) {
            snprintf(msg, sizeof msg, "batch offset %lld is below the segment's base offset %lld (from its file name)",
                     (long long)first, (long long)base);
            problem(s, KF_P_BASE_OFFSET_MISMATCH, KF_SEV_ERROR, b->position, true, first, 0, false, msg);
            *bad = true;
        } else if (b->last_offset - base > INT32_MAX) {
            snprintf(msg, sizeof msg, "last offset %lld is more than 2^31-1 past the segment's base offset %lld",
                     (long long)b->last_offset, (long long)base);
            problem(s, KF_P_OFFSET_OVERFLOW, KF_SEV_ERROR, b->position, true, first, 0, false, msg);
            *bad = true;
        }
    }
}

int kf_segment_scan(kf_source *src, const kf_segment_scan_opts *o, kf_segment_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    kf_segment_scan_opts taken;
    if (kf_opts_take_grown(&taken, sizeof taken, o, kf_segment_scan_opts_size(o), KF_SEGMENT_SCAN_OPTIONS_VERSION,
                           &taken.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = &taken;
    uint64_t size = kf_source_size(src);
    scan_state s;
    memset(&s, 0, sizeof s);
    s.size = size;
    s.o = o;
    s.src = src;
    s.oi.ix = o->offset_index;
    s.ti.ix = o->time_index;
    s.max_ts = s.max_ts_before = INT64_MIN;
    s.rec_max_ts = -1; /* Kafka's NO_TIMESTAMP start */
    s.rec_max_ts_off = -1;
    bool deep = o->deep || o->records;
    kf_segment_scan_opts io = *o;
    io.deep = deep;
    io.problem_fn = forward_problem;
    io.problem_ctx = &s;
    /* with o->records, scan_records decodes every batch itself: the
     * reader's workers need not decode them first */
    int rc = kf_segment_iter_open_checking(&s.it, src, &io, !o->records);
    if (rc != KF_OK)
        return rc;
    /* the scan's own problems count into sum; the iterator's into its summary */
    kf_segment_summary own;
    memset(&own, 0, sizeof own);
    own.max_timestamp = -1;
    s.sum = &own;
    uint64_t stop_pos = 0;

    uint64_t next_progress = PROGRESS_STEP;
    kf_batch b;
    int got;
    while ((got = kf_segment_iter_next(s.it, &b, NULL)) == 1) {
        close_damage(&s, b.position);
        int64_t skipped;
        if (kf_segment_iter_skipped_last(s.it, &skipped)) { /* batches kept with a bad magic byte */
            if (!s.have_prev || skipped > s.prev_last)
                s.prev_last = skipped;
            s.have_prev = true;
        }
        if (o->progress_fn && b.position >= next_progress) {
            o->progress_fn(o->progress_ctx, b.position, size);
            next_progress = b.position + PROGRESS_STEP;
        }
        const kf_batch_check *ck = kf_segment_iter_check(s.it);
        bool bad = false;
        if (!ck->header_ok) {
            /* CRC ok but the message's own lengths are wrong (v0/v1) */
            if (o->batch_fn && o->batch_fn(o->ctx, &b)) {
                rc = -1;
                break;
            }
            problem(&s, KF_P_BAD_RECORD, KF_SEV_ERROR, b.position, true, b.last_offset, 0, false,
                    "message key/value lengths do not fit the message size");
            bad = true;
        } else if (deep) {
            int r2 = scan_records(&s, &b, &bad);
            if (r2 == KF_ERR_NOMEM) {
                rc = r2;
                break;
            }
            if (r2 < 0) {
                rc = -1;
                break;
            }
        } else if (o->batch_fn && o->batch_fn(o->ctx, &b)) {
            rc = -1;
            break;
        }
        if (!deep)
            own.records += b.count > 0 ? (uint64_t)b.count : 0;
        check_batch_header(&s, &b, &bad);
        if (bad)
            own.bad_batches++;
        if (kf_batch_last_offset_overflows(&b))
            continue; /* no offsets to count: its next offset would be past 2^63-1 */

        /* Broker-side state: index simulation up to the first damage, and
         * the segment's end after recovery's cut there. */
        if (!kf_segment_iter_valid_set(s.it)) {
            simulate_recovery_index(&s, &b, b.position);
            own.has_recovered_offsets = true;
            own.recovered_last_offset = b.last_offset;
        }
        s.max_ts_before = s.max_ts;
        if (b.max_timestamp > s.max_ts)
            s.max_ts = b.max_timestamp;
        check_offset_index(&s, &b);
        check_time_index(&s, &b);

        int64_t first = b.base_offset_known ? b.base_offset : b.last_offset;
        if (!own.has_offsets) {
            own.has_offsets = true;
            own.first_offset = first;
        }
        if (!s.have_prev || b.last_offset > s.prev_last)
            s.prev_last = b.last_offset;
        s.have_prev = true;
        own.last_offset = s.prev_last;
        if (b.max_timestamp > own.max_timestamp)
            own.max_timestamp = b.max_timestamp;
    }
    if (got == 1)
        stop_pos = b.position; /* a callback stopped the scan here */
    if (got < 0)
        rc = -got;
    if (got == 0)
        close_damage(&s, size);
    free(s.damage_buf);
    if (s.nomem && rc == KF_OK)
        rc = KF_ERR_NOMEM;
    const kf_segment_summary *is = kf_segment_iter_summary(s.it);
    *sum = own;
    sum->size = size;
    sum->batches = is->batches;
    sum->bad_batches += is->bad_batches;
    sum->errors += is->errors;
    sum->warnings += is->warnings;
    sum->valid_bytes = got == 1 && !kf_segment_iter_valid_set(s.it) ? stop_pos : is->valid_bytes;
    if (rc == KF_OK || rc == -1) {
        s.sum = sum; /* index problems count into the final summary */
        finish_offset_index(&s);
        finish_time_index(&s);
    }
    if (s.recovery_zero) {
        sum->valid_bytes = 0;
        sum->has_recovered_offsets = false;
    }
    kf_segment_iter_close(s.it);
    return rc == -1 ? KF_OK : rc;
}

int kf_recovery_point(kf_source *src, int64_t base_offset, uint64_t *valid_bytes)
{
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.no_resync = true;
    o.has_base_offset = base_offset >= 0;
    o.base_offset = base_offset;
    o.keep_cache = true;
    kf_segment_summary sum;
    int rc = kf_segment_scan(src, &o, &sum);
    *valid_bytes = sum.valid_bytes;
    return rc;
}
