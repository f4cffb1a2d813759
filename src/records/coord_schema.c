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
 * Field names are the snake_case of Kafka's field names. Keys are always
 * version 0 and non-flexible. */
#include <stddef.h>

#include "records/coord_internal.h"
#include "kfsck/sys/coord.h"

#include "records/cs_macros.h"

/* ---- keys (version 0, non-flexible) ----------------------------------------- */

static const cs_field k_offset_f[] = {
    P("group", CS_STRING, 0, 0),
    P("topic", CS_STRING, 0, 0),
    P("partition", CS_INT32, 0, 0),
};
STRUCT(k_offset, "OffsetCommitKey");
MSG(m_k_legacy_offset, "LegacyOffsetCommitKey", k_offset, 0, 0, -1);
MSG(m_k_offset, "OffsetCommitKey", k_offset, 0, 0, -1);

static const cs_field k_group_f[] = {
    P("group", CS_STRING, 0, 0),
};
STRUCT(k_group, "GroupMetadataKey");
MSG(m_k_group, "GroupMetadataKey", k_group, 0, 0, -1);

static const cs_field k_gid_f[] = {
    P("group_id", CS_STRING, 0, 0),
};
STRUCT(k_gid, "GroupIdKey");
MSG(m_k_gid, "GroupIdKey", k_gid, 0, 0, -1);

static const cs_field k_gid_member_f[] = {
    P("group_id", CS_STRING, 0, 0),
    P("member_id", CS_STRING, 0, 0),
};
STRUCT(k_gid_member, "GroupMemberKey");
MSG(m_k_gid_member, "GroupMemberKey", k_gid_member, 0, 0, -1);

static const cs_field k_regex_f[] = {
    P("group_id", CS_STRING, 0, 0),
    P("regular_expression", CS_STRING, 0, 0),
};
STRUCT(k_regex, "ConsumerGroupRegularExpressionKey");
MSG(m_k_regex, "ConsumerGroupRegularExpressionKey", k_regex, 0, 0, -1);

static const cs_field k_txn_f[] = {
    P("transactional_id", CS_STRING, 0, 0),
};
STRUCT(k_txn, "TransactionLogKey");
MSG(m_k_txn, "TransactionLogKey", k_txn, 0, 0, -1);

/* ---- shared value structs -------------------------------------------------- */

/* {TopicId, Partitions} of consumer/share target and current assignments. */
static const cs_field s_topic_parts_f[] = {
    P("topic_id", CS_UUID, 0, X),
    A("partitions", CS_INT32, 0, X),
};
STRUCT(s_topic_parts, "TopicPartitions");

/* Key/value pair (streams ClientTags, AssignmentConfigs, TopicConfigs). */
static const cs_field s_kv_f[] = {
    P("key", CS_STRING, 0, X),
    P("value", CS_STRING, 0, X),
};
STRUCT(s_kv, "KeyValue");

/* {Partition, Racks} and the TopicMetadata of partition-metadata records
 * (types 4, 9, 18). */
static const cs_field s_part_racks_f[] = {
    P("partition", CS_INT32, 0, X),
    A("racks", CS_STRING, 0, X),
};
STRUCT(s_part_racks, "PartitionMetadata");
static const cs_field s_topic_meta_f[] = {
    P("topic_id", CS_UUID, 0, X),
    P("topic_name", CS_STRING, 0, X),
    P("num_partitions", CS_INT32, 0, X),
    AS("partition_metadata", s_part_racks, 0, X),
};
STRUCT(s_topic_meta, "TopicMetadata");
static const cs_field v_partition_meta_f[] = {
    AS("topics", s_topic_meta, 0, X),
};
STRUCT(v_partition_meta, "PartitionMetadataValue");

/* Streams TaskIds {SubtopologyId, Partitions}. */
static const cs_field s_task_ids_f[] = {
    P("subtopology_id", CS_STRING, 0, X),
    A("partitions", CS_INT32, 0, X),
};
STRUCT(s_task_ids, "TaskIds");

/* ---- type 0: LegacyOffsetCommitValue (v0) -------------------------------- */

