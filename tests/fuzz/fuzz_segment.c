/* fuzz_segment.c: fuzz target for a segment checked together with its
 * indexes, with every record handed to a callback that walks its headers and
 * control key, as `kfsck dump --records` and `kfsck verify` do.
 * Input: [u16 index length][u16 time-index length][index][time index][log]. */
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    size_t *sink = ctx;
    kf_cursor c;
    kf_cur_init(&c, r->headers, r->headers_len);
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
    kf_scan_opts o;
    kf_scan_opts_init(&o);
    o.records = true;
    o.record_fn = on_record;
    o.ctx = &sink;
    o.max_batch_bytes = (size_t)1 << 20;
    o.base_offset = 0;
    o.offset_index = &oi;
    o.time_index = &ti;
    kf_segment_summary sum;
    (void)kf_segment_scan(m, &o, &sum);
    /* the answer may not depend on how the reader cuts the file */
    size_t sink2 = 0;
    o.ctx = &sink2;
    o.chunk_bytes = 64 + (size & 255);
    kf_segment_summary sum2;
    (void)kf_segment_scan(m, &o, &sum2);
    if (memcmp(&sum, &sum2, sizeof sum) != 0 || sink != sink2)
        abort();
    (void)kf_recovery_point(m, 0);
    kf_source_close(m);
    return (int)(sink & 0);
}
