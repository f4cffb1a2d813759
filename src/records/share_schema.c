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

static const cs_field k_share_f[] = {
    P("group_id", CS_STRING, 0, 0),
    P("topic_id", CS_UUID, 0, 0),
    P("partition", CS_INT32, 0, 0),
};
STRUCT(k_share, "ShareKey");
MSG(m_k_snapshot, "ShareSnapshotKey", k_share, 0, 0, -1);
MSG(m_k_update, "ShareUpdateKey", k_share, 0, 0, -1);

/* ---- StateBatch ------------------------------------------------------------ */

static const cs_field s_state_batch_f[] = {
    P("first_offset", CS_INT64, 0, X),
    P("last_offset", CS_INT64, 0, X),
    P("delivery_state", CS_INT8, 0, X),
    P("delivery_count", CS_INT16, 0, X),
};
STRUCT(s_state_batch, "StateBatch");

/* ---- type 0: ShareSnapshotValue (v0, flexible) ----------------------------- */

static const cs_field v_snapshot_f[] = {
    P("snapshot_epoch", CS_INT32, 0, X),
    P("state_epoch", CS_INT32, 0, X),
    P("leader_epoch", CS_INT32, 0, X),
    P("start_offset", CS_INT64, 0, X),
    T("delivery_complete_count", CS_INT32, 0, 0, -1), /* 4.2+ (KIP-1226) */
    P("create_timestamp", CS_INT64, 0, X),
    P("write_timestamp", CS_INT64, 0, X),
    AS("state_batches", s_state_batch, 0, X),
};
STRUCT(v_snapshot, "ShareSnapshotValue");
MSG(m_v_snapshot, "ShareSnapshotValue", v_snapshot, 0, 0, 0);

/* Kafka 4.0: SnapshotEpoch uint16, no timestamps. */
static const cs_field v_snapshot_40_f[] = {
    P("snapshot_epoch", CS_UINT16, 0, X),
    P("state_epoch", CS_INT32, 0, X),
    P("leader_epoch", CS_INT32, 0, X),
    P("start_offset", CS_INT64, 0, X),
    AS("state_batches", s_state_batch, 0, X),
};
STRUCT(v_snapshot_40, "ShareSnapshotValue");
MSG(m_v_snapshot_40, "ShareSnapshotValue (4.0)", v_snapshot_40, 0, 0, 0);

/* ---- type 1: ShareUpdateValue (v0, flexible) ------------------------------- */

static const cs_field v_update_f[] = {
    P("snapshot_epoch", CS_INT32, 0, X),
    P("leader_epoch", CS_INT32, 0, X),
    P("start_offset", CS_INT64, 0, X),
    T("delivery_complete_count", CS_INT32, 0, 0, -1), /* 4.2+ */
    AS("state_batches", s_state_batch, 0, X),
};
STRUCT(v_update, "ShareUpdateValue");
MSG(m_v_update, "ShareUpdateValue", v_update, 0, 0, 0);

static const cs_field v_update_40_f[] = {
    P("snapshot_epoch", CS_UINT16, 0, X),
    P("leader_epoch", CS_INT32, 0, X),
    P("start_offset", CS_INT64, 0, X),
    AS("state_batches", s_state_batch, 0, X),
};
STRUCT(v_update_40, "ShareUpdateValue");
MSG(m_v_update_40, "ShareUpdateValue (4.0)", v_update_40, 0, 0, 0);

/* ---- the record types -------------------------------------------------------- */

static const cs_message *const alt_snapshot[] = { &m_v_snapshot_40 };
static const cs_message *const alt_update[] = { &m_v_update_40 };

static const cs_record share_records[] = {
    { 0, "share_snapshot", &m_k_snapshot, &m_v_snapshot, NULL, alt_snapshot, 1, 0 },
    { 1, "share_update", &m_k_update, &m_v_update, NULL, alt_update, 1, 0 },
};

const cs_record *kf_cs_share_records(uint32_t *n)
{
    *n = (uint32_t)(sizeof share_records / sizeof share_records[0]);
    return share_records;
}