static const cs_field v_legacy_offset_f[] = {
    P("offset", CS_INT64, 0, 0),
    P("metadata", CS_STRING, 0, 0),
    P("commit_timestamp", CS_INT64, 0, 0),
};
STRUCT(v_legacy_offset, "LegacyOffsetCommitValue");
MSG(m_v_legacy_offset, "LegacyOffsetCommitValue", v_legacy_offset, 0, 0, -1);

/* ---- type 1: OffsetCommitValue (v0-v4, flexible 4+) ----------------------- */

static const cs_field v_offset_f[] = {
    P("offset", CS_INT64, 0, X),
    PD("leader_epoch", CS_INT32, 3, X, -1),
    P("metadata", CS_STRING, 0, X),
    P("commit_timestamp", CS_INT64, 0, X),
    PD("expire_timestamp", CS_INT64, 1, 1, -1),
    T("topic_id", CS_UUID, 0, 4, 0), /* 4.1+ (KAFKA-19141); absent = zero uuid */
};
STRUCT(v_offset, "OffsetCommitValue");
MSG(m_v_offset, "OffsetCommitValue", v_offset, 0, 4, 4);

/* ---- type 2: GroupMetadataValue (v0-v4, flexible 4+) ---------------------- */

static const cs_field s_member_f[] = {
    P("member_id", CS_STRING, 0, X),
    PN("group_instance_id", CS_STRING, 3, X, 3, X),
    P("client_id", CS_STRING, 0, X),
    P("client_host", CS_STRING, 0, X),
    PD("rebalance_timeout", CS_INT32, 1, X, -1),
    P("session_timeout", CS_INT32, 0, X),
    P("subscription", CS_BYTES, 0, X),
    P("assignment", CS_BYTES, 0, X),
};
STRUCT(s_member, "MemberMetadata");
static const cs_field v_group_f[] = {
    P("protocol_type", CS_STRING, 0, X),
    P("generation", CS_INT32, 0, X),
    PN("protocol", CS_STRING, 0, X, 0, X),
    PN("leader", CS_STRING, 0, X, 0, X),
    PD("current_state_timestamp", CS_INT64, 2, X, -1),
    AS("members", s_member, 0, X),
};
STRUCT(v_group, "GroupMetadataValue");
MSG(m_v_group, "GroupMetadataValue", v_group, 0, 4, 4);

/* ---- consumer groups (KIP-848): types 3-8, 16 (v0, flexible) ------------- */

static const cs_field v_cg_meta_f[] = {
    P("epoch", CS_INT32, 0, X),
    T("metadata_hash", CS_INT64, 0, 0, 0),     /* 4.1 (KIP-1101) */
    T("creation_time_ms", CS_INT64, 1, 0, -1), /* KIP-1282 */
};
STRUCT(v_cg_meta, "ConsumerGroupMetadataValue");
MSG(m_v_cg_meta, "ConsumerGroupMetadataValue", v_cg_meta, 0, 0, 0);

MSG(m_v_cg_part_meta, "ConsumerGroupPartitionMetadataValue", v_partition_meta, 0, 0, 0);

static const cs_field s_classic_proto_f[] = {
    P("name", CS_STRING, 0, X),
    P("metadata", CS_BYTES, 0, X),
};
STRUCT(s_classic_proto, "ClassicProtocol");
static const cs_field s_classic_member_f[] = {
    P("session_timeout_ms", CS_INT32, 0, X),
    AS("supported_protocols", s_classic_proto, 0, X),
};
STRUCT(s_classic_member, "ClassicMemberMetadata");
static const cs_field v_cg_member_f[] = {
    PN("instance_id", CS_STRING, 0, X, 0, X),
    PN("rack_id", CS_STRING, 0, X, 0, X),
    P("client_id", CS_STRING, 0, X),
    P("client_host", CS_STRING, 0, X),
    A("subscribed_topic_names", CS_STRING, 0, X),
    PN("subscribed_topic_regex", CS_STRING, 0, X, 0, X),
    PD("rebalance_timeout_ms", CS_INT32, 0, X, -1),
    PN("server_assignor", CS_STRING, 0, X, 0, X),
    TSN("classic_member_metadata", s_classic_member, 0, 0),
};
STRUCT(v_cg_member, "ConsumerGroupMemberMetadataValue");
MSG(m_v_cg_member, "ConsumerGroupMemberMetadataValue", v_cg_member, 0, 0, 0);

