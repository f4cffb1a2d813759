/* dirs.c: classifying PATHs and listing directories (include/kfsck/sys/dirs.h). */
#include "kfsck/sys/dirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes/grow.h"
#include "bytes/error.h"
#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int kf_list_dir(const char *dir, kf_name_list *out)
{
    out->names = NULL;
    out->n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        return kf_error_set(KF_ERR_IO, e, dir, "cannot list: %s", strerror(e));
    }
    size_t cap = 0;
    struct dirent *e;
    int rc = KF_OK;
    errno = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!KF_GROW(out->names, out->n, cap, 64)) {
            rc = KF_ERR_NOMEM;
            break;
        }
        if (!(out->names[out->n] = strdup(e->d_name))) {
            rc = KF_ERR_NOMEM;
            break;
        }
        out->n++;
    }
    closedir(d);
    if (rc != KF_OK) {
        kf_name_list_free(out);
        return kf_error_set(rc, ENOMEM, dir, "out of memory");
    }
    if (out->n)
        qsort(out->names, out->n, sizeof *out->names, cmp_names);
    return KF_OK;
}

void kf_name_list_free(kf_name_list *l)
{
    if (!l)
        return;
    kf_strings_free(l->names, l->n);
    l->names = NULL;
    l->n = 0;
}

const char *kf_path_error_str(int err_no)
{
    switch (err_no) {
    case ENOENT: return "no such file or directory";
    case ELOOP: return "too many levels of symbolic links (a symlink loop?)";
    case EACCES: return "permission denied";
    case ENOTDIR: return "a component of the path is not a directory";
    case ENAMETOOLONG: return "file name too long";
    case ENOMEM: return "out of memory";
    default: return strerror(err_no);
    }
}

const char *kf_path_why(const char *path, int err_no, char *buf, size_t n)
{
    struct stat st;
    if ((err_no == ENOENT || err_no == ELOOP) && path && n && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t k = readlink(path, target, sizeof target - 1);
        if (k >= 0) {
            target[k] = 0;
            snprintf(buf, n, err_no == ENOENT ? "a symlink to %s, which does not exist" : "a symlink to %s, in a loop of symlinks (too many levels of symbolic links)",
                     target);
            return buf;
        }
    }
    return kf_path_error_str(err_no);
}

const char *kf_read_error_str(int rc, int err_no)
{
    if (rc == KF_ERR_TOO_BIG)
        return KF_TOO_BIG_TO_READ_WHOLE;
    if (rc == KF_ERR_NOMEM)
        return "out of memory";
    if (rc == KF_ERR_IO && err_no == 0)
        return "the file shrank while it was read";
    if (err_no == EINVAL)
        return "not a regular file (a FIFO, socket or device?)";
    if (err_no == EISDIR)
        return "is a directory";
    return kf_path_error_str(err_no);
}

/* kf_classify_path's kind (KF_PATH_UNREADABLE with the last error set). */
static kf_path_kind path_kind(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        kf_error_set(KF_ERR_IO, e, path, "%s", kf_path_error_str(e));
        return KF_PATH_UNREADABLE;
    }
    if (S_ISREG(st.st_mode))
        return KF_PATH_FILE;
    if (!S_ISDIR(st.st_mode))
        return KF_PATH_SPECIAL;
    kf_name_list l;
    if (kf_list_dir(path, &l) != KF_OK) /* the last error says why */
        return KF_PATH_UNREADABLE;
    kf_path_kind k = KF_PATH_OTHER_DIR;
    bool has_partition_dir = false, has_meta = false;
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_PARTITION_METADATA || ni.kind == KF_FILE_LEADER_EPOCH) {
            k = KF_PATH_PARTITION;
            break;
        }
        if (ni.kind == KF_FILE_META_PROPERTIES || ni.kind == KF_FILE_OFFSET_CHECKPOINT)
            has_meta = true;
        char topic[256];
        int32_t part;
        if (!has_partition_dir && kf_parse_partition_dir(l.names[i], topic, sizeof topic, &part)) {
            char *sub = kf_path_join(path, l.names[i]);
            struct stat s2;
            if (sub && stat(sub, &s2) == 0 && S_ISDIR(s2.st_mode))
                has_partition_dir = true;
            free(sub);
        }
    }
    if (k == KF_PATH_OTHER_DIR && (has_partition_dir || has_meta))
        k = KF_PATH_DATADIR;
    if (k == KF_PATH_OTHER_DIR) {
        char topic[256];
        int32_t part;
        if (kf_parse_partition_dir(kf_path_base(path), topic, sizeof topic, &part))
            k = KF_PATH_PARTITION;
    }
    kf_name_list_free(&l);
    return k;
}

int kf_classify_path(const char *path, kf_path_kind *kind)
{
    *kind = path_kind(path);
    return *kind == KF_PATH_UNREADABLE ? kf_error_last()->code : KF_OK;
}

bool kf_looks_like_log(const char *path)
{
    /* O_NONBLOCK: a FIFO swapped in after the caller's stat must not block */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return false;
    struct stat st;
    uint8_t h[17];
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h;
    close(fd);
    if (!ok)
        return false;
    uint32_t size;
    int8_t magic; /* the file's size does not matter: only its first entry's frame */
    return kf_batch_frame(h, UINT64_MAX, &size, &magic) == KF_FRAME_OK && magic >= 0 && magic <= 2;
}

const char *kf_path_base(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *s = path;
    for (size_t i = 0; i + 1 < n; i++)
        if (path[i] == '/')
            s = path + i + 1;
    return s;
}

char *kf_path_dir(const char *path)
{
    /* the slash before the last component (kf_path_base's) */
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/')
        end--;
    const char *slash = NULL;
    for (size_t i = end; i > 0 && !slash; i--)
        if (path[i - 1] == '/')
            slash = path + i - 1;
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (slash && n == 0)
        n = 1;
    char *d = malloc(n ? n + 1 : 2);
    if (!d) {
        kf_error_nomem();
        return NULL;
    }
    if (!slash)
        return strcpy(d, ".");
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

char *kf_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) {
        kf_error_nomem();
        return NULL;
    }
    memcpy(p, dir, a);
    size_t k = a;
    if (a && dir[a - 1] != '/')
        p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}
