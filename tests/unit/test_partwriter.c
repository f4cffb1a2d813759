/* test_partwriter.c: unit tests for src/format/partwriter.c, the partition
 * writer. Against fixtures written by tools/gen/gen_fixtures.py (Kafka's rules,
 * independent of this code): a partition's batches written back give its
 * .log bytes, its .index/.timeindex (tools/model/kafka_index.py), its .txnindex and
 * producer snapshot (tools/model/kafka_producer_state.py's rules) and its
 * leader-epoch-checkpoint. Hand-built batches check the rules one by one:
 * the epochs list (only raises), refusals where the broker's index rebuild
 * would throw (nothing written), rewinding a segment (state as it started),
 * segments starting a new .txnindex, a large entry copied in pieces, the log
 * end with and without batches, and no overwrite without force. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "mkbatch.h"
#include "format/partwriter.h"

static int seq;

static int setup(void **state)
{
    (void)state;
    return tu_tmpdir_make("partwriter");
}

static int teardown(void **state)
{
    (void)state;
    return tu_tmpdir_remove();
}

/* A new empty output directory. */
static void out_dir(char *p, size_t cap)
{
    snprintf(p, cap, "%s/out%d", tu_tmpdir, seq++);
}

static uint8_t *read_out(const char *dir, const char *name, size_t *n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return read_test_file(p, n);
}

static bool exists(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

static void assert_same_file(const char *a, const char *dir, const char *name)
{
    size_t na = 0, nb = 0;
    uint8_t *x = read_test_file(a, &na);
    uint8_t *y = read_out(dir, name, &nb);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(na, nb);
    if (na)
        assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

/* Feed every entry of a fixture log to w (as the broker reads them). */
static void feed_log(kf_part_writer *w, const char *path, uint64_t *aborted)
{
    size_t n = 0;
    uint8_t *log = read_test_file(path, &n);
    assert_non_null(log);
    uint64_t pos = 0;
    uint32_t size;
    int8_t magic;
    while (pos < n && kf_batch_frame(log + pos, n - pos, &size, &magic) == KF_FRAME_OK) {
        kf_batch b;
        assert_int_equal(kf_batch_parse_broker(log + pos, size, pos, &b), KF_OK);
        assert_int_equal(kf_part_writer_add(w, &b), KF_OK);
        if (aborted && kf_part_writer_step(w)->has_aborted)
            (*aborted)++;
        pos += size;
    }
    assert_int_equal(pos, n);
    free(log);
}

static kf_part_writer *open_writer(const char *dir, bool rewindable)
{
    kf_part_writer_opts o;
    kf_part_writer_opts_init(&o);
    o.rewindable = rewindable;
    kf_part_writer *w;
    assert_int_equal(kf_part_writer_open(&w, dir, &o), KF_OK);
    return w;
}

/* ---- fixtures written back ------------------------------------------------------ */

static void test_partition_written_back(void **state)
{
    (void)state;
    /* orders-0: three segments, epochs 0, 1, 3, an idempotent producer */
    static const char *const segs[] = {"00000000000000000000", "00000000000000000398", "00000000000000000812"};
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    for (int i = 0; i < 3; i++) {
        char in[200];
        snprintf(in, sizeof in, "fixtures/partition/orders-0/%s.log", segs[i]);
        assert_int_equal(kf_part_writer_segment(w, strtoll(segs[i], NULL, 10), NULL, in), KF_OK);
        feed_log(w, in, NULL);
        kf_part_segment s;
        assert_int_equal(kf_part_writer_close_segment(w, &s), KF_OK);
        assert_string_equal(s.input, in);
        assert_int_equal(s.base, strtoll(segs[i], NULL, 10));
        assert_null(s.txn_path); /* no transaction in it */
        const char *ext[] = {".log", ".index", ".timeindex"};
        for (int k = 0; k < 3; k++) {
            char a[200], name[64];
            snprintf(a, sizeof a, "fixtures/partition/orders-0/%s%s", segs[i], ext[k]);
            snprintf(name, sizeof name, "%s%s", segs[i], ext[k]);
            assert_same_file(a, dir, name);
        }
    }
    int64_t leo;
    assert_true(kf_part_writer_log_end(w, &leo));
    assert_int_equal(leo, 1110);
    kf_part_finish f;
    assert_int_equal(kf_part_writer_finish(w, &f), KF_OK);
    assert_int_equal(f.log_end, 1110);
    assert_non_null(f.snapshot_path);
    assert_same_file("fixtures/partition/orders-0/leader-epoch-checkpoint", dir, "leader-epoch-checkpoint");
    assert_same_file("fixtures/partition/orders-0/00000000000000001110.snapshot", dir, "00000000000000001110.snapshot");
    size_t n;
    const kf_leader_epoch *e = kf_part_writer_epochs(w, &n);
    assert_int_equal(n, 3);
    assert_int_equal(e[2].epoch, 3);
    kf_part_writer_close(w);
}

static void test_transactions_written_back(void **state)
{
    (void)state;
    /* payments-0: an aborted transaction (its .txnindex) and a snapshot at 17 */
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 0, NULL, NULL), KF_OK);
    uint64_t aborted = 0;
    feed_log(w, "fixtures/datadir/payments-0/00000000000000000000.log", &aborted);
    assert_int_equal(aborted, 1);
    kf_part_segment s;
    assert_int_equal(kf_part_writer_close_segment(w, &s), KF_OK);
    assert_int_equal(s.txn_len, KF_TXN_ENTRY_SIZE);
    assert_non_null(s.txn_path);
    assert_same_file("fixtures/datadir/payments-0/00000000000000000000.txnindex", dir, "00000000000000000000.txnindex");
    const char *snap;
    assert_int_equal(kf_part_writer_write_snapshot(w, &snap), KF_OK);
    assert_same_file("fixtures/datadir/payments-0/00000000000000000017.snapshot", dir, "00000000000000000017.snapshot");
    assert_int_equal(kf_pstate_producers(kf_part_writer_pstate(w)), 2);
    kf_part_writer_close(w);
}

