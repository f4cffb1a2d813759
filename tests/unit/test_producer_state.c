/* test_producer_state.c: unit tests for src/format/producer_state.c, the builder of
 * rebuilt `.snapshot` / `.txnindex` files. The fixture partitions'
 * snapshots and txnindex (written by tools/gen/gen_fixtures.py from Kafka's
 * rules) must come out byte for byte; hand-built batches check the rules one
 * by one: lastStableOffset with and without another open transaction, a
 * marker with a new epoch clearing batch metadata, a marker with no open
 * transaction, sequence wrap-around, producer id -1 ignored, the empty
 * 10-byte snapshot, and continuing from a loaded snapshot. */
#include "testutil.h"
#include "mkbatch.h"

#include "format/producer_state.h"

/* ---- hand-built v2 batches ------------------------------------------------- */

enum { DATA = MK_DATA };

/* A batch at base with `count` records of one byte 'x'; ctl DATA or
 * KF_CONTROL_ABORT/COMMIT (one marker record with coordinator epoch coord).
 * Returns its size. */
static uint32_t ps_batch(uint8_t *out, size_t cap, int64_t base, int32_t count, bool txn, int ctl, int64_t pid,
                         int16_t epoch, int32_t base_seq, int64_t ts, int32_t coord)
{
    mk_spec s = {base, count, 0, ts, 1, 'x', pid, epoch, base_seq, txn, ctl, coord};
    uint32_t n = mk_batch(out, cap, &s);
    assert_true(n > 0);
    return n;
}

typedef struct feed {
    kf_pstate *ps;
    kf_buf buf;
    kf_pstate_step st;
} feed;

static void add(feed *f, int64_t base, int32_t count, bool txn, int ctl, int64_t pid, int16_t epoch, int32_t seq,
                int64_t ts, int32_t coord)
{
    uint8_t b[4096];
    uint32_t n = ps_batch(b, sizeof b, base, count, txn, ctl, pid, epoch, seq, ts, coord);
    assert_int_equal(kf_pstate_add(f->ps, b, n, &f->buf, 1 << 20, &f->st), KF_OK);
}

static void snapshot_of(const kf_pstate *ps, uint8_t **data, size_t *len, kf_producer_snapshot *s)
{
    assert_int_equal(kf_pstate_snapshot(ps, data, len), KF_OK);
    assert_int_equal(kf_producer_snapshot_parse(*data, *len, s), KF_OK);
}

