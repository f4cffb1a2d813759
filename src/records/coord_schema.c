/* coord_schema.c: the schema table of the coordinator topics — every record
 * type of __consumer_offsets (types 0-24) and of __transaction_state (type
 * 0), key and value, plus the consumer protocol carried inside classic group
 * metadata — described as data for the generic decoder in coord_decode.c.
 *
 * Written from Kafka's message schemas, described in docs/formats.md §11-§12
 * (the Kafka 4.0-line snapshot, with the later tagged additions that older
 * readers skip anyway: OffsetCommitValue topic_id, ConsumerGroupMetadataValue
 * metadata_hash/creation_time_ms, ConsumerGroupTargetAssignmentMetadataValue
 * assignment_timestamp, ConsumerGroupCurrentMemberAssignmentValue
 * assignment_epochs). Share and streams schemas changed shape at version 0
 * while in development; their other known layouts are listed as
 * alternatives that the decoder tries when the primary one does not fit.
 *
 * Each struct's fields are written in the field notation of
 * cs_parse_fields (coord_internal.h), built once by schema_tables.c. Field
 * names are the snake_case of Kafka's field names. Keys are always version 0
 * and non-flexible. */
#include "records/cs_macros.h"

/* ---- keys (version 0, non-flexible) ----------------------------------------- */

STRUCT(k_offset, "OffsetCommitKey", "group:string topic:string partition:int32");
MSG(m_k_legacy_offset, "LegacyOffsetCommitKey", k_offset, 0, 0, -1);
MSG(m_k_offset, "OffsetCommitKey", k_offset, 0, 0, -1);

MESSAGE(m_k_group, "GroupMetadataKey", 0, 0, -1, "group:string");

MESSAGE(m_k_gid, "GroupIdKey", 0, 0, -1, "group_id:string");

MESSAGE(m_k_gid_member, "GroupMemberKey", 0, 0, -1, "group_id:string member_id:string");

MESSAGE(m_k_regex, "ConsumerGroupRegularExpressionKey", 0, 0, -1, "group_id:string regular_expression:string");

MESSAGE(m_k_txn, "TransactionLogKey", 0, 0, -1, "transactional_id:string");

/* ---- shared value structs -------------------------------------------------- */

/* {TopicId, Partitions} of consumer/share target and current assignments. */
STRUCT(s_topic_parts, "TopicPartitions", "topic_id:uuid partitions:[int32]");

/* Key/value pair (streams ClientTags, AssignmentConfigs, TopicConfigs). */
STRUCT(s_kv, "KeyValue", "key:string value:string");

/* {Partition, Racks} and the TopicMetadata of partition-metadata records
 * (types 4, 9, 18). */
STRUCT(s_part_racks, "PartitionMetadata", "partition:int32 racks:[string]");
STRUCT(s_topic_meta, "TopicMetadata",
       "topic_id:uuid topic_name:string num_partitions:int32 partition_metadata:[PartitionMetadata]", &s_part_racks);
STRUCT(v_partition_meta, "PartitionMetadataValue", "topics:[TopicMetadata]", &s_topic_meta);

/* Streams TaskIds {SubtopologyId, Partitions}. */
STRUCT(s_task_ids, "TaskIds", "subtopology_id:string partitions:[int32]");

/* ---- type 0: LegacyOffsetCommitValue (v0) -------------------------------- */

MESSAGE(m_v_legacy_offset, "LegacyOffsetCommitValue", 0, 0, -1, "offset:int64 metadata:string commit_timestamp:int64");

/* ---- type 1: OffsetCommitValue (v0-v4, flexible 4+) ----------------------- */

/* topic_id: 4.1+ (KAFKA-19141); absent = zero uuid */
MESSAGE(m_v_offset, "OffsetCommitValue", 0, 4, 4,
        "offset:int64 leader_epoch:int32@3+=-1 metadata:string commit_timestamp:int64 "
        "expire_timestamp:int64@1=-1 topic_id:uuid@4+#0");

