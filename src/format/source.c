/* source.c: what the streaming reader reads from (include/kfsck/sys/file.h): a
 * file opened read-only and read with pread, or a piece of memory; and the
 * reader's page-cache manners.
 *
 * Why pread and not mmap: on the virtual machines kfsck runs on, every page
 * fault of a mapped file costs page-table work as large as the checksum work
 * itself (measured: mmap + CRC-32C 2 GB/s against pread into a reused 1 MiB
 * buffer + the same CRC 8 GB/s), and mapped pages count as the process's RSS.
 *
 * Page-cache manners: before a stretch is read, mincore (on a mapping that is
 * never touched, so nothing faults in) tells which of its pages are cached
 * already; once the reader is done with the stretch, the pages that were not
 * are dropped with posix_fadvise(DONTNEED). Pages the broker had cached stay;
 * in a stretch that was all but a few pages cached, those few stay too.
 *
 * Reads past the page cache: a stretch that is not cached may be read with
 * O_DIRECT through a second descriptor (kf_source_pread_direct): no copy,
 * no pages to drop after (see reader_pool.c for when). */
#include "format/source.h"
#include "kfsck/sys/file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "bytes/error.h"
#include "kfsck/common.h"

#define RESIDENCY_STEP ((uint64_t)16 << 20) /* mincore this much at a time */
#define NEARLY_ALL 64 /* a stretch missing at most 1/64 of its pages counts as cached (look_at) */
/* Residency is looked at this far ahead of what is read: the kernel's own
 * read-ahead, started by our reads, must not reach pages before we looked at
 * them, or they would seem to have been cached before. */
#define RESIDENCY_AHEAD ((uint64_t)96 << 20) /* read_ahead_kb is 8 MiB here; the kernel
                                                 may run a few windows ahead */

typedef struct page_run {
    uint64_t lo, hi; /* byte range, page-aligned, not cached before we read it */
} page_run;

struct kf_source {
    int fd;                 /* -1 for a memory source */
    int dfd;                /* the O_DIRECT descriptor, -1 until opened */
    atomic_int direct;      /* reads past the page cache: 0 not tried yet, 1 to be had, -1 not */
    atomic_uint_fast64_t direct_reads;
    char *path;             /* as opened, for the last error of a failed read; NULL for memory */
    const uint8_t *mem;
    uint64_t size;
    atomic_bool shrunk;
    /* page-cache manners */
    bool gentle;
    uint64_t page;
    pthread_mutex_t mu;     /* the residency state below: looked at by the
                               reading thread, dropped by the consuming one */
    uint64_t checked_to;    /* residency known below this (page-aligned) */
    uint64_t done_to;       /* the highest limit kf_source_done_below dropped below */
    page_run *runs;         /* FIFO of ranges to drop, ascending */
    size_t head, n, cap;
    uint64_t dropped_pages, kept_pages;
};

static kf_source *source_new(void)
{
    kf_source *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = s->dfd = -1;
    atomic_init(&s->direct, 0);
    atomic_init(&s->direct_reads, 0);
    atomic_init(&s->shrunk, false);
    long pg = sysconf(_SC_PAGESIZE);
    s->page = pg > 0 ? (uint64_t)pg : 4096;
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

int kf_source_open(kf_source **out, const char *path, uint64_t max_bytes)
{
    *out = NULL;
    int e = 0;
    /* O_NONBLOCK: opening a FIFO for reading must not wait for a writer; it
     * is refused by the type check below. O_NOCTTY: a terminal device named
     * like a segment must not become our controlling terminal. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        e = errno;
        goto fail;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        e = errno;
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        e = EISDIR;
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        e = EINVAL;
        goto fail;
    }
    kf_source *s = source_new();
    char *copy = strdup(path);
    if (!s || !copy) {
        kf_source_close(s); /* fd still -1: only the memory */
        free(copy);
        close(fd);
        return kf_error_set(KF_ERR_NOMEM, ENOMEM, path, "out of memory");
    }
    s->fd = fd;
    s->path = copy;
    s->size = (uint64_t)st.st_size;
    if (max_bytes && s->size > max_bytes)
        s->size = max_bytes;
    *out = s;
    return KF_OK;
fail:
    if (fd >= 0)
        close(fd);
    return kf_error_set(KF_ERR_IO, e, path, "cannot open: %s", strerror(e));
}

