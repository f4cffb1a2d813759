/* fuzz_compaction.c: fuzz target for `kfsck compaction`'s library job
 * (src/jobs/compaction*.c: the one read feeding the txns job, the segment
 * timestamps and the key table, the data dir's checkpoints, the cleaner's
 * rule). The input is split into the files of one __consumer_offsets
 * partition in a data dir:
 *
 *   byte 0       flags: bit 0 = a cleaner-offset-checkpoint, bit 1 = a
 *                replication-offset-checkpoint, bit 2 = a log-start-offset-
 *                checkpoint (each with the offset below), bit 3 = a
 *                min.compaction.lag.ms of one minute
 *   u16 BE C     the checkpoints' offset
 *   u16 BE L     then L bytes: segment 00000000000000000000.log
 *   the rest     segment 00000000000000000050.log (the active one)
 *
 * which are written to a fresh temporary directory and read as the command
 * reads them. Any crash, sanitizer report or hang is a bug; the result
 * itself is ignored.
 *
 * Built as build/fuzz/replay_compaction by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_compaction -max_len=8192 tests/fuzz/corpus/compaction
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink_problem(void *ctx, const kf_problem *p) { *(volatile uint64_t *)ctx += strlen(p->message); }

static int sink_result(void *ctx, const kf_compaction_result *r)
{
    *(volatile uint64_t *)ctx += r->keys + r->records + r->reclaimable_bytes + r->cleanable.cleanable_bytes +
                                 (uint64_t)r->cleanable.first_uncleanable_offset + (r->pinned ? 1u : 0u);
    return KF_OK;
}

static bool put(const char *dir, const char *name, const void *d, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static void drop(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    unsigned flags = data[0];
    unsigned offset = (unsigned)data[1] << 8 | data[2];
    size_t first = (size_t)data[3] << 8 | data[4];
    const uint8_t *p = data + 5;
    size_t n = size - 5;
    if (first > n)
        first = n;

    char dir[] = "/tmp/kfsck-fuzz-compaction.XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char part[128];
    snprintf(part, sizeof part, "%s/__consumer_offsets-0", dir);
    bool ok = mkdir(part, 0700) == 0;
    ok = ok && put(part, "00000000000000000000.log", p, first);
    ok = ok && put(part, "00000000000000000050.log", p + first, n - first);
    char ckpt[64];
    int len = snprintf(ckpt, sizeof ckpt, "0\n1\n__consumer_offsets 0 %u\n", offset);
    static const char *const names[] = {"cleaner-offset-checkpoint", "replication-offset-checkpoint",
                                        "log-start-offset-checkpoint"};
    for (int i = 0; i < 3 && ok; i++)
        if (flags & (1u << i))
            ok = put(dir, names[i], ckpt, (size_t)len);

    volatile uint64_t seen = 0;
    if (ok) {
        char *paths[] = {dir};
        kf_inputs in;
        if (kf_inputs_collect(&in, paths, 1, NULL, NULL) != KF_ERR_NOMEM) {
            kf_compaction_opts o = KF_COMPACTION_OPTIONS_INIT;
            o.now_ms = 1700000000000;
            o.has_min_compaction_lag_ms = (flags & 8) != 0;
            o.min_compaction_lag_ms = 60000;
            o.read.max_batch_bytes = 1 << 20;
            o.problem_fn = sink_problem;
            o.problem_ctx = (void *)&seen;
            o.read.problem_fn = sink_problem;
            o.read.problem_ctx = (void *)&seen;
            o.paths = paths;
            o.npaths = 1;
            kf_compaction_run(&in, &o, sink_result, (void *)&seen, NULL);
        }
        kf_inputs_free(&in);
    }
    for (int i = 0; i < 3; i++)
        drop(dir, names[i]);
    drop(part, "00000000000000000000.log");
    drop(part, "00000000000000000050.log");
    rmdir(part);
    rmdir(dir);
    return 0;
}
