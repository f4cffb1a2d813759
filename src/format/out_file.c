/* out_file.c: safe output files (out_file.h), what repair and merge write
 * with. Each file is written under a temporary name in its final directory,
 * fsync'd, then renamed (link+unlink when it must not replace an existing
 * file) and the directory fsync'd, so a final name only ever holds a
 * complete file. Also mkdir -p and the path resolution that tells whether an
 * output would land inside an input. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/out_file.h"
#include "kfsck/sys/codec.h"

#include "bytes/error.h"
#include "kfsck/sys/file.h"

#define OUT_BUF_SIZE (64 * 1024)

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

static int out_open(kf_out_file **fp, const char *dir, const char *name, bool force, int *err_no)
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

/* An output file's error (the last error, bytes/error.h): dir/name and
 * what failed, with errno. */
static int out_error(int rc, int err_no, const char *dir, const char *name, const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    return kf_error_set(rc, err_no, path, "%s: %s", what, strerror(err_no));
}

static int write_failed(const kf_out_file *f)
{
    return out_error(KF_ERR_IO, errno, f->final_path, NULL, "cannot write");
}

int kf_out_open(kf_out_file **fp, const char *dir, const char *name, bool force)
{
    int e = 0;
    int rc = out_open(fp, dir, name, force, &e);
    return rc == KF_OK ? rc : out_error(rc, e, dir, name, "cannot create");
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
        return write_failed(f);
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
            return write_failed(f);
        }
        s += w;
        n -= (size_t)w;
    }
    return KF_OK;
}

uint64_t kf_out_size(const kf_out_file *f) { return f->size; }

int kf_fsync_dir(const char *dir)
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

static int out_commit(kf_out_file *f, int *err_no)
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
    else if (kf_fsync_dir(f->dir) != 0) {
        *err_no = errno;
        rc = KF_ERR_IO;
    }
    out_free(f);
    return rc;
}

int kf_out_commit(kf_out_file *f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", f->final_path);
    const char *lib = kf_codec_load_error();
    if (lib) { /* some batches of this run could not be read: not written */
        kf_out_abort(f);
        return kf_error_set(KF_ERR_UNSUPPORTED, 0, path, "not written: %s", lib);
    }
    int e = 0;
    int rc = out_commit(f, &e);
    return rc == KF_OK ? rc : out_error(rc, e, path, NULL, "cannot write");
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

int kf_out_write_file(const char *dir, const char *name, const void *p, size_t n, bool force)
{
    kf_out_file *f;
    int rc = kf_out_open(&f, dir, name, force);
    if (rc != KF_OK)
        return rc;
    if ((rc = kf_out_write(f, p, n)) != KF_OK) {
        kf_out_abort(f);
        return rc;
    }
    return kf_out_commit(f);
}

int kf_out_copy_file(const char *dir, const char *name, const char *src_path, uint64_t size, bool force,
                     bool *input_failed)
{
    *input_failed = false;
    kf_source *src;
    int rc = kf_source_open(&src, src_path, 0);
    if (rc != KF_OK) {
        *input_failed = rc != KF_ERR_NOMEM;
        return rc;
    }
    kf_out_file *f;
    if ((rc = kf_out_open(&f, dir, name, force)) != KF_OK) {
        kf_source_close(src);
        return rc;
    }
    enum { PIECE = 256 << 10 };
    uint8_t *buf = malloc(PIECE);
    if (!buf)
        rc = kf_error_set(KF_ERR_NOMEM, ENOMEM, src_path, "out of memory");
    for (uint64_t pos = 0; rc == KF_OK && pos < size;) {
        size_t n = size - pos < PIECE ? (size_t)(size - pos) : PIECE;
        int64_t got = kf_source_pread(src, pos, buf, n);
        if (got < 0 || (uint64_t)got < n) {
            int e = got < 0 ? errno : 0;
            *input_failed = true;
            rc = kf_error_set(KF_ERR_IO, e, src_path, "%s", e ? strerror(e) : "the file shrank while it was read");
            break;
        }
        rc = kf_out_write(f, buf, n);
        pos += n;
    }
    free(buf);
    kf_source_close(src);
    if (rc != KF_OK) {
        kf_out_abort(f);
        return rc;
    }
    return kf_out_commit(f);
}

static int mkdirs(const char *path, int *err_no)
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
        int rc = mkdirs(p, err_no);
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
        kf_fsync_dir(p);
    } else {
        kf_fsync_dir(".");
    }
    free(p);
    return KF_OK;
}

int kf_mkdirs(const char *path)
{
    int e = 0;
    int rc = mkdirs(path, &e);
    return rc == KF_OK ? rc : out_error(rc, e, path, NULL, "cannot create");
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
