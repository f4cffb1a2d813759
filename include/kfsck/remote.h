/* remote.h: tiered storage (KIP-405) reconciled offline (`kfsck remote`):
 * which offsets of a tiered partition live where, and what is stuck,
 * dangling or gone.
 *
 * The job replays every __remote_log_metadata partition among the inputs
 * (each read once through the partition reader, its copies as one log) the
 * way a broker's TopicBasedRemoteLogMetadataManager and its per-partition
 * RemoteLogMetadataCache replay it: the segment states, the transitions the
 * broker drops, the records that stop its metadata consumer, the per-epoch
 * offset maps the broker's remote fetches look segments up in. Then, for
 * every tiered topic partition (one the replay met, or one whose topic has
 * remote.storage.enable=true in the KRaft metadata among the inputs), it sets
 * the remote segments beside each broker's local copy of the partition (its
 * log start checkpoint, first local segment, log end and
 * leader-epoch-checkpoint) and says:
 *
 *  - which offsets are in neither tier (below every local copy's start and
 *    in no segment a broker's remote fetch would find), the data loss;
 *  - copies started and never finished, deletes started and never
 *    finished, a partition deletion not finished;
 *  - finished segments whose leader epochs do not follow the local lineage
 *    (RemoteLogManager.isRemoteSegmentWithinLeaderEpochs);
 *  - with a copy of the remote storage or a listing of its objects: finished
 *    segments whose objects are missing, and objects no live metadata
 *    references (orphans);
 *  - entries of each log dir's remote-log-index-cache that fail the index
 *    checks, that stop the broker's start-up, or belong to no live segment.
 *
 * Memory follows the live remote segments (those not yet
 * DELETE_SEGMENT_FINISHED) and their leader epochs, never the number of
 * metadata records; the orphans' keys are kept until their partition is
 * reported. */
#ifndef KFSCK_REMOTE_H
#define KFSCK_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/common.h"
#include "kfsck/metadata.h"
#include "kfsck/sys/part_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RemoteLogSegmentState ids as stored. */
enum {
    KF_REMOTE_COPY_STARTED = 0,
    KF_REMOTE_COPY_FINISHED = 1,
    KF_REMOTE_DELETE_STARTED = 2,
    KF_REMOTE_DELETE_FINISHED = 3,
};
/* "copy_segment_started", "copy_segment_finished", "delete_segment_started",
 * "delete_segment_finished"; NULL for any other id. */
const char *kf_remote_state_name(int state);

/* RemotePartitionDeleteState ids as stored. */
enum { KF_REMOTE_PARTITION_MARKED = 0, KF_REMOTE_PARTITION_STARTED = 1, KF_REMOTE_PARTITION_FINISHED = 2 };
/* "delete_partition_marked", "delete_partition_started",
 * "delete_partition_finished"; NULL for any other id. */
const char *kf_remote_partition_state_name(int state);

/* What is wrong with a remote segment (one finding each). */
typedef enum kf_remote_finding {
    KF_REMOTE_COPY_STUCK = 0,       /* COPY_SEGMENT_STARTED for longer than stuck_after_ms */
    KF_REMOTE_DELETE_PENDING = 1,   /* DELETE_SEGMENT_STARTED, not finished */
    KF_REMOTE_MISSING_IN_STORAGE = 2, /* COPY_SEGMENT_FINISHED, its objects absent from the storage */
    KF_REMOTE_EPOCH_CHAIN_BREAK = 3,/* its epochs do not follow the local leader-epoch lineage */
    KF_REMOTE_ORPHAN = 4,           /* objects in the storage that no live metadata references */
} kf_remote_finding;
/* "copy_stuck", "delete_pending", "missing_in_storage", "epoch_chain_break",
 * "orphan". */
const char *kf_remote_finding_name(kf_remote_finding f);

