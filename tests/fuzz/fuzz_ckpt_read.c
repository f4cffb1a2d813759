/* fuzz_ckpt_read.c: fuzz target for the checkpoint reader that reads a file
 * in pieces (kf_checkpoint_read over src/format/checkpoint_text.c's
 * kf_text_stream, 64 KiB at a time), against kf_checkpoint_parse of the
 * same bytes in memory: the two must hand on the same entries and problems
 * (every field, in the same order) and return the same result and version;
 * a leader-epoch file read by kf_leader_epochs_read must list the same
 * entries and positions, and say it is valid when the parse said KF_OK;
 * cut at an entry's start it keeps those up to it and counts the rest; and
 * kf_epoch_stream hands out the same entries one by one (none unless valid).
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
#include <unistd.h>

#include "format/epoch_stream.h"
#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_epoch(const kf_leader_epoch *a, const kf_leader_epoch *b)
{
    return a->epoch == b->epoch && a->start_offset == b->start_offset;
}

/* What one reading handed on: the entries (count, hash of every field),
 * the leader epochs alone as kf_leader_epochs_read keeps them, the problems. */
typedef struct seen {
    uint64_t hash, entries, epochs_hash;
    fuzz_problems problems;
} seen;

#define SEEN_INIT {FUZZ_HASH_INIT, 0, FUZZ_HASH_INIT, {FUZZ_HASH_INIT, 0}}

static void on_entry(void *ctx, const kf_checkpoint_entry *e)
{
    seen *s = ctx;
    s->entries++;
    if (e->topic)
        fuzz_hash(&s->hash, e->topic, strlen(e->topic) + 1);
    fuzz_hash(&s->hash, &e->partition, sizeof e->partition);
    fuzz_hash(&s->hash, &e->epoch, sizeof e->epoch);
    fuzz_hash(&s->hash, &e->offset, sizeof e->offset);
    fuzz_hash(&s->hash, &e->position, sizeof e->position);
    if (!e->topic) {
        fuzz_hash(&s->epochs_hash, &e->epoch, sizeof e->epoch);
        fuzz_hash(&s->epochs_hash, &e->offset, sizeof e->offset);
        fuzz_hash(&s->epochs_hash, &e->position, sizeof e->position);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    const char *memfd_path;
    int memfd = fuzz_memfd(&memfd_path);
    static const char fillers[8] = {'0', ' ', 'a', '\n', '\r', '9', '-', '\t'};
    int kind = data[0] & 1 ? KF_CHECKPOINT_LEADER_EPOCH : KF_CHECKPOINT_OFFSETS;
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
    seen mem = SEEN_INIT, piece = SEEN_INIT;
    int32_t vm = -7, vp = -7;
    int rm = kf_checkpoint_parse(n ? file : NULL, n, kind, &vm, on_entry, &mem, fuzz_on_problem, &mem.problems);
    int rp = kf_checkpoint_read(memfd_path, kind, &vp, on_entry, &piece, fuzz_on_problem, &piece.problems);
    if (rm != rp || vm != vp || mem.entries != piece.entries || mem.hash != piece.hash ||
        !fuzz_problems_equal(&mem.problems, &piece.problems)) {
        fprintf(stderr, "fuzz_ckpt_read: in memory rc %d version %d, %llu entries, %llu problems; "
                        "in pieces rc %d version %d, %llu entries, %llu problems\n",
                rm, (int)vm, (unsigned long long)mem.entries, (unsigned long long)mem.problems.n, rp, (int)vp,
                (unsigned long long)piece.entries, (unsigned long long)piece.problems.n);
        abort();
    }
    if (kind == KF_CHECKPOINT_LEADER_EPOCH) { /* the list the jobs use: the same entries and positions */
        kf_leader_epochs l;
        fuzz_problems lp = {FUZZ_HASH_INIT, 0};
        if (kf_leader_epochs_read(memfd_path, INT64_MAX, true, &l, fuzz_on_problem, &lp) != KF_OK)
            abort();
        uint64_t h = FUZZ_HASH_INIT;
        for (size_t i = 0; i < l.n; i++) {
            fuzz_hash(&h, &l.entries[i].epoch, sizeof l.entries[i].epoch);
            fuzz_hash(&h, &l.entries[i].start_offset, sizeof l.entries[i].start_offset);
            fuzz_hash(&h, &l.positions[i], sizeof l.positions[i]);
        }
        if (!l.present || !l.read || l.valid != (rm == KF_OK) || l.n != mem.entries || h != mem.epochs_hash ||
            !fuzz_problems_equal(&lp, &mem.problems))
            abort();
        /* cut at an entry's start: those up to it kept, the rest counted */
        if (l.n) {
            int64_t cut = l.entries[l.n / 2].start_offset;
            kf_leader_epochs c;
            if (kf_leader_epochs_read(memfd_path, cut, false, &c, NULL, NULL) != KF_OK)
                abort();
            size_t kept = 0;
            for (size_t i = 0; i < l.n; i++)
                kept += l.entries[i].start_offset <= cut;
            if (c.n != kept || c.n + c.n_beyond != l.n)
                abort();
            for (size_t i = 0, j = 0; i < l.n; i++)
                if (l.entries[i].start_offset <= cut && !same_epoch(&c.entries[j++], &l.entries[i]))
                    abort();
            kf_leader_epochs_free(&c);
        }
        /* entry by entry: the same entries when the file parses whole, else none */
        kf_epoch_stream st;
        if (kf_epoch_stream_open(&st, memfd_path, NULL, NULL) != KF_OK || st.valid != l.valid)
            abort();
        kf_leader_epoch e;
        size_t k = 0;
        while (kf_epoch_stream_next(&st, &e) == 1) {
            if (!l.valid || k >= l.n || !same_epoch(&e, &l.entries[k]))
                abort();
            k++;
        }
        if (l.valid && k != l.n)
            abort();
        kf_epoch_stream_close(&st);
        kf_leader_epochs_free(&l);
    }
    free(file);
    return 0;
}
