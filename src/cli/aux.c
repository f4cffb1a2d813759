/* aux.c: `kfsck dump` of every file in a log dir that is not a .log
 * segment: offset and time indexes,
 * the aborted-transaction index, producer-state snapshots, the offset and
 * leader-epoch checkpoints, partition.metadata, meta.properties and KRaft's
 * quorum-state. JSON mode
 * prints one line per entry (kfsck(1), dump: "index_entry", "txn_entry", "snapshot"
 * + "producer", "checkpoint_entry", "leader_epoch", "partition_metadata",
 * "meta_properties", "quorum_state"); text mode prints lines shaped like kafka-dump-log's.
 * The library's checks (kf_check_file_bytes, what verify makes) follow the
 * entries as problem lines. The caller (cmd_dump) prints the "Dumping
 * <path>" line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* ---- .index / .timeindex -------------------------------------------------- */

static void do_offset_index(const char *path, const kf_file_contents *m, kf_name_info ni, out *o)
{
    kf_index ix;
    kf_offset_index_init(&ix, m->data, m->size, ni.base_offset);
    if (ix.entries == 0 && !o->json)
        out_text(o, "%s is empty.\n", path);
    for (uint64_t i = 0; i < ix.entries; i++) {
        int64_t off, pos;
        kf_offset_index_get(&ix, i, &off, &pos);
        if (o->json) {
            out_begin(o, "index_entry");
            out_str(o, "file", path);
            out_int(o, "offset", off);
            out_int(o, "position", pos);
            out_end(o);
        } else {
            out_text(o, "offset: %" PRId64 " position: %" PRId64 "\n", off, pos);
        }
    }
}

static void do_time_index(const char *path, const kf_file_contents *m, kf_name_info ni, out *o)
{
    kf_index ix;
    kf_time_index_init(&ix, m->data, m->size, ni.base_offset);
    if (ix.entries == 0 && !o->json)
        out_text(o, "%s is empty.\n", path);
    for (uint64_t i = 0; i < ix.entries; i++) {
        int64_t ts, off;
        kf_time_index_get(&ix, i, &ts, &off);
        if (o->json) {
            out_begin(o, "index_entry");
            out_str(o, "file", path);
            out_int(o, "timestamp", ts);
            out_int(o, "offset", off);
            out_end(o);
        } else {
            out_text(o, "timestamp: %" PRId64 " offset: %" PRId64 "\n", ts, off);
        }
    }
}

static void do_txn_index(const char *path, const kf_file_contents *m, out *o)
{
    uint64_t size = m->data ? m->size : 0;
    uint64_t n = kf_txn_index_count(size);
    for (uint64_t i = 0; i < n; i++) {
        kf_txn_entry e;
        kf_txn_index_get(m->data, i, &e);
        if (o->json) {
            out_begin(o, "txn_entry");
            out_str(o, "file", path);
            out_int(o, "version", e.version);
            out_int(o, "producer_id", e.producer_id);
            out_int(o, "first_offset", e.first_offset);
            out_int(o, "last_offset", e.last_offset);
            out_int(o, "last_stable_offset", e.last_stable_offset);
            out_end(o);
        } else {
            out_text(o,
                     "version: %d producerId: %" PRId64 " firstOffset: %" PRId64 " lastOffset: %" PRId64
                     " lastStableOffset: %" PRId64 "\n",
                     e.version, e.producer_id, e.first_offset, e.last_offset, e.last_stable_offset);
        }
    }
}

/* ---- .snapshot ------------------------------------------------------------ */

/* DefaultRecordBatch.decrementSequence: sequences wrap at Integer.MAX_VALUE. */
static int64_t first_sequence(int32_t last_seq, int32_t delta)
{
    if (last_seq < delta)
        return (int64_t)INT32_MAX - ((int64_t)delta - last_seq) + 1;
    return (int64_t)last_seq - delta;
}

