/* index_builder.h: the .index/.timeindex builder that follows broker
 * recovery (LogSegment.recover, index_builder.c): fed a segment's batches in
 * order, it adds an offset-index entry when more than index.interval.bytes
 * were appended since the last one, with the time-index entry of the largest
 * timestamp so far, and refuses a batch where the broker's index append
 * would throw. The partition writer (partwriter.h) builds every segment's
 * indexes with it. Internal to the library. */
#ifndef KFSCK_INDEX_BUILDER_H
#define KFSCK_INDEX_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "format/out_file.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KF_INDEX_INTERVAL_BYTES 4096

typedef struct kf_index_builder {
    int64_t base;                /* segment base offset */
    uint64_t interval;           /* index.interval.bytes */
    uint64_t valid;              /* bytes of batches added so far */
    uint64_t last_entry_pos;
    bool has_index;
    int64_t last_index_offset;
    int64_t max_ts, max_ts_offset;
    bool has_time;
    int64_t last_time_ts, last_time_offset;
    uint64_t index_entries, time_entries;
    kf_out_file *ix, *tix;       /* where entries go (may be NULL: count only) */
} kf_index_builder;

void kf_index_builder_init(kf_index_builder *b, int64_t base, kf_out_file *ix, kf_out_file *tix);
/* Add the next batch (as the broker reads it: last offset, max timestamp,
 * size). Returns KF_OK, KF_ERR_CORRUPT where the broker's index append would
 * throw (offset out of range or not increasing), or KF_ERR_IO. */
int kf_index_builder_add(kf_index_builder *b, uint32_t size, int64_t last_offset, int64_t max_timestamp);
/* The closing time-index entry. */
int kf_index_builder_finish(kf_index_builder *b);

#ifdef __cplusplus
}
#endif

#endif