int kf_source_memory(kf_source **out, const uint8_t *data, uint64_t size)
{
    kf_source *s = source_new();
    *out = s;
    if (!s)
        return kf_error_nomem();
    s->mem = data;
    s->size = data ? size : 0;
    return KF_OK;
}

static void drop_range(kf_source *s, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return;
#ifdef POSIX_FADV_DONTNEED
    posix_fadvise(s->fd, (off_t)lo, (off_t)(hi - lo), POSIX_FADV_DONTNEED);
#endif
}

void kf_source_close(kf_source *s)
{
    if (!s)
        return;
    if (s->fd >= 0) {
        kf_source_done_below(s, UINT64_MAX);
        close(s->fd);
        if (s->dfd >= 0)
            close(s->dfd);
    }
    pthread_mutex_destroy(&s->mu);
    free(s->runs);
    free(s->path);
    free(s);
}

uint64_t kf_source_size(const kf_source *s) { return s->size; }

const uint8_t *kf_source_data(const kf_source *s) { return s->mem; }

bool kf_source_shrunk(const kf_source *s) { return atomic_load(&s->shrunk); }

uint64_t kf_source_size_now(kf_source *s)
{
    struct stat st;
    if (s->fd < 0 || fstat(s->fd, &st) != 0)
        return s->size;
    return (uint64_t)st.st_size;
}

int64_t kf_source_pread(kf_source *s, uint64_t pos, void *buf, size_t n)
{
    if (pos >= s->size)
        return 0;
    if (n > s->size - pos)
        n = (size_t)(s->size - pos);
    if (s->mem) {
        memcpy(buf, s->mem + pos, n);
        return (int64_t)n;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(s->fd, (uint8_t *)buf + got, n - got, (off_t)(pos + got));
        if (r < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            kf_error_set(KF_ERR_IO, e, s->path, "cannot read %zu bytes at byte %llu: %s", n - got,
                         (unsigned long long)(pos + got), strerror(e));
            errno = e;
            return -1;
        }
        if (r == 0) { /* the file is shorter now than when it was opened */
            atomic_store(&s->shrunk, true);
            break;
        }
        got += (size_t)r;
    }
    return (int64_t)got;
}

/* ---- reads past the page cache ----------------------------------------- */

/* The second descriptor is opened through /proc/self/fd, so it is the file
 * already open even if the path was renamed or replaced since; where that
 * is not to be had, by path, and kept only if it is the same file (device
 * and inode). File systems without O_DIRECT (tmpfs) refuse it at open. */
