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
 * CS_F_SECRET (a '!' in the field notation of cs_parse_fields,
 * coord_internal.h). Field names are the snake_case of Kafka's field names
 * (docs/formats.md §1.2). */
#include "records/cs_macros.h"

/* ---- shared structs -------------------------------------------------------- */

/* RegisterBrokerRecord BrokerEndpoint, RegisterControllerRecord ControllerEndpoint */
STRUCT(s_endpoint, "BrokerEndpoint", "name:string host:string port:uint16 security_protocol:int16");

/* BrokerFeature / ControllerFeature */
STRUCT(s_feature, "BrokerFeature", "name:string min_supported_version:int16 max_supported_version:int16");

/* ---- 0 RegisterBrokerRecord (v0-4) ----------------------------------------- */

/* is_migrating_zk_broker (v2+) comes second, before incarnation_id. */
MESSAGE(m_register_broker, "RegisterBrokerRecord", 0, 4, 0,
        "broker_id:int32 is_migrating_zk_broker:bool@2+ incarnation_id:uuid broker_epoch:int64 "
        "end_points:[BrokerEndpoint] features:[BrokerFeature] rack:string? fenced:bool=1 "
        "in_controlled_shutdown:bool@1+ log_dirs:[uuid]@3+#0 cordoned_log_dirs:[uuid]?@4+#1", &s_endpoint, &s_feature);

/* ---- 1 UnregisterBrokerRecord ---------------------------------------------- */

MESSAGE(m_unregister_broker, "UnregisterBrokerRecord", 0, 0, 0, "broker_id:int32 broker_epoch:int64");

/* ---- 2 TopicRecord --------------------------------------------------------- */

MESSAGE(m_topic, "TopicRecord", 0, 0, 0, "name:string topic_id:uuid");

/* ---- 3 PartitionRecord (v0-2) ---------------------------------------------- */

/* leader_recovery_state: declared here, but tagged. */
MESSAGE(m_partition, "PartitionRecord", 0, 2, 0,
        "partition_id:int32=-1 topic_id:uuid replicas:[int32] isr:[int32] removing_replicas:[int32] "
        "adding_replicas:[int32] leader:int32=-1 leader_recovery_state:int8#0 leader_epoch:int32=-1 "
        "partition_epoch:int32=-1 directories:[uuid]@1+ eligible_leader_replicas:[int32]?@2+#1 "
        "last_known_elr:[int32]?@2+#2");

/* ---- 4 ConfigRecord -------------------------------------------------------- */

/* value: a secret when the name looks like one (kraft_decode.c). */
MESSAGE(m_config, "ConfigRecord", 0, 0, 0, "resource_type:int8 resource_name:string name:string value:string?");

/* ---- 5 PartitionChangeRecord (v0-2): only what changes ---------------------- */

/* directories: tag 8, declared before tags 6 and 7. */
MESSAGE(m_partition_change, "PartitionChangeRecord", 0, 2, 0,
        "partition_id:int32=-1 topic_id:uuid isr:[int32]?#0 leader:int32#1=-2 replicas:[int32]?#2 "
        "removing_replicas:[int32]?#3 adding_replicas:[int32]?#4 leader_recovery_state:int8#5=-1 "
        "directories:[uuid]?@1+#8 eligible_leader_replicas:[int32]?@2+#6 last_known_elr:[int32]?@2+#7");

/* ---- 6 AccessControlRecord (2.8-3.4 schema, never written) ----------------- */

MESSAGE(m_access_control, "AccessControlRecord", 0, 0, 0,
        "resource_type:int8 resource_name:string? pattern_type:int8 principal:string host:string "
        "operation:int8 permission_type:int8");

/* ---- 7 FenceBrokerRecord / 8 UnfenceBrokerRecord ----------------------------- */

STRUCT(r_fence, "FenceBrokerRecord", "id:int32 epoch:int64");
MSG(m_fence_broker, "FenceBrokerRecord", r_fence, 0, 0, 0);
MSG(m_unfence_broker, "UnfenceBrokerRecord", r_fence, 0, 0, 0);