/* ---- type 2: GroupMetadataValue (v0-v4, flexible 4+) ---------------------- */

STRUCT(s_member, "MemberMetadata",
       "member_id:string group_instance_id:string?@3+ client_id:string client_host:string "
       "rebalance_timeout:int32@1+=-1 session_timeout:int32 subscription:bytes assignment:bytes");
MESSAGE(m_v_group, "GroupMetadataValue", 0, 4, 4,
        "protocol_type:string generation:int32 protocol:string? leader:string? "
        "current_state_timestamp:int64@2+=-1 members:[MemberMetadata]", &s_member);

/* ---- consumer groups (KIP-848): types 3-8, 16 (v0, flexible) ------------- */

/* metadata_hash: 4.1 (KIP-1101); creation_time_ms: KIP-1282 */
MESSAGE(m_v_cg_meta, "ConsumerGroupMetadataValue", 0, 0, 0,
        "epoch:int32 metadata_hash:int64#0 creation_time_ms:int64#1=-1");

MSG(m_v_cg_part_meta, "ConsumerGroupPartitionMetadataValue", v_partition_meta, 0, 0, 0);

STRUCT(s_classic_proto, "ClassicProtocol", "name:string metadata:bytes");
STRUCT(s_classic_member, "ClassicMemberMetadata",
       "session_timeout_ms:int32 supported_protocols:[ClassicProtocol]", &s_classic_proto);
MESSAGE(m_v_cg_member, "ConsumerGroupMemberMetadataValue", 0, 0, 0,
        "instance_id:string? rack_id:string? client_id:string client_host:string "
        "subscribed_topic_names:[string] subscribed_topic_regex:string? rebalance_timeout_ms:int32=-1 "
        "server_assignor:string? classic_member_metadata:ClassicMemberMetadata?#0", &s_classic_member);

/* assignment_timestamp: 4.3 (KIP-1263) */
MESSAGE(m_v_cg_target_meta, "ConsumerGroupTargetAssignmentMetadataValue", 0, 0, 0,
        "assignment_epoch:int32 assignment_timestamp:int64#0");

STRUCT(v_topic_parts_list, "TargetAssignmentMemberValue", "topic_partitions:[TopicPartitions]", &s_topic_parts);
MSG(m_v_cg_target_member, "ConsumerGroupTargetAssignmentMemberValue", v_topic_parts_list, 0, 0, 0);

/* assignment_epochs: KIP-1251 */
STRUCT(s_cg_topic_parts, "TopicPartitions", "topic_id:uuid partitions:[int32] assignment_epochs:[int32]?#0");
MESSAGE(m_v_cg_current, "ConsumerGroupCurrentMemberAssignmentValue", 0, 0, 0,
        "member_epoch:int32 previous_member_epoch:int32 state:int8 assigned_partitions:[TopicPartitions] "
        "partitions_pending_revocation:[TopicPartitions]", &s_cg_topic_parts);

MESSAGE(m_v_cg_regex, "ConsumerGroupRegularExpressionValue", 0, 0, 0, "topics:[string] version:int64 timestamp:int64");

/* ---- share groups (KIP-932): types 9-15 (v0, flexible) ------------------- */

MSG(m_v_sg_part_meta, "ShareGroupPartitionMetadataValue", v_partition_meta, 0, 0, 0);

STRUCT(s_topic_parts_info, "TopicPartitionsInfo", "topic_id:uuid topic_name:string partitions:[int32]");
STRUCT(s_topic_info, "TopicInfo", "topic_id:uuid topic_name:string");
STRUCT(v_sg_state, "ShareGroupStatePartitionMetadataValue",
       "initialized_topics:[TopicPartitionsInfo] deleting_topics:[TopicInfo]", &s_topic_parts_info, &s_topic_info);
