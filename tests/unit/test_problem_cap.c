/* test_problem_cap.c: unit tests for the cap on the problems listed of one
 * file (kf_problem_cap, common.h): the first KF_PROBLEMS_LISTED_MAX are
 * listed, the rest counted by severity, and a flush sums them up in one
 * problems_not_listed problem and starts the count of hidden ones over. */
#include "testutil.h"

static kf_problem problem_at(uint64_t position, kf_severity sev)
{
    kf_problem p;
    memset(&p, 0, sizeof p);
    p.code = KF_P_CRC_MISMATCH;
    p.severity = sev;
    p.position = position;
    return p;
}

static void test_nothing_hidden_flushes_nothing(void **state)
{
    (void)state;
    kf_problem_cap c = {0};
    kf_problem p = problem_at(7, KF_SEV_ERROR), q;
    memset(&q, 0x5a, sizeof q);
    for (int i = 0; i < KF_PROBLEMS_LISTED_MAX; i++)
        assert_true(kf_problem_cap_take(&c, &p));
    assert_int_equal(c.listed, KF_PROBLEMS_LISTED_MAX);
    assert_false(kf_problem_cap_flush(&c, "a.log", &q));
    assert_int_equal(q.position, 0x5a5a5a5a5a5a5a5aull); /* untouched */
}

static void test_past_the_cap_counted_and_summed_up(void **state)
{
    (void)state;
    kf_problem_cap c = {0};
    for (int i = 0; i < KF_PROBLEMS_LISTED_MAX; i++) {
        kf_problem p = problem_at((uint64_t)i, KF_SEV_WARNING);
        assert_true(kf_problem_cap_take(&c, &p));
    }
    kf_problem w1 = problem_at(5000, KF_SEV_WARNING), e = problem_at(6000, KF_SEV_ERROR),
               w2 = problem_at(7000, KF_SEV_WARNING);
    assert_false(kf_problem_cap_take(&c, &w1));
    assert_false(kf_problem_cap_take(&c, &e));
    assert_false(kf_problem_cap_take(&c, &w2));
    kf_problem q;
    assert_true(kf_problem_cap_flush(&c, "a.log", &q));
    assert_string_equal(q.code, KF_P_PROBLEMS_NOT_LISTED);
    assert_int_equal(q.severity, KF_SEV_ERROR); /* the worst of them */
    assert_int_equal(q.position, 5000);         /* the first's */
    assert_false(q.has_offset);
    assert_string_equal(q.file, "a.log");
    assert_string_equal(q.message,
                        "3 further problems of this file are not listed (1 errors, 2 warnings; the first 1000 are)");
    assert_int_equal(q.nextra, 2);
    assert_string_equal(q.extra[0].name, "errors");
    assert_int_equal(q.extra[0].i, 1);
    assert_string_equal(q.extra[1].name, "warnings");
    assert_int_equal(q.extra[1].i, 2);
    /* flushed: nothing left, and the next hidden one starts a new count */
    assert_false(kf_problem_cap_flush(&c, "a.log", &q));
    kf_problem w3 = problem_at(9000, KF_SEV_WARNING);
    assert_false(kf_problem_cap_take(&c, &w3));
    assert_true(kf_problem_cap_flush(&c, "", &q));
    assert_int_equal(q.severity, KF_SEV_WARNING);
    assert_int_equal(q.position, 9000);
    assert_null(q.file); /* "" names no file */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_hidden_flushes_nothing),
        cmocka_unit_test(test_past_the_cap_counted_and_summed_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
