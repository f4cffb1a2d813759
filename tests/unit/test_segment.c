/* test_segment.c: the batch parser, record iterator and segment scanner on
 * kafka-python-written fixtures, and on damaged copies made in memory. */
#include <stdbool.h>
#include <unistd.h>

#include "format/resync.h"
#include "testutil.h"

static char *fixture_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("KFSCK_ROOT");
    snprintf(buf, sizeof buf, "%s/fixtures/%s", root ? root : ".", rel);
    return buf;
}

static uint8_t *load(const char *rel, size_t *len)
{
    uint8_t *b = read_test_file(fixture_path(rel), len);
    assert_non_null(b);
    return b;
}

typedef struct seen {
    int batches;
    int records;
    int64_t offsets[4096];
    uint64_t positions[512];
    int controls[8];
    int ncontrols;
} seen;

static int on_batch(void *ctx, const kf_batch *b)
{
    seen *s = ctx;
    if (s->batches < 512)
        s->positions[s->batches] = b->position;
    s->batches++;
    return 0;
}

static int on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    seen *s = ctx;
    if (s->records < 4096)
        s->offsets[s->records] = r->offset;
    s->records++;
    kf_control ctl;
    if (b->control && kf_control_parse(r, &ctl) == KF_OK && s->ncontrols < 8)
        s->controls[s->ncontrols++] = ctl.type;
    return 0;
}

static kf_segment_summary scan_with(const uint8_t *d, size_t n, int64_t base, seen *s, problem_log *pl,
                                    unsigned threads, size_t chunk)
{
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, d, n), KF_OK);
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.records = true;
    o.has_base_offset = base >= 0;
    o.base_offset = base;
    o.batch_fn = on_batch;
    o.record_fn = on_record;
    o.ctx = s;
    o.problem_fn = problem_log_fn;
    o.problem_ctx = pl;
    o.threads = threads;
    o.chunk_bytes = chunk;
    kf_segment_summary sum;
    assert_int_equal(kf_segment_scan(src, &o, &sum), KF_OK);
    kf_source_close(src);
    return sum;
}

/* The scan, checked to give the same answer whatever the reader's chunk
 * size and thread count: every chunk boundary and the pipeline's restarts
 * after a CRC failure must not change what is found. */
static kf_segment_summary scan(const uint8_t *d, size_t n, int64_t base, seen *s, problem_log *pl)
{
    kf_segment_summary sum = scan_with(d, n, base, s, pl, 1, 0);
    static const struct { unsigned threads; size_t chunk; } variants[] = {{1, 64}, {1, 333}, {1, 4096}, {2, 64}, {2, 5000}, {3, 64}, {4, 1000}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        seen s2 = {0};
        problem_log pl2 = {0};
        kf_segment_summary sum2 = scan_with(d, n, base, &s2, &pl2, variants[v].threads, variants[v].chunk);
        assert_true(memcmp(&sum, &sum2, sizeof sum) == 0);
        assert_int_equal(s2.batches, s->batches);
        assert_int_equal(s2.records, s->records);
        assert_int_equal(pl2.n, pl->n);
        for (int i = 0; i < pl->n; i++) {
            assert_string_equal(pl2.code[i], pl->code[i]);
            assert_true(pl2.position[i] == pl->position[i]);
            assert_true(pl2.length[i] == pl->length[i]);
        }
    }
    return sum;
}

static const char *const HEALTHY[] = {
    "segments/v2-none/00000000000000000000.log",   "segments/v2-gzip/00000000000000000000.log",
    "segments/v2-snappy/00000000000000000000.log", "segments/v2-snappy-raw/00000000000000000000.log",
    "segments/v2-lz4/00000000000000000000.log",    "segments/v2-zstd/00000000000000000000.log",
    "segments/v1-none/00000000000000000000.log",   "segments/v1-gzip/00000000000000000000.log",
    "segments/v1-snappy/00000000000000000000.log", "segments/v1-lz4/00000000000000000000.log",
    "segments/v0-none/00000000000000000000.log",   "segments/v0-gzip/00000000000000000000.log",
    "segments/v0-snappy/00000000000000000000.log", "segments/v0-lz4/00000000000000000000.log",
};