/* ---- rules -------------------------------------------------------------------------- */

static int add(kf_part_writer *w, const mk_spec *s)
{
    static uint8_t buf[1 << 16];
    uint32_t n = mk_batch(buf, sizeof buf, s);
    assert_true(n > 0);
    kf_batch b;
    assert_int_equal(kf_batch_parse(buf, n, 0, &b), KF_OK);
    return kf_part_writer_add(w, &b);
}

static void test_epochs_only_rise(void **state)
{
    (void)state;
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 100, NULL, NULL), KF_OK);
    int32_t epochs[] = {-1, 0, 0, 2, 1, 5};
    for (int i = 0; i < 6; i++) {
        mk_spec s = mk_data(100 + i * 10, 10, epochs[i]);
        assert_int_equal(add(w, &s), KF_OK);
    }
    size_t n;
    const kf_leader_epoch *e = kf_part_writer_epochs(w, &n);
    assert_int_equal(n, 3);
    assert_int_equal(e[0].epoch, 0);
    assert_int_equal(e[0].start_offset, 110);
    assert_int_equal(e[1].epoch, 2);
    assert_int_equal(e[1].start_offset, 130);
    assert_int_equal(e[2].epoch, 5);
    assert_int_equal(e[2].start_offset, 150);
    assert_int_equal(kf_part_writer_write_epochs(w, NULL, 0), KF_OK);
    size_t len;
    uint8_t *text = read_out(dir, "leader-epoch-checkpoint", &len);
    assert_non_null(text);
    const char want[] = "0\n3\n0 110\n2 130\n5 150\n";
    assert_int_equal(len, strlen(want));
    assert_memory_equal(text, want, len);
    free(text);
    /* entries given instead */
    kf_leader_epoch mine[] = {{7, 0}};
    kf_part_writer_opts o;
    kf_part_writer_opts_init(&o);
    o.force = true;
    kf_part_writer *w2;
    assert_int_equal(kf_part_writer_open(&w2, dir, &o), KF_OK);
    assert_int_equal(kf_part_writer_write_epochs(w2, mine, 1), KF_OK);
    text = read_out(dir, "leader-epoch-checkpoint", &len);
    assert_int_equal(len, 8);
    assert_memory_equal(text, "0\n1\n7 0\n", 8);
    free(text);
    kf_part_writer_close(w2);
    kf_part_writer_close(w);
}

static void test_refusals_write_nothing(void **state)
{
    (void)state;
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 1000, NULL, NULL), KF_OK);
    mk_spec s = mk_data(1000, 3, 0);
    assert_int_equal(add(w, &s), KF_OK);
    /* below the base */
    s = mk_data(990, 3, 0);
    assert_int_equal(add(w, &s), KF_ERR_CORRUPT);
    assert_string_equal(kf_part_writer_refusal(w)->code, KF_P_BASE_OFFSET_MISMATCH);
    /* past 2^31-1 from the base */
    s = mk_data(1000 + ((int64_t)1 << 31), 1, 0);
    assert_int_equal(add(w, &s), KF_ERR_CORRUPT);
    assert_string_equal(kf_part_writer_refusal(w)->code, KF_P_OFFSET_OVERFLOW);
    int64_t last;
    assert_true(kf_part_writer_last_offset(w, &last));
    assert_int_equal(last, 1002);
    /* the broker's index append throws: at an index point (more than 4096
     * bytes appended since the last entry) an offset not above the last
     * indexed one */
    s = mk_data(1003, 1, 0);
    s.value_len = 5000;
    assert_int_equal(add(w, &s), KF_OK);  /* ~100 bytes before it: no entry */
    s.base = 1004;
    assert_int_equal(add(w, &s), KF_OK);  /* ~5100 before: an entry for 1004 */
    assert_int_equal(add(w, &s), KF_ERR_CORRUPT); /* 1004 again at the next entry */
    assert_string_equal(kf_part_writer_refusal(w)->code, KF_P_OFFSET_REGRESSION);
    kf_part_segment out;
    assert_int_equal(kf_part_writer_close_segment(w, &out), KF_OK);
    assert_int_equal(out.written.batches, 3);
    assert_int_equal(out.written.last_offset, 1004);
    size_t n;
    uint8_t *log = read_out(dir, "00000000000000001000.log", &n);
    assert_non_null(log);
    assert_int_equal(n, out.written.size);
    free(log);
    kf_part_writer_close(w);
}

