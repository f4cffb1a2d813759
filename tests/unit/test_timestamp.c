/* test_timestamp.c: kf_timestamp_parse, the times users type. The expected
 * epoch milliseconds were computed with Python's datetime (an independent
 * calendar), not with this code. */
#include "testutil.h"

static void test_accepted(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int64_t ms;
    } cases[] = {
        {"1707700286142", 1707700286142LL},
        {"0", 0},
        {"2024-02-12T01:11:26Z", 1707700286000LL},
        {"2024-02-12T01:11:26.142+08:00", 1707671486142LL},
        {"2024-02-12", 1707696000000LL},
        {"1970-01-01", 0LL},
        {"1969-12-31T23:59:59.999Z", -1LL},
        {"2000-02-29T12:00-0530", 951845400000LL},
        {"9999-12-31T23:59:59.999999999Z", 253402300799999LL},
        {"0001-01-01", -62135596800000LL},
        {"2024-02-11 22:05z", 1707689100000LL},
        {"2023-06-30T10:00:00,5+02", 1688112000500LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 42;
        assert_int_equal(kf_timestamp_parse(cases[i].s, &v), KF_OK);
        if (v != cases[i].ms)
            fail_msg("%s: %lld, expected %lld", cases[i].s, (long long)v, (long long)cases[i].ms);
    }
}

static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *s, *why; /* a word of the reason */
    } cases[] = {
        {"", "empty"},
        {"2024-02-12T01:11:26", "time zone"},
        {"2024-02-30", "day"},
        {"2023-02-29", "day"},
        {"2100-02-29", "day"},
        {"2024-13-01", "month"},
        {"2024-00-10", "month"},
        {"2024-02-12T24:00Z", "time of day"},
        {"2024-02-12T23:60Z", "time of day"},
        {"2024-02-12T23:59:60Z", "time of day"},
        {"2024-2-12", "month"},
        {"24-02-12", "year"},
        {"2024-02-12T01:11:26.Z", "fraction"},
        {"2024-02-12T01:11:26.1234567890Z", "fraction"},
        {"2024-02-12T01:11Z+", "unexpected"},
        {"2024-02-12T01:11+19:00", "zone"},
        {"2024-02-12T01:11+08:7", "zone minutes"},
        {"2024-02-12X", "'T'"},
        {"-5", "year"},
        {"99999999999999999999", "range"},
        {"1707700286142ms", "year"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 42;
        kf_error_clear();
        assert_int_equal(kf_timestamp_parse(cases[i].s, &v), KF_ERR_CORRUPT);
        assert_true(v == 42);
        if (!strstr(kf_error_last()->message, cases[i].why))
            fail_msg("%s: reason '%s' lacks '%s'", cases[i].s, kf_error_last()->message, cases[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
