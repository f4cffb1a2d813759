/* fuzz_segment_read: fuzz target for the streaming segment reader's piece
 * boundaries (src/format/reader*.c): the same .log bytes scanned from memory
 * and from a file read in tiny chunks (64 bytes and up, so batches, their
 * headers and the resynchronisation past damage straddle reads), on the
 * caller's thread or, every fourth input, with reader threads. The two scans
 * must agree on the summary, on every batch handed on (position, size,
 * offsets, CRC) and on every problem (all fields, in order).
 *
 *   byte 0   bits 0-5: the chunk: 64 + this * 37 bytes; bit 6: deep (records
 *            decoded); bit 7: no resynchronisation past damage
 *   byte 1   bits 0-1: 3 = three reader threads for the file (else none)
 *   the rest the .log segment
 *
 * The file is an in-memory file (memfd). Any difference, crash, sanitizer
 * report or hang is a bug.
 *
 * Built as build/fuzz/replay_segment_read by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_segment_read -max_len=16384 tests/fuzz/corpus/segment_read
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The batches one scan handed on, and its problems. */
typedef struct seen {
    uint64_t hash, batches;
    fuzz_problems problems;
} seen;

static int on_batch(void *ctx, const kf_batch *b)
{
    seen *s = ctx;
    s->batches++;
    fuzz_hash(&s->hash, &b->position, sizeof b->position);
    fuzz_hash(&s->hash, &b->size, sizeof b->size);
    fuzz_hash(&s->hash, &b->magic, sizeof b->magic);
    fuzz_hash(&s->hash, &b->base_offset, sizeof b->base_offset);
    fuzz_hash(&s->hash, &b->last_offset, sizeof b->last_offset);
    fuzz_hash(&s->hash, &b->count, sizeof b->count);
    fuzz_hash(&s->hash, &b->crc, sizeof b->crc);
    fuzz_hash(&s->hash, &b->crc_ok, sizeof b->crc_ok);
    fuzz_hash(&s->hash, b->bytes, b->size);
    return 0;
}

static int scan(kf_source *src, const kf_segment_scan_opts *base, size_t chunk, unsigned threads, seen *s,
                kf_segment_summary *sum)
{
    kf_segment_scan_opts o = *base;
    o.chunk_bytes = chunk;
    o.threads = threads;
    o.batch_fn = on_batch;
    o.ctx = s;
    o.problem_fn = fuzz_on_problem;
    o.problem_ctx = &s->problems;
    memset(sum, 0, sizeof *sum);
    return kf_segment_scan(src, &o, sum);
}

static bool same_summary(const kf_segment_summary *a, const kf_segment_summary *b)
{
    return a->size == b->size && a->batches == b->batches && a->records == b->records &&
           a->bad_batches == b->bad_batches && a->valid_bytes == b->valid_bytes && a->has_offsets == b->has_offsets &&
           (!a->has_offsets || (a->first_offset == b->first_offset && a->last_offset == b->last_offset)) &&
           a->max_timestamp == b->max_timestamp && a->errors == b->errors && a->warnings == b->warnings &&
           a->has_recovered_offsets == b->has_recovered_offsets &&
           (!a->has_recovered_offsets || a->recovered_last_offset == b->recovered_last_offset);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t chunk = 64 + (size_t)(data[0] & 63) * 37;
    unsigned threads = (data[1] & 3) == 3 ? 3 : 1;
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.deep = data[0] & 64;
    o.no_resync = data[0] & 128;
    o.max_batch_bytes = (size_t)1 << 20;
    const uint8_t *log = data + 2;
    size_t n = size - 2;

    const char *path;
    int fd = fuzz_memfd(&path);
    if (ftruncate(fd, 0) || pwrite(fd, log, n, 0) != (ssize_t)n)
        abort();
    kf_source *mem, *file;
    if (kf_source_memory(&mem, n ? log : NULL, n) != KF_OK)
        return 0;
    if (kf_source_open(&file, path, 0) != KF_OK)
        abort();
    seen sm = {FUZZ_HASH_INIT, 0, {FUZZ_HASH_INIT, 0}}, sf = sm;
    kf_segment_summary um, uf;
    int rm = scan(mem, &o, 0, 1, &sm, &um);
    int rf = scan(file, &o, chunk, threads, &sf, &uf);
    if (rm != rf || sm.hash != sf.hash || sm.batches != sf.batches || !fuzz_problems_equal(&sm.problems, &sf.problems) ||
        !same_summary(&um, &uf)) {
        fprintf(stderr,
                "fuzz_segment_read: from memory rc %d, %llu batches, %llu problems; from the file (%zu-byte "
                "chunks, %u threads) rc %d, %llu batches, %llu problems\n",
                rm, (unsigned long long)sm.batches, (unsigned long long)sm.problems.n, chunk, threads, rf,
                (unsigned long long)sf.batches, (unsigned long long)sf.problems.n);
        abort();
    }
    kf_source_close(mem);
    kf_source_close(file);
    return 0;
}