/* Every codec and magic: the same records at offsets 0..N-1 (24 for magic 2,
 * 10 for magic 0/1, as the generator wrote them), nothing reported. */
static void test_every_codec_reads_the_same_records(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof HEALTHY / sizeof HEALTHY[0]; i++) {
        size_t n;
        uint8_t *d = load(HEALTHY[i], &n);
        seen s = {0};
        problem_log pl = {0};
        kf_segment_summary sum = scan(d, n, 0, &s, &pl);
        if (pl.n)
            fail_msg("%s: unexpected problem %s at %llu", HEALTHY[i], pl.code[0], (unsigned long long)pl.position[0]);
        int want = strstr(HEALTHY[i], "/v2-") ? 24 : 10;
        assert_int_equal(s.records, want);
        for (int k = 0; k < want; k++)
            assert_true(s.offsets[k] == k);
        assert_true(sum.valid_bytes == n);
        assert_true(sum.first_offset == 0 && sum.last_offset == want - 1);
        assert_int_equal(sum.bad_batches, 0);
        free(d);
    }
}

static void test_transactions_and_control_records(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/txn/00000000000000000000.log", &n);
    seen s = {0};
    problem_log pl = {0};
    kf_segment_summary sum = scan(d, n, 0, &s, &pl);
    assert_int_equal(pl.n, 0);
    assert_int_equal(s.ncontrols, 2);
    assert_int_equal(s.controls[0], KF_CONTROL_COMMIT);
    assert_int_equal(s.controls[1], KF_CONTROL_ABORT);
    assert_true(sum.valid_bytes == n);
    free(d);
}

/* A flipped bit: crc_mismatch at that batch, valid_bytes there, and the scan
 * resynchronises so every other batch is still read. */
static void test_bit_flip_each_batch(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-multi/00000000000000000000.log", &n);
    seen clean = {0};
    problem_log pl0 = {0};
    scan(d, n, 0, &clean, &pl0);
    assert_int_equal(pl0.n, 0);
    assert_true(clean.batches > 20);
    for (int k = 0; k < clean.batches; k++) {
        uint64_t pos = clean.positions[k];
        uint64_t end = k + 1 < clean.batches ? clean.positions[k + 1] : n;
        d[pos + 40 + (end - pos - 40) / 2] ^= 0x10; /* inside the CRC-covered part */
        seen s = {0};
        problem_log pl = {0};
        kf_segment_summary sum = scan(d, n, 0, &s, &pl);
        d[pos + 40 + (end - pos - 40) / 2] ^= 0x10;
        assert_int_equal(pl.n, 1);
        assert_string_equal(pl.code[0], KF_P_CRC_MISMATCH);
        assert_true(pl.position[0] == pos);
        assert_true(sum.valid_bytes == pos);
        assert_int_equal(s.batches, clean.batches - 1);
        assert_int_equal(sum.bad_batches, 1);
    }
    free(d);
}

/* Cutting the file anywhere: valid_bytes is the start of the cut batch. */
static void test_every_truncation(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-zstd/00000000000000000000.log", &n);
    seen clean = {0};
    problem_log pl0 = {0};
    scan(d, n, 0, &clean, &pl0);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, d, cut);
        seen s = {0};
        problem_log pl = {0};
        kf_segment_summary sum = scan(c, cut, 0, &s, &pl);
        uint64_t expect = 0;
        bool boundary = cut == 0;
        for (int k = 0; k < clean.batches; k++) {
            if (clean.positions[k] <= cut)
                expect = clean.positions[k];
            if (clean.positions[k] == cut)
                boundary = true;
        }
        assert_true(sum.valid_bytes == expect);
        /* a cut between batches is a shorter healthy segment */
        if (boundary)
            assert_int_equal(pl.n, 0);
        else
            assert_int_equal(pl.n, 1);
        free(c);
    }
    free(d);
}

