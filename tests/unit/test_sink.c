/* test_sink.c: the storage-sink catch-up simulation (src/jobs/sink/sink.c,
 * sink_read.c, sink_topic.c). Expected figures are worked out by hand from
 * cli.md's rules in the comments next to them; the partition reader tests
 * use facts of tools/gen/gen_sink.py's fixtures (record counts, the one
 * transaction marker, the damage done). */
#include "testutil.h"

#include "kfsck/sink.h"

typedef struct rec {
    int64_t offset, ts;
} rec;

static kf_sink_figures sim(int64_t duration, uint64_t flush, int64_t rotate, const rec *r, size_t n)
{
    kf_sink_config c = {duration, flush, rotate};
    kf_sink *s;
    assert_int_equal(kf_sink_new(&s, &c), KF_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(kf_sink_add(s, r[i].offset, r[i].ts), KF_OK);
    kf_sink_figures f;
    kf_sink_figures_get(s, &f);
    kf_sink_free(s);
    return f;
}

static void test_flush_size(void **state)
{
    (void)state;
    /* duration 10, flush.size 3: buckets 0 1 0 | 2 2 0 |
     * 0:{0} 1:{0,1} peak 2 at offset 1, 2: 3 records -> commit 2 files;
     * 3:{2} 4:{2} 5:{2,0} -> commit 2 files. */
    rec r[] = {{0, 5}, {1, 15}, {2, 7}, {3, 25}, {4, 26}, {5, 3}};
    kf_sink_figures f = sim(10, 3, 0, r, 6);
    assert_true(f.records_written == 6);
    assert_true(f.files_committed == 4);
    assert_true(f.peak_open_files == 2);
    assert_true(f.has_peak && f.peak_at_offset == 1);
    assert_true(f.open_files == 0);
    /* one record more: opens a file that stays open (not committed) */
    rec r2[] = {{0, 5}, {1, 15}, {2, 7}, {3, 25}, {4, 26}, {5, 3}, {9, 99}};
    f = sim(10, 3, 0, r2, 7);
    assert_true(f.files_committed == 4 && f.open_files == 1 && f.records_written == 7);
}

static void test_rotate_on_bucket_change(void **state)
{
    (void)state;
    /* rotate 20: every bucket change commits the open file first:
     * 5 {0}; 15 commit(1) {1}; 7 commit(1) {0}; 25 commit(1) {2}; 26 same
     * bucket, 1 ms after 25; 3 commit(1) {0}: 4 committed, 1 open, peak 1
     * at offset 0 */
    rec r[] = {{0, 5}, {1, 15}, {2, 7}, {3, 25}, {4, 26}, {5, 3}};
    kf_sink_figures f = sim(10, 3, 20, r, 6);
    assert_true(f.files_committed == 4);
    assert_true(f.open_files == 1);
    assert_true(f.peak_open_files == 1 && f.peak_at_offset == 0);
}

static void test_rotate_on_interval(void **state)
{
    (void)state;
    /* one bucket (duration 100), rotate 10: 0 5 | 10 11 | 25; the commit
     * comes before the record that is 10 or more past the first one since
     * the last commit; a record older than that first one never rotates */
    rec r[] = {{0, 0}, {1, 5}, {2, 10}, {3, 11}, {4, 25}};
    kf_sink_figures f = sim(100, 100, 10, r, 5);
    assert_true(f.files_committed == 2 && f.open_files == 1 && f.peak_open_files == 1);
    rec late[] = {{0, 50}, {1, 20}, {2, 59}, {3, 60}};
    f = sim(100, 100, 10, late, 4); /* 20 is 30 behind 50; 59 is 9 past; 60 is 10 past */
    assert_true(f.files_committed == 1 && f.open_files == 1);
}

static void test_peak_is_first_reached(void **state)
{
    (void)state;
    /* flush 4, buckets a b | c d | ...: peak 2 first at offset 11 */
    rec r[] = {{10, 100}, {11, 200}, {12, 100}, {13, 200}, {14, 300}, {15, 400}};
    kf_sink_figures f = sim(100, 4, 0, r, 6);
    assert_true(f.peak_open_files == 2 && f.peak_at_offset == 11);
    assert_true(f.files_committed == 2 && f.open_files == 2);
}

static void test_many_buckets_and_commits(void **state)
{
    (void)state;
    kf_sink_config c = {1, 5000, 0};
    kf_sink *s;
    assert_int_equal(kf_sink_new(&s, &c), KF_OK);
    /* 5000 distinct buckets in reverse: one open file each, then a commit;
     * then 20000 records over 3 buckets: 4 commits of 3 files */
    for (int64_t i = 0; i < 5000; i++)
        assert_int_equal(kf_sink_add(s, i, 4999 - i), KF_OK);
    for (int64_t i = 0; i < 20000; i++)
        assert_int_equal(kf_sink_add(s, 5000 + i, i % 3), KF_OK);
    kf_sink_figures f;
    kf_sink_figures_get(s, &f);
    assert_true(f.peak_open_files == 5000 && f.peak_at_offset == 4999);
    assert_true(f.files_committed == 5000 + 4 * 3);
    assert_true(f.open_files == 0);
    /* the next partition starts empty and its figures are its own */
    kf_sink_reset(s);
    for (int64_t i = 0; i < 7; i++)
        assert_int_equal(kf_sink_add(s, i, i), KF_OK);
    kf_sink_figures_get(s, &f);
    assert_true(f.peak_open_files == 7 && f.records_written == 7 && f.files_committed == 0 && f.open_files == 7);
    kf_sink_free(s);
}

static void test_negative_and_extreme_timestamps(void **state)
{
    (void)state;
    /* floor: -1 and -10 share bucket -10 with duration 10; 0 does not */
    rec r[] = {{0, -1}, {1, -10}, {2, 0}, {3, INT64_MAX}, {4, INT64_MIN}};
    kf_sink_figures f = sim(10, 100, 0, r, 5);
    assert_true(f.peak_open_files == 4);
    f = sim(10, 100, 1, r, 5); /* rotation with differences that overflow int64 */
    assert_true(f.files_committed == 3 && f.open_files == 1);
}

static void test_config_and_helpers(void **state)
{
    (void)state;
    kf_sink *s;
    kf_sink_config bad[] = {{0, 1, 0}, {-5, 1, 0}, {10, 0, 0}, {10, 1, -1}};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(kf_sink_new(&s, &bad[i]), KF_ERR_UNSUPPORTED);
        assert_null(s);
    }
    assert_true(kf_sink_buffer_bytes(3, 25u << 20) == 3 * (25ull << 20));
    assert_true(kf_sink_buffer_bytes(UINT64_MAX / 2, 3) == UINT64_MAX);
    assert_true(kf_sink_buffer_bytes(0, UINT64_MAX) == 0);

    kf_sink_alt alt[KF_SINK_ALTS];
    kf_sink_config c = {3600000, 10000, 0};
    kf_sink_alternatives(&c, alt);
    assert_true(alt[KF_SINK_WITH_ROTATE].on && alt[KF_SINK_WITH_ROTATE].config.rotate_interval_ms == 3600000);
    assert_true(alt[KF_SINK_WITH_ROTATE].config.flush_size == 10000);
    assert_true(alt[KF_SINK_WITH_SMALLER_FLUSH].on && alt[KF_SINK_WITH_SMALLER_FLUSH].config.flush_size == 1000);
    assert_true(alt[KF_SINK_WITH_SMALLER_FLUSH].config.rotate_interval_ms == 0);
    c.flush_size = 9;
    kf_sink_alternatives(&c, alt);
    assert_true(alt[KF_SINK_WITH_SMALLER_FLUSH].config.flush_size == 1);
    c.flush_size = 1;
    kf_sink_alternatives(&c, alt);
    assert_true(alt[KF_SINK_WITH_ROTATE].on && !alt[KF_SINK_WITH_SMALLER_FLUSH].on);
    c.rotate_interval_ms = 60000;
    kf_sink_alternatives(&c, alt);
    assert_true(!alt[KF_SINK_WITH_ROTATE].on && !alt[KF_SINK_WITH_SMALLER_FLUSH].on);
}

