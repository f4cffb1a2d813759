/* fuzz_connect.c: fuzz target for the Kafka Connect offsets replay and its
 * strict JSON checks: the input is read as a segment of the Connect offsets
 * topic (partitions interleaved), every record replayed, the table built. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_source *m;
    if (kf_source_memory(&m, data, size) != KF_OK)
        return 0;
    kf_connect_opts co;
    kf_connect_opts_init(&co);
    co.max_batch_bytes = (size_t)1 << 20;
    kf_connect *c;
    (void)kf_connect_new(&c, &co); /* NULL when out of memory: checked below */
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.deep = true;
    kf_segment_iter *it;
    if (c && kf_segment_iter_open(&it, m, &o) == KF_OK) {
        kf_batch b;
        int part = 0;
        while (kf_segment_iter_next(it, &b, NULL) == 1) {
            if (part++ % 4 == 3)
                kf_connect_partition(c, part % 2);
            kf_connect_batch(c, &b);
        }
        kf_segment_iter_close(it);
    }
    if (c) {
        const kf_connect_offset *rows;
        size_t n = 0;
        size_t sink = 0;
        if (kf_connect_offsets(c, &rows, &n) != KF_OK)
            n = 0;
        for (size_t i = 0; i < n; i++)
            sink += rows[i].connector_len + rows[i].partition_len + rows[i].offset_len;
        (void)sink;
        (void)kf_json_valid(data, size < 4096 ? size : 4096);
        kf_connect_free(c);
    }
    kf_source_close(m);
    return 0;
}
