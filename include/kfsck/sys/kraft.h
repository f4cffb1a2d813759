/* kraft.h: decoding the records of the KRaft metadata partition
 * (__cluster_metadata-0: log, .checkpoint snapshots, bootstrap.checkpoint),
 * of __remote_log_metadata (the same envelope), and the KRaft control
 * records found in any KRaft log.
 * __share_group_state uses the coordinator format: kf_coord_decode with
 * KF_COORD_SHARE (coord.h).
 *
 * A metadata record's value is uvarint frame version (1), uvarint apiKey,
 * uvarint version, then the flexible body, which must use up the value. A
 * control record's value is the flexible body alone, read at version 0. The
 * layouts are described as data in the library's schema tables and read by
 * the one generic decoder (coord.h) into a kf_dtree; secrets (SCRAM salts and
 * keys, delegation-token ids, password-like config values) are marked
 * KF_DNODE_SECRET. */
#ifndef KFSCK_KRAFT_H
#define KFSCK_KRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/sys/coord.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Topics in the KRaft metadata envelope. */
enum { KF_KRAFT_METADATA = 0, KF_KRAFT_REMOTE = 1 };

/* Metadata apiKeys the image builder applies (MetadataRecordType). */
enum {
    KF_MD_REGISTER_BROKER = 0, KF_MD_UNREGISTER_BROKER = 1, KF_MD_TOPIC = 2, KF_MD_PARTITION = 3,
    KF_MD_CONFIG = 4, KF_MD_PARTITION_CHANGE = 5, KF_MD_ACCESS_CONTROL = 6, KF_MD_FENCE_BROKER = 7,
    KF_MD_UNFENCE_BROKER = 8, KF_MD_REMOVE_TOPIC = 9, KF_MD_DELEGATION_TOKEN = 10,
    KF_MD_USER_SCRAM_CREDENTIAL = 11, KF_MD_FEATURE_LEVEL = 12, KF_MD_CLIENT_QUOTA = 14,
    KF_MD_PRODUCER_IDS = 15, KF_MD_REMOVE_FEATURE_LEVEL = 16, KF_MD_BROKER_REGISTRATION_CHANGE = 17,
    KF_MD_ACCESS_CONTROL_ENTRY = 18, KF_MD_REMOVE_ACCESS_CONTROL_ENTRY = 19, KF_MD_NO_OP = 20,
    KF_MD_ZK_MIGRATION_STATE = 21, KF_MD_REMOVE_USER_SCRAM_CREDENTIAL = 22, KF_MD_BEGIN_TRANSACTION = 23,
    KF_MD_END_TRANSACTION = 24, KF_MD_ABORT_TRANSACTION = 25, KF_MD_REMOVE_DELEGATION_TOKEN = 26,
    KF_MD_REGISTER_CONTROLLER = 27, KF_MD_CLEAR_ELR = 28, KF_MD_UNREGISTER_CONTROLLER = 29,
};

typedef struct kf_kraft_record {
    bool control;              /* a KRaft control record */
    int16_t frame_version;     /* metadata envelope; -1 when unread or for control records */
    int16_t api_key;           /* apiKey, or the control type; -1 when unread */
    int16_t version;           /* the record's version (control records: 0); -1 when unread */
    const char *record_type;   /* the schema name without "Record", in snake_case
                                  ("TopicRecord": "topic"), NULL when unknown */
    const char *schema_name;   /* Kafka's schema name, NULL when unknown */
    const char *layout;        /* when another layout of the same version decoded it
                                  (e.g. "FeatureLevelRecord (3.2)"), else NULL */
    bool known;                /* known frame version, type and version */
    bool ok;                   /* decoded cleanly: root holds every field */
    bool key_present;          /* a data record whose key is not null (Kafka never writes one) */
    uint32_t root;             /* struct node of the fields, KF_DNODE_NONE when not decoded */
    uint32_t err_pos;          /* byte position in the value where decoding failed */
    char err[200];             /* what went wrong, "" when fine */
} kf_kraft_record;

/* Decode one record of a KRaft-envelope topic (KF_KRAFT_METADATA or
 * KF_KRAFT_REMOTE) into t (appended: reset it per record). Returns KF_OK;
 * KF_ERR_UNSUPPORTED for an unknown frame version, type or version (not
 * decoded: root is KF_DNODE_NONE); KF_ERR_CORRUPT / KF_ERR_TRUNCATED when
 * the bytes do not follow the layout (a header or length running past the
 * value, trailing bytes, a null value; root keeps what was decoded);
 * KF_ERR_TOO_BIG / KF_ERR_NOMEM from the node arena. An error is the last
 * error too, with out->err's words. */
int kf_kraft_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                    kf_dtree *t, kf_kraft_record *out);

/* Decode a KRaft control record's value (type from its key, kf_control_parse):
 * leader_change, snapshot_header, snapshot_footer, kraft_version,
 * kraft_voters. Returns as kf_kraft_decode; other types (COMMIT/ABORT markers
 * included) are KF_ERR_UNSUPPORTED. Bytes after the body are ignored, as
 * Kafka ignores them. */
int kf_kraft_control_decode(int16_t type, const uint8_t *value, int32_t value_len, kf_dtree *t,
                            kf_kraft_record *out);

/* A config whose value kfsck never prints unless asked: the name ends in
 * "password" or contains "jaas.config" or "secret" (kfsck(1), dump
 * --show-secrets; ASCII case ignored). */
bool kf_config_is_secret(const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif
