/* segment.c: one pass over a .log segment.
 *
 * Follows broker recovery (LogSegment.recover, segment-format.md §5.2) to
 * find valid_bytes, the point where a recovering broker would truncate, and
 * goes further than the broker: it decodes every record, checks offsets and
 * counts, measures zero-filled ranges (using SEEK_HOLE for sparse holes) and,
 * after damage, resynchronises on the next well-formed batch so that the rest
 * of the segment is still checked. The segment's .index and .timeindex are
 * checked against the batches in the same pass (both are sorted, so this is a
 * merge and keeps nothing per batch). Memory: one decompression buffer. */
#include "kfsck/segment.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/crc.h"
#include "format/readahead.h"

#define INDEX_INTERVAL_BYTES 4096 /* the broker's default index.interval.bytes */
#define ZERO_RUN_REPORT 1024      /* zero runs this long inside damage are named */
#define RESYNC_MAX_BATCH ((uint64_t)1 << 30)
#define PROGRESS_STEP ((uint64_t)64 << 20)

void kf_scan_opts_init(kf_scan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    o->deep = true;
    o->resync = true;
    o->base_offset = -1;
}

/* ---- zero runs and holes ------------------------------------------------ */

/* End of the run of zero bytes starting at `from` (== from if data[from] != 0).
 * Sparse holes are skipped without touching their pages. */
static uint64_t zero_run_end(const kf_map *m, uint64_t from, uint64_t end)
{
    const uint8_t *d = m->data;
    uint64_t p = from;
    uint64_t hs = 0, he = 0;
    int have_hole = kf_map_next_hole(m, p, end, &hs, &he);
    while (p < end) {
        if (have_hole && p >= hs) {
            p = he;
            have_hole = kf_map_next_hole(m, p, end, &hs, &he);
            continue;
        }
        uint64_t lim = have_hole ? hs : end;
        while (p < lim && ((uintptr_t)(d + p) & 7))
            if (d[p])
                return p;
            else
                p++;
        while (p + 8 <= lim) {
            uint64_t w;
            memcpy(&w, d + p, 8);
            if (w)
                break;
            p += 8;
        }
        while (p < lim) {
            if (d[p])
                return p;
            p++;
        }
    }
    return end;
}

/* ---- resync ------------------------------------------------------------- */

/* Cheap structural filters first, the CRC last: random bytes almost never get
 * as far as the CRC, so scanning damaged ranges stays linear. */
static bool plausible_v2(const uint8_t *p, uint64_t len)
{
    if (len < KF_V2_HEADER_SIZE - KF_LOG_OVERHEAD || p[21] != 0 || (p[22] & KF_ATTR_CODEC_MASK) > KF_CODEC_ZSTD)
        return false;
    int64_t base = (int64_t)kf_be64(p);
    int32_t lod = (int32_t)kf_be32(p + 23);
    int32_t count = (int32_t)kf_be32(p + 57);
    int16_t epoch = (int16_t)kf_be16(p + 51);
    if (base < 0 || lod < 0 || count < 0 || (count > 0 && (int64_t)count > (int64_t)lod + 1) || epoch < -1)
        return false;
    return kf_crc32c(0, p + 21, (size_t)(len + KF_LOG_OVERHEAD - 21)) == kf_be32(p + 17);
}

static bool plausible_legacy(const uint8_t *p, uint64_t len, int magic)
{
    uint32_t min = magic == 0 ? KF_V0_MIN_SIZE : KF_V1_MIN_SIZE;
    if (len < min || (p[17] & 0xf0) || (int64_t)kf_be64(p) < 0)
        return false;
    uint64_t kpos = KF_LOG_OVERHEAD + (magic == 0 ? 6 : 14);
    uint64_t end = KF_LOG_OVERHEAD + len;
    int32_t klen = (int32_t)kf_be32(p + kpos);
    if (klen < -1 || kpos + 4 + (uint64_t)(klen > 0 ? klen : 0) + 4 > end)
        return false;
    uint64_t vpos = kpos + 4 + (uint64_t)(klen > 0 ? klen : 0);
    int32_t vlen = (int32_t)kf_be32(p + vpos);
    if (vlen < -1 || vpos + 4 + (uint64_t)(vlen > 0 ? vlen : 0) != end)
        return false;
    return kf_crc32(0, p + 16, (size_t)(len + KF_LOG_OVERHEAD - 16)) == kf_be32(p + 12);
}

