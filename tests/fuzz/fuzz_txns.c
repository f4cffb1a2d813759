/* fuzz_txns.c: fuzz target for `kfsck txns`' library jobs: the txns job
 * (src/jobs/txns/txns.c: open transactions, markers, the .txnindex walk, the
 * producer snapshot at the log start, over the open-transactions-only
 * producer state) and the coordinator view (src/jobs/txns/txn_coord.c). The input
 * is split into the files of one partition:
 *
 *   byte 0       flags: bit 0 = the segment's base offset is 100 and a
 *                producer snapshot follows (else base 0, no snapshot)
 *   u16 BE L     then L bytes: the segment's .txnindex
 *   (bit 0) u16 BE S, then S bytes: 00000000000000000100.snapshot
 *   the rest     the .log segment
 *
 * which are written to a fresh temporary directory and read through the
 * partition reader, as the command does; every batch also goes to the
 * coordinator view as a __transaction_state batch. Any crash, sanitizer
 * report or hang is a bug; the result itself is ignored.
 *
 * Built as build/fuzz/replay_txns by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_txns -max_len=8192 tests/fuzz/corpus/txns
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink_report(void *ctx, const kf_txn_report *r)
{
    *(volatile uint64_t *)ctx += (uint64_t)r->txn.first_offset + r->txn.batches + (r->hanging ? 1u : 0u);
}

static void sink_problem(void *ctx, const kf_problem *p) { *(volatile uint64_t *)ctx += strlen(p->message); }

static bool take(const uint8_t **p, size_t *n, size_t k, const uint8_t **out)
{
    if (*n < k)
        return false;
    *out = *p;
    *p += k;
    *n -= k;
    return true;
}

static bool put(const char *dir, const char *name, const uint8_t *d, size_t n, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *h, *ix = NULL, *snap = NULL;
    size_t n = size, ixn = 0, snapn = 0;
    if (!take(&p, &n, 1, &h))
        return 0;
    bool at100 = h[0] & 1;
    if (!take(&p, &n, 2, &h) || !take(&p, &n, ixn = (size_t)h[0] << 8 | h[1], &ix))
        return 0;
    if (at100 && (!take(&p, &n, 2, &h) || !take(&p, &n, snapn = (size_t)h[0] << 8 | h[1], &snap)))
        return 0;

    char dir[] = "/tmp/kfsck-fuzz-txns.XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    const char *stem = at100 ? "00000000000000000100" : "00000000000000000000";
    char name[64], logp[128] = "", ixp[128] = "", snapp[128] = "";
    snprintf(name, sizeof name, "%s.log", stem);
    bool ok = put(dir, name, p, n, logp, sizeof logp);
    snprintf(name, sizeof name, "%s.txnindex", stem);
    ok = ok && put(dir, name, ix, ixn, ixp, sizeof ixp);
    if (at100)
        ok = ok && put(dir, "00000000000000000100.snapshot", snap, snapn, snapp, sizeof snapp);

    volatile uint64_t sink = 0;
    if (ok) {
        char *segs[1] = {logp};
        int64_t bases[1] = {at100 ? 100 : 0};
        kf_partition_copy c = {dir, segs, bases, 1};
        kf_partition part = {(char *)"t", 0, &c, 1};

        /* the same bytes as a __transaction_state partition: the coordinator view */
        kf_txn_coord *coord;
        (void)kf_txn_coord_new(&coord); /* NULL when out of memory: then not fed */
        kf_part_reader_opts ro;
        kf_part_reader_opts_init(&ro);
        ro.max_batch_bytes = (size_t)1 << 20;
        ro.problem_fn = sink_problem;
        ro.problem_ctx = (void *)&sink;
        kf_part_reader *r;
        kf_buf buf = {0};
        kf_batch b;
        if (coord && kf_part_reader_open(&r, &part, &ro) == KF_OK) {
            while (kf_part_reader_next(r, &b) == 1)
                kf_txn_coord_batch(coord, 0, &b, &buf, ro.max_batch_bytes, sink_problem, (void *)&sink);
            kf_part_reader_close(r, NULL);
        }

        kf_txns_opts o;
        kf_txns_opts_init(&o);
        o.max_batch_bytes = ro.max_batch_bytes;
        o.has_hanging_ms = true;
        o.hanging_ms = 1000;
        o.coord = coord;
        o.problem_fn = sink_problem;
        o.problem_ctx = (void *)&sink;
        kf_txns *t;
        if (kf_txns_open(&t, &part, &o) == KF_OK) {
            if (kf_part_reader_open(&r, &part, &ro) == KF_OK) {
                while (kf_part_reader_next(r, &b) == 1)
                    if (kf_txns_batch(t, &b, kf_part_reader_file(r)) != KF_OK)
                        break;
                kf_part_result res;
                kf_part_reader_close(r, &res);
                kf_txns_result tr;
                kf_txns_finish(t, res.uncovered > 0, sink_report, (void *)&sink, &tr);
                sink += tr.open_transactions + tr.txnindex_missing + tr.txnindex_extra;
            }
            kf_txns_close(t);
        }
        kf_buf_free(&buf);
        kf_txn_coord_free(coord);
    }
    if (logp[0])
        unlink(logp);
    if (ixp[0])
        unlink(ixp);
    if (snapp[0])
        unlink(snapp);
    rmdir(dir);
    (void)sink;
    return 0;
}
