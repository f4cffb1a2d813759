/* stats.h: a time histogram of records (records and bytes per fixed-width
 * bucket of record timestamps), a timestamp-disorder tracker, and the
 * helpers `kfsck stats` uses to size a record and to parse a duration. The
 * histogram's memory grows with the number of distinct buckets only. */
#ifndef KFSCK_STATS_H
#define KFSCK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The buckets' width when none is given: one hour. */
#define KF_STATS_BUCKET_MS_DEFAULT 3600000

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

/* Timestamp disorder of one partition, fed records in offset order:
 * lateness of a record = the highest timestamp seen before it - its own
 * (0 when it is not behind). */
typedef struct kf_lateness {
    bool seen;
    int64_t max_ts;         /* highest timestamp so far */
    int64_t max_lateness;   /* ms */
    uint64_t late_records;  /* records with lateness > 0 */
} kf_lateness;

/* A duration like 500ms, 10s, 10m, 1h, 1d, 1w or plain milliseconds into
 * *ms (> 0). Returns KF_OK, or KF_ERR_CORRUPT (the last error says why)
 * when s is not such a duration. */
int kf_parse_duration_ms(const char *s, int64_t *ms);

/* ---- the stats job over the inputs ------------------------------------------
 *
 * Every partition among the inputs read in offset order over the union of
 * its copies, grouped by topic (or one group per partition): records and
 * bytes per time bucket, timestamp disorder per partition, and the sums
 * below. A batch's records count only when the whole batch reads cleanly;
 * a damaged batch is skipped as a whole (reported, "batch skipped by
 * stats"). Control records are counted apart; records without a timestamp
 * (magic 0, or -1) are in no bucket. */

typedef struct kf_stats_group {
    const char *topic;          /* "" when unknown (loose segment files); points into the inputs */
    int32_t partition;          /* by_partition only; -1 unknown (or not by partition) */
    uint64_t partitions;        /* partitions read into this group */
    uint64_t records, bytes;    /* data records (control records left out) */
    uint64_t no_ts, no_ts_bytes; /* records without a timestamp, and their bytes */
    uint64_t control;           /* control records */
    uint64_t skipped;           /* batches skipped as damaged (record level) */
    uint64_t late_records;      /* records behind the highest timestamp before them */
    bool has_ts;
    int64_t min_ts, max_ts, max_late;
    bool has_offsets;
    int64_t first_offset, last_offset;
    uint64_t buckets;           /* buckets with a record */
} kf_stats_group;

#define KF_STATS_OPTIONS_VERSION 1
#define KF_STATS_OPTIONS_INIT KF_OPTIONS_INIT_(kf_stats_opts, KF_STATS_OPTIONS_VERSION)
typedef struct kf_stats_opts {
    unsigned version;         /* KF_STATS_OPTIONS_VERSION (kfsck.h: options) */
    int64_t bucket_ms;          /* bucket width (0 or less: KF_STATS_BUCKET_MS_DEFAULT) */
    bool by_partition;          /* a group per partition, not per topic */
    kf_part_reader_opts read;   /* the partitions' readers (their problems: damage in the copies) */
    kf_problem_fn problem_fn;   /* batches skipped by stats (problem.file: the segment) */
    void *problem_ctx;
    /* Each group once read: its sums and its buckets in start order (both
     * valid during the call only). */
    void (*group_fn)(void *ctx, const kf_stats_group *g, const kf_tbucket *buckets, size_t n);
    void *group_ctx;
} kf_stats_opts;

/* Fills *o as KF_STATS_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_stats_opts: it may be NULL
 * (the defaults); its version must be 1..KF_STATS_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_stats_opts_init(kf_stats_opts *o);

typedef struct kf_stats_result {
    bool damaged;               /* a batch was skipped, or damage no copy covered */
    bool unreadable;            /* some segment could not be read */
} kf_stats_result;

/* Read every partition of in (its parts sorted by topic, then partition).
 * KF_OK or KF_ERR_NOMEM. */
int kf_stats_run(const kf_inputs *in, const kf_stats_opts *o, kf_stats_result *res);

/* stats' JSON lines (kfsck/sys/json_lines.h), as `kfsck stats --json` has
 * them: a "bucket" line for each of a group's n buckets, and the group's
 * "summary" line (bucket_ms: the buckets' width). by_partition: the groups
 * are partitions (--by-partition), not topics. */
struct kf_jsonl;
void kf_stats_buckets_json(struct kf_jsonl *j, const kf_stats_group *g, const kf_tbucket *b, size_t n,
                           bool by_partition);
void kf_stats_summary_json(struct kf_jsonl *j, const kf_stats_group *g, bool by_partition, int64_t bucket_ms);

#ifdef __cplusplus
}
#endif

#endif
