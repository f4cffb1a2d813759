/* compaction.h: why a compacted partition does not shrink, and what a
 * cleaning would give back (`kfsck compaction`), from the files alone.
 *
 * For every compacted partition among the inputs it follows the log cleaner's
 * selection (Kafka's LogCleanerManager.cleanableOffsets, LogToClean and
 * grabFilthiestCompactedLog): the first dirty offset from the data dir's
 * cleaner-offset-checkpoint and its reset rules, the first uncleanable offset
 * and the bound that sets it (the last stable offset, the active segment,
 * min.compaction.lag.ms), the open transaction pinning it (found by the txns
 * job's replay, in the same read; named, and said hanging or live, from the
 * coordinator's view when __transaction_state is among the inputs), the
 * cleanable bytes and the dirty ratio, and whether the cleaner would pick the
 * partition. Over the whole log it counts what a full cleaning keeps:
 * distinct keys, the latest record of each, and the bytes of every record it
 * would drop (superseded, keyless, or of an aborted transaction).
 *
 * Memory is proportional to one partition's distinct keys: each key is a
 * 64-bit hash (XXH3) and the size of its latest record in an
 * open-addressing table, 12 bytes a slot, never the key's bytes (plus 32
 * bytes an aborted transaction its .txnindex files list); partitions are
 * read one at a time. */
#ifndef KFSCK_COMPACTION_H
#define KFSCK_COMPACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/metadata.h"
#include "kfsck/sys/part_reader.h"
#include "kfsck/txns.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the cleanable-offsets rule (a pure function) ------------------------ */

/* One segment of the log as the cleaner sees it. */
typedef struct kf_cleaner_segment {
    int64_t base_offset;
    uint64_t bytes;                /* the .log file's size */
    bool has_largest_timestamp;
    int64_t largest_timestamp;     /* the highest batch max timestamp in it */
    bool has_first_batch_timestamp;
    int64_t first_batch_timestamp; /* the max timestamp of its first batch */
} kf_cleaner_segment;

/* Which bound sets the first uncleanable offset (the first of these whose
 * bound is the smallest). */
typedef enum kf_uncleanable_reason {
    KF_UNCLEANABLE_LAST_STABLE_OFFSET = 0,
    KF_UNCLEANABLE_ACTIVE_SEGMENT = 1,
    KF_UNCLEANABLE_MIN_COMPACTION_LAG = 2,
} kf_uncleanable_reason;

/* "last_stable_offset", "active_segment", "min_compaction_lag". */
const char *kf_uncleanable_reason_name(kf_uncleanable_reason r);

/* Why the first dirty offset is not the checkpoint's entry. */
typedef enum kf_dirty_reset {
    KF_DIRTY_FROM_CHECKPOINT = 0,  /* the entry is used as it is */
    KF_DIRTY_NO_ENTRY = 1,         /* no entry: the log start (no reset is written) */
    KF_DIRTY_BELOW_LOG_START = 2,  /* below the log start: reset to it */
    KF_DIRTY_PAST_LOG_END = 3,     /* past the log end: reset to the log start */
} kf_dirty_reset;

/* "checkpoint", "no_entry", "below_log_start", "past_log_end". */
const char *kf_dirty_reset_name(kf_dirty_reset r);

typedef struct kf_cleanable_input {
    const kf_cleaner_segment *segments; /* in base-offset order; the last is the active one */
    size_t nsegments;                   /* at least 1 */
    int64_t log_start_offset, log_end_offset;
    bool has_checkpoint;
    int64_t checkpoint_offset;          /* the cleaner-offset-checkpoint entry */
    int64_t last_stable_offset;         /* already capped at the high watermark */
    int64_t now_ms;
    int64_t min_compaction_lag_ms;      /* negative: 0 */
    int64_t max_compaction_lag_ms;      /* negative: 0 */
    double min_cleanable_ratio;
} kf_cleanable_input;

