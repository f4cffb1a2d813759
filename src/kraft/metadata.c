/* Room kraft/: the KRaft metadata log and the cluster image it describes,
 * between the records and the jobs.
 *   metadata.c         the image a broker would load: snapshot, then the log (this file)
 *   kraft_inputs.c     the KRaft files among the PATHs
 *   kraft_check.c      snapshot, quorum-state and metadata partition checks
 *   md_apply*.c        the rules by which each record changes the image
 *   md_image.c         the image's objects; md_views.c its sorted views
 *   md_covered.c       the log's damage that the snapshot used covers
 *   image_check.c      a topic partition's directory against the image
 *
 * metadata.c: `kfsck metadata` as a library job (metadata.h): choosing the
 * snapshot a broker would load (the newest intact one at or below the
 * target offset; docs/formats.md §14.6), replaying the log after it through
 * the partition reader (several copies as one log), with metadata
 * transactions (§14.8: an open one is held as a copy of the image from before
 * it, an aborted one rolled back), and the KRaft checks of kraft_check.c.
 * For predict, the node's own image instead (as_the_node: the latest
 * snapshot as far as it reads, the log up to its first damage) and the
 * first record its metadata loader fails on (§14.7).
 * The inputs come from kraft_inputs.c; records are decoded by kraft_decode.c
 * and applied by md_apply.c. */
#include "bytes/report.h"
#include "bytes/opts.h"
#include "kfsck/metadata.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kraft/kraft_files.h"
#include "kraft/md_covered.h"
#include "kraft/md_image.h"
#include "kfsck/sys/batch.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/kraft.h"
#include "kfsck/kraft_check.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/part_feed.h"
#include "kfsck/sys/quorum_state.h"

struct kf_metadata {
    md_image im;
    md_views v;
    kf_metadata_info info;
    char *cluster_id;
    char *snapshot;
    int32_t *voters;
    char load_fault[640];     /* info.load_fault's words */
};

void kf_metadata_opts_init(kf_metadata_opts *o)
{
    *o = (kf_metadata_opts)KF_METADATA_OPTIONS_INIT;
}

/* ---- building ------------------------------------------------------------------------- */

/* Records of a log batch decoded this many ahead of applying them, so the
 * image memory their changes touch is fetched for all of them at once
 * (md_image_prefetch) rather than one miss after another. */
#define AHEAD 16

typedef struct builder {
    kf_metadata *m;
    const kf_metadata_opts *o;
    kf_dtree t;
    md_image saved;          /* the image from before an open metadata transaction */
    bool in_txn;
    bool nomem;
    int32_t *voters;         /* newest kraft_voters record seen */
    size_t nvoters;
    size_t voters_not_listed; /* quorum-state's currentVoters past those kept */
    bool has_voters;
    int16_t kraft_version;
    bool base_missing;       /* the state before the log is lost (snapshot_missing) */
    bool in_snapshot;        /* the records applied come from a snapshot: */
    uint64_t snap_records;   /* info.records before its first */
    int64_t snap_last;       /* its end offset - 1 */
    const char *where;       /* what problems about the whole log name: the metadata dir */
    uint64_t not_applied_quiet; /* records not applied and not reported one by one */
    /* the records of a log batch read ahead of applying them (log_batch) */
    kf_record ahead[AHEAD];
    kf_kraft_flat ahead_flat[AHEAD];
    bool ahead_fast[AHEAD];
} builder;

/* Records that cannot be applied are reported one by one up to this many;
 * the rest (and all of them when the state they change is lost) in one
 * summary at the end. */
#define NOT_APPLIED_REPORTS 50

