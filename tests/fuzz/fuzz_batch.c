/* fuzz_batch.c: fuzz target for the segment scanner. The input bytes are
 * treated as the contents of a .log segment and walked the way `kfsck verify`
 * walks one: deep (records decoded, payloads decompressed, capped at 1 MiB a
 * batch) and resynchronising past damage. Any crash, sanitizer report or
 * hang is a bug; the findings themselves are ignored.
 *
 * Built as build/fuzz/replay_batch by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_batch -max_len=65536 tests/fuzz/corpus/batch fixtures
 */
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_source *m;
    if (kf_source_memory(&m, data, size) != KF_OK)
        return 0;
    kf_segment_scan_opts o;
    kf_segment_summary sum;

    kf_segment_scan_opts_init(&o);
    o.deep = true;
    o.max_batch_bytes = (size_t)1 << 20;
    (void)kf_segment_scan(m, &o, &sum);
    kf_source_close(m);
    return 0;
}