/* The base offset is not covered by the CRC: a regressed one passes the
 * broker's CRC check but makes recovery's index append throw, and the broker
 * then empties the whole segment (valid_bytes 0). */
static void test_offset_regression_at_index_append_empties_segment(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-multi/00000000000000000000.log", &n);
    seen clean = {0};
    problem_log pl0 = {0};
    scan(d, n, 0, &clean, &pl0);
    /* find the second batch that starts more than 4096 bytes after the first index entry */
    uint64_t last_entry = 0;
    int hit = -1, entries = 0;
    for (int k = 0; k < clean.batches; k++) {
        if (clean.positions[k] - last_entry > 4096) {
            last_entry = clean.positions[k];
            if (++entries == 2) {
                hit = k;
                break;
            }
        }
    }
    assert_true(hit > 0);
    memset(d + clean.positions[hit], 0, 8); /* base offset 0 */
    seen s = {0};
    problem_log pl = {0};
    kf_segment_summary sum = scan(d, n, 0, &s, &pl);
    assert_true(problem_log_has(&pl, KF_P_OFFSET_REGRESSION));
    assert_true(sum.valid_bytes == 0);
    kf_source *src;
    assert_int_equal(kf_source_memory(&src, d, n), KF_OK);
    uint64_t valid = 1;
    assert_int_equal(kf_recovery_point(src, 0, &valid), KF_OK);
    assert_true(valid == 0);
    kf_source_close(src);
    free(d);
}

static void test_zero_filled_tail_is_a_warning(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-gzip/00000000000000000000.log", &n);
    uint8_t *z = calloc(1, n + 10000);
    memcpy(z, d, n);
    seen s = {0};
    problem_log pl = {0};
    kf_segment_summary sum = scan(z, n + 10000, 0, &s, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_ZERO_FILL);
    assert_int_equal(pl.severity[0], KF_SEV_WARNING);
    assert_true(pl.position[0] == n && pl.length[0] == 10000);
    assert_true(sum.valid_bytes == n);
    assert_int_equal(sum.errors, 0);
    free(z);
    free(d);
}

/* A file that shrinks between open and read: a `truncated` finding at the
 * new end (valid_bytes there at most), never a crash; one that grows: a
 * warning, and the bytes past the size at open are not read. */
static void test_file_changing_under_the_reader(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-gzip/00000000000000000000.log", &n);
    char path[] = "/tmp/kfsck-test-segment-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, d, n) == (ssize_t)n);
    for (int grow = 0; grow < 2; grow++) {
        assert_int_equal(ftruncate(fd, (off_t)n), 0);
        assert_true(pwrite(fd, d, n, 0) == (ssize_t)n);
        kf_source *src;
        assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
        assert_int_equal(ftruncate(fd, grow ? (off_t)(n + 5000) : (off_t)(n / 2)), 0);
        kf_segment_scan_opts o;
        kf_segment_scan_opts_init(&o);
        o.deep = true;
        o.keep_cache = true;
        problem_log pl = {0};
        o.problem_fn = problem_log_fn;
        o.problem_ctx = &pl;
        kf_segment_summary sum;
        assert_int_equal(kf_segment_scan(src, &o, &sum), KF_OK);
        kf_source_close(src);
        assert_true(problem_log_has(&pl, KF_P_TRUNCATED));
        if (grow) {
            assert_int_equal(sum.errors, 0);
            assert_int_equal(sum.warnings, 1);
            assert_true(sum.valid_bytes == n);
        } else {
            assert_true(sum.errors > 0);
            assert_true(sum.valid_bytes <= n / 2);
        }
    }
    close(fd);
    unlink(path);
    free(d);
}

