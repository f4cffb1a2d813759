/* stats_internal.h: the pieces `stats` and the sink simulation count with
 * (stats.c): time buckets, timestamp lateness, a record's payload size.
 * Internal to the library; the results they fill are in stats.h. */
#ifndef KFSCK_JOBS_STATS_INTERNAL_H
#define KFSCK_JOBS_STATS_INTERNAL_H

#include "kfsck/stats.h"

/* Floor of ts to a multiple of width (also right for negative ts). */
int64_t kf_bucket_start(int64_t ts, int64_t width);

void kf_timehist_init(kf_timehist *h, int64_t width);
/* Count one record of `bytes` bytes at timestamp ts. KF_OK or KF_ERR_NOMEM. */
int kf_timehist_add(kf_timehist *h, int64_t ts, uint64_t bytes);
/* The buckets in ascending start order, in a new array (*out, n returned;
 * caller frees). Returns (size_t)-1 on allocation failure. */
size_t kf_timehist_sorted(const kf_timehist *h, kf_tbucket **out);
void kf_timehist_free(kf_timehist *h);

/* Feed one record's timestamp (kf_lateness, stats.h). */
void kf_lateness_add(kf_lateness *l, int64_t ts);

/* The payload size of a record as `stats` counts it: key length + value
 * length (null counts 0) + for every header its key length and value length
 * (null counts 0). Framing (varints, attributes, deltas) is not counted.
 * Headers that do not parse count up to the first bad one. */
uint64_t kf_record_payload_bytes(const kf_record *r);

#endif
