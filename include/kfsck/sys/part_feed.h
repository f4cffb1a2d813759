/* part_feed.h: the loop every job that reads a whole partition runs, in one
 * place: open the partition reader over a kf_partition, hand each batch to
 * the job, close the reader and give back what it saw (batches, damage no
 * copy covered, unreadable segments). Offsets, groups, Connect offsets,
 * stats, the sink simulation and txns read their partitions through it. */
#ifndef KFSCK_PART_FEED_H
#define KFSCK_PART_FEED_H

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One batch of the partition, in offset order; r is the reader it came
 * from (for kf_part_reader_records / kf_part_reader_file). Returns KF_OK to
 * go on, KF_PART_FEED_STOP to stop reading there (the feed then returns
 * KF_OK; the reader's result covers what was read), or a kf_err that stops
 * the feed and is returned by it. */
typedef int (*kf_part_batch_fn)(void *ctx, kf_part_reader *r, kf_batch *b);

#define KF_PART_FEED_STOP (-1)

/* Read p's log with a reader opened with o and give every batch to fn.
 * *res (may be NULL) is the reader's result, filled also when the feed
 * stops early. Returns KF_OK, KF_ERR_NOMEM, or what fn returned. */
int kf_part_feed(const kf_partition *p, const kf_part_reader_opts *o, kf_part_batch_fn fn, void *ctx,
                 kf_part_result *res);

/* The same with a reader the caller opened (a job that also works on the
 * reader itself): reads r to its end but neither closes nor frees it. */
int kf_part_feed_reader(kf_part_reader *r, kf_part_batch_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