/* The kinds of object a segment has in the remote storage (bits). */
enum {
    KF_REMOTE_OBJ_LOG = 1u << 0,        /* the segment (.log) */
    KF_REMOTE_OBJ_INDEX = 1u << 1,      /* offset index */
    KF_REMOTE_OBJ_TIMEINDEX = 1u << 2,  /* time index */
    KF_REMOTE_OBJ_TXNINDEX = 1u << 3,   /* transaction index (optional) */
    KF_REMOTE_OBJ_SNAPSHOT = 1u << 4,   /* producer-state snapshot */
    KF_REMOTE_OBJ_EPOCHS = 1u << 5,     /* leader-epoch checkpoint */
    KF_REMOTE_OBJ_MANIFEST = 1u << 6,   /* Aiven's .rsm-manifest */
    KF_REMOTE_OBJ_INDEXES = 1u << 7,    /* Aiven's combined .indexes */
    KF_REMOTE_OBJ_OTHER = 1u << 8,      /* another suffix */
};
/* The name of one bit ("log", "index", "timeindex", "txnindex", "snapshot",
 * "leader_epoch_checkpoint", "rsm-manifest", "indexes", "other"). */
const char *kf_remote_object_name(unsigned bit);

/* One remote segment with a finding. Pointers are valid during the
 * callback. An orphan has what its object names say: start_offset from the
 * name, state -1, no epochs. */
typedef struct kf_remote_segment {
    kf_remote_finding finding;
    uint8_t segment_id[16];
    int64_t start_offset, end_offset;  /* end inclusive; -1 for an orphan */
    int state;                         /* KF_REMOTE_*, -1 for an orphan */
    int64_t event_timestamp;           /* of its last update applied; -1 for an orphan */
    int64_t started_timestamp;         /* of its COPY_SEGMENT_STARTED record */
    int32_t broker_id;                 /* of its last update applied */
    int64_t max_timestamp;
    int32_t size_bytes;                /* segment_size_in_bytes */
    const kf_leader_epoch *leader_epochs; /* the segment's epochs, by epoch */
    size_t n_leader_epochs;
    /* KF_REMOTE_COPY_STUCK, KF_REMOTE_DELETE_PENDING: now - event_timestamp */
    int64_t age_ms;
    /* KF_REMOTE_COPY_STUCK: the object name it was writing, the common stem
     * of both known layouts ("<20-digit start offset>-<segment id>"), or the
     * key prefix its objects were found under in the storage. */
    const char *object_prefix;
    /* KF_REMOTE_MISSING_IN_STORAGE: the KF_REMOTE_OBJ_* bits that were
     * expected and not found, and those found. */
    unsigned missing_objects, found_objects;
    /* KF_REMOTE_EPOCH_CHAIN_BREAK: the broker whose lineage it breaks (-1
     * unknown) and why, in words. */
    int32_t lineage_broker;
    const char *reason;
    /* KF_REMOTE_ORPHAN (and KF_REMOTE_MISSING_IN_STORAGE: the keys found):
     * the objects' keys and the sum of their sizes. */
    const char *const *keys;
    size_t n_keys;
    uint64_t bytes;
} kf_remote_segment;

/* A local copy of the partition on one broker among the inputs. */
typedef struct kf_remote_local {
    const char *dir;               /* the partition directory */
    int32_t broker;                /* meta.properties broker.id / node.id, -1 unknown */
    bool has_log_start_checkpoint; /* the data dir's log-start-offset-checkpoint has an entry */
    int64_t log_start_offset;      /* the entry, or 0 when there is none (what the broker loads) */
    int64_t local_log_start_offset;/* max(log start, first local segment's base) */
    int64_t log_end_offset;
    bool has_epochs;               /* a leader-epoch-checkpoint with entries, loaded as the broker loads it */
    const kf_leader_epoch *leader_epochs;
    size_t n_leader_epochs;
} kf_remote_local;

/* Offsets [from_offset, to_offset). */
typedef struct kf_remote_range {
    int64_t from_offset, to_offset;
} kf_remote_range;