static bool entry_plausible(const uint8_t *data, uint64_t size, uint64_t p)
{
    if (size - p < KF_HEADER_UP_TO_MAGIC + 1)
        return false;
    const uint8_t *q = data + p;
    int magic = q[16];
    if (magic > 2)
        return false;
    int32_t len = (int32_t)kf_be32(q + 8);
    if (len < KF_V0_MIN_SIZE || (uint64_t)len + KF_LOG_OVERHEAD > size - p || (uint64_t)len > RESYNC_MAX_BATCH)
        return false;
    return magic == 2 ? plausible_v2(q, (uint64_t)len) : plausible_legacy(q, (uint64_t)len, magic);
}

/* Resync scan. Long zero runs (and sparse holes) are jumped over: a batch
 * may begin with up to 11 zero bytes (offset 0, small length), so the scan
 * resumes 12 bytes before the run's end. */
static uint64_t find_next(const kf_map *m, uint64_t from)
{
    const uint8_t *data = m->data;
    uint64_t size = m->size;
    if (size < KF_HEADER_UP_TO_MAGIC + 1)
        return size;
    for (uint64_t p = from; p + KF_HEADER_UP_TO_MAGIC + 1 <= size; p++) {
        if (data[p + 16] > 2)
            continue;
        if (data[p] == 0 && size - p >= 64) {
            uint64_t w1, w2;
            memcpy(&w1, data + p, 8);
            memcpy(&w2, data + p + 8, 8);
            if (!w1 && !w2) {
                uint64_t z = zero_run_end(m, p, size);
                if (z == size)
                    return size;
                if (z - p > 16) {
                    p = z - 12; /* the loop's p++ makes it z - 11 */
                    continue;
                }
            }
        }
        if (entry_plausible(data, size, p))
            return p;
    }
    return size;
}

uint64_t kf_find_next_batch(const uint8_t *data, uint64_t size, uint64_t from)
{
    kf_map m = {data, size, -1, 0};
    return find_next(&m, from);
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
    const kf_map *m;
    const kf_scan_opts *o;
    kf_segment_summary *sum;
    bool valid_set;
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
    kf_buf buf;
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

static void index_problem(scan_state *s, bool time, const char *code, uint64_t slot, int64_t off, const char *msg)
{
    kf_problem_fn fn = time ? s->o->timeindex_problem_fn : s->o->index_problem_fn;
    void *ctx = time ? s->o->timeindex_problem_ctx : s->o->index_problem_ctx;
    s->sum->errors++;
    if (fn)
        kf_report(fn, ctx, code, KF_SEV_ERROR, slot * (uint64_t)(time ? 12 : 8), true, off, "%s", msg);
}

static void set_valid(scan_state *s, uint64_t pos)
{
    if (!s->valid_set) {
        s->valid_set = true;
        s->sum->valid_bytes = pos;
    }
}

static void close_pending_index(scan_state *s)
{
    index_check *c = &s->oi;
    if (!c->pending)
        return;
    c->pending = false;
    if (c->pending_offset > c->span_last) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "index entry offset %lld is past the batches at its position (last offset %lld)",
                 (long long)c->pending_offset, (long long)c->span_last);
        index_problem(s, false, KF_P_INDEX_MISMATCH, c->pending_slot, c->pending_offset, msg);
    }
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
            char msg[160];
            snprintf(msg, sizeof msg, "index entry position %lld is not the start of a batch", (long long)pos);
            index_problem(s, false, KF_P_INDEX_MISMATCH, c->k, off, msg);
        } else if (off < b->base_offset) {
            char msg[200];
            snprintf(msg, sizeof msg, "index entry offset %lld is below the base offset %lld of the batch at position %lld",
                     (long long)off, (long long)b->base_offset, (long long)pos);
            index_problem(s, false, KF_P_INDEX_MISMATCH, c->k, off, msg);
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
    uint64_t valid = s->valid_set ? s->sum->valid_bytes : s->m->size;
    for (; c->k < c->ix->entries; c->k++) {
        int64_t off, pos;
        kf_offset_index_get(c->ix, c->k, &off, &pos);
        char msg[200];
        if ((uint64_t)pos >= s->m->size) {
            snprintf(msg, sizeof msg, "index entry position %lld is past the end of the log (%llu bytes)", (long long)pos,
                     (unsigned long long)s->m->size);
            index_problem(s, false, KF_P_INDEX_BEYOND_LOG, c->k, off, msg);
        } else if ((uint64_t)pos >= valid) {
            snprintf(msg, sizeof msg, "index entry position %lld is past the last valid byte (%llu)", (long long)pos,
                     (unsigned long long)valid);
            index_problem(s, false, KF_P_INDEX_BEYOND_LOG, c->k, off, msg);
        } else {
            snprintf(msg, sizeof msg, "index entry position %lld is not the start of a batch", (long long)pos);
            index_problem(s, false, KF_P_INDEX_MISMATCH, c->k, off, msg);
        }
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
        if (off >= b->base_offset && !(ts == s->max_ts || (ts >= s->max_ts_before && ts <= s->max_ts))) {
            char msg[200];
            snprintf(msg, sizeof msg, "time index entry timestamp %lld does not match the log (max timestamp %lld up to offset %lld)",
                     (long long)ts, (long long)s->max_ts, (long long)off);
            index_problem(s, true, KF_P_INDEX_MISMATCH, c->k, off, msg);
        }
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
        char msg[200];
        snprintf(msg, sizeof msg, "time index entry offset %lld is past the last offset in the log", (long long)off);
        index_problem(s, true, KF_P_INDEX_BEYOND_LOG, c->k, off, msg);
    }
}

