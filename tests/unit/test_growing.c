/* test_growing.c: a segment a broker is appending to. A file whose last
 * entry is cut at the size it had when the reader opened it, and that grew
 * while it was read, holds an entry being written: a `truncated` warning
 * saying so (no damaged entry, exit 0 for verify), valid_bytes still at the
 * entry's start. The same torn tail in a file that did not grow stays an
 * error. The growth is made deterministic: the file is appended to after the
 * source is opened, before or while the reader walks it (no timing). */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static uint8_t *load_fixture(const char *rel, size_t *len)
{
    char path[4096];
    const char *root = getenv("KFSCK_ROOT");
    snprintf(path, sizeof path, "%s/fixtures/%s", root ? root : ".", rel);
    uint8_t *b = read_test_file(path, len);
    assert_non_null(b);
    return b;
}

/* What the reader reported: the problem log, and the last message. */
typedef struct heard {
    problem_log log;
    char message[240];
} heard;

static void hear(void *ctx, const kf_problem *p)
{
    heard *h = ctx;
    problem_log_fn(&h->log, p);
    snprintf(h->message, sizeof h->message, "%s", p->message);
}

/* A temporary file holding the segment d[0, n) and the first cut bytes of
 * the batch at tail (a torn last entry); its descriptor stays open for
 * appending. */
static int torn_file(char *path, const uint8_t *d, size_t n, const uint8_t *tail, size_t cut)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, d, n) == (ssize_t)n);
    assert_true(write(fd, tail, cut) == (ssize_t)cut);
    return fd;
}

/* The rest of the torn batch of size bytes at tail, as its writer finishes it. */
static void append_rest(int fd, const uint8_t *tail, size_t cut, size_t size)
{
    assert_true(write(fd, tail + cut, size - cut) == (ssize_t)(size - cut));
}

static size_t first_batch_size(const uint8_t *d, size_t n)
{
    uint32_t size;
    int8_t magic;
    assert_int_equal(kf_batch_frame(d, n, &size, &magic), KF_FRAME_OK);
    return size;
}

/* kf_segment_scan of path, opened first, with `grow` run between the open
 * and the scan. */
static void scan_after(const char *path, int fd, const uint8_t *tail, size_t cut, size_t size, bool grow,
                       kf_segment_summary *sum, heard *h)
{
    kf_source *src;
    int err_no = 0;
    assert_int_equal(kf_source_open(&src, path, 0, &err_no), KF_OK);
    if (grow)
        append_rest(fd, tail, cut, size);
    kf_scan_opts o;
    kf_scan_opts_init(&o);
    o.keep_cache = true;
    o.problem_fn = hear;
    o.problem_ctx = h;
    assert_int_equal(kf_segment_scan(src, &o, sum), KF_OK);
    kf_source_close(src);
}

/* A torn entry (most of a batch, its length field there) in a file that grew
 * after it was opened: a warning naming the growth; the same without growth:
 * an error and a damaged entry. */
static void test_torn_tail_of_a_growing_file_is_a_warning(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load_fixture("segments/v2-none/00000000000000000000.log", &n);
    size_t fb = first_batch_size(d, n);
    size_t cut = fb / 2;
    assert_true(cut > 20);
    for (int grow = 0; grow < 2; grow++) {
        char path[] = "/tmp/kfsck-test-growing-XXXXXX";
        int fd = torn_file(path, d, n, d, cut);
        kf_segment_summary sum;
        heard h = {0};
        scan_after(path, fd, d, cut, fb, grow, &sum, &h);
        assert_int_equal(h.log.n, 1);
        assert_string_equal(h.log.code[0], KF_P_TRUNCATED);
        assert_true(h.log.position[0] == n);
        assert_true(sum.valid_bytes == n);
        if (grow) {
            assert_int_equal(h.log.severity[0], KF_SEV_WARNING);
            assert_int_equal(sum.errors, 0);
            assert_int_equal(sum.warnings, 1);
            assert_int_equal(sum.bad_batches, 0);
            assert_non_null(strstr(h.message, "last entry is torn"));
            assert_non_null(strstr(h.message, "grew"));
        } else {
            assert_int_equal(h.log.severity[0], KF_SEV_ERROR);
            assert_int_equal(sum.errors, 1);
            assert_int_equal(sum.bad_batches, 1);
            assert_null(strstr(h.message, "grew"));
        }
        close(fd);
        unlink(path);
    }
    free(d);
}