MSG(m_v_sg_state, "ShareGroupStatePartitionMetadataValue", v_sg_state, 0, 0, 0);
/* Kafka 3.9's ShareGroupPartitionMetadataValue (type 9) had this shape. */
MSG(m_v_sg_part_meta_39, "ShareGroupPartitionMetadataValue (3.9)", v_sg_state, 0, 0, 0);

/* Later trunk ShareGroupStatePartitionMetadataValue: InitializingTopics first,
 * CreateTimestamp in TopicPartitionsInfo. */
STRUCT(s_topic_parts_info2, "TopicPartitionsInfo",
       "topic_id:uuid topic_name:string partitions:[int32] create_timestamp:int64");
MESSAGE(m_v_sg_state2, "ShareGroupStatePartitionMetadataValue (later)", 0, 0, 0,
        "initializing_topics:[TopicPartitionsInfo] initialized_topics:[TopicPartitionsInfo] "
        "deleting_topics:[TopicInfo]", &s_topic_parts_info2, &s_topic_info);

/* Kafka 4.4.0's ShareGroupStatePartitionMetadataValue (the same version 0):
 * InitializingTopics first, TopicPartitionsInfo without CreateTimestamp, as
 * the broker suite's clean scenario found it written (docs/formats.md §23). */
MESSAGE(m_v_sg_state44, "ShareGroupStatePartitionMetadataValue (4.4)", 0, 0, 0,
        "initializing_topics:[TopicPartitionsInfo] initialized_topics:[TopicPartitionsInfo] "
        "deleting_topics:[TopicInfo]", &s_topic_parts_info, &s_topic_info);

MESSAGE(m_v_sg_member, "ShareGroupMemberMetadataValue", 0, 0, 0,
        "rack_id:string? client_id:string client_host:string subscribed_topic_names:[string]");

STRUCT(v_epoch, "EpochValue", "epoch:int32");
MSG(m_v_sg_meta, "ShareGroupMetadataValue", v_epoch, 0, 0, 0);

/* Later trunk ShareGroupMetadataValue: + MetadataHash, not tagged. */
MESSAGE(m_v_sg_meta2, "ShareGroupMetadataValue (later)", 0, 0, 0, "epoch:int32 metadata_hash:int64");

STRUCT(v_assignment_epoch, "TargetAssignmentMetadataValue", "assignment_epoch:int32");
MSG(m_v_sg_target_meta, "ShareGroupTargetAssignmentMetadataValue", v_assignment_epoch, 0, 0, 0);
MSG(m_v_sg_target_member, "ShareGroupTargetAssignmentMemberValue", v_topic_parts_list, 0, 0, 0);

MESSAGE(m_v_sg_current, "ShareGroupCurrentMemberAssignmentValue", 0, 0, 0,
        "member_epoch:int32 previous_member_epoch:int32 state:int8 assigned_partitions:[TopicPartitions]",
        &s_topic_parts);

/* ---- streams groups (KIP-1071): types 17-24 (v0, flexible) ---------------- */

MSG(m_v_st_meta, "StreamsGroupMetadataValue", v_epoch, 0, 0, 0);

/* Later trunk StreamsGroupMetadataValue. */
MESSAGE(m_v_st_meta2, "StreamsGroupMetadataValue (later)", 0, 0, 0,
        "epoch:int32 metadata_hash:int64 validated_topology_epoch:int32#0=-1 assignment_configs:[KeyValue]", &s_kv);

MSG(m_v_st_part_meta, "StreamsGroupPartitionMetadataValue", v_partition_meta, 0, 0, 0);

STRUCT(s_endpoint, "Endpoint", "host:string port:uint16");
MESSAGE(m_v_st_member, "StreamsGroupMemberMetadataValue", 0, 0, 0,
        "instance_id:string? rack_id:string? client_id:string client_host:string "
        "rebalance_timeout_ms:int32=-1 topology_epoch:int32 process_id:string user_endpoint:Endpoint? "
        "client_tags:[KeyValue]", &s_endpoint, &s_kv);

