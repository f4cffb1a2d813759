/* kraft_schema.c: the schema tables of the KRaft metadata partition
 * (__cluster_metadata-0 log, .checkpoint snapshots, bootstrap files): every
 * metadata record type (apiKeys 0-29) at every version, and the KRaft
 * control records (leader change, snapshot header/footer, kraft version,
 * voters), described as data for the generic decoder of coord_decode.c.
 *
 * Written from Kafka's metadata message schemas (docs/formats.md §14.2-§14.3)
 * (trunk 2026-08 through the 3.x branches for the removed and older
 * layouts). Every metadata schema is flexible from version 0. Older layouts
 * of the same apiKey and version that Kafka changed without a version bump
 * (FeatureLevelRecord before 3.3; the never-written pre-release
 * UserScramCredentialRecord and DelegationTokenRecord) are alternatives the
 * decoder tries when the current layout does not decode cleanly. Fields
 * holding secrets (SCRAM salts and keys, delegation-token ids) carry
 * CS_F_SECRET. Field names are the snake_case of Kafka's field names
 * (docs/formats.md §1.2). */
#include "records/cs_macros.h"

/* A tagged field present from version tlo on, not nullable, default d. */
#define TP(n, k, tag, tlo, d) TG(n, k, 0, NULL, tag, tlo, 1, 0, d)
/* A tagged array present from tlo on, not nullable. */
#define TA(n, e, tag, tlo) TG(n, CS_ARRAY, e, NULL, tag, tlo, 1, 0, 0)
/* A tagged nullable string present from version 0 on (default null). */
#define TSTRN(n, tag) TG(n, CS_STRING, 0, NULL, tag, 0, 0, X, 0)
/* A struct with no fields (NoOpRecord, EndTransactionRecord, ...). */
#define EMPTY(id, nm) static const cs_struct id = { nm, NULL, 0 }

/* ---- shared structs -------------------------------------------------------- */

/* RegisterBrokerRecord BrokerEndpoint, RegisterControllerRecord ControllerEndpoint */
static const cs_field s_endpoint_f[] = {
    P("name", CS_STRING, 0, X),
    P("host", CS_STRING, 0, X),
    P("port", CS_UINT16, 0, X),
    P("security_protocol", CS_INT16, 0, X),
};
STRUCT(s_endpoint, "BrokerEndpoint");

/* BrokerFeature / ControllerFeature */
static const cs_field s_feature_f[] = {
    P("name", CS_STRING, 0, X),
    P("min_supported_version", CS_INT16, 0, X),
    P("max_supported_version", CS_INT16, 0, X),
};
STRUCT(s_feature, "BrokerFeature");

/* ---- 0 RegisterBrokerRecord (v0-4) ----------------------------------------- */

static const cs_field r_register_broker_f[] = {
    P("broker_id", CS_INT32, 0, X),
    PD("is_migrating_zk_broker", CS_BOOL, 2, X, 0), /* v2+: second, before IncarnationId */
    P("incarnation_id", CS_UUID, 0, X),
    P("broker_epoch", CS_INT64, 0, X),
    AS("end_points", s_endpoint, 0, X),
    AS("features", s_feature, 0, X),
    PN("rack", CS_STRING, 0, X, 0, X),
    PD("fenced", CS_BOOL, 0, X, 1),
    PD("in_controlled_shutdown", CS_BOOL, 1, X, 0),
    TA("log_dirs", CS_UUID, 0, 3),
    TAN("cordoned_log_dirs", CS_UUID, 1, 4),
};
STRUCT(r_register_broker, "RegisterBrokerRecord");
MSG(m_register_broker, "RegisterBrokerRecord", r_register_broker, 0, 4, 0);

/* ---- 1 UnregisterBrokerRecord ---------------------------------------------- */

static const cs_field r_unregister_broker_f[] = {
    P("broker_id", CS_INT32, 0, X),
    P("broker_epoch", CS_INT64, 0, X),
};
STRUCT(r_unregister_broker, "UnregisterBrokerRecord");
MSG(m_unregister_broker, "UnregisterBrokerRecord", r_unregister_broker, 0, 0, 0);

/* ---- 2 TopicRecord --------------------------------------------------------- */

