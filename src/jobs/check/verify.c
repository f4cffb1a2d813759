/* Room jobs/check/: finding damage. verify.c holds the checks of one
 * segment, one partition and a data dir's own files; scan.c runs them over
 * whole data dirs in a pool of threads and compares the checkpoints with
 * the segments. Every other room that needs a partition judged calls here.
 *
 * verify.c: the checks of `kfsck verify` (include/kfsck/verify.h): segments
 * with their indexes, the small files of a partition, a partition's segment
 * chain, and a data dir's own files. Problems go out through the caller's
 * callback with their file set, in the order they are found. */
#include "bytes/opts.h"
#include "kfsck/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "bytes/report.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "kfsck/kraft_check.h"
#include "format/paths.h"
#include "kfsck/sys/quorum_state.h"
#include "kfsck/sys/producer_snapshot.h"

void kf_verify_opts_init(kf_verify_opts *o)
{
    *o = (kf_verify_opts)KF_VERIFY_OPTIONS_INIT;
}

/* ---- reporting ------------------------------------------------------------ */

/* What the per-file checks report through: the caller's callback with the
 * file filled in, and the counts. */
typedef struct sink {
    const kf_verify_opts *o;
    kf_verify_result *res;
    const char *file;
    uint64_t errors, warnings; /* of this file */
    bool has_error;            /* an error in this file (not in another it reports for): */
    uint64_t first_error, last_error; /* the positions of the first and last */
} sink;

/* The caller's options as verify reads them (bytes/opts.h: NULL or a zero
 * field is the default; version 1 ends before the schema-framing fields):
 * KF_OK, or KF_ERR_UNSUPPORTED for a version it does not know. */
static int verify_opts_take(kf_verify_opts *own, const kf_verify_opts *o)
{
    size_t size = o && o->version == 1 ? offsetof(kf_verify_opts, schema_fields) : sizeof(kf_verify_opts);
    return kf_opts_take_grown(own, sizeof *own, o, size, KF_VERIFY_OPTIONS_VERSION, &own->max_batch_bytes);
}

static void sink_problem(void *ctx, const kf_problem *p)
{
    sink *s = ctx;
    kf_problem q = *p;
    if (!q.file)
        q.file = s->file;
    if (q.severity == KF_SEV_ERROR) {
        s->res->errors++;
        s->errors++;
        if (!p->file || p->file == s->file) {
            if (!s->has_error || q.position < s->first_error)
                s->first_error = q.position;
            if (!s->has_error || q.position > s->last_error)
                s->last_error = q.position;
            s->has_error = true;
        }
    } else {
        s->res->warnings++;
        s->warnings++;
    }
    if (!strcmp(q.code, KF_P_UNREADABLE)) {
        s->res->unreadable = true;
        s->res->unreadable_paths++;
    }
    if (s->o->problem_fn)
        s->o->problem_fn(s->o->problem_ctx, &q);
}


