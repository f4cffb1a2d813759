/* repair.c: the repair of a segment file or a partition directory, and the
 * helpers its parts share: the run's state, the partition walk (segments in
 * base-offset order, the producer state seeded from the snapshot at the log
 * start, then every other file) and the entry points. Which batches of a
 * segment are kept, and which byte ranges are dropped and why, is
 * repair_segment.c: each segment is read in one pass with the streaming
 * reader and the kept batches are written with the partition writer
 * (indexes rebuilt by the recovery rule; leader epochs, producer state and
 * each segment's .txnindex replayed from the kept batches); what becomes of
 * the partition's other files is repair_files.c.
 *
 * Default mode is what broker recovery (LogSegment.recover + LogLoader)
 * leaves: the first segment that recovery would truncate is cut at its
 * valid_bytes (every entry the broker keeps before that point is copied as
 * it is, also a batch whose only damage is its magic byte and one too large
 * to read whole), or emptied when recovery's index rebuild would throw in
 * it, and every later segment is dropped. Salvage mode keeps every batch
 * that passes all of verify's per-batch checks (intact.h), found by the
 * resynchronising reader, as long as offsets strictly increase across the
 * whole partition. Either way the reader goes on past the cut to say what
 * was dropped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/source.h"
#include "bytes/error.h"
#include "jobs/rebuild/rebuild.h"
#include "jobs/rebuild/repair_internal.h"
#include "bytes/opts.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/producer_snapshot.h"

void kf_repair_opts_init(kf_repair_opts *o)
{
    *o = (kf_repair_opts)KF_REPAIR_OPTIONS_INIT;
}

/* ---- shared helpers (repair_internal.h) --------------------------------------- */

int repair_fail(repair_ctx *c, const char *path, int err_no, const char *what)
{
    return kf_error_set(KF_ERR_IO, err_no, path, "%s", what);
}

int repair_writer_fail(repair_ctx *c)
{
    const kf_part_writer_error *e = kf_part_writer_err(c->w);
    return repair_fail(c, e->path, e->err_no, e->what);
}

void repair_emit_file(repair_ctx *c, const char *input, const char *output, const char *action, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    rebuild_emit_filev(c->t.od, c->o->file_fn, c->o->ctx, input, output, action, fmt, ap);
    va_end(ap);
}

/* ---- entry points --------------------------------------------------------------- */

static int ctx_init(repair_ctx *c, const kf_repair_opts *o, kf_repair_result *res, const rebuild_target *t)
{
    memset(res, 0, sizeof *res);
    memset(c, 0, sizeof *c);
    c->o = o;
    c->res = res;
    c->t = *t;
    c->ps_seed = -1;
    kf_part_writer_opts wo;
    kf_part_writer_opts_init(&wo);
    wo.force = o->force;
    wo.max_batch_bytes = o->max_batch_bytes;
    wo.rewindable = !o->salvage;
    wo.stage_dir = t->write_dir;
    int rc = kf_part_writer_open(&c->w, t->out_dir, &wo);
    if (rc == KF_OK)
        return KF_OK;
    return c->w ? repair_writer_fail(c) : repair_fail(c, t->out_dir, ENOMEM, "out of memory");
}

static void ctx_free(repair_ctx *c)
{
    kf_part_writer_close(c->w);
    kf_epoch_stream_close(&c->in_le);
    free(c->in_le_path);
    free(c->lost);
}

/* Producer state before the log start: the snapshot there, when the early
 * segments were deleted (as the broker loads it). */
static int seed(repair_ctx *c, const char *in_dir, const kf_name_list *l, int64_t log_start)
{
    for (size_t i = 0; i < l->n && log_start > 0; i++) {
        kf_name_info ni = kf_classify_name(l->names[i]);
        if (ni.kind != KF_FILE_PRODUCER_SNAPSHOT || ni.suffix[0] || ni.base_offset != log_start)
            continue;
        char *p = kf_path_join(in_dir, l->names[i]);
        int rc = KF_OK;
        /* one that cannot be read is reported with the partition's other
         * snapshots (repair_snapshot), and the state starts empty */
        kf_producer_snapshot s = {0}; /* read in pieces, whatever its size */
        if (p && kf_producer_snapshot_open(&s, p) == KF_OK) {
            if (kf_part_writer_seed(c->w, &s) != KF_OK)
                rc = repair_fail(c, p, ENOMEM, "out of memory");
            else if (kf_producer_snapshot_read_status(&s) != KF_OK) {
                kf_producer_snapshot none = {0}; /* it shrank meanwhile: the state starts empty */
                (void)kf_part_writer_seed(c->w, &none);
            } else
                c->ps_seed = ni.base_offset;
        }
        kf_producer_snapshot_close(&s);
        free(p);
        return rc;
    }
    return KF_OK;
}

