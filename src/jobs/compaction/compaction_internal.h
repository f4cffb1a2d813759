/* compaction_internal.h: internal. What the compaction driver
 * (compaction.c: which partitions, their configs and checkpoints) and the
 * read of one partition (compaction_feed.c: the key table, the txns replay
 * and the segments' timestamps, in one pass) hand each other. */
#ifndef KFSCK_COMPACTION_INTERNAL_H
#define KFSCK_COMPACTION_INTERNAL_H

#include "kfsck/compaction.h"

/* One partition's log as read: the segments of its first copy (sizes from
 * the files, timestamps from the batches) and what the txns replay said. */
typedef struct cp_log {
    kf_cleaner_segment *segs;
    size_t nseg;
    bool has_batches;
    int64_t first_offset;      /* of the first batch read */
    kf_txns_result txns;
    bool has_oldest_open;
    kf_open_txn oldest_open;   /* the oldest open transaction */
} cp_log;

/* Read p whole: r's full-cleaning counts and incomplete, *log its segments
 * and transactions (free log->segs after). KF_OK or KF_ERR_NOMEM. */
int cp_read_partition(const kf_partition *p, const kf_compaction_opts *o, kf_compaction_result *r, cp_log *log,
                      bool *unreadable);

#endif
