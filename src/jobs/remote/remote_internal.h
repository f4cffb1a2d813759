/* remote_internal.h: what the files of the remote room share (private to
 * libkfsck): the replayed state of __remote_log_metadata (remote_cache.c),
 * the replay of its partitions (remote_replay.c), the local copies and the
 * offsets in no tier (remote_local.c), the remote storage (remote_storage.c)
 * and the remote-log-index-cache (remote_index.c). docs/formats.md §22. */
#ifndef KFSCK_REMOTE_INTERNAL_H
#define KFSCK_REMOTE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes/htab.h"
#include "kfsck/remote.h"

#define RM_NONE UINT32_MAX

/* One live segment (state 0-2) of RemoteLogMetadataCache.idToSegmentMetadata. */
typedef struct rm_seg {
    uint8_t id[16];
    uint32_t part;          /* its partition (rm_state.parts); the next free slot while free */
    int8_t state;           /* KF_REMOTE_COPY_STARTED..KF_REMOTE_DELETE_STARTED; -1: a free slot */
    uint16_t objects;       /* KF_REMOTE_OBJ_* found in the storage */
    bool aiven;             /* found under Aiven's key layout (else LocalTieredStorage's) */
    int32_t broker_id;
    int32_t size;           /* segment_size_in_bytes */
    uint32_t nepochs;       /* at least 1 */
    uint32_t pprev, pnext;  /* its partition's other live segments (RM_NONE ends the list) */
    int64_t start, end;     /* end inclusive */
    int64_t max_ts, event_ts, started_ts;
    uint64_t storage_bytes; /* sizes of its objects in the storage */
    char *key_prefix;       /* the key its first object was found under, less the suffix (storage only) */
    union {
        kf_leader_epoch one;    /* nepochs == 1 */
        kf_leader_epoch *many;  /* nepochs > 1: by epoch */
    } ep;
} rm_seg;

static inline const kf_leader_epoch *rm_seg_epochs(const rm_seg *s)
{
    return s->nepochs == 1 ? &s->ep.one : s->ep.many;
}

/* In e[0..n) sorted by epoch: the first entry whose epoch is above epoch
 * (n when none): NavigableMap.higherEntry's. */
static inline size_t rm_epoch_upper(const kf_leader_epoch *e, size_t n, int32_t epoch)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].epoch <= epoch)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* RemoteLogLeaderEpochState.offsetToId of one epoch: the COPY_SEGMENT_FINISHED
 * segments by the offset their epoch starts at in them. A sorted array;
 * removed entries stay as holes (seg RM_NONE) between live ones and are
 * squeezed out when they outnumber them; never a hole first or last. */
typedef struct rm_ref {
    int64_t start;
    uint32_t seg;
} rm_ref;

typedef struct rm_epoch {
    int32_t epoch;
    bool has_highest;
    int64_t highest;        /* highestLogOffset */
    rm_ref *v;
    uint32_t head, n, cap;  /* entries v[head..n) */
    uint32_t holes;
} rm_epoch;

/* One user partition (RemotePartitionMetadataStore: its cache and its
 * partition delete metadata). */
typedef struct rm_part {
    char *topic;
    size_t topic_len;
    uint8_t topic_id[16];
    int32_t partition;
    int32_t mpart;          /* the metadata partition its records came from (-1: none yet) */
    rm_epoch *epochs;       /* by epoch */
    uint32_t nepochs, capepochs;
    uint64_t live;          /* live segments */
    uint32_t first_seg;     /* the list of them (rm_seg.pnext), RM_NONE when none */
    uint64_t finished;      /* segments that reached DELETE_SEGMENT_FINISHED */
    int8_t delete_state;    /* KF_REMOTE_PARTITION_*, -1 none */
    int64_t delete_ts;
    bool gone;              /* DELETE_PARTITION_FINISHED: its cache was dropped */
} rm_part;

/* The replayed state of every partition. */
typedef struct rm_state {
    rm_part *parts;
    uint32_t nparts, capparts;
    uint32_t *part_slots;   /* (topic id, partition, name) -> index + 1, open addressing */
    uint32_t npart_slots;
    rm_seg *segs;           /* the pool */
    uint32_t nsegs, capsegs, free_head;
    uint64_t live, peak_live;
    uint64_t *slots;        /* segment id (and partition) -> pool index, open addressing */
    uint32_t nslots;        /* a power of two, or 0 */
    bool nomem;
} rm_state;

void rm_state_free(rm_state *st);

/* The partition (topic_id, partition, name), created when missing (create);
 * its index or RM_NONE (not found, or out of memory: st->nomem). */
uint32_t rm_part_get(rm_state *st, const uint8_t topic_id[16], int32_t partition, const char *name, size_t name_len,
                     bool create);
/* A live segment of a partition, or RM_NONE. */
uint32_t rm_seg_find(const rm_state *st, uint32_t part, const uint8_t id[16]);

/* Asks the cache for the table slot a segment id is looked up at first
 * (rm_prefetch), and once that is there, for the segment it holds
 * (rm_prefetch_segment). */
void rm_prefetch(const rm_state *st, const uint8_t id[16]);
void rm_prefetch_segment(const rm_state *st, const uint8_t id[16]);

/* A decoded record, as the broker's serde turns it into a RemoteLogMetadata. */
typedef struct rm_event {
    int kind;               /* 0 segment metadata, 1 update, 2 partition delete */
    const char *name;       /* topic name (not NUL-terminated) */
    size_t name_len;
    uint8_t topic_id[16];
    int32_t partition;
    uint8_t segment_id[16];
    int64_t start, end, max_ts, event_ts;
    int32_t broker_id, size;
    int state;              /* the segment or partition-delete state id */
    const kf_leader_epoch *epochs; /* kind 0: by epoch, epochs repeated in the record collapsed (last wins) */
    size_t nepochs;
} rm_event;