static void report(builder *bd, const char *file, const char *code, kf_severity sev, uint64_t pos, bool has_off,
                   int64_t off, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void report(builder *bd, const char *file, const char *code, kf_severity sev, uint64_t pos, bool has_off,
                   int64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kf_vreport_in(bd->o->problem_fn, bd->o->problem_ctx, file ? file : bd->where, code, sev, pos, has_off, off, fmt,
                  ap);
    va_end(ap);
}

/* A kraft_voters control record: the voter ids, replacing the previous set. */
static void take_voters(builder *bd, const kf_dtree *t, uint32_t root)
{
    const kf_dnode *vs = kf_dnode_field(t, &t->nodes[root], "voters");
    if (!vs || vs->kind != KF_V_ARRAY)
        return;
    int32_t *v = malloc((vs->n_children ? vs->n_children : 1) * sizeof *v);
    if (!v) {
        bd->nomem = true;
        return;
    }
    size_t n = 0;
    for (uint32_t c = vs->first_child; c != KF_DNODE_NONE && n < vs->n_children; c = t->nodes[c].next)
        v[n++] = (int32_t)kf_dnode_int(t, &t->nodes[c], "voter_id", -1);
    free(bd->voters);
    bd->voters = v;
    bd->nvoters = n;
    bd->has_voters = true;
}

/* One control record of a batch: returns its type (-1 when unreadable). */
static int control_record(builder *bd, const char *file, const kf_batch *b, const kf_record *rec)
{
    kf_control ctl;
    if (kf_control_parse(rec, &ctl) != KF_OK) {
        report(bd, file, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, rec->offset,
               "offset %lld: a control record whose key is not a control key", (long long)rec->offset);
        bd->m->info.damaged++;
        return -1;
    }
    kf_dtree_reset(&bd->t);
    kf_kraft_record kr;
    int rc = kf_kraft_control_decode(ctl.type, rec->value, rec->value_len, &bd->t, &kr);
    if (rc == KF_ERR_UNSUPPORTED) {
        report(bd, file, KF_P_UNKNOWN_RECORD_TYPE, KF_SEV_WARNING, b->position, true, rec->offset, "offset %lld: %s",
               (long long)rec->offset, kr.err);
        return ctl.type;
    }
    if (rc == KF_ERR_NOMEM) {
        bd->nomem = true;
        return -1;
    }
    if (rc != KF_OK) {
        report(bd, file, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, rec->offset, "offset %lld: %s",
               (long long)rec->offset, kr.err);
        bd->m->info.damaged++;
        return ctl.type;
    }
    if (ctl.type == KF_CONTROL_KRAFT_VOTERS)
        take_voters(bd, &bd->t, kr.root);
    else if (ctl.type == KF_CONTROL_KRAFT_VERSION)
        bd->kraft_version = (int16_t)kf_dnode_int(&bd->t, &bd->t.nodes[kr.root], "kraft_version", -1);
    return ctl.type;
}

/* The node's metadata loader fails on the record at offset (the one
 * info.records counted last), throwing `thrown` (md_why): the first such
 * record is kept in the loader's words (MetadataLoader.loadSnapshot,
 * MetadataBatchLoader.loadBatch), when the image is the node's own. */
static void load_fault(builder *bd, int64_t offset, const char *thrown)
{
    kf_metadata *m = bd->m;
    if (!bd->o->as_the_node || m->info.load_fault || !thrown[0])
        return;
    if (bd->in_snapshot) {
        snprintf(m->load_fault, sizeof m->load_fault,
                 "Error loading metadata log record %llu in snapshot at offset %lld: %s",
                 (unsigned long long)(m->info.records - 1 - bd->snap_records), (long long)bd->snap_last, thrown);
        m->info.load_fault_offset = bd->snap_last;
    } else {
        snprintf(m->load_fault, sizeof m->load_fault, "Error loading metadata log record from offset %lld: %s",
                 (long long)offset, thrown);
        m->info.load_fault_offset = offset;
    }
    m->info.load_fault = m->load_fault;
}

/* What applying a data record (its type's name in record_type) gave. */
static void applied(builder *bd, const char *file, const kf_batch *b, const kf_record *rec, md_apply a,
                    const char *record_type, const md_why *why)
{
    kf_metadata_info *info = &bd->m->info;
    if (a == MD_NOMEM)
        bd->nomem = true;
    else if (a == MD_NOT_APPLIED) {
        if (bd->base_missing || info->not_applied >= NOT_APPLIED_REPORTS)
            bd->not_applied_quiet++;
        else
            report(bd, file, KF_P_RECORD_NOT_APPLIED, KF_SEV_ERROR, b->position, true, rec->offset,
                   "offset %lld: %s not applied: %s", (long long)rec->offset, record_type,
                   why->msg[0] ? why->msg : "a field it needs is missing");
        info->not_applied++;
        load_fault(bd, rec->offset, why->thrown);
    }
}

static void key_warning(builder *bd, const char *file, const kf_batch *b, const kf_record *rec)
{
    report(bd, file, KF_P_BAD_RECORD, KF_SEV_WARNING, b->position, true, rec->offset,
           "offset %lld: a metadata record with a key (Kafka never writes one; ignored)", (long long)rec->offset);
}

/* A data record read without a tree (f, kraft_fast.h): applied to im. */
static void flat_record(builder *bd, const char *file, const kf_batch *b, const kf_record *rec, md_image *im,
                        const kf_kraft_flat *f)
{
    if (rec->key && rec->key_len >= 0)
        key_warning(bd, file, b, rec);
    bd->m->info.records++;
    md_why why;
    md_apply a = md_image_apply_flat(im, f, &why);
    if (a != MD_APPLIED)
        applied(bd, file, b, rec, a, kf_kraft_record_type(f->api_key), &why);
}

/* A data record the generic decoder reads: decoded and applied to im. *bad
 * when it could not be read. */
static void tree_record(builder *bd, const char *file, const kf_batch *b, const kf_record *rec, md_image *im,
                        bool from_snapshot, bool *bad)
{
    kf_metadata_info *info = &bd->m->info;
    md_why why;
    kf_dtree_reset(&bd->t);
    kf_kraft_record kr;
    int rc = kf_kraft_decode(KF_KRAFT_METADATA, rec->key, rec->key_len, rec->value, rec->value_len, &bd->t, &kr);
    long long off = (long long)rec->offset;
    if (kr.key_present)
        key_warning(bd, file, b, rec);
    if (rc == KF_ERR_UNSUPPORTED) {
        report(bd, file, KF_P_UNKNOWN_RECORD_TYPE, KF_SEV_WARNING, b->position, true, rec->offset,
               "offset %lld: %s; not applied", off, kr.err);
        return;
    }
    if (rc == KF_ERR_NOMEM) {
        bd->nomem = true;
        return;
    }
    if (rc != KF_OK) {
        report(bd, file, KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, rec->offset, "offset %lld: %s; skipped",
               off, kr.err[0] ? kr.err : "malformed metadata record");
        info->damaged++;
        *bad = true;
        return;
    }
    info->records++;
    switch (kr.api_key) {
    case KF_MD_BEGIN_TRANSACTION:
    case KF_MD_END_TRANSACTION:
    case KF_MD_ABORT_TRANSACTION:
        /* Kafka's words: MetadataDelta.replay knows no transaction record;
         * MetadataBatchLoader.replay checks their order */
        if (from_snapshot) {
            report(bd, file, KF_P_RECORD_NOT_APPLIED, KF_SEV_ERROR, b->position, true, rec->offset,
                   "offset %lld: a %s record inside a snapshot (Kafka refuses such a snapshot)", off, kr.record_type);
            snprintf(why.thrown, sizeof why.thrown, "java.lang.RuntimeException: Unknown metadata record type %s",
                     kr.api_key == KF_MD_BEGIN_TRANSACTION ? "BEGIN_TRANSACTION_RECORD"
                     : kr.api_key == KF_MD_END_TRANSACTION ? "END_TRANSACTION_RECORD"
                                                           : "ABORT_TRANSACTION_RECORD");
            load_fault(bd, rec->offset, why.thrown);
            *bad = true;
            return;
        }
        if (kr.api_key == KF_MD_BEGIN_TRANSACTION) {
            if (bd->in_txn) {
                report(bd, file, KF_P_RECORD_NOT_APPLIED, KF_SEV_ERROR, b->position, true, rec->offset,
                       "offset %lld: begin_transaction inside an open metadata transaction", off);
                load_fault(bd, rec->offset,
                           "java.lang.RuntimeException: Encountered BeginTransactionRecord while already in a "
                           "transaction");
                return;
            }
            if (!md_image_copy(&bd->saved, im)) {
                bd->nomem = true;
                return;
            }
            bd->in_txn = true;
            return;
        }
        if (!bd->in_txn) {
            report(bd, file, KF_P_RECORD_NOT_APPLIED, KF_SEV_ERROR, b->position, true, rec->offset,
                   "offset %lld: %s without a begin_transaction", off, kr.record_type);
            snprintf(why.thrown, sizeof why.thrown,
                     "java.lang.RuntimeException: Encountered %s without having seen a BeginTransactionRecord",
                     kr.api_key == KF_MD_END_TRANSACTION ? "EndTransactionRecord" : "AbortTransactionRecord");
            load_fault(bd, rec->offset, why.thrown);
            return;
        }
        if (kr.api_key == KF_MD_ABORT_TRANSACTION) { /* everything since the Begin is discarded */
            md_image_free(im);
            *im = bd->saved;
        } else {
            md_image_free(&bd->saved);
        }
        md_image_init(&bd->saved);
        bd->in_txn = false;
        return;
    default:
        break;
    }
    md_apply a = md_image_apply(im, kr.api_key, kr.version, &bd->t, kr.root, from_snapshot, &why);
    applied(bd, file, b, rec, a, kr.record_type, &why);
}

/* One data record: decode and apply to im. *bad when it could not be read.
 * The hot types are read without a tree (kraft_fast.h) when they can be. */
static void data_record(builder *bd, const char *file, const kf_batch *b, const kf_record *rec, md_image *im,
                        bool from_snapshot, bool *bad)
{
    kf_kraft_flat f;
    if (kf_kraft_fast(rec->value, rec->value_len, &f))
        flat_record(bd, file, b, rec, im, &f);
    else
        tree_record(bd, file, b, rec, im, from_snapshot, bad);
}

/* ---- snapshots ------------------------------------------------------------------------ */

typedef struct snap_try {
    bool intact;
    const char *file;        /* the copy the footer came from */
    uint64_t records;
} snap_try;

/* The options of the readers of the snapshots and the log. */
static void reader_opts(const builder *bd, kf_part_reader_opts *o)
{
    kf_part_reader_opts_init(o);
    o->max_batch_bytes = bd->o->max_batch_bytes;
    o->problem_fn = bd->o->problem_fn;
    o->problem_ctx = bd->o->problem_ctx;
}

/* A snapshot being read: what its batches showed so far. */
typedef struct snap_feed {
    builder *bd;
    md_image *im;
    snap_try *st;
    bool header, footer, bad, first;
} snap_feed;

/* One batch of a snapshot (kf_part_batch_fn). */
static int snapshot_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    snap_feed *F = ctx;
    builder *bd = F->bd;
    if (bd->o->as_the_node && kf_part_reader_holes(r))
        return KF_PART_FEED_STOP; /* the node's reader ends at the first damage */
    const char *file = kf_part_reader_file(r);
    kf_record_iter it;
    F->footer = false;
    if (kf_part_reader_records(r, b, &it) != KF_OK) {
        report(bd, file, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true,
               b->base_offset, "%s", it.err_msg);
        F->bad = true;
        F->first = false;
        return KF_OK;
    }
    kf_record rec;
    int rr = 0;
    bool first_rec = true;
    while (!bd->nomem && (rr = kf_records_next(&it, &rec)) == 1) {
        if (b->control) {
            int type = control_record(bd, file, b, &rec);
            if (F->first && first_rec)
                F->header = type == KF_CONTROL_SNAPSHOT_HEADER;
            F->footer = type == KF_CONTROL_SNAPSHOT_FOOTER;
            if (F->footer)
                F->st->file = file;
        } else {
            data_record(bd, file, b, &rec, F->im, true, &F->bad);
        }
        first_rec = false;
    }
    if (rr < 0) {
        report(bd, file, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true,
               b->base_offset, "%s", it.err_msg);
        F->bad = true;
        F->footer = false;
    }
    F->first = false;
    return bd->nomem ? KF_PART_FEED_STOP : KF_OK;
}

