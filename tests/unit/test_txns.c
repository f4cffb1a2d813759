/* test_txns.c: unit tests for src/jobs/txns/txns.c (one partition's open,
 * hanging and aborted transactions), src/jobs/txns/txn_coord.c (the coordinator's
 * view from __transaction_state) and the open-transactions-only mode of
 * src/format/producer_state.c. Batches are built by hand here; the expected
 * values follow from the rules in cli.md `txns` and Kafka's producer state:
 * interleaved producers and the last stable offset, a batch with a newer
 * epoch not ending a transaction, a fenced producer's ABORT with the bumped
 * epoch, --hanging-ms, an unreadable marker, empty control batches, the
 * .txnindex check (missing, extra, wrong producer, wrong segment), a
 * producer snapshot at the log start, and the coordinator view (last write
 * wins, tombstones, marker_missing), and the coordinator's fields of a JSON
 * line (src/jobs/txns/txns_json.c: a state's name, else its number, else
 * null). */
#include <unistd.h>

#include "testutil.h"

#include "format/producer_state.h"
#include "jobs/txns/txns_json.h"
#include "kfsck/txns.h"

/* ---- hand-built v2 batches -------------------------------------------------- */

enum { MARK_ABORT = 0, MARK_COMMIT = 1, DATA = -1, PLAIN = -2 };

typedef struct feeder {
    kf_txns *t;
    uint8_t buf[8192];
} feeder;

/* kind: DATA (transactional data), PLAIN (no transaction), MARK_ABORT/COMMIT. */
static void feed(feeder *f, int64_t base, int n, int kind, int64_t pid, int16_t epoch, int64_t ts, const char *file)
{
    static const uint8_t x[1] = {'x'};
    tb_rec rs[16];
    uint8_t key[4], val[6];
    uint16_t attrs = 0;
    if (kind == DATA || kind == PLAIN) {
        assert_true(n <= 16);
        for (int i = 0; i < n; i++)
            rs[i] = (tb_rec){NULL, -1, x, 1};
        attrs = kind == DATA ? KF_ATTR_TRANSACTIONAL : 0;
    } else {
        tb_put16(key, 0);
        tb_put16(key + 2, (uint16_t)kind);
        tb_put16(val, 0);
        tb_put32(val + 2, 3);
        rs[0] = (tb_rec){key, 4, val, 6};
        n = 1;
        attrs = KF_ATTR_TRANSACTIONAL | KF_ATTR_CONTROL;
    }
    uint32_t size = tb_batch(f->buf, base, rs, n, attrs, pid, epoch, ts);
    kf_batch b = tb_parse(f->buf, size);
    assert_int_equal(kf_txns_batch(f->t, &b, file), KF_OK);
}

typedef struct reports {
    int n;
    kf_txn_report r[16];
} reports;

static void keep(void *ctx, const kf_txn_report *r)
{
    reports *rs = ctx;
    assert_true(rs->n < 16);
    rs->r[rs->n++] = *r;
}

static kf_partition no_copies(void)
{
    kf_partition p;
    memset(&p, 0, sizeof p);
    p.topic = (char *)"t";
    p.partition = 0;
    return p;
}

/* ---- the transaction rules ------------------------------------------------------ */

