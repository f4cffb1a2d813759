/* test_source.c: unit tests for a file source's page-cache manners
 * (kf_source_gentle): pages a read brought into the cache are dropped once
 * the reader is done with them, however far apart its calls are, and pages
 * that were cached before stay. Residency is read with mincore on a file
 * this test writes, syncs and drops. That needs a filesystem whose page
 * cache drops clean pages on request (not tmpfs, whose pages are the file),
 * so the file goes in the first of $TMPDIR, /tmp, /var/tmp and the test
 * binary's own (build) directory where a small probe file is dropped; only
 * when none is such a filesystem do the tests skip, naming each directory.
 * Reads past the page cache (kf_source_pread_direct) give what buffered
 * reads give, at the end of the file, capped by max_bytes and in a file
 * that shrank, and leave nothing cached. */
#include "format/source.h"
#include "testutil.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define FILE_BYTES (48 * MIB)
#define STEP (16 * MIB) /* the reader's chunks: one batch larger than DROP_OVERLAP */

/* The residency of every page of [0, bytes) of fd into vec (one byte a
 * page, 1 = cached); the number of cached pages. */
static size_t resident_of(int fd, size_t bytes, unsigned char *vec)
{
    void *m = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mincore(m, bytes, vec), 0);
    munmap(m, bytes);
    size_t pages = bytes / (size_t)sysconf(_SC_PAGESIZE), n = 0;
    for (size_t i = 0; i < pages; i++) {
        vec[i] &= 1;
        n += vec[i];
    }
    return n;
}

/* resident_of the whole test file. */
static size_t resident(int fd, unsigned char *vec)
{
    return resident_of(fd, FILE_BYTES, vec);
}

/* Writes bytes of a fixed pattern to fd, syncs it and asks the kernel to
 * drop its pages; true when it did (no page of the first `bytes` cached). */
static bool write_and_drop(int fd, size_t bytes, unsigned char *vec)
{
    uint8_t *block = malloc(MIB);
    assert_non_null(block);
    for (size_t i = 0; i < MIB; i++)
        block[i] = (uint8_t)(i * 131 + 7);
    for (size_t done = 0; done < bytes; done += MIB)
        assert_true(write(fd, block, MIB) == (ssize_t)MIB);
    free(block);
    assert_int_equal(fsync(fd), 0);
    posix_fadvise(fd, 0, (off_t)bytes, POSIX_FADV_DONTNEED);
    return resident_of(fd, bytes, vec) == 0;
}

/* The directory of the test binary (argv[0]), set by main. */
static char binary_dir[PATH_MAX] = ".";

/* The first directory where a dropped 1 MiB probe file leaves no page
 * cached, or NULL (after saying which were tried) when there is none.
 * Looked for once. */
static const char *droppable_dir(void)
{
    static bool looked;
    static const char *found;
    if (looked)
        return found;
    looked = true;
    const char *dirs[] = {getenv("TMPDIR"), "/tmp", "/var/tmp", binary_dir};
    unsigned char *vec = malloc(MIB / (size_t)sysconf(_SC_PAGESIZE));
    assert_non_null(vec);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && !found; i++) {
        bool tried = !dirs[i] || !*dirs[i];
        for (size_t j = 0; j < i && !tried; j++)
            tried = dirs[j] && strcmp(dirs[i], dirs[j]) == 0;
        if (tried)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/kfsck-test-source-probe-XXXXXX", dirs[i]);
        int fd = mkstemp(path);
        if (fd < 0) {
            print_message("# %s: cannot create a file there\n", dirs[i]);
            continue;
        }
        if (write_and_drop(fd, MIB, vec))
            found = dirs[i];
        else
            print_message("# %s: POSIX_FADV_DONTNEED left pages cached (tmpfs?)\n", dirs[i]);
        close(fd);
        unlink(path);
    }
    free(vec);
    return found;
}

/* A synced file of FILE_BYTES with none of it cached, made in
 * droppable_dir() (its name into path): its descriptor, or -1 when no
 * directory drops pages on request (the caller skips). */
static int uncached_file(char *path, size_t path_size, unsigned char *vec)
{
    const char *dir = droppable_dir();
    if (!dir) {
        print_message("# no directory here drops clean pages on request, skipping\n");
        return -1;
    }
    snprintf(path, path_size, "%s/kfsck-test-source-XXXXXX", dir);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write_and_drop(fd, FILE_BYTES, vec));
    return fd;
}

/* uncached_file, for a test: when no file can be made, frees vec (the
 * test's residency vector, checked here) and skips the test (cmocka's
 * skip() leaves the test function). */
static int uncached_file_or_skip(char *path, size_t path_size, unsigned char *vec)
{
    assert_non_null(vec);
    int fd = uncached_file(path, path_size, vec);
    if (fd < 0) {
        free(vec);
        skip();
    }
    return fd;
}

