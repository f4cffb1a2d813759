/* test_batch.c: the batch header parser and the record iterator on hand-built
 * v2 batches whose bytes follow segment-format.md §2 (records: attributes,
 * varlong timestamp delta, varint offset delta, varint-length key and value,
 * varint header count, headers). Each test names the rule it checks; the
 * expected values are worked out from the layout, not from the parser. */
#include <inttypes.h>

#include "testutil.h"
#include "bytes/cursor.h"
#include "format/batch_check.h"

/* A batch whose record section is exactly the bytes given. */
static uint32_t raw_batch(uint8_t *out, const uint8_t *records, size_t len, int32_t count, int32_t last_delta)
{
    memcpy(out + 61, records, len);
    uint32_t size = (uint32_t)(61 + len);
    tb_head h = {1000, 0, 0, 5000, -1, -1, -1};
    tb_header(out, size, &h, last_delta, 5000 + last_delta, count);
    return size;
}

/* A record's bytes: length varint then the body. */
static size_t record(uint8_t *out, const uint8_t *body, size_t n)
{
    size_t k = tb_varint(out, (int64_t)n);
    memcpy(out + k, body, n);
    return k + n;
}

static int next_of(const uint8_t *buf, uint32_t size, kf_record *r, kf_record_iter *it, kf_batch *b, kf_buf *bb)
{
    *b = tb_parse(buf, size);
    assert_int_equal(kf_records_begin(it, b, bb, 1 << 20), KF_OK);
    return kf_records_next(it, r);
}

static void test_header_fields(void **state)
{
    (void)state;
    uint8_t buf[1024];
    tb_rec rs[3] = {{(const uint8_t *)"k", 1, (const uint8_t *)"v1", 2}, {NULL, -1, NULL, -1},
                    {(const uint8_t *)"", 0, (const uint8_t *)"", 0}};
    uint32_t size = tb_batch(buf, 4242, rs, 3, 0x10 | 4, 77, 3, 1700000000000);
    kf_batch b = tb_parse(buf, size);
    assert_int_equal(b.magic, 2);
    assert_true(b.base_offset == 4242 && b.last_offset == 4244 && b.count == 3);
    assert_true(b.transactional && !b.control && b.codec == KF_CODEC_ZSTD);
    assert_true(b.producer_id == 77 && b.producer_epoch == 3 && b.base_sequence == 0);
    assert_true(b.base_timestamp == 1700000000000 && b.max_timestamp == 1700000000002);
    assert_true(b.size == size && b.payload_len == size - 61);
    /* the CRC covers attributes onwards: a flipped attribute byte fails it */
    buf[22] ^= 0x08;
    kf_batch b2;
    assert_int_equal(kf_batch_parse(buf, size, 0, &b2), KF_OK);
    assert_false(kf_batch_verify_crc(&b2));
}

static void test_null_empty_and_negative_lengths(void **state)
{
    (void)state;
    uint8_t buf[1024], recs[256];
    tb_rec rs[2] = {{NULL, -1, (const uint8_t *)"x", 1}, {(const uint8_t *)"", 0, NULL, -1}};
    uint32_t size = tb_batch(buf, 0, rs, 2, 0, -1, -1, 10);
    kf_batch b;
    kf_record_iter it;
    kf_record r;
    kf_buf bb = {0};
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
    assert_true(r.key == NULL && r.key_len == -1 && r.value_len == 1 && r.value[0] == 'x');
    assert_int_equal(kf_records_next(&it, &r), 1);
    assert_true(r.key_len == 0 && r.value == NULL && r.value_len == -1);
    assert_int_equal(kf_records_next(&it, &r), 0);
    /* any negative length is null, as Java reads it (-5 here) */
    uint8_t body[32];
    size_t k = 0;
    body[k++] = 0;
    k += tb_varint(body + k, 0);
    k += tb_varint(body + k, 0);
    k += tb_varint(body + k, -5);
    k += tb_varint(body + k, -1);
    k += tb_varint(body + k, 0);
    size_t n = record(recs, body, k);
    size = raw_batch(buf, recs, n, 1, 0);
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
    assert_true(r.key == NULL && r.key_len == -1);
    kf_buf_free(&bb);
}

/* Varints of every length the fast paths split on: 1 byte (< 64 after
 * zigzag: 0..63), 2 bytes (64..8191), 3 and more. */