static bool is_segment(const char *name, kf_name_info *ni)
{
    *ni = kf_classify_name(name);
    return ni->kind == KF_FILE_LOG && ni->suffix[0] == 0 && ni->base_offset >= 0;
}

static int cmp_base(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The files that are not segments: what becomes of each. bases: the
 * segments' base offsets, sorted. */
static int other_files(repair_ctx *c, const char *in_dir, const kf_name_list *l, const int64_t *bases, size_t nseg)
{
    int64_t leo = 0;
    bool have_leo = kf_part_writer_log_end(c->w, &leo);
    bool leo_in_input = false;
    for (size_t i = 0; i < l->n; i++) {
        kf_name_info ni = kf_classify_name(l->names[i]);
        if (ni.kind == KF_FILE_PRODUCER_SNAPSHOT && !ni.suffix[0] && have_leo && ni.base_offset == leo)
            leo_in_input = true;
    }
    int rc = KF_OK;
    for (size_t i = 0; i < l->n && rc == KF_OK; i++) {
        const char *name = l->names[i];
        kf_name_info ni;
        if (is_segment(name, &ni))
            continue;
        char *p = kf_path_join(in_dir, name);
        if (!p)
            return repair_fail(c, in_dir, ENOMEM, "out of memory");
        if (ni.suffix[0]) {
            repair_emit_file(c, p, NULL, "skipped", "a %s file: the broker deletes or replaces it at load", ni.suffix);
        } else if (ni.kind == KF_FILE_PRODUCER_SNAPSHOT) {
            rc = repair_snapshot(c, p, name, ni.base_offset, have_leo, leo, leo_in_input);
        } else if (ni.kind == KF_FILE_PARTITION_METADATA) {
            rc = repair_metadata(c, p);
        } else if (ni.kind == KF_FILE_INDEX || ni.kind == KF_FILE_TIMEINDEX || ni.kind == KF_FILE_TXNINDEX) {
            /* handled with their segments, unless they have none */
            if (!bsearch(&ni.base_offset, bases, nseg, sizeof *bases, cmp_base))
                repair_emit_file(c, p, NULL, "dropped", "no segment with base offset %lld", (long long)ni.base_offset);
        } else if (ni.kind != KF_FILE_LEADER_EPOCH) {
            repair_emit_file(c, p, NULL, "skipped", "not a file the broker loads from a partition directory");
        }
        free(p);
    }
    return rc;
}

static int repair_partition(const char *in_dir, const rebuild_target *t, const kf_repair_opts *o,
                            kf_repair_result *res)
{
    repair_ctx c;
    kf_name_list l;
    int err_no = 0;
    memset(&l, 0, sizeof l);
    memset(res, 0, sizeof *res);
    int lrc = kf_error_errno(kf_list_dir(in_dir, &l), &err_no);
    if (lrc != KF_OK) {
        memset(&c, 0, sizeof c);
        c.res = res;
        return lrc == KF_ERR_NOMEM ? repair_fail(&c, in_dir, ENOMEM, "out of memory")
                                   : repair_fail(&c, in_dir, err_no, "cannot list directory");
    }
    int rc = ctx_init(&c, o, res, t);
    if (rc != KF_OK) {
        kf_name_list_free(&l);
        ctx_free(&c);
        return rc;
    }
    /* the segments, in base offset order: the listing is sorted by name,
     * which is offset order only for 20-digit names ("123.log" is a segment
     * too, and sorts after "1000.log"), hence the insertion */
    int64_t *bases = calloc(l.n ? l.n : 1, sizeof *bases);
    size_t *idx = calloc(l.n ? l.n : 1, sizeof *idx);
    size_t nseg = 0;
    if (rc == KF_OK && (!bases || !idx))
        rc = repair_fail(&c, in_dir, ENOMEM, "out of memory");
    for (size_t i = 0; rc == KF_OK && i < l.n; i++) {
        kf_name_info ni;
        if (is_segment(l.names[i], &ni)) {
            size_t k = nseg++;
            while (k > 0 && bases[k - 1] > ni.base_offset) {
                bases[k] = bases[k - 1];
                idx[k] = idx[k - 1];
                k--;
            }
            bases[k] = ni.base_offset;
            idx[k] = i;
        }
    }
    /* the input's leader-epoch checkpoint, checked against kept batches as they go */
    char *le_path = kf_path_join(in_dir, "leader-epoch-checkpoint");
    if (rc == KF_OK && !le_path)
        rc = repair_fail(&c, in_dir, ENOMEM, "out of memory");
    if (rc == KF_OK)
        rc = repair_read_epochs(&c, le_path);
    if (rc == KF_OK && nseg)
        rc = seed(&c, in_dir, &l, bases[0]);
    for (size_t i = 0; i < nseg && rc == KF_OK; i++) {
        const char *name = l.names[idx[i]];
        char *in_path = kf_path_join(in_dir, name);
        char txnname[96];
        snprintf(txnname, sizeof txnname, "%020lld.txnindex", (long long)bases[i]);
        char *txn_path = kf_path_join(in_dir, txnname);
        if (!in_path || !txn_path) {
            rc = repair_fail(&c, in_dir, ENOMEM, "out of memory");
        } else {
            repair_segment_job j = {in_path, name, bases[i], i + 1 < nseg ? bases[i + 1] : -1,
                         kf_file_exists(txn_path) ? txn_path : NULL};
            rc = repair_segment(&c, &j);
        }
        free(in_path);
        free(txn_path);
    }
    int64_t leo = 0;
    size_t nle;
    kf_part_writer_log_end(c.w, &leo);
    kf_part_writer_epochs(c.w, &nle);
    if (rc == KF_OK && (c.in_le.present || nle))
        rc = repair_write_epochs(&c, le_path, leo);
    if (rc == KF_OK)
        rc = other_files(&c, in_dir, &l, bases, nseg);
    free(le_path);
    free(bases);
    free(idx);
    kf_name_list_free(&l);
    ctx_free(&c);
    return rc;
}

static int repair_segment_file(const char *log_path, const rebuild_target *t, const kf_repair_opts *o,
                               kf_repair_result *res)
{
    repair_ctx c;
    int rc = ctx_init(&c, o, res, t);
    if (rc != KF_OK) {
        ctx_free(&c);
        return rc;
    }
    const char *name = kf_path_base(log_path);
    kf_name_info ni = kf_classify_name(name);
    int64_t base = ni.kind == KF_FILE_LOG ? ni.base_offset : -1;
    char *txn_path = NULL;
    if (base >= 0) {
        /* the .txnindex beside it, with the same suffix (kf_sibling_path) */
        txn_path = kf_sibling_path(log_path, ".txnindex");
        if (txn_path && !kf_file_exists(txn_path)) {
            free(txn_path);
            txn_path = NULL;
        }
    }
    repair_segment_job j = {log_path, name, base, -1, txn_path};
    rc = repair_segment(&c, &j);
    free(txn_path);
    ctx_free(&c);
    return rc;
}

/* The repair of path, a partition dir or one segment, into out_dir; or, with
 * od, into its target under its policy (its force, its stage). */
static int repair_run(const char *path, bool partition, const char *out_dir, const kf_repair_opts *o,
                      kf_repair_result *res, kf_outdir *od)
{
    kf_repair_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_REPAIR_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    rebuild_target t = rebuild_target_of(od, out_dir, &own.force);
    return rebuild_done(&t, partition ? repair_partition(path, &t, &own, res)
                                      : repair_segment_file(path, &t, &own, res));
}

int kf_repair_partition(const char *in_dir, const char *out_dir, const kf_repair_opts *o, kf_repair_result *res)
{
    return repair_run(in_dir, true, out_dir, o, res, NULL);
}

int kf_repair_segment_file(const char *log_path, const char *out_dir, const kf_repair_opts *o, kf_repair_result *res)
{
    return repair_run(log_path, false, out_dir, o, res, NULL);
}

int kf_repair_into(kf_outdir *od, const char *path, const kf_repair_opts *o, kf_repair_result *res)
{
    return repair_run(path, od->partition, NULL, o, res, od);
}
