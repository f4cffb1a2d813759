/* replicas.h: a partition's copies on several brokers side by side, before
 * a leader is elected by hand (what `kfsck replicas` does). The inputs are
 * brokers' data dirs (read with the data dir scan, scan.h) or the lines of
 * `kfsck scan --json` run on each broker, or both. For every topic-partition
 * found: each replica (log start, the log end its broker's recovery would
 * leave, high watermark, leader epochs), and for each replica as the
 * candidate leader where every other replica truncates when it follows it,
 * by Kafka's leader-epoch reconciliation (OffsetsForLeaderEpoch), what each
 * loses and how much of that was acknowledged; the best candidate, whether
 * electing it is unclean (ISR and ELR from the KRaft metadata when
 * __cluster_metadata is among the inputs), and whether the copies diverged.
 *
 * Each input is read in (topic, partition) order and the inputs are merged
 * by topic-partition as they stream, so memory follows one partition's
 * replicas at a time, never the cluster. Nothing is printed. */
#ifndef KFSCK_REPLICAS_H
#define KFSCK_REPLICAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/common.h"
#include "kfsck/partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Its problem codes, KF_P_BAD_SCAN_LINE and KF_P_DUPLICATE_REPLICA, are in common.h. */

/* ---- the reconciliation (pure) ------------------------------------------- */

/* A replica's leader-epoch cache as its broker loads it (LeaderEpochFileCache):
 * the entries assigned in order (an entry not above the latest in both epoch
 * and start offset removes the ones it contradicts; negative ones are
 * invalid), then cut at the log end (entries starting at or after it go)
 * and at the log-start checkpoint (entries starting at or before it go, the
 * last of them kept with its start moved there). In place; returns the new
 * count. */
size_t kf_replica_epochs_load(kf_leader_epoch *e, size_t n, int64_t log_start_checkpoint, int64_t log_end);

typedef struct kf_replica_truncation {
    int64_t truncate_to;       /* where the follower's log ends after reconciling */
    unsigned rounds;           /* OffsetsForLeaderEpoch exchanges (0: by the high watermark) */
} kf_replica_truncation;

/* Where a follower truncates when the leader whose loaded epochs are le
 * (kf_replica_epochs_load) and whose log ends at leader_end is elected and
 * starts a new epoch there (Partition.makeLeader): each round the follower
 * offers its latest epoch, the leader answers by
 * LeaderEpochFileCache.endOffsetFor, the follower truncates
 * (AbstractFetcherThread.getOffsetTruncationState) and asks again while it
 * did not know the epoch answered; a follower with no epochs truncates to
 * its high watermark (follower_hw, already within its log). fe/nfe: the
 * follower's loaded epochs, follower_end its log end. */
kf_replica_truncation kf_replica_reconcile(const kf_leader_epoch *le, size_t nle, int64_t leader_end,
                                           const kf_leader_epoch *fe, size_t nfe, int64_t follower_end,
                                           int64_t follower_hw);

/* ---- the job ------------------------------------------------------------- */

/* One broker's copy of a partition. */
typedef struct kf_replica {
    bool has_broker;           /* node.id, else broker.id, of its data dir's meta.properties */
    int32_t broker;
    const char *datadir;       /* its data dir (for a broker with no id: what names it) */
    const char *dir;           /* the partition dir; NULL when the scan line had none */
    const char *source;        /* the PATH it came from (a data dir or a scan file) */
    bool from_scan_file;
    bool has_log_start;        /* the log-start checkpoint, else the first offset */
    int64_t log_start_offset;
    bool has_log_end;          /* false: it could not be read; no candidate, no follower */
    int64_t log_end_offset;    /* where its broker's recovery would leave it (scan's recovery_end_offset) */
    bool has_high_watermark;   /* replication-offset-checkpoint */
    int64_t high_watermark;
    const kf_leader_epoch *leader_epochs; /* as loaded (kf_replica_epochs_load) */
    size_t n_leader_epochs;
    bool epochs_from_batches;  /* no leader-epoch-checkpoint: the epochs of its batches */
    bool damaged;              /* an error was found in the partition */
    uint64_t errors;
} kf_replica;

typedef struct kf_replica_follower {
    size_t replica;            /* index in the partition's replicas */
    int64_t truncate_to, offsets_lost, acknowledged_lost;
    unsigned rounds;
} kf_replica_follower;

/* Offsets [from_offset, to_offset) that one replica's files hold in intact
 * batches: what `kfsck merge` of the copies takes from it. */
typedef struct kf_replica_salvage {
    size_t replica;            /* index in the partition's replicas */
    int64_t from_offset, to_offset;
} kf_replica_salvage;