static void test_varint_boundaries(void **state)
{
    (void)state;
    static const int32_t lens[] = {0, 1, 63, 64, 127, 128, 8191, 8192, 100000};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        int32_t len = lens[t];
        uint8_t *val = calloc(1, (size_t)len + 1), *buf = malloc((size_t)len + 256);
        for (int32_t i = 0; i < len; i++)
            val[i] = (uint8_t)(i * 7);
        uint8_t *body = malloc((size_t)len + 64);
        size_t k = 0;
        body[k++] = 0;
        k += tb_varint(body + k, -123456789012LL); /* timestamp delta: 6 bytes */
        k += tb_varint(body + k, 0);
        k += tb_varint(body + k, 3);
        memcpy(body + k, "abc", 3);
        k += 3;
        k += tb_varint(body + k, len);
        memcpy(body + k, val, (size_t)len);
        k += (size_t)len;
        k += tb_varint(body + k, 0);
        uint8_t *recs = malloc(k + 8);
        size_t n = record(recs, body, k);
        uint32_t size = raw_batch(buf, recs, n, 1, 0);
        kf_batch b;
        kf_record_iter it;
        kf_record r;
        kf_buf bb = {0};
        assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
        assert_int_equal(r.value_len, len);
        assert_true(len == 0 || memcmp(r.value, val, (size_t)len) == 0);
        assert_true(r.key_len == 3 && !memcmp(r.key, "abc", 3));
        assert_true(r.timestamp == 5000 - 123456789012LL);
        assert_int_equal(kf_records_next(&it, &r), 0);
        kf_buf_free(&bb);
        free(val);
        free(buf);
        free(body);
        free(recs);
    }
}

static void test_headers(void **state)
{
    (void)state;
    uint8_t body[64], recs[128], buf[256];
    size_t k = 0;
    body[k++] = 0;
    k += tb_varint(body + k, 0);
    k += tb_varint(body + k, 0);
    k += tb_varint(body + k, -1);
    k += tb_varint(body + k, -1);
    k += tb_varint(body + k, 2); /* two headers: "a"="xy", "b"=null */
    k += tb_varint(body + k, 1);
    body[k++] = 'a';
    k += tb_varint(body + k, 2);
    body[k++] = 'x';
    body[k++] = 'y';
    k += tb_varint(body + k, 1);
    body[k++] = 'b';
    k += tb_varint(body + k, -1);
    size_t n = record(recs, body, k);
    uint32_t size = raw_batch(buf, recs, n, 1, 0);
    kf_batch b;
    kf_record_iter it;
    kf_record r;
    kf_buf bb = {0};
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
    assert_int_equal(r.header_count, 2);
    kf_cursor c;
    kf_cur_init(&c, r.headers, r.headers_len);
    const uint8_t *hk, *hv;
    int32_t hkl, hvl;
    assert_int_equal(kf_header_next(&c, &hk, &hkl, &hv, &hvl), 1);
    assert_true(hkl == 1 && hk[0] == 'a' && hvl == 2 && !memcmp(hv, "xy", 2));
    assert_int_equal(kf_header_next(&c, &hk, &hkl, &hv, &hvl), 1);
    assert_true(hkl == 1 && hk[0] == 'b' && hvl == -1 && hv == NULL);
    assert_int_equal(kf_header_next(&c, &hk, &hkl, &hv, &hvl), 0);
    /* a header with a null key is malformed */
    body[k - 3] = 0x01; /* the second header's key length varint: 1 -> -1 (null) */
    n = record(recs, body, k);
    size = raw_batch(buf, recs, n, 1, 0);
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), -1);
    assert_string_equal(it.err_code, KF_P_BAD_RECORD);
    assert_non_null(strstr(it.err_msg, "header"));
    kf_buf_free(&bb);
}