static void unreadable(sink *s, int rc, int err_no)
{
    kf_report(sink_problem, s, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s", kf_read_error_str(rc, err_no));
}

/* ---- small files ------------------------------------------------------------ */

/* Size of the segment an index belongs to (same directory, same base name,
 * the same broker suffix first), or UINT64_MAX when there is none. */
static uint64_t sibling_log_size(const char *path, const char *suffix)
{
    const char *base = kf_path_base(path);
    const char *dot = strchr(base, '.');
    if (!dot)
        return UINT64_MAX;
    size_t prefix = (size_t)(dot - path);
    char buf[4096];
    const char *sufs[2] = {suffix && *suffix ? suffix : NULL, ""};
    for (int k = 0; k < 2; k++) {
        if (!sufs[k])
            continue;
        int n = snprintf(buf, sizeof buf, "%.*s.log%s", (int)prefix, path, sufs[k]);
        if (n < 0 || (size_t)n >= sizeof buf)
            continue;
        struct stat st;
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
            return (uint64_t)st.st_size;
    }
    return UINT64_MAX;
}

/* Every reason the broker would discard a producer snapshot, each at its
 * field: sn as kf_producer_snapshot_open read it (rc what it returned). */
static void check_snapshot(sink *s, const kf_producer_snapshot *sn, int rc)
{
    if (rc == KF_OK)
        return;
    if (sn->size == 0) {
        kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_WARNING, 0, false, 0,
                  "empty (0-byte) snapshot: the broker deletes it and rebuilds producer state from the log");
        return;
    }
    if (sn->size < KF_PRODUCER_SNAPSHOT_HEADER_SIZE) {
        kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_ERROR, 0, false, 0, "%s",
                  kf_error_last()->message);
        return;
    }
    if (sn->version != 1)
        kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_ERROR, 0, false, 0,
                  "snapshot contained an unknown file version %d (expected 1)", sn->version);
    if (sn->count < 0) {
        kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_ERROR, 6, false, 0,
                  "snapshot entry count %" PRId32 " is negative", sn->count);
    } else {
        uint64_t want = KF_PRODUCER_SNAPSHOT_HEADER_SIZE + (uint64_t)sn->count * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE;
        if (sn->size < want)
            kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_ERROR,
                      KF_PRODUCER_SNAPSHOT_HEADER_SIZE + sn->entries * KF_PRODUCER_SNAPSHOT_ENTRY_SIZE, false, 0,
                      "snapshot is truncated: %" PRId32 " entries need %" PRIu64 " bytes, the file has %" PRIu64,
                      sn->count, want, sn->size);
        else if (sn->size > want)
            kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_ERROR, want, false, 0,
                      "%" PRIu64 " bytes after the %" PRId32 " entries the header announces", sn->size - want, sn->count);
    }
    if (!sn->crc_ok)
        kf_report(sink_problem, s, KF_P_SNAPSHOT_INVALID, KF_SEV_ERROR, 2, false, 0,
                  "snapshot CRC mismatch: stored %" PRIu32 ", computed %" PRIu32, sn->crc, sn->crc_computed);
}

/* ---- index files --------------------------------------------------------------- */

/* Opens the index file s->file (kind KF_FILE_INDEX or KF_FILE_TIMEINDEX) to
 * be read in pieces, whatever its size: KF_OK with *src and *ix set up;
 * KF_ERR_IO when it cannot be opened, reported as unreadable unless it is
 * missing and missing_ok (a segment's indexes are optional, §5.3);
 * KF_ERR_NOMEM. */
static int open_index(sink *s, kf_file_kind kind, int64_t base_offset, bool missing_ok, kf_source **src, kf_index *ix)
{
    int err_no = 0;
    int rc = kf_error_errno(kf_source_open(src, s->file, 0), &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        if (!missing_ok || err_no != ENOENT)
            unreadable(s, rc, err_no);
        return KF_ERR_IO;
    }
    rc = kind == KF_FILE_INDEX ? kf_offset_index_open(ix, *src, base_offset) : kf_time_index_open(ix, *src, base_offset);
    if (rc != KF_OK)
        kf_source_close(*src);
    return rc;
}

/* Done with an index opened by open_index: a read that failed on the way
 * is reported. */
static void close_index(sink *s, kf_source *src, kf_index *ix)
{
    if (kf_index_read_status(ix) != KF_OK) {
        int err_no = kf_error_last()->err_no;
        kf_report(sink_problem, s, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "read error: %s",
                  err_no ? kf_path_error_str(err_no) : "the file shrank while it was read");
    }
    kf_index_close(ix);
    kf_source_close(src);
}

/* An .index or .timeindex named on its own: its own checks, and an offset
 * index's positions against the size of its segment. */
static int verify_index_file(sink *s, kf_file_kind kind, int64_t base_offset)
{
    kf_source *src;
    kf_index ix;
    int rc = open_index(s, kind, base_offset, false, &src, &ix);
    if (rc != KF_OK)
        return rc == KF_ERR_NOMEM ? rc : KF_OK;
    if (kind == KF_FILE_INDEX) {
        kf_name_info ni = kf_classify_name(kf_path_base(s->file));
        kf_offset_index_check(&ix, sibling_log_size(s->file, ni.suffix), sink_problem, s);
    } else {
        kf_time_index_check(&ix, sink_problem, s);
    }
    close_index(s, src, &ix);
    return KF_OK;
}

