/* test_name_suggest.c: kf_closest_names, the names offered for a --group
 * or --topic that matches nothing: the usual slips first (connect-<name>,
 * a partition named as a topic), then near names, best first, capped. */
#include "testutil.h"

static const char *const GROUPS[] = {"connect-my-sink", "payments-app", "payments-api", "orders-reader",
                                     "zzz-unrelated"};
#define NGROUPS (sizeof GROUPS / sizeof GROUPS[0])

static void test_sink_connector_group(void **state)
{
    (void)state;
    const char *out[3];
    size_t n = kf_closest_names("my-sink", GROUPS, NGROUPS, out, 3);
    assert_true(n >= 1);
    assert_string_equal(out[0], "connect-my-sink");
}

static void test_partition_named_as_topic(void **state)
{
    (void)state;
    const char *const topics[] = {"orders", "order", "payments"};
    const char *out[3];
    size_t n = kf_closest_names("orders-12", topics, 3, out, 3);
    assert_true(n >= 1);
    assert_string_equal(out[0], "orders");
    /* a tail that is not a partition number is no partition */
    n = kf_closest_names("orders-x", topics, 3, out, 1);
    assert_int_equal(n, 1);
    assert_string_equal(out[0], "orders");  /* held in the name: still close */
}

static void test_typos_best_first_and_capped(void **state)
{
    (void)state;
    const char *out[2];
    size_t n = kf_closest_names("payments-apx", GROUPS, NGROUPS, out, 2);
    assert_int_equal(n, 2);
    /* both one edit away: in name order */
    assert_string_equal(out[0], "payments-api");
    assert_string_equal(out[1], "payments-app");
    assert_int_equal(kf_closest_names("payments-apx", GROUPS, NGROUPS, out, 1), 1);
}

static void test_nothing_close(void **state)
{
    (void)state;
    const char *out[3];
    assert_int_equal(kf_closest_names("qqqqqqqq", GROUPS, NGROUPS, out, 3), 0);
    assert_int_equal(kf_closest_names("x", GROUPS, 0, out, 3), 0);
    assert_int_equal(kf_closest_names("payments-app", GROUPS, NGROUPS, out, 0), 0);
}

static void test_long_names_are_bounded(void **state)
{
    (void)state;
    /* names longer than the compared prefix: no overrun, a result either way */
    char a[2000], b[2000];
    memset(a, 'a', sizeof a - 1);
    a[sizeof a - 1] = 0;
    memcpy(b, a, sizeof b);
    b[5] = 'b';
    const char *names[] = {b};
    const char *out[1];
    assert_int_equal(kf_closest_names(a, names, 1, out, 1), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sink_connector_group),
        cmocka_unit_test(test_partition_named_as_topic),
        cmocka_unit_test(test_typos_best_first_and_capped),
        cmocka_unit_test(test_nothing_close),
        cmocka_unit_test(test_long_names_are_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