/* Load the snapshot held by paths (copies of one snapshot, end_offset) into
 * a fresh im. */
static int load_snapshot(builder *bd, char *const *paths, size_t n, int64_t end_offset, md_image *im, snap_try *st)
{
    memset(st, 0, sizeof *st);
    kraft_files f;
    if (kraft_files_init(&f, paths, n) != KF_OK)
        return KF_ERR_NOMEM;
    kf_part_reader_opts o;
    reader_opts(bd, &o);
    uint64_t records_before = bd->m->info.records;
    snap_feed F = {bd, im, st, false, false, false, true};
    kf_part_result res;
    bd->in_snapshot = true;
    bd->snap_records = records_before;
    bd->snap_last = end_offset - 1;
    int rc = kf_part_feed(&f.p, &o, snapshot_batch, &F, &res);
    bd->in_snapshot = false;
    kraft_files_free(&f);
    if (rc != KF_OK || bd->nomem)
        return KF_ERR_NOMEM;
    st->records = bd->m->info.records - records_before;
    st->intact = F.header && F.footer && !F.bad && !res.uncovered && !res.unreadable;
    return KF_OK;
}

static int cmp_snap(const void *a, const void *b)
{
    const kf_kraft_snapshot_file *x = *(const kf_kraft_snapshot_file *const *)a;
    const kf_kraft_snapshot_file *y = *(const kf_kraft_snapshot_file *const *)b;
    if (x->end_offset != y->end_offset)
        return x->end_offset > y->end_offset ? -1 : 1;
    if (x->epoch != y->epoch)
        return x->epoch > y->epoch ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* Try the snapshots from the newest at or below the target down; the first
 * intact one becomes the image (as_the_node: the newest, whatever its
 * state, as the node loads it). bootstrap: try only the bootstrap files
 * (used when there is neither a log nor a snapshot). */
static int choose_snapshot(builder *bd, const kf_kraft_inputs *ki, int64_t target, bool bootstrap)
{
    kf_metadata *m = bd->m;
    const kf_kraft_snapshot_file **c = malloc((ki->nsnapshots ? ki->nsnapshots : 1) * sizeof *c);
    char **paths = malloc((ki->nsnapshots ? ki->nsnapshots : 1) * sizeof *paths);
    if (!c || !paths) {
        free(c);
        free(paths);
        return kf_error_nomem();
    }
    size_t n = 0;
    for (size_t i = 0; i < ki->nsnapshots; i++) {
        const kf_kraft_snapshot_file *s = &ki->snapshots[i];
        if (s->bootstrap != bootstrap)
            continue;
        if (!bootstrap && s->end_offset - 1 > target)
            continue; /* holds state after the target */
        c[n++] = s;
    }
    if (n > 1)
        qsort(c, n, sizeof *c, cmp_snap);
    int rc = KF_OK;
    for (size_t i = 0; i < n && rc == KF_OK;) {
        /* the copies of one snapshot: same end offset and epoch */
        size_t j = i, k = 0;
        while (j < n && c[j]->end_offset == c[i]->end_offset && c[j]->epoch == c[i]->epoch &&
               (!bootstrap || j == i))
            paths[k++] = c[j++]->path;
        md_image im;
        md_image_init(&im);
        /* what the snapshot's control records set is the state before it
         * again when the snapshot is not used: the voters are held aside
         * (take_voters frees the array it replaces) */
        uint64_t records_before = m->info.records;
        int16_t kv_before = bd->kraft_version;
        int32_t *voters_before = bd->voters;
        size_t nvoters_before = bd->nvoters;
        bool has_voters_before = bd->has_voters;
        bd->voters = NULL;
        bd->nvoters = 0;
        bd->has_voters = false;
        snap_try st;
        rc = load_snapshot(bd, paths, k, c[i]->end_offset, &im, &st);
        if (rc == KF_OK && (st.intact || (bd->o->as_the_node && !bootstrap))) {
            if (bd->has_voters) { /* the snapshot's voters replace those from before */
                free(voters_before);
            } else {
                bd->voters = voters_before;
                bd->nvoters = nvoters_before;
                bd->has_voters = has_voters_before;
            }
            md_image_free(&m->im);
            m->im = im;
            m->snapshot = strdup(st.file ? st.file : paths[0]);
            if (!m->snapshot)
                rc = KF_ERR_NOMEM;
            m->info.snapshot = m->snapshot;
            m->info.snapshot_offset = c[i]->end_offset;
            m->info.snapshot_epoch = c[i]->epoch;
            if (!bootstrap) {
                m->info.has_last_offset = c[i]->end_offset > 0;
                m->info.last_offset = c[i]->end_offset - 1;
                m->info.has_leader_epoch = true;
                m->info.leader_epoch = c[i]->epoch;
            }
            break;
        }
        md_image_free(&im);
        m->info.records = records_before;
        bd->kraft_version = kv_before;
        free(bd->voters);
        bd->voters = voters_before;
        bd->nvoters = nvoters_before;
        bd->has_voters = has_voters_before;
        i = j;
    }
    free(c);
    free(paths);
    return rc;
}

/* ---- the log ---------------------------------------------------------------------------- */

/* The log being replayed from start up to target. */
typedef struct log_feed {
    builder *bd;
    int64_t start, target;
    bool bad;
} log_feed;

/* One batch of the log (kf_part_batch_fn): its records from start to
 * target applied; the first batch past target ends the replay. */
static int log_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    log_feed *F = ctx;
    builder *bd = F->bd;
    kf_metadata *m = bd->m;
    /* the node recovers its metadata log from offset 0 and cuts it at the
     * first damage; below the snapshot's end the log then restarts at that
     * end (docs/formats.md §14.6): either way nothing after it is loaded */
    if (bd->o->as_the_node && kf_part_reader_holes(r))
        return KF_PART_FEED_STOP;
    m->info.log_end_offset = b->last_offset + 1;
    int64_t first = b->base_offset_known ? b->base_offset : b->last_offset;
    if (b->last_offset < F->start)
        return KF_OK;
    if (first > F->target)
        return KF_PART_FEED_STOP;
    const char *file = kf_part_reader_file(r);
    kf_record_iter it;
    if (kf_part_reader_records(r, b, &it) != KF_OK) {
        report(bd, file, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true,
               b->base_offset, "%s; batch skipped", it.err_msg);
        m->info.damaged++;
        return KF_OK;
    }
    kf_record rec;
    int rr = 0;
    bool any = false;
    if (b->control) {
        while (!bd->nomem && (rr = kf_records_next(&it, &rec)) == 1) {
            if (rec.offset < F->start)
                continue;
            if (rec.offset > F->target)
                break;
            any = true;
            control_record(bd, file, b, &rec);
        }
    } else {
        /* a window of records read (and the hot ones decoded) ahead, then
         * applied in order */
        bool more = true;
        while (!bd->nomem && more) {
            size_t n = 0;
            while (n < AHEAD && (rr = kf_records_next(&it, &bd->ahead[n])) == 1) {
                const kf_record *ar = &bd->ahead[n];
                if (ar->offset < F->start)
                    continue;
                if (ar->offset > F->target) {
                    more = false;
                    break;
                }
                bd->ahead_fast[n] = kf_kraft_fast(ar->value, ar->value_len, &bd->ahead_flat[n]);
                n++;
            }
            if (rr != 1)
                more = false;
            md_image_prefetch(&m->im, bd->ahead_flat, bd->ahead_fast, n);
            for (size_t i = 0; i < n && !bd->nomem; i++) {
                any = true;
                if (bd->ahead_fast[i])
                    flat_record(bd, file, b, &bd->ahead[i], &m->im, &bd->ahead_flat[i]);
                else
                    tree_record(bd, file, b, &bd->ahead[i], &m->im, false, &F->bad);
            }
        }
        if (bd->nomem)
            rr = 0; /* the records after the one that ran out of memory are not looked at */
    }
    if (rr < 0) {
        report(bd, file, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true,
               b->base_offset, "%s; the rest of the batch is skipped", it.err_msg);
        m->info.damaged++;
    }
    if (any || rr < 0) {
        m->info.has_last_offset = true;
        m->info.last_offset = b->last_offset < F->target ? b->last_offset : F->target;
        m->info.has_leader_epoch = true;
        m->info.leader_epoch = b->partition_leader_epoch;
    }
    return bd->nomem ? KF_PART_FEED_STOP : KF_OK;
}