/* An offset checkpoint or a leader-epoch-checkpoint, read in pieces: any size. */
static int verify_checkpoint_file(sink *s, kf_file_kind kind)
{
    int err_no = 0;
    int32_t version = -1;
    int rc = kf_error_errno(kf_checkpoint_read(s->file, kind == KF_FILE_LEADER_EPOCH ? KF_CHECKPOINT_LEADER_EPOCH
                                                                                     : KF_CHECKPOINT_OFFSETS,
                                               &version, NULL, NULL, sink_problem, s),
                            &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_ERR_IO)
        unreadable(s, rc, err_no);
    return KF_OK;
}

/* A file read whole or in pieces could not be read: unreadable, and KF_OK
 * (reported); out of memory passed on. */
static int small_unreadable(sink *s, int rc, int err_no)
{
    if (rc == KF_ERR_NOMEM)
        return rc;
    unreadable(s, rc, err_no);
    return KF_OK;
}

/* A .txnindex, read in pieces. */
static int verify_txn_index_file(sink *s, int64_t base_offset)
{
    kf_index ix;
    int err_no = 0;
    int rc = kf_error_errno(kf_index_open_path(&ix, s->file, KF_TXN_ENTRY_SIZE, base_offset), &err_no);
    if (rc != KF_OK)
        return small_unreadable(s, rc, err_no);
    kf_txn_index_check(&ix, sink_problem, s);
    if (kf_index_read_status(&ix) != KF_OK)
        unreadable(s, KF_ERR_IO, kf_error_last()->err_no);
    kf_index_close(&ix);
    return KF_OK;
}

/* A producer snapshot, read in pieces. */
static int verify_snapshot_file(sink *s)
{
    kf_producer_snapshot sn;
    int err_no = 0;
    int rc = kf_error_errno(kf_producer_snapshot_open(&sn, s->file), &err_no);
    if (rc == KF_ERR_IO || rc == KF_ERR_NOMEM)
        rc = small_unreadable(s, rc, err_no);
    else {
        check_snapshot(s, &sn, rc);
        rc = KF_OK;
    }
    kf_producer_snapshot_close(&sn);
    return rc;
}

/* partition.metadata, meta.properties or quorum-state: small by nature,
 * read whole with a cap (one larger is damage: KF_META_FILE_MAX). */
static int verify_metadata_file(sink *s, kf_file_kind kind)
{
    int err_no = 0, rc;
    if (kind == KF_FILE_PARTITION_METADATA) {
        kf_partition_metadata pm;
        rc = kf_error_errno(kf_partition_metadata_read(s->file, &pm), &err_no);
    } else if (kind == KF_FILE_META_PROPERTIES) {
        kf_meta_properties mp;
        rc = kf_error_errno(kf_meta_properties_read(s->file, &mp), &err_no);
        if (rc == KF_OK && mp.repeated[0])
            kf_report(sink_problem, s, KF_P_METADATA_INVALID, KF_SEV_WARNING, 0, false, 0, "%s", mp.repeated);
    } else {
        kf_quorum_state qs;
        rc = kf_error_errno(kf_quorum_state_read(s->file, &qs), &err_no);
    }
    if (rc == KF_ERR_IO || rc == KF_ERR_NOMEM)
        return small_unreadable(s, rc, err_no);
    if (rc == KF_OK)
        return KF_OK;
    if (kind == KF_FILE_QUORUM_STATE)
        kf_report(sink_problem, s, KF_P_CHECKPOINT_INVALID, KF_SEV_ERROR, 0, false, 0,
                  "quorum-state: %s (the KRaft node refuses to start)", kf_error_last()->message);
    else
        kf_report(sink_problem, s, KF_P_METADATA_INVALID, KF_SEV_ERROR, 0, false, 0, "%s", kf_error_last()->message);
    return KF_OK;
}

static int verify_small_file(sink *s, kf_file_kind kind, int64_t base_offset)
{
    switch (kind) {
    case KF_FILE_INDEX:
    case KF_FILE_TIMEINDEX: return verify_index_file(s, kind, base_offset);
    case KF_FILE_OFFSET_CHECKPOINT:
    case KF_FILE_LEADER_EPOCH: return verify_checkpoint_file(s, kind);
    case KF_FILE_TXNINDEX: return verify_txn_index_file(s, base_offset);
    case KF_FILE_PRODUCER_SNAPSHOT: return verify_snapshot_file(s);
    case KF_FILE_PARTITION_METADATA:
    case KF_FILE_META_PROPERTIES:
    case KF_FILE_QUORUM_STATE: return verify_metadata_file(s, kind);
    default: return KF_OK;
    }
}