/* ---- 9 RemoveTopicRecord ----------------------------------------------------- */

MESSAGE(m_remove_topic, "RemoveTopicRecord", 0, 0, 0, "topic_id:uuid");

/* ---- 10 DelegationTokenRecord ------------------------------------------------ */

MESSAGE(m_delegation_token, "DelegationTokenRecord", 0, 0, 0,
        "owner:string requester:string renewers:[string] issue_timestamp:int64 max_timestamp:int64 "
        "expiration_timestamp:int64 token_id:string!");

/* <= 3.5 schema (no Requester), never written: tokens need MV 3.6-IV2 */
MESSAGE(m_delegation_token_35, "DelegationTokenRecord (3.5)", 0, 0, 0,
        "owner:string renewers:[string] issue_timestamp:int64 max_timestamp:int64 expiration_timestamp:int64 "
        "token_id:string!");

/* ---- 11 UserScramCredentialRecord -------------------------------------------- */

MESSAGE(m_scram, "UserScramCredentialRecord", 0, 0, 0,
        "name:string mechanism:int8 salt:bytes! stored_key:bytes! server_key:bytes! iterations:int32");

/* <= 3.4 schema, never written: SCRAM records need MV 3.5-IV2 */
STRUCT(s_credential_info, "CredentialInfo", "mechanism:int8 salt:bytes! salted_password:bytes! iterations:int32");
MESSAGE(m_scram_34, "UserScramCredentialRecord (3.4)", 0, 0, 0,
        "name:string credential_infos:[CredentialInfo]", &s_credential_info);

/* ---- 12 FeatureLevelRecord (version frozen at 0) ----------------------------- */

MESSAGE(m_feature_level, "FeatureLevelRecord", 0, 0, 0, "name:string feature_level:int16");

/* 3.0-3.2 layout, same apiKey and version */
MESSAGE(m_feature_level_32, "FeatureLevelRecord (3.2)", 0, 0, 0,
        "name:string min_feature_level:int16 max_feature_level:int16");

/* ---- 14 ClientQuotaRecord ---------------------------------------------------- */

STRUCT(s_entity, "EntityData", "entity_type:string entity_name:string?");
MESSAGE(m_client_quota, "ClientQuotaRecord", 0, 0, 0,
        "entity:[EntityData] key:string value:float64 remove:bool", &s_entity);

/* ---- 15 ProducerIdsRecord (3.0/3.1 named the third field ProducerIdsEnd) ----- */

MESSAGE(m_producer_ids, "ProducerIdsRecord", 0, 0, 0, "broker_id:int32 broker_epoch:int64=-1 next_producer_id:int64");

/* ---- 16 RemoveFeatureLevelRecord (3.0-3.2 schema, never written) ------------- */

MESSAGE(m_remove_feature_level, "RemoveFeatureLevelRecord", 0, 0, 0, "name:string");

/* ---- 17 BrokerRegistrationChangeRecord (v0-3) -------------------------------- */

/* fenced: 1 fence, -1 unfence, 0 no change; in_controlled_shutdown: 1 in
 * controlled shutdown, 0 no change; log_dirs: empty = no change;
 * cordoned_log_dirs: null = no change. */
MESSAGE(m_brc, "BrokerRegistrationChangeRecord", 0, 3, 0,
        "broker_id:int32 broker_epoch:int64 fenced:int8#0 in_controlled_shutdown:int8@1+#1 "
        "log_dirs:[uuid]@2+#2 cordoned_log_dirs:[uuid]?@3+#3");

/* ---- 18 AccessControlEntryRecord / 19 RemoveAccessControlEntryRecord --------- */

MESSAGE(m_acl, "AccessControlEntryRecord", 0, 0, 0,
        "id:uuid resource_type:int8 resource_name:string pattern_type:int8 principal:string host:string "
        "operation:int8 permission_type:int8");

MESSAGE(m_remove_acl, "RemoveAccessControlEntryRecord", 0, 0, 0, "id:uuid");

