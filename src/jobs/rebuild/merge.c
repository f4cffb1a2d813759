/* merge.c: rebuild one partition from several damaged copies of it. The
 * copies are read as one log by the partition reader (partreader.c) with
 * deep checks: for each offset range it gives the batch to keep, and the
 * conflicts (left-out batches: other bytes over the same offsets, or a
 * history of a lower leader epoch that the cluster discarded) and holes
 * (offsets no copy supplies) as it finds them. The batches are written with
 * the partition writer (partwriter.c) into segments starting at the inputs'
 * base offsets, with indexes, .txnindex files, the leader-epoch checkpoint
 * and the producer snapshot at the merged log end rebuilt from them; the
 * producer state starts from a copy's snapshot at the log start offset
 * when that is past 0 (as the broker loads it). This file is the policy:
 * where segments start and what is reported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "jobs/rebuild/rebuild.h"
#include "bytes/opts.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "format/intact.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/part_reader.h"
#include "format/partwriter.h"
#include "kfsck/repair.h"
#include "kfsck/sys/producer_snapshot.h"

typedef struct merge_ctx {
    const kf_merge_opts *o;
    kf_merge_result *res;
    rebuild_target t;
    kf_partition part;
    int64_t *bases;       /* the union of the copies' segment bases, sorted, each once */
    size_t nbases;
    size_t kbase;         /* the greatest base at or below the last batch's first offset (write_batch) */
    kf_part_writer *w;
    bool seg_open;
    int64_t seg_base;
    char *seed_path;      /* the snapshot the producer state started from */
    char list_err[4096];  /* a copy that could not be listed, or of another cluster */
    int list_errno;       /* why it could not be listed (0: list_what says why it is refused) */
    char list_what[sizeof ((kf_error *)0)->message];
} merge_ctx;

void kf_merge_opts_init(kf_merge_opts *o)
{
    *o = (kf_merge_opts)KF_MERGE_OPTIONS_INIT;
}

static int fail(merge_ctx *c, const char *path, int err_no, const char *what)
{
    return kf_error_set(KF_ERR_IO, err_no, path, "%s", what);
}

static int writer_fail(merge_ctx *c)
{
    const kf_part_writer_error *e = kf_part_writer_err(c->w);
    return fail(c, e->path, e->err_no, e->what);
}

static void emit_file(merge_ctx *c, const char *in, const char *outp, const char *action, const char *reason)
{
    rebuild_emit_file(c->t.od, c->o->file_fn, c->o->ctx, in, outp, action, "%s", reason);
}

/* ---- what the reader finds ---------------------------------------------------- */

static void on_conflict(void *ctx, const kf_part_conflict *cf)
{
    merge_ctx *c = ctx;
    c->res->conflicts++;
    if (c->o->conflict_fn)
        c->o->conflict_fn(c->o->ctx, cf);
}

static void on_hole(void *ctx, const kf_part_hole *h)
{
    merge_ctx *c = ctx;
    c->res->holes++;
    if (c->o->hole_fn)
        c->o->hole_fn(c->o->ctx, h);
}

static void on_problem(void *ctx, const kf_problem *p)
{
    merge_ctx *c = ctx;
    if (c->o->problem_fn)
        c->o->problem_fn(c->o->ctx, p);
}

static void on_list_error(void *ctx, const char *path, int err_no, const char *what)
{
    merge_ctx *c = ctx;
    if (!c->list_err[0]) {
        snprintf(c->list_err, sizeof c->list_err, "%s", path);
        c->list_errno = err_no;
        snprintf(c->list_what, sizeof c->list_what, "%s", what);
    }
}

/* ---- output segments ------------------------------------------------------------ */

static int close_segment(merge_ctx *c)
{
    if (!c->seg_open)
        return KF_OK;
    c->seg_open = false;
    kf_part_segment s;
    if (kf_part_writer_close_segment(c->w, &s) != KF_OK)
        return writer_fail(c);
    c->res->segments_written++;
    rebuild_segment_done(c->t.od, c->o->segment_fn, c->o->ctx, &s, s.input, 0);
    if (s.txn_path) {
        char reason[160];
        snprintf(reason, sizeof reason,
                 "from the merged batches: %llu aborted transactions whose ABORT marker is in this segment",
                 (unsigned long long)(s.txn_len / KF_TXN_ENTRY_SIZE));
        emit_file(c, NULL, s.txn_path, "rebuilt", reason);
    }
    return KF_OK;
}

