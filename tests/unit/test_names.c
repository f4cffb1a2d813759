/* test_names.c: classification of log-dir file and directory names. */
#include "testutil.h"

static void test_segment_files(void **state)
{
    (void)state;
    kf_name_info ni = kf_classify_name("00000000000000368769.log");
    assert_int_equal(ni.kind, KF_FILE_LOG);
    assert_true(ni.base_offset == 368769);
    assert_string_equal(ni.suffix, "");
    ni = kf_classify_name("00000000000000000042.timeindex.deleted");
    assert_int_equal(ni.kind, KF_FILE_TIMEINDEX);
    assert_true(ni.base_offset == 42);
    assert_string_equal(ni.suffix, ".deleted");
    assert_int_equal(kf_classify_name("00000000000000000000.index.swap").kind, KF_FILE_INDEX);
    assert_int_equal(kf_classify_name("00000000000000000000.txnindex").kind, KF_FILE_TXNINDEX);
    assert_int_equal(kf_classify_name("00000000000000000025.snapshot").kind, KF_FILE_PRODUCER_SNAPSHOT);
    ni = kf_classify_name("00000000000000007259-0000000001.checkpoint");
    assert_int_equal(ni.kind, KF_FILE_KRAFT_CHECKPOINT);
    assert_true(ni.base_offset == 7259);
}

static void test_fixed_names(void **state)
{
    (void)state;
    assert_int_equal(kf_classify_name("recovery-point-offset-checkpoint").kind, KF_FILE_OFFSET_CHECKPOINT);
    assert_int_equal(kf_classify_name("replication-offset-checkpoint").kind, KF_FILE_OFFSET_CHECKPOINT);
    assert_int_equal(kf_classify_name("leader-epoch-checkpoint").kind, KF_FILE_LEADER_EPOCH);
    assert_int_equal(kf_classify_name("partition.metadata").kind, KF_FILE_PARTITION_METADATA);
    assert_int_equal(kf_classify_name("meta.properties").kind, KF_FILE_META_PROPERTIES);
    assert_int_equal(kf_classify_name("quorum-state").kind, KF_FILE_QUORUM_STATE);
    assert_int_equal(kf_classify_name("quorum-state.tmp").kind, KF_FILE_UNKNOWN);
    kf_name_info ni = kf_classify_name("bootstrap.checkpoint");
    assert_int_equal(ni.kind, KF_FILE_BOOTSTRAP_CHECKPOINT);
    assert_true(ni.base_offset == 0);
    ni = kf_classify_name("00000000000000014403-0000000001.checkpoint.deleted");
    assert_int_equal(ni.kind, KF_FILE_KRAFT_CHECKPOINT);
    assert_string_equal(ni.suffix, ".deleted");
}

static void test_unknown(void **state)
{
    (void)state;
    assert_int_equal(kf_classify_name("notes.txt").kind, KF_FILE_UNKNOWN);
    assert_int_equal(kf_classify_name("abc.log").kind, KF_FILE_UNKNOWN);
    assert_int_equal(kf_classify_name(".log").kind, KF_FILE_UNKNOWN);
    assert_int_equal(kf_classify_name("99999999999999999999999.log").kind, KF_FILE_UNKNOWN);
    assert_int_equal(kf_classify_name("bootstrap.checkpoint.part").kind, KF_FILE_UNKNOWN);
    assert_int_equal(kf_classify_name("00000000000000007259-0000000001.checkpoint.part").kind, KF_FILE_UNKNOWN);
    assert_int_equal(kf_classify_name("").kind, KF_FILE_UNKNOWN);
    /* an unknown file has no base offset, even when its name starts like a
     * KRaft snapshot's (found by fuzz_names: the offset was kept) */
    kf_name_info ni = kf_classify_name("00000000000000007259-00x1.checkpoint");
    assert_int_equal(ni.kind, KF_FILE_UNKNOWN);
    assert_true(ni.base_offset == -1);
    ni = kf_classify_name("00000000000000007259-.checkpoint");
    assert_int_equal(ni.kind, KF_FILE_UNKNOWN);
    assert_true(ni.base_offset == -1);
}

