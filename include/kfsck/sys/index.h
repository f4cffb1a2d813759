/* index.h: the per-segment index files, read from bytes in memory or from a
 * file in bounded pieces (any size, bounded memory), all three through one
 * view, kf_index.
 *   .index      8-byte entries: relative offset int32, position int32
 *   .timeindex 12-byte entries: timestamp int64, relative offset int32
 *   .txnindex  34-byte entries: aborted transactions
 * Preallocated zero tails end the index as DumpLogSegments ends it: at the
 * first slot i > 0 whose relative offset is 0 (slot 0 all-zero ends it too). */
#ifndef KFSCK_INDEX_H
#define KFSCK_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/sys/file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A file's entries read a window at a time (opaque; shared with the
 * producer snapshot reader). */
typedef struct kf_slot_window kf_index_window;

typedef struct kf_index {
    const uint8_t *data;  /* the bytes in memory; NULL for a file (win) */
    kf_index_window *win; /* a file's piece in memory (kf_*_index_open), else NULL */
    uint64_t size;        /* bytes in the file */
    int64_t base_offset;  /* the segment's base offset, from the file name */
    int entry_size;       /* 8 (.index), 12 (.timeindex) or 34 (.txnindex) */
    uint64_t slots;       /* size / entry_size */
    uint64_t entries;     /* valid entries: slots before the zero tail (a
                           * .txnindex has none: every whole entry) */
} kf_index;

/* Set up a view of an offset index (.index) or time index (.timeindex). */
void kf_offset_index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset);
void kf_time_index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset);
/* The same over an index file, read through src (which must outlive the
 * view) a window of entries at a time: KF_OK or KF_ERR_NOMEM; release with
 * kf_index_close. A read that fails or comes back short makes the rest of
 * the file read as zeros and is told by kf_index_read_status. */
int kf_offset_index_open(kf_index *ix, kf_source *src, int64_t base_offset);
int kf_time_index_open(kf_index *ix, kf_source *src, int64_t base_offset);
/* Opens the index file at path and its view at once: entry_size 8
 * (.index), 12 (.timeindex) or KF_TXN_ENTRY_SIZE (.txnindex). KF_OK, or
 * kf_source_open's error (KF_ERR_IO with the errno: ENOENT for a missing
 * file), or KF_ERR_NOMEM; kf_index_close closes the file too. */
int kf_index_open_path(kf_index *ix, const char *path, int entry_size, int64_t base_offset);
void kf_index_close(kf_index *ix);
/* KF_OK, or KF_ERR_IO when a read of the file failed: the last error
 * (common.h) has its errno, 0 when the file shrank while it was read. */
int kf_index_read_status(const kf_index *ix);

/* Entry i (< ix->slots) of an offset index: absolute offset and position. */
void kf_offset_index_get(const kf_index *ix, uint64_t i, int64_t *offset, int64_t *position);
/* Entry i (< ix->slots) of a time index: timestamp and absolute offset. */
void kf_time_index_get(const kf_index *ix, uint64_t i, int64_t *timestamp, int64_t *offset);

/* Self-consistency checks that need no log: size a multiple of the entry
 * size (index_corrupt), offsets strictly increasing (index_not_monotonic),
 * positions increasing, timestamps non-decreasing (timeindex_not_monotonic),
 * offsets below the base (index_corrupt), and, when log_size is not
 * UINT64_MAX, positions at or past log_size (index_beyond_log). Problems carry
 * the byte position of the entry in the index file and its absolute offset. */
void kf_offset_index_check(const kf_index *ix, uint64_t log_size, kf_problem_fn fn, void *ctx);
void kf_time_index_check(const kf_index *ix, kf_problem_fn fn, void *ctx);

/* The broker's own check of an offset or time index it opens (OffsetIndex /
 * TimeIndex.sanityCheck): its entries are the file's length / entry size, a
 * zero tail included; the last one's offset below the base (or, for a time
 * index, its timestamp below the first one's) or a length that is no multiple
 * of the entry size makes it throw CorruptIndexException. true when it
 * passes; false with the reason in why (n bytes). */
bool kf_index_sanity(const kf_index *ix, char *why, size_t n);

typedef struct kf_txn_entry {
    int16_t version;
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;
    int64_t last_stable_offset;
} kf_txn_entry;

#define KF_TXN_ENTRY_SIZE 34
/* Number of whole entries (a trailing partial entry is ignored, as Kafka does). */
uint64_t kf_txn_index_count(uint64_t size);
/* Entry i of a transaction index's bytes in memory (i < kf_txn_index_count). */
void kf_txn_index_get(const uint8_t *data, uint64_t i, kf_txn_entry *e);

/* A view of an aborted-transaction index (.txnindex) in memory, or of its
 * file read in pieces (as kf_offset_index_open: close with kf_index_close,
 * a failed or short read told by kf_index_read_status); base_offset is its
 * segment's. Its entries are its whole 34-byte entries. */
void kf_txn_index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset);
int kf_txn_index_open(kf_index *ix, kf_source *src, int64_t base_offset);
/* Entry i (< ix->entries) of a transaction index view. */
void kf_txn_index_entry(const kf_index *ix, uint64_t i, kf_txn_entry *e);
/* version != 0, last_offset < base_offset, first_offset > last_offset,
 * last offsets not increasing, trailing partial entry: txnindex_invalid. */
void kf_txn_index_check(const kf_index *ix, kf_problem_fn fn, void *ctx);

/* TransactionIndex.sanityCheck with its iterator: an entry whose version is
 * above 0 or whose last offset is below the base makes the broker throw (a
 * partial entry at the end is not read). true when it passes; false with
 * the reason in why. */
bool kf_txn_index_sanity(const kf_index *ix, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