static void test_rules_and_last_stable_offset(void **state)
{
    (void)state;
    kf_partition p = no_copies();
    kf_txns_opts o;
    kf_txns_opts_init(&o);
    assert_int_equal(o.version, KF_TXNS_OPTIONS_VERSION);
    assert_false(o.has_hanging_ms); /* kf_txns_open: 15 minutes */
    problem_log log = {0};
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &log;
    feeder f;
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    const int64_t T = 1700000000000, MIN = 60000;
    feed(&f, 0, 2, PLAIN, -1, -1, T, NULL);
    feed(&f, 2, 3, DATA, 10, 0, T + 1 * MIN, NULL);              /* 10 opens at 2 */
    feed(&f, 5, 2, DATA, 11, 0, T + 2 * MIN, NULL);              /* 11 opens at 5 */
    feed(&f, 7, 1, DATA, 12, 4, T + 3 * MIN, NULL);              /* 12 opens at 7 (epoch 4) */
    feed(&f, 8, 2, DATA, 12, 5, T + 4 * MIN, NULL);              /* newer epoch: still the same txn */
    feed(&f, 10, 1, MARK_ABORT, 11, 1, T + 5 * MIN, NULL);       /* 11 fenced: ABORT with epoch + 1 */
    feed(&f, 11, 1, DATA, 11, 2, T + 6 * MIN, NULL);             /* 11's new instance opens at 11 */
    feed(&f, 12, 1, MARK_COMMIT, 10, 1, T + 7 * MIN, NULL);      /* version-2 marker: epoch + 1 */
    feed(&f, 13, 1, MARK_ABORT, 13, 0, T + 8 * MIN, NULL);       /* no data: counted, nothing ends */
    feed(&f, 14, 2, PLAIN, 14, 0, T + 30 * MIN, NULL);           /* idempotent: not a transaction */
    reports rs = {0};
    kf_txns_result res;
    assert_int_equal(kf_txns_finish(f.t, false, keep, &rs, &res), KF_OK);
    assert_int_equal(res.committed_transactions, 1);
    assert_int_equal(res.aborted_transactions, 2);
    assert_int_equal(res.open_transactions, 2);
    assert_true(res.has_log_end);
    assert_int_equal(res.log_end_offset, 16);
    assert_int_equal(res.last_stable_offset, 7);                /* 12's, the oldest open */
    assert_true(res.has_newest_timestamp);
    assert_int_equal(res.newest_timestamp, T + 30 * MIN + 1);
    assert_int_equal(rs.n, 2);
    const kf_open_txn *a = &rs.r[0].txn, *b = &rs.r[1].txn;
    assert_int_equal(a->producer_id, 12);
    assert_int_equal(a->producer_epoch, 5);
    assert_int_equal(a->first_offset, 7);
    assert_int_equal(a->last_offset, 9);
    assert_int_equal(a->batches, 2);
    assert_int_equal(a->records, 3);
    assert_true(a->has_first_timestamp);
    assert_int_equal(a->first_timestamp, T + 3 * MIN);
    assert_int_equal(rs.r[0].age_ms, 27 * MIN + 1);
    assert_int_equal(rs.r[0].idle_ms, 26 * MIN);               /* last batch max ts: T + 4 min + 1 */
    assert_true(rs.r[0].hanging);
    assert_int_equal(b->producer_id, 11);
    assert_int_equal(b->producer_epoch, 2);
    assert_int_equal(b->first_offset, 11);
    assert_int_equal(b->batches, 1);
    assert_int_equal(rs.r[1].idle_ms, 24 * MIN + 1);
    assert_true(rs.r[1].hanging);
    assert_int_equal(res.hanging_transactions, 2);
    assert_null(rs.r[0].coordinator);
    assert_false(res.incomplete);
    assert_int_equal(log.n, 0);
    kf_txns_close(f.t);

    /* the same log with --hanging-ms 25 minutes: only 12's transaction hangs */
    o.has_hanging_ms = true;
    o.hanging_ms = 25 * MIN;
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    feed(&f, 7, 1, DATA, 12, 4, T + 3 * MIN, NULL);
    feed(&f, 11, 1, DATA, 11, 2, T + 6 * MIN, NULL);
    feed(&f, 14, 2, PLAIN, 14, 0, T + 30 * MIN, NULL);
    rs.n = 0;
    assert_int_equal(kf_txns_finish(f.t, true, keep, &rs, &res), KF_OK);
    assert_int_equal(res.hanging_transactions, 1);
    assert_true(rs.r[0].hanging);
    assert_false(rs.r[1].hanging);
    assert_true(res.incomplete); /* the caller said damage was skipped */
    kf_txns_close(f.t);
}

