/* stats.h: a time histogram of records (records and bytes per fixed-width
 * bucket of record timestamps), a timestamp-disorder tracker, and the
 * helpers `kfsck stats` uses to size a record and to parse a duration. The
 * histogram's memory grows with the number of distinct buckets only. */
#ifndef KFSCK_STATS_H
#define KFSCK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/batch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_tbucket {
    int64_t start;      /* ms: floor(ts / width) * width */
    uint64_t records;
    uint64_t bytes;
} kf_tbucket;

typedef struct kf_timehist {
    int64_t width;      /* bucket width in ms, > 0 */
    kf_tbucket *slots;  /* open addressing on start; records == 0 marks a free slot */
    size_t cap, n;
} kf_timehist;

/* Floor of ts to a multiple of width (also right for negative ts). */
int64_t kf_bucket_start(int64_t ts, int64_t width);

void kf_timehist_init(kf_timehist *h, int64_t width);
/* Count one record of `bytes` bytes at timestamp ts. KF_OK or KF_ERR_NOMEM. */
int kf_timehist_add(kf_timehist *h, int64_t ts, uint64_t bytes);
/* The buckets in ascending start order, in a new array (*out, n returned;
 * caller frees). Returns (size_t)-1 on allocation failure. */
size_t kf_timehist_sorted(const kf_timehist *h, kf_tbucket **out);
void kf_timehist_free(kf_timehist *h);

/* Timestamp disorder of one partition, fed records in offset order:
 * lateness of a record = the highest timestamp seen before it - its own
 * (0 when it is not behind). */
typedef struct kf_lateness {
    bool seen;
    int64_t max_ts;         /* highest timestamp so far */
    int64_t max_lateness;   /* ms */
    uint64_t late_records;  /* records with lateness > 0 */
} kf_lateness;

void kf_lateness_add(kf_lateness *l, int64_t ts);

/* The payload size of a record as `stats` counts it: key length + value
 * length (null counts 0) + for every header its key length and value length
 * (null counts 0). Framing (varints, attributes, deltas) is not counted.
 * Headers that do not parse count up to the first bad one. */
uint64_t kf_record_payload_bytes(const kf_record *r);

/* A duration like 500ms, 10s, 10m, 1h, 1d, 1w or plain milliseconds into
 * *ms (> 0). Returns 0, or -1 when s is not such a duration. */
int kf_parse_duration_ms(const char *s, int64_t *ms);

#ifdef __cplusplus
}
#endif

#endif