/* The log from the snapshot's end offset (start) to the target; damage
 * below start, which the snapshot covers, reported as such (md_covered.h). */
static int replay_log(builder *bd, const kf_kraft_inputs *ki, int64_t start, int64_t target)
{
    if (!ki->log.ncopies)
        return KF_OK;
    kf_part_reader_opts o;
    reader_opts(bd, &o);
    md_covered cov;
    md_covered_init(&cov, o.problem_fn, o.problem_ctx, start);
    o.problem_fn = md_covered_problem;
    o.problem_ctx = &cov;
    log_feed F = {bd, start, target, false};
    kf_part_result res;
    kf_part_reader *r;
    int rc = kf_part_reader_open(&r, &ki->log, &o);
    if (rc == KF_OK) {
        rc = kf_part_feed_reader(r, log_batch, &F);
        md_covered_holes(&cov, r);
        kf_part_reader_close(r, &res);
        bd->m->info.damaged += res.uncovered - cov.covered_holes;
    }
    if (!md_covered_finish(&cov))
        rc = KF_ERR_NOMEM;
    return rc != KF_OK || bd->nomem ? KF_ERR_NOMEM : KF_OK;
}

/* ---- small files ---------------------------------------------------------------------- */

static void read_cluster_id(kf_metadata *m, const kf_kraft_inputs *ki)
{
    for (size_t i = 0; i < ki->nmeta && !m->cluster_id; i++) {
        kf_meta_properties mp;
        if (kf_meta_properties_read(ki->meta_properties[i], &mp) == KF_OK && mp.cluster_id[0])
            m->cluster_id = strdup(mp.cluster_id);
    }
    m->info.cluster_id = m->cluster_id;
}