/* Each way a record can be wrong inside a batch whose CRC holds. */
static void test_malformed_records(void **state)
{
    (void)state;
    struct {
        const char *what;
        uint8_t body[16];
        size_t len;
        int32_t count, last_delta;
        const char *code, *msg;
    } cases[] = {
        /* key length 5 but 1 byte left */
        {"short key", {0, 0, 0, 10, 'a'}, 5, 1, 0, KF_P_BAD_RECORD, "run past"},
        /* a 6-byte varint where 5 is the most (offset delta) */
        {"long varint", {0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 1, 0}, 11, 1, 0, KF_P_BAD_RECORD, "run past"},
        /* bytes after the headers */
        {"trailing bytes", {0, 0, 0, 1, 1, 0, 7}, 7, 1, 0, KF_P_BAD_RECORD, "left after"},
        /* offset delta 4 past the batch's last delta 0 */
        {"delta past the last", {0, 0, 8, 1, 1, 0}, 6, 1, 0, KF_P_COUNT_MISMATCH, "past the batch"},
        /* a header count larger than the bytes left */
        {"header count", {0, 0, 0, 1, 1, 40}, 6, 1, 0, KF_P_BAD_RECORD, "header count"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        uint8_t recs[64], buf[128];
        size_t n = record(recs, cases[t].body, cases[t].len);
        uint32_t size = raw_batch(buf, recs, n, cases[t].count, cases[t].last_delta);
        kf_batch b;
        kf_record_iter it;
        kf_record r;
        kf_buf bb = {0};
        int rc = next_of(buf, size, &r, &it, &b, &bb);
        if (rc != -1)
            fail_msg("%s: expected a malformed record, got %d", cases[t].what, rc);
        assert_string_equal(it.err_code, cases[t].code);
        if (!strstr(it.err_msg, cases[t].msg))
            fail_msg("%s: message '%s' lacks '%s'", cases[t].what, it.err_msg, cases[t].msg);
        kf_buf_free(&bb);
    }
}

static void test_count_and_order(void **state)
{
    (void)state;
    uint8_t recs[64], buf[128];
    /* two records with offset deltas 1 then 1: not increasing */
    uint8_t a[] = {0, 0, 2, 1, 1, 0}, c[] = {0, 0, 2, 1, 1, 0};
    size_t n = record(recs, a, sizeof a);
    n += record(recs + n, c, sizeof c);
    uint32_t size = raw_batch(buf, recs, n, 2, 1);
    kf_batch b;
    kf_record_iter it;
    kf_record r;
    kf_buf bb = {0};
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
    assert_true(r.offset == 1001 && r.offset_delta == 1);
    assert_int_equal(kf_records_next(&it, &r), -1);
    assert_non_null(strstr(it.err_msg, "do not increase"));
    /* the header says 3 records, the bytes hold 2 */
    uint8_t d[] = {0, 0, 4, 1, 1, 0};
    n = record(recs, a, sizeof a);
    n += record(recs + n, d, sizeof d);
    size = raw_batch(buf, recs, n, 3, 2);
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
    assert_int_equal(kf_records_next(&it, &r), 1);
    assert_int_equal(kf_records_next(&it, &r), -1);
    assert_non_null(strstr(it.err_msg, "premature EOF"));
    kf_buf_free(&bb);
}

static void test_log_append_time(void **state)
{
    (void)state;
    uint8_t buf[256];
    tb_rec rs[2] = {{NULL, -1, (const uint8_t *)"a", 1}, {NULL, -1, (const uint8_t *)"b", 1}};
    uint32_t size = tb_batch(buf, 0, rs, 2, KF_ATTR_LOG_APPEND_TIME, -1, -1, 100);
    kf_batch b;
    kf_record_iter it;
    kf_record r;
    kf_buf bb = {0};
    assert_int_equal(next_of(buf, size, &r, &it, &b, &bb), 1);
    assert_true(b.log_append_time && r.timestamp == 101); /* the batch's max timestamp */
    kf_buf_free(&bb);
}

/* A batch's header, its CRC not looked at (the bytes after the header are
 * changed on purpose below). */
static kf_batch header_only(const uint8_t *buf, uint32_t size)
{
    kf_batch b;
    assert_int_equal(kf_batch_parse(buf, size, 0, &b), KF_OK);
    return b;
}

/* The iterator's verdict on a batch: its record count when every record
 * comes back and the end is clean, else -1. */
static int64_t iterated_count(const uint8_t *buf, uint32_t size)
{
    kf_batch b = header_only(buf, size);
    kf_record_iter it;
    kf_record r;
    kf_buf bb = {0};
    int64_t n = 0;
    int got = -1;
    if (kf_records_begin(&it, &b, &bb, 1 << 20) == KF_OK)
        while ((got = kf_records_next(&it, &r)) == 1)
            n++;
    kf_buf_free(&bb);
    return got == 0 ? n : -1;
}

/* kf_records_count_plain (the reader's check of plain batches) accepts a
 * batch exactly when the iterator does, with its count: on a good batch
 * with headers, and on every byte of its records changed to values that
 * break varints, lengths, counts and deltas. */
static void test_count_plain_agrees(void **state)
{
    (void)state;
    uint8_t recs[128], buf[256];
    /* attributes, ts delta, offset delta, key "k", value "vv", 1 header "h"="x" */
    uint8_t r0[] = {0, 0, 0, 2, 'k', 4, 'v', 'v', 2, 2, 'h', 2, 'x'};
    uint8_t r1[] = {0, 2, 2, 1, 4, 'v', 'v', 0}; /* null key, no headers */
    uint8_t r2[] = {0, 4, 4, 2, 'k', 1, 0};      /* null value */
    size_t n = record(recs, r0, sizeof r0);
    n += record(recs + n, r1, sizeof r1);
    n += record(recs + n, r2, sizeof r2);
    uint32_t size = raw_batch(buf, recs, n, 3, 2);
    int32_t count = -1;
    kf_batch b = tb_parse(buf, size);
    assert_true(kf_records_count_plain(&b, &count));
    assert_int_equal(count, 3);
    assert_int_equal(iterated_count(buf, size), 3);
    static const uint8_t values[] = {0, 1, 2, 3, 4, 5, 0x7f, 0x80, 0xfe, 0xff};
    int accepted = 0, refused = 0;
    for (size_t i = 61; i < size; i++) {
        uint8_t orig = buf[i];
        for (size_t v = 0; v < sizeof values; v++) {
            buf[i] = values[v];
            b = header_only(buf, size);
            count = -1;
            bool fast = kf_records_count_plain(&b, &count);
            int64_t want = iterated_count(buf, size);
            if (fast != (want >= 0) || (fast && count != want))
                fail_msg("byte %zu = 0x%02x: count_plain %d (%d), iterator %" PRId64, i, values[v], fast, count, want);
            fast ? accepted++ : refused++;
        }
        buf[i] = orig;
    }
    assert_true(accepted > 0 && refused > 0); /* both verdicts were tried */
    /* a declared count the bytes do not hold, and a compressed batch: refused */
    size = raw_batch(buf, recs, n, 4, 3);
    b = header_only(buf, size);
    assert_false(kf_records_count_plain(&b, &count));
    b = tb_parse(buf, raw_batch(buf, recs, n, 3, 2));
    b.codec = KF_CODEC_GZIP;
    assert_false(kf_records_count_plain(&b, &count));
}

/* kf_sequence_add against Kafka's own DefaultRecordBatchTest
 * (testIncrementSequence, testDecrementSequence), and against the two Java
 * methods as Kafka writes them, over sequences and deltas around both ends
 * of the space (where Java's int arithmetic does not overflow). */
static int64_t java_increment(int64_t seq, int64_t inc)
{
    return seq > INT32_MAX - inc ? inc - (INT32_MAX - seq) - 1 : seq + inc;
}

static int64_t java_decrement(int64_t seq, int64_t dec)
{
    return seq < dec ? INT32_MAX - (dec - seq) + 1 : seq - dec;
}

static void test_sequence_add(void **state)
{
    (void)state;
    assert_int_equal(kf_sequence_add(5, 5), 10);
    assert_int_equal(kf_sequence_add(INT32_MAX, 1), 0);
    assert_int_equal(kf_sequence_add(INT32_MAX - 5, 10), 4);
    assert_int_equal(kf_sequence_add(5, -5), 0);
    assert_int_equal(kf_sequence_add(0, -1), INT32_MAX);
    const int64_t seqs[] = {0, 1, 2, 7, 1000, INT32_MAX / 2, INT32_MAX - 7, INT32_MAX - 1, INT32_MAX};
    const int64_t deltas[] = {0, 1, 2, 6, 7, 8, 999, 1000, 1001, INT32_MAX / 2, INT32_MAX - 1, INT32_MAX};
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        for (size_t j = 0; j < sizeof deltas / sizeof deltas[0]; j++) {
            int32_t seq = (int32_t)seqs[i];
            int64_t d = deltas[j];
            if (kf_sequence_add(seq, d) != java_increment(seq, d))
                fail_msg("incrementSequence(%d, %lld)", seq, (long long)d);
            if (kf_sequence_add(seq, -d) != java_decrement(seq, d))
                fail_msg("decrementSequence(%d, %lld)", seq, (long long)d);
            /* a step there and back lands where it began */
            assert_int_equal(kf_sequence_add(kf_sequence_add(seq, d), -d), seq);
        }
    }
    /* Kafka's "no sequence" (-1) decremented by 0, as a producer snapshot
     * entry's first sequence is made: decrementSequence wraps it too */
    assert_int_equal(kf_sequence_add(-1, 0), java_decrement(-1, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_fields),
        cmocka_unit_test(test_null_empty_and_negative_lengths),
        cmocka_unit_test(test_varint_boundaries),
        cmocka_unit_test(test_headers),
        cmocka_unit_test(test_malformed_records),
        cmocka_unit_test(test_count_and_order),
        cmocka_unit_test(test_log_append_time),
        cmocka_unit_test(test_count_plain_agrees),
        cmocka_unit_test(test_sequence_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