static const cs_field v_cg_target_meta_f[] = {
    P("assignment_epoch", CS_INT32, 0, X),
    T("assignment_timestamp", CS_INT64, 0, 0, 0), /* 4.3 (KIP-1263) */
};
STRUCT(v_cg_target_meta, "ConsumerGroupTargetAssignmentMetadataValue");
MSG(m_v_cg_target_meta, "ConsumerGroupTargetAssignmentMetadataValue", v_cg_target_meta, 0, 0, 0);

static const cs_field v_topic_parts_list_f[] = {
    AS("topic_partitions", s_topic_parts, 0, X),
};
STRUCT(v_topic_parts_list, "TargetAssignmentMemberValue");
MSG(m_v_cg_target_member, "ConsumerGroupTargetAssignmentMemberValue", v_topic_parts_list, 0, 0, 0);

static const cs_field s_cg_topic_parts_f[] = {
    P("topic_id", CS_UUID, 0, X),
    A("partitions", CS_INT32, 0, X),
    TAN("assignment_epochs", CS_INT32, 0, 0), /* KIP-1251 */
};
STRUCT(s_cg_topic_parts, "TopicPartitions");
static const cs_field v_cg_current_f[] = {
    P("member_epoch", CS_INT32, 0, X),
    P("previous_member_epoch", CS_INT32, 0, X),
    P("state", CS_INT8, 0, X),
    AS("assigned_partitions", s_cg_topic_parts, 0, X),
    AS("partitions_pending_revocation", s_cg_topic_parts, 0, X),
};
STRUCT(v_cg_current, "ConsumerGroupCurrentMemberAssignmentValue");
MSG(m_v_cg_current, "ConsumerGroupCurrentMemberAssignmentValue", v_cg_current, 0, 0, 0);

static const cs_field v_cg_regex_f[] = {
    A("topics", CS_STRING, 0, X),
    P("version", CS_INT64, 0, X),
    P("timestamp", CS_INT64, 0, X),
};
STRUCT(v_cg_regex, "ConsumerGroupRegularExpressionValue");
MSG(m_v_cg_regex, "ConsumerGroupRegularExpressionValue", v_cg_regex, 0, 0, 0);

/* ---- share groups (KIP-932): types 9-15 (v0, flexible) ------------------- */

MSG(m_v_sg_part_meta, "ShareGroupPartitionMetadataValue", v_partition_meta, 0, 0, 0);

static const cs_field s_topic_parts_info_f[] = {
    P("topic_id", CS_UUID, 0, X),
    P("topic_name", CS_STRING, 0, X),
    A("partitions", CS_INT32, 0, X),
};
STRUCT(s_topic_parts_info, "TopicPartitionsInfo");
static const cs_field s_topic_info_f[] = {
    P("topic_id", CS_UUID, 0, X),
    P("topic_name", CS_STRING, 0, X),
};
STRUCT(s_topic_info, "TopicInfo");
static const cs_field v_sg_state_f[] = {
    AS("initialized_topics", s_topic_parts_info, 0, X),
    AS("deleting_topics", s_topic_info, 0, X),
};
STRUCT(v_sg_state, "ShareGroupStatePartitionMetadataValue");
MSG(m_v_sg_state, "ShareGroupStatePartitionMetadataValue", v_sg_state, 0, 0, 0);
/* Kafka 3.9's ShareGroupPartitionMetadataValue (type 9) had this shape. */
MSG(m_v_sg_part_meta_39, "ShareGroupPartitionMetadataValue (3.9)", v_sg_state, 0, 0, 0);

/* Later trunk ShareGroupStatePartitionMetadataValue: InitializingTopics first,
 * CreateTimestamp in TopicPartitionsInfo. */
static const cs_field s_topic_parts_info2_f[] = {
    P("topic_id", CS_UUID, 0, X),
    P("topic_name", CS_STRING, 0, X),
    A("partitions", CS_INT32, 0, X),
    P("create_timestamp", CS_INT64, 0, X),
};
STRUCT(s_topic_parts_info2, "TopicPartitionsInfo");
static const cs_field v_sg_state2_f[] = {
    AS("initializing_topics", s_topic_parts_info2, 0, X),
    AS("initialized_topics", s_topic_parts_info2, 0, X),
    AS("deleting_topics", s_topic_info, 0, X),
};
STRUCT(v_sg_state2, "ShareGroupStatePartitionMetadataValue");
MSG(m_v_sg_state2, "ShareGroupStatePartitionMetadataValue (later)", v_sg_state2, 0, 0, 0);