/* What the job found for one tiered topic partition. */
typedef struct kf_remote_partition {
    const char *topic;
    uint8_t topic_id[16];
    bool has_topic_id;
    int32_t partition;
    bool in_metadata;              /* the replay met it */
    int32_t metadata_partition;    /* the __remote_log_metadata partition it maps to (-1 unknown) */
    bool judged;                   /* that metadata partition was among the inputs (or the mapping is
                                      unknown): the remote findings below are made; false: only what the
                                      local copies and the storage say */
    uint64_t segments[4];          /* live segments by state; [3]: segments that reached
                                      DELETE_SEGMENT_FINISHED in the replay (gone) */
    bool has_remote_range;
    int64_t remote_start_offset, remote_end_offset; /* over COPY_SEGMENT_FINISHED segments, end inclusive */
    uint64_t remote_bytes;         /* segment_size_in_bytes of the COPY_SEGMENT_FINISHED segments */
    bool has_orphan_bytes;         /* a storage or listing was given */
    uint64_t orphan_bytes;
    int partition_delete_state;    /* KF_REMOTE_PARTITION_*, -1 when none */
    int64_t partition_delete_timestamp;
    const kf_remote_local *locals; /* every local copy among the inputs */
    size_t n_locals;
    /* The offsets in no tier: [log start, local log start) of the copies
     * (the highest log start, the lowest local start), less what some
     * broker's remote fetch finds. Only with a local copy and judged. */
    bool has_tier_gap;             /* a local copy starts above the log start */
    int64_t log_start_offset, local_log_start_offset;
    const kf_remote_range *no_tier;
    size_t n_no_tier;
    uint64_t offsets_in_no_tier;   /* their count */
    const kf_remote_segment *findings; /* by finding, then start offset */
    size_t n_findings;
    uint64_t counts[5];            /* findings by kf_remote_finding */
    /* Its __remote_log_metadata partition holds a record that stops the
     * broker's metadata consumer (a bad_record problem: a record its
     * RemoteLogMetadataSerde cannot read): the offset of the first. A broker restarted on it never
     * finishes loading the partition's remote metadata: it serves none of
     * its remote offsets and uploads nothing more. */
    bool has_metadata_stop;
    int64_t metadata_stop_offset;
} kf_remote_partition;

/* A remote-log-index-cache entry that fails. */
typedef struct kf_remote_index {
    const char *file;              /* the cache file (for a missing sibling: the one present) */
    bool has_segment_id;
    uint8_t segment_id[16];
    int64_t start_offset;          /* from the name, -1 when it does not parse */
    const char *code;              /* a KF_P_* index code of verify's checks, or
                                      "bad_name", "incomplete", "deleted_segment",
                                      "start_offset_mismatch" */
    const char *error;             /* in words */
    bool stops_broker;             /* RemoteIndexCache's start-up load throws on it: the broker does not start */
} kf_remote_index;

typedef int (*kf_remote_partition_fn)(void *ctx, const kf_remote_partition *p);
typedef int (*kf_remote_index_fn)(void *ctx, const kf_remote_index *e);

/* The default of stuck_after_ms: 20 times remote.log.manager.task.interval.ms
 * (30 s), 10 minutes. */
#define KF_REMOTE_STUCK_AFTER_MS_DEFAULT (20 * 30000LL)

