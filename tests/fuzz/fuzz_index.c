/* fuzz_index.c: fuzz target for the index readers (src/format/index.c). The first
 * input byte picks the kind — offset index, time index or transaction index —
 * and the next 8 bytes give the base offset (so offsets near INT64 limits are
 * reached); the rest is the file. Every entry is read and every sanity check
 * run (the offset index with and without a log size). A transaction index is
 * also read from a file in pieces (kf_index_open_path): the same entries,
 * problems and sanity verdict as its bytes in memory. Any crash, sanitizer
 * report or hang is a bug; the findings themselves are ignored.
 *
 * Built as build/fuzz/replay_index by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_index -max_len=4096 tests/fuzz/corpus/index
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(void *ctx, const kf_problem *p)
{
    (void)ctx;
    (void)p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9)
        return 0;
    uint8_t kind = data[0] % 3;
    uint64_t b = 0;
    for (int i = 1; i < 9; i++)
        b = b << 8 | data[i];
    int64_t base = (int64_t)b;
    data += 9;
    size -= 9;
    volatile uint64_t sink = 0; /* unsigned: wraps, no UB */

    if (kind == 0 || kind == 1) {
        kf_index ix;
        if (kind == 0)
            kf_offset_index_init(&ix, size ? data : NULL, size, base);
        else
            kf_time_index_init(&ix, size ? data : NULL, size, base);
        for (uint64_t i = 0; i < ix.slots; i++) {
            int64_t a, c;
            if (kind == 0)
                kf_offset_index_get(&ix, i, &a, &c);
            else
                kf_time_index_get(&ix, i, &a, &c);
            sink += (uint64_t)(a ^ c);
        }
        if (kind == 0) {
            kf_offset_index_check(&ix, UINT64_MAX, ignore, NULL);
            kf_offset_index_check(&ix, size, ignore, NULL);
        } else {
            kf_time_index_check(&ix, ignore, NULL);
        }
    } else {
        uint64_t n = kf_txn_index_count(size);
        for (uint64_t i = 0; i < n; i++) {
            kf_txn_entry e;
            kf_txn_index_get(data, i, &e);
            sink += (uint64_t)e.last_offset;
        }
        kf_index ix, fx;
        kf_txn_index_init(&ix, size ? data : NULL, size, base);
        fuzz_problems pm = {FUZZ_HASH_INIT, 0}, pf = {FUZZ_HASH_INIT, 0};
        kf_txn_index_check(&ix, fuzz_on_problem, &pm);
        char why[200], fwhy[200];
        bool sane = kf_txn_index_sanity(&ix, why, sizeof why);
        const char *path;
        int fd = fuzz_memfd(&path);
        if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
            abort();
        if (kf_index_open_path(&fx, path, KF_TXN_ENTRY_SIZE, base) != KF_OK || fx.entries != ix.entries)
            abort();
        for (uint64_t i = 0; i < ix.entries; i++) {
            kf_txn_entry a, c;
            kf_txn_index_entry(&ix, i, &a);
            kf_txn_index_entry(&fx, i, &c);
            if (a.version != c.version || a.producer_id != c.producer_id || a.first_offset != c.first_offset ||
                a.last_offset != c.last_offset || a.last_stable_offset != c.last_stable_offset)
                abort();
        }
        kf_txn_index_check(&fx, fuzz_on_problem, &pf);
        if (!fuzz_problems_equal(&pm, &pf) || kf_txn_index_sanity(&fx, fwhy, sizeof fwhy) != sane ||
            (!sane && strcmp(why, fwhy)) || kf_index_read_status(&fx) != KF_OK)
            abort();
        kf_index_close(&fx);
    }
    (void)sink;
    return 0;
}
