/* predict.h: what a broker will do with its log dirs when it starts on them
 * now (what `kfsck predict` does): a dry run of Kafka 4.x's
 * LogManager.loadLogs, LogLoader and LogSegment.recover: the files it
 * deletes and renames, the segments it recovers, cuts and deletes, the
 * offsets lost (and those the high watermark had acknowledged), whether each
 * log dir loads at all, how the producer state is rebuilt, what the first
 * retention pass deletes, and how long recovery takes. Nothing is written
 * and nothing is printed: the forecast goes to callbacks, per log dir its
 * line first, then each partition's actions and the partition, in (topic,
 * partition) order. Reads only what recovery reads: the segments recovered
 * (and the last one, for the log end), indexes' presence, the .txnindex
 * files, the last time-index entry of each segment, snapshots and
 * checkpoints. */
#ifndef KFSCK_PREDICT_H
#define KFSCK_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the recovery rule scan shares --------------------------------------- */

/* A segment as broker recovery sees it: its size, where LogSegment.recover
 * would cut it (valid_bytes) and the last offset kept then. */
typedef struct kf_recovery_segment {
    int64_t base_offset;
    uint64_t size, valid_bytes;
    bool has_recovered_offsets;
    int64_t recovered_last_offset;
} kf_recovery_segment;

/* Where LogLoader.recoverLog leaves the log end after an unclean shutdown:
 * segs (sorted by base offset) from the one holding recovery_point (the first
 * one when none does) are recovered, the first whose valid_bytes is below its
 * size is cut there and every later one deleted; the end is then the cut
 * segment's next offset (its last offset kept + 1, else its base offset),
 * else log_end (the last segment's next offset). An end below log_start (the
 * log-start checkpoint; also with no segment) is log_start: every segment is
 * deleted and the log starts there. *cut (may be NULL) gets the index of the
 * segment cut, n when none. */
int64_t kf_recovery_end(const kf_recovery_segment *segs, size_t n, int64_t recovery_point, int64_t log_start,
                        int64_t log_end, size_t *cut);

/* Whether the broker's next start recovers one segment (LogLoader: a
 * segment from the one holding the recovery point on, after an unclean
 * shutdown): what verify's "broker recovery keeps N bytes" depends on. */
typedef enum kf_segment_fate {
    KF_SEGMENT_FATE_UNKNOWN,               /* not a .log of a partition dir in a broker data dir
                                              (with its recovery-point checkpoint or clean-shutdown
                                              marker beside it) */
    KF_SEGMENT_RECOVERED,                  /* unclean shutdown, at or above the segment holding
                                              the recovery point */
    KF_SEGMENT_RECOVERED_NO_INDEX,         /* no .index beside it: recovered whatever the shutdown */
    KF_SEGMENT_KEPT_BELOW_RECOVERY_POINT,  /* below the segment holding the recovery point: not read */
    KF_SEGMENT_KEPT_CLEAN_SHUTDOWN,        /* the data dir was shut down cleanly: not read */
} kf_segment_fate_kind;

typedef struct kf_segment_fate_info {
    kf_segment_fate_kind fate;
    int64_t recovery_point;   /* the checkpoint's (0 without an entry), when the fate is known */
    int64_t holding_base;     /* the base offset of the segment holding it */
} kf_segment_fate_info;

/* The fate of the segment file at path. KF_OK (also for UNKNOWN) or KF_ERR_NOMEM. */
int kf_segment_fate(const char *path, kf_segment_fate_info *info);

/* ---- settings ------------------------------------------------------------ */

/* What predict reads from a broker's server.properties (other keys are
 * ignored). Retention: log.retention.ms, else .minutes, else .hours. */
typedef struct kf_predict_config {
    char **log_dirs;          /* log.dirs (else log.dir), split at commas; NULL when neither */
    size_t n_log_dirs;
    bool has_recovery_threads;
    int32_t recovery_threads; /* num.recovery.threads.per.data.dir */
    bool has_index_interval;
    int32_t index_interval_bytes; /* log.index.interval.bytes */
    bool has_retention_ms;
    int64_t retention_ms;     /* -1: unlimited */
    bool has_retention_bytes;
    int64_t retention_bytes;  /* -1: unlimited */
    char *cleanup_policy;     /* log.cleanup.policy, NULL when not set */
} kf_predict_config;

