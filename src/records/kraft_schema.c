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
STRUCT(r_register_broker, "RegisterBrokerRecord",
       "broker_id:int32 is_migrating_zk_broker:bool@2+ incarnation_id:uuid broker_epoch:int64 "
       "end_points:[BrokerEndpoint] features:[BrokerFeature] rack:string? fenced:bool=1 "
       "in_controlled_shutdown:bool@1+ log_dirs:[uuid]@3+#0 cordoned_log_dirs:[uuid]?@4+#1", &s_endpoint, &s_feature);
MSG(m_register_broker, "RegisterBrokerRecord", r_register_broker, 0, 4, 0);

/* ---- 1 UnregisterBrokerRecord ---------------------------------------------- */

STRUCT(r_unregister_broker, "UnregisterBrokerRecord", "broker_id:int32 broker_epoch:int64");
MSG(m_unregister_broker, "UnregisterBrokerRecord", r_unregister_broker, 0, 0, 0);

/* ---- 2 TopicRecord --------------------------------------------------------- */

STRUCT(r_topic, "TopicRecord", "name:string topic_id:uuid");
MSG(m_topic, "TopicRecord", r_topic, 0, 0, 0);

/* ---- 3 PartitionRecord (v0-2) ---------------------------------------------- */

/* leader_recovery_state: declared here, but tagged. */
STRUCT(r_partition, "PartitionRecord",
       "partition_id:int32=-1 topic_id:uuid replicas:[int32] isr:[int32] removing_replicas:[int32] "
       "adding_replicas:[int32] leader:int32=-1 leader_recovery_state:int8#0 leader_epoch:int32=-1 "
       "partition_epoch:int32=-1 directories:[uuid]@1+ eligible_leader_replicas:[int32]?@2+#1 "
       "last_known_elr:[int32]?@2+#2");
MSG(m_partition, "PartitionRecord", r_partition, 0, 2, 0);

/* ---- 4 ConfigRecord -------------------------------------------------------- */

/* value: a secret when the name looks like one (kraft_decode.c). */
STRUCT(r_config, "ConfigRecord", "resource_type:int8 resource_name:string name:string value:string?");
MSG(m_config, "ConfigRecord", r_config, 0, 0, 0);

/* ---- 5 PartitionChangeRecord (v0-2): only what changes ---------------------- */

/* directories: tag 8, declared before tags 6 and 7. */
STRUCT(r_partition_change, "PartitionChangeRecord",
       "partition_id:int32=-1 topic_id:uuid isr:[int32]?#0 leader:int32#1=-2 replicas:[int32]?#2 "
       "removing_replicas:[int32]?#3 adding_replicas:[int32]?#4 leader_recovery_state:int8#5=-1 "
       "directories:[uuid]?@1+#8 eligible_leader_replicas:[int32]?@2+#6 last_known_elr:[int32]?@2+#7");
MSG(m_partition_change, "PartitionChangeRecord", r_partition_change, 0, 2, 0);

/* ---- 6 AccessControlRecord (2.8-3.4 schema, never written) ----------------- */

STRUCT(r_access_control, "AccessControlRecord",
       "resource_type:int8 resource_name:string? pattern_type:int8 principal:string host:string "
       "operation:int8 permission_type:int8");
MSG(m_access_control, "AccessControlRecord", r_access_control, 0, 0, 0);

/* ---- 7 FenceBrokerRecord / 8 UnfenceBrokerRecord ----------------------------- */

STRUCT(r_fence, "FenceBrokerRecord", "id:int32 epoch:int64");
MSG(m_fence_broker, "FenceBrokerRecord", r_fence, 0, 0, 0);
MSG(m_unfence_broker, "UnfenceBrokerRecord", r_fence, 0, 0, 0);

/* ---- 9 RemoveTopicRecord ----------------------------------------------------- */

STRUCT(r_remove_topic, "RemoveTopicRecord", "topic_id:uuid");
MSG(m_remove_topic, "RemoveTopicRecord", r_remove_topic, 0, 0, 0);

/* ---- 10 DelegationTokenRecord ------------------------------------------------ */

STRUCT(r_delegation_token, "DelegationTokenRecord",
       "owner:string requester:string renewers:[string] issue_timestamp:int64 max_timestamp:int64 "
       "expiration_timestamp:int64 token_id:string!");
MSG(m_delegation_token, "DelegationTokenRecord", r_delegation_token, 0, 0, 0);

/* <= 3.5 schema (no Requester), never written: tokens need MV 3.6-IV2 */
STRUCT(r_delegation_token_35, "DelegationTokenRecord",
       "owner:string renewers:[string] issue_timestamp:int64 max_timestamp:int64 expiration_timestamp:int64 "
       "token_id:string!");