static void test_unreadable_marker_and_empty_control_batch(void **state)
{
    (void)state;
    kf_partition p = no_copies();
    kf_txns_opts o;
    kf_txns_opts_init(&o);
    problem_log log = {0};
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &log;
    feeder f;
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    feed(&f, 0, 1, DATA, 5, 0, 1000, NULL);
    /* a control batch whose key is too short to be a marker */
    static const uint8_t k2[2] = {0, 0};
    tb_rec r = {k2, 2, NULL, -1};
    uint32_t size = tb_batch(f.buf, 1, &r, 1, KF_ATTR_TRANSACTIONAL | KF_ATTR_CONTROL, 5, 0, 1001);
    kf_batch b = tb_parse(f.buf, size);
    assert_int_equal(kf_txns_batch(f.t, &b, "seg.log"), KF_OK);
    /* the cleaner's empty control batch: nothing */
    size = tb_batch(f.buf, 2, NULL, 0, KF_ATTR_TRANSACTIONAL | KF_ATTR_CONTROL, 5, 0, 1002);
    b = tb_parse(f.buf, size);
    assert_int_equal(kf_txns_batch(f.t, &b, "seg.log"), KF_OK);
    kf_txns_result res;
    assert_int_equal(kf_txns_finish(f.t, false, NULL, NULL, &res), KF_OK);
    assert_int_equal(res.open_transactions, 1); /* 5's marker could not be read */
    assert_int_equal(res.bad_markers, 1);
    assert_int_equal(res.committed_transactions + res.aborted_transactions, 0);
    assert_true(res.incomplete);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.code[0], KF_P_BAD_MARKER);
    assert_int_equal(log.offset[0], 1);
    kf_txns_close(f.t);
}

static void test_open_only_state_drops_ended_producers(void **state)
{
    (void)state;
    /* thousands of producers opening and ending transactions: entries are
     * removed from the middle of the hash table and looked up again */
    kf_pstate *ps = kf_pstate_new_open_txns();
    assert_non_null(ps);
    kf_buf buf = {0};
    uint8_t b[256];
    static const uint8_t x[1] = {'x'};
    tb_rec d = {NULL, -1, x, 1};
    uint8_t key[4], val[6];
    tb_put16(key, 0);
    tb_put16(key + 2, MARK_COMMIT);
    tb_put16(val, 0);
    tb_put32(val + 2, 1);
    tb_rec mrec = {key, 4, val, 6};
    int64_t off = 0;
    for (int i = 0; i < 3000; i++) {
        uint32_t n = tb_batch(b, off++, &d, 1, KF_ATTR_TRANSACTIONAL, 1000 + i * 13, 0, i);
        assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, NULL), KF_OK);
    }
    for (int i = 0; i < 3000; i += 2) {
        uint32_t n = tb_batch(b, off++, &mrec, 1, KF_ATTR_TRANSACTIONAL | KF_ATTR_CONTROL, 1000 + i * 13, 0, 5000);
        kf_pstate_step st;
        assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, &st), KF_OK);
        assert_true(st.marker && st.completed);
        assert_int_equal(st.txn_first_offset, i);
    }
    assert_int_equal(kf_pstate_producers(ps), 1500);
    assert_int_equal(kf_pstate_open_count(ps), 1500);
    for (size_t i = 0; i < 1500; i++) {
        kf_open_txn t;
        kf_pstate_open_get(ps, i, &t);
        assert_int_equal(t.producer_id, 1000 + (int64_t)(2 * i + 1) * 13);
        assert_int_equal(t.first_offset, (int64_t)(2 * i + 1));
        assert_int_equal(t.batches, 1);
    }
    /* non-transactional batches of unknown producers are not kept */
    uint32_t n = tb_batch(b, off++, &d, 1, 0, 99, 0, 1);
    assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, NULL), KF_OK);
    assert_int_equal(kf_pstate_producers(ps), 1500);
    for (int i = 1; i < 3000; i += 2) {
        n = tb_batch(b, off++, &mrec, 1, KF_ATTR_TRANSACTIONAL | KF_ATTR_CONTROL, 1000 + i * 13, 0, 6000);
        assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, NULL), KF_OK);
    }
    assert_int_equal(kf_pstate_producers(ps), 0);
    assert_int_equal(kf_pstate_open_count(ps), 0);
    uint8_t *snap;
    size_t sn;
    assert_int_equal(kf_pstate_snapshot(ps, &snap, &sn), KF_ERR_UNSUPPORTED);
    kf_buf_free(&buf);
    kf_pstate_free(ps);
}

/* ---- the .txnindex check and the snapshot: files in a temporary dir --------------- */

typedef struct tdir {
    char path[64];
} tdir;