/* Read path into *c (zeroed first). KF_OK; KF_ERR_IO (the last error has the
 * errno); KF_ERR_CORRUPT (a malformed escape, a value that is not a number
 * where one is needed or one the broker's validator refuses: the last
 * error's message says which, in Kafka's words, and on what line);
 * KF_ERR_TOO_BIG (a line longer than KF_PROPERTIES_LINE_MAX, or a file over
 * 8 of them); KF_ERR_NOMEM.
 * Free with kf_predict_config_free, whatever it returned. */
int kf_predict_config_read(const char *path, kf_predict_config *c);
void kf_predict_config_free(kf_predict_config *c);

/* The per-thread recovery rate used when none is given, bytes per second
 * (kfsck(1), predict, says where the figure comes from). */
#define KF_PREDICT_DEFAULT_RECOVERY_RATE (64ull << 20)
/* num.recovery.threads.per.data.dir's default in Kafka 4.0 (KIP-1030; 3.x: 1). */
#define KF_PREDICT_DEFAULT_RECOVERY_THREADS 2

/* ---- what is forecast ---------------------------------------------------- */

typedef enum kf_predict_action_kind {
    KF_ACT_DELETE_FILE,
    KF_ACT_REPLACE_WITH_SWAP,
    KF_ACT_REBUILD_INDEX,
    KF_ACT_RECOVER_SEGMENT,
    KF_ACT_TRUNCATE_SEGMENT,
    KF_ACT_DELETE_SEGMENT,
    KF_ACT_DELETE_PARTITION,
    KF_ACT_STRAY_PARTITION,
    KF_ACT_FATAL,
} kf_predict_action_kind;

/* "delete_file", "replace_with_swap", ... (the contract's names). */
const char *kf_predict_action_name(kf_predict_action_kind k);

typedef struct kf_predict_action {
    kf_partition_ref id;      /* topic and dir NULL for an action on the log dir itself */
    kf_predict_action_kind action;
    const char *file;         /* the file or directory acted on */
    const char *reason;       /* why; for fatal, the broker's own message */
    uint64_t bytes;           /* of the file (for truncate_segment: the bytes cut) */
    /* truncate_segment: where the cut falls, the next offset after it, and
     * the offsets of the cut part and of the segments deleted after it */
    uint64_t position;
    int64_t offset;
    int64_t offsets_lost;
    /* Routine: the broker recovers a segment and keeps all of it (a missing
     * .index, or an unclean shutdown with nothing to cut). `kfsck predict`
     * counts these instead of listing them. */
    bool routine;
} kf_predict_action;

typedef enum kf_predict_state {
    KF_PST_ONLINE,
    KF_PST_FUTURE,
    KF_PST_DELETING,
    KF_PST_STRAY,
    KF_PST_OFFLINE,
    /* named <topic>-<n> but no directory to the broker: a symlink whose
     * target does not exist, or a loop of symlinks (LogManager.loadLogs
     * loads what File.isDirectory says is one): not loaded, so this broker
     * holds no copy of the partition (missing_why says which) */
    KF_PST_MISSING,
} kf_predict_state;
const char *kf_predict_state_name(kf_predict_state s);

typedef enum kf_producer_load {
    KF_PRODUCER_SNAPSHOT,             /* loaded from the snapshot at the log end */
    KF_PRODUCER_REBUILD_FROM_SNAPSHOT,/* an older snapshot, then the log after it */
    KF_PRODUCER_REBUILD_FROM_START,   /* no usable snapshot: the whole log read */
    KF_PRODUCER_EMPTY,                /* clean shutdown, no snapshot: an empty one written */
} kf_producer_load;
const char *kf_producer_load_name(kf_producer_load p);

typedef enum kf_retention_reason {
    KF_RET_LOG_START_OFFSET,
    KF_RET_RETENTION_BYTES,
    KF_RET_RETENTION_MS,
} kf_retention_reason;
const char *kf_retention_reason_name(kf_retention_reason r);