/* Broker recovery rebuilds the indexes while it reads; an append whose
 * offset does not increase throws InvalidOffsetException, and the broker
 * then truncates the whole segment to 0 bytes (§5.2). */
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

/* Report damage starting at pos and return where scanning resumes. */
static uint64_t skip_damage(scan_state *s, uint64_t pos, const char *code, bool has_off, int64_t off, const char *msg,
                            uint64_t hint_next)
{
    const kf_map *m = s->m;
    set_valid(s, pos);
    s->sum->bad_batches++;
    uint64_t next = m->size;
    if (s->o->resync) {
        if (hint_next > pos && hint_next < m->size && entry_plausible(m->data, m->size, hint_next))
            next = hint_next;
        else
            next = find_next(m, pos + 1);
    }
    char full[240];
    if (next < m->size)
        snprintf(full, sizeof full, "%s; %llu bytes skipped to the next intact batch at position %llu", msg,
                 (unsigned long long)(next - pos), (unsigned long long)next);
    else
        snprintf(full, sizeof full, "%s; no intact batch after it", msg);
    problem(s, code, KF_SEV_ERROR, pos, has_off, off, 0, false, full);
    /* Name long zero runs inside the skipped range (zeroed pages, holes). */
    uint64_t p = pos;
    while (p < next) {
        if (m->data[p] != 0) {
            const uint8_t *nz = memchr(m->data + p, 0, (size_t)(next - p));
            if (!nz)
                break;
            p = (uint64_t)(nz - m->data);
            continue;
        }
        uint64_t z = zero_run_end(m, p, next);
        if (z - p >= ZERO_RUN_REPORT)
            problem(s, KF_P_ZERO_FILL, KF_SEV_ERROR, p, false, 0, z - p, true,
                    z == m->size ? "zero-filled range up to the end of the segment" : "zero-filled range inside the segment");
        p = z;
    }
    return next;
}

