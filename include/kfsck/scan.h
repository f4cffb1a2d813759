/* scan.h: the health of whole broker data directories (what `kfsck scan`
 * does): every partition directory verified as kf_verify_partition does,
 * with the data dir's offset checkpoints and each partition's
 * leader-epoch-checkpoint compared with its segments, and, when the data dir
 * also holds the KRaft metadata log, each partition's partition.metadata
 * against it (topic_id_mismatch, stray_partition). Partitions are checked
 * by several threads and handed back in (topic, partition) order on the
 * caller's thread, each with its problems, so the result does not depend on
 * the thread count. Nothing is printed. */
#ifndef KFSCK_SCAN_H
#define KFSCK_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/common.h"
#include "kfsck/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An offset a checkpoint file records for the partition. */
typedef struct kf_checkpoint_offset {
    bool has;
    int64_t offset;
} kf_checkpoint_offset;

/* The partition's entries in the data dir's offset checkpoint files
 * (recovery-point-offset-checkpoint, replication-offset-checkpoint,
 * log-start-offset-checkpoint, cleaner-offset-checkpoint). */
typedef struct kf_partition_checkpoints {
    kf_checkpoint_offset recovery_point, high_watermark, log_start_offset, cleaner_offset;
} kf_partition_checkpoints;

typedef struct kf_datadir_partition {
    kf_partition_ref id;           /* its dir is datadir/name */
    const char *name;              /* the directory's name, <topic>-<n> */
    bool has_topic_id;
    char topic_id[23];             /* from partition.metadata */
    kf_partition_summary log;      /* segments, bytes, offsets, log end offset */
    kf_partition_checkpoints checkpoints;
    const kf_leader_epoch *leader_epochs; /* from leader-epoch-checkpoint */
    size_t n_leader_epochs;
    uint64_t errors, warnings;
    bool unreadable;               /* some file of it could not be read */
    uint64_t unreadable_paths;     /* its "unreadable" problems */
    const kf_problem *problems;    /* every problem found in it, in order (file set) */
    size_t n_problems;
    /* The data dir's meta.properties (paths.h's kf_datadir_info): node.id,
     * else broker.id, and cluster.id; none without one that parses. */
    bool has_broker;
    int32_t broker;
    const char *cluster_id;        /* NULL when none */
    /* Where the broker's own recovery after an unclean shutdown would leave
     * the log end (what predict --assume-unclean forecasts): every segment
     * from the one holding the recovery point (none: 0) recovered, the
     * first whose valid_bytes is below its size cut there and the later
     * ones deleted; then the end of the last batch kept, or the cut
     * segment's base offset; with no cut, log.log_end_offset; the log start
     * offset when that is below the log-start checkpoint (or there is no
     * segment). Unknown when the directory or one of its segments could
     * not be read. */
    bool has_recovery_end;
    int64_t recovery_end_offset;
} kf_datadir_partition;

#define KF_DATADIR_SCAN_OPTIONS_VERSION 1
#define KF_DATADIR_SCAN_OPTIONS_INIT KF_OPTIONS_INIT_(kf_datadir_scan_opts, KF_DATADIR_SCAN_OPTIONS_VERSION)
typedef struct kf_datadir_scan_opts {
    unsigned version;         /* KF_DATADIR_SCAN_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch (0: KF_DEFAULT_MAX_BATCH_BYTES) */
    unsigned jobs;                 /* threads in all (partitions checked at once, the
                                      rest to segment readers); 0: online cores */
    /* Each partition, in (topic, partition) order, valid during the call. */
    void (*partition_fn)(void *ctx, const kf_datadir_partition *p);
    /* The data dir's own problems (its checkpoint files and meta.properties,
     * checkpoint entries for partitions it does not hold: in file order, 100
     * per checkpoint file, then one problem counting the rest; each entry
     * named <topic>-<n> that cannot be read, a dangling or looping symlink
     * among them: unreadable, in paths.h's words), before the partitions. */
    kf_problem_fn problem_fn;
    void *ctx;
} kf_datadir_scan_opts;

/* Fills *o as KF_DATADIR_SCAN_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_datadir_scan_opts: it may be NULL
 * (the defaults); its version must be 1..KF_DATADIR_SCAN_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_datadir_scan_opts_init(kf_datadir_scan_opts *o);

typedef struct kf_datadir_totals {
    uint64_t partitions, segments, bytes, errors, warnings;
    bool unreadable;               /* something could not be read */
    uint64_t unreadable_paths;     /* "unreadable" problems (the caller adds the
                                      DATADIRs it could not use) */
} kf_datadir_totals;

/* Scan one data dir, adding to *tot (zero it first). KF_OK or KF_ERR_NOMEM;
 * a data dir that cannot be listed is an "unreadable" problem. */
int kf_datadir_scan(const char *dir, const kf_datadir_scan_opts *o, kf_datadir_totals *tot);

/* scan's JSON lines (kfsck/sys/json_lines.h), as `kfsck scan --json` has
 * them: a partition's line (its problems are problem lines the caller
 * writes after it, kf_problem_json), the closing summary of datadirs data
 * dirs, and a leader-epoch list as [{"epoch","start_offset"}] (scan,
 * replicas). */
struct kf_jsonl;
void kf_scan_partition_json(struct kf_jsonl *j, const kf_datadir_partition *p);
void kf_scan_summary_json(struct kf_jsonl *j, uint64_t datadirs, const kf_datadir_totals *t);
void kf_leader_epochs_json(struct kf_jsonl *j, const char *key, const kf_leader_epoch *e, size_t n);

#ifdef __cplusplus
}
#endif

#endif