static const cs_field r_topic_f[] = {
    P("name", CS_STRING, 0, X),
    P("topic_id", CS_UUID, 0, X),
};
STRUCT(r_topic, "TopicRecord");
MSG(m_topic, "TopicRecord", r_topic, 0, 0, 0);

/* ---- 3 PartitionRecord (v0-2) ---------------------------------------------- */

static const cs_field r_partition_f[] = {
    PD("partition_id", CS_INT32, 0, X, -1),
    P("topic_id", CS_UUID, 0, X),
    A("replicas", CS_INT32, 0, X),
    A("isr", CS_INT32, 0, X),
    A("removing_replicas", CS_INT32, 0, X),
    A("adding_replicas", CS_INT32, 0, X),
    PD("leader", CS_INT32, 0, X, -1),
    TP("leader_recovery_state", CS_INT8, 0, 0, 0), /* declared here, but tagged */
    PD("leader_epoch", CS_INT32, 0, X, -1),
    PD("partition_epoch", CS_INT32, 0, X, -1),
    A("directories", CS_UUID, 1, X),
    TAN("eligible_leader_replicas", CS_INT32, 1, 2),
    TAN("last_known_elr", CS_INT32, 2, 2),
};
STRUCT(r_partition, "PartitionRecord");
MSG(m_partition, "PartitionRecord", r_partition, 0, 2, 0);

/* ---- 4 ConfigRecord -------------------------------------------------------- */

static const cs_field r_config_f[] = {
    P("resource_type", CS_INT8, 0, X),
    P("resource_name", CS_STRING, 0, X),
    P("name", CS_STRING, 0, X),
    PN("value", CS_STRING, 0, X, 0, X), /* secret when the name looks like one (kraft_decode.c) */
};
STRUCT(r_config, "ConfigRecord");
MSG(m_config, "ConfigRecord", r_config, 0, 0, 0);

/* ---- 5 PartitionChangeRecord (v0-2): only what changes ---------------------- */

static const cs_field r_partition_change_f[] = {
    PD("partition_id", CS_INT32, 0, X, -1),
    P("topic_id", CS_UUID, 0, X),
    TAN("isr", CS_INT32, 0, 0),
    TP("leader", CS_INT32, 1, 0, -2),
    TAN("replicas", CS_INT32, 2, 0),
    TAN("removing_replicas", CS_INT32, 3, 0),
    TAN("adding_replicas", CS_INT32, 4, 0),
    TP("leader_recovery_state", CS_INT8, 5, 0, -1),
    TAN("directories", CS_UUID, 8, 1), /* tag 8, declared before tags 6 and 7 */
    TAN("eligible_leader_replicas", CS_INT32, 6, 2),
    TAN("last_known_elr", CS_INT32, 7, 2),
};
STRUCT(r_partition_change, "PartitionChangeRecord");
MSG(m_partition_change, "PartitionChangeRecord", r_partition_change, 0, 2, 0);

/* ---- 6 AccessControlRecord (2.8-3.4 schema, never written) ----------------- */

static const cs_field r_access_control_f[] = {
    P("resource_type", CS_INT8, 0, X),
    PN("resource_name", CS_STRING, 0, X, 0, X),
    P("pattern_type", CS_INT8, 0, X),
    P("principal", CS_STRING, 0, X),
    P("host", CS_STRING, 0, X),
    P("operation", CS_INT8, 0, X),
    P("permission_type", CS_INT8, 0, X),
};
STRUCT(r_access_control, "AccessControlRecord");
MSG(m_access_control, "AccessControlRecord", r_access_control, 0, 0, 0);

/* ---- 7 FenceBrokerRecord / 8 UnfenceBrokerRecord ----------------------------- */

static const cs_field r_fence_f[] = {
    P("id", CS_INT32, 0, X),
    P("epoch", CS_INT64, 0, X),
};
STRUCT(r_fence, "FenceBrokerRecord");
MSG(m_fence_broker, "FenceBrokerRecord", r_fence, 0, 0, 0);
MSG(m_unfence_broker, "UnfenceBrokerRecord", r_fence, 0, 0, 0);

/* ---- 9 RemoveTopicRecord ----------------------------------------------------- */

