/* remote_schema.c: the schema table of __remote_log_metadata, the topic of
 * tiered storage's topic-based remote log metadata manager: apiKeys 0-2
 * (segment metadata, segment metadata update, partition delete) and 3 (the
 * snapshot record of the 3.6-3.7 remote_log_snapshot file), all version 0,
 * flexible, in the KRaft metadata envelope (docs/formats.md §16), for the
 * generic decoder of coord_decode.c.
 *
 * Written from Kafka's storage message schemas (docs/formats.md §16).
 * CustomMetadata was inserted at version 0 in 3.6 and TxnIndexEmpty (tag 0)
 * added in 4.0; the 3.0-3.5 layout was never usable and is not listed.
 * Fields are in the notation of cs_parse_fields (coord_internal.h). */
#include "records/cs_macros.h"

STRUCT(s_tip, "TopicIdPartitionEntry", "name:string id:uuid partition:int32");

STRUCT(s_segment_id, "RemoteLogSegmentIdEntry", "topic_id_partition:TopicIdPartitionEntry id:uuid", &s_tip);

STRUCT(s_leader_epoch, "SegmentLeaderEpochEntry", "leader_epoch:int32 offset:int64");

/* ---- 0 RemoteLogSegmentMetadataRecord ------------------------------------------ */

/* A segment's metadata after its id, the same in records 0 and 3. */
#define SEGMENT_METADATA                                                                                 \
    "start_offset:int64 end_offset:int64 broker_id:int32 max_timestamp_ms:int64 event_timestamp_ms:int64 " \
    "segment_leader_epochs:[SegmentLeaderEpochEntry] segment_size_in_bytes:int32 custom_metadata:bytes? "   \
    "remote_log_segment_state:int8 txn_index_empty:bool#0"

MESSAGE(m_segment, "RemoteLogSegmentMetadataRecord", 0, 0, 0,
        "remote_log_segment_id:RemoteLogSegmentIdEntry " SEGMENT_METADATA, &s_segment_id, &s_leader_epoch);

/* ---- 1 RemoteLogSegmentMetadataUpdateRecord ------------------------------------ */

MESSAGE(m_segment_update, "RemoteLogSegmentMetadataUpdateRecord", 0, 0, 0,
        "remote_log_segment_id:RemoteLogSegmentIdEntry broker_id:int32 event_timestamp_ms:int64 "
        "custom_metadata:bytes? remote_log_segment_state:int8", &s_segment_id);

/* ---- 2 RemotePartitionDeleteMetadataRecord ------------------------------------- */

MESSAGE(m_partition_delete, "RemotePartitionDeleteMetadataRecord", 0, 0, 0,
        "topic_id_partition:TopicIdPartitionEntry broker_id:int32 event_timestamp_ms:int64 "
        "remote_partition_delete_state:int8", &s_tip);

/* ---- 3 RemoteLogSegmentMetadataSnapshotRecord ---------------------------------- */

MESSAGE(m_segment_snapshot, "RemoteLogSegmentMetadataSnapshotRecord", 0, 0, 0,
        "segment_id:uuid " SEGMENT_METADATA, &s_leader_epoch);

static const cs_record remote_records[] = {
    { 0, "remote_log_segment_metadata", NULL, &m_segment, NULL, NULL, 0, 0 },
    { 1, "remote_log_segment_metadata_update", NULL, &m_segment_update, NULL, NULL, 0, 0 },
    { 2, "remote_partition_delete_metadata", NULL, &m_partition_delete, NULL, NULL, 0, 0 },
    { 3, "remote_log_segment_metadata_snapshot", NULL, &m_segment_snapshot, NULL, NULL, 0, 0 },
};

const cs_table cs_remote_table = CS_TABLE(remote_records);