typedef struct kf_retention_delete {
    const char *file;
    int64_t base_offset;
    kf_retention_reason reason;
    uint64_t bytes;
} kf_retention_delete;

/* Damage the broker does not look at while it loads the log, and then keeps
 * and serves (LogLoader recovers only from the recovery point on): in a
 * segment below the one holding the recovery point after an unclean shutdown,
 * or in any segment after a clean shutdown, a torn tail included. */
typedef struct kf_damage_kept {
    const char *file;             /* the segment */
    uint64_t position;            /* where the damage starts in it */
    int64_t offset;               /* the damaged batch's base offset, else the
                                     next offset a reader asks for there */
    const char *code;             /* the problem code (KF_P_*) */
    const char *error;            /* what is wrong, in words */
} kf_damage_kept;

/* A committed offset the group coordinator loads differently after
 * start-up cuts a __consumer_offsets partition: reverted to an older
 * commit, gone, or back from deletion. */
typedef struct kf_group_affected {
    const char *group, *topic;
    int32_t partition;
    bool has_offset_now;          /* committed in the intact data now: */
    int64_t offset_now;
    bool has_offset_after;        /* committed in what start-up keeps: */
    int64_t offset_after;
} kf_group_affected;

typedef struct kf_predict_partition {
    kf_partition_ref id;
    kf_predict_state state;
    int64_t recovery_point;       /* the checkpoint's, 0 when none */
    int64_t log_start_offset;     /* as loaded */
    int64_t log_end_offset_before;/* last offset + 1 of the last batch, as the files are now */
    int64_t log_end_offset_after; /* after recovery */
    bool has_high_watermark;
    int64_t high_watermark;       /* replication-offset-checkpoint */
    int64_t offsets_lost, acknowledged_lost;
    uint64_t segments_to_recover, bytes_to_recover;
    kf_producer_load producer_state;
    bool has_producer_snapshot_offset;
    int64_t producer_snapshot_offset;
    const kf_retention_delete *retention_deletes;
    size_t n_retention_deletes;
    uint64_t future_timestamps;   /* segments whose largest timestamp is after now */
    /* where the retention settings came from: "topic config", "broker config"
     * (dynamic, in the KRaft image), "--config", "default" */
    const char *retention_source;
    int64_t retention_ms, retention_bytes;
    const char *cleanup_policy;
    /* high_watermark - log_end_offset_after when positive (0 without a
     * high watermark): acknowledged offsets the log does not hold after
     * start-up, cut by it or already gone from the files */
    int64_t acknowledged_missing;
    /* offsets cut out of a segment that stays inside the log (a segment
     * recovered for a missing .index and cut, with later segments kept): a
     * gap the log end does not show, so not in offsets_lost */
    int64_t offsets_lost_inside;
    const kf_damage_kept *damage_kept;
    size_t n_damage_kept;
    uint64_t damage_kept_omitted;   /* past KF_PREDICT_DAMAGE_KEPT_MAX */
    /* __consumer_offsets partitions whose start-up cuts offsets */
    const kf_group_affected *groups_affected;
    size_t n_groups_affected;
    bool groups_checked;            /* the replay ran (a cut __consumer_offsets partition) */
    const char *missing_why;        /* KF_PST_MISSING: the entry in words (kf_path_why) */
} kf_predict_partition;

/* The damage_kept entries kept per partition; more are counted. */
#define KF_PREDICT_DAMAGE_KEPT_MAX 64

/* A partition whose forecast is not clean: the broker loses offsets there,
 * acknowledged offsets are missing, it keeps damage, or the groups' commits
 * change. */
static inline bool kf_predict_partition_harmed(const kf_predict_partition *p)
{
    return p->offsets_lost > 0 || p->offsets_lost_inside > 0 || p->acknowledged_missing > 0 || p->n_damage_kept > 0 ||
           p->damage_kept_omitted > 0 || p->n_groups_affected > 0 || p->state == KF_PST_MISSING;
}

