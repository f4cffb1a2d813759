/* dump_entries.c: the dump of every Kafka file that is not a segment:
 * offset and time indexes, the aborted-transaction index, producer-state
 * snapshots, the offset and leader-epoch checkpoints, partition.metadata,
 * meta.properties and KRaft's quorum-state. Each is read whole (at most
 * KF_SMALL_FILE_MAX), its entries go to entry_fn as far as they parse, and
 * then the problems verify finds in it (kf_check_file_bytes). */
#include <stdlib.h>
#include <string.h>

#include "jobs/dump/dump_internal.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/verify.h"

static void entry(dump_run *d, kf_dump_entry *e)
{
    e->file = d->file;
    if (d->o.entry_fn)
        d->o.entry_fn(d->o.ctx, e);
}

static void offset_index(dump_run *d, const kf_index *ix)
{
    for (uint64_t i = 0; i < ix->entries; i++) {
        kf_dump_entry e = {.kind = KF_DUMP_INDEX_ENTRY};
        kf_offset_index_get(ix, i, &e.offset, &e.position);
        entry(d, &e);
    }
}

static void time_index(dump_run *d, const kf_index *ix)
{
    for (uint64_t i = 0; i < ix->entries; i++) {
        kf_dump_entry e = {.kind = KF_DUMP_TIME_INDEX_ENTRY};
        kf_time_index_get(ix, i, &e.timestamp, &e.offset);
        entry(d, &e);
    }
}

static void txn_index(dump_run *d, const kf_file_contents *m)
{
    uint64_t n = kf_txn_index_count(m->data ? m->size : 0);
    for (uint64_t i = 0; i < n; i++) {
        kf_dump_entry e = {.kind = KF_DUMP_TXN_ENTRY};
        kf_txn_index_get(m->data, i, &e.txn);
        entry(d, &e);
    }
}

static void snapshot(dump_run *d, const kf_file_contents *m)
{
    kf_producer_snapshot s;
    (void)kf_producer_snapshot_parse(m->data, m->size, &s); /* problems: kf_check_file_bytes */
    kf_dump_entry e = {.kind = KF_DUMP_SNAPSHOT, .snapshot = &s};
    entry(d, &e);
    for (uint64_t i = 0; i < s.entries; i++) {
        kf_dump_entry p = {.kind = KF_DUMP_PRODUCER, .snapshot = &s};
        kf_producer_snapshot_get(&s, i, &p.producer);
        entry(d, &p);
    }
}

static void checkpoint_entry(void *ctx, const kf_checkpoint_entry *c)
{
    kf_dump_entry e = {.kind = c->topic ? KF_DUMP_CHECKPOINT_ENTRY : KF_DUMP_LEADER_EPOCH, .checkpoint = c};
    entry(ctx, &e);
}

static void checkpoint(dump_run *d, const kf_file_contents *m, int kind)
{
    int32_t version = -1;
    /* problems: kf_check_file_bytes */
    (void)kf_checkpoint_parse(m->data, m->size, kind, &version, checkpoint_entry, d, NULL, NULL);
}

static void partition_metadata(dump_run *d, const kf_file_contents *m)
{
    kf_partition_metadata pm;
    kf_dump_entry e = {.kind = KF_DUMP_PARTITION_METADATA, .partition_metadata = &pm};
    e.parsed = kf_partition_metadata_parse(m->data, m->size, &pm) == KF_OK;
    entry(d, &e);
}

static void meta_properties(dump_run *d, const kf_file_contents *m)
{
    kf_meta_properties mp;
    (void)kf_meta_properties_parse(m->data, m->size, &mp);
    kf_dump_entry e = {.kind = KF_DUMP_META_PROPERTIES, .meta = &mp};
    entry(d, &e);
}

static void quorum_state(dump_run *d, const kf_file_contents *m)
{
    kf_quorum_state qs;
    (void)kf_quorum_state_parse(m->data, m->size, &qs);
    kf_dump_entry e = {.kind = KF_DUMP_QUORUM_STATE, .quorum = &qs};
    entry(d, &e);
}

int dump_small_file(dump_run *d, const char *path, kf_name_info ni)
{
    kf_file_contents m;
    int rc = kf_file_read_all(path, KF_SMALL_FILE_MAX, &m.data, &m.size);
    if (rc != KF_OK) {
        int err_no = kf_error_last()->err_no;
        dump_path_error(d, path, err_no, false, "cannot read: %s", kf_read_error_str(rc, err_no));
        return KF_OK;
    }
    kf_index ix;
    if (ni.kind == KF_FILE_INDEX)
        kf_offset_index_init(&ix, m.data, m.size, ni.base_offset);
    else if (ni.kind == KF_FILE_TIMEINDEX)
        kf_time_index_init(&ix, m.data, m.size, ni.base_offset);
    kf_dump_file f = {.path = path, .name = ni};
    if (ni.kind == KF_FILE_INDEX || ni.kind == KF_FILE_TIMEINDEX)
        f.entries = ix.entries;
    if (d->o.file_fn)
        d->o.file_fn(d->o.ctx, &f);
    switch (ni.kind) {
    case KF_FILE_INDEX: offset_index(d, &ix); break;
    case KF_FILE_TIMEINDEX: time_index(d, &ix); break;
    case KF_FILE_TXNINDEX: txn_index(d, &m); break;
    case KF_FILE_PRODUCER_SNAPSHOT: snapshot(d, &m); break;
    case KF_FILE_OFFSET_CHECKPOINT: checkpoint(d, &m, KF_CHECKPOINT_OFFSETS); break;
    case KF_FILE_LEADER_EPOCH: checkpoint(d, &m, KF_CHECKPOINT_LEADER_EPOCH); break;
    case KF_FILE_PARTITION_METADATA: partition_metadata(d, &m); break;
    case KF_FILE_META_PROPERTIES: meta_properties(d, &m); break;
    case KF_FILE_QUORUM_STATE: quorum_state(d, &m); break;
    default: /* the segments and snapshots are read as logs (dump.c) */
        free(m.data);
        dump_path_error(d, path, 0, false, "not an index, snapshot, checkpoint or metadata file");
        return KF_OK;
    }
    /* the same checks verify makes, after the entries */
    kf_check_file_bytes(path, ni.kind, ni.base_offset, ni.suffix, m.data, m.size, dump_problem, d);
    free(m.data);
    return KF_OK;
}