static int open_direct(const kf_source *s)
{
#ifdef O_DIRECT
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", s->fd);
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_DIRECT;
    int d = open(proc, flags);
    if (d < 0)
        d = open(s->path, flags);
    struct stat a, b;
    if (d >= 0 && (fstat(d, &a) != 0 || fstat(s->fd, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
        close(d);
        d = -1;
    }
    return d;
#else
    (void)s;
    return -1;
#endif
}

bool kf_source_direct_ok(kf_source *s)
{
    int state = atomic_load_explicit(&s->direct, memory_order_acquire);
    if (state || s->fd < 0)
        return state > 0;
    pthread_mutex_lock(&s->mu);
    if (atomic_load_explicit(&s->direct, memory_order_relaxed) == 0) {
        s->dfd = open_direct(s);
        atomic_store_explicit(&s->direct, s->dfd >= 0 ? 1 : -1, memory_order_release);
    }
    pthread_mutex_unlock(&s->mu);
    return atomic_load_explicit(&s->direct, memory_order_acquire) > 0;
}

int64_t kf_source_pread_direct(kf_source *s, uint64_t pos, void *buf, size_t n)
{
    if (pos >= s->size)
        return 0;
    if (n > s->size - pos)
        n = (size_t)(s->size - pos);
    if (!kf_source_direct_ok(s) || pos % KF_DIRECT_ALIGN || (uintptr_t)buf % KF_DIRECT_ALIGN)
        return kf_source_pread(s, pos, buf, n);
    size_t whole = (n + KF_DIRECT_ALIGN - 1) / KF_DIRECT_ALIGN * KF_DIRECT_ALIGN; /* the end of the file reads short */
    ssize_t r;
    do
        r = pread(s->dfd, buf, whole, (off_t)pos);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        /* refused (EINVAL: the file system wants other alignment) or failed:
         * the buffered read does it, and names the error if there is one */
        if (errno == EINVAL)
            atomic_store(&s->direct, -1);
        return kf_source_pread(s, pos, buf, n);
    }
    atomic_fetch_add_explicit(&s->direct_reads, 1, memory_order_relaxed);
    size_t got = (size_t)r < n ? (size_t)r : n;
    if (got < n) { /* short: the file shrank, or the rest is read buffered */
        int64_t more = kf_source_pread(s, pos + got, (uint8_t *)buf + got, n - got);
        if (more < 0)
            return more;
        got += (size_t)more;
    }
    return (int64_t)got;
}

uint64_t kf_source_direct_reads(const kf_source *s) { return atomic_load(&s->direct_reads); }

int kf_source_next_hole(kf_source *s, uint64_t from, uint64_t end, uint64_t *hole_start, uint64_t *hole_end)
{
#if defined(SEEK_HOLE) && defined(SEEK_DATA)
    if (s->fd < 0 || from >= end)
        return 0;
    /* lseek moves the descriptor's offset, which no pread uses */
    off_t h = lseek(s->fd, (off_t)from, SEEK_HOLE);
    if (h < 0 || (uint64_t)h >= end)
        return 0;
    off_t d = lseek(s->fd, h, SEEK_DATA);
    uint64_t he = (d < 0) ? end : (uint64_t)d; /* ENXIO: the hole runs to EOF */
    if (he > end)
        he = end;
    if (he <= (uint64_t)h)
        return 0;
    *hole_start = (uint64_t)h;
    *hole_end = he;
    return 1;
#else
    (void)s; (void)from; (void)end; (void)hole_start; (void)hole_end;
    return 0;
#endif
}

/* What cat does too. Cold, the kernel's read-ahead then keeps about twice
 * as many reads in flight (6.5 against 3.2 on the VM's disk, sampled from
 * /sys/block/vda/inflight), and verify of an evicted 1 GiB file went from
 * 0.95x cat's speed to 1.05x (median of 20 rounds' ratios). From the page
 * cache it changes nothing: read-ahead runs only on a miss. */
void kf_source_sequential(kf_source *s)
{
#ifdef POSIX_FADV_SEQUENTIAL
    if (s->fd >= 0)
        posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#else
    (void)s;
#endif
}

/* ---- page-cache manners ------------------------------------------------- */

void kf_source_gentle(kf_source *s, bool on) { s->gentle = on && s->fd >= 0; }

static void push_run(kf_source *s, uint64_t lo, uint64_t hi)
{
    if (s->n && s->runs[(s->head + s->n - 1) % s->cap].hi == lo) {
        s->runs[(s->head + s->n - 1) % s->cap].hi = hi; /* extends the last run */
        return;
    }
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        page_run *r = malloc(ncap * sizeof *r);
        if (!r)
            return; /* cannot remember it: the page just stays cached */
        for (size_t i = 0; i < s->n; i++)
            r[i] = s->runs[(s->head + i) % s->cap];
        free(s->runs);
        s->runs = r;
        s->cap = ncap;
        s->head = 0;
    }
    s->runs[(s->head + s->n) % s->cap] = (page_run){lo, hi};
    s->n++;
}

