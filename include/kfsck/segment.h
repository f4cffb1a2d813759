/* segment.h: walking a .log segment from start to end the way broker recovery
 * does, with deeper checks than the broker makes, finding where the broker
 * would truncate (valid_bytes), resynchronising past damage to the next
 * well-formed batch, and checking the segment's indexes in the same pass. */
#ifndef KFSCK_SEGMENT_H
#define KFSCK_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/batch.h"
#include "kfsck/common.h"
#include "kfsck/file.h"
#include "kfsck/index.h"

typedef struct kf_segment_summary {
    uint64_t size;
    uint64_t batches;        /* well-formed batches read (CRC ok) */
    uint64_t records;
    uint64_t bad_batches;    /* damaged entries / regions */
    uint64_t valid_bytes;    /* where broker recovery would truncate */
    bool has_offsets;
    int64_t first_offset, last_offset;  /* over intact batches */
    int64_t max_timestamp;
    uint64_t errors, warnings;
} kf_segment_summary;

/* Called for each intact batch (CRC ok), in file order, before its records.
 * Return non-zero to stop the scan. */
typedef int (*kf_batch_fn)(void *ctx, const kf_batch *b);
/* Called for each record when opts->records is set. */
typedef int (*kf_record_fn)(void *ctx, const kf_batch *b, const kf_record *r);

typedef struct kf_scan_opts {
    size_t max_batch_bytes;   /* decompression cap per batch */
    bool deep;                /* decode records (decompressing) and check them */
    bool records;             /* call record_fn per record (implies deep) */
    bool resync;              /* after damage, scan forward for the next good batch */
    int64_t base_offset;      /* the segment's base offset from its name, -1 if unknown */
    bool limited;             /* the map is a prefix (dump --max-bytes): a torn end is not damage */
    bool readahead;           /* map pages ahead in a helper thread (large files, 2+ cores) */
    const kf_index *offset_index;   /* checked against the log when non-NULL */
    const kf_index *time_index;
    kf_batch_fn batch_fn;
    kf_record_fn record_fn;
    void *ctx;
    kf_problem_fn problem_fn;
    void *problem_ctx;
    /* Problems found in the indexes go here (positions are in the index file). */
    kf_problem_fn index_problem_fn;
    void *index_problem_ctx;
    kf_problem_fn timeindex_problem_fn;
    void *timeindex_problem_ctx;
    /* Called about every 64 MiB of progress (NULL: never). */
    void (*progress_fn)(void *ctx, uint64_t position, uint64_t size);
    void *progress_ctx;
} kf_scan_opts;

void kf_scan_opts_init(kf_scan_opts *o);

/* Scan a mapped segment. Returns KF_OK, or KF_ERR_NOMEM. */
int kf_segment_scan(const kf_map *m, const kf_scan_opts *o, kf_segment_summary *sum);

/* Pull-style walk over the entries broker recovery accepts (framing,
 * minimum size, CRC), resynchronising past damage, which is reported through
 * o->problem_fn. Uses o->base_offset, o->resync, o->limited and the problem
 * callback; records are not decoded (use kf_records_begin on each batch).
 * Several iterators can run side by side (merging copies of a partition). */
typedef struct kf_segment_iter kf_segment_iter;

int kf_segment_iter_open(kf_segment_iter **it, const kf_map *m, const kf_scan_opts *o);
/* 1 with *b set (its bytes point into the map), 0 at the end. *damaged is
 * set when damage was skipped since the previous entry returned. */
int kf_segment_iter_next(kf_segment_iter *it, kf_batch *b, bool *damaged);
/* Counts so far (batches, bad_batches, valid_bytes once the end is reached). */
const kf_segment_summary *kf_segment_iter_summary(const kf_segment_iter *it);
void kf_segment_iter_close(kf_segment_iter *it);

/* From `from`, find the start of the next well-formed entry (plausible size,
 * magic 0..2, CRC ok). Returns its position, or `size` if there is none. */
uint64_t kf_find_next_batch(const uint8_t *data, uint64_t size, uint64_t from);

/* Where broker recovery (LogSegment.recover) would truncate a segment: the
 * start of the first entry that fails framing, the minimum size, the CRC or
 * the offset range; 0 when an index append during recovery would fail. */
uint64_t kf_recovery_point(const uint8_t *data, uint64_t size, int64_t base_offset);

#endif
