/* source.h: the source functions the streaming reader uses beside the
 * public ones of file.h (source.c): reads that say what they will read and
 * what they are done with (the page-cache manners), holes, a file that
 * shrinks or grows, a memory source's bytes. Internal to the library. */
#ifndef KFSCK_FORMAT_SOURCE_H
#define KFSCK_FORMAT_SOURCE_H

#include "kfsck/sys/file.h"

/* A file small by nature read whole (kf_file_read_all with the cap
 * KF_META_FILE_MAX): one larger is KF_ERR_CORRUPT, damage, with its size
 * and `what` it should be ("partition.metadata") in the last error. */
int kf_file_read_meta(const char *path, const char *what, uint8_t **data, uint64_t *size);

/* Whether the files at a and b hold the same bytes (*same), read in
 * pieces: KF_OK, or kf_source_open's error, KF_ERR_IO or KF_ERR_NOMEM. A
 * file that shrinks while it is read is not the same. */
int kf_files_same(const char *a, const char *b, bool *same);

/* The memory of a memory source, NULL for a file. */
const uint8_t *kf_source_data(const kf_source *s);

/* True once a read came back short of the size the file had at open. */
bool kf_source_shrunk(const kf_source *s);
/* The file's size now (fstat), for telling a grown file; the opened size
 * for memory. */
uint64_t kf_source_size_now(kf_source *s);

/* The first hole (a range with no data on disk: SEEK_HOLE) at or after
 * from, before end: 1 with [*hole_start, *hole_end) set, else 0. */
int kf_source_next_hole(kf_source *s, uint64_t from, uint64_t end, uint64_t *hole_start, uint64_t *hole_end);

/* The caller reads the file front to back: the kernel may read ahead twice
 * as far (posix_fadvise SEQUENTIAL). A no-op for memory. */
void kf_source_sequential(kf_source *s);

/* Page-cache manners. kf_source_gentle(s, true) turns them on (memory
 * sources ignore it). kf_source_will_read(s, end): the caller is about to
 * read up to end: pages up to there not yet looked at are checked for
 * residency. kf_source_done_below(s, pos): the caller needs nothing below
 * pos again: pages there that were not resident before are dropped. The
 * rest is dropped at close. */
void kf_source_gentle(kf_source *s, bool on);
void kf_source_will_read(kf_source *s, uint64_t end);
void kf_source_done_below(kf_source *s, uint64_t pos);
/* The caller begins reading at pos, not at 0 (a seek): residency is looked
 * at, and pages dropped, from there on only (not over the whole file
 * before it). */
void kf_source_read_from(kf_source *s, uint64_t pos);
/* Whether some of [lo, hi) was not in the page cache when its residency was
 * looked at: a cold read. Looks ahead as kf_source_will_read(s, hi) does,
 * so a read of [lo, hi) needs no call of that. False when residency is not
 * followed (memory sources, manners off). */
bool kf_source_uncached(kf_source *s, uint64_t lo, uint64_t hi);
/* Reads past the page cache (O_DIRECT), for stretches that are not cached
 * (the reader's cold blocks). kf_source_direct_ok: whether they are to be
 * had for this source (a file on a file system that allows them; the
 * descriptor is opened at the first call). kf_source_pread_direct reads
 * as kf_source_pread does, past the page cache when pos and buf are
 * multiples of KF_DIRECT_ALIGN; buf must have room for n rounded up to a
 * multiple of it. Anything else, or a refusal, reads through the page
 * cache. kf_source_direct_reads: the reads that went past it (for tests). */
#define KF_DIRECT_ALIGN 4096
bool kf_source_direct_ok(kf_source *s);
int64_t kf_source_pread_direct(kf_source *s, uint64_t pos, void *buf, size_t n);
uint64_t kf_source_direct_reads(const kf_source *s);
/* Pages this source dropped from the page cache so far, and pages it found
 * already cached (and left) - for the bench's figures. */
void kf_source_cache_stats(const kf_source *s, uint64_t *dropped_pages, uint64_t *kept_pages);

/* Is path a regular file (following links)? */
bool kf_file_exists(const char *path);

#endif