static void check_entry(const kf_producer_snapshot *s, uint64_t i, int64_t pid, int16_t epoch, int32_t seq, int64_t off,
                        int32_t delta, int64_t ts, int32_t coord, int64_t txn)
{
    kf_producer_snapshot_entry e;
    kf_producer_snapshot_get(s, i, &e);
    assert_int_equal(e.producer_id, pid);
    assert_int_equal(e.producer_epoch, epoch);
    assert_int_equal(e.last_sequence, seq);
    assert_int_equal(e.last_offset, off);
    assert_int_equal(e.offset_delta, delta);
    assert_int_equal(e.timestamp, ts);
    assert_int_equal(e.coordinator_epoch, coord);
    assert_int_equal(e.current_txn_first_offset, txn);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_empty_state_is_10_bytes(void **state)
{
    (void)state;
    kf_pstate *ps = kf_pstate_new();
    assert_non_null(ps);
    uint8_t *d;
    size_t n;
    assert_int_equal(kf_pstate_snapshot(ps, &d, &n), KF_OK);
    static const uint8_t want[10] = {0, 1, 0x48, 0x67, 0x4B, 0xC7, 0, 0, 0, 0};
    assert_int_equal(n, 10);
    assert_memory_equal(d, want, 10);
    free(d);
    kf_pstate_free(ps);
}

/* Feed every batch of the logs in order; compare with the snapshot and txnindex. */
static void replay_fixture(const char *const *logs, size_t nlogs, const char *snap, const char *txn)
{
    feed f = {kf_pstate_new(), {0}, {0}};
    assert_non_null(f.ps);
    uint8_t ab[10 * KF_TXN_ENTRY_SIZE];
    size_t nab = 0;
    for (size_t i = 0; i < nlogs; i++) {
        size_t n = 0;
        uint8_t *log = read_test_file(logs[i], &n);
        assert_non_null(log);
        uint64_t pos = 0;
        uint32_t size;
        int8_t magic;
        while (pos < n && kf_batch_frame(log + pos, n - pos, &size, &magic) == KF_FRAME_OK) {
            assert_int_equal(kf_pstate_add(f.ps, log + pos, size, &f.buf, 1 << 24, &f.st), KF_OK);
            if (f.st.has_aborted) {
                assert_true(nab < 10);
                kf_aborted_txn_encode(&f.st.aborted, ab + nab++ * KF_TXN_ENTRY_SIZE);
            }
            pos += size;
        }
        assert_int_equal(pos, n);
        free(log);
    }
    size_t sn = 0, tn = 0;
    uint8_t *want = read_test_file(snap, &sn);
    assert_non_null(want);
    uint8_t *d;
    size_t dn;
    assert_int_equal(kf_pstate_snapshot(f.ps, &d, &dn), KF_OK);
    assert_int_equal(dn, sn);
    assert_memory_equal(d, want, sn);
    free(d);
    free(want);
    if (txn) {
        want = read_test_file(txn, &tn);
        assert_non_null(want);
        assert_int_equal(nab * KF_TXN_ENTRY_SIZE, tn);
        assert_memory_equal(ab, want, tn);
        free(want);
    } else {
        assert_int_equal(nab, 0);
    }
    kf_buf_free(&f.buf);
    kf_pstate_free(f.ps);
}

static void test_fixture_payments(void **state)
{
    (void)state;
    const char *logs[] = {"fixtures/datadir/payments-0/00000000000000000000.log"};
    replay_fixture(logs, 1, "fixtures/datadir/payments-0/00000000000000000017.snapshot",
                   "fixtures/datadir/payments-0/00000000000000000000.txnindex");
}

static void test_fixture_orders(void **state)
{
    (void)state;
    const char *logs[] = {"fixtures/partition/orders-0/00000000000000000000.log",
                          "fixtures/partition/orders-0/00000000000000000398.log",
                          "fixtures/partition/orders-0/00000000000000000812.log"};
    replay_fixture(logs, 3, "fixtures/partition/orders-0/00000000000000001110.snapshot", NULL);
}

static void test_rules(void **state)
{
    (void)state;
    feed f = {kf_pstate_new(), {0}, {0}};
    assert_non_null(f.ps);
    add(&f, 0, 2, true, DATA, 7, 0, 0, 1000, 0);                 /* 7 opens a txn at 0 */
    assert_true(f.st.used && !f.st.marker);
    add(&f, 2, 1, true, DATA, 9, 0, 0, 1002, 0);                 /* 9 opens one at 2 */
    add(&f, 3, 1, true, KF_CONTROL_ABORT, 7, 0, -1, 1003, 5);    /* 7 aborts: LSO = 9's first offset */
    assert_true(f.st.marker && f.st.abort && f.st.has_aborted);
    assert_int_equal(f.st.aborted.producer_id, 7);
    assert_int_equal(f.st.aborted.first_offset, 0);
    assert_int_equal(f.st.aborted.last_offset, 3);
    assert_int_equal(f.st.aborted.last_stable_offset, 2);
    uint8_t enc[34];
    kf_aborted_txn_encode(&f.st.aborted, enc);
    kf_txn_entry te;
    kf_txn_index_get(enc, 0, &te);
    assert_int_equal(te.version, 0);
    assert_int_equal(te.last_stable_offset, 2);
    add(&f, 4, 1, true, KF_CONTROL_COMMIT, 9, 1, -1, 1004, 6);   /* commit with a bumped epoch */
    assert_true(f.st.marker && !f.st.abort && !f.st.has_aborted);
    add(&f, 5, 1, true, KF_CONTROL_ABORT, 7, 0, -1, 1005, 5);    /* no txn open: no entry */
    assert_true(f.st.marker && f.st.abort && !f.st.has_aborted);
    add(&f, 6, 3, false, DATA, 8, 2, INT32_MAX - 1, 1006, 0);   /* sequences wrap to 0 */
    add(&f, 9, 1, true, DATA, 7, 0, 2, 1009, 0);
    add(&f, 10, 1, true, KF_CONTROL_ABORT, 7, 0, -1, 1010, 5);   /* nothing else open: LSO = 11 */
    assert_true(f.st.has_aborted);
    assert_int_equal(f.st.aborted.first_offset, 9);
    assert_int_equal(f.st.aborted.last_stable_offset, 11);
    add(&f, 11, 2, false, DATA, -1, -1, -1, 1011, 0);            /* no producer id: ignored */
    assert_false(f.st.used);
    add(&f, 13, 1, true, DATA, 3, 0, 0, 1013, 0);                /* left open */
    assert_int_equal(kf_pstate_producers(f.ps), 4);

    uint8_t *d;
    size_t n;
    kf_producer_snapshot s;
    snapshot_of(f.ps, &d, &n, &s);
    assert_int_equal(s.count, 4);
    check_entry(&s, 0, 3, 0, 0, 13, 0, 1013, -1, 13);
    check_entry(&s, 1, 7, 0, 2, 9, 0, 1010, 5, -1);
    check_entry(&s, 2, 8, 2, 0, 8, 2, 1008, -1, -1);
    check_entry(&s, 3, 9, 1, -1, -1, 0, 1004, 6, -1);
    free(d);
    kf_buf_free(&f.buf);
    kf_pstate_free(f.ps);
}

static void test_continue_from_loaded_snapshot(void **state)
{
    (void)state;
    feed a = {kf_pstate_new(), {0}, {0}}, b = {kf_pstate_new(), {0}, {0}};
    assert_non_null(a.ps);
    assert_non_null(b.ps);
    add(&a, 0, 2, true, DATA, 7, 0, 0, 1000, 0);
    add(&a, 2, 1, true, DATA, 9, 0, 0, 1002, 0);
    uint8_t *d;
    size_t n;
    kf_producer_snapshot s;
    snapshot_of(a.ps, &d, &n, &s);
    assert_int_equal(kf_pstate_load(b.ps, &s), KF_OK);
    free(d);
    /* both see 7's ABORT with 9's transaction (from the snapshot) still open */
    add(&a, 3, 1, true, KF_CONTROL_ABORT, 7, 0, -1, 1003, 5);
    add(&b, 3, 1, true, KF_CONTROL_ABORT, 7, 0, -1, 1003, 5);
    assert_true(b.st.has_aborted);
    assert_memory_equal(&a.st.aborted, &b.st.aborted, sizeof a.st.aborted);
    assert_int_equal(b.st.aborted.last_stable_offset, 2);
    uint8_t *da, *db;
    size_t na, nb;
    assert_int_equal(kf_pstate_snapshot(a.ps, &da, &na), KF_OK);
    assert_int_equal(kf_pstate_snapshot(b.ps, &db, &nb), KF_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(da, db, na);
    free(da);
    free(db);
    kf_buf_free(&a.buf);
    kf_buf_free(&b.buf);
    kf_pstate_free(a.ps);
    kf_pstate_free(b.ps);
}

static void test_copy_is_independent(void **state)
{
    (void)state;
    feed a = {kf_pstate_new(), {0}, {0}}, b = {kf_pstate_new(), {0}, {0}};
    assert_non_null(a.ps);
    assert_non_null(b.ps);
    for (int i = 0; i < 40; i++) /* past the first hash table size */
        add(&a, i, 1, false, DATA, 500 + i, 0, 0, 1000 + i, 0);
    add(&a, 40, 2, true, DATA, 7, 0, 0, 1040, 0);
    add(&b, 0, 1, false, DATA, 99, 0, 0, 1, 0); /* replaced by the copy */
    assert_int_equal(kf_pstate_copy(b.ps, a.ps), KF_OK);
    assert_int_equal(kf_pstate_producers(b.ps), 41);
    uint8_t *d0, *d1;
    size_t n0, n1;
    assert_int_equal(kf_pstate_snapshot(a.ps, &d0, &n0), KF_OK);
    /* the copy goes on alone: 7's transaction is open in it too */
    add(&b, 42, 1, true, KF_CONTROL_ABORT, 7, 0, -1, 1042, 5);
    assert_true(b.st.has_aborted);
    assert_int_equal(b.st.aborted.first_offset, 40);
    add(&b, 43, 1, false, DATA, 12345, 0, 0, 1043, 0);
    assert_int_equal(kf_pstate_producers(b.ps), 42);
    assert_int_equal(kf_pstate_snapshot(a.ps, &d1, &n1), KF_OK);
    assert_int_equal(n0, n1);
    assert_memory_equal(d0, d1, n0); /* the original did not change */
    free(d0);
    free(d1);
    kf_buf_free(&a.buf);
    kf_buf_free(&b.buf);
    kf_pstate_free(a.ps);
    kf_pstate_free(b.ps);
}

static void test_parsed_batches_as_the_broker_reads_them(void **state)
{
    (void)state;
    kf_pstate *ps = kf_pstate_new();
    assert_non_null(ps);
    kf_buf buf = {0};
    kf_pstate_step st;
    uint8_t b[4096];
    /* a bad magic byte (outside the v2 CRC): the broker reads it as v2 */
    uint32_t n = ps_batch(b, sizeof b, 0, 2, true, DATA, 5, 0, 0, 1000, 0);
    b[16] = 7;
    kf_batch kb;
    assert_int_equal(kf_batch_parse(b, n, 0, &kb), KF_ERR_UNSUPPORTED);
    assert_int_equal(kf_pstate_add(ps, b, n, &buf, 1 << 20, &st), KF_OK);
    assert_false(st.used); /* the raw-bytes entry point takes magic 2 only */
    assert_int_equal(kf_batch_parse_broker(b, n, 0, &kb), KF_OK);
    assert_int_equal(kf_pstate_add_batch(ps, &kb, &buf, 1 << 20, &st), KF_OK);
    assert_true(st.used && st.txn_started);
    /* a marker of which only the header is at hand: no marker read */
    n = ps_batch(b, sizeof b, 2, 1, true, KF_CONTROL_ABORT, 5, 0, -1, 1002, 1);
    assert_int_equal(kf_batch_parse(b, KF_V2_HEADER_SIZE, 2, &kb), KF_OK);
    assert_int_equal(kf_pstate_add_batch(ps, &kb, &buf, 1 << 20, &st), KF_OK);
    assert_false(st.marker);
    assert_int_equal(kf_pstate_open_count(ps), 1);
    /* whole, it ends the transaction */
    assert_int_equal(kf_batch_parse(b, n, 2, &kb), KF_OK);
    assert_int_equal(kf_pstate_add_batch(ps, &kb, &buf, 1 << 20, &st), KF_OK);
    assert_true(st.marker && st.has_aborted);
    assert_int_equal(kf_pstate_open_count(ps), 0);
    kf_buf_free(&buf);
    kf_pstate_free(ps);
}

static void test_many_producers(void **state)
{
    (void)state;
    feed f = {kf_pstate_new(), {0}, {0}};
    assert_non_null(f.ps);
    for (int i = 0; i < 3000; i++) /* ids in descending order: output sorted */
        add(&f, i, 1, false, DATA, 100000 - i * 7, 0, 0, 5000 + i, 0);
    for (int i = 0; i < 3000; i++) /* the same producers again: updated in place */
        add(&f, 3000 + i, 1, false, DATA, 100000 - i * 7, 0, 1, 9000 + i, 0);
    assert_int_equal(kf_pstate_producers(f.ps), 3000);
    uint8_t *d;
    size_t n;
    kf_producer_snapshot s;
    snapshot_of(f.ps, &d, &n, &s);
    assert_int_equal(s.count, 3000);
    for (uint64_t i = 0; i < 3000; i++) {
        int k = 2999 - (int)i;
        check_entry(&s, i, 100000 - k * 7, 0, 1, 3000 + k, 0, 9000 + k, -1, -1);
    }
    free(d);
    kf_buf_free(&f.buf);
    kf_pstate_free(f.ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_state_is_10_bytes),
        cmocka_unit_test(test_fixture_payments),
        cmocka_unit_test(test_fixture_orders),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_continue_from_loaded_snapshot),
        cmocka_unit_test(test_copy_is_independent),
        cmocka_unit_test(test_parsed_batches_as_the_broker_reads_them),
        cmocka_unit_test(test_many_producers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
