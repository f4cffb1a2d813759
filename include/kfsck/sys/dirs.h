/* dirs.h: what a PATH given to kfsck is (a file, a partition directory, a
 * broker data directory) and sorted directory listings. Nothing here opens a
 * file for reading data: a FIFO or device named like a segment is never
 * opened, so classifying it cannot block. */
#ifndef KFSCK_DIRS_H
#define KFSCK_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A sorted list of the names in a directory (no "." / ".."). */
typedef struct kf_name_list {
    char **names;
    size_t n;
} kf_name_list;

/* KF_OK, or KF_ERR_IO (KF_ERR_NOMEM when out of memory); the last error
 * (common.h) has the errno. */
int kf_list_dir(const char *dir, kf_name_list *out);
void kf_name_list_free(kf_name_list *l);

typedef enum kf_path_kind {
    KF_PATH_UNREADABLE, /* stat failed, or a directory that cannot be listed */
    KF_PATH_FILE,       /* a regular file */
    KF_PATH_SPECIAL,    /* not a regular file nor a directory (FIFO, device, socket) */
    KF_PATH_PARTITION,  /* holds .log files or partition files, or is named <topic>-<n> */
    KF_PATH_DATADIR,    /* holds partition dirs, meta.properties or offset checkpoints */
    KF_PATH_OTHER_DIR,  /* a readable directory that is neither */
} kf_path_kind;

/* Words for a path that is KF_PATH_SPECIAL, for "kfsck: <path>: <what>". */
#define KF_PATH_SPECIAL_WHAT "not a regular file or directory (a FIFO, socket or device?)"

/* What path is: KF_OK with *kind. When it cannot be read, KF_ERR_IO (or
 * KF_ERR_NOMEM) with *kind KF_PATH_UNREADABLE, the last error (common.h)
 * holding the errno (ENOENT, ELOOP, EACCES, ...). A directory named
 * <topic>-<n> that cannot be listed is unreadable, not a partition: its
 * files cannot be read. */
int kf_classify_path(const char *path, kf_path_kind *kind);

/* What went wrong with a path, in words for "kfsck: <path>: <what>":
 * "no such file or directory", "too many levels of symbolic links (a
 * symlink loop?)", "permission denied", ... */
const char *kf_path_error_str(int err_no);
/* The same for the path itself: a symlink whose target does not exist or
 * that loops is named with its target ("a symlink to /disk2/orders-0,
 * which does not exist"), written into buf (n bytes); anything else as
 * kf_path_error_str. Returns buf or a constant string. The one wording of
 * every path the walk (paths.h) cannot use. */
const char *kf_path_why(const char *path, int err_no, char *buf, size_t n);

/* Why a file could not be read, from the call's kf_err and errno: the
 * whole-read cap (KF_ERR_TOO_BIG), out of memory, a FIFO, socket or device
 * (EINVAL, as kf_source_open refuses one), a directory, else as
 * kf_path_error_str. */
const char *kf_read_error_str(int rc, int err_no);

/* A file kfsck does not know by name: does it start like a .log segment
 * (size field >= 14, magic 0..2)? Captured fetch responses cut to their
 * records are read this way. Only regular files are opened. */
bool kf_looks_like_log(const char *path);

/* The last component of path (trailing slashes ignored; points into path). */
const char *kf_path_base(const char *path);
/* The directory part of path ("." when none; trailing slashes ignored, so
 * "a/b/" gives "a"), malloc'd; NULL when out of memory. */
char *kf_path_dir(const char *path);

#ifdef __cplusplus
}
#endif

#endif
