/* test_snapshot.c: unit tests for src/format/producer_snapshot.c, the producer-state snapshot
 * reader. Snapshots are built by hand with the version-1 layout of
 * segment-format.md §4.7 (header: version int16, CRC-32C of [6, EOF), count
 * int32; 46-byte entries), including the real-world 10-byte empty snapshot
 * whose bytes are fixed (CRC-32C of four zero bytes is 0x48674BC7), a 0-byte
 * file, and each way the broker would reject one. */
#include "testutil.h"

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static void put_entry(uint8_t *p, int64_t pid, int16_t epoch, int32_t last_seq, int64_t last_off, int32_t delta,
                      int64_t ts, int32_t coord, int64_t txn_first)
{
    put64(p, (uint64_t)pid);
    put16(p + 8, (uint16_t)epoch);
    put32(p + 10, (uint32_t)last_seq);
    put64(p + 14, (uint64_t)last_off);
    put32(p + 22, (uint32_t)delta);
    put64(p + 26, (uint64_t)ts);
    put32(p + 34, (uint32_t)coord);
    put64(p + 38, (uint64_t)txn_first);
}

/* Header for `count` entries of a buffer of `size` bytes, with a correct CRC. */
static void seal(uint8_t *buf, size_t size, int16_t version, int32_t count)
{
    put16(buf, (uint16_t)version);
    put32(buf + 6, (uint32_t)count);
    put32(buf + 2, kf_crc32c(0, buf + 6, size - 6));
}

/* The empty snapshot a broker writes for a partition without producers. */
static void test_snapshot_empty_10_bytes(void **state)
{
    (void)state;
    const uint8_t buf[10] = {0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0, 0, 0, 0};
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_OK);
    assert_int_equal(s.version, 1);
    assert_int_equal(s.crc, 0x48674bc7u);
    assert_int_equal(s.crc_computed, 0x48674bc7u);
    assert_true(s.crc_ok);
    assert_int_equal(s.count, 0);
    assert_int_equal(s.entries, 0);
}

/* A 0-byte file fails the broker's schema read: it deletes the file. */
static void test_snapshot_zero_bytes(void **state)
{
    (void)state;
    kf_producer_snapshot s;
    uint8_t one = 0;
    assert_int_not_equal(kf_producer_snapshot_parse(NULL, 0, &s), KF_OK);
    assert_int_equal(s.entries, 0);
    assert_int_not_equal(kf_producer_snapshot_parse(&one, 0, &s), KF_OK);
    assert_non_null(strstr(kf_error_last()->message, "0-byte"));
}

static void test_snapshot_two_producers(void **state)
{
    (void)state;
    uint8_t buf[10 + 2 * 46];
    memset(buf, 0, sizeof buf);
    put_entry(buf + 10, 4001, 0, 11, 11, 11, 1668000000005, -1, -1);
    put_entry(buf + 56, 4002, 3, 13, 37, 2, 1668000000700, 5, 30);
    seal(buf, sizeof buf, 1, 2);
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_OK);
    assert_int_equal(s.count, 2);
    assert_int_equal(s.entries, 2);
    kf_producer_snapshot_entry e;
    kf_producer_snapshot_get(&s, 0, &e);
    assert_int_equal(e.producer_id, 4001);
    assert_int_equal(e.producer_epoch, 0);
    assert_int_equal(e.last_sequence, 11);
    assert_int_equal(e.last_offset, 11);
    assert_int_equal(e.offset_delta, 11);
    assert_int_equal(e.timestamp, 1668000000005);
    assert_int_equal(e.coordinator_epoch, -1);
    assert_int_equal(e.current_txn_first_offset, -1);
    kf_producer_snapshot_get(&s, 1, &e);
    assert_int_equal(e.producer_id, 4002);
    assert_int_equal(e.producer_epoch, 3);
    assert_int_equal(e.last_sequence, 13);
    assert_int_equal(e.last_offset, 37);
    assert_int_equal(e.offset_delta, 2);
    assert_int_equal(e.timestamp, 1668000000700);
    assert_int_equal(e.coordinator_epoch, 5);
    assert_int_equal(e.current_txn_first_offset, 30);
    /* out of range: zeroed, no read past the end */
    kf_producer_snapshot_get(&s, 2, &e);
    assert_int_equal(e.producer_id, 0);
}