static const cs_field r_remove_topic_f[] = {
    P("topic_id", CS_UUID, 0, X),
};
STRUCT(r_remove_topic, "RemoveTopicRecord");
MSG(m_remove_topic, "RemoveTopicRecord", r_remove_topic, 0, 0, 0);

/* ---- 10 DelegationTokenRecord ------------------------------------------------ */

static const cs_field r_delegation_token_f[] = {
    P("owner", CS_STRING, 0, X),
    P("requester", CS_STRING, 0, X),
    A("renewers", CS_STRING, 0, X),
    P("issue_timestamp", CS_INT64, 0, X),
    P("max_timestamp", CS_INT64, 0, X),
    P("expiration_timestamp", CS_INT64, 0, X),
    PSEC("token_id", CS_STRING, 0, X),
};
STRUCT(r_delegation_token, "DelegationTokenRecord");
MSG(m_delegation_token, "DelegationTokenRecord", r_delegation_token, 0, 0, 0);

/* <= 3.5 schema (no Requester), never written: tokens need MV 3.6-IV2 */
static const cs_field r_delegation_token_35_f[] = {
    P("owner", CS_STRING, 0, X),
    A("renewers", CS_STRING, 0, X),
    P("issue_timestamp", CS_INT64, 0, X),
    P("max_timestamp", CS_INT64, 0, X),
    P("expiration_timestamp", CS_INT64, 0, X),
    PSEC("token_id", CS_STRING, 0, X),
};
STRUCT(r_delegation_token_35, "DelegationTokenRecord");
MSG(m_delegation_token_35, "DelegationTokenRecord (3.5)", r_delegation_token_35, 0, 0, 0);

/* ---- 11 UserScramCredentialRecord -------------------------------------------- */

static const cs_field r_scram_f[] = {
    P("name", CS_STRING, 0, X),
    P("mechanism", CS_INT8, 0, X),
    PSEC("salt", CS_BYTES, 0, X),
    PSEC("stored_key", CS_BYTES, 0, X),
    PSEC("server_key", CS_BYTES, 0, X),
    P("iterations", CS_INT32, 0, X),
};
STRUCT(r_scram, "UserScramCredentialRecord");
MSG(m_scram, "UserScramCredentialRecord", r_scram, 0, 0, 0);

/* <= 3.4 schema, never written: SCRAM records need MV 3.5-IV2 */
static const cs_field s_credential_info_f[] = {
    P("mechanism", CS_INT8, 0, X),
    PSEC("salt", CS_BYTES, 0, X),
    PSEC("salted_password", CS_BYTES, 0, X),
    P("iterations", CS_INT32, 0, X),
};
STRUCT(s_credential_info, "CredentialInfo");
static const cs_field r_scram_34_f[] = {
    P("name", CS_STRING, 0, X),
    AS("credential_infos", s_credential_info, 0, X),
};
STRUCT(r_scram_34, "UserScramCredentialRecord");
MSG(m_scram_34, "UserScramCredentialRecord (3.4)", r_scram_34, 0, 0, 0);

/* ---- 12 FeatureLevelRecord (version frozen at 0) ----------------------------- */

static const cs_field r_feature_level_f[] = {
    P("name", CS_STRING, 0, X),
    P("feature_level", CS_INT16, 0, X),
};
STRUCT(r_feature_level, "FeatureLevelRecord");
MSG(m_feature_level, "FeatureLevelRecord", r_feature_level, 0, 0, 0);

/* 3.0-3.2 layout, same apiKey and version */
static const cs_field r_feature_level_32_f[] = {
    P("name", CS_STRING, 0, X),
    P("min_feature_level", CS_INT16, 0, X),
    P("max_feature_level", CS_INT16, 0, X),
};
STRUCT(r_feature_level_32, "FeatureLevelRecord");
MSG(m_feature_level_32, "FeatureLevelRecord (3.2)", r_feature_level_32, 0, 0, 0);

/* ---- 14 ClientQuotaRecord ---------------------------------------------------- */