static void print_producer(out *o, const char *path, const kf_producer_snapshot_entry *e)
{
    if (o->json) {
        out_begin(o, "producer");
        out_str(o, "file", path);
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
                 "firstSequence: %" PRId64 " lastSequence: %" PRId32 " lastOffset: %" PRId64 " offsetDelta: %" PRId32
                 " timestamp: %" PRId64,
                 first_sequence(e->last_sequence, e->offset_delta), e->last_sequence, e->last_offset, e->offset_delta,
                 e->timestamp);
    out_text(o, "\n");
}

static void do_snapshot(const char *path, const kf_file_contents *m, out *o)
{
    kf_producer_snapshot s;
    (void)kf_producer_snapshot_parse(m->data, m->size, &s); /* problems: the check below */
    if (o->json) {
        out_begin(o, "snapshot");
        out_str(o, "file", path);
        if (s.size >= 2)
            out_int(o, "version", s.version);
        else
            out_null(o, "version");
        if (s.size >= 6) {
            out_uint(o, "crc", s.crc);
            out_bool(o, "crc_ok", s.crc_ok);
        } else {
            out_null(o, "crc");
            out_null(o, "crc_ok");
        }
        if (s.size >= KF_PRODUCER_SNAPSHOT_HEADER_SIZE)
            out_int(o, "count", s.count);
        else
            out_null(o, "count");
        out_end(o);
    }
    for (uint64_t i = 0; i < s.entries; i++) {
        kf_producer_snapshot_entry e;
        kf_producer_snapshot_get(&s, i, &e);
        print_producer(o, path, &e);
    }
}

/* ---- checkpoints ------------------------------------------------------------ */

typedef struct ckpt_print {
    out *o;
    const char *path;
} ckpt_print;