static void test_suggestion(void **state)
{
    (void)state;
    kf_sink_opts o;
    kf_sink_opts_init(&o);
    o.config = (kf_sink_config){3600000, 1000, 0};
    kf_sink_topic t;
    kf_sink_topic_init(&t, &o);
    kf_sink_partition p;
    memset(&p, 0, sizeof p);
    kf_sink_alternatives(&o.config, p.alt);
    /* two partitions peaking at 12 and 8 files; with rotation 1 each */
    for (int i = 0; i < 2; i++) {
        p.records = p.figures.records_written = 500;
        p.figures.peak_open_files = i ? 8 : 12;
        p.figures.files_committed = 40;
        p.alt[KF_SINK_WITH_ROTATE].figures = (kf_sink_figures){500, 300, 1, 1, true, 0};
        p.alt[KF_SINK_WITH_SMALLER_FLUSH].figures = (kf_sink_figures){500, 90, 2, 3, true, 0};
        kf_sink_topic_add(&t, &p);
    }
    assert_true(t.partitions == 2 && t.figures.peak_open_files == 20 && t.records == 1000);
    char buf[2000];
    kf_sink_advice_in adv = {o.config, 0, 0, 0, 25u << 20, 0, 1, NULL, 0};
    size_t n = kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_int_equal(n, strlen(buf));
    assert_non_null(strstr(buf, "rotate.interval.ms (e.g. 3600000"));
    /* the topic's 20 files are the sum of two partitions' peaks: an upper bound */
    assert_non_null(strstr(buf, "2 open files (50.0 MiB of buffers) instead of at most 20 open files (500.0 MiB of "
                                "buffers), if every partition peaks at once"));
    assert_non_null(strstr(buf, "600 files committed instead of 80"));
    assert_non_null(strstr(buf, "flush.size to 100: at most 6 open files (150.0 MiB of buffers), 180 files committed"));
    assert_non_null(strstr(buf, "s3.part.size=5 MiB (its minimum): the same open files (at most 20) hold 100.0 MiB"));
    /* 1000 records in 600 files: tiny */
    assert_non_null(strstr(buf, "fewer than 1,000 records"));
    /* truncated into a small buffer: still terminated, the length it needed */
    char small[16];
    assert_int_equal(kf_sink_advise(&t, &adv, small, sizeof small), n);
    assert_int_equal(strlen(small), sizeof small - 1);

    /* the levers against a heap of 300 MiB: the part size whose buffers
     * stay below it (15 MiB x 20 files would fill it exactly), the workers
     * whose largest task stays below it (12 files x 25 MiB fill it: none
     * does, so one partition a task, and that fills it) */
    uint64_t peaks[2] = {12, 8};
    adv.heap = 300u << 20;
    adv.partition_peaks = peaks;
    adv.npartitions = 2;
    kf_sink_lever lever[KF_SINK_LEVERS];
    kf_sink_levers(&t, &adv, lever);
    assert_true(lever[KF_SINK_LEVER_ROTATE].on && lever[KF_SINK_LEVER_ROTATE].peak_open_files == 2);
    assert_int_equal(lever[KF_SINK_LEVER_ROTATE].verdict, KF_SINK_FITS);
    assert_true(lever[KF_SINK_LEVER_ROTATE].tiny_files);
    assert_int_equal(lever[KF_SINK_LEVER_FLUSH].value, 100);
    assert_int_equal(lever[KF_SINK_LEVER_PART_SIZE].value, 14u << 20);
    assert_int_equal(lever[KF_SINK_LEVER_PART_SIZE].verdict, KF_SINK_FITS);
    assert_int_equal(lever[KF_SINK_LEVER_WORKERS].value, 2);
    assert_int_equal(lever[KF_SINK_LEVER_WORKERS].peak_open_files, 12);
    assert_int_equal(lever[KF_SINK_LEVER_WORKERS].verdict, KF_SINK_FILLS);
    assert_string_equal(kf_sink_verdict_name(KF_SINK_FILLS), "fits"); /* the JSON rule: at most the heap */
    kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_non_null(strstr(buf, "tasks.max=2 on 2 workers, a task each (this topic's 2 partitions round-robin): the "
                                "largest task holds at most 12 open files (300.0 MiB of buffers), the same files, "
                                "fills the 300.0 MiB heap exactly, leaving nothing for the worker itself"));
    /* two tasks given: no more workers to offer for two partitions */
    adv.tasks = 2;
    kf_sink_levers(&t, &adv, lever);
    assert_false(lever[KF_SINK_LEVER_WORKERS].on);
    adv.tasks = 1;
    /* a heap the buffers fill exactly: not a fit in words, and no "nothing to change" */
    adv.heap = 500u << 20;
    assert_int_equal(kf_sink_verdict_of(500u << 20, adv.heap), KF_SINK_FILLS);
    kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_null(strstr(buf, "nothing to change"));
    assert_non_null(strstr(buf, "which fill the 500.0 MiB heap exactly, leaving nothing for the worker itself"));
    /* a heap the buffers stay below: nothing to change */
    adv.heap = (500u << 20) + 1;
    kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_non_null(strstr(buf, "nothing to change"));
    adv.heap = 0;
    adv.partition_peaks = NULL;
    adv.npartitions = 0;

    /* already one file per partition */
    t.figures.peak_open_files = 2;
    kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_non_null(strstr(buf, "already at most one file open per partition"));
    /* rotation given */
    adv.config = (kf_sink_config){3600000, 1000, 600000};
    adv.part_size = 5u << 20;
    kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_non_null(strstr(buf, "rotate.interval.ms=600000 already"));
    assert_non_null(strstr(buf, "2 open files (10.0 MiB of buffers)"));
    /* nothing written */
    kf_sink_topic_init(&t, &o);
    kf_sink_advise(&t, &adv, buf, sizeof buf);
    assert_non_null(strstr(buf, "nothing"));
}