/* Fewer bytes than an entry header at the end (a write cut after a few
 * bytes; of the second batch, whose base offset is not zero: a run of zeros
 * at the end is a preallocated tail instead): the same rule. */
static void test_short_tail_of_a_growing_file_is_a_warning(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load_fixture("segments/v2-none/00000000000000000000.log", &n);
    size_t fb = first_batch_size(d, n);
    assert_true(fb < n);
    const uint8_t *second = d + fb;
    size_t size = first_batch_size(second, n - fb);
    for (int grow = 0; grow < 2; grow++) {
        char path[] = "/tmp/kfsck-test-growing-XXXXXX";
        int fd = torn_file(path, d, n, second, 9);
        kf_segment_summary sum;
        heard h = {0};
        scan_after(path, fd, second, 9, size, grow, &sum, &h);
        assert_int_equal(h.log.n, 1);
        assert_string_equal(h.log.code[0], KF_P_TRUNCATED);
        assert_int_equal(h.log.severity[0], grow ? KF_SEV_WARNING : KF_SEV_ERROR);
        assert_int_equal(sum.errors, grow ? 0 : 1);
        assert_true(sum.valid_bytes == n);
        assert_true((strstr(h.message, "grew") != NULL) == grow);
        close(fd);
        unlink(path);
    }
    free(d);
}

/* The file grows while the iterator is half way through it (tiny chunks, no
 * threads: the reader has read only the first batches when the rest of the
 * torn entry is appended): the batches before it come back whole, and the
 * torn tail at the size read is a warning. */
static void test_growth_during_the_read(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load_fixture("segments/v2-none/00000000000000000000.log", &n);
    size_t fb = first_batch_size(d, n);
    size_t cut = fb / 2;
    char path[] = "/tmp/kfsck-test-growing-XXXXXX";
    int fd = torn_file(path, d, n, d, cut);
    kf_source *src;
    int err_no = 0;
    assert_int_equal(kf_source_open(&src, path, 0, &err_no), KF_OK);
    kf_scan_opts o;
    kf_scan_opts_init(&o);
    o.keep_cache = true;
    o.threads = 1;
    o.chunk_bytes = 64;
    heard h = {0};
    o.problem_fn = hear;
    o.problem_ctx = &h;
    kf_segment_iter *it;
    assert_int_equal(kf_segment_iter_open(&it, src, &o), KF_OK);
    kf_batch b;
    bool damaged = false;
    assert_int_equal(kf_segment_iter_next(it, &b, &damaged), 1);
    assert_true(b.position == 0);
    append_rest(fd, d, cut, fb);
    int batches = 1, r;
    while ((r = kf_segment_iter_next(it, &b, &damaged)) == 1)
        batches++;
    assert_int_equal(r, 0);
    assert_false(damaged);
    const kf_segment_summary *sum = kf_segment_iter_summary(it);
    assert_true(sum->batches == (uint64_t)batches);
    assert_int_equal(sum->errors, 0);
    assert_int_equal(sum->bad_batches, 0);
    assert_true(sum->valid_bytes == n);
    assert_int_equal(h.log.n, 1);
    assert_string_equal(h.log.code[0], KF_P_TRUNCATED);
    assert_int_equal(h.log.severity[0], KF_SEV_WARNING);
    assert_non_null(strstr(h.message, "grew"));
    kf_segment_iter_close(it);
    kf_source_close(src);
    close(fd);
    unlink(path);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torn_tail_of_a_growing_file_is_a_warning),
        cmocka_unit_test(test_short_tail_of_a_growing_file_is_a_warning),
        cmocka_unit_test(test_growth_during_the_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