static void test_find_next_batch_skips_garbage(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v1-snappy/00000000000000000000.log", &n);
    uint8_t *g = malloc(n + 777);
    for (int i = 0; i < 777; i++)
        g[i] = (uint8_t)(i * 131 + 7);
    memcpy(g + 777, d, n);
    assert_true(kf_find_next_batch(g, n + 777, 0) == 777);
    assert_true(kf_find_next_batch(g, n + 777, 778) > 778);
    assert_true(kf_find_next_batch(g, 10, 0) == 10);
    free(g);
    free(d);
}

/* Legacy v1 wrappers: relative inner offsets become absolute. */
static void test_legacy_wrapper_offsets(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v1-gzip/00000000000000000000.log", &n);
    uint32_t size;
    int8_t magic;
    assert_int_equal(kf_batch_frame(d, n, &size, &magic), KF_FRAME_OK);
    assert_int_equal(magic, 1);
    kf_batch b;
    assert_int_equal(kf_batch_parse(d, size, 0, &b), KF_OK);
    assert_true(kf_batch_verify_crc(&b));
    assert_int_equal(b.codec, KF_CODEC_GZIP);
    assert_false(b.base_offset_known);
    int64_t wrapper = b.last_offset;
    kf_buf buf = {0};
    kf_record_iter it;
    assert_int_equal(kf_records_begin(&it, &b, &buf, 1 << 20), KF_OK);
    assert_true(b.base_offset_known);
    assert_true(b.count > 1);
    kf_record r;
    int64_t expect = b.base_offset;
    int got = 0;
    while (kf_records_next(&it, &r) == 1) {
        assert_true(r.offset == expect++);
        assert_true(r.crc_ok);
        got++;
    }
    assert_int_equal(got, b.count);
    assert_true(expect - 1 == wrapper);
    kf_buf_free(&buf);
    free(d);
}

/* A record body altered (CRC fixed up) is found by the iterator, not the broker. */
static void test_malformed_record_inside_valid_crc(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-none/00000000000000000000.log", &n);
    uint32_t size;
    int8_t magic;
    assert_int_equal(kf_batch_frame(d, n, &size, &magic), KF_FRAME_OK);
    /* first record's length varint sits at byte 61: make it claim far too much */
    d[61] = 0xfe;
    d[62] = 0x7f;
    uint32_t crc = kf_crc32c(0, d + 21, size - 21);
    d[17] = (uint8_t)(crc >> 24);
    d[18] = (uint8_t)(crc >> 16);
    d[19] = (uint8_t)(crc >> 8);
    d[20] = (uint8_t)crc;
    seen s = {0};
    problem_log pl = {0};
    kf_segment_summary sum = scan(d, n, 0, &s, &pl);
    assert_true(problem_log_has(&pl, KF_P_BAD_RECORD));
    assert_true(sum.valid_bytes == n); /* the broker does not look inside */
    assert_int_equal(sum.bad_batches, 1);
    free(d);
}

static void test_base_offset_below_file_name(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("segments/v2-none/00000000000000000000.log", &n);
    seen s = {0};
    problem_log pl = {0};
    scan(d, n, 100, &s, &pl);
    assert_true(problem_log_has(&pl, KF_P_BASE_OFFSET_MISMATCH));
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_codec_reads_the_same_records),
        cmocka_unit_test(test_transactions_and_control_records),
        cmocka_unit_test(test_bit_flip_each_batch),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_offset_regression_at_index_append_empties_segment),
        cmocka_unit_test(test_zero_filled_tail_is_a_warning),
        cmocka_unit_test(test_find_next_batch_skips_garbage),
        cmocka_unit_test(test_file_changing_under_the_reader),
        cmocka_unit_test(test_legacy_wrapper_offsets),
        cmocka_unit_test(test_malformed_record_inside_valid_crc),
        cmocka_unit_test(test_base_offset_below_file_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