/* rotate.schedule.interval.ms counted in records: a commit every 3 records
 * written, through the flush.size commits */
static void test_schedule(void **state)
{
    (void)state;
    assert_int_equal(kf_sink_schedule_records(600000, 1000), 600000);
    assert_int_equal(kf_sink_schedule_records(500, 1), 1);
    assert_int_equal(kf_sink_schedule_records(0, 1000), 0);
    assert_int_equal(kf_sink_schedule_records(INT64_MAX, UINT64_MAX), UINT64_MAX);
    kf_sink *s;
    kf_sink_config c = {1000, 5, 0};
    assert_int_equal(kf_sink_new(&s, &c), KF_OK);
    kf_sink_set_schedule(s, 3);
    /* seven records, each in a bucket of its own */
    for (int64_t i = 0; i < 7; i++)
        assert_int_equal(kf_sink_add(s, i, i * 1000), KF_OK);
    kf_sink_figures f;
    kf_sink_figures_get(s, &f);
    /* scheduled commits after the 3rd and the 6th record (3 files each; flush.size is not reached
     * between them), the 7th still open */
    assert_int_equal(f.files_committed, 6);
    assert_int_equal(f.peak_open_files, 3);
    assert_int_equal(f.open_files, 1);
    kf_sink_free(s);
}