#define KF_REMOTE_OPTIONS_VERSION 1
#define KF_REMOTE_OPTIONS_INIT KF_OPTIONS_INIT_(kf_remote_opts, KF_REMOTE_OPTIONS_VERSION)
typedef struct kf_remote_opts {
    unsigned version;              /* KF_REMOTE_OPTIONS_VERSION (kfsck.h: options) */
    kf_part_reader_opts read;      /* the partition reader's (its version may stay 0) */
    int64_t now_ms;                /* the clock copies and deletes are aged by (the library reads none) */
    int64_t stuck_after_ms;        /* 0: KF_REMOTE_STUCK_AFTER_MS_DEFAULT */
    const char *storage_dir;       /* a copy or mount of the remote storage, or NULL */
    const char *listing_path;      /* an object listing, or NULL (not both) */
    const kf_metadata *metadata;   /* the KRaft image among the inputs, or NULL */
    /* The PATHs: their data dirs' remote-log-index-cache directories are
     * checked (a PATH may be such a directory itself). May be NULL. */
    char *const *paths;
    size_t npaths;
    /* Problems of the readers, the replay (invalid_transition, bad_record,
     * unknown_record_type), the storage listing and the index cache's
     * unreadable files. */
    kf_problem_fn problem_fn;
    void *problem_ctx;
} kf_remote_opts;

/* Fills *o as KF_REMOTE_OPTIONS_INIT does. Every function here taking a
 * kf_remote_opts: it may be NULL (the defaults); its version must be
 * 1..KF_REMOTE_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED. */
void kf_remote_opts_init(kf_remote_opts *o);

typedef struct kf_remote_totals {
    uint64_t metadata_partitions;  /* __remote_log_metadata partitions replayed */
    uint64_t records;              /* their records */
    uint64_t rejected;             /* updates the broker drops (invalid_transition) */
    uint64_t fatal_records;        /* records that stop the broker's metadata consumer */
    bool incomplete;               /* damage no copy covered, or records that stop the broker's consumer:
                                      the replay may lack what the broker has */
    uint64_t partitions;           /* reported */
    uint64_t partitions_with_gap;  /* with offsets in no tier */
    uint64_t offsets_in_no_tier;
    uint64_t counts[5];            /* findings by kf_remote_finding */
    uint64_t objects, unrecognised_objects, unjudged_objects; /* of the storage or listing */
    uint64_t listing_bad_lines;
    uint64_t index_entries, index_bad;
    uint64_t peak_live_segments;   /* the most live segments held at once */
    bool unreadable;               /* a PATH, the storage or the listing could not be read */
} kf_remote_totals;

/* The job over in (collected from the PATHs with kf_inputs_collect): every
 * tiered partition to partition_fn in (topic, partition) order, then every
 * failing remote-log-index-cache entry to index_fn (either may be NULL).
 * *tot (may be NULL) sums it. KF_OK, KF_ERR_NOMEM, KF_ERR_UNSUPPORTED
 * (options), KF_ERR_IO (the storage dir or the listing cannot be read: the
 * last error names it; nothing was reported), or what a callback returned. */
int kf_remote_run(const kf_inputs *in, const kf_remote_opts *o, kf_remote_partition_fn partition_fn,
                  kf_remote_index_fn index_fn, void *ctx, kf_remote_totals *tot);

/* The __remote_log_metadata partition a user partition's records go to
 * (RemoteLogMetadataTopicPartitioner: murmur2 over the 4 big-endian bytes of
 * Objects.hash(lsb, msb, partition), made positive, modulo n). */
int32_t kf_remote_metadata_partition(const uint8_t topic_id[16], int32_t partition, int32_t n);

/* remote's JSON lines (kfsck/sys/json_lines.h), as `kfsck remote --json`
 * has them: a partition reconciled ("remote_partition", followed by a
 * "remote_segment" line per finding: kf_remote_partition_json writes
 * both), one finding's segment alone, a bad
 * entry of the remote-log-index-cache ("remote_index"), and the closing
 * summary with the run's errors and warnings. */
struct kf_jsonl;
void kf_remote_partition_json(struct kf_jsonl *j, const kf_remote_partition *p);
void kf_remote_segment_json(struct kf_jsonl *j, const kf_remote_partition *p, const kf_remote_segment *s);
void kf_remote_index_json(struct kf_jsonl *j, const kf_remote_index *e);
void kf_remote_summary_json(struct kf_jsonl *j, const kf_remote_totals *t, uint64_t errors, uint64_t warnings);

#ifdef __cplusplus
}
#endif

#endif
