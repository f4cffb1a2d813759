/* fuzz_ckpt_read.c: fuzz target for the checkpoint reader that reads a file
 * in pieces (kf_checkpoint_read over src/format/checkpoint_text.c's
 * kf_text_stream, 64 KiB at a time), against kf_checkpoint_parse of the
 * same bytes in memory: the two must hand on the same entries and problems
 * (every field, in the same order) and return the same result and version;
 * a leader-epoch file read by kf_leader_epochs_read must list the same
 * entries and positions, and say it is valid when the parse said KF_OK.
 * The file is the fuzzer's text with a run of one byte put inside it, long
 * enough (about 64 KiB) to carry a line, a line terminator (a \r\n split
 * across two reads) or a long integer across the reader's piece boundary:
 *
 *   byte 0   bit 0: leader-epoch checkpoint (else offset checkpoint);
 *            bits 1-3: the filler byte ('0', ' ', 'a', '\n', '\r', '9', '-', '\t');
 *            bit 4: a short run (0..255 bytes) instead
 *   u16 BE   the run's length: 63 KiB + (this % 2 KiB), or this % 256
 *   byte 3   where the run goes in the text (this % (text length + 1))
 *   the rest the text
 *
 * The file is an in-memory file (memfd) read through its /proc/self/fd
 * path. Any difference, crash, sanitizer report or hang is a bug.
 *
 * Built as build/fuzz/replay_ckpt_read by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_ckpt_read -max_len=4096 tests/fuzz/corpus/ckpt_read
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one reading handed on, as a running hash and counts. */
typedef struct seen {
    uint64_t hash, entries, problems;
    uint64_t epochs_hash; /* of the leader epochs alone, as kf_leader_epochs_read keeps them */
} seen;

static void mix(seen *s, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        s->hash = (s->hash ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
}

static void on_entry(void *ctx, const kf_checkpoint_entry *e)
{
    seen *s = ctx;
    s->entries++;
    if (e->topic)
        mix(s, e->topic, strlen(e->topic) + 1);
    mix(s, &e->partition, sizeof e->partition);
    mix(s, &e->epoch, sizeof e->epoch);
    mix(s, &e->offset, sizeof e->offset);
    mix(s, &e->position, sizeof e->position);
    if (!e->topic) {
        uint64_t h = s->hash;
        s->hash = s->epochs_hash;
        mix(s, &e->epoch, sizeof e->epoch);
        mix(s, &e->offset, sizeof e->offset);
        mix(s, &e->position, sizeof e->position);
        s->epochs_hash = s->hash;
        s->hash = h;
    }
}

static void on_problem(void *ctx, const kf_problem *p)
{
    seen *s = ctx;
    s->problems++;
    mix(s, p->code, strlen(p->code) + 1);
    mix(s, &p->severity, sizeof p->severity);
    mix(s, &p->position, sizeof p->position);
    mix(s, p->message, strlen(p->message) + 1);
}

static int memfd = -1;
static char memfd_path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    if (memfd < 0) {
        memfd = memfd_create("fuzz_ckpt_read", 0);
        if (memfd < 0)
            abort();
        snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    }
    static const char fillers[8] = {'0', ' ', 'a', '\n', '\r', '9', '-', '\t'};
    int kind = data[0] & 1 ? KF_CKPT_LEADER_EPOCH : KF_CKPT_OFFSETS;
    char fill = fillers[(data[0] >> 1) & 7];
    unsigned u16 = (unsigned)data[1] << 8 | data[2];
    size_t run = data[0] & 16 ? u16 % 256 : ((size_t)63 << 10) + u16 % 2048;
    const uint8_t *text = data + 4;
    size_t tn = size - 4, at = data[3] % (tn + 1);

    size_t n = tn + run;
    uint8_t *file = malloc(n ? n : 1);
    if (!file)
        return 0;
    memcpy(file, text, at);
    memset(file + at, fill, run);
    memcpy(file + at + run, text + at, tn - at);

    if (ftruncate(memfd, 0) || pwrite(memfd, file, n, 0) != (ssize_t)n)
        abort();
    seen mem = {0xcbf29ce484222325ull, 0, 0, 0xcbf29ce484222325ull}, piece = mem;
    int32_t vm = -7, vp = -7;
    int rm = kf_checkpoint_parse(n ? file : NULL, n, kind, &vm, on_entry, &mem, on_problem, &mem);
    int rp = kf_checkpoint_read(memfd_path, kind, &vp, on_entry, &piece, on_problem, &piece);
    if (rm != rp || vm != vp || mem.entries != piece.entries || mem.problems != piece.problems ||
        mem.hash != piece.hash) {
        fprintf(stderr, "fuzz_ckpt_read: in memory rc %d version %d, %llu entries, %llu problems; "
                        "in pieces rc %d version %d, %llu entries, %llu problems\n",
                rm, (int)vm, (unsigned long long)mem.entries, (unsigned long long)mem.problems, rp, (int)vp,
                (unsigned long long)piece.entries, (unsigned long long)piece.problems);
        abort();
    }
    if (kind == KF_CKPT_LEADER_EPOCH) { /* the list the jobs use: the same entries and positions */
        kf_leader_epochs l;
        seen lp = {0xcbf29ce484222325ull, 0, 0, 0xcbf29ce484222325ull};
        if (kf_leader_epochs_read(memfd_path, true, &l, on_problem, &lp) != KF_OK)
            abort();
        seen ls = lp;
        ls.hash = ls.epochs_hash;
        for (size_t i = 0; i < l.n; i++) {
            mix(&ls, &l.entries[i].epoch, sizeof l.entries[i].epoch);
            mix(&ls, &l.entries[i].start_offset, sizeof l.entries[i].start_offset);
            mix(&ls, &l.positions[i], sizeof l.positions[i]);
        }
        if (!l.present || !l.read || l.valid != (rm == KF_OK) || l.n != mem.entries || ls.hash != mem.epochs_hash ||
            lp.problems != mem.problems)
            abort();
        kf_leader_epochs_free(&l);
    }
    free(file);
    return 0;
}
