/* dump_entries.c: the dump of every Kafka file that is not a segment:
 * offset and time indexes, the aborted-transaction index, producer-state
 * snapshots, the offset and leader-epoch checkpoints, partition.metadata,
 * meta.properties and KRaft's quorum-state. Each is read in pieces whatever
 * its size (the indexes a window of entries at a time, a snapshot's CRC a
 * block at a time, a checkpoint a line at a time), except the three small
 * by nature, read whole with a cap (KF_META_FILE_MAX: one larger is
 * damage); its entries go to entry_fn as far as they parse, and then the
 * problems verify finds in it (kf_verify_file, a second pass). */
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
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

static void txn_index(dump_run *d, const kf_index *ix)
{
    for (uint64_t i = 0; i < ix->entries; i++) {
        kf_dump_entry e = {.kind = KF_DUMP_TXN_ENTRY};
        kf_txn_index_entry(ix, i, &e.txn);
        entry(d, &e);
    }
}

static void snapshot(dump_run *d, const kf_producer_snapshot *s)
{
    kf_dump_entry e = {.kind = KF_DUMP_SNAPSHOT, .snapshot = s};
    entry(d, &e);
    for (uint64_t i = 0; i < s->entries; i++) {
        kf_dump_entry p = {.kind = KF_DUMP_PRODUCER, .snapshot = s};
        kf_producer_snapshot_get(s, i, &p.producer);
        entry(d, &p);
    }
}

static void checkpoint_entry(void *ctx, const kf_checkpoint_entry *c)
{
    kf_dump_entry e = {.kind = c->topic ? KF_DUMP_CHECKPOINT_ENTRY : KF_DUMP_LEADER_EPOCH, .checkpoint = c};
    entry(ctx, &e);
}

/* A file's header, before its entries. */
static void file_begins(dump_run *d, const kf_dump_file *f)
{
    if (d->o.file_fn)
        d->o.file_fn(d->o.ctx, f);
}

/* A file read whole into one entry e (rc: its read's): the file and e,
 * unless it could not be read. */
static int whole_file(dump_run *d, const kf_dump_file *f, kf_dump_entry *e, int rc)
{
    if (rc == KF_ERR_IO || rc == KF_ERR_NOMEM)
        return rc;
    file_begins(d, f);
    entry(d, e);
    return KF_OK;
}

/* The file's own entries (its problems come after, from verify's checks):
 * KF_OK, KF_ERR_IO when it cannot be read (the last error's errno), or
 * KF_ERR_NOMEM. */
static int entries(dump_run *d, const char *path, kf_name_info ni)
{
    kf_dump_file f = {.path = path, .name = ni};
    int rc = KF_OK;
    switch (ni.kind) {
    case KF_FILE_INDEX:
    case KF_FILE_TIMEINDEX:
    case KF_FILE_TXNINDEX: {
        kf_index ix;
        int es = ni.kind == KF_FILE_INDEX ? 8 : ni.kind == KF_FILE_TIMEINDEX ? 12 : KF_TXN_ENTRY_SIZE;
        if ((rc = kf_index_open_path(&ix, path, es, ni.base_offset)) != KF_OK)
            return rc;
        if (ni.kind != KF_FILE_TXNINDEX)
            f.entries = ix.entries;
        file_begins(d, &f);
        if (ni.kind == KF_FILE_INDEX)
            offset_index(d, &ix);
        else if (ni.kind == KF_FILE_TIMEINDEX)
            time_index(d, &ix);
        else
            txn_index(d, &ix);
        kf_index_close(&ix); /* a read that failed on the way: verify's pass reports it */
        return KF_OK;
    }
    case KF_FILE_PRODUCER_SNAPSHOT: {
        kf_producer_snapshot s;
        rc = kf_producer_snapshot_open(&s, path);
        if (rc != KF_ERR_IO && rc != KF_ERR_NOMEM) {
            file_begins(d, &f);
            snapshot(d, &s);
            rc = KF_OK;
        }
        kf_producer_snapshot_close(&s);
        return rc;
    }
    case KF_FILE_OFFSET_CHECKPOINT:
    case KF_FILE_LEADER_EPOCH: {
        /* the file is opened before file_fn: one that cannot be read shows
         * no header; a failure past the first read shows as verify's */
        kf_source *src;
        if ((rc = kf_source_open(&src, path, 0)) != KF_OK)
            return rc;
        kf_source_close(src);
        file_begins(d, &f);
        int32_t version = -1;
        rc = kf_checkpoint_read(path, ni.kind == KF_FILE_LEADER_EPOCH ? KF_CHECKPOINT_LEADER_EPOCH : KF_CHECKPOINT_OFFSETS,
                                &version, checkpoint_entry, d, NULL, NULL);
        return rc == KF_ERR_NOMEM ? rc : KF_OK;
    }
    case KF_FILE_PARTITION_METADATA: {
        kf_partition_metadata pm;
        rc = kf_partition_metadata_read(path, &pm);
        kf_dump_entry e = {.kind = KF_DUMP_PARTITION_METADATA, .partition_metadata = &pm, .parsed = rc == KF_OK};
        return whole_file(d, &f, &e, rc);
    }
    case KF_FILE_META_PROPERTIES: {
        kf_meta_properties mp;
        rc = kf_meta_properties_read(path, &mp);
        kf_dump_entry e = {.kind = KF_DUMP_META_PROPERTIES, .meta = &mp};
        return whole_file(d, &f, &e, rc);
    }
    case KF_FILE_QUORUM_STATE: {
        kf_quorum_state qs;
        rc = kf_quorum_state_read(path, &qs);
        kf_dump_entry e = {.kind = KF_DUMP_QUORUM_STATE, .quorum = &qs};
        return whole_file(d, &f, &e, rc);
    }
    default:
        return KF_ERR_UNSUPPORTED;
    }
}

int dump_small_file(dump_run *d, const char *path, kf_name_info ni)
{
    int rc = entries(d, path, ni);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_ERR_UNSUPPORTED) { /* the segments and snapshots are read as logs (dump.c) */
        dump_path_error(d, path, 0, false, "not an index, snapshot, checkpoint or metadata file");
        return KF_OK;
    }
    if (rc != KF_OK) {
        int err_no = kf_error_last()->err_no;
        dump_path_error(d, path, err_no, false, "cannot read: %s", kf_read_error_str(rc, err_no));
        return KF_OK;
    }
    /* the same checks verify makes, after the entries */
    kf_verify_opts vo;
    kf_verify_opts_init(&vo);
    vo.problem_fn = dump_problem;
    vo.problem_ctx = d;
    kf_verify_result vr = {0};
    return kf_verify_file(path, ni.kind, ni.base_offset, &vo, &vr, NULL) == KF_ERR_NOMEM ? KF_ERR_NOMEM : KF_OK;
}
