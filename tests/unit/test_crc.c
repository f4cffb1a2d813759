/* test_crc.c: unit tests for CRC-32C and CRC-32 (ISA-L through crc.c),
 * against the published check values and references written here. */
#include "testutil.h"

#include <sys/mman.h>

#include <zlib.h>

/* Deterministic PRNG (xorshift64*) so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng() >> 56);
}

/* Bit-at-a-time reference: as slow and as obviously right as possible. */
static uint32_t crc32c_ref(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
    }
    return ~crc;
}

/* A byte-at-a-time table reference, fast enough for megabytes. */
static uint32_t ref_table[256];
static uint32_t crc32c_tab(uint32_t crc, const uint8_t *p, size_t n)
{
    if (!ref_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
            ref_table[i] = c;
        }
    crc = ~crc;
    while (n--)
        crc = ref_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint32_t crc32c_tab_v(uint32_t crc, const void *p, size_t n) { return crc32c_tab(crc, p, n); }

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static void check_vectors(crc_fn f)
{
    uint8_t buf[32];
    assert_int_equal(f(0, "123456789", 9), 0xE3069283u);
    memset(buf, 0, sizeof buf);
    assert_int_equal(f(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, sizeof buf);
    assert_int_equal(f(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    assert_int_equal(f(0, buf, 32), 0x46DD794Eu);
    /* descending 31..0 (RFC 3720 B.4) */
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)(31 - i);
    assert_int_equal(f(0, buf, 32), 0x113FDB5Cu);
    /* empty input leaves the running value alone */
    assert_int_equal(f(0, buf, 0), 0u);
    assert_int_equal(f(0x12345678u, buf, 0), 0x12345678u);
}

static void test_vectors_dispatch(void **state)
{
    (void)state;
    check_vectors(kf_crc32c);
}

static void test_vectors_reference(void **state)
{
    (void)state;
    check_vectors(crc32c_tab_v); /* the test's own reference holds the vectors too */
}

static void test_impl_name(void **state)
{
    (void)state;
    const char *n = kf_crc32c_impl();
    assert_non_null(n);
    assert_string_equal(n, "isa-l");
}

/* Every length 0..5000 at every alignment 0..7, against the table reference
 * and (for the short ones) the bit-at-a-time one. */
static void test_lengths_alignments(void **state)
{
    (void)state;
    enum { MAXLEN = 5000 };
    uint8_t *buf = malloc(MAXLEN + 64);
    assert_non_null(buf);
    fill_random(buf, MAXLEN + 64);
    for (size_t len = 0; len <= MAXLEN; len++) {
        for (size_t al = 0; al < 8; al++) {
            const uint8_t *p = buf + al;
            uint32_t seed = (uint32_t)rng();
            uint32_t a = kf_crc32c(seed, p, len);
            uint32_t b = crc32c_tab_v(seed, p, len);
            if (a != b)
                fail_msg("len %zu align %zu: dispatch %08x portable %08x", len, al, a, b);
            if (len < 300 || len % 97 == 0) {
                uint32_t r = crc32c_ref(seed, p, len);
                if (a != r)
                    fail_msg("len %zu align %zu: dispatch %08x reference %08x", len, al, a, r);
            }
        }
    }
    free(buf);
}

/* Large buffers, odd sizes and alignments (ISA-L folds in 64- and 256-byte
 * steps with tails), against the table reference. */
static void test_large(void **state)
{
    (void)state;
    const size_t sizes[] = {3 * 65536,       3 * 65536 + 1,         3 * 65536 - 1,
                            3 * 65536 + 3 * 256 + 7, 6 * 65536 + 3 * 256 - 1, (size_t)1 << 20,
                            ((size_t)3 << 20) + 12345, ((size_t)4 << 20) + 5};
    size_t max = ((size_t)4 << 20) + 16;
    uint8_t *buf = malloc(max);
    assert_non_null(buf);
    fill_random(buf, max);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t al = 0; al < 8; al += 3) {
            uint32_t a = kf_crc32c(0, buf + al, sizes[i]);
            uint32_t b = crc32c_tab_v(0, buf + al, sizes[i]);
            if (a != b)
                fail_msg("size %zu align %zu: dispatch %08x portable %08x", sizes[i], al, a, b);
        }
    }
    /* 1 MiB against the bit-at-a-time reference too */
    assert_int_equal(kf_crc32c(0, buf + 1, (size_t)1 << 20), crc32c_ref(0, buf + 1, (size_t)1 << 20));
    free(buf);
}

/* crc(a||b) computed in two calls equals the one-shot value, for split points
 * everywhere (including inside the three-stream blocks). */
static void test_incremental(void **state)
{
    (void)state;
    size_t n = 3 * 65536 * 2 + 3 * 256 + 77;
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    fill_random(buf, n);
    uint32_t whole = kf_crc32c(0, buf, n);
    assert_int_equal(whole, crc32c_tab_v(0, buf, n));
    for (size_t cut = 0; cut <= n; cut += (cut < 64 ? 1 : cut < 2000 ? 61 : 4099)) {
        uint32_t a = kf_crc32c(kf_crc32c(0, buf, cut), buf + cut, n - cut);
        uint32_t b = crc32c_tab_v(crc32c_tab_v(0, buf, cut), buf + cut, n - cut);
        uint32_t c = crc32c_tab_v(kf_crc32c(0, buf, cut), buf + cut, n - cut);
        if (a != whole || b != whole || c != whole)
            fail_msg("cut %zu: %08x %08x %08x want %08x", cut, a, b, c, whole);
    }
    /* many small pieces */
    uint32_t c = 0;
    size_t off = 0;
    while (off < n) {
        size_t k = (size_t)(rng() % 1000);
        if (k > n - off)
            k = n - off;
        c = kf_crc32c(c, buf + off, k);
        off += k;
    }
    assert_int_equal(c, whole);
    free(buf);
}

static void test_crc32_ieee(void **state)
{
    (void)state;
    assert_int_equal(kf_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(kf_crc32(0, "", 0), 0u);
    uint8_t buf[1000];
    fill_random(buf, sizeof buf);
    uint32_t whole = kf_crc32(0, buf, sizeof buf);
    assert_int_equal(whole, (uint32_t)crc32(0, buf, sizeof buf));
    assert_int_equal(kf_crc32(kf_crc32(0, buf, 333), buf + 333, sizeof buf - 333), whole);
}

/* kf_crc32 over more than UINT_MAX bytes: a read-only anonymous mapping of
 * zero pages costs no memory. Expected value via zlib's crc32_combine. */
static void test_crc32_over_4g(void **state)
{
    (void)state;
    if (sizeof(size_t) < 8) {
        skip();
        return;
    }
    size_t n = ((size_t)1 << 32) + 4099;
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        print_message("# mmap of %zu bytes failed, skipping\n", n);
        skip();
        return;
    }
    /* n zero bytes = 64 blocks of 64 MiB zeros + the rest, joined by combine */
    size_t blk = (size_t)64 << 20;
    uLong z = crc32(0, m, (uInt)blk);
    uLong want_l = 0;
    size_t done = 0;
    while (n - done >= blk) {
        want_l = crc32_combine(want_l, z, (z_off_t)blk);
        done += blk;
    }
    want_l = crc32_combine(want_l, crc32(0, m, (uInt)(n - done)), (z_off_t)(n - done));
    uint32_t want = (uint32_t)want_l;
    assert_int_equal(kf_crc32(0, m, n), want);
    munmap(m, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors_dispatch),   cmocka_unit_test(test_vectors_reference),
        cmocka_unit_test(test_impl_name),          cmocka_unit_test(test_lengths_alignments),
        cmocka_unit_test(test_large),              cmocka_unit_test(test_incremental),
        cmocka_unit_test(test_crc32_ieee),         cmocka_unit_test(test_crc32_over_4g),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