/* cachestat(2) (Linux 6.5): how many pages of a range are cached, found
 * a folio at a time, where mincore looks up every page (measured: 3 ms
 * against 25-45 ms for 1 GiB). Most stretches are wholly cached or wholly
 * not, and then it says all that is needed. Declared here: the system's
 * headers may predate it (451 is its number on every architecture). */
#if defined(__linux__) && !defined(SYS_cachestat)
#define SYS_cachestat 451
#endif
typedef struct cache_range {
    uint64_t off, len;
} cache_range;
typedef struct cache_stat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
} cache_stat;

/* Pages of [lo, lo + len) in the page cache, or -1 when cachestat is not to be had. */
static int64_t cached_pages(kf_source *s, uint64_t lo, size_t len)
{
#ifdef SYS_cachestat
    static atomic_bool missing;
    if (atomic_load_explicit(&missing, memory_order_relaxed))
        return -1;
    cache_range r = {lo, len};
    cache_stat st;
    if (syscall(SYS_cachestat, s->fd, &r, &st, 0) == 0)
        return (int64_t)st.nr_cache;
    if (errno == ENOSYS)
        atomic_store_explicit(&missing, true, memory_order_relaxed);
#else
    (void)s; (void)lo; (void)len;
#endif
    return -1;
}

/* Residency of [lo, hi) (page-aligned lo): non-resident runs are queued. */
static void look_at(kf_source *s, uint64_t lo, uint64_t hi)
{
    size_t len = (size_t)(hi - lo);
    size_t pages = (len + s->page - 1) / s->page;
    int64_t cached = cached_pages(s, lo, len);
    if (cached == 0) {
        push_run(s, lo, lo + (uint64_t)pages * s->page);
        return;
    }
    /* Nearly all cached counts as cached: the pages the read brings in
     * stay. On the VMs measured the kernel evicts a page here and there
     * of a file read seconds before (about 1 % in 5 s), and looking for
     * them one by one with mincore costs 0.4 ms per stretch, 10 % of the
     * CPU a verify of a page-cached file takes; what stays is at most
     * 1/64 of a stretch, the pages the broker had until moments ago. */
    if (cached >= 0 && (uint64_t)cached >= pages - pages / NEARLY_ALL) {
        s->kept_pages += (uint64_t)cached;
        return;
    }
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, s->fd, (off_t)lo);
    if (m == MAP_FAILED)
        return; /* unknown: leave those pages as they are */
    unsigned char *vec = malloc(pages);
    if (vec && mincore(m, len, vec) == 0) {
        for (size_t i = 0; i < pages;) {
            size_t j = i;
            bool resident = vec[i] & 1;
            while (j < pages && (bool)(vec[j] & 1) == resident)
                j++;
            uint64_t a = lo + (uint64_t)i * s->page, b = lo + (uint64_t)j * s->page;
            if (resident)
                s->kept_pages += j - i;
            else
                push_run(s, a, b);
            i = j;
        }
    }
    free(vec);
    munmap(m, len);
}

/* Residency looked at up to RESIDENCY_AHEAD past end, unless it was far
 * enough already. With s->mu held (several threads read). */
static void look_ahead(kf_source *s, uint64_t end)
{
    if (end + RESIDENCY_AHEAD / 2 <= s->checked_to)
        return; /* looked at far enough ahead already */
    end = end > UINT64_MAX - RESIDENCY_AHEAD ? UINT64_MAX : end + RESIDENCY_AHEAD;
    if (end > s->size)
        end = s->size;
    uint64_t aligned_end = (end + s->page - 1) / s->page * s->page;
    while (s->checked_to < aligned_end) {
        uint64_t hi = s->checked_to + RESIDENCY_STEP;
        if (hi > aligned_end)
            hi = aligned_end;
        look_at(s, s->checked_to, hi);
        s->checked_to = hi;
    }
}