static void test_rewind_restores_the_start(void **state)
{
    (void)state;
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, true);
    assert_int_equal(kf_part_writer_segment(w, 0, NULL, NULL), KF_OK);
    mk_spec s = mk_data(0, 5, 1);
    s.pid = 7;
    s.pepoch = 0;
    s.seq = 0;
    assert_int_equal(add(w, &s), KF_OK);
    assert_int_equal(kf_part_writer_close_segment(w, NULL), KF_OK);
    uint8_t *before;
    size_t nbefore;
    assert_int_equal(kf_pstate_snapshot(kf_part_writer_pstate(w), &before, &nbefore), KF_OK);
    /* a second segment: a new producer, an open transaction, a higher epoch */
    assert_int_equal(kf_part_writer_segment(w, 5, NULL, NULL), KF_OK);
    s = mk_data(5, 3, 4);
    s.pid = 8;
    s.pepoch = 0;
    s.seq = 0;
    s.txn = true;
    assert_int_equal(add(w, &s), KF_OK);
    size_t ne;
    kf_part_writer_epochs(w, &ne);
    assert_int_equal(ne, 2);
    assert_int_equal(kf_part_writer_rewind(w), KF_OK);
    kf_part_writer_epochs(w, &ne);
    assert_int_equal(ne, 1);
    int64_t leo;
    assert_true(kf_part_writer_log_end(w, &leo));
    assert_int_equal(leo, 5);
    uint8_t *after;
    size_t nafter;
    assert_int_equal(kf_pstate_snapshot(kf_part_writer_pstate(w), &after, &nafter), KF_OK);
    assert_int_equal(nbefore, nafter);
    assert_memory_equal(before, after, nbefore);
    free(before);
    free(after);
    /* the segment goes on from empty */
    s = mk_data(5, 2, 1);
    assert_int_equal(add(w, &s), KF_OK);
    kf_part_segment out;
    assert_int_equal(kf_part_writer_close_segment(w, &out), KF_OK);
    assert_int_equal(out.written.batches, 1);
    assert_int_equal(out.written.first_offset, 5);
    assert_int_equal(out.written.last_offset, 6);
    kf_part_writer_close(w);
    /* without the option, no rewind */
    out_dir(dir, sizeof dir);
    w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 0, NULL, NULL), KF_OK);
    assert_int_not_equal(kf_part_writer_rewind(w), KF_OK);
    kf_part_writer_close(w);
}

static void test_txnindex_per_segment(void **state)
{
    (void)state;
    /* a transaction begun in one segment and aborted in the next: the entry
     * belongs to the segment holding the ABORT marker */
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 0, NULL, NULL), KF_OK);
    mk_spec s = mk_data(0, 4, 0);
    s.pid = 9;
    s.pepoch = 1;
    s.seq = 0;
    s.txn = true;
    assert_int_equal(add(w, &s), KF_OK);
    kf_part_segment out;
    assert_int_equal(kf_part_writer_close_segment(w, &out), KF_OK);
    assert_null(out.txn_path);
    assert_false(exists(dir, "00000000000000000000.txnindex"));
    assert_int_equal(kf_part_writer_segment(w, 4, NULL, NULL), KF_OK);
    s = mk_data(4, 1, 0);
    s.pid = 9;
    s.pepoch = 1;
    s.txn = true;
    s.ctl = KF_CONTROL_ABORT;
    s.coord = 3;
    assert_int_equal(add(w, &s), KF_OK);
    assert_true(kf_part_writer_step(w)->has_aborted);
    /* an entry the caller adds (a transaction begun before the replay) */
    kf_aborted_txn t = {77, 1, 4, 5};
    assert_int_equal(kf_part_writer_txn_entry(w, &t), KF_OK);
    assert_int_equal(kf_part_writer_close_segment(w, &out), KF_OK);
    assert_non_null(out.txn_path);
    assert_int_equal(out.txn_len, 2 * KF_TXN_ENTRY_SIZE);
    size_t n;
    uint8_t *txn = read_out(dir, "00000000000000000004.txnindex", &n);
    assert_int_equal(n, 2 * KF_TXN_ENTRY_SIZE);
    kf_txn_entry e;
    kf_txn_index_get(txn, 0, &e);
    assert_int_equal(e.producer_id, 9);
    assert_int_equal(e.first_offset, 0);
    assert_int_equal(e.last_offset, 4);
    assert_int_equal(e.last_stable_offset, 5);
    kf_txn_index_get(txn, 1, &e);
    assert_int_equal(e.producer_id, 77);
    free(txn);
    kf_part_writer_close(w);
}

