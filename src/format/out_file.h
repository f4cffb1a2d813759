/* out_file.h: safe output files, what every file repair and merge write
 * goes through (out_file.c). A file is written under a temporary name in its
 * final directory (.<name>.tmp-<pid>-<n>), flushed, fsync'd, renamed to its
 * name and the directory fsync'd, so a final name only ever holds a complete
 * file; without `force` an existing file is never replaced. Also mkdir -p
 * and the path resolution that tells whether an output lands inside an
 * input's directory. Internal to the library (repair, merge). */
#ifndef KFSCK_OUT_FILE_H
#define KFSCK_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_out_file kf_out_file;

/* Create dir/name.tmp-<pid>-<n> for writing. Fails with KF_ERR_IO, the
 * last error's err_no EEXIST, when dir/name exists and !force. Every
 * function here that fails sets the last error (common.h): errno, the
 * path, what failed. */
int kf_out_open(kf_out_file **f, const char *dir, const char *name, bool force);
int kf_out_write(kf_out_file *f, const void *p, size_t n);
uint64_t kf_out_size(const kf_out_file *f);
/* Flush, fsync, rename to the final name (refusing to replace an existing
 * file unless force), fsync the directory; frees f. On failure the
 * temporary file is removed. */
int kf_out_commit(kf_out_file *f);
/* Remove the temporary file; frees f (NULL is fine). */
void kf_out_abort(kf_out_file *f);
/* Write a whole small file at once (temp + fsync + rename). */
int kf_out_write_file(const char *dir, const char *name, const void *p, size_t n, bool force);
/* Copy the first size bytes of the file at src_path to dir/name the same
 * way, a piece at a time (any size). KF_OK; else *input_failed tells
 * whether the input could not be read (KF_ERR_IO, errno 0 when it is now
 * shorter than size) or the output not written. */
int kf_out_copy_file(const char *dir, const char *name, const char *src_path, uint64_t size, bool force,
                     bool *input_failed);
/* fsync a directory (0, or -1 with errno; file systems that refuse it on
 * directories count as done). */
int kf_fsync_dir(const char *dir);
/* mkdir -p; returns KF_OK or KF_ERR_IO (KF_ERR_NOMEM). New directories
 * are fsync'd into their parents. */
int kf_mkdirs(const char *path);

/* Resolve path like realpath(3), also when its last components do not exist
 * yet (they are appended to the resolved existing prefix). Returns 0, or -1
 * when it does not fit or cannot be resolved. */
int kf_path_resolve(const char *path, char *out, size_t cap);
/* Is `path` equal to or inside directory `dir` (both resolved)? */
bool kf_path_within(const char *path, const char *dir);

#ifdef __cplusplus
}
#endif

#endif