void kf_source_will_read(kf_source *s, uint64_t end)
{
    if (!s->gentle)
        return;
    pthread_mutex_lock(&s->mu);
    look_ahead(s, end);
    pthread_mutex_unlock(&s->mu);
}

void kf_source_read_from(kf_source *s, uint64_t pos)
{
    if (!s->gentle)
        return;
    uint64_t p = pos / s->page * s->page;
    pthread_mutex_lock(&s->mu);
    if (p > s->checked_to)
        s->checked_to = p;
    if (p > s->done_to)
        s->done_to = p;
    pthread_mutex_unlock(&s->mu);
}

bool kf_source_uncached(kf_source *s, uint64_t lo, uint64_t hi)
{
    if (!s->gentle || hi <= lo)
        return false;
    bool cold = false;
    pthread_mutex_lock(&s->mu);
    look_ahead(s, hi);
    for (size_t i = 0; i < s->n && !cold; i++) { /* the runs ascend: few are looked at */
        const page_run *r = &s->runs[(s->head + i) % s->cap];
        if (r->lo >= hi)
            break;
        cold = r->hi > lo;
    }
    pthread_mutex_unlock(&s->mu);
    return cold;
}

/* The page cache holds files in folios of up to a few MiB, and DONTNEED
 * drops only the folios wholly inside its range: a folio across the line
 * between two calls would survive both. So every call reaches back this far
 * over what earlier calls covered (within the runs of pages that were not
 * cached before, so nothing that was is dropped). */
#define DROP_OVERLAP ((uint64_t)8 << 20)

/* What a call with limit lim drops of run r, when earlier calls covered up
 * to done_to: all of the run below lim that they did not, and DROP_OVERLAP
 * back over what they did. */
static void drop_span(page_run r, uint64_t done_to, uint64_t lim, uint64_t *lo, uint64_t *hi)
{
    uint64_t from = done_to < lim ? done_to : lim;
    from = from > DROP_OVERLAP ? from - DROP_OVERLAP : 0;
    *lo = r.lo > from ? r.lo : from;
    *hi = r.hi < lim ? r.hi : lim;
}

/* Drops wait until this much more is behind the reader: each call covers
 * DROP_OVERLAP again, so a call per 1 MiB chunk made posix_fadvise walk
 * every page nine times (1,023 calls, 23 ms for a cold 1 GiB verify; 119
 * calls, 7 ms, with this). */
#define DROP_BATCH ((uint64_t)8 << 20)

void kf_source_done_below(kf_source *s, uint64_t pos)
{
    if (!s->gentle)
        return;
    uint64_t lim = pos == UINT64_MAX ? UINT64_MAX : pos / s->page * s->page;
    pthread_mutex_lock(&s->mu);
    if (lim != UINT64_MAX && lim < s->done_to + DROP_BATCH) {
        pthread_mutex_unlock(&s->mu);
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        page_run *r = &s->runs[(s->head + i) % s->cap];
        if (r->lo >= lim)
            break;
        uint64_t lo, hi;
        drop_span(*r, s->done_to, lim, &lo, &hi);
        drop_range(s, lo, hi);
    }
    while (s->n && s->runs[s->head].hi <= lim) { /* wholly behind: done with */
        s->dropped_pages += (s->runs[s->head].hi - s->runs[s->head].lo) / s->page;
        s->head = (s->head + 1) % s->cap;
        s->n--;
    }
    if (lim > s->done_to)
        s->done_to = lim;
    pthread_mutex_unlock(&s->mu);
}

void kf_source_cache_stats(const kf_source *s, uint64_t *dropped_pages, uint64_t *kept_pages)
{
    if (dropped_pages)
        *dropped_pages = s->dropped_pages;
    if (kept_pages)
        *kept_pages = s->kept_pages;
}

