/* replay.h: rebuilding the group coordinator's state from __consumer_offsets
 * records the way the coordinator does when it loads a partition
 * (CoordinatorLoaderImpl, GroupCoordinatorShard.replay): last write wins per
 * key in log order, tombstones delete, transactional offset commits are
 * staged per producer and applied at its COMMIT marker only if newer in the
 * log than the current value, dropped at ABORT; an offset tombstone also
 * drops that key's staged offsets. Group records of every other type are kept
 * as their latest value per key, for the groups view.
 *
 * Every change to the committed table goes, in the order it takes effect,
 * to change_fn (--history) and, with has_as_of, to the as-of table. The
 * deletions of one batch are one moment (dated by its max timestamp): they
 * go out together after the batch's other changes, except that a key
 * committed again later in the batch has its deletion just before that
 * commit.
 *
 * As of a time (has_as_of): each change has a time (a commit its
 * commit_timestamp, transactional ones too; a deletion its tombstone batch's
 * max timestamp); the as-of table is every change whose time is <= as_of,
 * applied in the order they took effect, and change_fn then sees exactly
 * those changes. A later change is left out wherever it falls in the stream:
 * the table never holds a commit_timestamp after as_of, and since every key's
 * changes come from one __consumer_offsets partition, in its log order, the
 * table does not depend on how partitions or copies are interleaved.
 *
 * Memory is proportional to distinct keys plus open transactions, never to
 * the number of records. Each partition's batches must come in offset
 * order; partitions may interleave (to replay them on one time line): call
 * kf_replay_partition before a batch of another partition. */
#ifndef KFSCK_REPLAY_H
#define KFSCK_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_offset_value {
    const char *group;          /* NUL-terminated, owned by the replay */
    const char *topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;       /* -1 when absent */
    const char *metadata;       /* never NULL */
    int64_t commit_timestamp;
    int64_t expire_timestamp;   /* -1 when absent */
    bool has_topic_id;
    uint8_t topic_id[16];
    int32_t source_partition;   /* the __consumer_offsets partition */
    int64_t source_offset;      /* the record that set it */
    int16_t value_version;
    bool transactional;
} kf_offset_value;

/* A change to the committed table: a commit taking effect (plain at its
 * record, transactional at its COMMIT marker) or a deletion (v is then the
 * value removed). `time` is the commit timestamp, or for a deletion the
 * batch's max timestamp; `at_offset` the log offset where the change took
 * effect (the record, the COMMIT marker, or the tombstone). */
typedef void (*kf_offset_change_fn)(void *ctx, const kf_offset_value *v, bool deleted, int64_t time,
                                    int64_t at_offset);

typedef struct kf_replay kf_replay;

#define KF_REPLAY_OPTIONS_VERSION 1
#define KF_REPLAY_OPTIONS_INIT KF_OPTIONS_INIT_(kf_replay_opts, KF_REPLAY_OPTIONS_VERSION)
typedef struct kf_replay_opts {
    unsigned version;         /* KF_REPLAY_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch (0: KF_DEFAULT_MAX_BATCH_BYTES) */
    bool has_as_of;             /* kf_replay_offsets gives the table as of as_of, and
                                   change_fn sees only the changes it is folded from */
    int64_t as_of;
    kf_offset_change_fn change_fn;  /* every change, in the order it takes effect */
    void *change_ctx;
    kf_problem_fn problem_fn;   /* undecodable records, open transactions */
    void *problem_ctx;
} kf_replay_opts;

/* Defaults: the default batch cap, no as-of, no callbacks. */
/* Fills *o as KF_REPLAY_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_replay_opts: it may be NULL
 * (the defaults); its version must be 1..KF_REPLAY_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_replay_opts_init(kf_replay_opts *o);

/* KF_OK with *r set, or KF_ERR_UNSUPPORTED (o's version) or KF_ERR_NOMEM
 * with *r NULL. */
int kf_replay_new(kf_replay **r, const kf_replay_opts *o);
void kf_replay_free(kf_replay *r);

/* The __consumer_offsets partition the next batches come from. */
void kf_replay_partition(kf_replay *r, int32_t partition);
/* The segment file the next batches come from, named in the problems they
 * raise (kf_problem.file); NULL when not known (file must outlive its use). */
void kf_replay_file(kf_replay *r, const char *file);
/* Replay one intact batch. Undecodable records are reported (code
 * "bad_record" with the batch position and the record offset) and skipped.
 * Returns KF_OK or KF_ERR_NOMEM. */
int kf_replay_batch(kf_replay *r, kf_batch *b);
/* End of input: reports transactions still open. */
void kf_replay_finish(kf_replay *r);

/* The committed table, sorted by group, topic, partition. Valid until the
 * next kf_replay_batch / kf_replay_free.
 * With has_as_of: the table as of as_of (above): the changes whose time is
 * <= as_of, applied in the order change_fn sees them. Empty when no change
 * is that old. */
size_t kf_replay_offsets(kf_replay *r, const kf_offset_value ***out);

/* Latest value of every non-offset key (record types >= 2), sorted by key
 * bytes: the raw key and value as stored, and the partition and offset they
 * came from. Tombstoned keys are gone. */
typedef struct kf_group_record {
    const uint8_t *key;
    uint32_t key_len;
    const uint8_t *value;
    uint32_t value_len;
    int32_t source_partition;
    int64_t source_offset;
} kf_group_record;

size_t kf_replay_group_records(kf_replay *r, const kf_group_record ***out);

/* Groups whose metadata was deleted (a type 2/3/11/17 tombstone seen last),
 * NUL-terminated names, sorted. */