/* ---- reading fixture partitions ---------------------------------------- */

static int read_fixture(const char *dir, const kf_sink_opts *o, kf_sink_partition *out, problem_log *plog)
{
    kf_inputs in;
    char *paths[] = {(char *)dir};
    assert_int_equal(kf_inputs_collect(&in, paths, 1, NULL, NULL), KF_OK);
    assert_int_equal(in.n, 1);
    kf_part_reader_opts ro;
    kf_part_reader_opts_init(&ro);
    ro.problem_fn = problem_log_fn;
    ro.problem_ctx = plog;
    kf_part_reader *r;
    assert_int_equal(kf_part_reader_open(&r, &in.parts[0], &ro), KF_OK);
    int rc = kf_sink_read_partition(r, o, out);
    kf_part_reader_close(r, NULL);
    kf_inputs_free(&in);
    return rc;
}

static void test_read_partition(void **state)
{
    (void)state;
    kf_sink_opts o;
    kf_sink_opts_init(&o);
    o.config = (kf_sink_config){3600000, 100, 0};
    problem_log plog = {0};
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &plog;
    kf_sink_partition p;
    /* events-2: 400 data records and one COMMIT marker (tools/gen/gen_sink.py) */
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &o, &p, &plog), KF_OK);
    assert_true(p.records == 400 && p.control_records == 1 && p.records_without_timestamp == 0);
    assert_true(p.figures.records_written == 400 && p.skipped_batches == 0);
    assert_true(p.has_resume && p.resume_offset == 0);
    assert_true(p.alt[KF_SINK_WITH_ROTATE].on && p.alt[KF_SINK_WITH_ROTATE].figures.peak_open_files == 1);
    assert_true(p.alt[KF_SINK_WITH_SMALLER_FLUSH].on && p.alt[KF_SINK_WITH_SMALLER_FLUSH].config.flush_size == 10);
    assert_true(p.figures.peak_open_files > 1);
    assert_int_equal(plog.n, 0);

    /* from offset 390 of 0..400: 11 data records */
    o.from = KF_SINK_FROM_OFFSET;
    o.from_value = 390;
    o.no_alternatives = true;
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &o, &p, &plog), KF_OK);
    assert_true(p.records == 11 && p.resume_offset == 390 && p.control_records == 0);
    assert_true(!p.alt[0].on && !p.alt[1].on);
    /* from a time after every record: nothing */
    o.from = KF_SINK_FROM_TIME;
    o.from_value = INT64_MAX;
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &o, &p, &plog), KF_OK);
    assert_true(!p.has_resume && p.records == 0 && !p.figures.has_peak);

    /* legacy-0: 10 magic-0 messages and two v2 records at -1 of 42 */
    o.from = KF_SINK_FROM_START;
    assert_int_equal(read_fixture("fixtures/sink/datadir/legacy-0", &o, &p, &plog), KF_OK);
    assert_true(p.records == 42 && p.records_without_timestamp == 12 && p.figures.records_written == 30);
    /* from time 0: the first batch with a timestamp is the first magic-1 message, offset 10 */
    o.from = KF_SINK_FROM_TIME;
    o.from_value = 0;
    assert_int_equal(read_fixture("fixtures/sink/datadir/legacy-0", &o, &p, &plog), KF_OK);
    assert_true(p.resume_offset == 10 && p.records == 32 && p.records_without_timestamp == 2);

    /* the damaged copy: the CRC-damaged batch never reaches the job (the
     * reader reports it); the gzip batch that does not decompress is skipped
     * and reported here, with its segment */
    o.from = KF_SINK_FROM_START;
    memset(&plog, 0, sizeof plog);
    assert_int_equal(read_fixture("fixtures/sink/damaged/events-1", &o, &p, &plog), KF_OK);
    assert_true(p.skipped_batches == 1);
    assert_true(problem_log_has(&plog, KF_P_DECOMPRESS_ERROR));
    assert_true(problem_log_has(&plog, KF_P_CRC_MISMATCH));
    assert_true(p.records < 400);
}