static const cs_field s_entity_f[] = {
    P("entity_type", CS_STRING, 0, X),
    PN("entity_name", CS_STRING, 0, X, 0, X),
};
STRUCT(s_entity, "EntityData");
static const cs_field r_client_quota_f[] = {
    AS("entity", s_entity, 0, X),
    P("key", CS_STRING, 0, X),
    P("value", CS_FLOAT64, 0, X),
    P("remove", CS_BOOL, 0, X),
};
STRUCT(r_client_quota, "ClientQuotaRecord");
MSG(m_client_quota, "ClientQuotaRecord", r_client_quota, 0, 0, 0);

/* ---- 15 ProducerIdsRecord (3.0/3.1 named the third field ProducerIdsEnd) ----- */

static const cs_field r_producer_ids_f[] = {
    P("broker_id", CS_INT32, 0, X),
    PD("broker_epoch", CS_INT64, 0, X, -1),
    P("next_producer_id", CS_INT64, 0, X),
};
STRUCT(r_producer_ids, "ProducerIdsRecord");
MSG(m_producer_ids, "ProducerIdsRecord", r_producer_ids, 0, 0, 0);

/* ---- 16 RemoveFeatureLevelRecord (3.0-3.2 schema, never written) ------------- */

static const cs_field r_remove_feature_level_f[] = {
    P("name", CS_STRING, 0, X),
};
STRUCT(r_remove_feature_level, "RemoveFeatureLevelRecord");
MSG(m_remove_feature_level, "RemoveFeatureLevelRecord", r_remove_feature_level, 0, 0, 0);

/* ---- 17 BrokerRegistrationChangeRecord (v0-3) -------------------------------- */

static const cs_field r_brc_f[] = {
    P("broker_id", CS_INT32, 0, X),
    P("broker_epoch", CS_INT64, 0, X),
    TP("fenced", CS_INT8, 0, 0, 0),                 /* 1 fence, -1 unfence, 0 no change */
    TP("in_controlled_shutdown", CS_INT8, 1, 1, 0), /* 1 in controlled shutdown, 0 no change */
    TA("log_dirs", CS_UUID, 2, 2),                  /* empty = no change */
    TAN("cordoned_log_dirs", CS_UUID, 3, 3),        /* null = no change */
};
STRUCT(r_brc, "BrokerRegistrationChangeRecord");
MSG(m_brc, "BrokerRegistrationChangeRecord", r_brc, 0, 3, 0);

/* ---- 18 AccessControlEntryRecord / 19 RemoveAccessControlEntryRecord --------- */

static const cs_field r_acl_f[] = {
    P("id", CS_UUID, 0, X),
    P("resource_type", CS_INT8, 0, X),
    P("resource_name", CS_STRING, 0, X),
    P("pattern_type", CS_INT8, 0, X),
    P("principal", CS_STRING, 0, X),
    P("host", CS_STRING, 0, X),
    P("operation", CS_INT8, 0, X),
    P("permission_type", CS_INT8, 0, X),
};
STRUCT(r_acl, "AccessControlEntryRecord");
MSG(m_acl, "AccessControlEntryRecord", r_acl, 0, 0, 0);

static const cs_field r_remove_acl_f[] = {
    P("id", CS_UUID, 0, X),
};
STRUCT(r_remove_acl, "RemoveAccessControlEntryRecord");
MSG(m_remove_acl, "RemoveAccessControlEntryRecord", r_remove_acl, 0, 0, 0);

/* ---- 20 NoOpRecord, 24 EndTransactionRecord: no fields ----------------------- */

EMPTY(r_no_op, "NoOpRecord");
MSG(m_no_op, "NoOpRecord", r_no_op, 0, 0, 0);
EMPTY(r_end_txn, "EndTransactionRecord");
MSG(m_end_txn, "EndTransactionRecord", r_end_txn, 0, 0, 0);

/* ---- 21 ZkMigrationStateRecord (file ZkMigrationRecord.json) ----------------- */

static const cs_field r_zk_migration_f[] = {
    P("zk_migration_state", CS_INT8, 0, X),
};
STRUCT(r_zk_migration, "ZkMigrationStateRecord");
MSG(m_zk_migration, "ZkMigrationStateRecord", r_zk_migration, 0, 0, 0);

/* ---- 22 RemoveUserScramCredentialRecord -------------------------------------- */

