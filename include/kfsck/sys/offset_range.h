/* offset_range.h: the batches of one log (a partition directory's
 * segments, or a segment file) that hold a range of offsets, found without
 * reading what comes before them: the segment by its base offset, the place
 * in it by its offset index (kf_segment_seek: a hint, checked before it is
 * used), and what no intact batch holds named as offset_not_found with its
 * reason. What `dump --offset` and `--from-offset/--to-offset` print. */
#ifndef KFSCK_OFFSET_RANGE_H
#define KFSCK_OFFSET_RANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/partition.h"
#include "kfsck/sys/segment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* offset_not_found's `reason` */
/* below the log start offset as the broker loads it (LogLoader: the first
 * segment's base offset, or the data dir's log-start-offset-checkpoint
 * entry for the partition when higher) */
#define KF_RANGE_BELOW_LOG_START "below_log_start"
#define KF_RANGE_PAST_LOG_END "past_log_end" /* after the log's last intact batch */
#define KF_RANGE_DAMAGED "damaged"           /* in a damaged stretch of a segment */
/* between two intact batches, or between the log start and the first
 * (compaction, retention) */
#define KF_RANGE_GAP "gap"

#define KF_RANGE_OPTIONS_VERSION 1
#define KF_RANGE_OPTIONS_INIT KF_OPTIONS_INIT_(kf_range_opts, KF_RANGE_OPTIONS_VERSION)
typedef struct kf_range_opts {
    unsigned version;           /* KF_RANGE_OPTIONS_VERSION (kfsck.h: options) */
    int64_t first, last;        /* the offsets wanted: first..last, both included */
    /* How each segment is read (its version may be left 0): max_batch_bytes,
     * deep, records, threads, chunk_bytes, progress_fn, and the callbacks,
     * which see only what concerns the range: batch_fn the batches holding
     * an offset of it, record_fn their records inside it, problem_fn (with
     * p->file set) the problems of those batches, of the damaged stretches
     * that hide offsets of it (with damaged_fn's stretches, d->file set) and
     * one offset_not_found (warning: offset, and the extra fields
     * last_offset and reason) per run of wanted offsets no intact batch
     * holds. base_offset, start_position and the indexes are set per
     * segment. threads 0 (automatic) is 1 when first == last: one offset
     * lies in a batch or two, and reading ahead would read past it. */
    kf_segment_scan_opts scan;
    /* Before each segment is read: its path (may be NULL). */
    void (*segment_fn)(void *ctx, const char *path);
    void *segment_ctx;
    bool no_seek;               /* read each segment from its start (the index is not
                                   looked at): the answer is the same */
} kf_range_opts;

void kf_range_opts_init(kf_range_opts *o);

typedef struct kf_range_result {
    uint64_t segments_read;
    uint64_t seeks;             /* segments entered at a position their index gave */
    uint64_t bytes_skipped;     /* bytes before those positions, not read */
    uint64_t errors, warnings;  /* of the problems passed on */
} kf_range_result;

/* Read log (its segments in base-offset order: a kf_partition_copy of partition.h)
 * for o->first..o->last. Returns KF_OK, KF_ERR_UNSUPPORTED (o's version),
 * KF_ERR_NOMEM, or KF_ERR_IO (a segment that exists cannot be read: the
 * last error names it); *res (may be NULL) holds what was done. */
int kf_range_read(const kf_partition_copy *log, const kf_range_opts *o, kf_range_result *res);

#ifdef __cplusplus
}
#endif

#endif