typedef struct kf_replica_election {
    size_t candidate;          /* index in the partition's replicas */
    const kf_replica_follower *followers; /* every other replica with a log end */
    size_t nfollowers;
    int64_t offsets_lost, acknowledged_lost; /* the largest of the followers' */
    /* The partition's log end once the candidate leads (its own log end),
     * and the acknowledged offsets it does not hold: the partition's high
     * watermark minus that, when positive, whichever replica follows. */
    int64_t leader_log_end;
    int64_t acknowledged_missing;
    /* Of those missing offsets, the ranges the replicas' files hold in
     * intact batches — past the damage a replica's own recovery cuts, or in
     * another replica's log beyond the candidate's end — as a merge of the
     * data dir copies reads them (in offset order). has_salvage is false
     * when no copy was read from a data dir (scan files cannot tell). */
    bool has_salvage;
    const kf_replica_salvage *salvage;
    size_t nsalvage;
    int64_t acknowledged_missing_after_merge; /* what salvage does not bring back */
} kf_replica_election;

typedef struct kf_replica_partition {
    const char *topic;
    int32_t partition;
    const kf_replica *replicas; /* by broker id, brokers with no id last (by data dir) */
    size_t nreplicas;
    const kf_replica_election *elections; /* one per replica with a log end, in replica order */
    size_t nelections;
    bool has_high_watermark;   /* the largest of the replicas' */
    int64_t high_watermark;
    /* From the KRaft metadata, when it is among the inputs and names the partition. */
    bool has_metadata;
    int32_t leader, leader_epoch;
    const int32_t *isr, *elr;
    size_t nisr, nelr;
    bool has_best;             /* some election */
    size_t best;               /* index in elections: least acknowledged_missing, then least
                                  acknowledged_lost, then least offsets_lost, then in the ISR or
                                  ELR, then lowest broker id */
    bool has_unclean;          /* the ISR and ELR are known */
    bool unclean;              /* the best candidate is in neither */
    bool diverged;             /* epoch histories disagree below a common end, or batches differ */
    uint64_t disagreements;    /* copies_disagree ranges (data dirs only) */
} kf_replica_partition;

#define KF_REPLICAS_OPTIONS_VERSION 1
#define KF_REPLICAS_OPTIONS_INIT KF_OPTIONS_INIT_(kf_replicas_opts, KF_REPLICAS_OPTIONS_VERSION)
typedef struct kf_replicas_opts {
    unsigned version;          /* KF_REPLICAS_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;    /* decompression cap per batch (0: the default) */
    /* Each topic-partition, in (topic, partition) order, valid during the call. */
    void (*partition_fn)(void *ctx, const kf_replica_partition *p);
    /* Problems of the job itself: bad scan lines, duplicate replicas,
     * copies_disagree (problem.file: the file or partition dir). Damage
     * inside the partitions is counted in kf_replica.errors, not repeated. */
    kf_problem_fn problem_fn;
    void *ctx;
    /* Each PATH that cannot be used (unreadable, neither a data dir nor a
     * scan file, of another cluster than the inputs before it). */
    kf_path_error_fn error_fn;
    void *error_ctx;
} kf_replicas_opts;

/* Fills *o as KF_REPLICAS_OPTIONS_INIT does. Every function here taking a
 * kf_replicas_opts: it may be NULL (the defaults); its version must be
 * 1..KF_REPLICAS_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED. */
void kf_replicas_opts_init(kf_replicas_opts *o);

typedef struct kf_replicas_totals {
    uint64_t partitions;
    uint64_t at_risk;          /* partitions with no candidate losing nothing acknowledged (missing or
                                  truncated), or diverged */
    uint64_t bad_lines;        /* bad_scan_line problems */
    bool unusable;             /* some PATH could not be used (error_fn) */
    bool partition_path;       /* a PATH was a partition dir other than __cluster_metadata-0 (a usage error:
                                  error_fn named it, nothing else was done) */
} kf_replicas_totals;

/* Compare the replicas under paths. KF_OK (also when some PATH could not be
 * used: tot->unusable), KF_ERR_NOMEM, KF_ERR_UNSUPPORTED (the options). */
int kf_replicas_run(char *const *paths, size_t n, const kf_replicas_opts *o, kf_replicas_totals *tot);

/* replicas' JSON lines (kfsck/sys/json_lines.h), as `kfsck replicas
 * --json` has them: a topic-partition's "replica" lines, its "election"
 * lines and its "partition" line; the closing summary. */
struct kf_jsonl;
void kf_replicas_partition_json(struct kf_jsonl *j, const kf_replica_partition *p);
void kf_replicas_summary_json(struct kf_jsonl *j, const kf_replicas_totals *t);

#ifdef __cplusplus
}
#endif

#endif
