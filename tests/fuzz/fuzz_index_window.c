/* fuzz_index_window.c: fuzz target for the index reader over a file
 * (kf_offset_index_open / kf_time_index_open: src/format/index.c reads a
 * window of 8192 entries at a time and skips the holes of a sparse zero
 * tail) against the same bytes in memory (kf_*_index_init): the entry
 * count, the slots read forwards and backwards, and the problems of the
 * checks (every field, in order) must be the same, and the file's read
 * status KF_OK. The fuzzer's bytes are put next to a window boundary:
 *
 *   byte 0    bit 0: time index (else offset index); bit 1: the file is
 *             sparse (zero slots not written: holes) ; bit 2: the slots
 *             before the fuzzer's are zero (else increasing entries)
 *   bytes 1-8 the base offset, big-endian
 *   byte 9    the fuzzer's slots start this many slots before slot 8192
 *   byte 10   zero slots after them: this times 3
 *   u32 BE    the log size for the offset index check (0xffffffff: none)
 *   the rest  the fuzzer's bytes (a partial last slot makes the size odd)
 *
 * The file is an in-memory file (memfd) read through a kf_source. Any
 * difference, crash, sanitizer report or hang is a bug.
 *
 * Built as build/fuzz/replay_index_window by `make` (see replay.c), and as
 * a libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_index_window -max_len=1024 tests/fuzz/corpus/index_window
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WINDOW_SLOTS 8192 /* IX_WINDOW_SLOTS in src/format/index.c */

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void get(const kf_index *ix, bool time, uint64_t i, int64_t *a, int64_t *b)
{
    if (time)
        kf_time_index_get(ix, i, a, b);
    else
        kf_offset_index_get(ix, i, a, b);
}

static void check(const kf_index *ix, bool time, uint64_t log_size, fuzz_problems *s)
{
    if (time)
        kf_time_index_check(ix, fuzz_on_problem, s);
    else
        kf_offset_index_check(ix, log_size, fuzz_on_problem, s);
}

static bool zero_slot(const uint8_t *file, size_t n, size_t at, size_t es)
{
    for (size_t k = at; k < n && k < at + es; k++)
        if (file[k])
            return false;
    return true;
}

/* Writes the file: whole, or (sparse) only its runs of slots that are not
 * zero, so the zero ones are holes. */
static void write_file(int memfd, const uint8_t *file, size_t n, size_t es, bool sparse)
{
    if (ftruncate(memfd, 0) || ftruncate(memfd, (off_t)n))
        abort();
    for (size_t at = 0; at < n;) {
        if (sparse && zero_slot(file, n, at, es)) {
            at += es;
            continue;
        }
        size_t end = at;
        while (end < n && !(sparse && zero_slot(file, n, end, es)))
            end += es;
        end = end < n ? end : n;
        if (pwrite(memfd, file + at, end - at, (off_t)at) != (ssize_t)(end - at))
            abort();
        at = end;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 15)
        return 0;
    const char *path;
    int memfd = fuzz_memfd(&path);
    bool time = data[0] & 1, sparse = data[0] & 2, zero_before = data[0] & 4;
    uint64_t b = 0;
    for (int i = 1; i < 9; i++)
        b = b << 8 | data[i];
    int64_t base = (int64_t)b;
    size_t es = time ? 12 : 8;
    size_t start = WINDOW_SLOTS - data[9];
    size_t tail = (size_t)data[10] * 3;
    uint32_t ls = (uint32_t)data[11] << 24 | (uint32_t)data[12] << 16 | (uint32_t)data[13] << 8 | data[14];
    uint64_t log_size = ls == 0xffffffffu ? UINT64_MAX : ls;
    const uint8_t *mine = data + 15;
    size_t mn = size - 15;

    size_t n = start * es + mn + tail * es;
    uint8_t *file = calloc(1, n);
    if (!file)
        return 0;
    if (!zero_before)
        for (size_t i = 0; i < start; i++) { /* entry i: relative offset i + 1, position / timestamp 10 i */
            uint8_t *p = file + i * es;
            if (time) {
                put32(p + 4, (uint32_t)(10 * i));
                put32(p + 8, (uint32_t)(i + 1));
            } else {
                put32(p, (uint32_t)(i + 1));
                put32(p + 4, (uint32_t)(10 * i));
            }
        }
    memcpy(file + start * es, mine, mn);
    write_file(memfd, file, n, es, sparse);

    kf_index mem, win;
    kf_source *src;
    if (time)
        kf_time_index_init(&mem, file, n, base);
    else
        kf_offset_index_init(&mem, file, n, base);
    if (kf_source_open(&src, path, 0) != KF_OK)
        abort();
    int rc = time ? kf_time_index_open(&win, src, base) : kf_offset_index_open(&win, src, base);
    if (rc != KF_OK) {
        kf_source_close(src);
        free(file);
        return 0;
    }
    if (mem.slots != win.slots || mem.entries != win.entries || mem.size != win.size)
        abort();
    fuzz_problems sm = {FUZZ_HASH_INIT, 0}, sw = sm;
    check(&mem, time, log_size, &sm);
    check(&win, time, log_size, &sw);
    if (!fuzz_problems_equal(&sm, &sw)) {
        fprintf(stderr, "fuzz_index_window: %llu problems in memory, %llu from the file\n",
                (unsigned long long)sm.n, (unsigned long long)sw.n);
        abort();
    }
    /* the slots from a little before the fuzzer's forwards (the generated
     * ones before them the checks have read), then backwards 1021 slots at a time
     * (each a new window), and past the end */
    for (uint64_t i = start > 64 ? start - 64 : 0; i <= mem.slots; i++) {
        int64_t a1, b1, a2, b2;
        get(&mem, time, i, &a1, &b1);
        get(&win, time, i, &a2, &b2);
        if (a1 != a2 || b1 != b2)
            abort();
    }
    for (uint64_t i = mem.slots; i-- > 0;) {
        int64_t a1, b1, a2, b2;
        get(&mem, time, i, &a1, &b1);
        get(&win, time, i, &a2, &b2);
        if (a1 != a2 || b1 != b2)
            abort();
        i = i > 1021 ? i - 1020 : 0; /* each step back reads a new window from there on */
    }
    if (kf_index_read_status(&win) != KF_OK)
        abort();
    kf_index_close(&win);
    kf_source_close(src);
    free(file);
    return 0;
}