static const cs_field r_remove_scram_f[] = {
    P("name", CS_STRING, 0, X),
    P("mechanism", CS_INT8, 0, X),
};
STRUCT(r_remove_scram, "RemoveUserScramCredentialRecord");
MSG(m_remove_scram, "RemoveUserScramCredentialRecord", r_remove_scram, 0, 0, 0);

/* ---- 23 BeginTransactionRecord / 25 AbortTransactionRecord ------------------- */

static const cs_field r_begin_txn_f[] = {
    TSTRN("name", 0),
};
STRUCT(r_begin_txn, "BeginTransactionRecord");
MSG(m_begin_txn, "BeginTransactionRecord", r_begin_txn, 0, 0, 0);

static const cs_field r_abort_txn_f[] = {
    TSTRN("reason", 0),
};
STRUCT(r_abort_txn, "AbortTransactionRecord");
MSG(m_abort_txn, "AbortTransactionRecord", r_abort_txn, 0, 0, 0);

/* ---- 26 RemoveDelegationTokenRecord ------------------------------------------ */

static const cs_field r_remove_token_f[] = {
    PSEC("token_id", CS_STRING, 0, X),
};
STRUCT(r_remove_token, "RemoveDelegationTokenRecord");
MSG(m_remove_token, "RemoveDelegationTokenRecord", r_remove_token, 0, 0, 0);

/* ---- 27 RegisterControllerRecord ---------------------------------------------- */

static const cs_field r_register_controller_f[] = {
    P("controller_id", CS_INT32, 0, X),
    P("incarnation_id", CS_UUID, 0, X),
    P("zk_migration_ready", CS_BOOL, 0, X),
    AS("end_points", s_endpoint, 0, X),
    AS("features", s_feature, 0, X),
};
STRUCT(r_register_controller, "RegisterControllerRecord");
MSG(m_register_controller, "RegisterControllerRecord", r_register_controller, 0, 0, 0);

/* ---- 28 ClearElrRecord / 29 UnregisterControllerRecord ------------------------ */

static const cs_field r_clear_elr_f[] = {
    P("topic_name", CS_STRING, 0, X),
};
STRUCT(r_clear_elr, "ClearElrRecord");
MSG(m_clear_elr, "ClearElrRecord", r_clear_elr, 0, 0, 0);

static const cs_field r_unregister_controller_f[] = {
    P("controller_id", CS_INT32, 0, X),
};
STRUCT(r_unregister_controller, "UnregisterControllerRecord");
MSG(m_unregister_controller, "UnregisterControllerRecord", r_unregister_controller, 0, 0, 0);

/* ---- the metadata record types -------------------------------------------------- */

static const cs_message *const alt_delegation_token[] = { &m_delegation_token_35 };
static const cs_message *const alt_scram[] = { &m_scram_34 };
static const cs_message *const alt_feature_level[] = { &m_feature_level_32 };

#define MREC(key, nm, m) { key, nm, NULL, &m, NULL, NULL, 0, 0 }
#define MREC_ALT(key, nm, m, alts) { key, nm, NULL, &m, NULL, alts, (uint8_t)(sizeof alts / sizeof alts[0]), 0 }

static const cs_record metadata_records[] = {
    MREC(0, "register_broker", m_register_broker),
    MREC(1, "unregister_broker", m_unregister_broker),
    MREC(2, "topic", m_topic),
    MREC(3, "partition", m_partition),
    MREC(4, "config", m_config),
    MREC(5, "partition_change", m_partition_change),
    MREC(6, "access_control", m_access_control),
    MREC(7, "fence_broker", m_fence_broker),
    MREC(8, "unfence_broker", m_unfence_broker),
    MREC(9, "remove_topic", m_remove_topic),
    MREC_ALT(10, "delegation_token", m_delegation_token, alt_delegation_token),
    MREC_ALT(11, "user_scram_credential", m_scram, alt_scram),
    MREC_ALT(12, "feature_level", m_feature_level, alt_feature_level),
    MREC(14, "client_quota", m_client_quota),
    MREC(15, "producer_ids", m_producer_ids),
    MREC(16, "remove_feature_level", m_remove_feature_level),
    MREC(17, "broker_registration_change", m_brc),
    MREC(18, "access_control_entry", m_acl),
    MREC(19, "remove_access_control_entry", m_remove_acl),
    MREC(20, "no_op", m_no_op),
    MREC(21, "zk_migration_state", m_zk_migration),
    MREC(22, "remove_user_scram_credential", m_remove_scram),
    MREC(23, "begin_transaction", m_begin_txn),
    MREC(24, "end_transaction", m_end_txn),
    MREC(25, "abort_transaction", m_abort_txn),
    MREC(26, "remove_delegation_token", m_remove_token),
    MREC(27, "register_controller", m_register_controller),
    MREC(28, "clear_elr", m_clear_elr),
    MREC(29, "unregister_controller", m_unregister_controller),
};