/* ---- segments ---------------------------------------------------------------- */

typedef struct progress_fwd {
    const kf_verify_opts *o;
    const char *path;
} progress_fwd;

static void forward_progress(void *ctx, uint64_t position, uint64_t size)
{
    progress_fwd *f = ctx;
    f->o->progress_fn(f->o->progress_ctx, f->path, position, size);
}

/* ---- --schema-ids: Confluent Schema Registry framing of keys and values ---- */

typedef struct framing_check {
    sink *s;
    unsigned fields;        /* KF_SCHEMA_CHECK_KEY | KF_SCHEMA_CHECK_VALUE */
    kf_schema_tally *tally; /* may be NULL */
    bool nomem;
    /* where the intact batches lie: the first one's start, the last one's end */
    bool has_batch;
    uint64_t first_batch, batches_end;
} framing_check;

/* The damage at a segment's edges, for a gap between two segments. */
typedef struct seg_edges {
    bool damaged_head;      /* damage before its first intact batch (or no intact batch at all) */
    bool damaged_tail;      /* damage after its last intact batch */
} seg_edges;

static int note_batch(void *ctx, const kf_batch *b)
{
    framing_check *fc = ctx;
    if (!fc->has_batch)
        fc->first_batch = b->position;
    fc->has_batch = true;
    fc->batches_end = b->position + b->size;
    return 0;
}

/* One key or value: counted when framed, a schema_framing warning when not. */
static void check_field(framing_check *fc, const kf_batch *b, const kf_record *r, const char *field,
                        const uint8_t *p, int32_t len)
{
    kf_schema_frame f;
    kf_schema_framing k = kf_schema_frame_read(p, len, &f);
    if (k == KF_SCHEMA_NULL)
        return;
    if (k != KF_SCHEMA_UNFRAMED) {
        if (fc->tally && kf_schema_tally_add(fc->tally, &f) != KF_OK)
            fc->nomem = true;
        return;
    }
    char hex[2 * KF_SCHEMA_FIRST_BYTES + 1];
    int32_t n = len < KF_SCHEMA_FIRST_BYTES ? len : KF_SCHEMA_FIRST_BYTES;
    for (int32_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", p[i]);
    hex[2 * n] = 0;
    kf_problem q;
    kf_problem_fill(&q, KF_P_SCHEMA_FRAMING, KF_SEV_WARNING, b->position, true, r->offset,
                    "offset %lld: the %s (%d bytes) is not framed for the Schema Registry (first byte %.2s, not 0 or "
                    "1 with an id after it)",
                    (long long)r->offset, field, len, len > 0 ? hex : "none");
    kf_problem_add_text(&q, "field", field);
    kf_problem_add_text(&q, "first_bytes", hex);
    sink_problem(fc->s, &q);
}

static int framing_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    framing_check *fc = ctx;
    if (b->control)
        return 0; /* transaction markers and KRaft control records are Kafka's own */
    if (fc->fields & KF_SCHEMA_CHECK_KEY)
        check_field(fc, b, r, "key", r->key, r->key_len);
    if (fc->fields & KF_SCHEMA_CHECK_VALUE)
        check_field(fc, b, r, "value", r->value, r->value_len);
    return 0;
}

