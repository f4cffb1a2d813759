/* file.h: read-only access to input files: sources for the streaming
 * reader (files read with pread into the reader's own bounded buffers, never
 * mapped, never read whole), small files read whole with a cap, and sparse
 * holes (SEEK_DATA/SEEK_HOLE) so a damaged disk's zeroed ranges are found
 * without reading them. */
#ifndef KFSCK_FILE_H
#define KFSCK_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sources: what the streaming reader reads ----------------------------
 *
 * A source is a file opened read-only (O_RDONLY, never anything else) and
 * read with pread into the caller's buffers, or a piece of memory (tests,
 * fuzzing). Only regular files are opened, without blocking: a FIFO or a
 * device named like a segment is refused (KF_ERR_IO, the last error's err_no EINVAL), never
 * waited on. The size is taken when the source is opened; a file that
 * shrinks afterwards gives short reads (the reader reports `truncated`), one
 * that grows is read up to the size it had.
 *
 * Gentle on the page cache: with kf_source_gentle, the pages a read brings
 * into the cache are dropped again (posix_fadvise DONTNEED) once the caller
 * releases them, while pages that were cached before the read (mincore) stay
 * cached; running kfsck next to a broker does not evict the broker's hot data.
 * Sources are not thread-safe except for kf_source_pread, which may be called
 * from several threads at once. */
typedef struct kf_source kf_source;

/* Open path read-only; max_bytes > 0 limits the source to the file's first
 * max_bytes. Returns KF_OK, or KF_ERR_IO with the last error (common.h)
 * naming path and its errno (EISDIR for a directory, EINVAL for any other
 * file that is not a regular file), or KF_ERR_NOMEM. */
int kf_source_open(kf_source **s, const char *path, uint64_t max_bytes);
/* A source over size bytes at data (not copied: they must outlive it). */
int kf_source_memory(kf_source **s, const uint8_t *data, uint64_t size);
void kf_source_close(kf_source *s);

/* Bytes in the source (fixed when it was opened). */
uint64_t kf_source_size(const kf_source *s);
/* The memory of a memory source, NULL for a file. */
const uint8_t *kf_source_data(const kf_source *s);

/* Read up to n bytes at pos into buf: returns the count read, which is
 * below n only at the source's end or when the file shrank (then
 * kf_source_shrunk is true); -1 on an I/O error (errno kept). */
int64_t kf_source_pread(kf_source *s, uint64_t pos, void *buf, size_t n);
/* True once a read came back short of the size the file had at open. */
bool kf_source_shrunk(const kf_source *s);
/* The file's size now (fstat), for telling a grown file; the opened size
 * for memory. */
uint64_t kf_source_size_now(kf_source *s);

/* The first hole (a range with no data on disk: SEEK_HOLE) at or after
 * from, before end: 1 with [*hole_start, *hole_end) set, else 0. */
int kf_source_next_hole(kf_source *s, uint64_t from, uint64_t end, uint64_t *hole_start, uint64_t *hole_end);

/* Page-cache manners. kf_source_gentle(s, true) turns them on (memory
 * sources ignore it). kf_source_will_read(s, end): the caller is about to
 * read up to end: pages up to there not yet looked at are checked for
 * residency. kf_source_done_below(s, pos): the caller needs nothing below
 * pos again: pages there that were not resident before are dropped. The
 * rest is dropped at close. */
void kf_source_gentle(kf_source *s, bool on);
void kf_source_will_read(kf_source *s, uint64_t end);
void kf_source_done_below(kf_source *s, uint64_t pos);
/* Pages this source dropped from the page cache so far, and pages it found
 * already cached (and left) - for the bench's figures. */
void kf_source_cache_stats(const kf_source *s, uint64_t *dropped_pages, uint64_t *kept_pages);

/* Read a whole small file (checkpoints, snapshots, metadata files) into a
 * malloc'd buffer: KF_OK with *data (caller frees; NULL when empty) and
 * *size; KF_ERR_TOO_BIG when the file is larger than cap; KF_ERR_IO (the
 * last error as kf_source_open's). */
int kf_file_read_all(const char *path, uint64_t cap, uint8_t **data, uint64_t *size);

/* A whole small file in memory (kf_file_read_all). */
typedef struct kf_bytes {
    uint8_t *data;
    uint64_t size;
} kf_bytes;

/* The cap kfsck puts on the small files it reads whole (checkpoints,
 * snapshots, metadata files, transaction indexes), in MiB and in bytes. */
#define KF_SMALL_FILE_MAX_MIB 256
#define KF_SMALL_FILE_MAX ((uint64_t)KF_SMALL_FILE_MAX_MIB << 20)
/* Why a file over that cap is not read, for messages: it names the cap. */
#define KF_TOO_BIG_TO_READ_WHOLE "larger than the " KF_FILE_STR_(KF_SMALL_FILE_MAX_MIB) " MiB kfsck reads whole"
#define KF_FILE_STR_(n) KF_FILE_STR__(n)
#define KF_FILE_STR__(n) #n

/* Is path a regular file (following links)? */
bool kf_file_exists(const char *path);

/* dir + "/" + name (no doubled slash), malloc'd; NULL when out of memory. */
char *kf_path_join(const char *dir, const char *name);

#ifdef __cplusplus
}
#endif

#endif