MSG(m_v_st_target_meta, "StreamsGroupTargetAssignmentMetadataValue", v_assignment_epoch, 0, 0, 0);

MESSAGE(m_v_st_target_member, "StreamsGroupTargetAssignmentMemberValue", 0, 0, 0,
        "active_tasks:[TaskIds] standby_tasks:[TaskIds] warmup_tasks:[TaskIds]", &s_task_ids);

MESSAGE(m_v_st_current, "StreamsGroupCurrentMemberAssignmentValue", 0, 0, 0,
        "member_epoch:int32 previous_member_epoch:int32 state:int8 active_tasks:[TaskIds] "
        "standby_tasks:[TaskIds] warmup_tasks:[TaskIds] active_tasks_pending_revocation:[TaskIds] "
        "standby_tasks_pending_revocation:[TaskIds] warmup_tasks_pending_revocation:[TaskIds]", &s_task_ids);

STRUCT(s_st_topic_info, "TopicInfo",
       "name:string partitions:int32 replication_factor:int16 topic_configs:[KeyValue]", &s_kv);
STRUCT(s_copartition, "CopartitionGroup",
       "source_topics:[int16] source_topic_regex:[int16] repartition_source_topics:[int16]");
STRUCT(s_subtopology, "Subtopology",
       "subtopology_id:string source_topics:[string] source_topic_regex:[string] "
       "state_changelog_topics:[TopicInfo] repartition_sink_topics:[string] "
       "repartition_source_topics:[TopicInfo] copartition_groups:[CopartitionGroup]", &s_st_topic_info, &s_copartition);
MESSAGE(m_v_st_topology, "StreamsGroupTopologyValue", 0, 0, 0,
        "epoch:int32 subtopologies:[Subtopology]", &s_subtopology);

STRUCT(s_resolved, "ResolvedTopicIds", "subtopology_id:string topic_ids:[uuid]");
MESSAGE(m_v_st_resolved, "StreamsGroupTargetAssignmentResolvedTopicIdsValue", 0, 0, 0,
        "assignment_epoch:int32 resolved_topic_ids_by_subtopology:[ResolvedTopicIds]", &s_resolved);

/* ---- __transaction_state: TransactionLogValue (v0-v1, flexible 1+) -------- */

STRUCT(s_txn_parts, "PartitionsSchema", "topic:string partition_ids:[int32]");
MESSAGE(m_v_txn, "TransactionLogValue", 0, 1, 1,
        "producer_id:int64 previous_producer_id:int64@1+#0=-1 next_producer_id:int64@1+#1=-1 "
        "producer_epoch:int16 transaction_timeout_ms:int32 transaction_status:int8 "
        "transaction_partitions:[PartitionsSchema]? transaction_last_update_timestamp_ms:int64 "
        "transaction_start_timestamp_ms:int64 client_transaction_version:int16@1+#2", &s_txn_parts);

/* ---- consumer protocol (non-flexible, v0-v3) ------------------------------ */

STRUCT(s_cp_owned, "TopicPartition", "topic:string@1+ partitions:[int32]@1+");
STRUCT(cp_sub, "ConsumerProtocolSubscription",
       "topics:[string] user_data:bytes? owned_partitions:[TopicPartition]@1+ generation_id:int32@2+=-1 "
       "rack_id:string?@3+", &s_cp_owned);
const cs_message kf_cs_consumer_subscription = { "ConsumerProtocolSubscription", &cp_sub, 0, 3, -1 };

STRUCT(s_cp_assigned, "TopicPartition", "topic:string partitions:[int32]");
STRUCT(cp_asg, "ConsumerProtocolAssignment", "assigned_partitions:[TopicPartition] user_data:bytes?", &s_cp_assigned);
const cs_message kf_cs_consumer_assignment = { "ConsumerProtocolAssignment", &cp_asg, 0, 3, -1 };