/* *opened: the segment could be read (its summary means something). */
static int verify_segment(const char *path, kf_file_kind kind, int64_t base_offset, const kf_verify_opts *o,
                          kf_verify_result *res, kf_segment_summary *out, bool *opened, seg_edges *edges)
{
    kf_segment_summary sum;
    memset(&sum, 0, sizeof sum);
    sink s = {o, res, path, 0, 0, false, 0, 0};
    *opened = false;
    kf_source *src;
    int err_no = 0;
    int rc = kf_error_errno(kf_source_open(&src, path, 0), &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        unreadable(&s, rc, err_no);
        if (out)
            *out = sum;
        return KF_OK;
    }
    kf_segment_scan_opts so;
    kf_segment_scan_opts_init(&so);
    so.max_batch_bytes = o->max_batch_bytes;
    so.threads = o->threads;
    so.chunk_bytes = o->chunk_bytes;
    so.deep = true;
    so.has_base_offset = kind == KF_FILE_LOG && base_offset >= 0;
    so.base_offset = base_offset;
    so.problem_fn = sink_problem;
    so.problem_ctx = &s;
    framing_check fc = {&s, o->schema_fields, o->schema_tally, false, false, 0, 0};
    so.batch_fn = note_batch;
    so.ctx = &fc;
    if (o->schema_fields) {
        if (o->schema_tally)
            kf_schema_tally_reset(o->schema_tally);
        so.records = true;
        so.record_fn = framing_record;
    }
    progress_fwd pf = {o, path};
    if (o->progress_fn) {
        so.progress_fn = forward_progress;
        so.progress_ctx = &pf;
    }

    /* the segment's own indexes, when they sit beside it (read in pieces:
     * any size); one that is there but cannot be read is reported */
    char *ipath = NULL, *tpath = NULL;
    kf_source *isrc = NULL, *tsrc = NULL;
    kf_index oi, ti;
    sink si = {o, res, NULL, 0, 0, false, 0, 0}, st = {o, res, NULL, 0, 0, false, 0, 0};
    if (kind == KF_FILE_LOG && base_offset >= 0) {
        /* a .log name (kind KF_FILE_LOG): NULL only for want of memory */
        ipath = kf_sibling_path(path, ".index");
        tpath = kf_sibling_path(path, ".timeindex");
        si.file = ipath;
        st.file = tpath;
        rc = !ipath || !tpath ? KF_ERR_NOMEM : open_index(&si, KF_FILE_INDEX, base_offset, true, &isrc, &oi);
        if (rc == KF_OK) {
            kf_offset_index_check(&oi, UINT64_MAX, sink_problem, &si);
            so.offset_index = &oi;
            so.index_problem_fn = sink_problem;
            so.index_problem_ctx = &si;
        }
        if (rc != KF_ERR_NOMEM)
            rc = open_index(&st, KF_FILE_TIMEINDEX, base_offset, true, &tsrc, &ti);
        if (rc == KF_OK) {
            kf_time_index_check(&ti, sink_problem, &st);
            so.time_index = &ti;
            so.timeindex_problem_fn = sink_problem;
            so.timeindex_problem_ctx = &st;
        }
        if (rc == KF_ERR_NOMEM) {
            if (so.offset_index)
                close_index(&si, isrc, &oi);
            free(ipath);
            free(tpath);
            kf_source_close(src);
            return KF_ERR_NOMEM;
        }
    }
    rc = kf_segment_scan(src, &so, &sum);
    if (rc == KF_OK && fc.nomem)
        rc = KF_ERR_NOMEM;
    kf_source_close(src);
    if (so.offset_index)
        close_index(&si, isrc, &oi);
    if (so.time_index)
        close_index(&st, tsrc, &ti);
    if (rc == KF_OK) {
        *opened = true;
        /* the summary counts the segment's own problems; index problems
         * belong to the index files */
        sum.errors = s.errors;
        sum.warnings = s.warnings;
        if (edges) {
            edges->damaged_head = s.has_error && (!fc.has_batch || s.first_error < fc.first_batch);
            edges->damaged_tail = s.has_error && fc.has_batch && s.last_error >= fc.batches_end;
        }
        if (o->segment_fn)
            o->segment_fn(o->segment_ctx, path, &sum);
    } else if (rc == KF_ERR_IO) {
        kf_report(sink_problem, &s, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "read error: %s",
                  kf_path_error_str(errno));
        rc = KF_OK;
    }
    free(ipath);
    free(tpath);
    if (out)
        *out = sum;
    return rc;
}