static void test_large_entry_copied(void **state)
{
    (void)state;
    size_t n = 0;
    uint8_t *log = read_test_file("fixtures/segments/v2-multi/00000000000000000000.log", &n);
    assert_non_null(log);
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, log, n), KF_OK);
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 0, NULL, NULL), KF_OK);
    /* every entry through the large path: the same bytes and indexes */
    uint64_t pos = 0;
    uint32_t size;
    int8_t magic;
    while (pos < n && kf_batch_frame(log + pos, n - pos, &size, &magic) == KF_FRAME_OK) {
        kf_batch h;
        assert_int_equal(kf_part_writer_add_large(w, src, pos, &h), KF_OK);
        kf_batch whole;
        assert_int_equal(kf_batch_parse(log + pos, size, pos, &whole), KF_OK);
        assert_int_equal(h.size, size);
        assert_int_equal(h.last_offset, whole.last_offset);
        assert_int_equal(h.max_timestamp, whole.max_timestamp);
        assert_null(h.bytes);
        pos += size;
    }
    assert_int_equal(kf_part_writer_close_segment(w, NULL), KF_OK);
    assert_same_file("fixtures/segments/v2-multi/00000000000000000000.log", dir, "00000000000000000000.log");
    assert_same_file("fixtures/segments/v2-multi/00000000000000000000.index", dir, "00000000000000000000.index");
    assert_same_file("fixtures/segments/v2-multi/00000000000000000000.timeindex", dir,
                     "00000000000000000000.timeindex");
    /* an entry cut short is refused */
    assert_int_equal(kf_part_writer_segment(w, 10000, NULL, NULL), KF_OK);
    kf_source *cut;
    assert_int_equal(kf_source_memory(&cut, log, 100), KF_OK);
    assert_int_not_equal(kf_part_writer_add_large(w, cut, 0, NULL), KF_OK);
    kf_source_close(cut);
    kf_part_writer_close(w);
    kf_source_close(src);
    free(log);
}

static void test_log_end_and_force(void **state)
{
    (void)state;
    char dir[300];
    out_dir(dir, sizeof dir);
    kf_part_writer *w = open_writer(dir, false);
    int64_t leo;
    assert_false(kf_part_writer_log_end(w, &leo));
    assert_int_equal(kf_part_writer_segment(w, 40, NULL, NULL), KF_OK);
    assert_true(kf_part_writer_log_end(w, &leo));
    assert_int_equal(leo, 40); /* no batch: the base of the last segment */
    kf_part_finish f;
    assert_int_equal(kf_part_writer_finish(w, &f), KF_OK);
    assert_null(f.snapshot_path); /* no batch: no snapshot */
    assert_true(exists(dir, "00000000000000000040.log"));
    assert_true(exists(dir, "leader-epoch-checkpoint"));
    kf_part_writer_close(w);
    /* again without force: refused, the error names the file */
    w = open_writer(dir, false);
    assert_int_equal(kf_part_writer_segment(w, 40, "00000000000000000040.log", NULL), KF_ERR_IO);
    const kf_part_writer_error *e = kf_part_writer_err(w);
    assert_int_equal(e->err_no, EEXIST);
    assert_non_null(strstr(e->what, "--force"));
    assert_non_null(strstr(e->path, "00000000000000000040.log"));
    kf_part_writer_close(w);
    /* no temporary file left behind */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c tmp", dir);
    FILE *p = popen(cmd, "r");
    int tmps = -1;
    assert_non_null(p);
    assert_int_equal(fscanf(p, "%d", &tmps), 1);
    pclose(p);
    assert_int_equal(tmps, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_written_back),
        cmocka_unit_test(test_transactions_written_back),
        cmocka_unit_test(test_epochs_only_rise),
        cmocka_unit_test(test_refusals_write_nothing),
        cmocka_unit_test(test_rewind_restores_the_start),
        cmocka_unit_test(test_txnindex_per_segment),
        cmocka_unit_test(test_large_entry_copied),
        cmocka_unit_test(test_log_end_and_force),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