typedef struct kf_cleanable {
    int64_t first_dirty_offset;
    kf_dirty_reset dirty_reset;
    int64_t first_uncleanable_offset;   /* the smallest bound, raised to first_dirty_offset */
    kf_uncleanable_reason reason;
    int64_t active_segment_offset;      /* the active segment's base */
    bool has_lag_bound;
    int64_t lag_bound_offset;           /* the first dirty non-active segment too young to clean */
    int64_t first_uncleanable_segment;  /* base of the segment the cleaning stops before */
    uint64_t clean_bytes;               /* segments before the first dirty offset */
    uint64_t cleanable_bytes;           /* segments from the first dirty one to the uncleanable one */
    uint64_t total_bytes;               /* clean + cleanable (LogToClean.totalBytes) */
    bool has_ratio;                     /* total_bytes > 0 */
    double dirty_ratio;                 /* cleanable / total */
    int64_t compaction_delay_ms;        /* how far past max.compaction.lag.ms the oldest dirty segment is */
    bool need_compaction_now;           /* compaction_delay_ms > 0 */
    bool would_clean;                   /* the cleaner would pick it (total > 0, and the ratio above
                                           the minimum or a compaction due with bytes to clean) */
} kf_cleanable;

/* Kafka's rule over one log (LogCleanerManager.cleanableOffsets). Reads
 * nothing. */
void kf_cleanable_offsets(const kf_cleanable_input *in, kf_cleanable *out);

/* ---- the job over the inputs --------------------------------------------- */

/* Where a partition's being compacted comes from. */
typedef enum kf_compacted_by {
    KF_COMPACTED_NOT = 0,          /* not compacted: skipped */
    KF_COMPACTED_INTERNAL = 1,     /* __consumer_offsets or __transaction_state */
    KF_COMPACTED_CONFIG = 2,       /* its topic's cleanup.policy holds compact (KRaft metadata or option) */
    KF_COMPACTED_NAMED = 3,        /* its directory (or a segment of it) was a PATH itself */
} kf_compacted_by;

/* Where a config value comes from. */
typedef enum kf_config_source {
    KF_CONFIG_FROM_DEFAULT = 0,    /* Kafka's default */
    KF_CONFIG_FROM_OPTION = 1,     /* the caller's option */
    KF_CONFIG_FROM_METADATA = 2,   /* the topic's config in the KRaft metadata */
} kf_config_source;

/* "default", "option", "metadata". */
const char *kf_config_source_name(kf_config_source s);

#define KF_COMPACTION_OPTIONS_VERSION 1
#define KF_COMPACTION_OPTIONS_INIT KF_OPTIONS_INIT_(kf_compaction_opts, KF_COMPACTION_OPTIONS_VERSION)
typedef struct kf_compaction_opts {
    unsigned version;              /* KF_COMPACTION_OPTIONS_VERSION (kfsck.h: options) */
    kf_part_reader_opts read;      /* the partition reader's (its version may stay 0) */
    int64_t now_ms;                /* the cleaner's clock (the caller's: the library reads none) */
    /* Below the topic configs of the KRaft metadata, above Kafka's defaults: */
    bool has_min_cleanable_ratio;
    double min_cleanable_ratio;    /* min.cleanable.dirty.ratio (default 0.5) */
    bool has_min_compaction_lag_ms;
    int64_t min_compaction_lag_ms; /* min.compaction.lag.ms (default 0) */
    bool has_max_compaction_lag_ms;
    int64_t max_compaction_lag_ms; /* max.compaction.lag.ms (default Long.MAX_VALUE) */
    const kf_metadata *metadata;   /* the KRaft image among the inputs, or NULL */
    /* The PATHs the inputs came from: a partition dir (or a segment file)
     * named among them is treated as compacted. May be NULL. */
    char *const *paths;
    size_t npaths;
    /* Problems of the readers, the txns replay and the checkpoints. */
    kf_problem_fn problem_fn;
    void *problem_ctx;
} kf_compaction_opts;

/* Fills *o as KF_COMPACTION_OPTIONS_INIT does. Every function here taking a
 * kf_compaction_opts: it may be NULL (the defaults); its version must be
 * 1..KF_COMPACTION_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED. */
void kf_compaction_opts_init(kf_compaction_opts *o);

/* The open transaction that pins a partition's cleaning: who it is, from
 * the coordinator's view of the __transaction_state partitions among the
 * inputs (the txns job's, kf_txn_coord_read_inputs), and whether it hangs:
 * it is older than its transaction timeout at now_ms, so the coordinator,
 * which aborts a transaction once its timeout has passed since it began,
 * should have ended it. Else it is live: its producer (or, at the timeout,
 * the coordinator) ends it. */