/* ---- small files ---------------------------------------------------------- */

/* The whole file when it is at most cap bytes (else KF_ERR_TOO_BIG), or
 * with head its first cap bytes whatever its size. */
static int read_small(const char *path, uint64_t cap, bool head, uint8_t **data, uint64_t *size)
{
    *data = NULL;
    *size = 0;
    kf_source *s;
    int rc = kf_source_open(&s, path, head ? cap : 0);
    if (rc != KF_OK)
        return rc;
    uint64_t n = kf_source_size(s);
    if (n > cap) {
        kf_source_close(s);
        return kf_error_set(KF_ERR_TOO_BIG, 0, path, "larger than %llu bytes", (unsigned long long)cap);
    }
    uint8_t *buf = NULL;
    if (n) {
        buf = malloc((size_t)n);
        if (!buf) {
            kf_source_close(s);
            return kf_error_set(KF_ERR_NOMEM, ENOMEM, path, "out of memory");
        }
        int64_t got = kf_source_pread(s, 0, buf, (size_t)n);
        if (got < 0) {
            int e = errno;
            free(buf);
            kf_source_close(s);
            return kf_error_set(KF_ERR_IO, e, path, "cannot read: %s", strerror(e));
        }
        n = (uint64_t)got; /* a file that shrank meanwhile: what is there */
    }
    kf_source_close(s);
    *data = buf;
    *size = n;
    return KF_OK;
}

int kf_file_read_all(const char *path, uint64_t cap, uint8_t **data, uint64_t *size)
{
    return read_small(path, cap, false, data, size);
}

int kf_file_read_head(const char *path, uint64_t max, uint8_t **data, uint64_t *size)
{
    return read_small(path, max, true, data, size);
}

int kf_files_same(const char *a, const char *b, bool *same)
{
    *same = false;
    kf_source *sa, *sb;
    int rc = kf_source_open(&sa, a, 0);
    if (rc != KF_OK)
        return rc;
    if ((rc = kf_source_open(&sb, b, 0)) != KF_OK) {
        kf_source_close(sa);
        return rc;
    }
    enum { PIECE = 64 << 10 };
    uint8_t *ba = NULL, *bb = NULL;
    uint64_t size = kf_source_size(sa);
    bool eq = size == kf_source_size(sb);
    if (eq && size && (!(ba = malloc(PIECE)) || !(bb = malloc(PIECE))))
        rc = kf_error_set(KF_ERR_NOMEM, ENOMEM, a, "out of memory");
    for (uint64_t pos = 0; rc == KF_OK && eq && pos < size;) {
        size_t n = size - pos < PIECE ? (size_t)(size - pos) : PIECE;
        int64_t ga = kf_source_pread(sa, pos, ba, n), gb = kf_source_pread(sb, pos, bb, n);
        if (ga < 0 || gb < 0) {
            int e = errno;
            rc = kf_error_set(KF_ERR_IO, e, ga < 0 ? a : b, "cannot read: %s", strerror(e));
            break;
        }
        eq = ga == gb && (uint64_t)ga == n && !memcmp(ba, bb, n);
        pos += n;
    }
    free(ba);
    free(bb);
    kf_source_close(sa);
    kf_source_close(sb);
    *same = rc == KF_OK && eq;
    return rc;
}

int kf_file_read_meta(const char *path, const char *what, uint8_t **data, uint64_t *size)
{
    int rc = read_small(path, KF_META_FILE_MAX, false, data, size);
    if (rc != KF_ERR_TOO_BIG)
        return rc;
    struct stat st;
    unsigned long long n = stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
    return kf_error_set(KF_ERR_CORRUPT, 0, path, "%llu bytes, far more than a %s holds (kfsck reads one of at most 1 MiB)",
                        n, what);
}

bool kf_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