/* Kafka 4.4.0's ShareGroupStatePartitionMetadataValue (the same version 0):
 * InitializingTopics first, TopicPartitionsInfo without CreateTimestamp, as
 * the broker suite's clean scenario found it written (docs/formats.md §23). */
static const cs_field v_sg_state44_f[] = {
    AS("initializing_topics", s_topic_parts_info, 0, X),
    AS("initialized_topics", s_topic_parts_info, 0, X),
    AS("deleting_topics", s_topic_info, 0, X),
};
STRUCT(v_sg_state44, "ShareGroupStatePartitionMetadataValue");
MSG(m_v_sg_state44, "ShareGroupStatePartitionMetadataValue (4.4)", v_sg_state44, 0, 0, 0);

static const cs_field v_sg_member_f[] = {
    PN("rack_id", CS_STRING, 0, X, 0, X),
    P("client_id", CS_STRING, 0, X),
    P("client_host", CS_STRING, 0, X),
    A("subscribed_topic_names", CS_STRING, 0, X),
};
STRUCT(v_sg_member, "ShareGroupMemberMetadataValue");
MSG(m_v_sg_member, "ShareGroupMemberMetadataValue", v_sg_member, 0, 0, 0);

static const cs_field v_epoch_f[] = {
    P("epoch", CS_INT32, 0, X),
};
STRUCT(v_epoch, "EpochValue");
MSG(m_v_sg_meta, "ShareGroupMetadataValue", v_epoch, 0, 0, 0);

/* Later trunk ShareGroupMetadataValue: + MetadataHash, not tagged. */
static const cs_field v_sg_meta2_f[] = {
    P("epoch", CS_INT32, 0, X),
    P("metadata_hash", CS_INT64, 0, X),
};
STRUCT(v_sg_meta2, "ShareGroupMetadataValue");
MSG(m_v_sg_meta2, "ShareGroupMetadataValue (later)", v_sg_meta2, 0, 0, 0);

static const cs_field v_assignment_epoch_f[] = {
    P("assignment_epoch", CS_INT32, 0, X),
};
STRUCT(v_assignment_epoch, "TargetAssignmentMetadataValue");
MSG(m_v_sg_target_meta, "ShareGroupTargetAssignmentMetadataValue", v_assignment_epoch, 0, 0, 0);
MSG(m_v_sg_target_member, "ShareGroupTargetAssignmentMemberValue", v_topic_parts_list, 0, 0, 0);

static const cs_field v_sg_current_f[] = {
    P("member_epoch", CS_INT32, 0, X),
    P("previous_member_epoch", CS_INT32, 0, X),
    P("state", CS_INT8, 0, X),
    AS("assigned_partitions", s_topic_parts, 0, X),
};
STRUCT(v_sg_current, "ShareGroupCurrentMemberAssignmentValue");
MSG(m_v_sg_current, "ShareGroupCurrentMemberAssignmentValue", v_sg_current, 0, 0, 0);

/* ---- streams groups (KIP-1071): types 17-24 (v0, flexible) ---------------- */

MSG(m_v_st_meta, "StreamsGroupMetadataValue", v_epoch, 0, 0, 0);

/* Later trunk StreamsGroupMetadataValue. */
static const cs_field v_st_meta2_f[] = {
    P("epoch", CS_INT32, 0, X),
    P("metadata_hash", CS_INT64, 0, X),
    T("validated_topology_epoch", CS_INT32, 0, 0, -1),
    AS("assignment_configs", s_kv, 0, X),
};
STRUCT(v_st_meta2, "StreamsGroupMetadataValue");
MSG(m_v_st_meta2, "StreamsGroupMetadataValue (later)", v_st_meta2, 0, 0, 0);

MSG(m_v_st_part_meta, "StreamsGroupPartitionMetadataValue", v_partition_meta, 0, 0, 0);

