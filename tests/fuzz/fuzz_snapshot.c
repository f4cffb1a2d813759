/* fuzz_snapshot.c: fuzz target for the producer-state snapshot reader
 * (src/format/producer_snapshot.c). The input bytes are the whole .snapshot file: the header
 * is parsed and every entry the parser says is present is read. Any crash,
 * sanitizer report or hang is a bug; the result itself is ignored.
 *
 * Built as build/fuzz/replay_snapshot by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_snapshot -max_len=4096 tests/fuzz/corpus/snapshot
 */
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_producer_snapshot s;
    volatile uint64_t sink = 0; /* unsigned: wraps, no UB */
    (void)kf_producer_snapshot_parse(size ? data : NULL, size, &s);
    for (uint64_t i = 0; i < s.entries; i++) {
        kf_producer_snapshot_entry e;
        kf_producer_snapshot_get(&s, i, &e);
        sink += (uint64_t)(e.producer_id ^ e.last_offset);
    }
    /* reading one past the listed entries must be safe too */
    kf_producer_snapshot_entry e;
    kf_producer_snapshot_get(&s, s.entries, &e);
    (void)sink;
    return 0;
}