/* Write b into the segment its offsets belong to: the greatest input base
 * at or below its first offset, when that is past the open segment's base
 * and what was written (else the open segment, else its own first offset).
 * The reader's batches come in increasing offsets, so the base is found by
 * moving a cursor forward over the sorted bases. */
static int write_batch(merge_ctx *c, const kf_batch *b, const char *input)
{
    int64_t first = kf_batch_first_offset(b), last;
    bool has_last = kf_part_writer_last_offset(c->w, &last);
    int64_t target = c->seg_open ? c->seg_base : -1;
    size_t k = c->kbase;
    while (k > 0 && c->bases[k] > first) /* never, while offsets increase */
        k--;
    while (k + 1 < c->nbases && c->bases[k + 1] <= first)
        k++;
    c->kbase = k;
    if (c->nbases && c->bases[k] <= first && c->bases[k] > target && (!has_last || c->bases[k] > last))
        target = c->bases[k];
    if (target < 0)
        target = first;
    if (!c->seg_open || target != c->seg_base) {
        int rc = close_segment(c);
        if (rc != KF_OK)
            return rc;
        if (kf_part_writer_segment(c->w, target, NULL, input) != KF_OK)
            return writer_fail(c);
        c->seg_open = true;
        c->seg_base = target;
    }
    int rc = kf_part_writer_add(c->w, b);
    if (rc == KF_ERR_CORRUPT) /* cannot happen: the reader's offsets increase and fit */
        return fail(c, input, EINVAL, kf_part_writer_refusal(c->w)->message);
    if (rc != KF_OK)
        return writer_fail(c);
    c->res->batches++;
    return KF_OK;
}

/* ---- the partition's files ---------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int collect_bases(merge_ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->part.ncopies; i++)
        n += c->part.copies[i].nseg;
    c->bases = calloc(n ? n : 1, sizeof *c->bases);
    if (!c->bases)
        return fail(c, c->t.out_dir, ENOMEM, "out of memory");
    for (size_t i = 0; i < c->part.ncopies; i++)
        for (size_t k = 0; k < c->part.copies[i].nseg; k++)
            if (c->part.copies[i].bases[k] >= 0)
                c->bases[c->nbases++] = c->part.copies[i].bases[k];
    if (c->nbases)
        qsort(c->bases, c->nbases, sizeof *c->bases, cmp_i64);
    /* copies mostly share their bases: keep each once */
    size_t n_unique = 0;
    for (size_t i = 0; i < c->nbases; i++)
        if (n_unique == 0 || c->bases[i] != c->bases[n_unique - 1])
            c->bases[n_unique++] = c->bases[i];
    c->nbases = n_unique;
    return KF_OK;
}

/* Producer state before the log start: a copy's snapshot there. */
static int seed_producer_state(merge_ctx *c)
{
    if (!c->nbases || c->bases[0] <= 0)
        return KF_OK;
    char name[64];
    snprintf(name, sizeof name, "%020lld.snapshot", (long long)c->bases[0]);
    for (size_t i = 0; i < c->part.ncopies; i++) {
        char *p = kf_path_join(c->part.copies[i].label, name);
        if (!p)
            return fail(c, c->t.out_dir, ENOMEM, "out of memory");
        bool seeded = false;
        int err_no = 0;
        kf_producer_snapshot s; /* read in pieces, whatever its size */
        int read_rc = kf_error_errno(kf_producer_snapshot_open(&s, p), &err_no);
        if (read_rc == KF_ERR_NOMEM) {
            kf_producer_snapshot_close(&s);
            free(p);
            return fail(c, c->t.out_dir, ENOMEM, "out of memory");
        }
        /* one that cannot be read: an `unreadable` warning, the next copy's is tried */
        if (read_rc == KF_ERR_IO)
            rebuild_unreadable(c->o->problem_fn, c->o->ctx, p, read_rc, err_no);
        if (read_rc == KF_OK) {
            seeded = true;
            if (kf_part_writer_seed(c->w, &s) != KF_OK) {
                kf_producer_snapshot_close(&s);
                free(p);
                return writer_fail(c);
            }
            if (kf_producer_snapshot_read_status(&s) != KF_OK) {
                /* it shrank while its entries were read: not used */
                rebuild_unreadable(c->o->problem_fn, c->o->ctx, p, KF_ERR_IO, kf_error_last()->err_no);
                kf_producer_snapshot none = {0};
                (void)kf_part_writer_seed(c->w, &none); /* the state starts empty again */
                seeded = false;
            }
        }
        kf_producer_snapshot_close(&s);
        if (seeded) {
            c->seed_path = p;
            return KF_OK;
        }
        free(p);
    }
    return KF_OK;
}