size_t kf_replay_dead_groups(kf_replay *r, const char *const **out);
/* Groups an offset commit's value named (the coordinator creates a group
 * for it on replay: an empty classic group when it has no other; Kafka's
 * OffsetMetadataManager.replay), committed, staged or aborted alike,
 * NUL-terminated names, sorted. */
size_t kf_replay_offset_groups(kf_replay *r, const char *const **out);
/* The record type of a dead group's metadata tombstone (2 classic,
 * 3 consumer, 11 share, 17 streams), or -1 when the group is not dead. */
int16_t kf_replay_dead_group_type(const kf_replay *r, const char *group);

/* Records replayed; skipped as undecodable (a known type whose key or value
 * could not be read: the result may be incomplete); of unknown types
 * (skipped, as the coordinator does); transactions left open. */
typedef struct kf_replay_stats {
    uint64_t records, skipped, unknown, open_transactions, batches;
} kf_replay_stats;
kf_replay_stats kf_replay_get_stats(const kf_replay *r);

/* ---- what the coordinator's load would make of the partitions ---------------
 *
 * Coordinator load: a record of a known type whose key or value does not
 * deserialize makes the group coordinator fail to load the whole
 * __consumer_offsets partition (Kafka's loader rethrows what the record serde
 * threw), while a record of an unknown type is skipped. The replay reports
 * the first as a "coordinator_load_error" problem (error) and goes on after
 * it; with a load-error callback set, the callback gets it instead of
 * problem_fn, with the partition and the decoder's own code (bad_record,
 * undecoded_record) as decode_error. */
typedef struct kf_coord_load_error {
    const kf_problem *problem;  /* code KF_P_COORDINATOR_LOAD_ERROR, file, position, offset */
    int32_t source_partition;   /* the __consumer_offsets partition that fails to load */
    const char *decode_error;   /* what the decoder called the record */
} kf_coord_load_error;
typedef void (*kf_coord_load_error_fn)(void *ctx, const kf_coord_load_error *e);
void kf_replay_on_load_error(kf_replay *r, kf_coord_load_error_fn fn, void *ctx);

/* Offsets of a partition that no copy holds intact (a hole of the partition
 * reader), up to end_offset inclusive (has_end false: to the end of the
 * log). Commits made there are lost: a row whose source_offset comes before
 * the end of such a range may have been committed again inside it. The
 * replay adds the batches whose records it could not read itself. */
void kf_replay_lost_range(kf_replay *r, int32_t partition, bool has_end, int64_t end_offset);
/* Whether v (a row of kf_replay_offsets) may be stale: its source_offset is
 * below the end of a lost range of its source partition. */
bool kf_replay_row_may_be_stale(const kf_replay *r, const kf_offset_value *v);
/* The newest max timestamp of the batches replayed (false when none was):
 * when the copy stopped being written. */
bool kf_replay_newest_time(const kf_replay *r, int64_t *ms);

/* ---- the offsets topic on one time line -------------------------------------
 *
 * The driver `offsets` and `groups` run: every partition of the topic among
 * the inputs replayed into one kf_replay, each partition in offset order
 * over the union of its copies, the partitions interleaved by batch max
 * timestamp (one time line). Empty batches (kept by the log cleaner) are
 * not replayed. Ends with kf_replay_finish. Damage no copy covers is also
 * handed to the replay (kf_replay_lost_range). */

#define KF_OFFSETS_TOPIC_OPTIONS_VERSION 2
#define KF_OFFSETS_TOPIC_OPTIONS_INIT KF_OPTIONS_INIT_(kf_offsets_topic_opts, KF_OFFSETS_TOPIC_OPTIONS_VERSION)
typedef struct kf_offsets_lost kf_offsets_lost;
typedef void (*kf_offsets_lost_fn)(void *ctx, const kf_offsets_lost *l);

typedef struct kf_offsets_topic_opts {
    unsigned version;         /* KF_OFFSETS_TOPIC_OPTIONS_VERSION (kfsck.h: options) */
    const char *topic;          /* the topic (NULL: "__consumer_offsets") */
    /* Every partition reader's options: max_batch_bytes, tuning, and the
     * problems met in the copies (problem_fn). */
    kf_part_reader_opts read;
    /* Version 2: each "offsets_lost" problem of the readers goes here with
     * the time window of the lost range, instead of to read.problem_fn. */
    kf_offsets_lost_fn lost_fn;
    void *lost_ctx;
} kf_offsets_topic_opts;

/* An "offsets_lost" problem of a partition of the topic, and when the lost
 * offsets were written: the max timestamps of the intact batches just
 * before and just after the range (none at the ends of the log). Every lost
 * range also goes to kf_replay_lost_range. */
struct kf_offsets_lost {
    const kf_problem *problem;
    int32_t partition;
    bool has_first_timestamp, has_last_timestamp;
    int64_t first_timestamp, last_timestamp;
};

/* The topic's usual name and the readers' defaults. */
/* Fills *o as KF_OFFSETS_TOPIC_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_offsets_topic_opts: it may be NULL
 * (the defaults); its version must be 1..KF_OFFSETS_TOPIC_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_offsets_topic_opts_init(kf_offsets_topic_opts *o);

typedef struct kf_offsets_topic_result {
    uint64_t partitions;        /* partitions of the topic replayed */
    uint64_t uncovered;         /* damaged ranges no copy covered */
    bool unreadable;            /* some segment could not be read */
} kf_offsets_topic_result;

/* Replay the topic's partitions among in into r. KF_OK or KF_ERR_NOMEM. */
int kf_replay_offsets_topic(kf_replay *r, const kf_inputs *in, const kf_offsets_topic_opts *o,
                            kf_offsets_topic_result *res);

#ifdef __cplusplus
}
#endif

#endif
