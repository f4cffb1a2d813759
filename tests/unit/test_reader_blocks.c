/* test_reader_blocks.c: the streaming reader on a file, read in blocks by
 * several threads. Batches of every size against the block size (much
 * smaller, about one block, larger than the carry room, larger than two
 * blocks) and damage in between (a flipped byte, whose entry after it is
 * intact or not, a zeroed stretch, a torn tail) must give the same batches,
 * records and problems whatever the block size and thread count: entries
 * carried from one block into the next, reads started again after damage or
 * a large entry, resynchronisation from a CRC failure. */
#include <stdbool.h>
#include <unistd.h>

#include "mkbatch.h"

#define CAP (4 << 20)

typedef struct outcome {
    kf_segment_summary sum;
    uint64_t records;
    uint64_t positions[256];
    int batches;
    problem_log pl;
} outcome;

static int on_batch(void *ctx, const kf_batch *b)
{
    outcome *o = ctx;
    if (o->batches < 256)
        o->positions[o->batches] = b->position;
    o->batches++;
    return 0;
}

static int on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    (void)b;
    (void)r;
    ((outcome *)ctx)->records++;
    return 0;
}

static void scan_file(const char *path, unsigned threads, size_t chunk, outcome *out)
{
    memset(out, 0, sizeof *out);
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.records = true;
    o.batch_fn = on_batch;
    o.record_fn = on_record;
    o.ctx = out;
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &out->pl;
    o.threads = threads;
    o.chunk_bytes = chunk;
    assert_int_equal(kf_segment_scan(src, &o, &out->sum), KF_OK);
    kf_source_close(src);
}

/* Batches of values of these sizes, one after the other, offsets going on. */
static size_t build(uint8_t *d, const size_t *values, size_t n)
{
    size_t len = 0;
    int64_t base = 0;
    for (size_t i = 0; i < n; i++) {
        mk_spec s = mk_data(base, 3, 1);
        s.value_len = values[i];
        uint32_t size = mk_batch(d + len, CAP - len, &s);
        assert_true(size > 0);
        len += size;
        base += 3;
    }
    return len;
}

/* The file d[0, n) scanned with one thread and the default block, then
 * with every other block size and thread count: the same outcome. */
static void same_whatever_the_blocks(const uint8_t *d, size_t n, outcome *first)
{
    char path[] = "/tmp/kfsck-blocks-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, d, n) == (ssize_t)n);
    close(fd);
    scan_file(path, 1, 0, first);
    static const size_t chunks[] = {64, 200, 1000, 4096, 5000, 65536, 300000};
    static const unsigned threads[] = {1, 2, 3, 5};
    static outcome o;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            scan_file(path, threads[t], chunks[c], &o);
            assert_true(memcmp(&o.sum, &first->sum, sizeof o.sum) == 0);
            assert_int_equal(o.batches, first->batches);
            assert_true(o.records == first->records);
            for (int i = 0; i < first->batches && i < 256; i++)
                assert_true(o.positions[i] == first->positions[i]);
            assert_int_equal(o.pl.n, first->pl.n);
            for (int i = 0; i < first->pl.n; i++) {
                assert_string_equal(o.pl.code[i], first->pl.code[i]);
                assert_true(o.pl.position[i] == first->pl.position[i]);
                assert_true(o.pl.length[i] == first->pl.length[i]);
            }
        }
    }
    unlink(path);
}

static const size_t SIZES[] = {10,   3000, 20,  70000, 5,   150000, 400, 900,  4000, 1,
                               8000, 12,   999, 60000, 333, 2,      700, 5000, 64,   100000};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

/* Intact batches of every size: all of them read, nothing reported. */
static void test_batches_of_every_size(void **state)
{
    (void)state;
    uint8_t *d = malloc(CAP);
    assert_non_null(d);
    size_t n = build(d, SIZES, NSIZES);
    static outcome o;
    same_whatever_the_blocks(d, n, &o);
    assert_int_equal(o.batches, (int)NSIZES);
    assert_true(o.records == 3 * NSIZES);
    assert_int_equal(o.pl.n, 0);
    assert_true(o.sum.valid_bytes == n);
    free(d);
}

/* The batch at index i of the file d (its position and size). */
static void batch_at(const uint8_t *d, size_t i, size_t *pos, uint32_t *size)
{
    *pos = 0;
    for (size_t k = 0;; k++) {
        int8_t magic;
        assert_int_equal(kf_batch_frame(d + *pos, CAP - *pos, size, &magic), KF_FRAME_OK);
        if (k == i)
            return;
        *pos += *size;
    }
}

/* Damage between them: a flipped byte in a batch followed by an intact
 * one (framing goes on), a flipped length (framing resynchronises), a
 * zeroed stretch, a torn tail. The same problems at the same positions
 * whatever the blocks. */
static void test_damage_between_blocks(void **state)
{
    (void)state;
    uint8_t *d = malloc(CAP);
    assert_non_null(d);
    size_t n = build(d, SIZES, NSIZES);
    size_t p3, p7, p13;
    uint32_t s3, s7, s13;
    batch_at(d, 3, &p3, &s3);
    batch_at(d, 7, &p7, &s7);
    batch_at(d, 13, &p13, &s13);
    d[p3 + s3 / 2] ^= 0x40; /* CRC fails, the next entry is intact */
    d[p7 + 70] ^= 0x01; /* CRC fails */
    d[p7 + s7 + 8] ^= 0x7f; /* and the next entry's length is absurd: resynchronise */
    memset(d + p13 + 100, 0, s13 - 200); /* a zeroed stretch inside a large batch */
    n -= 1000; /* a torn tail: the last batch cut */
    static outcome o;
    same_whatever_the_blocks(d, n, &o);
    assert_true(problem_log_has(&o.pl, KF_P_CRC_MISMATCH));
    assert_true(problem_log_has(&o.pl, KF_P_TRUNCATED));
    assert_true(o.batches < (int)NSIZES - 3);
    assert_true(o.sum.bad_batches >= 3);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches_of_every_size),
        cmocka_unit_test(test_damage_between_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
