/* checkpoint.h: the small text files beside the logs.
 *   offset checkpoints (recovery-point-, log-start-, replication-,
 *     cleaner-offset-checkpoint): "0\nN\n" then N lines "topic partition offset"
 *   leader-epoch-checkpoint: "0\nN\n" then N lines "epoch startOffset"
 *   partition.metadata: "version: 0\ntopic_id: <22-char base64 uuid>"
 *   meta.properties: Java properties (version, broker.id / node.id,
 *     cluster.id, directory.id) */
#ifndef KFSCK_CHECKPOINT_H
#define KFSCK_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "kfsck/common.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_checkpoint_entry {
    const char *topic;     /* NUL-terminated; NULL for leader-epoch entries */
    int32_t partition;     /* offset checkpoints */
    int32_t epoch;         /* leader-epoch entries */
    int64_t offset;        /* the offset (start offset for leader epochs) */
    uint64_t position;     /* byte position of the line in the file */
} kf_checkpoint_entry;

/* One entry of a leader-epoch-checkpoint (for the files kfsck writes). */
typedef struct kf_leader_epoch {
    int32_t epoch;
    int64_t start_offset;
} kf_leader_epoch;

typedef void (*kf_checkpoint_entry_fn)(void *ctx, const kf_checkpoint_entry *e);

enum { KF_CHECKPOINT_OFFSETS = 0, KF_CHECKPOINT_LEADER_EPOCH = 1 };

/* Parse a checkpoint file of the given kind, calling entry_fn for each good
 * entry line. Malformed content (bad version line, count line, a bad entry
 * line, count not matching the lines, leader epochs or start offsets not
 * increasing) is reported as checkpoint_invalid with the line's byte
 * position. Returns KF_OK if nothing was wrong, else KF_ERR_CORRUPT, with
 * the last error counting the problems and naming the first; its err_no is
 * EIO when the broker's reader throws an IOException at that first problem
 * (a version other than 0, a line with the wrong number of fields, a count
 * the lines do not match: the broker then takes the log dir offline), 0
 * when it throws another exception (a number that does not parse: the
 * broker resets the entries) or none, as Kafka's CheckpointFile reads. An
 * empty file is an empty list (KF_OK). *version is set when readable. */
int kf_checkpoint_parse(const uint8_t *data, uint64_t size, int kind, int32_t *version,
                        kf_checkpoint_entry_fn entry_fn, void *ectx, kf_problem_fn pfn, void *pctx);

/* kf_checkpoint_parse over the file at path, read in pieces: any size, in a
 * fixed few tens of KiB. The same returns, and KF_ERR_IO (the detail in
 * kf_error_last()) when the file cannot be opened (as kf_source_open) or a
 * read fails (the entries and problems up to there were handed on),
 * KF_ERR_NOMEM. */
int kf_checkpoint_read(const char *path, int kind, int32_t *version, kf_checkpoint_entry_fn entry_fn, void *ectx,
                       kf_problem_fn pfn, void *pctx);

/* One partition's entry in the offset checkpoint at path (the
 * recovery-point, log-start, replication or cleaner checkpoint of a data
 * dir): *found and *offset from the last entry line naming (topic,
 * partition), as the broker reads the file into a map. The same returns as
 * kf_checkpoint_read (a missing file: KF_ERR_IO, nothing found); problems
 * go to pfn as there. */
int kf_checkpoint_find(const char *path, const char *topic, int32_t partition, bool *found, int64_t *offset,
                       kf_problem_fn pfn, void *pctx);

/* An entry of a leader-epoch-checkpoint with its byte position. */
typedef struct kf_epoch_entry_at {
    kf_leader_epoch e;
    uint64_t position;
} kf_epoch_entry_at;

#define KF_EPOCHS_BEYOND_KEPT 8

/* A leader-epoch-checkpoint as read from disk (kf_leader_epochs_read). */
typedef struct kf_leader_epochs {
    kf_leader_epoch *entries; /* the entry lines that parse, in file order, up to the cut */
    uint64_t *positions;      /* each entry's byte position; NULL unless asked for */
    size_t n;
    uint64_t n_beyond;        /* entries that parse but start past the cut: counted, not kept... */
    kf_epoch_entry_at beyond[KF_EPOCHS_BEYOND_KEPT]; /* ...but the first few, for messages, */
    uint64_t beyond_unlisted_position; /* and where the first of the others is */
    bool present;             /* the file is there (read or not: only "no such file" is absent) */
    bool read;                /* it was read to its end */
    bool valid;               /* read, and nothing in it was wrong (kf_checkpoint_parse said KF_OK) */
} kf_leader_epochs;

/* Read the leader-epoch-checkpoint at path in pieces (any size) and parse it
 * as kf_checkpoint_parse does, which reports what is wrong in it to pfn (may
 * be NULL). Entries starting past keep_through are counted, not kept (the
 * broker cuts its epoch cache at the log end when it loads it,
 * LeaderEpochFileCache.truncateFromEnd); INT64_MAX keeps them all. A file
 * that is missing or cannot be read is an empty list (present/read say
 * which). positions: fill out->positions too. KF_OK, or KF_ERR_NOMEM (then
 * out is empty). Free with kf_leader_epochs_free. */
int kf_leader_epochs_read(const char *path, int64_t keep_through, bool positions, kf_leader_epochs *out,
                          kf_problem_fn pfn, void *pctx);
void kf_leader_epochs_free(kf_leader_epochs *l);

/* Kafka Uuid as text: 22 chars of URL-safe base64 without padding. */
void kf_uuid_to_b64(const uint8_t uuid[16], char out[23]);
/* Returns KF_OK, or KF_ERR_CORRUPT (with the last error) when s is not 22
 * valid characters. */
int kf_uuid_from_b64(const char *s, size_t len, uint8_t uuid[16]);

typedef struct kf_partition_metadata {
    int32_t version;
    uint8_t topic_id[16];
    char topic_id_b64[23];
} kf_partition_metadata;

/* Returns KF_OK, or KF_ERR_CORRUPT with the reason as the last error
 * (missing lines, bad version, bad or all-zero uuid). */
int kf_partition_metadata_parse(const uint8_t *data, uint64_t size, kf_partition_metadata *pm);
/* The same over the file at path (read whole: a file larger than
 * KF_META_FILE_MAX is KF_ERR_CORRUPT, damage): also KF_ERR_IO when it
 * cannot be read (the last error with the errno), KF_ERR_NOMEM. */
int kf_partition_metadata_read(const char *path, kf_partition_metadata *pm);

typedef struct kf_meta_properties {
    int32_t version;          /* 0 when absent */
    bool has_broker_id, has_node_id;
    int32_t broker_id, node_id;
    char cluster_id[64];      /* "" when absent */
    char directory_id[64];    /* "" when absent */
    /* a key kfsck reads set twice with different values (the last counts,
     * as java.util.Properties keeps it), in words; "" when none */
    char repeated[240];
} kf_meta_properties;

/* Returns KF_OK, or KF_ERR_CORRUPT with the reason as the last error
 * (version other than 0/1, v1 without node.id or cluster.id, non-numeric
 * ids, overlong values); mp->cluster_id then still holds the cluster.id
 * line when one was read (the file names its cluster all the same). */
int kf_meta_properties_parse(const uint8_t *data, uint64_t size, kf_meta_properties *mp);
/* The same over the file at path, as kf_partition_metadata_read. */
int kf_meta_properties_read(const char *path, kf_meta_properties *mp);

#ifdef __cplusplus
}
#endif

#endif
