/* test_repair.c: unit tests for src/format/{out_file,index_builder,intact}.c:
 * safe output files (no overwrite without force, nothing under a final name
 * until the commit, no temporary file left by an abort), the recovery-rule
 * index builder (the strict 4096-byte interval, first batch never indexed,
 * time index max semantics and the closing entry, refusals where the broker
 * would throw), path containment, and the per-batch checks of a kept batch. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/index_builder.h"
#include "format/intact.h"
#include "format/out_file.h"
#include "testutil.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kfsck-unit-repair-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static int count_entries(const char *dir)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void test_out_file_commit_and_no_overwrite(void **state)
{
    (void)state;
    kf_out_file *f;
    assert_int_equal(kf_out_open(&f, tmpdir, "a.bin", false), KF_OK);
    assert_int_equal(kf_out_write(f, "hello", 5), KF_OK);
    char final[400];
    snprintf(final, sizeof final, "%s/a.bin", tmpdir);
    struct stat st;
    assert_int_not_equal(stat(final, &st), 0); /* not there before the commit */
    assert_int_equal(kf_out_commit(f), KF_OK);
    assert_int_equal(stat(final, &st), 0);
    assert_int_equal(st.st_size, 5);
    assert_int_equal(count_entries(tmpdir), 1);
    /* exists: refused without force, replaced with force */
    assert_int_equal(kf_out_open(&f, tmpdir, "a.bin", false), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, EEXIST);
    assert_int_equal(kf_out_write_file(tmpdir, "a.bin", "xy", 2, true), KF_OK);
    assert_int_equal(stat(final, &st), 0);
    assert_int_equal(st.st_size, 2);
    /* abort leaves nothing */
    assert_int_equal(kf_out_open(&f, tmpdir, "b.bin", false), KF_OK);
    assert_int_equal(kf_out_write(f, "zz", 2), KF_OK);
    kf_out_abort(f);
    assert_int_equal(count_entries(tmpdir), 1);
    /* a large write (past the buffer) */
    size_t big = 200000;
    uint8_t *buf = calloc(1, big);
    assert_non_null(buf);
    assert_int_equal(kf_out_write_file(tmpdir, "big.bin", buf, big, false), KF_OK);
    free(buf);
    snprintf(final, sizeof final, "%s/big.bin", tmpdir);
    assert_int_equal(stat(final, &st), 0);
    assert_int_equal((size_t)st.st_size, big);
}

static void test_mkdirs_under_file_fails(void **state)
{
    (void)state;
    char p[400];
    snprintf(p, sizeof p, "%s/x/y/z", tmpdir);
    assert_int_equal(kf_mkdirs(p), KF_OK);
    snprintf(p, sizeof p, "%s/plain", tmpdir);
    assert_int_equal(kf_out_write_file(tmpdir, "plain", "1", 1, false), KF_OK);
    snprintf(p, sizeof p, "%s/plain/sub", tmpdir);
    assert_int_equal(kf_mkdirs(p), KF_ERR_IO);
    assert_int_equal(kf_error_last()->err_no, ENOTDIR);
}