int kf_verify_file(const char *path, kf_file_kind kind, int64_t base_offset, const kf_verify_opts *o,
                   kf_verify_result *res, kf_segment_summary *seg)
{
    kf_verify_opts own;
    if (verify_opts_take(&own, o) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = &own;
    if (seg)
        memset(seg, 0, sizeof *seg);
    bool opened;
    sink s = {o, res, path, 0, 0, false, 0, 0};
    if (kind == KF_FILE_KRAFT_CHECKPOINT || kind == KF_FILE_BOOTSTRAP_CHECKPOINT) {
        /* batches as a segment, then the snapshot's header and footer */
        int rc = verify_segment(path, KF_FILE_KRAFT_CHECKPOINT, 0, o, res, seg, &opened, NULL);
        if (rc == KF_OK && opened)
            rc = kf_kraft_check_snapshot(path, o->max_batch_bytes, sink_problem, &s, NULL);
        return rc == KF_ERR_NOMEM ? rc : KF_OK;
    }
    if (kind == KF_FILE_LOG)
        return verify_segment(path, kind, base_offset, o, res, seg, &opened, NULL);
    return verify_small_file(&s, kind, base_offset);
}

/* ---- partitions and data dirs ---------------------------------------------------- */

int kf_verify_partition(const char *dir, const kf_verify_opts *o, kf_verify_result *res, kf_partition_summary *ps)
{
    kf_verify_opts own;
    if (verify_opts_take(&own, o) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = &own;
    kf_partition_summary dummy;
    if (!ps)
        ps = &dummy;
    memset(ps, 0, sizeof *ps);
    sink s = {o, res, dir, 0, 0, false, 0, 0};
    kf_name_list l;
    int err_no = 0;
    int rc = kf_error_errno(kf_list_dir(dir, &l), &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        kf_report(sink_problem, &s, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0,
                  "cannot list the partition directory: %s", kf_path_error_str(err_no));
        return KF_OK;
    }
    bool have_prev = false, damage_before = false;
    int64_t prev_last = 0;
    char topic[256];
    int32_t pnum;
    /* a KRaft metadata partition also gets the KRaft checks (kraft_check.h) */
    bool kraft = kf_parse_partition_dir(kf_path_base(dir), topic, sizeof topic, &pnum) &&
                 !strcmp(topic, "__cluster_metadata");
    bool last_has_offsets = false;
    int64_t last_base = 0, last_last = 0;
    rc = KF_OK;
    for (size_t i = 0; i < l.n && rc == KF_OK; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        char *p = kf_path_join(dir, l.names[i]);
        if (!p) {
            rc = KF_ERR_NOMEM;
            break;
        }
        int64_t off;
        size_t plen;
        struct stat fst;
        if (kraft && !kf_snapshot_name_parses(l.names[i]) && stat(p, &fst) == 0 && S_ISREG(fst.st_mode)) {
            /* KRaft reads a snapshot's end offset and epoch from its name by position */
            sink ns = {o, res, p, 0, 0, false, 0, 0};
            kf_report(sink_problem, &ns, KF_P_FILE_NAME_INVALID, KF_SEV_ERROR, 0, false, 0,
                      "a KRaft snapshot is named <20-digit end offset>-<10-digit epoch>.checkpoint, and this name is "
                      "not one (Snapshots.parse: java.lang.NumberFormatException): the KRaft node fails as it "
                      "opens its metadata log");
        } else if (kf_name_carries_offset(l.names[i]) && !kf_name_offset(l.names[i], &off, &plen) &&
                   stat(p, &fst) == 0 && S_ISREG(fst.st_mode)) {
            /* LogLoader reads an offset from its name (docs/formats.md §20.3) */
            sink ns = {o, res, p, 0, 0, false, 0, 0};
            kf_report(sink_problem, &ns, KF_P_FILE_NAME_INVALID, KF_SEV_ERROR, 0, false, 0,
                      "the broker reads an offset from the text before the first '.' of this file's name (\"%.*s\"), "
                      "which is no number: LogLoader throws java.lang.NumberFormatException, which stops the "
                      "broker at start-up",
                      (int)plen, l.names[i]);
        }
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0) {
            kf_segment_summary sum;
            bool ok;
            seg_edges edges = {false, false};
            rc = verify_segment(p, ni.kind, ni.base_offset, o, res, &sum, &ok, &edges);
            sink cs = {o, res, p, 0, 0, false, 0, 0};
            if (ok && have_prev) {
                if (ni.base_offset <= prev_last)
                    kf_report(sink_problem, &cs, KF_P_SEGMENT_OVERLAP, KF_SEV_ERROR, 0, true, ni.base_offset,
                              "segment base offset %lld is not after the previous segment's last offset %lld",
                              (long long)ni.base_offset, (long long)prev_last);
                else if (sum.has_offsets && sum.first_offset > prev_last + 1 && (damage_before || edges.damaged_head))
                    kf_report(sink_problem, &cs, KF_P_SEGMENT_GAP, KF_SEV_WARNING, 0, true, prev_last + 1,
                              "offsets %lld..%lld are in no segment, and damage borders the gap (%s): the damaged "
                              "bytes may have held them, which compaction or retention does not explain",
                              (long long)prev_last + 1, (long long)sum.first_offset - 1,
                              edges.damaged_head ? "at the start of this segment"
                                                 : "after the last intact batch of the segment before");
                else if (sum.has_offsets && sum.first_offset > prev_last + 1)
                    kf_report(sink_problem, &cs, KF_P_SEGMENT_GAP, KF_SEV_WARNING, 0, true, prev_last + 1,
                              "offsets %lld..%lld are in no segment (normal after compaction or retention)",
                              (long long)prev_last + 1, (long long)sum.first_offset - 1);
            }
            /* damage after the last intact batch seen, for the next gap */
            if (ok && sum.has_offsets)
                damage_before = edges.damaged_tail;
            else if (ok && edges.damaged_head)
                damage_before = true;
            if (ok && sum.has_offsets) {
                have_prev = true;
                prev_last = sum.last_offset;
                ps->last_offset = sum.last_offset;
                if (!ps->has_offsets) {
                    ps->has_offsets = true;
                    ps->first_offset = sum.first_offset;
                }
            }
            ps->segments++;
            ps->bytes += ok ? sum.size : 0;
            if (!ok) {
                struct stat stt;
                if (stat(p, &stt) == 0 && S_ISREG(stt.st_mode))
                    ps->bytes += (uint64_t)stt.st_size;
            }
            ps->has_log_end = true;
            last_base = ni.base_offset;
            last_has_offsets = ok && sum.has_offsets;
            last_last = sum.last_offset;
        } else if (ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_KRAFT_CHECKPOINT) {
            bool ok;
            rc = verify_segment(p, ni.kind, ni.base_offset, o, res, NULL, &ok, NULL);
            kraft |= ni.kind == KF_FILE_KRAFT_CHECKPOINT && ni.suffix[0] == 0;
        } else if (ni.kind == KF_FILE_TXNINDEX || ni.kind == KF_FILE_PRODUCER_SNAPSHOT || ni.kind == KF_FILE_LEADER_EPOCH ||
                   ni.kind == KF_FILE_PARTITION_METADATA || ni.kind == KF_FILE_QUORUM_STATE) {
            kraft |= ni.kind == KF_FILE_QUORUM_STATE;
            sink fs = {o, res, p, 0, 0, false, 0, 0};
            rc = verify_small_file(&fs, ni.kind, ni.base_offset);
        }
        /* .index/.timeindex are checked with their segment */
        free(p);
    }
    kf_name_list_free(&l);
    if (rc == KF_OK && kraft) /* snapshots' headers and footers, the log start (quorum-state: above) */
        rc = kf_kraft_check_dir(dir, o->max_batch_bytes, KF_KCHECK_SNAPSHOTS | KF_KCHECK_LOG_START, sink_problem, &s);
    if (rc == KF_ERR_IO)
        rc = KF_OK; /* reported */
    if (ps->has_log_end)
        ps->log_end_offset = last_has_offsets ? last_last + 1 : last_base;
    ps->listed = true;
    return rc;
}

/* What the callbacks of the walk (paths.h) over a data dir's entries or
 * over the PATHs check with. */
typedef struct verify_walk {
    kf_verify_opts own; /* the caller's options, taken */
    const kf_verify_opts *o; /* &own */
    kf_verify_result *res;
} verify_walk;

/* A walk that adds to res, with the caller's options o taken (its version
 * checked): KF_OK, or KF_ERR_UNSUPPORTED. */
static int walk_start(verify_walk *w, const kf_verify_opts *o, kf_verify_result *res)
{
    if (verify_opts_take(&w->own, o) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    w->o = &w->own;
    w->res = res;
    return KF_OK;
}

static int verify_datadir_file(void *ctx, const kf_path_entry *e)
{
    verify_walk *w = ctx;
    if (e->kind != KF_PATH_FILE)
        return KF_OK;
    if (e->file.kind == KF_FILE_BOOTSTRAP_CHECKPOINT)
        return kf_verify_file(e->path, e->file.kind, e->file.base_offset, w->o, w->res, NULL);
    sink fs = {w->o, w->res, e->path, 0, 0, false, 0, 0};
    return verify_small_file(&fs, e->file.kind, e->file.base_offset);
}

static int verify_datadir_partition(void *ctx, const kf_path_entry *e)
{
    verify_walk *w = ctx;
    if (e->kind == KF_PATH_PARTITION)
        return kf_verify_partition(e->path, w->o, w->res, NULL);
    if (e->kind == KF_PATH_UNREADABLE) {
        sink fs = {w->o, w->res, e->path, 0, 0, false, 0, 0};
        kf_report(sink_problem, &fs, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "%s", e->why);
    }
    return KF_OK;
}

static void datadir_walk_opts(kf_paths_walk_opts *wo, verify_walk *w)
{
    kf_paths_walk_opts_on(wo, NULL, verify_datadir_partition, NULL, w, NULL, NULL);
    wo->datadir_file_fn = verify_datadir_file;
    wo->unreadable_partitions = true;
}

int kf_verify_datadir(const char *dir, const kf_verify_opts *o, kf_verify_result *res)
{
    verify_walk w;
    if (walk_start(&w, o, res) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_paths_walk_opts wo;
    datadir_walk_opts(&wo, &w);
    int err_no = 0;
    int rc = kf_error_errno(kf_datadir_walk(dir, &wo), &err_no);
    if (rc == KF_ERR_IO) {
        sink s = {w.o, res, dir, 0, 0, false, 0, 0};
        kf_report(sink_problem, &s, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot list the data directory: %s",
                  kf_path_error_str(err_no));
        rc = KF_OK;
    }
    return rc;
}

/* ---- PATHs ----------------------------------------------------------------------- */

static void path_error(const kf_verify_opts *o, const char *path, int err_no, const char *what)
{
    if (o->path_error_fn)
        o->path_error_fn(o->path_ctx, path, err_no, what);
}

static void path_done(const kf_verify_opts *o, const char *path)
{
    if (o->path_done_fn)
        o->path_done_fn(o->path_ctx, path);
}

/* A PATH's check is done: KF_ERR_NOMEM is said against it. */
static int checked(const kf_verify_opts *o, const char *path, int rc)
{
    path_done(o, path);
    if (rc == KF_ERR_NOMEM)
        path_error(o, path, ENOMEM, "out of memory");
    return rc;
}

static int verify_path_file(void *ctx, const kf_path_entry *e)
{
    verify_walk *w = ctx;
    kf_name_info ni = e->file;
    if (ni.kind == KF_FILE_UNKNOWN && kf_looks_like_log(e->path))
        ni.kind = KF_FILE_LOG; /* base offset unknown: -1 */
    if (ni.kind == KF_FILE_UNKNOWN) {
        path_error(w->o, e->path, 0, "not a Kafka file kfsck knows (by its name); skipped");
        return checked(w->o, e->path, KF_OK);
    }
    return checked(w->o, e->path, kf_verify_file(e->path, ni.kind, ni.base_offset, w->o, w->res, NULL));
}

static int verify_path_partition(void *ctx, const kf_path_entry *e)
{
    verify_walk *w = ctx;
    return checked(w->o, e->path, kf_verify_partition(e->path, w->o, w->res, NULL));
}

static int verify_path_datadir(void *ctx, const kf_path_entry *e)
{
    verify_walk *w = ctx;
    return checked(w->o, e->path, kf_verify_datadir(e->path, w->o, w->res));
}

static void verify_path_error(void *ctx, const char *path, int err_no, const char *what)
{
    verify_walk *w = ctx;
    w->res->unreadable_paths++;
    path_error(w->o, path, err_no, what);
    path_done(w->o, path);
}

int kf_verify_paths(char *const *paths, size_t n, const kf_verify_opts *o, kf_verify_result *res)
{
    verify_walk w;
    if (walk_start(&w, o, res) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_on(&wo, verify_path_file, verify_path_partition, verify_path_datadir, &w, verify_path_error,
                          &w);
    wo.special_what = KF_PATH_SPECIAL_WHAT;
    return kf_paths_walk(paths, n, &wo);
}