static void test_partition_dirs(void **state)
{
    (void)state;
    char topic[64];
    int32_t p = -1;
    assert_true(kf_parse_partition_dir("__consumer_offsets-7", topic, sizeof topic, &p));
    assert_string_equal(topic, "__consumer_offsets");
    assert_int_equal(p, 7);
    assert_true(kf_parse_partition_dir("my-topic-12", topic, sizeof topic, &p));
    assert_string_equal(topic, "my-topic");
    assert_int_equal(p, 12);
    assert_true(kf_parse_partition_dir("orders-3.4f8a9e2b0c1d4e5f8a9b0c1d2e3f4a5b-delete", topic, sizeof topic, &p));
    assert_string_equal(topic, "orders");
    assert_int_equal(p, 3);
    assert_false(kf_parse_partition_dir("orders", topic, sizeof topic, &p));
    assert_false(kf_parse_partition_dir("orders-x", topic, sizeof topic, &p));
    assert_false(kf_parse_partition_dir("-1", topic, sizeof topic, &p));
    /* a directory given with a trailing slash (kf_path_base keeps it) */
    assert_true(kf_parse_partition_dir(kf_path_base("fixtures/datadir/orders-0/"), topic, sizeof topic, &p));
    assert_string_equal(topic, "orders");
    assert_int_equal(p, 0);
    assert_true(kf_parse_partition_dir("__cluster_metadata-0//", topic, sizeof topic, &p));
    assert_string_equal(topic, "__cluster_metadata");
    assert_false(kf_parse_partition_dir("/", topic, sizeof topic, &p));
    /* truncation to the caller's buffer */
    char small[4];
    assert_true(kf_parse_partition_dir("abcdefgh-1", small, sizeof small, &p));
    assert_string_equal(small, "abc");
}

static void assert_sibling(const char *log_path, const char *ext, const char *want)
{
    char *got = kf_sibling_path(log_path, ext);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_sibling_path(void **state)
{
    (void)state;
    assert_sibling("d/00000000000000000398.log", ".index", "d/00000000000000000398.index");
    assert_sibling("00000000000000000398.log", ".timeindex", "00000000000000000398.timeindex");
    /* the broker suffix stays: the unsuffixed file is another (live) segment's */
    assert_sibling("a/b/00000000000000000000.log.deleted", ".txnindex", "a/b/00000000000000000000.txnindex.deleted");
    assert_sibling("00000000000000000000.log.cleaned", ".index", "00000000000000000000.index.cleaned");
    assert_sibling("00000000000000000000.log.swap", ".txnindex", "00000000000000000000.txnindex.swap");
    /* any stem before ".log" */
    assert_sibling("dir.log/my.segment.log", ".txnindex", "dir.log/my.segment.txnindex");
    /* not a .log name */
    assert_sibling("00000000000000000000.log.bak", ".index", NULL);
    assert_sibling("segment.bin", ".index", NULL);
    assert_sibling("log", ".index", NULL);
    assert_sibling("", ".index", NULL);
}

static void assert_dir(const char *path, const char *want)
{
    char *got = kf_path_dir(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_path_dir_and_base(void **state)
{
    (void)state;
    assert_dir("a/b/c.log", "a/b");
    assert_dir("a/b/", "a");
    assert_dir("a/b//", "a");
    assert_dir("b/", ".");
    assert_dir("b", ".");
    assert_dir("/b", "/");
    assert_dir("/b/", "/");
    assert_dir("/", "/");
    assert_string_equal(kf_path_base("a/b/"), "b/");
    assert_string_equal(kf_path_base("a/b"), "b");
}

/* LogFileUtils.offsetFromFileName (Long.parseLong before the first dot)
 * and KRaft's Snapshots.parse, as the broker reads a name. */
static void test_offsets_by_the_broker(void **state)
{
    (void)state;
    int64_t off;
    size_t n;
    assert_true(kf_name_offset("123.log", &off, &n));
    assert_true(off == 123 && n == 3);
    assert_true(kf_name_offset("+7.index", &off, &n) && off == 7);
    assert_true(kf_name_offset("9223372036854775807.log", &off, &n) && off == INT64_MAX);
    assert_false(kf_name_offset("9223372036854775808.log", &off, &n));
    assert_false(kf_name_offset("abc.log", &off, &n));
    assert_int_equal(n, 3);
    assert_false(kf_name_offset("nodot", &off, &n));
    assert_false(kf_name_offset(".log", &off, &n));
    assert_true(kf_name_carries_offset("abc.log"));
    assert_true(kf_name_carries_offset("x.timeindex"));
    assert_true(kf_name_carries_offset("00000000000000000000.log.cleaned"));
    assert_false(kf_name_carries_offset("abc.log.deleted"));
    assert_false(kf_name_carries_offset("00000000000000000000.snapshot"));
    assert_true(kf_snapshot_name_parses("00000000000000007259-0000000001.checkpoint"));
    assert_true(kf_snapshot_name_parses("bootstrap.txt"));
    assert_false(kf_snapshot_name_parses("99999999999999999999-0000000001.checkpoint"));
    assert_false(kf_snapshot_name_parses("x.checkpoint"));
    assert_false(kf_snapshot_name_parses("00000000000000007259-000000000x.checkpoint.part"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_by_the_broker),
        cmocka_unit_test(test_segment_files),
        cmocka_unit_test(test_fixed_names),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_partition_dirs),
        cmocka_unit_test(test_sibling_path),
        cmocka_unit_test(test_path_dir_and_base),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