static void test_path_within(void **state)
{
    (void)state;
    char a[400], b[400];
    snprintf(a, sizeof a, "%s/part", tmpdir);
    assert_int_equal(kf_mkdirs(a), KF_OK);
    snprintf(b, sizeof b, "%s/part/not/yet", tmpdir);
    assert_true(kf_path_within(b, a));
    assert_true(kf_path_within(a, a));
    snprintf(b, sizeof b, "%s/part/../part/x", tmpdir);
    assert_true(kf_path_within(b, a));
    snprintf(b, sizeof b, "%s/partner", tmpdir);
    assert_false(kf_path_within(b, a));
    snprintf(b, sizeof b, "%s", tmpdir);
    assert_false(kf_path_within(b, a));
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void test_index_builder_rule(void **state)
{
    (void)state;
    kf_index_builder b;
    kf_index_builder_init(&b, 100, NULL, NULL);
    /* batches of 3000 bytes: entries when (valid - last) > 4096 before adding */
    assert_int_equal(kf_index_builder_add(&b, 3000, 104, 50), KF_OK);  /* valid 0: none */
    assert_int_equal(b.index_entries, 0u);
    assert_int_equal(kf_index_builder_add(&b, 3000, 109, 40), KF_OK);  /* 3000: none */
    assert_int_equal(b.index_entries, 0u);
    assert_int_equal(kf_index_builder_add(&b, 3000, 115, 45), KF_OK);  /* 6000 > 4096: entry */
    assert_int_equal(b.index_entries, 1u);
    assert_int_equal(b.last_index_offset, 115);
    assert_int_equal(b.time_entries, 1u);
    assert_int_equal(b.last_time_ts, 50);      /* the running max, from the first batch */
    assert_int_equal(b.last_time_offset, 104);
    assert_int_equal(kf_index_builder_add(&b, 1096, 120, 60), KF_OK); /* 9000-6000=3000: none */
    assert_int_equal(kf_index_builder_add(&b, 100, 121, 10), KF_OK);  /* 10096-6000=4096: not > */
    assert_int_equal(b.index_entries, 1u);
    assert_int_equal(kf_index_builder_add(&b, 100, 122, 10), KF_OK);  /* 10196-6000 > 4096 */
    assert_int_equal(b.index_entries, 2u);
    assert_int_equal(b.last_time_ts, 60);
    assert_int_equal(b.last_time_offset, 120);
    assert_int_equal(kf_index_builder_finish(&b), KF_OK);  /* max unchanged: no closing entry */
    assert_int_equal(b.time_entries, 2u);
    /* the broker refuses offsets below the base */
    kf_index_builder_init(&b, 100, NULL, NULL);
    assert_int_equal(kf_index_builder_add(&b, 100, 99, 1), KF_ERR_CORRUPT);
}

static void test_index_builder_matches_committed_index(void **state)
{
    (void)state;
    /* segments/v2-multi's committed .index/.timeindex were built by tools/model/kafka_index.py */
    size_t n = 0, ni = 0, nt = 0;
    uint8_t *log = read_test_file("fixtures/segments/v2-multi/00000000000000000000.log", &n);
    uint8_t *ix = read_test_file("fixtures/segments/v2-multi/00000000000000000000.index", &ni);
    uint8_t *tix = read_test_file("fixtures/segments/v2-multi/00000000000000000000.timeindex", &nt);
    assert_non_null(log);
    assert_non_null(ix);
    assert_non_null(tix);
    kf_out_file *fi, *ft;
    assert_int_equal(kf_out_open(&fi, tmpdir, "v.index", true), KF_OK);
    assert_int_equal(kf_out_open(&ft, tmpdir, "v.timeindex", true), KF_OK);
    kf_index_builder b;
    kf_index_builder_init(&b, 0, fi, ft);
    uint64_t pos = 0;
    while (pos < n) {
        uint32_t size;
        int8_t magic;
        assert_int_equal(kf_batch_frame(log + pos, n - pos, &size, &magic), KF_FRAME_OK);
        kf_batch kb;
        assert_int_equal(kf_batch_parse_broker(log + pos, size, pos, &kb), KF_OK);
        assert_int_equal(kf_index_builder_add(&b, size, kb.last_offset, kb.max_timestamp), KF_OK);
        pos += size;
    }
    assert_int_equal(kf_index_builder_finish(&b), KF_OK);
    assert_int_equal(kf_out_commit(fi), KF_OK);
    assert_int_equal(kf_out_commit(ft), KF_OK);
    char p[400];
    size_t gi = 0, gt = 0;
    snprintf(p, sizeof p, "%s/v.index", tmpdir);
    uint8_t *gix = read_test_file(p, &gi);
    snprintf(p, sizeof p, "%s/v.timeindex", tmpdir);
    uint8_t *gtix = read_test_file(p, &gt);
    assert_int_equal(gi, ni);
    assert_int_equal(gt, nt);
    assert_memory_equal(gix, ix, ni);
    assert_memory_equal(gtix, tix, nt);
    free(log);
    free(ix);
    free(tix);
    free(gix);
    free(gtix);
}

/* The first batch of a log in memory, read with the reader's deep check:
 * is it intact (intact.h)? */
static bool first_batch_intact(const uint8_t *log, size_t n, const char **code)
{
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, log, n), KF_OK);
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.deep = true;
    o.threads = 1;
    kf_segment_iter *it;
    assert_int_equal(kf_segment_iter_open(&it, src, &o), KF_OK);
    kf_batch b;
    assert_int_equal(kf_segment_iter_next(it, &b, NULL), 1);
    char msg[200];
    bool ok = kf_batch_intact(&b, kf_segment_iter_check(it), code, msg, sizeof msg);
    if (!ok)
        assert_true(msg[0]);
    kf_segment_iter_close(it);
    kf_source_close(src);
    return ok;
}

static void test_deep_check(void **state)
{
    (void)state;
    size_t n = 0;
    uint8_t *log = read_test_file("fixtures/segments/v2-multi/00000000000000000000.log", &n);
    assert_non_null(log);
    uint32_t size;
    int8_t magic;
    assert_int_equal(kf_batch_frame(log, n, &size, &magic), KF_FRAME_OK);
    kf_batch b;
    assert_int_equal(kf_batch_parse(log, size, 0, &b), KF_OK);
    const char *code = NULL;
    assert_true(first_batch_intact(log, size, &code));
    assert_null(code);
    /* a wrong record count: CRC recomputed, so only the deep check sees it */
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, log, size);
    be32(copy + 57, (uint32_t)(b.count + 1));
    be32(copy + 17, kf_crc32c(0, copy + 21, size - 21));
    assert_false(first_batch_intact(copy, size, &code));
    assert_non_null(code);
    /* offsets: after the previous batch, inside the segment */
    char msg[200];
    assert_true(kf_batch_offsets_fit(&b, false, 0, b.base_offset, &code, msg, sizeof msg));
    assert_false(kf_batch_offsets_fit(&b, true, b.base_offset, -1, &code, msg, sizeof msg));
    assert_string_equal(code, KF_P_OFFSET_REGRESSION);
    assert_false(kf_batch_offsets_fit(&b, false, 0, b.base_offset + 1, &code, msg, sizeof msg));
    assert_string_equal(code, KF_P_BASE_OFFSET_MISMATCH);
    kf_batch far = b; /* 2^31 offsets past its segment's base */
    far.base_offset = (int64_t)3 << 31;
    far.last_offset = far.base_offset + 5;
    assert_false(kf_batch_offsets_fit(&far, false, 0, far.last_offset - (int64_t)INT32_MAX - 1, &code, msg, sizeof msg));
    assert_string_equal(code, KF_P_OFFSET_OVERFLOW);
    assert_true(kf_batch_offsets_fit(&far, false, 0, far.last_offset - (int64_t)INT32_MAX, &code, msg, sizeof msg));
    free(copy);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_file_commit_and_no_overwrite),
        cmocka_unit_test(test_mkdirs_under_file_fails),
        cmocka_unit_test(test_path_within),
        cmocka_unit_test(test_index_builder_rule),
        cmocka_unit_test(test_index_builder_matches_committed_index),
        cmocka_unit_test(test_deep_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