static int copy_metadata(merge_ctx *c)
{
    /* partition.metadata: the first copy's that parses */
    for (size_t i = 0; i < c->part.ncopies; i++) {
        char *in = kf_path_join(c->part.copies[i].label, "partition.metadata");
        char *outp = NULL, why[200];
        int err_no = 0;
        rebuild_md md = in ? rebuild_copy_metadata(in, c->t.out_dir, c->t.write_dir, c->o->force, &outp, why,
                                                   sizeof why, &err_no, c->o->problem_fn, c->o->ctx)
                           : REBUILD_MD_NOMEM;
        int rc = KF_OK;
        if (md == REBUILD_MD_NOMEM)
            rc = fail(c, c->t.out_dir, ENOMEM, "out of memory");
        else if (md == REBUILD_MD_WRITE_FAILED)
            rc = fail(c, outp, err_no, "cannot write");
        else if (md == REBUILD_MD_COPIED)
            emit_file(c, in, outp, "copied", "valid");
        free(outp);
        free(in);
        if (md != REBUILD_MD_UNREADABLE && md != REBUILD_MD_INVALID)
            return rc;
    }
    return KF_OK;
}

static int write_partition_files(merge_ctx *c)
{
    if (kf_part_writer_write_epochs(c->w, NULL, 0) != KF_OK)
        return writer_fail(c);
    char *ep = kf_path_join(c->t.out_dir, "leader-epoch-checkpoint");
    emit_file(c, NULL, ep, "rebuilt", "from the leader epochs of the merged batches");
    free(ep);
    int rc = copy_metadata(c);
    if (rc != KF_OK)
        return rc;
    /* the producer snapshot at the merged log end */
    int64_t leo;
    if (kf_part_writer_last_offset(c->w, &leo)) {
        leo++;
        const char *outp;
        if (kf_part_writer_write_snapshot(c->w, &outp) != KF_OK)
            return writer_fail(c);
        char reason[240];
        size_t np = kf_pstate_producers(kf_part_writer_pstate(c->w));
        if (c->seed_path)
            snprintf(reason, sizeof reason,
                     "producer state at the merged log end offset %lld: this snapshot (at the log start offset) "
                     "replayed over the merged batches (%zu producers)",
                     (long long)leo, np);
        else
            snprintf(reason, sizeof reason,
                     "producer state at the merged log end offset %lld, replayed from the merged batches (%zu "
                     "producers)",
                     (long long)leo, np);
        emit_file(c, c->seed_path, outp, "rebuilt", reason);
    }
    /* the copies' own snapshots and transaction indexes are replaced by those */
    for (size_t i = 0; i < c->part.ncopies; i++) {
        kf_name_list l;
        int err_no = 0;
        if (kf_error_errno(kf_list_dir(c->part.copies[i].label, &l), &err_no) != KF_OK)
            continue;
        for (size_t k = 0; k < l.n; k++) {
            kf_name_info ni = kf_classify_name(l.names[k]);
            if (ni.kind != KF_FILE_PRODUCER_SNAPSHOT && ni.kind != KF_FILE_TXNINDEX)
                continue;
            char *in = kf_path_join(c->part.copies[i].label, l.names[k]);
            if (in && (!c->seed_path || strcmp(in, c->seed_path) != 0))
                emit_file(c, in, NULL, "dropped",
                          ni.kind == KF_FILE_PRODUCER_SNAPSHOT
                              ? "superseded: producer state is rebuilt from the merged batches"
                              : "superseded: transaction indexes are rebuilt from the merged batches' ABORT markers");
            free(in);
        }
        kf_name_list_free(&l);
    }
    return KF_OK;
}