/* ---- the record types -------------------------------------------------------- */

static const cs_message *const alt_sg_part_meta[] = { &m_v_sg_part_meta_39 };
static const cs_message *const alt_sg_meta[] = { &m_v_sg_meta2 };
static const cs_message *const alt_sg_state[] = { &m_v_sg_state44, &m_v_sg_state2 };
static const cs_message *const alt_st_meta[] = { &m_v_st_meta2 };

#define REC(ty, nm, k, v) { ty, nm, &k, &v, NULL, NULL, 0, 0 }
#define REC_ALT(ty, nm, k, v, alts) { ty, nm, &k, &v, NULL, alts, (uint8_t)(sizeof alts / sizeof alts[0]), 0 }

static const cs_record offsets_records[] = {
    /* Kafka calls type 0 legacy_offset_commit; the CLI reports both offset
     * commit key types as offset_commit. Type 0 values other than v0 are read
     * best effort with OffsetCommitValue (pre-4.0 brokers read them so). */
    { 0, "offset_commit", &m_k_legacy_offset, &m_v_legacy_offset, &m_v_offset, NULL, 0, 0 },
    REC(1, "offset_commit", m_k_offset, m_v_offset),
    { 2, "group_metadata", &m_k_group, &m_v_group, NULL, NULL, 0, CS_REC_CONSUMER_PROTOCOL },
    REC(3, "consumer_group_metadata", m_k_gid, m_v_cg_meta),
    REC(4, "consumer_group_partition_metadata", m_k_gid, m_v_cg_part_meta),
    REC(5, "consumer_group_member_metadata", m_k_gid_member, m_v_cg_member),
    REC(6, "consumer_group_target_assignment_metadata", m_k_gid, m_v_cg_target_meta),
    REC(7, "consumer_group_target_assignment_member", m_k_gid_member, m_v_cg_target_member),
    REC(8, "consumer_group_current_member_assignment", m_k_gid_member, m_v_cg_current),
    REC_ALT(9, "share_group_partition_metadata", m_k_gid, m_v_sg_part_meta, alt_sg_part_meta),
    REC(10, "share_group_member_metadata", m_k_gid_member, m_v_sg_member),
    REC_ALT(11, "share_group_metadata", m_k_gid, m_v_sg_meta, alt_sg_meta),
    REC(12, "share_group_target_assignment_metadata", m_k_gid, m_v_sg_target_meta),
    REC(13, "share_group_target_assignment_member", m_k_gid_member, m_v_sg_target_member),
    REC(14, "share_group_current_member_assignment", m_k_gid_member, m_v_sg_current),
    REC_ALT(15, "share_group_state_partition_metadata", m_k_gid, m_v_sg_state, alt_sg_state),
    REC(16, "consumer_group_regular_expression", m_k_regex, m_v_cg_regex),
    REC_ALT(17, "streams_group_metadata", m_k_gid, m_v_st_meta, alt_st_meta),
    REC(18, "streams_group_partition_metadata", m_k_gid, m_v_st_part_meta),
    REC(19, "streams_group_member_metadata", m_k_gid_member, m_v_st_member),
    REC(20, "streams_group_target_assignment_metadata", m_k_gid, m_v_st_target_meta),
    REC(21, "streams_group_target_assignment_member", m_k_gid_member, m_v_st_target_member),
    REC(22, "streams_group_current_member_assignment", m_k_gid_member, m_v_st_current),
    REC(23, "streams_group_topology", m_k_gid, m_v_st_topology),
    REC(24, "streams_group_target_assignment_resolved_topic_ids", m_k_gid, m_v_st_resolved),
};

static const cs_record txn_records[] = {
    REC(0, "transaction_log", m_k_txn, m_v_txn),
};

const cs_table cs_offsets_table = CS_TABLE(offsets_records);
const cs_table cs_txn_table = CS_TABLE(txn_records);
