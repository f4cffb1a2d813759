/* dump_entries.c: `kfsck dump`'s lines for the entries of every file that
 * is not a segment (kf_dump_entry: what kf_dump_paths reads from offset and
 * time indexes, the aborted-transaction index, producer-state snapshots,
 * the offset and leader-epoch checkpoints, partition.metadata,
 * meta.properties and KRaft's quorum-state). JSON mode prints one line per
 * entry (kfsck(1), dump: "index_entry", "txn_entry", "snapshot" +
 * "producer", "checkpoint_entry", "leader_epoch", "partition_metadata",
 * "meta_properties", "quorum_state"); text mode prints lines shaped like
 * kafka-dump-log's. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/dump_print.h"

/* ---- .index / .timeindex / .txnindex ---------------------------------------- */

static void offset_index(out *o, const kf_dump_entry *e)
{
    if (o->json) {
        out_begin(o, "index_entry");
        out_str(o, "file", e->file);
        out_int(o, "offset", e->offset);
        out_int(o, "position", e->position);
        out_end(o);
    } else {
        out_text(o, "offset: %" PRId64 " position: %" PRId64 "\n", e->offset, e->position);
    }
}

static void time_index(out *o, const kf_dump_entry *e)
{
    if (o->json) {
        out_begin(o, "index_entry");
        out_str(o, "file", e->file);
        out_int(o, "timestamp", e->timestamp);
        out_int(o, "offset", e->offset);
        out_end(o);
    } else {
        out_text(o, "timestamp: %" PRId64 " offset: %" PRId64 "\n", e->timestamp, e->offset);
    }
}

static void txn_index(out *o, const kf_dump_entry *de)
{
    const kf_txn_entry *e = &de->txn;
    if (o->json) {
        out_begin(o, "txn_entry");
        out_str(o, "file", de->file);
        out_int(o, "version", e->version);
        out_int(o, "producer_id", e->producer_id);
        out_int(o, "first_offset", e->first_offset);
        out_int(o, "last_offset", e->last_offset);
        out_int(o, "last_stable_offset", e->last_stable_offset);
        out_end(o);
    } else {
        out_text(o,
                 "version: %d producerId: %" PRId64 " firstOffset: %" PRId64 " lastOffset: %" PRId64
                 " lastStableOffset: %" PRId64 "\n",
                 e->version, e->producer_id, e->first_offset, e->last_offset, e->last_stable_offset);
    }
}

/* ---- .snapshot ------------------------------------------------------------ */

static void producer(out *o, const kf_dump_entry *de)
{
    const kf_producer_snapshot_entry *e = &de->producer;
    if (o->json) {
        out_begin(o, "producer");
        out_str(o, "file", de->file);
        out_int(o, "producer_id", e->producer_id);
        out_int(o, "producer_epoch", e->producer_epoch);
        out_int(o, "last_sequence", e->last_sequence);
        out_int(o, "last_offset", e->last_offset);
        out_int(o, "offset_delta", e->offset_delta);
        out_int(o, "timestamp", e->timestamp);
        out_int(o, "coordinator_epoch", e->coordinator_epoch);
        out_int(o, "current_txn_first_offset", e->current_txn_first_offset);
        out_end(o);
        return;
    }
    out_text(o, "producerId: %" PRId64 " producerEpoch: %d coordinatorEpoch: %" PRId32 " currentTxnFirstOffset: ",
             e->producer_id, e->producer_epoch, e->coordinator_epoch);
    if (e->current_txn_first_offset >= 0)
        out_text(o, "OptionalLong[%" PRId64 "]", e->current_txn_first_offset);
    else
        out_text(o, "OptionalLong.empty");
    out_text(o, " lastTimestamp: %" PRId64 " ", e->timestamp);
    if (e->last_offset >= 0)
        out_text(o,
                 "firstSequence: %" PRId32 " lastSequence: %" PRId32 " lastOffset: %" PRId64 " offsetDelta: %" PRId32
                 " timestamp: %" PRId64,
                 kf_sequence_add(e->last_sequence, -(int64_t)e->offset_delta), e->last_sequence, e->last_offset,
                 e->offset_delta, e->timestamp);
    out_text(o, "\n");
}

static void snapshot(out *o, const kf_dump_entry *e)
{
    const kf_producer_snapshot *s = e->snapshot;
    if (!o->json)
        return;
    out_begin(o, "snapshot");
    out_str(o, "file", e->file);
    out_opt_int(o, "version", s->size >= 2, s->version);
    if (s->size >= 6) {
        out_uint(o, "crc", s->crc);
        out_bool(o, "crc_ok", s->crc_ok);
    } else {
        out_null(o, "crc");
        out_null(o, "crc_ok");
    }
    out_opt_int(o, "count", s->size >= KF_PRODUCER_SNAPSHOT_HEADER_SIZE, s->count);
    out_end(o);
}

/* ---- checkpoints and metadata files -------------------------------------------- */

