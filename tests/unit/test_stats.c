/* test_stats.c: the time histogram, disorder tracker, record sizing and
 * duration parsing behind `kfsck stats` (src/jobs/stats/stats.c). */
#include "jobs/stats/stats_internal.h"
#include "testutil.h"

#include "kfsck/stats.h"

static void test_bucket_start(void **state)
{
    (void)state;
    assert_true(kf_bucket_start(0, 10) == 0);
    assert_true(kf_bucket_start(9, 10) == 0);
    assert_true(kf_bucket_start(10, 10) == 10);
    assert_true(kf_bucket_start(-1, 10) == -10);
    assert_true(kf_bucket_start(-10, 10) == -10);
    assert_true(kf_bucket_start(1700000000123, 3600000) == 1699999200000);
    assert_true(kf_bucket_start(INT64_MIN, 1000) <= INT64_MIN + 1000);
    assert_true(kf_bucket_start(INT64_MAX, 1) == INT64_MAX);
}

static void test_timehist(void **state)
{
    (void)state;
    kf_timehist h;
    kf_timehist_init(&h, 1000);
    /* many distinct buckets (forces growth), in reverse order, twice each */
    for (int rep = 0; rep < 2; rep++)
        for (int64_t i = 999; i >= 0; i--)
            assert_int_equal(kf_timehist_add(&h, i * 1000 + 500 + rep, (uint64_t)i), KF_OK);
    assert_int_equal(kf_timehist_add(&h, -1, 7), KF_OK);
    kf_tbucket *v;
    size_t n = kf_timehist_sorted(&h, &v);
    assert_int_equal(n, 1001);
    assert_true(v[0].start == -1000 && v[0].records == 1 && v[0].bytes == 7);
    for (size_t i = 1; i < n; i++) {
        assert_true(v[i].start == (int64_t)(i - 1) * 1000);
        assert_true(v[i].records == 2);
        assert_true(v[i].bytes == 2 * (i - 1));
    }
    free(v);
    kf_timehist_free(&h);
    kf_timehist_init(&h, 10);
    n = kf_timehist_sorted(&h, &v);
    assert_int_equal(n, 0);
    free(v);
    kf_timehist_free(&h);
}

static void test_lateness(void **state)
{
    (void)state;
    kf_lateness l = {0};
    int64_t ts[] = {100, 90, 200, 150, 210, 210, 50};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        kf_lateness_add(&l, ts[i]);
    assert_true(l.max_ts == 210);
    assert_true(l.max_lateness == 160);
    assert_true(l.late_records == 3);
    kf_lateness x = {0};
    kf_lateness_add(&x, INT64_MAX);
    kf_lateness_add(&x, INT64_MIN);
    assert_true(x.max_lateness == INT64_MAX);
}

static void test_payload_bytes(void **state)
{
    (void)state;
    /* two headers: "ab" -> "xyz", "k" -> null */
    static const uint8_t hdrs[] = {0x04, 'a', 'b', 0x06, 'x', 'y', 'z', 0x02, 'k', 0x01};
    kf_record r = {0};
    r.key_len = 3;
    r.value_len = -1;
    r.header_count = 2;
    r.headers = hdrs;
    r.headers_len = sizeof hdrs;
    assert_true(kf_record_payload_bytes(&r) == 3 + 2 + 3 + 1);
    r.key_len = -1;
    r.value_len = 10;
    r.header_count = 0;
    r.headers = NULL;
    r.headers_len = 0;
    assert_true(kf_record_payload_bytes(&r) == 10);
}

static void test_duration(void **state)
{
    (void)state;
    int64_t ms;
    assert_int_equal(kf_parse_duration_ms("500ms", &ms), 0);
    assert_true(ms == 500);
    assert_int_equal(kf_parse_duration_ms("10s", &ms), 0);
    assert_true(ms == 10000);
    assert_int_equal(kf_parse_duration_ms("10m", &ms), 0);
    assert_true(ms == 600000);
    assert_int_equal(kf_parse_duration_ms("1h", &ms), 0);
    assert_true(ms == 3600000);
    assert_int_equal(kf_parse_duration_ms("1d", &ms), 0);
    assert_true(ms == 86400000);
    assert_int_equal(kf_parse_duration_ms("1w", &ms), 0);
    assert_true(ms == 604800000);
    assert_int_equal(kf_parse_duration_ms("250", &ms), 0);
    assert_true(ms == 250);
    const char *bad[] = {"", "0", "0h", "-1", "+5", " 5", "5 ", "1.5h", "10x", "h", "ms", "99999999999999999999",
                         "9999999999999999d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(kf_parse_duration_ms(bad[i], &ms), KF_ERR_CORRUPT);
    assert_int_equal(kf_parse_duration_ms(NULL, &ms), KF_ERR_CORRUPT);
    assert_int_equal(kf_error_last()->code, KF_ERR_CORRUPT);
    assert_non_null(strstr(kf_error_last()->message, "not a positive duration"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_start), cmocka_unit_test(test_timehist), cmocka_unit_test(test_lateness),
        cmocka_unit_test(test_payload_bytes), cmocka_unit_test(test_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