/* Options version 1 ends before schedule_records: whatever lies past it is
 * not read (no schedule); version 2 reads it (the alternatives' figures
 * with a schedule are checked against the model in
 * tests/e2e/test_stats_sink_plan.py). */
static void test_options_versions(void **state)
{
    (void)state;
    kf_sink_opts v2;
    kf_sink_opts_init(&v2);
    v2.config = (kf_sink_config){600000, 100, 0};
    kf_sink_partition plain, scheduled, old;
    problem_log plog = {0};
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &v2, &plain, &plog), KF_OK);
    v2.schedule_records = 20;
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &v2, &scheduled, &plog), KF_OK);
    assert_true(scheduled.figures.files_committed > plain.figures.files_committed);
    assert_true(scheduled.figures.peak_open_files < plain.figures.peak_open_files);
    kf_sink_opts v1 = v2; /* schedule_records still 20: a version-1 caller's stack garbage */
    v1.version = 1;
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &v1, &old, &plog), KF_OK);
    assert_int_equal(old.figures.files_committed, plain.figures.files_committed);
    assert_int_equal(old.figures.peak_open_files, plain.figures.peak_open_files);
    v1.version = KF_SINK_OPTIONS_VERSION + 1;
    assert_int_equal(read_fixture("fixtures/sink/datadir/events-2", &v1, &old, &plog), KF_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flush_size),           cmocka_unit_test(test_rotate_on_bucket_change),
        cmocka_unit_test(test_rotate_on_interval),   cmocka_unit_test(test_peak_is_first_reached),
        cmocka_unit_test(test_many_buckets_and_commits), cmocka_unit_test(test_negative_and_extreme_timestamps),
        cmocka_unit_test(test_config_and_helpers),   cmocka_unit_test(test_suggestion), cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_options_versions),
        cmocka_unit_test(test_read_partition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
