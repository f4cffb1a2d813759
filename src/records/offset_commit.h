/* offset_commit.h: an offset commit record of __consumer_offsets (key types
 * 0 and 1) in the flat form the replay works on. Decoded straight from the
 * bytes for the layouts every broker writes in bulk (key v0, values v0-v3:
 * classic encoding), so the replay's hot path builds no tree; anything else
 * (flexible v4, unknown versions, damage) is left to the generic decoder,
 * whose tree kf_offset_commit_from_tree turns into the same form. Private. */
#ifndef KFSCK_RECORDS_OFFSET_COMMIT_H
#define KFSCK_RECORDS_OFFSET_COMMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/sys/coord.h"

typedef struct kf_offset_commit {
    const uint8_t *group, *topic;   /* point into the record (or the tree's bytes) */
    uint32_t group_len, topic_len;
    int32_t partition;
    bool tombstone;                 /* null value: the rest is unset */
    int16_t value_version;
    int64_t offset;
    int32_t leader_epoch;           /* -1 when the version has none */
    const uint8_t *metadata;        /* NULL when empty */
    uint32_t metadata_len;
    int64_t commit_timestamp;
    int64_t expire_timestamp;       /* -1 when the version has none */
    bool has_topic_id;
    uint8_t topic_id[16];
} kf_offset_commit;

/* True with *out filled when key (type 0 or 1) and value are a layout read
 * here and decode exactly (no byte left over); false: use kf_coord_decode. */
bool kf_offset_commit_fast(const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                           kf_offset_commit *out);

/* The same from kf_coord_decode's tree of a key type 0/1 record (key_ok,
 * and value_ok unless a tombstone). False when the tree lacks the key fields. */
bool kf_offset_commit_from_tree(const kf_dtree *t, const kf_coord_record *cr, kf_offset_commit *out);

#endif
