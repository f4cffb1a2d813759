/* test_compaction.c: the compaction job's two pure pieces. The cleaner's
 * rule (kf_cleanable_offsets) on small logs whose answers follow by hand
 * from Kafka's LogCleanerManager.cleanableOffsets and LogToClean (segment
 * ranges taken as LogSegments.values takes them); the key table
 * (compaction_keys.c) through its growth, against a plain count. */
#include "testutil.h"

#include "jobs/compaction/compaction_keys.h"
#include "kfsck/compaction.h"

/* Four segments of 100 offsets, 1000 bytes each; the last is active. */
static kf_cleaner_segment SEGS[] = {
    {0, 1000, true, 1000, true, 900},
    {100, 1000, true, 2000, true, 1900},
    {200, 1000, true, 3000, true, 2900},
    {300, 1000, true, 4000, true, 3900},
};

static kf_cleanable_input input(void)
{
    return (kf_cleanable_input){
        .segments = SEGS, .nsegments = 4, .log_start_offset = 0, .log_end_offset = 350,
        .last_stable_offset = 350, .now_ms = 10000, .max_compaction_lag_ms = INT64_MAX,
        .min_cleanable_ratio = 0.5,
    };
}

static void test_no_checkpoint(void **state)
{
    (void)state;
    kf_cleanable_input in = input();
    kf_cleanable c;
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.first_dirty_offset, 0);
    assert_int_equal(c.dirty_reset, KF_DIRTY_NO_ENTRY);
    assert_int_equal(c.first_uncleanable_offset, 300);
    assert_int_equal(c.reason, KF_UNCLEANABLE_ACTIVE_SEGMENT);
    assert_int_equal(c.cleanable_bytes, 3000);
    assert_int_equal(c.clean_bytes, 0);
    assert_true(c.has_ratio && c.dirty_ratio == 1.0 && c.would_clean);
}

static void test_checkpoint_inside_a_segment(void **state)
{
    (void)state;
    kf_cleanable_input in = input();
    in.has_checkpoint = true;
    in.checkpoint_offset = 150;
    kf_cleanable c;
    kf_cleanable_offsets(&in, &c);
    /* clean: bases below 150 (0, 100); cleanable: from the segment holding 150 to 300 */
    assert_int_equal(c.first_dirty_offset, 150);
    assert_int_equal(c.clean_bytes, 2000);
    assert_int_equal(c.cleanable_bytes, 2000);
    assert_true(c.dirty_ratio == 0.5);
    assert_false(c.would_clean); /* 0.5 is not above 0.5 */
    in.min_cleanable_ratio = 0.49;
    kf_cleanable_offsets(&in, &c);
    assert_true(c.would_clean);
}

static void test_checkpoint_resets(void **state)
{
    (void)state;
    kf_cleanable_input in = input();
    in.has_checkpoint = true;
    in.log_start_offset = 120;
    in.checkpoint_offset = 50;
    kf_cleanable c;
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.dirty_reset, KF_DIRTY_BELOW_LOG_START);
    assert_int_equal(c.first_dirty_offset, 120);
    in.checkpoint_offset = 351;
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.dirty_reset, KF_DIRTY_PAST_LOG_END);
    assert_int_equal(c.first_dirty_offset, 120);
    in.checkpoint_offset = 350; /* the log end itself is kept */
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.dirty_reset, KF_DIRTY_FROM_CHECKPOINT);
    assert_int_equal(c.first_dirty_offset, 350);
    assert_int_equal(c.first_uncleanable_offset, 350); /* raised to the first dirty offset */
    assert_int_equal(c.cleanable_bytes, 0);
}

static void test_bounds_and_ties(void **state)
{
    (void)state;
    kf_cleanable_input in = input();
    in.last_stable_offset = 150;
    kf_cleanable c;
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.reason, KF_UNCLEANABLE_LAST_STABLE_OFFSET);
    assert_int_equal(c.first_uncleanable_offset, 150);
    assert_int_equal(c.first_uncleanable_segment, 100);
    assert_int_equal(c.cleanable_bytes, 1000);
    in.last_stable_offset = 300; /* a tie with the active segment: the first named wins */
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.reason, KF_UNCLEANABLE_LAST_STABLE_OFFSET);
    in.last_stable_offset = 350;
    in.min_compaction_lag_ms = 8000; /* horizon 2000: segment 100's largest 2000 is not after it */
    kf_cleanable_offsets(&in, &c);
    assert_true(c.has_lag_bound);
    assert_int_equal(c.lag_bound_offset, 200);
    assert_int_equal(c.reason, KF_UNCLEANABLE_MIN_COMPACTION_LAG);
    assert_int_equal(c.cleanable_bytes, 2000);
}

static void test_max_compaction_lag(void **state)
{
    (void)state;
    kf_cleanable_input in = input();
    in.has_checkpoint = true;
    in.checkpoint_offset = 150;
    in.max_compaction_lag_ms = 9000; /* until 1000: segment 100's first batch 1900 is not before it */
    kf_cleanable c;
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.compaction_delay_ms, 0);
    in.max_compaction_lag_ms = 7000; /* until 3000: 1900 is 1100 before it */
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.compaction_delay_ms, 1100);
    assert_true(c.need_compaction_now && c.would_clean);
    in.now_ms = INT64_MIN + 5; /* no overflow */
    kf_cleanable_offsets(&in, &c);
    assert_int_equal(c.compaction_delay_ms, 0);
}

static void test_one_empty_segment(void **state)
{
    (void)state;
    kf_cleaner_segment one = {0, 0, false, 0, false, 0};
    kf_cleanable_input in = {.segments = &one, .nsegments = 1, .min_cleanable_ratio = 0.5};
    kf_cleanable c;
    kf_cleanable_offsets(&in, &c);
    assert_false(c.has_ratio);
    assert_false(c.would_clean);
    assert_int_equal(c.first_uncleanable_offset, 0);
}

static void test_key_table(void **state)
{
    (void)state;
    ck_table t = {0};
    uint32_t prev = 0;
    for (uint32_t i = 0; i < 5000; i++) {
        char key[16];
        int n = snprintf(key, sizeof key, "k%u", i);
        assert_int_equal(ck_put(&t, ck_hash(key, (size_t)n), i, &prev), 0);
    }
    assert_int_equal(t.n, 5000);
    assert_true(t.n * 4 <= t.cap * 3);
    for (uint32_t i = 0; i < 5000; i += 7) {
        char key[16];
        int n = snprintf(key, sizeof key, "k%u", i);
        assert_int_equal(ck_put(&t, ck_hash(key, (size_t)n), 100000 + i, &prev), 1);
        assert_int_equal(prev, i);
    }
    assert_int_equal(t.n, 5000);
    assert_int_equal(ck_put(&t, 1, 5 | CK_TOMBSTONE, &prev), 0); /* the hash a 0 is stored as */
    assert_int_equal(ck_put(&t, 1, 6, &prev), 1);
    assert_int_equal(prev, 5 | CK_TOMBSTONE);
    ck_free(&t);
    assert_null(t.slots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_checkpoint),       cmocka_unit_test(test_checkpoint_inside_a_segment),
        cmocka_unit_test(test_checkpoint_resets),   cmocka_unit_test(test_bounds_and_ties),
        cmocka_unit_test(test_max_compaction_lag),  cmocka_unit_test(test_one_empty_segment),
        cmocka_unit_test(test_key_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
