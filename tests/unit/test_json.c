/* Unit tests of the strict JSON scanner for Connect's offsets
 * (src/records/json.c): the number forms RFC 8259 allows and those it does
 * not, alone and inside a Connect key. */
#include "testutil.h"
#include "records/json.h"

#include <string.h>

static bool valid(const char *s) { return kf_json_valid((const uint8_t *)s, strlen(s)); }

static void test_numbers(void **state)
{
    (void)state;
    static const char *const good[] = {"0", "-0", "7", "-12", "1.5", "-0.25", "1e5", "1E+5", "2e-07",
                                       "-3.5e10", "123456789012345678901234567890", "1e400", " 4 "};
    static const char *const bad[] = {"-",  "+1", ".5", "1.", "1.e5", "1e", "1e+", "1E-", "--1",
                                      "1-", "1.2.3", "0x10", "1e5.0", "- 1", ""};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!valid(good[i]))
            fail_msg("'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (valid(bad[i]))
            fail_msg("'%s' taken", bad[i]);
}

static void test_numbers_in_key(void **state)
{
    (void)state;
    const char *key = "[\"c\",{\"p\":-1.5e3,\"q\":[0,2.25]}]";
    size_t cs, ce, ps, pe;
    assert_true(kf_connect_key_parse((const uint8_t *)key, strlen(key), &cs, &ce, &ps, &pe));
    assert_int_equal(cs, 1);
    assert_int_equal(ce, 4);
    assert_int_equal(ps, 5);
    assert_int_equal(pe, strlen(key) - 1);
    assert_false(valid("{\"p\":1.}"));
    assert_true(valid("{\"p\":[1e1,-0.0]}"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_numbers_in_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
