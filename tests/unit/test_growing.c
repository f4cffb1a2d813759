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

/* The segment every test starts from: a fixture of several batches. */
typedef struct segment {
    uint8_t *d;
    size_t n;
    size_t first;   /* size of its first batch */
} segment;

static size_t first_batch_size(const uint8_t *d, size_t n);

static int load_segment(void **state)
{
    static segment seg;
    char path[4096];
    const char *root = getenv("KFSCK_ROOT");
    snprintf(path, sizeof path, "%s/fixtures/segments/v2-none/00000000000000000000.log", root ? root : ".");
    if (!(seg.d = read_test_file(path, &seg.n)))
        return -1;
    seg.first = first_batch_size(seg.d, seg.n);
    if (seg.first / 2 <= 20 || seg.first >= seg.n)
        return -1;
    *state = &seg;
    return 0;
}

static int free_segment(void **state)
{
    free(((segment *)*state)->d);
    return 0;
}

/* The message of the problem reported last (the tests run one at a time). */
static char last_message[240];

/* Problems into the problem_log at ctx, the message kept. */
static void hear(void *ctx, const kf_problem *p)
{
    problem_log_fn(ctx, p);
    snprintf(last_message, sizeof last_message, "%s", p->message);
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
                       kf_segment_summary *sum, problem_log *h)
{
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    if (grow)
        append_rest(fd, tail, cut, size);
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.keep_cache = true;
    o.problem_fn = hear;
    o.problem_ctx = h;
    assert_int_equal(kf_segment_scan(src, &o, sum), KF_OK);
    kf_source_close(src);
}

/* The segment d[0, n) with the first cut bytes of the size-byte batch at
 * tail after it, scanned once as it is and once grown to hold the whole
 * batch after the source was opened: an error and a damaged entry, then a
 * warning that names the growth. what: words of the torn tail's message. */
static void torn_tail_with_and_without_growth(const uint8_t *d, size_t n, const uint8_t *tail, size_t cut,
                                              size_t size, const char *what)
{
    for (int grow = 0; grow < 2; grow++) {
        char path[] = "/tmp/kfsck-test-growing-XXXXXX";
        int fd = torn_file(path, d, n, tail, cut);
        kf_segment_summary sum;
        problem_log h = {0};
        scan_after(path, fd, tail, cut, size, grow, &sum, &h);
        assert_int_equal(h.n, 1);
        assert_string_equal(h.code[0], KF_P_TRUNCATED);
        assert_true(h.position[0] == n);
        assert_true(sum.valid_bytes == n);
        assert_non_null(strstr(last_message, what));
        assert_int_equal(h.severity[0], grow ? KF_SEV_WARNING : KF_SEV_ERROR);
        assert_int_equal(sum.errors, grow ? 0 : 1);
        assert_int_equal(sum.warnings, grow ? 1 : 0);
        assert_int_equal(sum.bad_batches, grow ? 0 : 1);
        assert_true((strstr(last_message, "grew") != NULL) == grow);
        close(fd);
        unlink(path);
    }
}

/* A torn entry (most of the first batch, its length field there), and
 * fewer bytes than an entry header (a write cut after a few bytes; of the
 * second batch, whose base offset is not zero: a run of zeros at the end is
 * a preallocated tail instead). */
static void test_torn_tails_of_a_growing_file_are_warnings(void **state)
{
    const segment *s = *state;
    const uint8_t *second = s->d + s->first;
    torn_tail_with_and_without_growth(s->d, s->n, s->d, s->first / 2, s->first, "last entry is torn");
    torn_tail_with_and_without_growth(s->d, s->n, second, 9, first_batch_size(second, s->n - s->first), "too few");
}

/* The file grows while the iterator is half way through it (tiny chunks, no
 * threads: the reader has read only the first batches when the rest of the
 * torn entry is appended): the batches before it come back whole, and the
 * torn tail at the size read is a warning. */
static void test_growth_during_the_read(void **state)
{
    const segment *s = *state;
    const uint8_t *d = s->d;
    size_t n = s->n, fb = s->first, cut = fb / 2;
    char path[] = "/tmp/kfsck-test-growing-XXXXXX";
    int fd = torn_file(path, d, n, d, cut);
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.keep_cache = true;
    o.threads = 1;
    o.chunk_bytes = 64;
    problem_log h = {0};
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
    assert_int_equal(h.n, 1);
    assert_string_equal(h.code[0], KF_P_TRUNCATED);
    assert_int_equal(h.severity[0], KF_SEV_WARNING);
    assert_non_null(strstr(last_message, "grew"));
    kf_segment_iter_close(it);
    kf_source_close(src);
    close(fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torn_tails_of_a_growing_file_are_warnings),
        cmocka_unit_test(test_growth_during_the_read),
    };
    return cmocka_run_group_tests(tests, load_segment, free_segment);
}