static void test_snapshot_crc_mismatch(void **state)
{
    (void)state;
    uint8_t buf[10 + 46] = {0};
    put_entry(buf + 10, 7, 0, 1, 1, 0, 5, -1, -1);
    seal(buf, sizeof buf, 1, 1);
    buf[20] ^= 1; /* flip a bit inside the entry */
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_CORRUPT);
    assert_false(s.crc_ok);
    assert_int_not_equal(s.crc, s.crc_computed);
    assert_non_null(strstr(kf_error_last()->message, "CRC"));
    /* the entry can still be listed */
    assert_int_equal(s.entries, 1);
    kf_producer_snapshot_entry e;
    kf_producer_snapshot_get(&s, 0, &e);
    assert_int_equal(e.producer_id, 7);
}

static void test_snapshot_bad_version(void **state)
{
    (void)state;
    uint8_t buf[10] = {0};
    seal(buf, sizeof buf, 2, 0);
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_UNSUPPORTED);
    assert_int_equal(s.version, 2);
    assert_true(s.crc_ok);
}

static void test_snapshot_truncated(void **state)
{
    (void)state;
    uint8_t buf[10 + 46 + 20] = {0};
    put_entry(buf + 10, 9, 0, 1, 1, 0, 5, -1, -1);
    seal(buf, sizeof buf, 1, 2); /* says 2 entries, holds 1.4 */
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_TRUNCATED);
    assert_int_equal(s.count, 2);
    assert_int_equal(s.entries, 1);
}

static void test_snapshot_trailing_bytes(void **state)
{
    (void)state;
    uint8_t buf[10 + 46 + 3] = {0};
    put_entry(buf + 10, 9, 0, 1, 1, 0, 5, -1, -1);
    seal(buf, sizeof buf, 1, 1);
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_CORRUPT);
    assert_int_equal(s.entries, 1);
}

static void test_snapshot_negative_count(void **state)
{
    (void)state;
    uint8_t buf[10 + 46] = {0};
    seal(buf, sizeof buf, 1, -1);
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_CORRUPT);
    assert_int_equal(s.count, -1);
    assert_int_equal(s.entries, 1);
}

static void test_snapshot_short_header(void **state)
{
    (void)state;
    const uint8_t buf[7] = {0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0};
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_TRUNCATED);
    assert_int_equal(s.version, 1);
    assert_int_equal(s.entries, 0);
    assert_int_equal(kf_producer_snapshot_parse(buf, 1, &s), KF_ERR_TRUNCATED);
    assert_int_equal(kf_error_last()->code, KF_ERR_TRUNCATED);
    assert_non_null(strstr(kf_error_last()->message, "shorter than its 10-byte header"));
}

/* Huge count in a small file: no read past the end, entries bounded. */
static void test_snapshot_huge_count(void **state)
{
    (void)state;
    uint8_t buf[10 + 46 * 2] = {0};
    seal(buf, sizeof buf, 1, 0x7fffffff);
    kf_producer_snapshot s;
    assert_int_equal(kf_producer_snapshot_parse(buf, sizeof buf, &s), KF_ERR_TRUNCATED);
    assert_int_equal(s.entries, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_empty_10_bytes),
        cmocka_unit_test(test_snapshot_zero_bytes),
        cmocka_unit_test(test_snapshot_two_producers),
        cmocka_unit_test(test_snapshot_crc_mismatch),
        cmocka_unit_test(test_snapshot_bad_version),
        cmocka_unit_test(test_snapshot_truncated),
        cmocka_unit_test(test_snapshot_trailing_bytes),
        cmocka_unit_test(test_snapshot_negative_count),
        cmocka_unit_test(test_snapshot_short_header),
        cmocka_unit_test(test_snapshot_huge_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
