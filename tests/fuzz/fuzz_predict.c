/* fuzz_predict.c: fuzz target for `kfsck predict`'s library job
 * (src/jobs/predict*.c: the log dir's checkpoints and .kafka_cleanshutdown,
 * the file actions of every partition directory, recovery, the producer
 * state, retention and the estimate) on a fuzzed directory image. The
 * input describes one log dir:
 *
 *   byte 0      which directories exist (bit i: DIRS[i])
 *   then        entries, each: u8 where (0: the log dir itself, else
 *               DIRS[(where - 1) % NDIRS], created if missing), u8 name
 *               (NAMES[name % NNAMES] in a partition directory,
 *               TOP_NAMES[name % NTOP] in the log dir), u16 BE length,
 *               that many bytes of the file (cut at the input's end)
 *
 * written to a fresh temporary directory and forecast as the command does
 * (both with and without --assume-unclean). Any crash, sanitizer report or
 * hang is a bug; the forecast itself is ignored.
 *
 * Built as build/fuzz/replay_predict by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_predict -max_len=65536 tests/fuzz/corpus/predict
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

/* Partition directories and the names the broker treats specially. */
static const char *const DIRS[] = {
    "orders-0", "orders-1", "__consumer_offsets-3", "lost+found",
    "orders-2.0123456789abcdef0123456789abcdef-delete",
    "orders-0.0123456789abcdef0123456789abcdef-future",
    "orders-3.0123456789abcdef0123456789abcdef-stray", "__cluster_metadata-0",
};
#define NDIRS (sizeof DIRS / sizeof DIRS[0])

static const char *const NAMES[] = {
    "00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex",
    "00000000000000000000.txnindex", "00000000000000000000.snapshot", "00000000000000000050.log",
    "00000000000000000050.index", "00000000000000000050.snapshot", "00000000000000000050.log.swap",
    "00000000000000000050.log.cleaned", "00000000000000000000.log.deleted", "00000000000000000050.index.swap",
    "00000000000000000080.timeindex", "leader-epoch-checkpoint", "partition.metadata", "0000000000000000abc.log",
};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

static const char *const TOP_NAMES[] = {
    "recovery-point-offset-checkpoint", "log-start-offset-checkpoint", "replication-offset-checkpoint",
    "cleaner-offset-checkpoint",        ".kafka_cleanshutdown",        "meta.properties",
};
#define NTOP (sizeof TOP_NAMES / sizeof TOP_NAMES[0])

static void sink_datadir(void *ctx, const kf_predict_datadir *d)
{
    *(volatile uint64_t *)ctx += d->partitions + d->fatal + (uint64_t)d->offsets_lost;
}

static void sink_action(void *ctx, const kf_predict_action *a)
{
    (void)a;
    *(volatile uint64_t *)ctx += 1;
}

static void sink_partition(void *ctx, const kf_predict_partition *p)
{
    (void)p;
    *(volatile uint64_t *)ctx += 2;
}

static void path_of(char *buf, size_t cap, const char *dir, const char *sub, const char *name)
{
    if (sub)
        snprintf(buf, cap, "%s/%s/%s", dir, sub, name);
    else
        snprintf(buf, cap, "%s/%s", dir, name);
}

static void put(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    if (n)
        (void)fwrite(d, 1, n, f);
    fclose(f);
}

/* Removes every file this target can write, then the directories. */
static void clean(const char *dir)
{
    char path[512];
    for (size_t d = 0; d < NDIRS; d++) {
        for (size_t i = 0; i < NNAMES; i++) {
            path_of(path, sizeof path, dir, DIRS[d], NAMES[i]);
            unlink(path);
        }
        path_of(path, sizeof path, dir, NULL, DIRS[d]);
        rmdir(path);
    }
    for (size_t i = 0; i < NTOP; i++) {
        path_of(path, sizeof path, dir, NULL, TOP_NAMES[i]);
        unlink(path);
    }
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char dir[] = "/tmp/kfsck-fuzz-predict.XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char path[512];
    for (size_t d = 0; d < NDIRS; d++)
        if (data[0] & (1u << d)) {
            path_of(path, sizeof path, dir, NULL, DIRS[d]);
            mkdir(path, 0700);
        }
    size_t i = 1;
    while (i + 4 <= size) {
        unsigned where = data[i], name = data[i + 1];
        size_t len = (size_t)data[i + 2] << 8 | data[i + 3];
        i += 4;
        if (len > size - i)
            len = size - i;
        if (where == 0) {
            path_of(path, sizeof path, dir, NULL, TOP_NAMES[name % NTOP]);
        } else {
            const char *sub = DIRS[(where - 1) % NDIRS];
            path_of(path, sizeof path, dir, NULL, sub);
            mkdir(path, 0700);
            path_of(path, sizeof path, dir, sub, NAMES[name % NNAMES]);
        }
        put(path, data + i, len);
        i += len;
    }

    volatile uint64_t seen = 0;
    for (int unclean = 0; unclean < 2; unclean++) {
        kf_predict_opts o = KF_PREDICT_OPTIONS_INIT;
        o.max_batch_bytes = 1 << 20;
        o.assume_unclean = unclean != 0;
        o.has_now = true;
        o.now_ms = 1700000000000;
        o.jobs = 1;
        o.datadir_fn = sink_datadir;
        o.action_fn = sink_action;
        o.partition_fn = sink_partition;
        o.ctx = (void *)&seen;
        char *dirs[] = {dir};
        kf_predict_summary sum;
        if (kf_predict_run(dirs, 1, &o, &sum) == KF_OK)
            seen += sum.partitions + sum.fatal;
    }
    clean(dir);
    return 0;
}
