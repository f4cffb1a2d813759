/* writer.c: safe output for repair and merge. Each file is written under a
 * temporary name in its final directory, fsync'd, then renamed (link+unlink
 * when it must not replace an existing file) and the directory fsync'd, so a
 * final name only ever holds a complete file. Also the offset/time index
 * builder that follows broker recovery (LogSegment.recover, docs/formats.md
 * §9.3). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfsck/cursor.h"
#include "kfsck/file.h"
#include "kfsck/repair.h"

#define OUT_BUF_SIZE (64 * 1024)

static void kf_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void kf_put_be64(uint8_t *p, uint64_t v)
{
    kf_put_be32(p, (uint32_t)(v >> 32));
    kf_put_be32(p + 4, (uint32_t)v);
}

struct kf_out_file {
    int fd;
    bool force;
    char *dir;
    char *final_path;
    char *tmp_path;
    uint64_t size;
    size_t used;
    uint8_t buf[OUT_BUF_SIZE];
};


static void out_free(kf_out_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    free(f->dir);
    free(f->final_path);
    free(f->tmp_path);
    free(f);
}

int kf_out_open(kf_out_file **fp, const char *dir, const char *name, bool force, int *err_no)
{
    static unsigned counter;
    *fp = NULL;
    kf_out_file *f = calloc(1, sizeof *f);
    if (!f) {
        *err_no = ENOMEM;
        return KF_ERR_NOMEM;
    }
    f->fd = -1;
    f->force = force;
    f->dir = strdup(dir);
    f->final_path = kf_path_join(dir, name);
    char tmpname[512];
    snprintf(tmpname, sizeof tmpname, ".%s.tmp-%ld-%u", name, (long)getpid(), counter++);
    f->tmp_path = kf_path_join(dir, tmpname);
    if (!f->dir || !f->final_path || !f->tmp_path) {
        out_free(f);
        *err_no = ENOMEM;
        return KF_ERR_NOMEM;
    }
    struct stat st;
    if (!force && lstat(f->final_path, &st) == 0) {
        out_free(f);
        *err_no = EEXIST;
        return KF_ERR_IO;
    }
    f->fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        *err_no = errno;
        out_free(f);
        return KF_ERR_IO;
    }
    *fp = f;
    return KF_OK;
}

static int flush_buf(kf_out_file *f)
{
    size_t off = 0;
    while (off < f->used) {
        ssize_t w = write(f->fd, f->buf + off, f->used - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (size_t)w;
    }
    f->used = 0;
    return 0;
}

int kf_out_write(kf_out_file *f, const void *p, size_t n)
{
    const uint8_t *s = p;
    f->size += n;
    if (f->used + n <= OUT_BUF_SIZE) {
        memcpy(f->buf + f->used, s, n);
        f->used += n;
        return KF_OK;
    }
    if (flush_buf(f) != 0)
        return KF_ERR_IO;
    if (n <= OUT_BUF_SIZE) {
        memcpy(f->buf, s, n);
        f->used = n;
        return KF_OK;
    }
    while (n > 0) {
        ssize_t w = write(f->fd, s, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return KF_ERR_IO;
        }
        s += w;
        n -= (size_t)w;
    }
    return KF_OK;
}

uint64_t kf_out_size(const kf_out_file *f) { return f->size; }

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    /* some file systems refuse fsync on directories: not a failure */
    if (rc != 0 && (errno == EINVAL || errno == ENOTSUP))
        rc = 0;
    close(fd);
    return rc;
}

int kf_out_commit(kf_out_file *f, int *err_no)
{
    int rc = KF_OK;
    if (flush_buf(f) != 0 || fsync(f->fd) != 0) {
        *err_no = errno;
        rc = KF_ERR_IO;
    }
    if (rc == KF_OK && close(f->fd) != 0) {
        *err_no = errno;
        rc = KF_ERR_IO;
    }
    f->fd = -1;
    if (rc == KF_OK) {
        if (f->force) {
            if (rename(f->tmp_path, f->final_path) != 0) {
                *err_no = errno;
                rc = KF_ERR_IO;
            }
        } else if (link(f->tmp_path, f->final_path) != 0) {
            *err_no = errno;
            rc = KF_ERR_IO;
        } else {
            unlink(f->tmp_path);
        }
    }
    if (rc != KF_OK)
        unlink(f->tmp_path);
    else if (fsync_dir(f->dir) != 0) {
        *err_no = errno;
        rc = KF_ERR_IO;
    }
    out_free(f);
    return rc;
}

void kf_out_abort(kf_out_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0) {
        close(f->fd);
        f->fd = -1;
    }
    unlink(f->tmp_path);
    out_free(f);
}

int kf_out_write_file(const char *dir, const char *name, const void *p, size_t n, bool force, int *err_no)
{
    kf_out_file *f;
    int rc = kf_out_open(&f, dir, name, force, err_no);
    if (rc != KF_OK)
        return rc;
    if (kf_out_write(f, p, n) != KF_OK) {
        *err_no = errno;
        kf_out_abort(f);
        return KF_ERR_IO;
    }
    return kf_out_commit(f, err_no);
}