static int merge_partitions(const char *const *in_dirs, size_t n, const rebuild_target *t, const kf_merge_opts *o,
                            kf_merge_result *res)
{
    const char *out_dir = t->out_dir;
    memset(res, 0, sizeof *res);
    merge_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.res = res;
    c.t = *t;
    kf_part_reader *r = NULL;
    int rc = kf_partition_of_dirs(&c.part, in_dirs, n, on_list_error, &c);
    if (rc == KF_ERR_NOMEM)
        rc = fail(&c, out_dir, ENOMEM, "out of memory");
    else if (rc != KF_OK)
        rc = fail(&c, c.list_err, c.list_errno, c.list_errno ? "cannot list directory" : c.list_what);
    if (rc == KF_OK)
        rc = collect_bases(&c);
    kf_part_writer_opts wo;
    kf_part_writer_opts_init(&wo);
    wo.force = o->force;
    wo.max_batch_bytes = o->max_batch_bytes;
    wo.stage_dir = t->write_dir;
    if (rc == KF_OK) {
        int wrc = kf_part_writer_open(&c.w, out_dir, &wo);
        if (wrc != KF_OK)
            rc = c.w ? writer_fail(&c) : fail(&c, out_dir, ENOMEM, "out of memory");
    }
    if (rc == KF_OK)
        rc = seed_producer_state(&c);
    kf_part_reader_opts ro;
    kf_part_reader_opts_init(&ro);
    ro.max_batch_bytes = o->max_batch_bytes;
    ro.threads = o->threads;
    ro.chunk_bytes = o->chunk_bytes;
    ro.deep = true;
    ro.problem_fn = on_problem;
    ro.problem_ctx = &c;
    ro.conflict_fn = on_conflict;
    ro.hole_fn = on_hole;
    ro.event_ctx = &c;
    if (rc == KF_OK && kf_part_reader_open(&r, &c.part, &ro) != KF_OK)
        rc = fail(&c, out_dir, ENOMEM, "out of memory");
    kf_batch b;
    int got = 0;
    while (rc == KF_OK && (got = kf_part_reader_next(r, &b)) == 1)
        rc = write_batch(&c, &b, kf_part_reader_file(r));
    if (rc == KF_OK && got < 0)
        rc = fail(&c, out_dir, ENOMEM, "out of memory");
    if (rc == KF_OK)
        rc = close_segment(&c);
    if (rc == KF_OK)
        rc = write_partition_files(&c);
    kf_part_reader_close(r, NULL);
    kf_part_writer_close(c.w);
    kf_partition_free(&c.part);
    free(c.bases);
    free(c.seed_path);
    return rc;
}

/* The merge of in_dirs into out_dir; or, with od, into its target under its
 * policy (its force, its stage). */
static int merge_run(const char *const *in_dirs, size_t n, const char *out_dir, const kf_merge_opts *o,
                     kf_merge_result *res, kf_outdir *od)
{
    kf_merge_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_MERGE_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    rebuild_target t = rebuild_target_of(od, out_dir, &own.force);
    return rebuild_done(&t, merge_partitions(in_dirs, n, &t, &own, res));
}

int kf_merge_partitions(const char *const *in_dirs, size_t n, const char *out_dir, const kf_merge_opts *o,
                        kf_merge_result *res)
{
    return merge_run(in_dirs, n, out_dir, o, res, NULL);
}

int kf_merge_into(kf_outdir *od, const char *const *in_dirs, size_t n, const kf_merge_opts *o, kf_merge_result *res)
{
    return merge_run(in_dirs, n, NULL, o, res, od);
}
