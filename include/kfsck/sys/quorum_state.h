/* quorum_state.h: the KRaft election state file `quorum-state` of a
 * __cluster_metadata-0 directory: one line of JSON written by
 * FileQuorumStateStore, data_version 0 (kraft.version 0: clusterId, leaderId,
 * leaderEpoch, votedId, appliedOffset, currentVoters) or 1 (leaderId,
 * leaderEpoch, votedId, votedDirectoryId). */
#ifndef KFSCK_QUORUM_STATE_H
#define KFSCK_QUORUM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KF_QUORUM_MAX_VOTERS 64 /* voters kept; more are counted in nvoters */
#define KF_QUORUM_LINE_MAX (1u << 20) /* a longer first line is refused as damage */

typedef struct kf_quorum_state {
    int32_t data_version;      /* -1 when absent or unreadable */
    int32_t leader_id;         /* -1 = unknown (also when absent) */
    int32_t leader_epoch;
    int32_t voted_id;          /* -1 = has not voted */
    bool has_voted_directory_id;
    char voted_directory_id[23]; /* v1: base64url uuid */
    bool has_applied_offset;
    int64_t applied_offset;    /* v0 only, written as 0 */
    bool has_voters;           /* v0 currentVoters present and not null */
    size_t nvoters;            /* voters listed (may exceed KF_QUORUM_MAX_VOTERS) */
    int32_t voters[KF_QUORUM_MAX_VOTERS];
} kf_quorum_state;

/* Parse the file's first line the way Kafka does: a JSON object with a
 * data_version of 0 or 1 holding the fields that version requires, with the
 * types the schema says. Returns KF_OK, or KF_ERR_CORRUPT with the reason
 * as the last error (what Kafka would refuse at start-up); *qs holds what
 * was read. */
int kf_quorum_state_parse(const uint8_t *data, uint64_t size, kf_quorum_state *qs);
/* The same over the file at path, of which only the first
 * KF_QUORUM_LINE_MAX + 1 bytes are read (the first line is all a node
 * reads): also KF_ERR_IO when it cannot be read (the last error with the
 * errno), KF_ERR_NOMEM. */
int kf_quorum_state_read(const char *path, kf_quorum_state *qs);

#ifdef __cplusplus
}
#endif

#endif