/* ---- 20 NoOpRecord, 24 EndTransactionRecord: no fields ----------------------- */

MESSAGE(m_no_op, "NoOpRecord", 0, 0, 0, "");
MESSAGE(m_end_txn, "EndTransactionRecord", 0, 0, 0, "");

/* ---- 21 ZkMigrationStateRecord (file ZkMigrationRecord.json) ----------------- */

MESSAGE(m_zk_migration, "ZkMigrationStateRecord", 0, 0, 0, "zk_migration_state:int8");

/* ---- 22 RemoveUserScramCredentialRecord -------------------------------------- */

MESSAGE(m_remove_scram, "RemoveUserScramCredentialRecord", 0, 0, 0, "name:string mechanism:int8");

/* ---- 23 BeginTransactionRecord / 25 AbortTransactionRecord ------------------- */

MESSAGE(m_begin_txn, "BeginTransactionRecord", 0, 0, 0, "name:string?#0");

MESSAGE(m_abort_txn, "AbortTransactionRecord", 0, 0, 0, "reason:string?#0");

/* ---- 26 RemoveDelegationTokenRecord ------------------------------------------ */

MESSAGE(m_remove_token, "RemoveDelegationTokenRecord", 0, 0, 0, "token_id:string!");

/* ---- 27 RegisterControllerRecord ---------------------------------------------- */

MESSAGE(m_register_controller, "RegisterControllerRecord", 0, 0, 0,
        "controller_id:int32 incarnation_id:uuid zk_migration_ready:bool end_points:[BrokerEndpoint] "
        "features:[BrokerFeature]", &s_endpoint, &s_feature);

/* ---- 28 ClearElrRecord / 29 UnregisterControllerRecord ------------------------ */

MESSAGE(m_clear_elr, "ClearElrRecord", 0, 0, 0, "topic_name:string");

MESSAGE(m_unregister_controller, "UnregisterControllerRecord", 0, 0, 0, "controller_id:int32");

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

const cs_table cs_metadata_table = CS_TABLE(metadata_records);

/* ---- KRaft control records (value: flexible body, no version prefix, read at
 * version 0; docs/formats.md §14.3) ------------------------------------------ */

/* voter_directory_id: v1 only, never on disk. */
STRUCT(s_voter, "Voter", "voter_id:int32 voter_directory_id:uuid@1+");
MESSAGE(m_leader_change, "LeaderChangeMessage", 0, 1, 0,
        "version:int16 leader_id:int32 voters:[Voter] granting_voters:[Voter]", &s_voter);

MESSAGE(m_snapshot_header, "SnapshotHeaderRecord", 0, 0, 0, "version:int16 last_contained_log_timestamp:int64");

MESSAGE(m_snapshot_footer, "SnapshotFooterRecord", 0, 0, 0, "version:int16");

MESSAGE(m_kraft_version, "KRaftVersionRecord", 0, 0, 0, "version:int16 kraft_version:int16");

STRUCT(s_voter_endpoint, "Endpoint", "name:string host:string port:uint16");
STRUCT(s_kraft_feature, "KRaftVersionFeature", "min_supported_version:int16 max_supported_version:int16");
STRUCT(s_voters_voter, "Voter",
       "voter_id:int32 voter_directory_id:uuid endpoints:[Endpoint] "
       "kraft_version_feature:KRaftVersionFeature", &s_voter_endpoint, &s_kraft_feature);
MESSAGE(m_voters, "VotersRecord", 0, 0, 0, "version:int16 voters:[Voter]", &s_voters_voter);

static const cs_record control_records[] = {
    MREC(2, "leader_change", m_leader_change),
    MREC(3, "snapshot_header", m_snapshot_header),
    MREC(4, "snapshot_footer", m_snapshot_footer),
    MREC(5, "kraft_version", m_kraft_version),
    MREC(6, "kraft_voters", m_voters),
};

const cs_table cs_control_table = CS_TABLE(control_records);