static void tdir_make(tdir *d)
{
    strcpy(d->path, "/tmp/kfsck-test-txns.XXXXXX");
    assert_non_null(mkdtemp(d->path));
}

static char *tdir_file(const tdir *d, const char *name)
{
    char *p = malloc(strlen(d->path) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", d->path, name);
    return p;
}

static void write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void tdir_remove(tdir *d, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p = tdir_file(d, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(d->path);
}

static void entry(uint8_t *out, int64_t pid, int64_t first, int64_t last)
{
    kf_aborted_txn t = {pid, first, last, last + 1};
    kf_aborted_txn_encode(&t, out);
}

static void test_txnindex_missing_extra_and_misplaced(void **state)
{
    (void)state;
    tdir d;
    tdir_make(&d);
    char *seg0 = tdir_file(&d, "00000000000000000000.log"), *seg1 = tdir_file(&d, "00000000000000000010.log");
    char *ix0 = tdir_file(&d, "00000000000000000000.txnindex"), *ix1 = tdir_file(&d, "00000000000000000010.txnindex");
    /* segment 0 holds ABORTs at 2 (producer 1) and 5 (producer 2, entry missing)
     * and a COMMIT at 7 that an entry wrongly names; segment 1 holds an ABORT
     * at 12 (producer 3) whose entry sits in segment 0's index, and one at 14
     * (producer 4) whose entry names producer 9 */
    uint8_t e0[3 * 34], e1[34];
    entry(e0, 1, 0, 2);
    entry(e0 + 34, 1, 6, 7);
    entry(e0 + 68, 3, 11, 12);
    entry(e1, 9, 13, 14);
    write_file(ix0, e0, sizeof e0);
    write_file(ix1, e1, sizeof e1);

    char *segs[2] = {seg0, seg1};
    int64_t bases[2] = {0, 10};
    kf_partition_copy c = {(char *)"copy", segs, bases, 2};
    kf_partition p = {(char *)"t", 0, &c, 1};
    kf_txns_opts o;
    kf_txns_opts_init(&o);
    problem_log log = {0};
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &log;
    feeder f;
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    feed(&f, 0, 2, DATA, 1, 0, 1, seg0);
    feed(&f, 2, 1, MARK_ABORT, 1, 0, 2, seg0);                   /* entry 0: fine */
    feed(&f, 3, 2, DATA, 2, 0, 3, seg0);
    feed(&f, 5, 1, MARK_ABORT, 2, 0, 4, seg0);                   /* missing */
    feed(&f, 6, 1, DATA, 1, 0, 5, seg0);
    feed(&f, 7, 1, MARK_COMMIT, 1, 0, 6, seg0);                  /* entry 1 names a COMMIT: extra */
    feed(&f, 11, 1, DATA, 3, 0, 7, seg1);
    feed(&f, 12, 1, MARK_ABORT, 3, 0, 8, seg1);                  /* its entry is in segment 0: extra there, missing here */
    feed(&f, 13, 1, DATA, 4, 0, 9, seg1);
    feed(&f, 14, 1, MARK_ABORT, 4, 0, 10, seg1);                 /* entry names producer 9: extra + missing */
    kf_txns_result res;
    assert_int_equal(kf_txns_finish(f.t, false, NULL, NULL, &res), KF_OK);
    assert_int_equal(res.aborted_transactions, 4);
    assert_int_equal(res.committed_transactions, 1);
    assert_int_equal(res.txnindex_missing, 3);
    assert_int_equal(res.txnindex_extra, 3);
    assert_int_equal(log.n, 6);
    /* in the order found: 5 missing; at 12 segment 0 is closed (7 and 12 extra),
     * 12 missing; at 14 the entry for 9 extra, 14 missing */
    const char *codes[6] = {KF_P_TXNINDEX_MISSING, KF_P_TXNINDEX_EXTRA, KF_P_TXNINDEX_EXTRA,
                            KF_P_TXNINDEX_MISSING, KF_P_TXNINDEX_EXTRA, KF_P_TXNINDEX_MISSING};
    int64_t offs[6] = {5, 7, 12, 12, 14, 14};
    uint64_t pos[6] = {34, 34, 68, 0, 0, 34};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(log.code[i], codes[i]);
        assert_int_equal(log.offset[i], offs[i]);
        assert_int_equal(log.position[i], pos[i]);
        assert_int_equal(log.severity[i], KF_SEV_ERROR);
    }
    kf_txns_close(f.t);

    /* a second copy whose segment 1 lacks the index: its missing entries are
     * judged only where the markers were read from that copy */
    char *segs2[2] = {seg0, seg1};
    kf_partition_copy c2[2] = {{(char *)"a", segs, bases, 2}, {(char *)"b", segs2, bases, 2}};
    kf_partition p2 = {(char *)"t", 0, c2, 2};
    memset(&log, 0, sizeof log);
    assert_int_equal(kf_txns_open(&f.t, &p2, &o), KF_OK);
    feed(&f, 0, 2, DATA, 1, 0, 1, seg0);
    feed(&f, 2, 1, MARK_ABORT, 1, 0, 2, seg0);
    assert_int_equal(kf_txns_finish(f.t, false, NULL, NULL, &res), KF_OK);
    /* both copies name the same files here: each walks them; the extras of
     * segment 0 (7, 12) and segment 1 (14) are found in each copy */
    assert_int_equal(res.txnindex_missing, 0);
    assert_int_equal(res.txnindex_extra, 6);
    kf_txns_close(f.t);

    const char *names[] = {"00000000000000000000.txnindex", "00000000000000000010.txnindex"};
    tdir_remove(&d, names, 2);
    free(seg0);
    free(seg1);
    free(ix0);
    free(ix1);
}

static void test_snapshot_at_the_log_start(void **state)
{
    (void)state;
    tdir d;
    tdir_make(&d);
    char *seg = tdir_file(&d, "00000000000000000100.log");
    char *snp = tdir_file(&d, "00000000000000000100.snapshot");
    /* the state after offsets < 100: producer 7 has a transaction open since 80 */
    kf_pstate *ps = kf_pstate_new();
    assert_non_null(ps);
    kf_buf buf = {0};
    uint8_t b[256];
    static const uint8_t x[1] = {'x'};
    tb_rec r = {NULL, -1, x, 1};
    uint32_t n = tb_batch(b, 80, &r, 1, KF_ATTR_TRANSACTIONAL, 7, 2, 5000);
    assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, NULL), KF_OK);
    n = tb_batch(b, 90, &r, 1, 0, 8, 0, 5100); /* an idempotent producer: not kept by the txns job */
    assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, NULL), KF_OK);
    uint8_t *sd;
    size_t sn;
    assert_int_equal(kf_pstate_snapshot(ps, &sd, &sn), KF_OK);
    write_file(snp, sd, sn);
    free(sd);
    kf_pstate_free(ps);
    kf_buf_free(&buf);

    char *segs[1] = {seg};
    int64_t bases[1] = {100};
    kf_partition_copy c = {(char *)"copy", segs, bases, 1};
    kf_partition p = {(char *)"t", 0, &c, 1};
    kf_txns_opts o;
    kf_txns_opts_init(&o);
    problem_log log = {0};
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &log;
    feeder f;
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    feed(&f, 100, 1, DATA, 7, 2, 6000, seg);
    feed(&f, 101, 1, PLAIN, -1, -1, 7000, seg);
    reports rs = {0};
    kf_txns_result res;
    assert_int_equal(kf_txns_finish(f.t, false, keep, &rs, &res), KF_OK);
    assert_non_null(res.snapshot);
    assert_string_equal(res.snapshot, snp);
    assert_false(res.start_unknown);
    assert_int_equal(res.start_offset, 100);
    assert_int_equal(res.last_stable_offset, 80);
    assert_int_equal(rs.n, 1);
    assert_int_equal(rs.r[0].txn.first_offset, 80);
    assert_false(rs.r[0].txn.has_first_timestamp);
    assert_false(rs.r[0].has_age);
    assert_int_equal(rs.r[0].txn.batches, 1);
    assert_int_equal(rs.r[0].txn.last_offset, 100);
    assert_int_equal(rs.r[0].idle_ms, 1000);
    assert_int_equal(log.n, 0);
    kf_txns_close(f.t);

    /* a damaged snapshot is reported and not used */
    uint8_t junk[12] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    write_file(snp, junk, sizeof junk);
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    feed(&f, 100, 1, DATA, 7, 2, 6000, seg);
    assert_int_equal(kf_txns_finish(f.t, false, NULL, NULL, &res), KF_OK);
    assert_null(res.snapshot);
    assert_true(res.start_unknown);
    assert_int_equal(res.last_stable_offset, 100);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.code[0], KF_P_SNAPSHOT_INVALID);
    assert_int_equal(log.severity[0], KF_SEV_WARNING);
    kf_txns_close(f.t);

    const char *names[] = {"00000000000000000100.snapshot"};
    tdir_remove(&d, names, 1);
    free(seg);
    free(snp);
}