static void checkpoint(out *o, const kf_dump_entry *de)
{
    const kf_checkpoint_entry *e = de->checkpoint;
    if (o->json) {
        if (e->topic) {
            out_begin(o, "checkpoint_entry");
            out_str(o, "file", de->file);
            out_str(o, "topic", e->topic);
            out_int(o, "partition", e->partition);
            out_int(o, "offset", e->offset);
        } else {
            out_begin(o, "leader_epoch");
            out_str(o, "file", de->file);
            out_int(o, "epoch", e->epoch);
            out_int(o, "start_offset", e->offset);
        }
        out_end(o);
    } else if (e->topic) {
        out_text(o, "topic: %s partition: %" PRId32 " offset: %" PRId64 "\n", e->topic, e->partition, e->offset);
    } else {
        out_text(o, "epoch: %" PRId32 " startOffset: %" PRId64 "\n", e->epoch, e->offset);
    }
}

static void partition_metadata(out *o, const kf_dump_entry *e)
{
    const kf_partition_metadata *pm = e->partition_metadata;
    if (o->json) {
        out_begin(o, "partition_metadata");
        out_str(o, "file", e->file);
        out_opt_int(o, "version", e->parsed || pm->version >= 0, pm->version);
        out_str(o, "topic_id", e->parsed ? pm->topic_id_b64 : NULL);
        out_end(o);
    } else if (e->parsed) {
        out_text(o, "version: %" PRId32 " topicId: %s\n", pm->version, pm->topic_id_b64);
    }
}

static void meta_properties(out *o, const kf_dump_entry *e)
{
    const kf_meta_properties *mp = e->meta;
    if (o->json) {
        out_begin(o, "meta_properties");
        out_str(o, "file", e->file);
        out_int(o, "version", mp->version);
        out_opt_int(o, "broker_id", mp->has_broker_id, mp->broker_id);
        out_opt_int(o, "node_id", mp->has_node_id, mp->node_id);
        out_str(o, "cluster_id", mp->cluster_id[0] ? mp->cluster_id : NULL);
        out_str(o, "directory_id", mp->directory_id[0] ? mp->directory_id : NULL);
        out_end(o);
    } else {
        out_text(o, "version: %" PRId32, mp->version);
        if (mp->has_broker_id)
            out_text(o, " brokerId: %" PRId32, mp->broker_id);
        if (mp->has_node_id)
            out_text(o, " nodeId: %" PRId32, mp->node_id);
        if (mp->cluster_id[0])
            out_text(o, " clusterId: %s", mp->cluster_id);
        if (mp->directory_id[0])
            out_text(o, " directoryId: %s", mp->directory_id);
        out_text(o, "\n");
    }
}

static void quorum_state(out *o, const kf_dump_entry *e)
{
    const kf_quorum_state *qs = e->quorum;
    if (o->json) {
        out_begin(o, "quorum_state");
        out_str(o, "file", e->file);
        out_opt_int(o, "data_version", qs->data_version >= 0, qs->data_version);
        out_int(o, "leader_id", qs->leader_id);
        out_int(o, "leader_epoch", qs->leader_epoch);
        out_int(o, "voted_id", qs->voted_id);
        out_str(o, "voted_directory_id", qs->has_voted_directory_id ? qs->voted_directory_id : NULL);
        out_int32s(o, "current_voters", qs->has_voters, qs->voters,
                   qs->nvoters < KF_QUORUM_MAX_VOTERS ? qs->nvoters : KF_QUORUM_MAX_VOTERS);
        if (qs->has_voters && qs->nvoters > KF_QUORUM_MAX_VOTERS) /* counted past those kept */
            out_uint(o, "current_voters_not_listed", qs->nvoters - KF_QUORUM_MAX_VOTERS);
        out_end(o);
        return;
    }
    out_text(o, "dataVersion: %" PRId32 " leaderId: %" PRId32 " leaderEpoch: %" PRId32 " votedId: %" PRId32,
             qs->data_version, qs->leader_id, qs->leader_epoch, qs->voted_id);
    if (qs->has_voted_directory_id)
        out_text(o, " votedDirectoryId: %s", qs->voted_directory_id);
    if (qs->has_voters) {
        out_text(o, " currentVoters: [");
        for (size_t i = 0; i < qs->nvoters && i < KF_QUORUM_MAX_VOTERS; i++)
            out_text(o, "%s%" PRId32, i ? "," : "", qs->voters[i]);
        if (qs->nvoters > KF_QUORUM_MAX_VOTERS)
            out_text(o, ",... and %zu more (%zu in all)", qs->nvoters - KF_QUORUM_MAX_VOTERS, qs->nvoters);
        out_text(o, "]");
    }
    out_text(o, "\n");
}

void dump_print_entry(void *ctx, const kf_dump_entry *e)
{
    out *o = ((dump_printer *)ctx)->o;
    switch (e->kind) {
    case KF_DUMP_INDEX_ENTRY: offset_index(o, e); break;
    case KF_DUMP_TIME_INDEX_ENTRY: time_index(o, e); break;
    case KF_DUMP_TXN_ENTRY: txn_index(o, e); break;
    case KF_DUMP_SNAPSHOT: snapshot(o, e); break;
    case KF_DUMP_PRODUCER: producer(o, e); break;
    case KF_DUMP_CHECKPOINT_ENTRY:
    case KF_DUMP_LEADER_EPOCH: checkpoint(o, e); break;
    case KF_DUMP_PARTITION_METADATA: partition_metadata(o, e); break;
    case KF_DUMP_META_PROPERTIES: meta_properties(o, e); break;
    case KF_DUMP_QUORUM_STATE: quorum_state(o, e); break;
    }
}
