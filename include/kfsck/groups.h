/* groups.h: the groups model `kfsck groups` prints, built from a replay of
 * __consumer_offsets (replay.h): every group id known from its records,
 * its committed offsets or a deleted group's tombstone; its kind (classic,
 * consumer, share, streams: KIP-848, KIP-932, KIP-1071) by the record types
 * below, its state (empty, stable, dead), its records in log order and, for
 * consumer, share and streams groups, each member with its current and
 * target assignment records. The records stay raw (kf_group_record); the
 * printer decodes what it shows with kf_group_record_decode. */
#ifndef KFSCK_GROUPS_H
#define KFSCK_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/coord.h"
#include "kfsck/replay.h"
#include "kfsck/topic_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The record types of __consumer_offsets (the int16 that starts the key). */
enum {
    KF_GREC_LEGACY_OFFSET_COMMIT = 0,
    KF_GREC_OFFSET_COMMIT = 1,
    KF_GREC_GROUP_METADATA = 2,
    KF_GREC_CONSUMER_GROUP_METADATA = 3,
    KF_GREC_CONSUMER_GROUP_PARTITION_METADATA = 4,
    KF_GREC_CONSUMER_GROUP_MEMBER_METADATA = 5,
    KF_GREC_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA = 6,
    KF_GREC_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER = 7,
    KF_GREC_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 8,
    KF_GREC_SHARE_GROUP_PARTITION_METADATA = 9,
    KF_GREC_SHARE_GROUP_MEMBER_METADATA = 10,
    KF_GREC_SHARE_GROUP_METADATA = 11,
    KF_GREC_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA = 12,
    KF_GREC_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER = 13,
    KF_GREC_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT = 14,
    KF_GREC_SHARE_GROUP_STATE_PARTITION_METADATA = 15,
    KF_GREC_CONSUMER_GROUP_REGULAR_EXPRESSION = 16,
    KF_GREC_STREAMS_GROUP_METADATA = 17,
    KF_GREC_STREAMS_GROUP_PARTITION_METADATA = 18,
    KF_GREC_STREAMS_GROUP_MEMBER_METADATA = 19,
    KF_GREC_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA = 20,
    KF_GREC_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER = 21,
    KF_GREC_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT = 22,
    KF_GREC_STREAMS_GROUP_TOPOLOGY = 23,
    KF_GREC_STREAMS_GROUP_TARGET_ASSIGNMENT_RESOLVED_TOPIC_IDS = 24,
};

typedef enum kf_group_kind {
    KF_GROUP_NO_KIND = -1,      /* offset commits, unknown types */
    KF_GROUP_CLASSIC = 0,
    KF_GROUP_CONSUMER = 1,
    KF_GROUP_SHARE = 2,
    KF_GROUP_STREAMS = 3,
} kf_group_kind;

/* What a record of a consumer, share or streams group is about, whatever
 * the kind (a classic group has its one group-metadata record). */
typedef enum kf_group_role {
    KF_GROLE_OTHER = 0,
    KF_GROLE_METADATA,           /* the group: its epoch */
    KF_GROLE_PARTITION_METADATA, /* subscribed topics' metadata (names of topic ids) */
    KF_GROLE_MEMBER,             /* a member's metadata */
    KF_GROLE_TARGET_METADATA,    /* the target assignment's epoch */
    KF_GROLE_TARGET_MEMBER,      /* a member's target assignment */
    KF_GROLE_CURRENT_MEMBER,     /* a member's current assignment */
    KF_GROLE_REGULAR_EXPRESSION, /* a consumer group's resolved regular expression */
    KF_GROLE_TOPOLOGY,           /* a streams group's topology */
} kf_group_role;

/* The kind of group a record type belongs to, and its role there. */
kf_group_kind kf_group_kind_of_type(int16_t type);
kf_group_role kf_group_role_of_type(int16_t type);
/* "classic", "consumer", "share", "streams" (NULL for KF_GROUP_NO_KIND). */
const char *kf_group_kind_name(kf_group_kind k);

/* A group record decoded: t and cr as kf_coord_decode fills them, the
 * group id and (member-keyed types) the member id pointing into the key
 * bytes. Returns KF_OK; KF_ERR_CORRUPT (or kf_coord_decode's error) when
 * the record does not decode cleanly or has no group id, KF_ERR_NOMEM; the
 * last error says which. t is reset first and may be reused. */
typedef struct kf_group_key {
    const char *group;
    uint32_t group_len;
    const char *member;         /* NULL when the type has none */
    uint32_t member_len;
} kf_group_key;
int kf_group_record_decode(const kf_group_record *gr, kf_dtree *t, kf_coord_record *cr, kf_group_key *k);

typedef enum kf_group_state { KF_GROUP_EMPTY, KF_GROUP_STABLE, KF_GROUP_DEAD } kf_group_state;

/* Which records the group's description comes from. */
typedef enum kf_group_form {
    KF_GROUP_FROM_METADATA,     /* a classic group: its group-metadata record (metadata) */
    KF_GROUP_FROM_RECORDS,      /* a consumer, share or streams group: its records */
    KF_GROUP_DELETED,           /* a consumer, share or streams group whose metadata was deleted */
    KF_GROUP_BARE,              /* a classic group known only from committed offsets, or deleted */
} kf_group_form;

/* A member of a consumer, share or streams group: its metadata record and
 * its current and target assignment records of the group's kind (NULL:
 * none). */
typedef struct kf_group_member {
    const kf_group_record *metadata, *current, *target;
} kf_group_member;

typedef struct kf_group {
    const char *id;                     /* NUL-terminated */
    kf_group_kind kind;
    kf_group_form form;
    kf_group_state state;
    const kf_group_record *metadata;    /* FROM_METADATA: the group-metadata record in force */
    const kf_group_record *const *records; /* every record of the group, in log order */
    size_t nrecords;
    const kf_group_member *members;     /* FROM_RECORDS: in the order of their metadata records */
    size_t nmembers;
    /* FROM_RECORDS: the epoch of its metadata record and of its target
     * assignment's (-1: no such record decodes) */
    int64_t group_epoch, assignment_epoch;
} kf_group;

typedef struct kf_groups kf_groups;

/* The model of every group in r (after kf_replay_finish; r must outlive
 * it and not be fed more): KF_OK with *g set, or KF_ERR_NOMEM with *g
 * NULL. */
int kf_groups_build(kf_groups **g, kf_replay *r);
void kf_groups_free(kf_groups *g);
/* The groups sorted by id. Valid until kf_groups_free. */
size_t kf_groups_list(const kf_groups *g, const kf_group **out);

/* The topic names a consumer, share or streams group's partition-metadata
 * records tie to topic ids, as a table lying over under (topic_names.h: for
 * the group's members its own records win, then the cluster's names).
 * KF_OK with *out set (free with kf_topic_names_free), or KF_ERR_NOMEM. */
int kf_group_topic_names(const kf_group *g, const kf_topic_names *under, kf_topic_names **out);

#ifdef __cplusplus
}
#endif

#endif