MSG(m_delegation_token_35, "DelegationTokenRecord (3.5)", r_delegation_token_35, 0, 0, 0);

/* ---- 11 UserScramCredentialRecord -------------------------------------------- */

STRUCT(r_scram, "UserScramCredentialRecord",
       "name:string mechanism:int8 salt:bytes! stored_key:bytes! server_key:bytes! iterations:int32");
MSG(m_scram, "UserScramCredentialRecord", r_scram, 0, 0, 0);

/* <= 3.4 schema, never written: SCRAM records need MV 3.5-IV2 */
STRUCT(s_credential_info, "CredentialInfo", "mechanism:int8 salt:bytes! salted_password:bytes! iterations:int32");
STRUCT(r_scram_34, "UserScramCredentialRecord", "name:string credential_infos:[CredentialInfo]", &s_credential_info);
MSG(m_scram_34, "UserScramCredentialRecord (3.4)", r_scram_34, 0, 0, 0);

/* ---- 12 FeatureLevelRecord (version frozen at 0) ----------------------------- */

STRUCT(r_feature_level, "FeatureLevelRecord", "name:string feature_level:int16");
MSG(m_feature_level, "FeatureLevelRecord", r_feature_level, 0, 0, 0);

/* 3.0-3.2 layout, same apiKey and version */
STRUCT(r_feature_level_32, "FeatureLevelRecord", "name:string min_feature_level:int16 max_feature_level:int16");
MSG(m_feature_level_32, "FeatureLevelRecord (3.2)", r_feature_level_32, 0, 0, 0);

/* ---- 14 ClientQuotaRecord ---------------------------------------------------- */

STRUCT(s_entity, "EntityData", "entity_type:string entity_name:string?");
STRUCT(r_client_quota, "ClientQuotaRecord", "entity:[EntityData] key:string value:float64 remove:bool", &s_entity);
MSG(m_client_quota, "ClientQuotaRecord", r_client_quota, 0, 0, 0);

/* ---- 15 ProducerIdsRecord (3.0/3.1 named the third field ProducerIdsEnd) ----- */

STRUCT(r_producer_ids, "ProducerIdsRecord", "broker_id:int32 broker_epoch:int64=-1 next_producer_id:int64");
MSG(m_producer_ids, "ProducerIdsRecord", r_producer_ids, 0, 0, 0);

/* ---- 16 RemoveFeatureLevelRecord (3.0-3.2 schema, never written) ------------- */

STRUCT(r_remove_feature_level, "RemoveFeatureLevelRecord", "name:string");
MSG(m_remove_feature_level, "RemoveFeatureLevelRecord", r_remove_feature_level, 0, 0, 0);

/* ---- 17 BrokerRegistrationChangeRecord (v0-3) -------------------------------- */

/* fenced: 1 fence, -1 unfence, 0 no change; in_controlled_shutdown: 1 in
 * controlled shutdown, 0 no change; log_dirs: empty = no change;
 * cordoned_log_dirs: null = no change. */
STRUCT(r_brc, "BrokerRegistrationChangeRecord",
       "broker_id:int32 broker_epoch:int64 fenced:int8#0 in_controlled_shutdown:int8@1+#1 "
       "log_dirs:[uuid]@2+#2 cordoned_log_dirs:[uuid]?@3+#3");
MSG(m_brc, "BrokerRegistrationChangeRecord", r_brc, 0, 3, 0);

/* ---- 18 AccessControlEntryRecord / 19 RemoveAccessControlEntryRecord --------- */

STRUCT(r_acl, "AccessControlEntryRecord",
       "id:uuid resource_type:int8 resource_name:string pattern_type:int8 principal:string host:string "
       "operation:int8 permission_type:int8");
MSG(m_acl, "AccessControlEntryRecord", r_acl, 0, 0, 0);

STRUCT(r_remove_acl, "RemoveAccessControlEntryRecord", "id:uuid");
MSG(m_remove_acl, "RemoveAccessControlEntryRecord", r_remove_acl, 0, 0, 0);

/* ---- 20 NoOpRecord, 24 EndTransactionRecord: no fields ----------------------- */

STRUCT(r_no_op, "NoOpRecord", "");
MSG(m_no_op, "NoOpRecord", r_no_op, 0, 0, 0);
STRUCT(r_end_txn, "EndTransactionRecord", "");
MSG(m_end_txn, "EndTransactionRecord", r_end_txn, 0, 0, 0);

