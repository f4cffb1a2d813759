/* fuzz_schema_ids.c: fuzz target for the Confluent Schema Registry framing
 * reader and the id tally (src/records/schema_ids.c). The input is cut into
 * pieces at every 0xff byte; each piece is read as a key or value and
 * counted. Any crash, sanitizer report or hang is a bug.
 *
 * Built as build/fuzz/replay_schema_ids by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_schema_ids -max_len=4096 tests/fuzz/corpus/schema_ids
 */
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_schema_tally *t;
    if (kf_schema_tally_new(&t) != KF_OK)
        return 0;
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != 0xff)
            continue;
        kf_schema_frame f;
        /* an empty piece stands for a null key or value */
        int32_t len = i == start ? -1 : (int32_t)(i - start);
        if (kf_schema_frame_read(len < 0 ? NULL : data + start, len, &f) == KF_SCHEMA_GUID) {
            char s[37];
            kf_schema_guid_str(f.guid, s);
        }
        kf_schema_tally_add(t, &f);
        start = i + 1;
    }
    volatile uint64_t sink = kf_schema_tally_omitted(t);
    for (size_t i = 0; i < kf_schema_tally_count(t); i++) {
        kf_schema_frame f;
        uint64_t n;
        kf_schema_tally_get(t, i, &f, &n);
        sink += n;
    }
    (void)sink;
    kf_schema_tally_free(t);
    return 0;
}