int kf_mkdirs(const char *path, int *err_no)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return KF_OK;
        *err_no = ENOTDIR;
        return KF_ERR_IO;
    }
    char *p = strdup(path);
    if (!p) {
        *err_no = ENOMEM;
        return KF_ERR_NOMEM;
    }
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    char *slash = strrchr(p, '/');
    if (slash && slash != p) {
        *slash = 0;
        int rc = kf_mkdirs(p, err_no);
        *slash = '/';
        if (rc != KF_OK) {
            free(p);
            return rc;
        }
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        *err_no = errno;
        free(p);
        return KF_ERR_IO;
    }
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *err_no = ENOTDIR;
        free(p);
        return KF_ERR_IO;
    }
    slash = strrchr(p, '/');
    if (slash) {
        if (slash == p)
            slash[1] = 0;
        else
            *slash = 0;
        fsync_dir(p);
    } else {
        fsync_dir(".");
    }
    free(p);
    return KF_OK;
}

int kf_path_resolve(const char *path, char *out, size_t cap)
{
    char *work = strdup(path);
    if (!work)
        return -1;
    size_t n = strlen(work);
    while (n > 1 && work[n - 1] == '/')
        work[--n] = 0;
    /* strip components from the end until the rest resolves */
    char rest[4096] = "";
    for (;;) {
        char *r = realpath(work[0] ? work : ".", NULL);
        if (r) {
            int k = snprintf(out, cap, "%s%s%s", r, (rest[0] && strcmp(r, "/")) ? "/" : "", rest);
            free(r);
            free(work);
            return k < 0 || (size_t)k >= cap ? -1 : 0;
        }
        char *slash = strrchr(work, '/');
        const char *last = slash ? slash + 1 : work;
        if (!strcmp(last, "..") || !strcmp(last, ".") || !last[0]) {
            free(work);
            return -1;
        }
        char tmp[4096];
        if (snprintf(tmp, sizeof tmp, "%s%s%s", last, rest[0] ? "/" : "", rest) >= (int)sizeof tmp) {
            free(work);
            return -1;
        }
        memcpy(rest, tmp, strlen(tmp) + 1);
        if (!slash)
            work[0] = 0;
        else if (slash == work)
            work[1] = 0;
        else
            *slash = 0;
    }
}

bool kf_path_within(const char *path, const char *dir)
{
    char a[4096], b[4096];
    if (kf_path_resolve(path, a, sizeof a) != 0 || kf_path_resolve(dir, b, sizeof b) != 0)
        return false;
    size_t n = strlen(b);
    if (strncmp(a, b, n) != 0)
        return false;
    return a[n] == 0 || a[n] == '/' || (n == 1 && b[0] == '/');
}

/* ---- index builder ------------------------------------------------------ */

void kf_index_builder_init(kf_index_builder *b, int64_t base, kf_out_file *ix, kf_out_file *tix)
{
    memset(b, 0, sizeof *b);
    b->base = base;
    b->interval = KF_INDEX_INTERVAL_BYTES;
    b->max_ts = -1; /* Kafka's NO_TIMESTAMP */
    b->max_ts_offset = -1;
    b->ix = ix;
    b->tix = tix;
}

static int time_maybe_append(kf_index_builder *b, int64_t ts, int64_t off)
{
    if (b->has_time && off < b->last_time_offset)
        return KF_ERR_CORRUPT;
    int64_t last_ts = b->has_time ? b->last_time_ts : -1;
    if (ts <= last_ts)
        return KF_OK;
    int64_t rel = off - b->base;
    if (rel < 0 || rel > INT32_MAX)
        return KF_ERR_CORRUPT;
    uint8_t e[12];
    kf_put_be64(e, (uint64_t)ts);
    kf_put_be32(e + 8, (uint32_t)rel);
    if (b->tix && kf_out_write(b->tix, e, sizeof e) != KF_OK)
        return KF_ERR_IO;
    b->has_time = true;
    b->last_time_ts = ts;
    b->last_time_offset = off;
    b->time_entries++;
    return KF_OK;
}

int kf_index_builder_add(kf_index_builder *b, uint32_t size, int64_t last_offset, int64_t max_timestamp)
{
    int64_t rel = last_offset - b->base;
    if (rel < 0 || rel > INT32_MAX)
        return KF_ERR_CORRUPT;
    if (max_timestamp > b->max_ts) {
        b->max_ts = max_timestamp;
        b->max_ts_offset = last_offset;
    }
    if (b->valid - b->last_entry_pos > b->interval) {
        if (b->has_index && last_offset <= b->last_index_offset)
            return KF_ERR_CORRUPT;
        if (b->valid > INT32_MAX)
            return KF_ERR_CORRUPT;
        uint8_t e[8];
        kf_put_be32(e, (uint32_t)rel);
        kf_put_be32(e + 4, (uint32_t)b->valid);
        if (b->ix && kf_out_write(b->ix, e, sizeof e) != KF_OK)
            return KF_ERR_IO;
        b->has_index = true;
        b->last_index_offset = last_offset;
        b->index_entries++;
        int rc = time_maybe_append(b, b->max_ts, b->max_ts_offset);
        if (rc != KF_OK)
            return rc;
        b->last_entry_pos = b->valid;
    }
    b->valid += size;
    return KF_OK;
}

int kf_index_builder_finish(kf_index_builder *b) { return time_maybe_append(b, b->max_ts, b->max_ts_offset); }

