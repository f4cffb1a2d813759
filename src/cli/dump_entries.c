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

/* An entry of an offset index (offset, position) or a time index
 * (timestamp, offset) of file: its two numbers under the same names in JSON
 * and in text ("offset: 0 position: 0", as kafka-dump-log prints them). */
static void index_entry(out *o, const char *file, const char *k1, int64_t v1, const char *k2, int64_t v2)
{
    if (o->json) {
        kf_jsonl_begin(&o->w, "index_entry");
        kf_jsonl_fields(&o->w, KF_JS("file", file), KF_JI(k1, v1), KF_JI(k2, v2));
        kf_jsonl_end(&o->w);
    } else {
        out_text(o, "%s: %" PRId64 " %s: %" PRId64 "\n", k1, v1, k2, v2);
    }
}

static void txn_index(out *o, const kf_dump_entry *de)
{
    const kf_txn_entry *e = &de->txn;
    if (o->json) {
        kf_jsonl_begin(&o->w, "txn_entry");
        kf_jsonl_fields(&o->w, KF_JS("file", de->file), KF_JI("version", e->version),
                        KF_JI("producer_id", e->producer_id), KF_JI("first_offset", e->first_offset),
                        KF_JI("last_offset", e->last_offset), KF_JI("last_stable_offset", e->last_stable_offset));
        kf_jsonl_end(&o->w);
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
        kf_jsonl_begin(&o->w, "producer");
        kf_jsonl_fields(&o->w, KF_JS("file", de->file), KF_JI("producer_id", e->producer_id),
                        KF_JI("producer_epoch", e->producer_epoch), KF_JI("last_sequence", e->last_sequence),
                        KF_JI("last_offset", e->last_offset), KF_JI("offset_delta", e->offset_delta),
                        KF_JI("timestamp", e->timestamp), KF_JI("coordinator_epoch", e->coordinator_epoch),
                        KF_JI("current_txn_first_offset", e->current_txn_first_offset));
        kf_jsonl_end(&o->w);
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
    bool has_crc = s->size >= 6;
    kf_jsonl_begin(&o->w, "snapshot");
    kf_jsonl_fields(&o->w, KF_JS("file", e->file), KF_JOPT("version", s->size >= 2, s->version),
                    KF_JOPT("crc", has_crc, s->crc), has_crc ? KF_JB("crc_ok", s->crc_ok) : KF_JNULL("crc_ok"),
                    KF_JOPT("count", s->size >= KF_PRODUCER_SNAPSHOT_HEADER_SIZE, s->count));
    kf_jsonl_end(&o->w);
}

/* ---- checkpoints and metadata files -------------------------------------------- */

static void checkpoint(out *o, const kf_dump_entry *de)
{
    const kf_checkpoint_entry *e = de->checkpoint;
    if (o->json) {
        if (e->topic) {
            kf_jsonl_begin(&o->w, "checkpoint_entry");
            kf_jsonl_fields(&o->w, KF_JS("file", de->file), KF_JS("topic", e->topic), KF_JI("partition", e->partition),
                            KF_JI("offset", e->offset));
        } else {
            kf_jsonl_begin(&o->w, "leader_epoch");
            kf_jsonl_fields(&o->w, KF_JS("file", de->file), KF_JI("epoch", e->epoch), KF_JI("start_offset", e->offset));
        }
        kf_jsonl_end(&o->w);
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
        kf_jsonl_begin(&o->w, "partition_metadata");
        kf_jsonl_fields(&o->w, KF_JS("file", e->file), KF_JOPT("version", e->parsed || pm->version >= 0, pm->version),
                        KF_JS("topic_id", e->parsed ? pm->topic_id_b64 : NULL));
        kf_jsonl_end(&o->w);
    } else if (e->parsed) {
        out_text(o, "version: %" PRId32 " topicId: %s\n", pm->version, pm->topic_id_b64);
    }
}

static void meta_properties(out *o, const kf_dump_entry *e)
{
    const kf_meta_properties *mp = e->meta;
    if (o->json) {
        kf_jsonl_begin(&o->w, "meta_properties");
        kf_jsonl_fields(&o->w, KF_JS("file", e->file), KF_JI("version", mp->version),
                        KF_JOPT("broker_id", mp->has_broker_id, mp->broker_id),
                        KF_JOPT("node_id", mp->has_node_id, mp->node_id),
                        KF_JS("cluster_id", mp->cluster_id[0] ? mp->cluster_id : NULL),
                        KF_JS("directory_id", mp->directory_id[0] ? mp->directory_id : NULL));
        kf_jsonl_end(&o->w);
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
        kf_jsonl_begin(&o->w, "quorum_state");
        kf_jsonl_fields(&o->w, KF_JS("file", e->file), KF_JOPT("data_version", qs->data_version >= 0, qs->data_version),
                        KF_JI("leader_id", qs->leader_id), KF_JI("leader_epoch", qs->leader_epoch),
                        KF_JI("voted_id", qs->voted_id),
                        KF_JS("voted_directory_id", qs->has_voted_directory_id ? qs->voted_directory_id : NULL));
        kf_jsonl_int32s(&o->w, "current_voters", qs->has_voters, qs->voters,
                   qs->nvoters < KF_QUORUM_MAX_VOTERS ? qs->nvoters : KF_QUORUM_MAX_VOTERS);
        if (qs->has_voters && qs->nvoters > KF_QUORUM_MAX_VOTERS) /* counted past those kept */
            kf_jsonl_uint(&o->w, "current_voters_not_listed", qs->nvoters - KF_QUORUM_MAX_VOTERS);
        kf_jsonl_end(&o->w);
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
    case KF_DUMP_INDEX_ENTRY: index_entry(o, e->file, "offset", e->offset, "position", e->position); break;
    case KF_DUMP_TIME_INDEX_ENTRY: index_entry(o, e->file, "timestamp", e->timestamp, "offset", e->offset); break;
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
