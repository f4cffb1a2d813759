/* remote_schema.c: the schema table of __remote_log_metadata, the topic of
 * tiered storage's topic-based remote log metadata manager: apiKeys 0-2
 * (segment metadata, segment metadata update, partition delete) and 3 (the
 * snapshot record of the 3.6-3.7 remote_log_snapshot file), all version 0,
 * flexible, in the KRaft metadata envelope (docs/formats.md §16), for the
 * generic decoder of coord_decode.c.
 *
 * Written from Kafka's storage message schemas (docs/formats.md §16).
 * CustomMetadata was inserted at version 0 in 3.6 and TxnIndexEmpty (tag 0)
 * added in 4.0; the 3.0-3.5 layout was never usable and is not listed. */
#include "records/cs_macros.h"

#define TP(n, k, tag, tlo, d) TG(n, k, 0, NULL, tag, tlo, 1, 0, d)
#define INLINE(n, s) FLD(n, CS_STRUCT, 0, &s, 0, X, 1, 0, 0)

static const cs_field s_tip_f[] = {
    P("name", CS_STRING, 0, X),
    P("id", CS_UUID, 0, X),
    P("partition", CS_INT32, 0, X),
};
STRUCT(s_tip, "TopicIdPartitionEntry");

static const cs_field s_segment_id_f[] = {
    INLINE("topic_id_partition", s_tip),
    P("id", CS_UUID, 0, X),
};
STRUCT(s_segment_id, "RemoteLogSegmentIdEntry");

static const cs_field s_leader_epoch_f[] = {
    P("leader_epoch", CS_INT32, 0, X),
    P("offset", CS_INT64, 0, X),
};
STRUCT(s_leader_epoch, "SegmentLeaderEpochEntry");

/* ---- 0 RemoteLogSegmentMetadataRecord ------------------------------------------ */

/* A segment's metadata after its id, the same in records 0 and 3. */
#define SEGMENT_METADATA_FIELDS                          \
    P("start_offset", CS_INT64, 0, X),                   \
    P("end_offset", CS_INT64, 0, X),                     \
    P("broker_id", CS_INT32, 0, X),                      \
    P("max_timestamp_ms", CS_INT64, 0, X),               \
    P("event_timestamp_ms", CS_INT64, 0, X),             \
    AS("segment_leader_epochs", s_leader_epoch, 0, X),   \
    P("segment_size_in_bytes", CS_INT32, 0, X),          \
    PN("custom_metadata", CS_BYTES, 0, X, 0, X),         \
    P("remote_log_segment_state", CS_INT8, 0, X),        \
    TP("txn_index_empty", CS_BOOL, 0, 0, 0)

static const cs_field r_segment_f[] = {
    INLINE("remote_log_segment_id", s_segment_id),
    SEGMENT_METADATA_FIELDS,
};
STRUCT(r_segment, "RemoteLogSegmentMetadataRecord");
MSG(m_segment, "RemoteLogSegmentMetadataRecord", r_segment, 0, 0, 0);

/* ---- 1 RemoteLogSegmentMetadataUpdateRecord ------------------------------------ */

static const cs_field r_segment_update_f[] = {
    INLINE("remote_log_segment_id", s_segment_id),
    P("broker_id", CS_INT32, 0, X),
    P("event_timestamp_ms", CS_INT64, 0, X),
    PN("custom_metadata", CS_BYTES, 0, X, 0, X),
    P("remote_log_segment_state", CS_INT8, 0, X),
};
STRUCT(r_segment_update, "RemoteLogSegmentMetadataUpdateRecord");
MSG(m_segment_update, "RemoteLogSegmentMetadataUpdateRecord", r_segment_update, 0, 0, 0);

/* ---- 2 RemotePartitionDeleteMetadataRecord ------------------------------------- */

static const cs_field r_partition_delete_f[] = {
    INLINE("topic_id_partition", s_tip),
    P("broker_id", CS_INT32, 0, X),
    P("event_timestamp_ms", CS_INT64, 0, X),
    P("remote_partition_delete_state", CS_INT8, 0, X),
};
STRUCT(r_partition_delete, "RemotePartitionDeleteMetadataRecord");
MSG(m_partition_delete, "RemotePartitionDeleteMetadataRecord", r_partition_delete, 0, 0, 0);

/* ---- 3 RemoteLogSegmentMetadataSnapshotRecord ---------------------------------- */

static const cs_field r_segment_snapshot_f[] = {
    P("segment_id", CS_UUID, 0, X),
    SEGMENT_METADATA_FIELDS,
};
STRUCT(r_segment_snapshot, "RemoteLogSegmentMetadataSnapshotRecord");
MSG(m_segment_snapshot, "RemoteLogSegmentMetadataSnapshotRecord", r_segment_snapshot, 0, 0, 0);

static const cs_record remote_records[] = {
    { 0, "remote_log_segment_metadata", NULL, &m_segment, NULL, NULL, 0, 0 },
    { 1, "remote_log_segment_metadata_update", NULL, &m_segment_update, NULL, NULL, 0, 0 },
    { 2, "remote_partition_delete_metadata", NULL, &m_partition_delete, NULL, NULL, 0, 0 },
    { 3, "remote_log_segment_metadata_snapshot", NULL, &m_segment_snapshot, NULL, NULL, 0, 0 },
};

const cs_record *kf_cs_remote_records(uint32_t *n)
{
    *n = (uint32_t)(sizeof remote_records / sizeof remote_records[0]);
    return remote_records;
}