static void print_ckpt_entry(void *ctx, const kf_checkpoint_entry *e)
{
    ckpt_print *cp = ctx;
    out *o = cp->o;
    if (o->json) {
        if (e->topic) {
            out_begin(o, "checkpoint_entry");
            out_str(o, "file", cp->path);
            out_str(o, "topic", e->topic);
            out_int(o, "partition", e->partition);
            out_int(o, "offset", e->offset);
        } else {
            out_begin(o, "leader_epoch");
            out_str(o, "file", cp->path);
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

static void do_checkpoint(const char *path, const kf_file_contents *m, int kind, out *o)
{
    ckpt_print cp = {.o = o, .path = path};
    int32_t version = -1;
    kf_checkpoint_parse(m->data, m->size, kind, &version, print_ckpt_entry, &cp, NULL, NULL);
}

static void do_partition_metadata(const char *path, const kf_file_contents *m, out *o)
{
    kf_partition_metadata pm;
    int rc = kf_partition_metadata_parse(m->data, m->size, &pm);
    if (o->json) {
        out_begin(o, "partition_metadata");
        out_str(o, "file", path);
        if (rc == KF_OK || pm.version >= 0)
            out_int(o, "version", pm.version);
        else
            out_null(o, "version");
        out_str(o, "topic_id", rc == KF_OK ? pm.topic_id_b64 : NULL);
        out_end(o);
    } else if (rc == KF_OK) {
        out_text(o, "version: %" PRId32 " topicId: %s\n", pm.version, pm.topic_id_b64);
    }
}

static void do_meta_properties(const char *path, const kf_file_contents *m, out *o)
{
    kf_meta_properties mp;
    (void)kf_meta_properties_parse(m->data, m->size, &mp);
    if (o->json) {
        out_begin(o, "meta_properties");
        out_str(o, "file", path);
        out_int(o, "version", mp.version);
        if (mp.has_broker_id)
            out_int(o, "broker_id", mp.broker_id);
        else
            out_null(o, "broker_id");
        if (mp.has_node_id)
            out_int(o, "node_id", mp.node_id);
        else
            out_null(o, "node_id");
        out_str(o, "cluster_id", mp.cluster_id[0] ? mp.cluster_id : NULL);
        out_str(o, "directory_id", mp.directory_id[0] ? mp.directory_id : NULL);
        out_end(o);
    } else {
        out_text(o, "version: %" PRId32, mp.version);
        if (mp.has_broker_id)
            out_text(o, " brokerId: %" PRId32, mp.broker_id);
        if (mp.has_node_id)
            out_text(o, " nodeId: %" PRId32, mp.node_id);
        if (mp.cluster_id[0])
            out_text(o, " clusterId: %s", mp.cluster_id);
        if (mp.directory_id[0])
            out_text(o, " directoryId: %s", mp.directory_id);
        out_text(o, "\n");
    }
}

/* ---- quorum-state ------------------------------------------------------------- */

static void do_quorum_state(const char *path, const kf_file_contents *m, out *o)
{
    kf_quorum_state qs;
    (void)kf_quorum_state_parse(m->data, m->size, &qs); /* problems: the check below */
    if (o->json) {
        out_begin(o, "quorum_state");
        out_str(o, "file", path);
        if (qs.data_version >= 0)
            out_int(o, "data_version", qs.data_version);
        else
            out_null(o, "data_version");
        out_int(o, "leader_id", qs.leader_id);
        out_int(o, "leader_epoch", qs.leader_epoch);
        out_int(o, "voted_id", qs.voted_id);
        out_str(o, "voted_directory_id", qs.has_voted_directory_id ? qs.voted_directory_id : NULL);
        if (qs.has_voters) {
            out_arr_open(o, "current_voters");
            for (size_t i = 0; i < qs.nvoters && i < KF_QUORUM_MAX_VOTERS; i++)
                out_int(o, NULL, qs.voters[i]);
            out_arr_close(o);
        } else {
            out_null(o, "current_voters");
        }
        out_end(o);
        return;
    }
    out_text(o, "dataVersion: %" PRId32 " leaderId: %" PRId32 " leaderEpoch: %" PRId32 " votedId: %" PRId32,
             qs.data_version, qs.leader_id, qs.leader_epoch, qs.voted_id);
    if (qs.has_voted_directory_id)
        out_text(o, " votedDirectoryId: %s", qs.voted_directory_id);
    if (qs.has_voters) {
        out_text(o, " currentVoters: [");
        for (size_t i = 0; i < qs.nvoters && i < KF_QUORUM_MAX_VOTERS; i++)
            out_text(o, "%s%" PRId32, i ? "," : "", qs.voters[i]);
        out_text(o, "]");
    }
    out_text(o, "\n");
}

/* ---- entry point ------------------------------------------------------------ */

void aux_dump(const char *path, const kf_file_contents *m, kf_name_info ni, out *o, report *r)
{
    switch (ni.kind) {
    case KF_FILE_INDEX: do_offset_index(path, m, ni, o); break;
    case KF_FILE_TIMEINDEX: do_time_index(path, m, ni, o); break;
    case KF_FILE_TXNINDEX: do_txn_index(path, m, o); break;
    case KF_FILE_PRODUCER_SNAPSHOT: do_snapshot(path, m, o); break;
    case KF_FILE_OFFSET_CHECKPOINT: do_checkpoint(path, m, KF_CHECKPOINT_OFFSETS, o); break;
    case KF_FILE_LEADER_EPOCH: do_checkpoint(path, m, KF_CHECKPOINT_LEADER_EPOCH, o); break;
    case KF_FILE_PARTITION_METADATA: do_partition_metadata(path, m, o); break;
    case KF_FILE_META_PROPERTIES: do_meta_properties(path, m, o); break;
    case KF_FILE_QUORUM_STATE: do_quorum_state(path, m, o); break;
    default: cli_error(path, "not an index, snapshot, checkpoint or metadata file"); return;
    }
    /* the same checks verify makes, after the entries */
    kf_check_file_bytes(path, ni.kind, ni.base_offset, ni.suffix, m->data, m->size, report_problem, r);
}
