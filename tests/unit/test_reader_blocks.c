/* test_reader_blocks.c: the streaming reader on a file, read in blocks by
 * several threads. Batches of every size against the block size (much
 * smaller, about one block, larger than the carry room, larger than two
 * blocks) and damage in between (a flipped byte, whose entry after it is
 * intact or not, a zeroed stretch, a torn tail) must give the same batches,
 * records and problems whatever the block size and thread count: entries
 * carried from one block into the next, reads started again after damage or
 * a large entry, resynchronisation from a CRC failure. Read cold (none of
 * the file in the page cache), the blocks go past the page cache where the
 * system allows it (O_DIRECT into huge pages), and the outcome is the same
 * again. */
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#include "format/block_cache.h"
#include "format/source.h"
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

/* Scans path; *direct (when not NULL): the reads that went past the page cache. */
static void scan_file_direct(const char *path, unsigned threads, size_t chunk, outcome *out, uint64_t *direct)
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
    if (direct)
        *direct = kf_source_direct_reads(src);
    kf_source_close(src);
}

static void scan_file(const char *path, unsigned threads, size_t chunk, outcome *out)
{
    scan_file_direct(path, threads, chunk, out, NULL);
}

static void assert_same_outcome(const outcome *o, const outcome *first)
{
    assert_true(memcmp(&o->sum, &first->sum, sizeof o->sum) == 0);
    assert_int_equal(o->batches, first->batches);
    assert_true(o->records == first->records);
    for (int i = 0; i < first->batches && i < 256; i++)
        assert_true(o->positions[i] == first->positions[i]);
    assert_int_equal(o->pl.n, first->pl.n);
    for (int i = 0; i < first->pl.n; i++) {
        assert_string_equal(o->pl.code[i], first->pl.code[i]);
        assert_true(o->pl.position[i] == first->pl.position[i]);
        assert_true(o->pl.length[i] == first->pl.length[i]);
    }
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
            assert_same_outcome(&o, first);
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

/* Whether this system reads cold blocks past the page cache: O_DIRECT on
 * the file and huge pages for a buffer. */
static bool reads_past_the_cache(const char *path)
{
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    bool direct = kf_source_direct_ok(src);
    kf_source_close(src);
    size_t cap;
    bool fresh;
    uint8_t *b = kf_block_take(HUGE_PAGE, &cap, &fresh);
    assert_non_null(b);
    memset(b, 1, cap);
    bool huge = kf_block_huge(b, cap);
    kf_block_give(b, cap);
    if (!direct || !huge)
        print_message("# %s here: cold blocks are read through the page cache\n",
                      !direct ? "no O_DIRECT" : "no huge pages");
    return direct && huge;
}

/* Seven rounds of the batches of every size (about 8 MiB, so 1 MiB blocks
 * are read past the cache), a CRC failure in the second (the reads start
 * again at an unaligned position: a block through the cache up to where
 * direct reads may start) and a zeroed stretch in the fifth, and the file's
 * size not a multiple of a page: read cold on 1, 2 and 3 threads, the same
 * outcome as cached on one. */
static void test_cold_blocks_past_the_cache(void **state)
{
    (void)state;
    size_t cap = (size_t)16 << 20, n = 0;
    uint8_t *d = malloc(cap);
    assert_non_null(d);
    int64_t base = 0;
    for (int round = 0; round < 7; round++) {
        for (size_t i = 0; i < NSIZES; i++) {
            mk_spec sp = mk_data(base, 3, 1);
            sp.value_len = SIZES[i];
            sp.fill = (uint8_t)('a' + round);
            uint32_t size = mk_batch(d + n, cap - n, &sp);
            assert_true(size > 0);
            if (round == 1 && i == 5)
                d[n + size / 2] ^= 0x20;
            if (round == 4 && i == 13)
                memset(d + n + 100, 0, size - 200);
            n += size;
            base += 3;
        }
    }
    n -= 777;
    assert_true(n > ((size_t)6 << 20) && n % 4096);
    char path[] = "/tmp/kfsck-cold-blocks-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, d, n) == (ssize_t)n);
    assert_int_equal(fsync(fd), 0);
    bool past = reads_past_the_cache(path);
    static outcome hot, cold;
    scan_file(path, 1, 0, &hot);
    assert_true(problem_log_has(&hot.pl, KF_P_CRC_MISMATCH));
    static const unsigned threads[] = {1, 2, 3};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        uint64_t direct = 0;
        scan_file_direct(path, threads[t], (size_t)1 << 20, &cold, &direct);
        assert_same_outcome(&cold, &hot);
        if (past)
            assert_true(direct > 0);
    }
    close(fd);
    unlink(path);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches_of_every_size),
        cmocka_unit_test(test_damage_between_blocks),
        cmocka_unit_test(test_cold_blocks_past_the_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
