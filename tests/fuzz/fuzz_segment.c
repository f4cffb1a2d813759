/* fuzz_segment.c: fuzz target for a segment checked together with its
 * indexes, with every record handed to a callback that walks its headers and
 * control key, as `kfsck dump --records` and `kfsck verify` do; and read as
 * repair reads it: with broker_view the entries before the recovery point
 * must tile it exactly (what the default repair copies), and the per-batch
 * checks of a kept batch run on every deep-read batch; and each damaged
 * stretch's records as dump --include-damaged --records reads them.
 * Input: [u16 index length][u16 time-index length][index][time index][log]. */
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"
#include "format/intact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The entries broker_view returns before the recovery point are the bytes
 * [0, valid_bytes), one after the other, unless an entry was too large to
 * be returned. */
static void note_too_large(void *ctx, const kf_problem *p)
{
    if (p->code && !strcmp(p->code, KF_P_BATCH_TOO_LARGE))
        *(bool *)ctx = true;
}

static void check_broker_view(kf_source *m)
{
    bool too_large = false;
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.problem_fn = note_too_large;
    o.problem_ctx = &too_large;
    o.deep = false;
    o.broker_view = true;
    o.threads = 1;
    o.max_batch_bytes = (size_t)1 << 20;
    o.has_base_offset = true;
    o.base_offset = 0;
    kf_segment_iter *it;
    if (kf_segment_iter_open(&it, m, &o) != KF_OK)
        return;
    kf_batch b;
    uint64_t next = 0, vb;
    bool contiguous = true;
    while (kf_segment_iter_next(it, &b, NULL) == 1) {
        kf_batch hb;
        if (kf_segment_iter_recovery_point(it, &vb) && b.position >= vb)
            continue;
        if (b.position != next)
            contiguous = false;
        next = b.position + b.size;
        kf_batch_parse_broker(b.bytes, b.size, b.position, &hb);
        if (hb.last_offset != b.last_offset)
            abort();
    }
    if (!kf_segment_iter_recovery_point(it, &vb))
        abort(); /* known at the end */
    if (!too_large && (!contiguous || next != vb))
        abort();
    kf_segment_iter_close(it);
    /* deep: the checks a kept batch passes never fail without saying why */
    o.broker_view = false;
    o.problem_fn = NULL;
    o.deep = true;
    if (kf_segment_iter_open(&it, m, &o) != KF_OK)
        return;
    while (kf_segment_iter_next(it, &b, NULL) == 1) {
        const char *code;
        char msg[200];
        if (!kf_batch_intact(&b, kf_segment_iter_check(it), &code, msg, sizeof msg) && (!code || !msg[0]))
            abort();
        (void)kf_batch_offsets_fit(&b, true, b.base_offset, 0, &code, msg, sizeof msg);
    }
    kf_segment_iter_close(it);
}

static int on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    size_t *sink = ctx;
    kf_cursor c;
    kf_headers_begin(&c, r);
    const uint8_t *hk, *hv;
    int32_t hkl, hvl;
    while (kf_header_next(&c, &hk, &hkl, &hv, &hvl) == 1)
        *sink += (size_t)hkl + (hk && hkl ? hk[0] : 0) + (hv && hvl > 0 ? hv[hvl - 1] : 0);
    kf_control ctl;
    if (b->control && kf_control_parse(r, &ctl) == KF_OK)
        *sink += (size_t)ctl.type;
    if (r->key_len > 0)
        *sink += r->key[r->key_len - 1];
    if (r->value_len > 0)
        *sink += r->value[r->value_len - 1];
    return 0;
}

/* dump --include-damaged --records: each damaged stretch's records, read
 * again from the source, as far as they decode, into the same sink. */
typedef struct damaged_walk {
    kf_source *src;
    size_t *sink;
} damaged_walk;

static void on_damaged(void *ctx, const kf_damaged *d)
{
    damaged_walk *w = ctx;
    uint64_t n;
    if (kf_damaged_records(w->src, d, (size_t)1 << 20, on_record, w->sink, &n) == KF_OK)
        *w->sink += (size_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    size_t il = (size_t)(data[0] << 8 | data[1]), tl = (size_t)(data[2] << 8 | data[3]);
    data += 4;
    size -= 4;
    if (il > size)
        il = size;
    if (tl > size - il)
        tl = size - il;
    kf_index oi, ti;
    kf_offset_index_init(&oi, data, il, 0);
    kf_time_index_init(&ti, data + il, tl, 0);
    kf_source *m;
    if (kf_source_memory(&m, data + il + tl, size - il - tl) != KF_OK)
        return 0;
    size_t sink = 0;
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.records = true;
    o.record_fn = on_record;
    o.ctx = &sink;
    o.max_batch_bytes = (size_t)1 << 20;
    o.has_base_offset = true;
    o.base_offset = 0;
    o.offset_index = &oi;
    o.time_index = &ti;
    damaged_walk dw = {m, &sink};
    o.damaged_fn = on_damaged;
    o.damaged_ctx = &dw;
    kf_segment_summary sum;
    (void)kf_segment_scan(m, &o, &sum);
    /* the answer may not depend on how the reader cuts the file */
    size_t sink2 = 0;
    o.ctx = &sink2;
    dw.sink = &sink2;
    o.chunk_bytes = 64 + (size & 255);
    kf_segment_summary sum2;
    (void)kf_segment_scan(m, &o, &sum2);
    if (memcmp(&sum, &sum2, sizeof sum) != 0 || sink != sink2)
        abort();
    uint64_t valid;
    (void)kf_recovery_point(m, 0, &valid);
    check_broker_view(m);
    kf_source_close(m);
    return (int)(sink & 0);
}