const cs_record *kf_cs_metadata_records(uint32_t *n)
{
    *n = (uint32_t)(sizeof metadata_records / sizeof metadata_records[0]);
    return metadata_records;
}

/* ---- KRaft control records (value: flexible body, no version prefix, read at
 * version 0; docs/formats.md §14.3) ------------------------------------------ */

static const cs_field s_voter_f[] = {
    P("voter_id", CS_INT32, 0, X),
    P("voter_directory_id", CS_UUID, 1, X), /* v1 only: never on disk */
};
STRUCT(s_voter, "Voter");
static const cs_field c_leader_change_f[] = {
    P("version", CS_INT16, 0, X),
    P("leader_id", CS_INT32, 0, X),
    AS("voters", s_voter, 0, X),
    AS("granting_voters", s_voter, 0, X),
};
STRUCT(c_leader_change, "LeaderChangeMessage");
MSG(m_leader_change, "LeaderChangeMessage", c_leader_change, 0, 1, 0);

static const cs_field c_snapshot_header_f[] = {
    P("version", CS_INT16, 0, X),
    P("last_contained_log_timestamp", CS_INT64, 0, X),
};
STRUCT(c_snapshot_header, "SnapshotHeaderRecord");
MSG(m_snapshot_header, "SnapshotHeaderRecord", c_snapshot_header, 0, 0, 0);

static const cs_field c_snapshot_footer_f[] = {
    P("version", CS_INT16, 0, X),
};
STRUCT(c_snapshot_footer, "SnapshotFooterRecord");
MSG(m_snapshot_footer, "SnapshotFooterRecord", c_snapshot_footer, 0, 0, 0);

static const cs_field c_kraft_version_f[] = {
    P("version", CS_INT16, 0, X),
    P("kraft_version", CS_INT16, 0, X),
};
STRUCT(c_kraft_version, "KRaftVersionRecord");
MSG(m_kraft_version, "KRaftVersionRecord", c_kraft_version, 0, 0, 0);

static const cs_field s_voter_endpoint_f[] = {
    P("name", CS_STRING, 0, X),
    P("host", CS_STRING, 0, X),
    P("port", CS_UINT16, 0, X),
};
STRUCT(s_voter_endpoint, "Endpoint");
static const cs_field s_kraft_feature_f[] = {
    P("min_supported_version", CS_INT16, 0, X),
    P("max_supported_version", CS_INT16, 0, X),
};
STRUCT(s_kraft_feature, "KRaftVersionFeature");
static const cs_field s_voters_voter_f[] = {
    P("voter_id", CS_INT32, 0, X),
    P("voter_directory_id", CS_UUID, 0, X),
    AS("endpoints", s_voter_endpoint, 0, X),
    FLD("kraft_version_feature", CS_STRUCT, 0, &s_kraft_feature, 0, X, 1, 0, 0), /* inline struct */
};
STRUCT(s_voters_voter, "Voter");
static const cs_field c_voters_f[] = {
    P("version", CS_INT16, 0, X),
    AS("voters", s_voters_voter, 0, X),
};
STRUCT(c_voters, "VotersRecord");
MSG(m_voters, "VotersRecord", c_voters, 0, 0, 0);

static const cs_record control_records[] = {
    MREC(2, "leader_change", m_leader_change),
    MREC(3, "snapshot_header", m_snapshot_header),
    MREC(4, "snapshot_footer", m_snapshot_footer),
    MREC(5, "kraft_version", m_kraft_version),
    MREC(6, "kraft_voters", m_voters),
};

const cs_record *kf_cs_control_records(uint32_t *n)
{
    *n = (uint32_t)(sizeof control_records / sizeof control_records[0]);
    return control_records;
}
