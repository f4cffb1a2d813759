/* fuzz_remote.c: fuzz target for `kfsck remote`'s library job
 * (src/jobs/remote/: the __remote_log_metadata replay and the broker's state
 * rules, the local copy and its epoch lineage, the offsets in no tier, the
 * storage listing's lines and keys, the remote-log-index-cache checks). The
 * input is split into the files of one broker's data dir:
 *
 *   byte 0       flags: bit 0 = the listing below is given (--listing),
 *                bit 1 = a local partition orders-0 (an empty segment
 *                at offset 100, the log-start checkpoint's entry 0),
 *                bit 2 = the index cache entry below
 *   u16 BE M     then M bytes: __remote_log_metadata-0/00000000000000000000.log
 *   u16 BE E     then E bytes: orders-0/leader-epoch-checkpoint
 *   u16 BE L     then L bytes: the listing
 *   the rest     remote-log-index-cache/5_AAAAAAAAAAAAAAAAAAAAAA.index
 *                (with an empty .timeindex and .txnindex beside it)
 *
 * which are written to a fresh temporary directory and read as the command
 * reads them. Any crash, sanitizer report or hang is a bug; the result
 * itself is ignored. Seeds: tools/gen/remotefmt.py seeds DIR.
 *
 * Built as build/fuzz/replay_remote by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_remote -max_len=16384 tests/fuzz/corpus/remote
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

static int sink_partition(void *ctx, const kf_remote_partition *p)
{
    uint64_t h = p->offsets_in_no_tier + p->remote_bytes + p->n_findings + p->n_locals;
    for (size_t i = 0; i < p->n_findings; i++)
        h += (uint64_t)p->findings[i].start_offset + p->findings[i].n_keys +
             (p->findings[i].reason ? strlen(p->findings[i].reason) : 0);
    *(volatile uint64_t *)ctx += h;
    return KF_OK;
}

static int sink_index(void *ctx, const kf_remote_index *e)
{
    *(volatile uint64_t *)ctx += strlen(e->error) + strlen(e->code);
    return KF_OK;
}

static bool put(const char *dir, const char *name, const void *d, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* The next u16-length piece of the input. */
static const uint8_t *take(const uint8_t **p, size_t *n, size_t *len)
{
    if (*n < 2) {
        *len = 0;
        return *p;
    }
    size_t want = (size_t)(*p)[0] << 8 | (*p)[1];
    *p += 2;
    *n -= 2;
    if (want > *n)
        want = *n;
    const uint8_t *at = *p;
    *p += want;
    *n -= want;
    *len = want;
    return at;
}

static void rmtree(const char *dir)
{
    static const char *const files[] = {
        "__remote_log_metadata-0/00000000000000000000.log", "orders-0/00000000000000000100.log",
        "orders-0/leader-epoch-checkpoint", "remote-log-index-cache/5_AAAAAAAAAAAAAAAAAAAAAA.index",
        "remote-log-index-cache/5_AAAAAAAAAAAAAAAAAAAAAA.timeindex",
        "remote-log-index-cache/5_AAAAAAAAAAAAAAAAAAAAAA.txnindex", "listing", "log-start-offset-checkpoint",
        "meta.properties"};
    static const char *const dirs[] = {"__remote_log_metadata-0", "orders-0", "remote-log-index-cache"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, dirs[i]);
        rmdir(path);
    }
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned flags = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1, mlen, elen, llen;
    const uint8_t *meta = take(&p, &n, &mlen);
    const uint8_t *epochs = take(&p, &n, &elen);
    const uint8_t *listing = take(&p, &n, &llen);

    char dir[] = "/tmp/kfsck-fuzz-remote.XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char sub[600], lpath[600];
    static const char ckpt[] = "0\n1\norders 0 0\n";
    static const char meta_props[] = "version=1\nnode.id=1\ncluster.id=fuzz\n";
    bool ok = put(dir, "meta.properties", meta_props, sizeof meta_props - 1) &&
              put(dir, "log-start-offset-checkpoint", ckpt, sizeof ckpt - 1);
    snprintf(sub, sizeof sub, "%s/__remote_log_metadata-0", dir);
    ok = ok && mkdir(sub, 0700) == 0 && put(sub, "00000000000000000000.log", meta, mlen);
    if (ok && (flags & 2)) {
        snprintf(sub, sizeof sub, "%s/orders-0", dir);
        ok = mkdir(sub, 0700) == 0 && put(sub, "00000000000000000100.log", "", 0) &&
             put(sub, "leader-epoch-checkpoint", epochs, elen);
    }
    if (ok && (flags & 4)) {
        snprintf(sub, sizeof sub, "%s/remote-log-index-cache", dir);
        ok = mkdir(sub, 0700) == 0 && put(sub, "5_AAAAAAAAAAAAAAAAAAAAAA.index", p, n) &&
             put(sub, "5_AAAAAAAAAAAAAAAAAAAAAA.timeindex", p, n / 12 * 12) &&
             put(sub, "5_AAAAAAAAAAAAAAAAAAAAAA.txnindex", "", 0);
    }
    snprintf(lpath, sizeof lpath, "%s/listing", dir);
    ok = ok && put(dir, "listing", listing, llen);

    if (ok) {
        volatile uint64_t sink = 0;
        kf_inputs in;
        char *paths[] = {dir};
        if (kf_inputs_collect(&in, paths, 1, NULL, NULL) != KF_ERR_NOMEM) {
            kf_remote_opts o = KF_REMOTE_OPTIONS_INIT;
            o.now_ms = 1767225600000 + 3600000;
            o.problem_fn = sink_problem;
            o.problem_ctx = (void *)&sink;
            o.read.problem_fn = sink_problem;
            o.read.problem_ctx = (void *)&sink;
            o.listing_path = (flags & 1) ? lpath : NULL;
            o.paths = paths;
            o.npaths = 1;
            kf_remote_totals tot;
            kf_remote_run(&in, &o, sink_partition, sink_index, (void *)&sink, &tot);
        }
        kf_inputs_free(&in);
    }
    rmtree(dir);
    return 0;
}
