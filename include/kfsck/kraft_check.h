/* kraft_check.h: the checks of a KRaft metadata partition that decide whether
 * a KRaft node can start (kfsck(1): verify, PROBLEM CODES): snapshots that
 * lack their header or footer (snapshot_incomplete), a log start that no
 * snapshot covers (snapshot_missing: "Inconsistent snapshot state"), a
 * quorum-state Kafka would refuse (checkpoint_invalid), and, in a data dir
 * that also holds topic partitions, each partition's partition.metadata
 * against the metadata log (topic_id_mismatch, stray_partition). Findings go
 * to the problem callback with problem.file set; nothing is printed. */
#ifndef KFSCK_KRAFT_CHECK_H
#define KFSCK_KRAFT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What reading a snapshot (or bootstrap.checkpoint) file found. */
typedef struct kf_kraft_snapshot_status {
    bool readable;             /* the file could be opened */
    bool has_header;           /* the first batch is a control batch starting with snapshot_header */
    bool has_footer;           /* the last record read is a snapshot_footer */
    bool damaged;              /* some of its bytes are not intact batches */
    uint64_t batches, records;
} kf_kraft_snapshot_status;

/* Read a snapshot file (batches only; damage inside it is verify's to report)
 * and report snapshot_incomplete (error) when it lacks its header or footer.
 * Returns KF_OK, KF_ERR_IO when it cannot be read (reported as unreadable),
 * KF_ERR_NOMEM. st may be NULL. */
int kf_kraft_check_snapshot(const char *path, size_t max_batch_bytes, kf_problem_fn fn, void *ctx,
                            kf_kraft_snapshot_status *st);

/* A quorum-state file: checkpoint_invalid (error) when Kafka would refuse it. */
int kf_kraft_check_quorum_state(const char *path, kf_problem_fn fn, void *ctx);

enum {
    KF_KCHECK_SNAPSHOTS = 1, /* every <offset>-<epoch>.checkpoint: header and footer */
    KF_KCHECK_LOG_START = 2, /* first segment's base offset > 0 needs a snapshot at or above it */
    KF_KCHECK_QUORUM = 4,    /* quorum-state */
    KF_KCHECK_ALL = 7,
};

/* The checks of one __cluster_metadata-0 directory as its node's start-up
 * makes them (what selects: KF_KCHECK_*). Returns KF_OK, KF_ERR_IO when the
 * directory cannot be listed, KF_ERR_NOMEM. */
int kf_kraft_check_dir(const char *dir, size_t max_batch_bytes, int what, kf_problem_fn fn, void *ctx);

/* One topic partition directory of a data dir against the metadata image
 * of the same data dir: its partition.metadata topic id differs from the
 * image's id for that topic name (topic_id_mismatch, error: the broker fails
 * the partition), or names a topic id the image does not know
 * (stray_partition, warning: Kafka renames such dirs -stray). A partition
 * dir with no readable partition.metadata is not judged. */
void kf_kraft_check_partition(const kf_metadata *m, const char *topic, int32_t partition, const char *dir,
                              kf_problem_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