/* ---- the coordinator's view ------------------------------------------------------ */

/* TransactionLogKey: int16 0 + string. */
static int32_t txn_key(uint8_t *out, const char *tid)
{
    size_t n = strlen(tid);
    tb_put16(out, 0);
    tb_put16(out + 2, (uint16_t)n);
    memcpy(out + 4, tid, n);
    return (int32_t)(4 + n);
}

/* TransactionLogValue version 0 with no partitions. */
static int32_t txn_value(uint8_t *out, int64_t pid, int16_t epoch, int8_t status, int64_t ts)
{
    tb_put16(out, 0);
    tb_put64(out + 2, (uint64_t)pid);
    tb_put16(out + 10, (uint16_t)epoch);
    tb_put32(out + 12, 60000);
    out[16] = (uint8_t)status;
    tb_put32(out + 17, 0); /* empty partition array */
    tb_put64(out + 21, (uint64_t)ts);
    tb_put64(out + 29, (uint64_t)ts);
    return 37;
}

static void test_coordinator_view_and_marker_missing(void **state)
{
    (void)state;
    kf_txn_coord *c;
    assert_int_equal(kf_txn_coord_new(&c), KF_OK);
    assert_non_null(c);
    uint8_t keys[5][32], vals[5][64], b[2048];
    tb_rec rs[5];
    rs[0] = (tb_rec){keys[0], txn_key(keys[0], "app-a"), vals[0], txn_value(vals[0], 20, 0, KF_TXN_ONGOING, 1)};
    rs[1] = (tb_rec){keys[1], txn_key(keys[1], "app-b"), vals[1], txn_value(vals[1], 21, 3, KF_TXN_ONGOING, 2)};
    rs[2] = (tb_rec){keys[2], txn_key(keys[2], "app-a"), vals[2], txn_value(vals[2], 20, 0, KF_TXN_COMPLETE_COMMIT, 3)};
    rs[3] = (tb_rec){keys[3], txn_key(keys[3], "app-c"), vals[3], txn_value(vals[3], 22, 1, KF_TXN_ONGOING, 4)};
    rs[4] = (tb_rec){keys[4], txn_key(keys[4], "app-c"), NULL, -1}; /* tombstone */
    uint32_t n = tb_batch(b, 0, rs, 5, 0, -1, -1, 100);
    kf_batch batch = tb_parse(b, n);
    kf_buf buf = {0};
    problem_log log = {0};
    assert_int_equal(kf_txn_coord_batch(c, 4, &batch, &buf, 1 << 20, problem_log_fn, &log), KF_OK);
    assert_int_equal(log.n, 0);
    assert_int_equal(kf_txn_coord_count(c), 2);
    const kf_txn_coord_entry *e = kf_txn_coord_find(c, 20);
    assert_non_null(e);
    assert_string_equal(e->transactional_id, "app-a");
    assert_int_equal(e->state, KF_TXN_COMPLETE_COMMIT);
    assert_string_equal(kf_txn_state_name(e->state), "CompleteCommit");
    assert_int_equal(e->source_partition, 4);
    assert_int_equal(e->source_offset, 2);
    assert_null(kf_txn_coord_find(c, 22));
    assert_null(kf_txn_coord_find(c, 999));
    assert_null(kf_txn_state_name(8));

    /* an undecodable value: reported, the rest of the batch still read */
    uint8_t bad[3] = {0, 0, 1};
    tb_rec r2[2] = {{keys[0], rs[0].klen, bad, 3},
                 {keys[1], rs[1].klen, vals[2], txn_value(vals[2], 21, 3, KF_TXN_COMPLETE_ABORT, 5)}};
    n = tb_batch(b, 5, r2, 2, 0, -1, -1, 200);
    batch = tb_parse(b, n);
    assert_int_equal(kf_txn_coord_batch(c, 4, &batch, &buf, 1 << 20, problem_log_fn, &log), KF_OK);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.code[0], KF_P_BAD_RECORD);
    assert_int_equal(log.offset[0], 5);
    assert_int_equal(kf_txn_coord_find(c, 21)->state, KF_TXN_COMPLETE_ABORT);

    /* a partition with open transactions of 20 (completed there: marker
     * missing), 21 at epoch 4 (the coordinator's epoch 3 is older: not
     * evidence) and 22 (its id was deleted) */
    kf_partition p = no_copies();
    kf_txns_opts o;
    kf_txns_opts_init(&o);
    o.coord = c;
    memset(&log, 0, sizeof log);
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &log;
    feeder f;
    assert_int_equal(kf_txns_open(&f.t, &p, &o), KF_OK);
    feed(&f, 0, 1, DATA, 20, 0, 10, NULL);
    feed(&f, 1, 1, DATA, 21, 4, 11, NULL);
    feed(&f, 2, 1, DATA, 22, 1, 12, NULL);
    reports out = {0};
    kf_txns_result res;
    assert_int_equal(kf_txns_finish(f.t, false, keep, &out, &res), KF_OK);
    assert_int_equal(out.n, 3);
    assert_true(out.r[0].marker_missing);
    assert_string_equal(out.r[0].coordinator->transactional_id, "app-a");
    assert_false(out.r[1].marker_missing);
    assert_non_null(out.r[1].coordinator);
    assert_false(out.r[2].marker_missing);
    assert_null(out.r[2].coordinator);
    assert_int_equal(res.markers_missing, 1);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.code[0], KF_P_MARKER_MISSING);
    assert_int_equal(log.offset[0], 0);
    kf_txns_close(f.t);
    kf_buf_free(&buf);
    kf_txn_coord_free(c);
}

