/* resync.h: the random-access side of reading a segment, for the rare paths
 * that leave the batch-by-batch stream: resynchronising past damage (a
 * forward scan for the next well-formed batch), measuring zero-filled
 * ranges and holes, and checking a candidate batch's CRC. It reads through a
 * bounded window (one reused buffer, grown only for one large candidate), so
 * memory stays bounded on files of any size. Private to libkfsck. */
#ifndef KFSCK_FORMAT_RESYNC_H
#define KFSCK_FORMAT_RESYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/file.h"

#define KF_WINDOW_BYTES ((size_t)1 << 20)
#define KF_RESYNC_MAX_BATCH ((uint64_t)1 << 30) /* a larger size field is not a batch */

typedef struct kf_window {
    kf_source *src;
    uint64_t size;          /* bytes readable (the source's size, or less once it shrank) */
    const uint8_t *mem;     /* memory source: read in place */
    uint8_t *buf;
    size_t cap;
    uint64_t start;         /* buf holds [start, start + len) */
    size_t len;
    uint8_t *crc_buf;       /* for CRCs of candidates larger than the window */
    bool nomem;
} kf_window;

void kf_window_init(kf_window *w, kf_source *src);
void kf_window_free(kf_window *w);

/* Bytes at pos: returns a pointer to them and sets *avail to how many are
 * readable there (at least min(need, size - pos) unless the file shrank or
 * memory ran out, then fewer). NULL when pos is at or past the end. */
const uint8_t *kf_window_at(kf_window *w, uint64_t pos, size_t need, size_t *avail);

/* CRC-32C (v2) or CRC-32 (v0/v1) of [pos, pos + len), read in pieces. Sets
 * *ok false when the bytes could not all be read. */
uint32_t kf_window_crc(kf_window *w, bool castagnoli, uint64_t pos, uint64_t len, bool *ok);

/* Does a well-formed entry start at p: size field plausible, magic 0..2,
 * header fields sane, CRC ok (cheap filters first, the CRC last). */
bool kf_entry_plausible(kf_window *w, uint64_t p);

/* Header-only part of kf_entry_plausible for a v2 batch whose bytes (len:
 * its length field) are at q: everything but the CRC. */
bool kf_v2_header_plausible(const uint8_t *q, uint64_t len);

/* From `from`, the start of the next well-formed entry, or w->size if none.
 * Long zero runs and holes are jumped over. */
uint64_t kf_find_next(kf_window *w, uint64_t from);

/* End of the run of zero bytes starting at from (== from if the byte there
 * is not 0), at most end; holes are skipped without reading them. */
uint64_t kf_zero_run_end(kf_window *w, uint64_t from, uint64_t end);

/* In memory: from `from`, the start of the next well-formed entry
 * (plausible size, magic 0..2, CRC ok); `size` if there is none. */
uint64_t kf_find_next_batch(const uint8_t *data, uint64_t size, uint64_t from);

#endif