/* What applying an event did. */
typedef enum rm_outcome {
    RM_APPLIED = 0,
    RM_DROPPED,             /* the broker drops it (logs it, the replay goes on): why says what */
    RM_FATAL,               /* the broker's handler throws: its metadata consumer stops */
    RM_NOMEM,
} rm_outcome;

/* Apply one event as RemotePartitionMetadataStore and RemoteLogMetadataCache
 * do (docs/formats.md §22.2); why (when not applied) in words. */
rm_outcome rm_apply(rm_state *st, int32_t mpart, const rm_event *ev, char *why, size_t why_len);

/* The epoch state of a partition, or NULL. */
const rm_epoch *rm_epoch_of(const rm_state *st, uint32_t part, int32_t epoch);
/* The last offset of epoch in segment s (the next epoch's start - 1, or its end). */
int64_t rm_epoch_end(const rm_seg *s, int32_t epoch);

/* ---- the replay of the metadata partitions (remote_replay.c) ---- */

typedef struct rm_replay_result {
    uint64_t records, rejected, fatal;
    int64_t first_fatal_offset;     /* the first record that stops the broker's consumer (valid when fatal) */
    int64_t newest_event_ts;
    bool incomplete;
    bool unreadable;
} rm_replay_result;

/* Replays one __remote_log_metadata partition (its number mpart) into st. */
int rm_replay_partition(rm_state *st, const kf_partition *p, int32_t mpart, const kf_remote_opts *o,
                        rm_replay_result *res);

/* ---- the storage (remote_storage.c) ---- */

/* One object key as the known layouts name it. */
typedef struct rm_key {
    bool ok;                /* its name is <digits>-<segment id>.<suffix> under a partition path */
    int64_t start;          /* from the name */
    uint8_t segment_id[16];
    bool has_partition;
    uint8_t topic_id[16];
    int32_t partition;
    const char *topic;      /* into the key, not NUL-terminated */
    size_t topic_len;
    unsigned object;        /* KF_REMOTE_OBJ_* */
    bool aiven;             /* Aiven's layout (else LocalTieredStorage's) */
    size_t stem_end;        /* length of the key up to the suffix's dot */
} rm_key;

/* Parses key[0..len) by the layouts of docs/formats.md §22.6. */
void rm_key_parse(const char *key, size_t len, rm_key *k);

/* An orphan segment: objects of a segment id no live metadata has. */
typedef struct rm_orphan {
    uint8_t segment_id[16];
    uint8_t topic_id[16];
    int32_t partition;
    char *topic;
    int64_t start;
    char **keys;
    size_t nkeys, capkeys;
    uint64_t bytes;
} rm_orphan;

typedef struct rm_storage {
    rm_orphan *orphans;     /* sorted by (topic id, partition, start) after rm_storage_read */
    size_t norphans, caporphans;
    htab orphan_index;      /* segment id -> index + 1 */
    uint64_t objects, unrecognised, unjudged, bad_lines;
} rm_storage;

/* Which metadata partitions were replayed, to tell whether a user
 * partition's metadata is among the inputs. */
typedef struct rm_judge {
    const bool *replayed;   /* by metadata partition number, n of them */
    int32_t n;              /* the metadata topic's partition count, 0 unknown */
    const int64_t *stops_at;/* by metadata partition number (nstops of them): the offset of the
                               first record that stops the broker's metadata consumer, -1 none */
    size_t nstops;
} rm_judge;

bool rm_judged(const rm_judge *j, const uint8_t topic_id[16], int32_t partition, int32_t *mpart);

/* Reads o->storage_dir or o->listing_path: marks the live segments' objects
 * in st, collects the orphans. KF_OK, KF_ERR_IO (the last error set),
 * KF_ERR_NOMEM. */
int rm_storage_read(rm_storage *sg, rm_state *st, const rm_judge *j, const kf_remote_opts *o);
void rm_storage_free(rm_storage *sg);

/* ---- the remote-log-index-cache (remote_index.c) ---- */

int rm_index_cache_check(const rm_state *st, bool have_metadata, const kf_remote_opts *o, kf_remote_index_fn fn,
                         void *ctx, kf_remote_totals *tot);

/* ---- the local copies and the tier gap (remote_local.c) ---- */

/* A tiered partition's local copies among the inputs. */
typedef struct rm_locals {
    kf_remote_local *v;
    size_t n;
    kf_leader_epoch **epochs;  /* each copy's, owned */
    char **dirs;               /* owned */
} rm_locals;

/* The topic id a partition dir's partition.metadata names; false when it
 * has none that parses. */
bool rm_dir_topic_id(const char *dir, uint8_t id[16]);

/* The copies of p (may be NULL) whose partition.metadata does not name
 * another topic id than topic_id (NULL: any). */
int rm_locals_read(rm_locals *l, const kf_partition *p, const uint8_t *topic_id, const kf_remote_opts *o);
void rm_locals_free(rm_locals *l);

/* The offsets in no tier and the epoch-chain breaks of a partition: fills
 * the result's tier fields; chain breaks are appended with add. segs: the
 * partition's live segments (pool indices) by start offset. */
typedef int (*rm_add_finding_fn)(void *ctx, const kf_remote_segment *f);
int rm_tier_judge(const rm_state *st, uint32_t part, const uint32_t *segs, size_t nsegs, const rm_locals *l,
                  kf_remote_partition *r, kf_remote_range **ranges, rm_add_finding_fn add, void *add_ctx);

#endif