static int scan_records(scan_state *s, kf_batch *b, bool *bad)
{
    const kf_scan_opts *o = s->o;
    kf_record_iter it;
    int rc = kf_records_begin(&it, b, &s->buf, o->max_batch_bytes);
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
    while ((n = kf_records_next(&it, &r)) == 1) {
        count++;
        if (b->control) {
            kf_control ctl;
            if (kf_control_parse(&r, &ctl) != KF_OK || count > 1) {
                problem(s, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset, 0, false,
                        count > 1 ? "control batch holds more than one record" : "malformed control record");
                *bad = true;
            }
        }
        if (o->records && o->record_fn && o->record_fn(o->ctx, b, &r))
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
    int64_t base = s->o->base_offset;
    if (base >= 0) {
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

/* From *posp, find the next entry broker recovery accepts (framing, minimum
 * size, CRC), reporting the damage met on the way and resynchronising past
 * it. Returns 1 with *b parsed at *posp (*prc_out: kf_batch_parse's result:
 * KF_OK, or a v0/v1 message whose own lengths are wrong), or 0 at the end. */
static int next_entry(scan_state *s, uint64_t *posp, kf_batch *b, int *prc_out)
{
    const kf_map *m = s->m;
    const kf_scan_opts *o = s->o;
    kf_segment_summary *sum = s->sum;
    const uint8_t *d = m->data;
    uint64_t size = m->size;
    uint64_t pos = *posp;
    char msg[200];
    while (pos < size) {
        uint32_t bsize = 0;
        int8_t magic = 0;
        kf_frame fr = kf_batch_frame(d + pos, size - pos, &bsize, &magic);
        if (fr == KF_FRAME_SHORT_TAIL || fr == KF_FRAME_BAD_SIZE) {
            uint64_t z = zero_run_end(m, pos, size);
            if (z == size) { /* zeros up to the end: a preallocated tail */
                set_valid(s, pos);
                if (!o->limited)
                    problem(s, KF_P_ZERO_FILL, KF_SEV_WARNING, pos, false, 0, size - pos, true,
                            "zero-filled tail after the last batch (preallocated or never written)");
                *posp = size;
                return 0;
            }
            if (fr == KF_FRAME_SHORT_TAIL) {
                set_valid(s, pos);
                if (!o->limited) {
                    snprintf(msg, sizeof msg, "%llu trailing bytes are too few for an entry header",
                             (unsigned long long)(size - pos));
                    problem(s, KF_P_TRUNCATED, KF_SEV_ERROR, pos, false, 0, 0, false, msg);
                    sum->bad_batches++;
                }
                *posp = size;
                return 0;
            }
            if (z - pos >= KF_HEADER_UP_TO_MAGIC + 1) {
                /* a zeroed range followed by data: report it once, whole */
                /* a batch may start with zero bytes (offset 0), up to 11 before z */
                uint64_t from = z - pos > 12 ? z - 12 : pos + 1;
                uint64_t next = o->resync ? find_next(m, from) : size;
                uint64_t zend = next < z ? next : z;
                set_valid(s, pos);
                sum->bad_batches++;
                problem(s, KF_P_ZERO_FILL, KF_SEV_ERROR, pos, false, 0, zend - pos, true,
                        "zero-filled range inside the segment");
                pos = next;
                continue;
            }
            snprintf(msg, sizeof msg, "size field %d is below the minimum entry size of 14", (int32_t)kf_be32(d + pos + 8));
            pos = skip_damage(s, pos, KF_P_BAD_LENGTH, false, 0, msg, 0);
            continue;
        }
        if (fr == KF_FRAME_TORN) {
            int32_t len = (int32_t)kf_be32(d + pos + 8);
            if (o->limited) {
                set_valid(s, pos);
                *posp = size;
                return 0;
            }
            uint64_t next = o->resync ? find_next(m, pos + 1) : size;
            if (next < size) {
                snprintf(msg, sizeof msg, "length %d runs past the end of the file (%llu bytes left)", len,
                         (unsigned long long)(size - pos));
                pos = skip_damage(s, pos, KF_P_BAD_LENGTH, true, (int64_t)kf_be64(d + pos), msg, next);
            } else {
                snprintf(msg, sizeof msg, "last entry is torn: it needs %lld bytes, %llu are present",
                         (long long)len + KF_LOG_OVERHEAD, (unsigned long long)(size - pos));
                set_valid(s, pos);
                sum->bad_batches++;
                problem(s, KF_P_TRUNCATED, KF_SEV_ERROR, pos, true, (int64_t)kf_be64(d + pos), 0, false, msg);
                pos = size;
            }
            continue;
        }

        int prc = kf_batch_parse(d + pos, bsize, pos, b);
        *prc_out = prc;
        if (prc == KF_ERR_UNSUPPORTED && (b->magic < 0 || b->magic > 2)) {
            /* FileLogInputStream reads any magic >= 2 as a v2 batch, and the
             * v2 CRC does not cover the magic byte: if the rest holds, the
             * broker keeps this batch, so valid_bytes does not move. */
            int64_t off = (int64_t)kf_be64(d + pos);
            if (b->magic > 2 && bsize >= KF_V2_HEADER_SIZE &&
                kf_crc32c(0, d + pos + 21, bsize - 21) == kf_be32(d + pos + 17)) {
                snprintf(msg, sizeof msg, "magic byte %d is not 0, 1 or 2 (the rest of the batch is intact; "
                         "a broker would read it as magic 2)", b->magic);
                problem(s, KF_P_BAD_MAGIC, KF_SEV_ERROR, pos, true, off, 0, false, msg);
                sum->bad_batches++;
                if (!s->have_prev || (int64_t)(off + (int32_t)kf_be32(d + pos + 23)) > s->prev_last)
                    s->prev_last = (int64_t)((uint64_t)off + (uint64_t)(int64_t)(int32_t)kf_be32(d + pos + 23));
                s->have_prev = true;
                pos += bsize;
                continue;
            }
            snprintf(msg, sizeof msg, "magic byte %d is not 0, 1 or 2", b->magic);
            pos = skip_damage(s, pos, KF_P_BAD_MAGIC, true, off, msg, pos + bsize);
            continue;
        }
        bool min_ok = b->magic == 2 ? bsize >= KF_V2_HEADER_SIZE : bsize >= KF_LOG_OVERHEAD + KF_V0_MIN_SIZE;
        if (!min_ok) {
            snprintf(msg, sizeof msg, "entry of %u bytes is below the minimum of %d for magic %d", bsize,
                     b->magic == 2 ? KF_V2_HEADER_SIZE : KF_LOG_OVERHEAD + KF_V0_MIN_SIZE, b->magic);
            pos = skip_damage(s, pos, KF_P_BAD_LENGTH, false, 0, msg, pos + bsize);
            continue;
        }
        if (!kf_batch_verify_crc(b)) {
            snprintf(msg, sizeof msg, "stored CRC %u does not match the computed CRC of the batch", b->crc);
            pos = skip_damage(s, pos, KF_P_CRC_MISMATCH, true, b->base_offset, msg, pos + bsize);
            continue;
        }
        *posp = pos;
        return 1;
    }
    *posp = pos;
    return 0;
}

int kf_segment_scan(const kf_map *m, const kf_scan_opts *o, kf_segment_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    sum->size = m->size;
    sum->max_timestamp = -1;
    scan_state s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.o = o;
    s.sum = sum;
    s.oi.ix = o->offset_index;
    s.ti.ix = o->time_index;
    s.max_ts = s.max_ts_before = INT64_MIN;
    s.rec_max_ts = -1; /* Kafka's NO_TIMESTAMP start */
    s.rec_max_ts_off = -1;
    bool deep = o->deep || o->records;
    const uint8_t *d = m->data;
    uint64_t size = m->size;
    uint64_t pos = 0;
    int rc = KF_OK;

    uint64_t next_progress = PROGRESS_STEP, next_note = 0;
    kf_readahead ra;
    kf_readahead_start(&ra, d, o->readahead ? size : 0);
    while (pos < size) {
        if (pos >= next_note) {
            kf_readahead_note(&ra, pos);
            next_note = pos + ((uint64_t)1 << 20);
        }
        if (o->progress_fn && pos >= next_progress) {
            o->progress_fn(o->progress_ctx, pos, size);
            next_progress = pos + PROGRESS_STEP;
        }
        kf_batch b;
        int prc;
        if (!next_entry(&s, &pos, &b, &prc))
            break;
        /* The broker accepts this batch. */
        sum->batches++;
        bool bad = false;
        if (prc != KF_OK) {
            /* CRC ok but the message's own lengths are wrong (v0/v1) */
            if (o->batch_fn && o->batch_fn(o->ctx, &b)) {
                rc = -1;
                break;
            }
            problem(&s, KF_P_BAD_RECORD, KF_SEV_ERROR, pos, true, b.last_offset, 0, false,
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
            sum->records += b.count > 0 ? (uint64_t)b.count : 0;
        check_batch_header(&s, &b, &bad);
        if (bad)
            sum->bad_batches++;

        /* Broker-side state: valid position so far, index simulation. */
        if (!s.valid_set)
            simulate_recovery_index(&s, &b, pos);
        s.max_ts_before = s.max_ts;
        if (b.max_timestamp > s.max_ts)
            s.max_ts = b.max_timestamp;
        check_offset_index(&s, &b);
        check_time_index(&s, &b);

        int64_t first = b.base_offset_known ? b.base_offset : b.last_offset;
        if (!sum->has_offsets) {
            sum->has_offsets = true;
            sum->first_offset = first;
        }
        if (!s.have_prev || b.last_offset > s.prev_last)
            s.prev_last = b.last_offset;
        s.have_prev = true;
        sum->last_offset = s.prev_last;
        if (b.max_timestamp > sum->max_timestamp)
            sum->max_timestamp = b.max_timestamp;
        pos += b.size;
    }
    kf_readahead_stop(&ra);
    if (!s.valid_set)
        sum->valid_bytes = pos < size ? pos : size;
    if (s.recovery_zero)
        sum->valid_bytes = 0;
    if (rc == KF_OK) {
        finish_offset_index(&s);
        finish_time_index(&s);
    }
    kf_buf_free(&s.buf);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

struct kf_segment_iter {
    scan_state s;
    kf_scan_opts o;
    kf_segment_summary sum;
    uint64_t pos;
    bool done;
    kf_readahead ra;
    uint64_t next_note;
};

int kf_segment_iter_open(kf_segment_iter **out, const kf_map *m, const kf_scan_opts *o)
{
    kf_segment_iter *it = calloc(1, sizeof *it);
    if (!it)
        return KF_ERR_NOMEM;
    it->o = *o;
    it->s.m = m;
    it->s.o = &it->o;
    it->s.sum = &it->sum;
    it->sum.size = m->size;
    it->sum.max_timestamp = -1;
    kf_readahead_start(&it->ra, m->data, o->readahead ? m->size : 0);
    *out = it;
    return KF_OK;
}

int kf_segment_iter_next(kf_segment_iter *it, kf_batch *b, bool *damaged)
{
    uint64_t bad = it->sum.bad_batches;
    int prc = KF_OK;
    int got = 0;
    while (!it->done) {
        if (it->pos >= it->next_note) {
            kf_readahead_note(&it->ra, it->pos);
            it->next_note = it->pos + ((uint64_t)1 << 20);
        }
        if (!next_entry(&it->s, &it->pos, b, &prc)) {
            it->done = true;
            if (!it->s.valid_set)
                it->sum.valid_bytes = it->pos < it->sum.size ? it->pos : it->sum.size;
            break;
        }
        it->pos += b->size;
        if (prc != KF_OK) { /* CRC-valid v0/v1 message with impossible lengths */
            it->sum.bad_batches++;
            continue;
        }
        it->sum.batches++;
        got = 1;
        break;
    }
    if (damaged)
        *damaged = it->sum.bad_batches != bad;
    return got;
}

const kf_segment_summary *kf_segment_iter_summary(const kf_segment_iter *it) { return &it->sum; }

void kf_segment_iter_close(kf_segment_iter *it)
{
    if (!it)
        return;
    kf_readahead_stop(&it->ra);
    free(it);
}

uint64_t kf_recovery_point(const uint8_t *data, uint64_t size, int64_t base_offset)
{
    kf_map m = {data, size, -1, 0};
    kf_scan_opts o;
    kf_scan_opts_init(&o);
    o.deep = false;
    o.resync = false;
    o.base_offset = base_offset;
    kf_segment_summary sum;
    kf_segment_scan(&m, &o, &sum);
    return sum.valid_bytes;
}
