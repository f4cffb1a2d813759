/* test_cursor.c: the byte cursor's bounds checks, sticky error and varints. */
#include "testutil.h"
#include "bytes/cursor.h"

static void test_fixed_ints(void **state)
{
    (void)state;
    const uint8_t b[] = {0x01, 0x02, 0xff, 0xfe, 0x00, 0x00, 0x00, 0x2a, 0x80, 0, 0, 0, 0, 0, 0, 1};
    kf_cursor c;
    kf_cur_init(&c, b, sizeof b);
    assert_int_equal(kf_cur_i16(&c), 0x0102);
    assert_int_equal(kf_cur_i16(&c), -2);
    assert_int_equal(kf_cur_i32(&c), 42);
    assert_true(kf_cur_i64(&c) == (int64_t)0x8000000000000001ULL);
    assert_int_equal(c.err, 0);
    assert_int_equal(kf_cur_left(&c), 0);
}

/* kf_cur_be: 2, 4 and 8 bytes big-endian, unsigned (the top bit kept), and
 * what the fixed-width readers make of the same bytes. */
static void test_fixed_unsigned(void **state)
{
    (void)state;
    const uint8_t b[] = {0xff, 0xfe, 0x80, 0x00, 0x00, 0x01, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0xab, 0xcd};
    kf_cursor c;
    kf_cur_init(&c, b, sizeof b);
    assert_true(kf_cur_be(&c, 2) == 0xfffe);
    assert_true(kf_cur_be(&c, 4) == 0x80000001u);
    assert_true(kf_cur_be(&c, 8) == 0xfedcba9876543210ull);
    assert_int_equal(kf_cur_be(&c, 4), 0); /* two bytes left: the sticky error */
    assert_int_equal(c.err, KF_ERR_TRUNCATED);
    kf_cur_init(&c, b, sizeof b);
    assert_int_equal(kf_cur_u16(&c), 0xfffe);
    assert_true(kf_cur_u32(&c) == 0x80000001u);
    kf_cur_init(&c, b, sizeof b);
    assert_int_equal(kf_cur_i16(&c), -2);
    assert_int_equal(kf_cur_i32(&c), INT32_MIN + 1);
    assert_true(kf_cur_i64(&c) == (int64_t)0xfedcba9876543210ull);
    assert_int_equal(kf_cur_u16(&c), 0xabcd);
    assert_int_equal(kf_cur_left(&c), 0);
}

static void test_sticky_error(void **state)
{
    (void)state;
    const uint8_t b[] = {0, 0, 0, 7, 9};
    kf_cursor c;
    kf_cur_init(&c, b, sizeof b);
    assert_int_equal(kf_cur_i32(&c), 7);
    assert_int_equal(kf_cur_i32(&c), 0); /* only one byte left */
    assert_int_equal(c.err, KF_ERR_TRUNCATED);
    /* every later read fails without moving */
    assert_int_equal(kf_cur_u8(&c), 0);
    assert_null(kf_cur_take(&c, 0));
    assert_int_equal(c.pos, 4);
}

static void test_varints(void **state)
{
    (void)state;
    /* zigzag: 0->0, -1->1, 1->2, 300 -> 600 = 0xd8 0x04, -150 -> 299 = 0xab 0x02 */
    const uint8_t b[] = {0x00, 0x01, 0x02, 0xd8, 0x04, 0xab, 0x02};
    kf_cursor c;
    kf_cur_init(&c, b, sizeof b);
    assert_int_equal(kf_cur_varint(&c), 0);
    assert_int_equal(kf_cur_varint(&c), -1);
    assert_int_equal(kf_cur_varint(&c), 1);
    assert_int_equal(kf_cur_varint(&c), 300);
    assert_int_equal(kf_cur_varint(&c), -150);
    assert_int_equal(c.err, 0);
}

static void test_varint_limits(void **state)
{
    (void)state;
    /* INT32_MIN zigzag = 0xffffffff: ff ff ff ff 0f */
    const uint8_t min32[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    kf_cursor c;
    kf_cur_init(&c, min32, sizeof min32);
    assert_int_equal(kf_cur_varint(&c), INT32_MIN);
    /* a sixth continuation byte is malformed for a 32-bit varint */
    const uint8_t bad[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    kf_cur_init(&c, bad, sizeof bad);
    (void)kf_cur_varint(&c);
    assert_int_equal(c.err, KF_ERR_CORRUPT);
    /* 64-bit: INT64_MIN zigzag = all ones, 10 bytes */
    const uint8_t min64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    kf_cur_init(&c, min64, sizeof min64);
    assert_true(kf_cur_varlong(&c) == INT64_MIN);
    assert_int_equal(c.err, 0);
    /* truncated varint */
    const uint8_t cut[] = {0x80, 0x80};
    kf_cur_init(&c, cut, sizeof cut);
    (void)kf_cur_varlong(&c);
    assert_int_equal(c.err, KF_ERR_TRUNCATED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_ints),
        cmocka_unit_test(test_fixed_unsigned),
        cmocka_unit_test(test_sticky_error),
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_varint_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