typedef struct kf_pinning_txn {
    bool coordinator;               /* a __transaction_state partition was among the inputs */
    const char *transactional_id;   /* the id whose latest state names the producer id; NULL: none
                                       does (or no coordinator view) */
    int coordinator_state;          /* that id's state (KF_TXN_*, as stored), -1 without an id */
    int64_t timeout_ms;             /* the transaction's own timeout (transaction.timeout.ms in the
                                       coordinator's state), else KF_TXN_MAX_TIMEOUT_MS_DEFAULT */
    bool timeout_from_coordinator;
    bool has_age;                   /* the transaction's first batch has a timestamp */
    int64_t age_ms;                 /* now_ms - its first batch's timestamp */
    bool hanging;                   /* has_age and age_ms > timeout_ms */
} kf_pinning_txn;

/* What the job found for one partition. */
typedef struct kf_compaction_result {
    const kf_partition *partition;
    kf_compacted_by compacted_by;   /* KF_COMPACTED_NOT: skipped, nothing below is set */
    /* The configs used and where each came from. */
    const char *cleanup_policy;     /* as configured, or NULL (Kafka's default "delete";
                                       the internal topics are created "compact") */
    kf_config_source cleanup_policy_source;
    double min_cleanable_ratio;
    kf_config_source min_cleanable_ratio_source;
    int64_t min_compaction_lag_ms;
    kf_config_source min_compaction_lag_source;
    int64_t max_compaction_lag_ms;
    kf_config_source max_compaction_lag_source;
    int64_t delete_retention_ms;
    kf_config_source delete_retention_source;
    /* The log (the first copy's segments; offsets from every copy's batches). */
    uint64_t bytes;                 /* the sizes of the segments */
    size_t segments;
    int64_t log_start_offset, log_end_offset;
    bool has_high_watermark;
    int64_t high_watermark;         /* replication-offset-checkpoint, capped to the log */
    bool has_cleaner_offset;
    int64_t cleaner_offset;         /* the cleaner-offset-checkpoint entry */
    int64_t last_stable_offset;
    kf_cleanable cleanable;         /* the rule's answer (see above) */
    bool pinned;                    /* the last stable offset bound is the smallest and an open
                                       transaction sets it: pinned_by says which */
    kf_open_txn pinned_by;
    uint64_t open_transactions;
    /* A full cleaning of the whole log. */
    uint64_t records;               /* records of data batches */
    uint64_t keys;                  /* distinct keys (by their 64-bit hash) */
    uint64_t live_records;          /* the latest record of each key, tombstones counted */
    uint64_t tombstones;            /* of those, records with a null value */
    uint64_t keyless_records;       /* records with a null key: the cleaner drops them */
    uint64_t aborted_records;       /* records of aborted transactions (the .txnindex files'): dropped */
    uint64_t control_batches;       /* transaction markers and other control batches: kept */
    uint64_t reclaimable_bytes;     /* the sizes of the records dropped (superseded, keyless, aborted) in
                                       their batch's uncompressed records section, length included */
    bool incomplete;                /* damage was skipped or records did not decode */
    bool named;                     /* its directory (or a segment of it) was a PATH itself */
    kf_pinning_txn pinning;         /* with pinned: who pins it, and whether it hangs */
} kf_compaction_result;

/* One partition's result (valid during the call). Return KF_OK to go on,
 * another kf_err to stop (kf_compaction_run returns it). */
typedef int (*kf_compaction_fn)(void *ctx, const kf_compaction_result *r);

typedef struct kf_compaction_totals {
    uint64_t partitions, skipped, pinned, would_clean;
    bool unreadable;                /* some segment could not be opened */
} kf_compaction_totals;

/* Every partition of in, one at a time: compacted ones read whole (one
 * read: the key table and the txns replay together), the others reported
 * as skipped. *tot (may be NULL) sums them. KF_OK, KF_ERR_NOMEM,
 * KF_ERR_UNSUPPORTED (options) or what fn returned. */
int kf_compaction_run(const kf_inputs *in, const kf_compaction_opts *o, kf_compaction_fn fn, void *ctx,
                      kf_compaction_totals *tot);

/* compaction's JSON lines (kfsck/sys/json_lines.h), as `kfsck compaction
 * --json` has them: a compacted partition's "compaction" line, and the
 * closing summary with the run's errors and warnings. */
struct kf_jsonl;
void kf_compaction_json(struct kf_jsonl *j, const kf_compaction_result *r);
void kf_compaction_summary_json(struct kf_jsonl *j, const kf_compaction_totals *t, uint64_t errors,
                                uint64_t warnings);

#ifdef __cplusplus
}
#endif

#endif
