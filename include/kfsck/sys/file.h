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

/* ---- sources: what the streaming reader reads -------------------------------
 *
 * A source is a file opened read-only (O_RDONLY, never anything else) and
 * read with pread into the caller's buffers, or a piece of memory (tests,
 * fuzzing). Only regular files are opened, without blocking: a FIFO or a
 * device named like a segment is refused (KF_ERR_IO, the last error's
 * err_no EINVAL), never waited on. The size is taken when the source is opened; a file that
 * shrinks afterwards gives short reads (the reader reports `truncated`), one
 * that grows is read up to the size it had.
 *
 * Gentle on the page cache: as the streaming reader reads, the pages a read
 * brings into the cache are dropped again (posix_fadvise DONTNEED) once the
 * caller releases them, while pages that were cached before the read
 * (mincore) stay cached; running kfsck next to a broker does not evict the
 * broker's hot data. Sources are not thread-safe except for kf_source_pread,
 * which may be called from several threads at once. */
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

/* Read up to n bytes at pos into buf: returns the count read, which is
 * below n only at the source's end or when the file shrank (then
 * the library's reader notes it); -1 on an I/O error, with errno kept and
 * the last error naming the file, the position and the errno. */
int64_t kf_source_pread(kf_source *s, uint64_t pos, void *buf, size_t n);

/* Read a whole small file into a malloc'd buffer: KF_OK with *data (caller
 * frees; NULL when empty) and *size; KF_ERR_TOO_BIG when the file is larger
 * than cap; KF_ERR_IO (the last error as kf_source_open's). kfsck reads no
 * file whole but those small by nature (KF_META_FILE_MAX): every other kind
 * is read in pieces, whatever its size. */
int kf_file_read_all(const char *path, uint64_t cap, uint8_t **data, uint64_t *size);
/* The first min(size, max) bytes of the file at path, as kf_file_read_all
 * reads (never KF_ERR_TOO_BIG): for a file of which only the start counts
 * (quorum-state, whose first line is all a node reads). */
int kf_file_read_head(const char *path, uint64_t max, uint8_t **data, uint64_t *size);

/* A whole small file in memory (kf_file_read_all). */
typedef struct kf_file_contents {
    uint8_t *data;
    uint64_t size;
} kf_file_contents;

/* The cap on the files kfsck reads whole, the ones small by nature, each
 * far below it as a broker writes it: partition.metadata (two lines,
 * PartitionMetadataFile), meta.properties (a handful of properties),
 * KRaft's quorum-state (one JSON line: its first KF_QUORUM_LINE_MAX bytes
 * only are read) and the clean-shutdown file (a JSON object of two
 * fields). A larger one is not read: it is not what its name says, and is
 * reported as damage (KF_TOO_BIG_TO_READ_WHOLE says why). 1 MiB. (predict
 * --config's server.properties, settings written by hand, is read whole
 * with a cap of its own: 8 MiB.) */
#define KF_META_FILE_MAX ((uint64_t)1 << 20)
/* Why a file over that cap is not read, for messages. */
#define KF_TOO_BIG_TO_READ_WHOLE "larger than 1 MiB, far more than a file of its kind holds"

/* dir + "/" + name (no doubled slash), malloc'd; NULL when out of memory. */
char *kf_path_join(const char *dir, const char *name);

#ifdef __cplusplus
}
#endif

#endif
