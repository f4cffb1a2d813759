/* coord.h: decoding the records of Kafka's coordinator topics
 * (__consumer_offsets, __transaction_state, __share_group_state) and of the
 * consumer protocol embedded in classic group metadata; the decoded-tree
 * arena (kf_dtree) that the KRaft decoders (kraft.h) fill too.
 *
 * The record layouts are described once, as data, in the library's own schema
 * tables (of the coordinator topics, the KRaft metadata and
 * __remote_log_metadata); one generic decoder reads Kafka's message encoding
 * (fixed ints, uvarints, classic and compact strings/bytes/arrays, nullable
 * fields, uuids, tagged fields) by walking that table. A decoded record is a
 * small tree of nodes in a caller-owned arena, reused from record to record,
 * so decoding allocates nothing in steady state. Field names are the
 * snake_case of Kafka's schema names (commitTimestamp -> commit_timestamp,
 * GroupId -> group_id). */
#ifndef KFSCK_COORD_H
#define KFSCK_COORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kf_vkind {
    KF_V_NULL = 0, /* a nullable field holding null */
    KF_V_INT,      /* int8/16/32/64, uint16 (in .i) */
    KF_V_FLOAT,    /* float64 (in .f) */
    KF_V_BOOL,     /* in .i (0/1) */
    KF_V_STRING,   /* .p/.len: UTF-8 bytes as stored (not NUL-terminated) */
    KF_V_BYTES,    /* .p/.len */
    KF_V_UUID,     /* .p: 16 bytes */
    KF_V_STRUCT,   /* children are its fields, in schema order */
    KF_V_ARRAY,    /* children are its elements (name NULL) */
} kf_vkind;

typedef struct kf_dnode {
    kf_vkind kind;
    const char *name;      /* snake_case field name; NULL for array elements and roots */
    int64_t i;
    double f;
    const uint8_t *p;      /* points into the record's key/value bytes */
    uint32_t len;
    uint32_t first_child;  /* index of the first child, KF_DNODE_NONE if none */
    uint32_t next;         /* index of the next sibling, KF_DNODE_NONE if last */
    uint32_t n_children;
    uint32_t flags;        /* KF_DNODE_* */
} kf_dnode;

#define KF_DNODE_NONE UINT32_MAX
/* A secret (SCRAM salts and keys, delegation-token ids, password-like
 * config values): printers redact it unless the user asks for secrets. */
#define KF_DNODE_SECRET 1u

/* The arena. Zero-initialise; kf_dtree_reset before each record; free at the
 * end. Node count is capped (max_nodes, default 1<<20) so hostile input
 * cannot allocate without limit. */
typedef struct kf_dtree {
    kf_dnode *nodes;
    uint32_t n, cap;
    uint32_t max_nodes;
} kf_dtree;

void kf_dtree_reset(kf_dtree *t);
void kf_dtree_free(kf_dtree *t);

/* Child of a struct node by field name, or NULL. */
const kf_dnode *kf_dnode_field(const kf_dtree *t, const kf_dnode *st, const char *name);
const kf_dnode *kf_dnode_child(const kf_dtree *t, const kf_dnode *n, uint32_t i); /* i-th child or NULL */

/* Convenience getters: def when the field is missing or of another kind. */
int64_t kf_dnode_int(const kf_dtree *t, const kf_dnode *st, const char *name, int64_t def);

/* Coordinator-format topics: key = int16 type + key struct, value = int16
 * version + body. */
enum { KF_COORD_OFFSETS = 0, KF_COORD_TXN = 1, KF_COORD_SHARE = 2 /* __share_group_state */ };

typedef struct kf_coord_record {
    int16_t key_type;          /* the int16 that starts the key */
    const char *record_type;   /* "offset_commit", "group_metadata", ... NULL if unknown */
    bool known_type;
    bool key_ok;               /* key fully decoded */
    uint32_t key_root;         /* struct node of the key fields (KF_DNODE_NONE if none) */
    bool tombstone;            /* the value is null */
    int16_t value_version;     /* -1 for a tombstone or an unreadable value */
    bool value_ok;             /* value fully decoded with a known version */
    bool value_partial;        /* decoded only in part (short, unknown version, trailing bytes) */
    uint32_t value_root;       /* struct node of the value fields (KF_DNODE_NONE if none) */
    const char *value_layout;  /* the schema that decoded the value when it is
                                  another layout of the same version (e.g.
                                  "ShareSnapshotValue (4.0)"), else NULL */
    uint32_t err_pos;          /* byte position in the key or value where decoding failed */
    bool err_in_key;
    char err[160];             /* why decoding failed or was partial, "" when fine */
} kf_coord_record;

/* Decode one record of a coordinator topic (KF_COORD_OFFSETS,
 * KF_COORD_TXN or KF_COORD_SHARE). key/value may be NULL (len -1 = null). For group metadata
 * of protocol type "consumer", members' subscription and assignment bytes are
 * decoded too (fields "subscription" and "assignment" become structs; the
 * raw bytes stay available as "subscription_bytes"/"assignment_bytes").
 * Returns KF_OK when key and value decoded cleanly, KF_ERR_UNSUPPORTED for an
 * unknown record type or value version, KF_ERR_CORRUPT/KF_ERR_TRUNCATED for
 * malformed bytes (out->err says what, out->err_pos where), KF_ERR_NOMEM;
 * an error is the last error too, with out->err's words. In every case out
 * holds what could be decoded. */
int kf_coord_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                    kf_dtree *t, kf_coord_record *out);

/* The problem a __consumer_offsets or __transaction_state record is when
 * kf_coord_decode did not decode it cleanly (rc and out as it returned them),
 * as the group coordinator's loader sees it: a record type it does not know
 * is KF_P_UNKNOWN_RECORD_TYPE (a warning: the loader skips it, "left over
 * from an aborted upgrade"); malformed bytes are KF_P_BAD_RECORD (an error);
 * anything else (an unknown value version, a record too big to decode) is
 * KF_P_UNDECODED_RECORD (a warning). Sets *sev. */
const char *kf_coord_problem_code(int rc, const kf_coord_record *cr, kf_severity *sev);

/* Consumer protocol bytes (ConsumerProtocolSubscription / Assignment,
 * int16 version then a non-flexible struct; versions above 3 read as 3).
 * Appends a struct node and sets *root. Fields: subscription {version,
 * topics, user_data, owned_partitions [{topic, partitions}], generation_id,
 * rack_id}; assignment {version, assigned_partitions [{topic, partitions}],
 * user_data}. KF_OK, or a kf_err with the last error set. */
int kf_consumer_subscription_decode(const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root);
int kf_consumer_assignment_decode(const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root);

/* Java String.hashCode of a UTF-8 string (over UTF-16 code units) and the
 * partition Kafka's coordinator uses: Utils.abs(hash) % partitions. */
int32_t kf_java_string_hash(const uint8_t *utf8, size_t n);
int32_t kf_coordinator_partition(const uint8_t *utf8, size_t n, int32_t partitions);

#ifdef __cplusplus
}
#endif

#endif
