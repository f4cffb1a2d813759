/* fuzz_seek.c: fuzz target for seeking a segment with its offset index
 * (kf_segment_seek, src/format/segment_seek.c), reading it from there with
 * the damaged stretches handed out (kf_segment_scan's start_position and
 * damaged_fn) and a damaged stretch's header fields (kf_damaged_header).
 * Input: 2 bytes, the index's length L (big-endian, cut to what is there);
 * 8 bytes, the offset looked for; L bytes of .index; the rest is the .log
 * (base offset 0). Any crash, sanitizer report or hang is a bug.
 *
 * Built as build/fuzz/replay_seek by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_seek -max_len=65536 tests/fuzz/corpus/seek
 */
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t seen; /* unsigned: wraps, no UB */

static void on_damaged(void *ctx, const kf_damaged *d)
{
    (void)ctx;
    for (size_t i = 0; i < d->nbytes; i++)
        seen += d->bytes[i];
    seen += d->length + (uint64_t)d->base_offset + (uint64_t)d->count;
}

static int on_batch(void *ctx, const kf_batch *b)
{
    (void)ctx;
    seen += (uint64_t)b->last_offset;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 10)
        return 0;
    size_t ilen = (size_t)data[0] << 8 | data[1];
    uint64_t t = 0;
    for (int i = 2; i < 10; i++)
        t = t << 8 | data[i];
    data += 10;
    size -= 10;
    if (ilen > size)
        ilen = size;
    const uint8_t *ixb = data, *log = data + ilen;
    size_t loglen = size - ilen;

    kf_damaged d = {0};
    kf_damaged_header(log, loglen, &d);
    seen += (uint64_t)d.base_offset + (uint64_t)d.max_timestamp;

    kf_source *src;
    if (kf_source_memory(&src, log, loglen) != KF_OK)
        return 0;
    kf_index ix;
    kf_offset_index_init(&ix, ixb, ilen, 0);
    uint64_t pos = 0;
    bool from_index = false;
    if (kf_segment_seek(src, &ix, (int64_t)t, 1 << 20, &pos, &from_index) == KF_OK) {
        kf_segment_scan_opts so;
        kf_segment_scan_opts_init(&so);
        so.max_batch_bytes = 1 << 20;
        so.threads = 1;
        so.start_position = pos;
        so.has_base_offset = true;
        so.base_offset = 0;
        so.batch_fn = on_batch;
        so.damaged_fn = on_damaged;
        kf_segment_summary sum;
        kf_segment_scan(src, &so, &sum);
    }
    kf_source_close(src);
    return 0;
}
