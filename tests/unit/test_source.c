/* test_source.c: unit tests for a file source's page-cache manners
 * (kf_source_gentle): pages a read brought into the cache are dropped once
 * the reader is done with them, however far apart its calls are, and pages
 * that were cached before stay. Residency is read with mincore on a file
 * this test writes, syncs and drops; where the page cache does not drop
 * clean pages on request (tmpfs), the tests skip. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define FILE_BYTES (48 * MIB)
#define STEP (16 * MIB) /* the reader's chunks: one batch larger than DROP_OVERLAP */

/* The residency of every page of [0, FILE_BYTES) of fd into vec (one byte
 * a page, 1 = cached); the number of cached pages. */
static size_t resident(int fd, unsigned char *vec)
{
    void *m = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mincore(m, FILE_BYTES, vec), 0);
    munmap(m, FILE_BYTES);
    size_t pages = FILE_BYTES / (size_t)sysconf(_SC_PAGESIZE), n = 0;
    for (size_t i = 0; i < pages; i++) {
        vec[i] &= 1;
        n += vec[i];
    }
    return n;
}

/* A synced file of FILE_BYTES with none of it cached: its descriptor, or -1
 * (and path unlinked) when the page cache keeps it anyway. */
static int uncached_file(char *path, unsigned char *vec)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    uint8_t *block = malloc(MIB);
    assert_non_null(block);
    for (size_t i = 0; i < MIB; i++)
        block[i] = (uint8_t)(i * 131 + 7);
    for (size_t done = 0; done < FILE_BYTES; done += MIB)
        assert_true(write(fd, block, MIB) == (ssize_t)MIB);
    free(block);
    assert_int_equal(fsync(fd), 0);
    posix_fadvise(fd, 0, FILE_BYTES, POSIX_FADV_DONTNEED);
    if (resident(fd, vec) != 0) {
        print_message("# DONTNEED left pages of %s cached (tmpfs?), skipping\n", path);
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

/* Reads the file through a gentle source the way the segment reader does:
 * residency looked at before each chunk is read, and the reader done below
 * a chunk's start once it moves past that chunk. */
static void read_gently(const char *path)
{
    kf_source *src;
    int err_no = 0;
    assert_int_equal(kf_source_open(&src, path, 0, &err_no), KF_OK);
    kf_source_gentle(src, true);
    uint8_t *buf = malloc(STEP);
    assert_non_null(buf);
    for (uint64_t pos = 0; pos < FILE_BYTES; pos += STEP) {
        kf_source_will_read(src, pos + STEP);
        assert_true(kf_source_pread(src, pos, buf, STEP) == (int64_t)STEP);
        kf_source_done_below(src, pos);
    }
    free(buf);
    kf_source_close(src);
}

/* Chunks more than DROP_OVERLAP apart: nothing the reads brought in stays
 * (each call once dropped only the 8 MiB below its limit, leaving half of
 * this file cached). */
static void test_far_apart_calls_drop_everything(void **state)
{
    (void)state;
    char path[] = "/tmp/kfsck-test-source-XXXXXX";
    unsigned char *vec = malloc(FILE_BYTES / (size_t)sysconf(_SC_PAGESIZE));
    assert_non_null(vec);
    int fd = uncached_file(path, vec);
    if (fd < 0) {
        free(vec);
        skip();
        return;
    }
    read_gently(path);
    size_t left = resident(fd, vec);
    close(fd);
    unlink(path);
    free(vec);
    assert_int_equal(left, 0);
}

/* Pages cached before the reader came stay cached; the rest is dropped. */
static void test_pages_cached_before_stay(void **state)
{
    (void)state;
    char path[] = "/tmp/kfsck-test-source-XXXXXX";
    size_t pages = FILE_BYTES / (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *vec = malloc(pages), *before = malloc(pages);
    assert_non_null(vec);
    assert_non_null(before);
    int fd = uncached_file(path, vec);
    if (fd < 0) {
        free(vec);
        free(before);
        skip();
        return;
    }
    /* what the broker had cached: 4 MiB in the middle of the first chunk
     * and 4 MiB across the line between the second and the third (plus
     * whatever the kernel read ahead of them) */
    uint8_t *buf = malloc(4 * MIB);
    assert_non_null(buf);
    assert_true(pread(fd, buf, 4 * MIB, 6 * MIB) == (ssize_t)(4 * MIB));
    assert_true(pread(fd, buf, 4 * MIB, 2 * STEP - 2 * MIB) == (ssize_t)(4 * MIB));
    free(buf);
    size_t cached = resident(fd, before);
    assert_true(cached >= 2 * 4 * MIB / (size_t)sysconf(_SC_PAGESIZE));
    read_gently(path);
    size_t after = resident(fd, vec);
    size_t kept = 0, extra = 0;
    for (size_t i = 0; i < pages; i++) {
        kept += before[i] & vec[i];
        extra += vec[i] & !before[i];
    }
    close(fd);
    unlink(path);
    free(vec);
    free(before);
    assert_int_equal(extra, 0);
    assert_int_equal(kept, cached);
    assert_int_equal(after, cached);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_apart_calls_drop_everything),
        cmocka_unit_test(test_pages_cached_before_stay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