/* Reads the file through a gentle source the way the segment reader does:
 * residency looked at before each chunk is read, and the reader done below
 * a chunk's start once it moves past that chunk. */
static void read_gently(const char *path)
{
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
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
    char path[PATH_MAX];
    unsigned char *vec = malloc(FILE_BYTES / (size_t)sysconf(_SC_PAGESIZE));
    int fd = uncached_file_or_skip(path, sizeof path, vec);
    read_gently(path);
    size_t left = resident(fd, vec);
    close(fd);
    unlink(path);
    free(vec);
    assert_int_equal(left, 0);
}

/* One try of test_pages_cached_before_stay: false (and *skipped) when no
 * uncached file can be made; else true with the counts in *r. */
typedef struct cached_counts {
    size_t cached, kept, extra, after;
} cached_counts;

static bool cached_before_try(cached_counts *r)
{
    char path[PATH_MAX];
    size_t pages = FILE_BYTES / (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *vec = malloc(pages), *before = malloc(pages);
    assert_non_null(vec);
    assert_non_null(before);
    int fd = uncached_file(path, sizeof path, vec);
    if (fd < 0) {
        free(vec);
        free(before);
        return false;
    }
    /* what the broker had cached: 4 MiB in the middle of the first chunk
     * and 4 MiB across the line between the second and the third (plus
     * whatever the kernel read ahead of them) */
    uint8_t *buf = malloc(4 * MIB);
    assert_non_null(buf);
    assert_true(pread(fd, buf, 4 * MIB, 6 * MIB) == (ssize_t)(4 * MIB));
    assert_true(pread(fd, buf, 4 * MIB, 2 * STEP - 2 * MIB) == (ssize_t)(4 * MIB));
    free(buf);
    r->cached = resident(fd, before);
    assert_true(r->cached >= 2 * 4 * MIB / (size_t)sysconf(_SC_PAGESIZE));
    read_gently(path);
    r->after = resident(fd, vec);
    r->kept = r->extra = 0;
    for (size_t i = 0; i < pages; i++) {
        r->kept += before[i] & vec[i];
        r->extra += vec[i] & !before[i];
    }
    close(fd);
    unlink(path);
    free(vec);
    free(before);
    return true;
}

/* Pages cached before the reader came stay cached; the rest is dropped.
 * On a busy machine the kernel now and then evicts a single clean page of
 * the file by itself (seen in about 1 run of 20 with parallel builds: one
 * to nine pages at random places inside the cached stretches, which the
 * reader never asks to drop: it drops whole runs of pages it brought in).
 * So the scenario is tried up to three times and must come out exact once;
 * a reader that drops cached pages fails every try. */
static void test_pages_cached_before_stay(void **state)
{
    (void)state;
    cached_counts r = {0};
    for (int tries = 0; tries < 3; tries++) {
        if (!cached_before_try(&r)) {
            skip();
            return;
        }
        if (r.extra == 0 && r.kept == r.cached && r.after == r.cached)
            break;
        print_message("# try %d: %zu of %zu cached pages kept, %zu extra\n", tries + 1, r.kept, r.cached, r.extra);
    }
    assert_int_equal(r.extra, 0);
    assert_int_equal(r.kept, r.cached);
    assert_int_equal(r.after, r.cached);
}

/* A stretch missing a few scattered pages (the kernel evicting a page
 * here and there of a file read moments ago) counts as cached: the pages
 * the read brings back stay, and nothing is dropped; a stretch missing
 * more than 1/64 of its pages has what the read brought in dropped. */
static void test_nearly_cached_stretch_is_kept(void **state)
{
    (void)state;
    char path[PATH_MAX];
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = FILE_BYTES / page;
    unsigned char *vec = malloc(pages);
    int fd = uncached_file_or_skip(path, sizeof path, vec);
    uint8_t *buf = malloc(STEP);
    assert_non_null(buf);
    /* all of it cached, as after a cat, but three single pages of the
     * first stretch and 2 MiB of the second: read around them with the
     * kernel's read-ahead off (dropping single pages afterwards does not
     * work where the page cache holds large folios) */
    size_t lone[3] = {5 * MIB, 9 * MIB + 3 * page, 13 * MIB};
    size_t hole = STEP + 4 * MIB, hole_end = hole + 2 * MIB;
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    size_t from = 0;
    for (size_t i = 0; i <= 4; i++) {
        size_t to = i < 3 ? lone[i] : i == 3 ? hole : FILE_BYTES;
        for (size_t pos = from; pos < to;) {
            size_t n = to - pos < STEP ? to - pos : STEP;
            assert_true(pread(fd, buf, n, (off_t)pos) == (ssize_t)n);
            pos += n;
        }
        from = i < 3 ? lone[i] + page : hole_end;
    }
    resident(fd, vec);
    bool evicted = !vec[lone[0] / page] && !vec[lone[1] / page] && !vec[lone[2] / page] && !vec[hole / page] &&
                   !vec[hole_end / page - 1];
    free(buf);
    if (!evicted) {
        print_message("# the kernel read the pages left out anyway, skipping\n");
        close(fd);
        unlink(path);
        free(vec);
        skip();
        return;
    }
    read_gently(path);
    resident(fd, vec);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(vec[lone[i] / page], 1);
    size_t back = 0;
    for (size_t i = hole / page; i < hole_end / page; i++)
        back += vec[i];
    close(fd);
    unlink(path);
    free(vec);
    assert_int_equal(back, 0);
}

/* kf_source_pread_direct against kf_source_pread: the same bytes at every
 * kind of position, the end of a file whose size is not a multiple of a
 * page read short, a source capped below the file's size, a file that
 * shrank; reads past the cache counted only when aligned; no page of the
 * file cached after the aligned ones. */
static void test_direct_reads_as_buffered(void **state)
{
    (void)state;
    const char *dir = droppable_dir();
    if (!dir) {
        print_message("# no directory here drops clean pages on request, skipping\n");
        skip();
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/kfsck-test-direct-XXXXXX", dir);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t size = 3 * MIB + 1234;
    uint8_t *data = malloc(size);
    assert_non_null(data);
    for (size_t i = 0; i < size; i++)
        data[i] = (uint8_t)(i * 7 + i / 4096);
    assert_true(write(fd, data, size) == (ssize_t)size);
    assert_int_equal(fsync(fd), 0);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    kf_source *src;
    assert_int_equal(kf_source_open(&src, path, 0), KF_OK);
    if (!kf_source_direct_ok(src)) {
        print_message("# %s: no O_DIRECT, skipping\n", dir);
        kf_source_close(src);
        close(fd);
        unlink(path);
        free(data);
        skip();
    }
    uint8_t *buf;
    assert_int_equal(posix_memalign((void **)&buf, KF_DIRECT_ALIGN, 2 * MIB), 0);
    static const struct {
        uint64_t pos;
        size_t n, want;
    } reads[] = {
        {0, MIB, MIB},                           /* aligned */
        {MIB, 4096, 4096},                       /* one page */
        {2 * MIB, MIB + 1234, MIB + 1234},       /* to the end, not a page multiple */
        {3 * MIB, MIB, 1234},                    /* past the end: short */
        {100, 5000, 5000},                       /* unaligned: through the cache */
        {3 * MIB + 1234, 4096, 0},               /* at the end */
    };
    uint64_t counted = 0;
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        memset(buf, 0xee, 2 * MIB);
        int64_t got = kf_source_pread_direct(src, reads[i].pos, buf, reads[i].n);
        assert_true(got == (int64_t)reads[i].want);
        assert_memory_equal(buf, data + reads[i].pos, (size_t)got);
        if (reads[i].pos % KF_DIRECT_ALIGN == 0 && reads[i].want)
            counted++;
        assert_true(kf_source_direct_reads(src) == counted);
        if (i == 3) { /* the aligned reads so far brought nothing into the cache */
            unsigned char *vec = malloc(size / 4096 + 1);
            assert_non_null(vec);
            assert_int_equal(resident_of(fd, size, vec), 0);
            free(vec);
        }
    }
    kf_source_close(src);

    /* capped: nothing past max_bytes, though the read is rounded up to a page */
    assert_int_equal(kf_source_open(&src, path, MIB + 100), KF_OK);
    assert_true(kf_source_pread_direct(src, MIB, buf, MIB) == 100);
    assert_memory_equal(buf, data + MIB, 100);
    /* shrunk after open: what is there, and the source says so */
    assert_int_equal(ftruncate(fd, (off_t)(MIB + 50)), 0);
    assert_true(kf_source_pread_direct(src, MIB, buf, 4096) == 50);
    assert_true(kf_source_shrunk(src));
    kf_source_close(src);
    free(buf);
    free(data);
    close(fd);
    unlink(path);
}

int main(int argc, char **argv)
{
    if (argc > 0 && strlen(argv[0]) < sizeof binary_dir) {
        char copy[PATH_MAX];
        snprintf(copy, sizeof copy, "%s", argv[0]);
        snprintf(binary_dir, sizeof binary_dir, "%s", dirname(copy));
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_apart_calls_drop_everything),
        cmocka_unit_test(test_pages_cached_before_stay),
        cmocka_unit_test(test_nearly_cached_stretch_is_kept),
        cmocka_unit_test(test_direct_reads_as_buffered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