/* ---- 21 ZkMigrationStateRecord (file ZkMigrationRecord.json) ----------------- */

STRUCT(r_zk_migration, "ZkMigrationStateRecord", "zk_migration_state:int8");
MSG(m_zk_migration, "ZkMigrationStateRecord", r_zk_migration, 0, 0, 0);

/* ---- 22 RemoveUserScramCredentialRecord -------------------------------------- */

STRUCT(r_remove_scram, "RemoveUserScramCredentialRecord", "name:string mechanism:int8");
MSG(m_remove_scram, "RemoveUserScramCredentialRecord", r_remove_scram, 0, 0, 0);

/* ---- 23 BeginTransactionRecord / 25 AbortTransactionRecord ------------------- */

STRUCT(r_begin_txn, "BeginTransactionRecord", "name:string?#0");
MSG(m_begin_txn, "BeginTransactionRecord", r_begin_txn, 0, 0, 0);

STRUCT(r_abort_txn, "AbortTransactionRecord", "reason:string?#0");
MSG(m_abort_txn, "AbortTransactionRecord", r_abort_txn, 0, 0, 0);

/* ---- 26 RemoveDelegationTokenRecord ------------------------------------------ */

STRUCT(r_remove_token, "RemoveDelegationTokenRecord", "token_id:string!");
MSG(m_remove_token, "RemoveDelegationTokenRecord", r_remove_token, 0, 0, 0);

/* ---- 27 RegisterControllerRecord ---------------------------------------------- */

STRUCT(r_register_controller, "RegisterControllerRecord",
       "controller_id:int32 incarnation_id:uuid zk_migration_ready:bool end_points:[BrokerEndpoint] "
       "features:[BrokerFeature]", &s_endpoint, &s_feature);
MSG(m_register_controller, "RegisterControllerRecord", r_register_controller, 0, 0, 0);

/* ---- 28 ClearElrRecord / 29 UnregisterControllerRecord ------------------------ */

STRUCT(r_clear_elr, "ClearElrRecord", "topic_name:string");
MSG(m_clear_elr, "ClearElrRecord", r_clear_elr, 0, 0, 0);

STRUCT(r_unregister_controller, "UnregisterControllerRecord", "controller_id:int32");
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

const cs_table cs_metadata_table = CS_TABLE(metadata_records);

/* ---- KRaft control records (value: flexible body, no version prefix, read at
 * version 0; docs/formats.md §14.3) ------------------------------------------ */

/* voter_directory_id: v1 only, never on disk. */
STRUCT(s_voter, "Voter", "voter_id:int32 voter_directory_id:uuid@1+");
STRUCT(c_leader_change, "LeaderChangeMessage",
       "version:int16 leader_id:int32 voters:[Voter] granting_voters:[Voter]", &s_voter);
MSG(m_leader_change, "LeaderChangeMessage", c_leader_change, 0, 1, 0);

STRUCT(c_snapshot_header, "SnapshotHeaderRecord", "version:int16 last_contained_log_timestamp:int64");
MSG(m_snapshot_header, "SnapshotHeaderRecord", c_snapshot_header, 0, 0, 0);

STRUCT(c_snapshot_footer, "SnapshotFooterRecord", "version:int16");
MSG(m_snapshot_footer, "SnapshotFooterRecord", c_snapshot_footer, 0, 0, 0);

STRUCT(c_kraft_version, "KRaftVersionRecord", "version:int16 kraft_version:int16");
MSG(m_kraft_version, "KRaftVersionRecord", c_kraft_version, 0, 0, 0);

STRUCT(s_voter_endpoint, "Endpoint", "name:string host:string port:uint16");
STRUCT(s_kraft_feature, "KRaftVersionFeature", "min_supported_version:int16 max_supported_version:int16");
STRUCT(s_voters_voter, "Voter",
       "voter_id:int32 voter_directory_id:uuid endpoints:[Endpoint] "
       "kraft_version_feature:KRaftVersionFeature", &s_voter_endpoint, &s_kraft_feature);
STRUCT(c_voters, "VotersRecord", "version:int16 voters:[Voter]", &s_voters_voter);
MSG(m_voters, "VotersRecord", c_voters, 0, 0, 0);

static const cs_record control_records[] = {
    MREC(2, "leader_change", m_leader_change),
    MREC(3, "snapshot_header", m_snapshot_header),
    MREC(4, "snapshot_footer", m_snapshot_footer),
    MREC(5, "kraft_version", m_kraft_version),
    MREC(6, "kraft_voters", m_voters),
};

const cs_table cs_control_table = CS_TABLE(control_records);