static const cs_field s_endpoint_f[] = {
    P("host", CS_STRING, 0, X),
    P("port", CS_UINT16, 0, X),
};
STRUCT(s_endpoint, "Endpoint");
static const cs_field v_st_member_f[] = {
    PN("instance_id", CS_STRING, 0, X, 0, X),
    PN("rack_id", CS_STRING, 0, X, 0, X),
    P("client_id", CS_STRING, 0, X),
    P("client_host", CS_STRING, 0, X),
    PD("rebalance_timeout_ms", CS_INT32, 0, X, -1),
    P("topology_epoch", CS_INT32, 0, X),
    P("process_id", CS_STRING, 0, X),
    SN("user_endpoint", s_endpoint, 0, X, 0, X),
    AS("client_tags", s_kv, 0, X),
};
STRUCT(v_st_member, "StreamsGroupMemberMetadataValue");
MSG(m_v_st_member, "StreamsGroupMemberMetadataValue", v_st_member, 0, 0, 0);

MSG(m_v_st_target_meta, "StreamsGroupTargetAssignmentMetadataValue", v_assignment_epoch, 0, 0, 0);

static const cs_field v_st_target_member_f[] = {
    AS("active_tasks", s_task_ids, 0, X),
    AS("standby_tasks", s_task_ids, 0, X),
    AS("warmup_tasks", s_task_ids, 0, X),
};
STRUCT(v_st_target_member, "StreamsGroupTargetAssignmentMemberValue");
MSG(m_v_st_target_member, "StreamsGroupTargetAssignmentMemberValue", v_st_target_member, 0, 0, 0);

static const cs_field v_st_current_f[] = {
    P("member_epoch", CS_INT32, 0, X),
    P("previous_member_epoch", CS_INT32, 0, X),
    P("state", CS_INT8, 0, X),
    AS("active_tasks", s_task_ids, 0, X),
    AS("standby_tasks", s_task_ids, 0, X),
    AS("warmup_tasks", s_task_ids, 0, X),
    AS("active_tasks_pending_revocation", s_task_ids, 0, X),
    AS("standby_tasks_pending_revocation", s_task_ids, 0, X),
    AS("warmup_tasks_pending_revocation", s_task_ids, 0, X),
};
STRUCT(v_st_current, "StreamsGroupCurrentMemberAssignmentValue");
MSG(m_v_st_current, "StreamsGroupCurrentMemberAssignmentValue", v_st_current, 0, 0, 0);

static const cs_field s_st_topic_info_f[] = {
    P("name", CS_STRING, 0, X),
    P("partitions", CS_INT32, 0, X),
    P("replication_factor", CS_INT16, 0, X),
    AS("topic_configs", s_kv, 0, X),
};
STRUCT(s_st_topic_info, "TopicInfo");
static const cs_field s_copartition_f[] = {
    A("source_topics", CS_INT16, 0, X),
    A("source_topic_regex", CS_INT16, 0, X),
    A("repartition_source_topics", CS_INT16, 0, X),
};
STRUCT(s_copartition, "CopartitionGroup");
static const cs_field s_subtopology_f[] = {
    P("subtopology_id", CS_STRING, 0, X),
    A("source_topics", CS_STRING, 0, X),
    A("source_topic_regex", CS_STRING, 0, X),
    AS("state_changelog_topics", s_st_topic_info, 0, X),
    A("repartition_sink_topics", CS_STRING, 0, X),
    AS("repartition_source_topics", s_st_topic_info, 0, X),
    AS("copartition_groups", s_copartition, 0, X),
};
STRUCT(s_subtopology, "Subtopology");
static const cs_field v_st_topology_f[] = {
    P("epoch", CS_INT32, 0, X),
    AS("subtopologies", s_subtopology, 0, X),
};
STRUCT(v_st_topology, "StreamsGroupTopologyValue");
MSG(m_v_st_topology, "StreamsGroupTopologyValue", v_st_topology, 0, 0, 0);

