/* share_schema.c: the schema table of __share_group_state, the share
 * coordinator's topic (KIP-932): key types 0 (ShareSnapshotKey) and 1
 * (ShareUpdateKey), each with a version-0 flexible value, in the
 * coordinator record format (int16 key type + non-flexible key, int16 value
 * version + body; docs/formats.md §15), for the generic decoder of
 * coord_decode.c.
 *
 * Written from Kafka's share-coordinator message schemas (docs/formats.md
 * §15). The values changed shape at version 0 between 4.0 and 4.1
 * (SnapshotEpoch uint16 -> int32, timestamps added); the 4.0 layouts are
 * listed as alternatives that the decoder tries when the 4.1+ layout does
 * not decode cleanly (the decoded record then names the layout used).
 * DeliveryCompleteCount (tag 0) is 4.2+; older readers skip it. */
#include "records/cs_macros.h"

/* ---- keys: GroupId, TopicId, Partition (version 0, non-flexible) ---------- */

STRUCT(k_share, "ShareKey", "group_id:string topic_id:uuid partition:int32");
MSG(m_k_snapshot, "ShareSnapshotKey", k_share, 0, 0, -1);
MSG(m_k_update, "ShareUpdateKey", k_share, 0, 0, -1);

/* ---- StateBatch ------------------------------------------------------------ */

STRUCT(s_state_batch, "StateBatch", "first_offset:int64 last_offset:int64 delivery_state:int8 delivery_count:int16");

/* ---- type 0: ShareSnapshotValue (v0, flexible) ----------------------------- */

/* delivery_complete_count: 4.2+ (KIP-1226) */
MESSAGE(m_v_snapshot, "ShareSnapshotValue", 0, 0, 0,
        "snapshot_epoch:int32 state_epoch:int32 leader_epoch:int32 start_offset:int64 "
        "delivery_complete_count:int32#0=-1 create_timestamp:int64 write_timestamp:int64 "
        "state_batches:[StateBatch]", &s_state_batch);

/* Kafka 4.0: SnapshotEpoch uint16, no timestamps. */
MESSAGE(m_v_snapshot_40, "ShareSnapshotValue (4.0)", 0, 0, 0,
        "snapshot_epoch:uint16 state_epoch:int32 leader_epoch:int32 start_offset:int64 "
        "state_batches:[StateBatch]", &s_state_batch);

/* ---- type 1: ShareUpdateValue (v0, flexible) ------------------------------- */

/* delivery_complete_count: 4.2+ */
MESSAGE(m_v_update, "ShareUpdateValue", 0, 0, 0,
        "snapshot_epoch:int32 leader_epoch:int32 start_offset:int64 delivery_complete_count:int32#0=-1 "
        "state_batches:[StateBatch]", &s_state_batch);

MESSAGE(m_v_update_40, "ShareUpdateValue (4.0)", 0, 0, 0,
        "snapshot_epoch:uint16 leader_epoch:int32 start_offset:int64 state_batches:[StateBatch]", &s_state_batch);

/* ---- the record types -------------------------------------------------------- */

static const cs_message *const alt_snapshot[] = { &m_v_snapshot_40 };
static const cs_message *const alt_update[] = { &m_v_update_40 };

static const cs_record share_records[] = {
    { 0, "share_snapshot", &m_k_snapshot, &m_v_snapshot, NULL, alt_snapshot, 1, 0 },
    { 1, "share_update", &m_k_update, &m_v_update, NULL, alt_update, 1, 0 },
};

const cs_table cs_share_table = CS_TABLE(share_records);
