/* kraft_fast.h: the KRaft metadata records a replay meets by the million
 * (PartitionChangeRecord, PartitionRecord, TopicRecord, ConfigRecord,
 * BrokerRegistrationChangeRecord, NoOpRecord) in the flat form the image
 * is changed from. kf_kraft_fast reads them straight from a record's bytes,
 * with no tree, for the versions it knows, and declines everything else
 * (other types and versions, damage, lengths past the record), which the
 * generic decoder (kraft.h) then reads; kf_kraft_flat_from_tree turns the
 * generic decoder's tree of the same types into the same form, so the image
 * is changed by one set of rules whichever decoder read the record. The
 * fuzz target fuzz_kraft_fast checks the two decoders agree. Private. */
#ifndef KFSCK_RECORDS_KRAFT_FAST_H
#define KFSCK_RECORDS_KRAFT_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/sys/coord.h"

/* An array of int32s or uuids of a record: n elements, either in the
 * record's bytes (be: n big-endian int32s or n 16-byte uuids one after the
 * other) or in a generic decoder's tree (be NULL; t, first: the first
 * element node, the rest linked by next). Read with kf_kraft_ints_copy /
 * kf_kraft_uuids_copy. */
typedef struct kf_kraft_array {
    bool present;                 /* false: absent from the record, or null */
    uint32_t n;
    const uint8_t *be;
    const kf_dtree *t;
    uint32_t first;
} kf_kraft_array;

/* A string of a record (not NUL-terminated); p NULL for a null string. */
typedef struct kf_kraft_str {
    const uint8_t *p;
    uint32_t len;
} kf_kraft_str;

typedef struct kf_kraft_topic {
    kf_kraft_str name;
    const uint8_t *topic_id;      /* 16 bytes; NULL when the tree lacks it */
} kf_kraft_topic;

/* What PartitionRecord sets and PartitionChangeRecord changes: the id, the
 * leader, the leader recovery state and the lists (int32s; directories:
 * uuids). */
typedef struct kf_kraft_partition_fields {
    int32_t partition_id;         /* -1 when absent */
    const uint8_t *topic_id;      /* NULL when the tree lacks it */
    int32_t leader;               /* absent: -1 (PartitionRecord), -2 no change */
    int8_t leader_recovery_state; /* absent: 0 (PartitionRecord), -1 no change */
    kf_kraft_array replicas, isr, removing_replicas, adding_replicas, elr, last_known_elr, directories;
} kf_kraft_partition_fields;

/* PartitionRecord: every list present but directories (v1+) and the ELRs
 * (v2+). */
typedef struct kf_kraft_partition {
    kf_kraft_partition_fields part;
    int32_t leader_epoch, partition_epoch; /* -1 when absent */
} kf_kraft_partition;

/* PartitionChangeRecord, only what changes: absent or null lists, leader -2
 * and leader_recovery_state -1 leave the partition's value as it is. */
typedef struct kf_kraft_partition_change {
    kf_kraft_partition_fields part;
} kf_kraft_partition_change;

typedef struct kf_kraft_config {
    int8_t resource_type;
    bool has_names;               /* resource_name and name are strings (always, but from a damaged tree) */
    kf_kraft_str resource_name, name;
    bool has_value;               /* value present (a null value deletes the key) */
    kf_kraft_str value;
} kf_kraft_config;

typedef struct kf_kraft_broker_change {
    int32_t broker_id;            /* -1 when absent */
    int64_t broker_epoch;         /* -1 when absent */
    int8_t fenced;                /* 1 fence, -1 unfence, 0 no change */
    int8_t in_controlled_shutdown; /* 1 in controlled shutdown, 0 no change */
    kf_kraft_array log_dirs;      /* empty or absent: no change */
    kf_kraft_array cordoned_log_dirs; /* absent or null: no change */
} kf_kraft_broker_change;

typedef struct kf_kraft_flat {
    int16_t api_key;              /* KF_MD_* of kraft.h */
    int16_t version;
    union {
        kf_kraft_topic topic;
        kf_kraft_partition partition;
        kf_kraft_config config;
        kf_kraft_partition_change partition_change;
        kf_kraft_broker_change broker_change;
    } u;                          /* KF_MD_NO_OP: nothing */
} kf_kraft_flat;

/* True with *out filled when value is a metadata record of a type and
 * version read here and kf_kraft_decode would decode it cleanly (KF_OK) to
 * the same fields; out points into value. False: use kf_kraft_decode. */
bool kf_kraft_fast(const uint8_t *value, int32_t value_len, kf_kraft_flat *out);

/* The same from kf_kraft_decode's tree (root, api_key and version of a
 * record decoded with KF_OK); out points into t. False for the types
 * without a flat form. */
bool kf_kraft_flat_from_tree(const kf_dtree *t, uint32_t root, int16_t api_key, int16_t version, kf_kraft_flat *out);

/* An array node of a tree (NULL, or a null node: not present) as an array
 * of int32s (ints) or uuids. */
void kf_kraft_array_of_node(const kf_dtree *t, const kf_dnode *arr, bool uuids, kf_kraft_array *out);

/* The a->n elements of an array, into out. */
void kf_kraft_ints_copy(const kf_kraft_array *a, int32_t *out);
void kf_kraft_uuids_copy(const kf_kraft_array *a, uint8_t (*out)[16]);

/* The snake_case name of a metadata record type ("partition_change"), NULL
 * when unknown. */
const char *kf_kraft_record_type(int16_t api_key);

#endif
