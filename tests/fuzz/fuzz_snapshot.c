/* fuzz_snapshot.c: fuzz target for the producer-state snapshot reader
 * (src/format/producer_snapshot.c). The input bytes are the whole .snapshot
 * file: the header is parsed and every entry the parser says is present is
 * read, from the bytes in memory (kf_producer_snapshot_parse) and from a
 * file read in pieces (kf_producer_snapshot_open: the CRC a block at a
 * time, the entries a window at a time). Checked: both give the same
 * result, header fields and entries. Any crash, sanitizer report or hang is
 * a bug.
 *
 * Built as build/fuzz/replay_snapshot by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_snapshot -max_len=4096 tests/fuzz/corpus/snapshot
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_entry(const kf_producer_snapshot_entry *a, const kf_producer_snapshot_entry *b)
{
    return a->producer_id == b->producer_id && a->producer_epoch == b->producer_epoch &&
           a->last_sequence == b->last_sequence && a->last_offset == b->last_offset &&
           a->offset_delta == b->offset_delta && a->timestamp == b->timestamp &&
           a->coordinator_epoch == b->coordinator_epoch && a->current_txn_first_offset == b->current_txn_first_offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_producer_snapshot s;
    int rc = kf_producer_snapshot_parse(size ? data : NULL, size, &s);
    const char *path;
    int fd = fuzz_memfd(&path);
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    kf_producer_snapshot f;
    int frc = kf_producer_snapshot_open(&f, path);
    if (frc != rc || f.size != s.size || f.version != s.version || f.count != s.count || f.entries != s.entries ||
        f.crc_ok != s.crc_ok || (s.size >= 6 && (f.crc != s.crc || f.crc_computed != s.crc_computed)))
        abort();
    for (uint64_t i = 0; i <= s.entries; i++) { /* one past the listed entries too */
        kf_producer_snapshot_entry a, b;
        kf_producer_snapshot_get(&s, i, &a);
        kf_producer_snapshot_get(&f, i, &b);
        if (!same_entry(&a, &b))
            abort();
    }
    if (kf_producer_snapshot_read_status(&f) != KF_OK)
        abort();
    kf_producer_snapshot_close(&f);
    return 0;
}