/* The JSON sink of test_coordinator_fields: the last line it was handed. */
static void keep_line(void *ctx, const char *p, size_t n, unsigned how)
{
    char *line = ctx;
    assert_true(how & KF_JSONL_LINE);
    assert_true(n < 256);
    memcpy(line, p, n);
    line[n] = 0;
}

/* kf_txn_coordinator_fields: Kafka's name of a state it has one for, the
 * number of one it has not (a state kfsck does not know), and null for
 * both fields when the coordinator holds no transactional id. */
static void test_coordinator_fields(void **state)
{
    (void)state;
    char line[256];
    kf_jsonl j;
    kf_jsonl_init(&j, 0, keep_line, line);
    kf_jsonl_begin(&j, "t");
    kf_txn_coordinator_fields(&j, "app-1", KF_TXN_ONGOING);
    kf_jsonl_end(&j);
    assert_string_equal(line, "{\"type\":\"t\",\"transactional_id\":\"app-1\",\"coordinator_state\":\"Ongoing\"}\n");
    kf_jsonl_begin(&j, "t");
    kf_txn_coordinator_fields(&j, "app-2", 42);
    kf_jsonl_end(&j);
    assert_string_equal(line, "{\"type\":\"t\",\"transactional_id\":\"app-2\",\"coordinator_state\":42}\n");
    kf_jsonl_begin(&j, "t");
    kf_txn_coordinator_fields(&j, NULL, KF_TXN_ONGOING);
    kf_jsonl_end(&j);
    assert_string_equal(line, "{\"type\":\"t\",\"transactional_id\":null,\"coordinator_state\":null}\n");
    kf_jsonl_free(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_and_last_stable_offset),
        cmocka_unit_test(test_unreadable_marker_and_empty_control_batch),
        cmocka_unit_test(test_open_only_state_drops_ended_producers),
        cmocka_unit_test(test_txnindex_missing_extra_and_misplaced),
        cmocka_unit_test(test_snapshot_at_the_log_start),
        cmocka_unit_test(test_coordinator_view_and_marker_missing),
        cmocka_unit_test(test_coordinator_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