/* currentVoters of the first quorum-state that names them (kraft.version 0). */
static bool quorum_voters(builder *bd, const kf_kraft_inputs *ki)
{
    for (size_t i = 0; i < ki->nquorum; i++) {
        kf_quorum_state qs;
        if (kf_quorum_state_read(ki->quorum_states[i], &qs) != KF_OK || !qs.has_voters)
            continue;
        size_t n = qs.nvoters < KF_QUORUM_MAX_VOTERS ? qs.nvoters : KF_QUORUM_MAX_VOTERS;
        int32_t *v = malloc((n ? n : 1) * sizeof *v);
        if (!v)
            return false;
        memcpy(v, qs.voters, n * sizeof *v);
        free(bd->voters);
        bd->voters = v;
        bd->nvoters = n;
        bd->voters_not_listed = qs.nvoters - n;
        bd->has_voters = true;
        return true;
    }
    return true;
}

/* ---- the job ------------------------------------------------------------------------------ */

int kf_metadata_build(kf_metadata **out, const kf_kraft_inputs *ki, const kf_metadata_opts *opts)
{
    *out = NULL;
    kf_metadata_opts own;
    /* version 1 callers have the fields before as_the_node */
    size_t given = opts && opts->version == 1 ? offsetof(kf_metadata_opts, as_the_node) : sizeof own;
    if (kf_opts_take_grown(&own, sizeof own, opts, given, KF_METADATA_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    opts = &own;
    kf_metadata *m = calloc(1, sizeof *m);
    if (!m)
        return kf_error_nomem();
    md_image_init(&m->im);
    m->info.snapshot_offset = -1;
    m->info.kraft_version = -1;
    m->info.log_start_offset = -1;
    m->info.log_end_offset = -1;
    m->info.load_fault_offset = -1;
    builder bd;
    memset(&bd, 0, sizeof bd);
    bd.m = m;
    bd.o = opts;
    bd.kraft_version = -1;
    md_image_init(&bd.saved);
    int rc = KF_OK;
    int64_t target = opts->has_as_of ? opts->as_of_offset : INT64_MAX;
    bd.where = ki->ndirs ? ki->dirs[0]
               : ki->log.ncopies ? ki->log.copies[0].label
               : ki->nsnapshots ? ki->snapshots[0].path
                                : NULL;

    read_cluster_id(m, ki);
    /* the checks of each metadata directory and loose snapshot (the log
     * start is judged below, against the snapshot actually usable) */
    for (size_t i = 0; i < ki->ndirs && rc != KF_ERR_NOMEM; i++)
        if (kf_kraft_check_dir(ki->dirs[i], opts->max_batch_bytes, KF_KCHECK_SNAPSHOTS | KF_KCHECK_QUORUM,
                               opts->problem_fn, opts->problem_ctx) == KF_ERR_NOMEM)
            rc = KF_ERR_NOMEM;
    for (size_t i = 0; i < ki->nsnapshots && rc != KF_ERR_NOMEM; i++)
        if (ki->snapshots[i].loose &&
            kf_kraft_check_snapshot(ki->snapshots[i].path, opts->max_batch_bytes, opts->problem_fn,
                                    opts->problem_ctx, NULL) == KF_ERR_NOMEM)
            rc = KF_ERR_NOMEM;
    for (size_t i = 0; i < ki->nquorum && rc != KF_ERR_NOMEM; i++) {
        /* quorum-state files named on the command line (those in the dirs were checked above) */
        bool in_dir = false;
        for (size_t d = 0; d < ki->ndirs && !in_dir; d++) {
            size_t l = strlen(ki->dirs[d]);
            in_dir = !strncmp(ki->quorum_states[i], ki->dirs[d], l) && ki->quorum_states[i][l] == '/' &&
                     !strchr(ki->quorum_states[i] + l + 1, '/');
        }
        if (!in_dir)
            kf_kraft_check_quorum_state(ki->quorum_states[i], opts->problem_fn, opts->problem_ctx);
    }

    /* log start: the lowest first segment's base offset among the copies */
    for (size_t c = 0; c < ki->log.ncopies; c++) {
        const kf_partition_copy *cp = &ki->log.copies[c];
        if (cp->nseg && cp->bases[0] >= 0 &&
            (m->info.log_start_offset < 0 || cp->bases[0] < m->info.log_start_offset))
            m->info.log_start_offset = cp->bases[0];
    }
    size_t segs = 0;
    for (size_t c = 0; c < ki->log.ncopies; c++)
        segs += ki->log.copies[c].nseg;

    if (rc == KF_OK)
        rc = choose_snapshot(&bd, ki, target, false);
    if (rc == KF_OK && !m->info.snapshot && segs == 0)
        rc = choose_snapshot(&bd, ki, target, true);
    if (rc == KF_OK) {
        bool bootstrap_only = m->info.snapshot && segs == 0 && m->info.snapshot_offset == 0;
        int64_t start = m->info.snapshot && !bootstrap_only ? m->info.snapshot_offset : 0;
        int64_t ls = m->info.log_start_offset;
        if (segs && ls > start) {
            const char *f = ki->log.copies[0].nseg ? ki->log.copies[0].segments[0] : NULL;
            for (size_t c = 0; c < ki->log.ncopies; c++)
                if (ki->log.copies[c].nseg && ki->log.copies[c].bases[0] == ls)
                    f = ki->log.copies[c].segments[0];
            if (m->info.snapshot)
                report(&bd, f, KF_P_SNAPSHOT_MISSING, KF_SEV_ERROR, 0, true, ls,
                       "the metadata log starts at offset %lld but the snapshot used ends at %lld: offsets "
                       "%lld..%lld are in neither, so the state is incomplete",
                       (long long)ls, (long long)start, (long long)start, (long long)ls - 1);
            else
                report(&bd, f, KF_P_SNAPSHOT_MISSING, KF_SEV_ERROR, 0, true, ls,
                       "the metadata log starts at offset %lld and no intact KRaft snapshot covers the offsets "
                       "before it: the node refuses to start (\"Inconsistent snapshot state\") and the state "
                       "shown lacks everything before offset %lld",
                       (long long)ls, (long long)ls);
            m->info.damaged++;
            bd.base_missing = true;
        }
        rc = replay_log(&bd, ki, start, target);
    }
    if (rc == KF_OK && bd.not_applied_quiet)
        report(&bd, NULL, KF_P_RECORD_NOT_APPLIED, KF_SEV_ERROR, 0, false, 0,
               "%llu %srecords could not be applied%s", (unsigned long long)bd.not_applied_quiet,
               bd.not_applied_quiet == m->info.not_applied ? "" : "more ",
               bd.base_missing ? " (they change brokers, topics or partitions whose records are in the lost part "
                                 "of the log)"
                               : "");
    if (rc == KF_OK && bd.in_txn) {
        /* a transaction still open at the end is not visible */
        md_image_free(&m->im);
        m->im = bd.saved;
        md_image_init(&bd.saved);
        bd.in_txn = false;
        m->info.open_transaction = true;
        report(&bd, NULL, KF_P_OPEN_METADATA_TRANSACTION, KF_SEV_WARNING, 0, false, 0,
               "the log ends inside a metadata transaction: its records are not applied (a broker does not "
               "publish them either)");
    }
    if (rc == KF_OK && !bd.has_voters && !quorum_voters(&bd, ki))
        rc = KF_ERR_NOMEM;
    md_image_free(&bd.saved);
    kf_dtree_free(&bd.t);
    m->voters = bd.voters;
    m->info.voters = bd.voters;
    m->info.nvoters = bd.nvoters;
    m->info.voters_not_listed = bd.voters_not_listed;
    m->info.has_voters = bd.has_voters;
    m->info.kraft_version = bd.kraft_version;
    m->info.has_metadata_version = m->im.has_mv;
    m->info.metadata_version = m->im.mv;
    if (rc == KF_OK && !md_views_build(&m->v, &m->im))
        rc = KF_ERR_NOMEM;
    if (rc == KF_ERR_NOMEM) {
        kf_metadata_free(m);
        return rc;
    }
    *out = m;
    return rc;
}

void kf_metadata_free(kf_metadata *m)
{
    if (!m)
        return;
    md_views_free(&m->v);
    md_image_free(&m->im);
    free(m->cluster_id);
    free(m->snapshot);
    free(m->voters);
    free(m);
}

const kf_metadata_info *kf_metadata_get_info(const kf_metadata *m) { return &m->info; }

int kf_metadata_run(kf_metadata **out, char *const *paths, size_t n, const kf_metadata_opts *o,
                    kf_path_error_fn fn, void *ctx)
{
    *out = NULL;
    kf_kraft_inputs ki;
    int rc = kf_kraft_inputs_collect(&ki, paths, n, fn, ctx);
    if (rc != KF_ERR_NOMEM && kf_kraft_inputs_found(&ki)) {
        int brc = kf_metadata_build(out, &ki, o);
        if (brc != KF_OK)
            rc = brc;
    }
    kf_kraft_inputs_free(&ki);
    return rc;
}

#define VIEW(fn, type, field)                                                                                   \
    size_t fn(const kf_metadata *m, const type *const **out)                                                  \
    {                                                                                                          \
        *out = (const type *const *)m->v.field.v;                                                              \
        return m->v.field.n;                                                                                   \
    }
VIEW(kf_metadata_features, kf_md_feature, features)
VIEW(kf_metadata_brokers, kf_md_broker, brokers)
VIEW(kf_metadata_controllers, kf_md_controller, controllers)
VIEW(kf_metadata_topics, kf_md_topic, topics)
VIEW(kf_metadata_configs, kf_md_config, configs)
VIEW(kf_metadata_quotas, kf_md_quota, quotas)
VIEW(kf_metadata_acls, kf_md_acl, acls)
VIEW(kf_metadata_scram, kf_md_scram, scram)
VIEW(kf_metadata_tokens, kf_md_token, tokens)

void kf_metadata_producer_ids(const kf_metadata *m, int64_t *next_producer_id, int32_t *broker_id,
                              int64_t *broker_epoch)
{
    *next_producer_id = m->im.next_producer_id;
    *broker_id = m->im.pid_broker_id;
    *broker_epoch = m->im.pid_broker_epoch;
}

const kf_md_topic *kf_metadata_topic_by_id(const kf_metadata *m, const uint8_t id[16])
{
    return m ? htab_get(&m->im.topics, id, 16) : NULL;
}

const kf_md_topic *kf_metadata_topic_by_name(const kf_metadata *m, const char *name)
{
    return m && name ? htab_get(&m->im.topic_names, name, (uint32_t)strlen(name)) : NULL;
}

const char *kf_metadata_config(const kf_metadata *m, int8_t resource_type, const char *resource_name,
                               const char *name)
{
    if (!m || !resource_name || !name)
        return NULL;
    /* The view is sorted by (resource type, resource name, config name). */
    size_t lo = 0, hi = m->v.configs.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kf_md_config *c = m->v.configs.v[mid];
        int d = c->resource_type != resource_type ? (c->resource_type < resource_type ? -1 : 1)
                                                  : strcmp(c->resource_name, resource_name);
        if (!d)
            d = strcmp(c->name, name);
        if (!d)
            return c->value;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *kf_config_resource_name(int8_t type)
{
    switch (type) {
    case 2: return "topic";
    case 4: return "broker";
    case 8: return "broker_logger";
    case 16: return "client_metrics";
    case 32: return "group";
    default: return NULL;
    }
}