static const cs_field s_resolved_f[] = {
    P("subtopology_id", CS_STRING, 0, X),
    A("topic_ids", CS_UUID, 0, X),
};
STRUCT(s_resolved, "ResolvedTopicIds");
static const cs_field v_st_resolved_f[] = {
    P("assignment_epoch", CS_INT32, 0, X),
    AS("resolved_topic_ids_by_subtopology", s_resolved, 0, X),
};
STRUCT(v_st_resolved, "StreamsGroupTargetAssignmentResolvedTopicIdsValue");
MSG(m_v_st_resolved, "StreamsGroupTargetAssignmentResolvedTopicIdsValue", v_st_resolved, 0, 0, 0);

/* ---- __transaction_state: TransactionLogValue (v0-v1, flexible 1+) -------- */

static const cs_field s_txn_parts_f[] = {
    P("topic", CS_STRING, 0, X),
    A("partition_ids", CS_INT32, 0, X),
};
STRUCT(s_txn_parts, "PartitionsSchema");
static const cs_field v_txn_f[] = {
    P("producer_id", CS_INT64, 0, X),
    T("previous_producer_id", CS_INT64, 0, 1, -1),
    T("next_producer_id", CS_INT64, 1, 1, -1),
    P("producer_epoch", CS_INT16, 0, X),
    P("transaction_timeout_ms", CS_INT32, 0, X),
    P("transaction_status", CS_INT8, 0, X),
    ASN("transaction_partitions", s_txn_parts, 0, X, 0, X),
    P("transaction_last_update_timestamp_ms", CS_INT64, 0, X),
    P("transaction_start_timestamp_ms", CS_INT64, 0, X),
    T("client_transaction_version", CS_INT16, 2, 1, 0),
};
STRUCT(v_txn, "TransactionLogValue");
MSG(m_v_txn, "TransactionLogValue", v_txn, 0, 1, 1);

/* ---- consumer protocol (non-flexible, v0-v3) ------------------------------ */

static const cs_field s_cp_owned_f[] = {
    P("topic", CS_STRING, 1, X),
    A("partitions", CS_INT32, 1, X),
};
STRUCT(s_cp_owned, "TopicPartition");
static const cs_field cp_sub_f[] = {
    A("topics", CS_STRING, 0, X),
    PN("user_data", CS_BYTES, 0, X, 0, X),
    AS("owned_partitions", s_cp_owned, 1, X),
    PD("generation_id", CS_INT32, 2, X, -1),
    PN("rack_id", CS_STRING, 3, X, 3, X),
};
STRUCT(cp_sub, "ConsumerProtocolSubscription");
const cs_message kf_cs_consumer_subscription = { "ConsumerProtocolSubscription", &cp_sub, 0, 3, -1 };

static const cs_field s_cp_assigned_f[] = {
    P("topic", CS_STRING, 0, X),
    A("partitions", CS_INT32, 0, X),
};
STRUCT(s_cp_assigned, "TopicPartition");
static const cs_field cp_asg_f[] = {
    AS("assigned_partitions", s_cp_assigned, 0, X),
    PN("user_data", CS_BYTES, 0, X, 0, X),
};
STRUCT(cp_asg, "ConsumerProtocolAssignment");
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

const cs_record *kf_cs_records(int topic, uint32_t *n)
{
    if (topic == KF_COORD_SHARE)
        return kf_cs_share_records(n);
    if (topic == KF_COORD_TXN) {
        *n = (uint32_t)(sizeof txn_records / sizeof txn_records[0]);
        return txn_records;
    }
    *n = (uint32_t)(sizeof offsets_records / sizeof offsets_records[0]);
    return offsets_records;
}

const cs_record *kf_cs_find(const cs_record *recs, uint32_t n, int16_t type)
{
    /* every table is sorted by type, strictly (test_coord checks it), and
     * mostly dense from 0: the entry at index type is mostly the one */
    if (type >= 0 && (uint32_t)type < n && recs[type].type == type)
        return &recs[type];
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (recs[mid].type < type)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && recs[lo].type == type ? &recs[lo] : NULL;
}

const cs_record *kf_cs_lookup(int topic, int16_t type)
{
    if (topic != KF_COORD_OFFSETS && topic != KF_COORD_TXN && topic != KF_COORD_SHARE)
        return NULL;
    uint32_t n;
    const cs_record *r = kf_cs_records(topic, &n);
    return kf_cs_find(r, n, type);
}