typedef struct kf_predict_datadir {
    const char *datadir;
    bool clean_shutdown;          /* .kafka_cleanshutdown present (and not --assume-unclean) */
    bool marker_present;          /* the file is there */
    bool has_broker_epoch;
    int64_t broker_epoch;
    uint64_t partitions, partitions_to_recover, bytes_to_recover;
    uint64_t segments_to_recover;
    int64_t offsets_lost, acknowledged_lost;
    uint64_t retention_segments, retention_bytes; /* what the first retention pass deletes */
    uint32_t recovery_threads;
    uint64_t recovery_rate;
    double estimated_recovery_seconds;
    uint64_t fatal;
    bool offline;                 /* an I/O error takes it offline */
    bool stops_broker;            /* a fatal that stops the whole broker */
    const char *first_fatal;      /* the first fatal's reason, NULL when none */
    /* the partitions whose forecast is not clean (kf_predict_partition_harmed),
     * in (topic, partition) order: the verdict names them first */
    const kf_predict_partition *const *harmed;
    size_t n_harmed;
    int64_t acknowledged_missing;
    uint64_t damage_kept, groups_affected;
    /* routine work, counted: segments recovered and kept whole, partitions
     * whose producer state is rebuilt by reading the whole log */
    uint64_t routine_recoveries, producer_rebuilds_from_start;
    /* a KRaft node's latest snapshot that is cut short: the node loads the
     * part that is there as its metadata image (NULL when none) */
    const char *kraft_snapshot_cut;
} kf_predict_datadir;

/* The log dirs' counts added up (a count of offsets at most INT64_MAX,
 * never wrapped). */
typedef struct kf_predict_summary {
    uint64_t datadirs, partitions;
    int64_t offsets_lost, acknowledged_lost;
    double estimated_recovery_seconds;
    uint64_t fatal;
    int64_t acknowledged_missing;
    uint64_t damage_kept, groups_affected, partitions_harmed;
} kf_predict_summary;

#define KF_PREDICT_OPTIONS_VERSION 1
#define KF_PREDICT_OPTIONS_INIT KF_OPTIONS_INIT_(kf_predict_opts, KF_PREDICT_OPTIONS_VERSION)
typedef struct kf_predict_opts {
    unsigned version;         /* KF_PREDICT_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch (0: the default) */
    bool assume_unclean;      /* as if no .kafka_cleanshutdown were there */
    uint32_t recovery_threads;/* per log dir (0: the config's, else 2) */
    uint64_t recovery_rate;   /* bytes per second per thread (0: the default above) */
    bool has_now;
    int64_t now_ms;           /* for retention.ms and future timestamps (else the clock) */
    const kf_predict_config *config; /* --config, or NULL */
    unsigned jobs;            /* threads working out partitions (0: online cores) */
    void (*datadir_fn)(void *ctx, const kf_predict_datadir *d);
    void (*action_fn)(void *ctx, const kf_predict_action *a);
    void (*partition_fn)(void *ctx, const kf_predict_partition *p);
    void *ctx;
} kf_predict_opts;

/* Fills *o as KF_PREDICT_OPTIONS_INIT does. Every function here taking a
 * kf_predict_opts: it may be NULL (the defaults); its version must be
 * 1..KF_PREDICT_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_predict_opts_init(kf_predict_opts *o);

/* Forecast a broker's start on the log dirs datadirs[0..n) (all of its
 * log.dirs). *sum is filled. KF_OK, KF_ERR_NOMEM, KF_ERR_UNSUPPORTED. A log
 * dir that cannot be read is a fatal action (an I/O error), not a failure. */
int kf_predict_run(char *const *datadirs, size_t n, const kf_predict_opts *o, kf_predict_summary *sum);

/* predict's JSON lines (kfsck/sys/json_lines.h), as `kfsck predict --json`
 * has them: a log dir's "datadir" line (a summary line), an "action" line,
 * a "partition" line, and the closing summary. */
struct kf_jsonl;
void kf_predict_datadir_json(struct kf_jsonl *j, const kf_predict_datadir *d);
void kf_predict_action_json(struct kf_jsonl *j, const kf_predict_action *a);
void kf_predict_partition_json(struct kf_jsonl *j, const kf_predict_partition *p);
void kf_predict_summary_json(struct kf_jsonl *j, const kf_predict_summary *s);

#ifdef __cplusplus
}
#endif

#endif
