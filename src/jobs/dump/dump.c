/* Room jobs/dump/: what `kfsck dump` shows (include/kfsck/dump.h), for a
 * printer to print. dump.c walks the PATHs and drives each file: a segment
 * through the streaming reader (or, for a range of offsets, through
 * kf_range_read), every other Kafka file through dump_entries.c, which
 * hands out its entries; dump_records.c makes each record ready to show
 * (decoded, and whether its raw bytes hold a secret).
 *
 * dump.c: the walk (a file by its name, a directory by the segments below
 * it, KF_DUMP_MAX_DEPTH levels down) and the driving of each file. */
#include "kfsck/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/report.h"
#include "bytes/error.h"
#include "bytes/opts.h"
#include "jobs/dump/dump_internal.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/partition.h"
#include "format/paths.h"

void kf_dump_opts_init(kf_dump_opts *o)
{
    *o = (kf_dump_opts)KF_DUMP_OPTIONS_INIT;
}

/* ---- what goes to the caller -------------------------------------------- */

void dump_path_error(dump_run *d, const char *path, int err_no, bool skipped, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (skipped)
        d->res->skipped++;
    else
        d->res->failed++;
    if (d->o.path_error_fn)
        d->o.path_error_fn(d->o.ctx, path, err_no, what);
}

/* The walk's kf_path_error_fn, and kf_partition_of_dirs'. */
static void walk_error(void *ctx, const char *path, int err_no, const char *what)
{
    dump_path_error(ctx, path, err_no, false, "%s", what);
}

void dump_problem(void *ctx, const kf_problem *p)
{
    dump_run *d = ctx;
    kf_problem_pass(d->o.problem_fn, d->o.ctx, p, d->file, &d->res->errors, &d->res->warnings);
}

static int on_batch(void *ctx, const kf_batch *b)
{
    dump_run *d = ctx;
    return d->o.batch_fn ? d->o.batch_fn(d->o.ctx, d->file, b) : 0;
}

static void on_damaged(void *ctx, const kf_damaged *dm)
{
    dump_run *d = ctx;
    kf_damaged c = *dm;
    if (!c.file)
        c.file = d->file;
    if (d->o.damaged_fn)
        d->o.damaged_fn(d->o.ctx, &c, d->secret_bytes && !d->o.show_secrets);
    if (d->o.records && dump_damaged_records(d, &c) == KF_ERR_NOMEM)
        d->nomem = true;
}

/* ---- segments ------------------------------------------------------------- */

/* The dump of the segment path begins: its decoder, what its raw bytes may hold. */
static int segment_begins(dump_run *d, const char *path)
{
    kf_decoder own;
    if (kf_decoder_for_path(path, &own) != KF_OK)
        return KF_ERR_NOMEM;
    d->file = path;
    d->decoder = d->o.decoder_set ? d->o.decoder : own;
    d->secret_bytes = d->decoder == KF_DECODE_METADATA || d->decoder == KF_DECODE_REMOTE || own == KF_DECODE_METADATA;
    return KF_OK;
}

/* The reader's options for a dump through d. */
static void scan_opts_for(dump_run *d, kf_segment_scan_opts *so)
{
    kf_segment_scan_opts_init(so);
    so->max_batch_bytes = d->o.max_batch_bytes;
    so->records = d->o.records;
    so->deep = true;
    so->batch_fn = on_batch;
    so->record_fn = dump_on_record;
    so->ctx = d;
    so->problem_fn = dump_problem;
    so->problem_ctx = d;
    if (d->o.include_damaged) {
        so->damaged_fn = on_damaged;
        so->damaged_ctx = d;
    }
    so->threads = d->o.threads;
    so->chunk_bytes = d->o.chunk_bytes;
}

static void show_progress(void *ctx, uint64_t position, uint64_t size)
{
    dump_run *d = ctx;
    d->o.progress_fn(d->o.ctx, d->file, position, size);
}

/* A segment (or a KRaft snapshot) from its start. */
static int dump_segment(dump_run *d, const char *path, kf_name_info ni)
{
    kf_source *src;
    int rc = kf_source_open(&src, path, d->o.max_bytes);
    if (rc != KF_OK) {
        dump_path_error(d, path, kf_error_last()->err_no, false, "cannot read: %s",
                        kf_read_error_str(rc, kf_error_last()->err_no));
        return KF_OK;
    }
    if ((rc = segment_begins(d, path)) != KF_OK) {
        kf_source_close(src);
        return rc;
    }
    kf_dump_file f = {.path = path, .name = ni};
    if (d->o.file_fn)
        d->o.file_fn(d->o.ctx, &f);
    kf_segment_scan_opts so;
    scan_opts_for(d, &so);
    so.limited = d->o.max_bytes > 0;
    so.has_base_offset = ni.kind == KF_FILE_LOG && ni.base_offset >= 0;
    so.base_offset = ni.base_offset;
    if (d->o.progress_fn) {
        so.progress_fn = show_progress;
        so.progress_ctx = d;
    }
    kf_segment_summary sum;
    rc = kf_segment_scan(src, &so, &sum);
    if (d->o.file_done_fn)
        d->o.file_done_fn(d->o.ctx, &f);
    kf_source_close(src);
    if (d->nomem)
        return KF_ERR_NOMEM;
    if (rc != KF_OK)
        dump_path_error(d, path, 0, false, "%s", rc == KF_ERR_NOMEM ? "out of memory" : "read error");
    return KF_OK;
}

/* Dump the file path, whose name says ni. */
static int dump_file(dump_run *d, const char *path, kf_name_info ni)
{
    if (ni.kind == KF_FILE_UNKNOWN) {
        dump_path_error(d, path, 0, true, "not a Kafka file kfsck knows (by its name); skipped");
        return KF_OK;
    }
    if (ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_KRAFT_CHECKPOINT || ni.kind == KF_FILE_BOOTSTRAP_CHECKPOINT)
        return dump_segment(d, path, ni);
    d->file = path;
    return dump_small_file(d, path, ni);
}

/* ---- --offset, --from-offset/--to-offset: one log read for a range ------------ */

/* Before each segment of the range. */
static void range_segment(void *ctx, const char *path)
{
    dump_run *d = ctx;
    if (segment_begins(d, path) != KF_OK) {
        d->nomem = true;
        return;
    }
    kf_dump_file f = {.path = path, .name = {.kind = KF_FILE_LOG, .base_offset = -1}, .range = true};
    if (d->o.file_fn)
        d->o.file_fn(d->o.ctx, &f);
}

/* The offsets first..last of the log (a partition dir's segments, or one
 * segment file), with the index's help (kfsck/sys/offset_range.h). */
static int dump_range(dump_run *d, const kf_partition_copy *log)
{
    d->file = log->label;
    kf_range_opts ro;
    kf_range_opts_init(&ro);
    ro.first = d->o.first;
    ro.last = d->o.last;
    scan_opts_for(d, &ro.scan);
    ro.segment_fn = range_segment;
    ro.segment_ctx = d;
    ro.no_seek = d->o.no_seek;
    kf_range_result res;
    int rc = kf_range_read(log, &ro, &res);
    if (d->o.range_done_fn)
        d->o.range_done_fn(d->o.ctx, log->label, &res);
    if (rc == KF_ERR_NOMEM || d->nomem)
        return KF_ERR_NOMEM;
    if (rc != KF_OK) {
        const kf_error *e = kf_error_last();
        dump_path_error(d, e->path[0] ? e->path : log->label, e->err_no, false, "cannot read: %s",
                        kf_read_error_str(rc, e->err_no));
    }
    return KF_OK;
}

static int dump_range_dir(dump_run *d, const char *dir)
{
    kf_partition p;
    int rc = kf_partition_of_dirs(&p, &dir, 1, walk_error, d);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_OK && p.ncopies)
        rc = dump_range(d, &p.copies[0]);
    else
        d->res->failed++;
    kf_partition_free(&p);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

static int dump_range_file(dump_run *d, const char *path, kf_name_info ni)
{
    char *seg = (char *)path;
    int64_t base = ni.base_offset;
    kf_partition_copy log = {.label = seg, .segments = &seg, .bases = &base, .nseg = 1};
    return dump_range(d, &log);
}

/* ---- the PATHs: the walk of kfsck/paths.h ---------------------------------------- */

static int dump_dir(dump_run *d, const char *dir)
{
    int rc = kf_datadir_walk(dir, &d->walk);
    int err_no = rc == KF_ERR_IO ? kf_error_last()->err_no : 0;
    if (rc == KF_ERR_IO && err_no) {
        dump_path_error(d, dir, err_no, false, "cannot list directory: %s", kf_path_error_str(err_no));
        return KF_OK;
    }
    return rc;
}

/* An entry of a directory being dumped: a segment (by its name: a .log
 * file without the broker's .deleted/.cleaned/.swap suffix) is dumped, a
 * partition or data dir below is dumped in turn, the rest (indexes,
 * snapshots, checkpoints, metadata files) only when named as a PATH. */
static int dump_entry(void *ctx, const kf_path_entry *e)
{
    dump_run *d = ctx;
    bool segment = e->file.kind == KF_FILE_LOG && e->file.suffix[0] == 0;
    switch (e->kind) {
    case KF_PATH_FILE:
        if (segment && d->o.range)
            return dump_range_file(d, e->path, e->file);
        if (segment)
            return dump_file(d, e->path, e->file);
        return KF_OK;
    case KF_PATH_SPECIAL:
    case KF_PATH_UNREADABLE:
        /* a partition dir that cannot be read is never skipped (paths.h) */
        if (segment || (e->kind == KF_PATH_UNREADABLE && e->partition_named))
            dump_path_error(d, e->path, e->err_no, false, "%s",
                            e->kind == KF_PATH_SPECIAL ? KF_PATH_SPECIAL_WHAT : e->why);
        return KF_OK;
    case KF_PATH_PARTITION:
    case KF_PATH_DATADIR: {
        if (d->depth >= KF_DUMP_MAX_DEPTH)
            return KF_OK;
        if (d->o.range && e->kind == KF_PATH_PARTITION)
            return dump_range_dir(d, e->path);
        d->depth++;
        int rc = dump_dir(d, e->path);
        d->depth--;
        return rc;
    }
    case KF_PATH_OTHER_DIR: return KF_OK;
    }
    return KF_OK;
}

/* A directory PATH, whatever it holds (or a partition dir in a directory
 * being listed). */
static int dump_dir_path(void *ctx, const kf_path_entry *e)
{
    dump_run *d = ctx;
    if (e->in_datadir)
        return dump_entry(ctx, e);
    if (e->file.kind != KF_FILE_UNKNOWN) {
        /* named like a Kafka file, but a directory: say so rather than dump nothing */
        dump_path_error(d, e->path, EISDIR, false, "is a directory, not a %s file", kf_file_kind_name(e->file.kind));
        return KF_OK;
    }
    if (d->o.range && e->kind == KF_PATH_PARTITION)
        return dump_range_dir(d, e->path);
    return dump_dir(d, e->path);
}

static int dump_file_path(void *ctx, const kf_path_entry *e)
{
    dump_run *d = ctx;
    kf_name_info ni = e->file;
    if (ni.kind == KF_FILE_UNKNOWN && e->looks_like_log)
        ni.kind = KF_FILE_LOG; /* base offset unknown: -1 */
    if (d->o.range && ni.kind == KF_FILE_LOG && ni.suffix[0] == 0)
        return dump_range_file(d, e->path, ni);
    return dump_file(d, e->path, ni);
}

int kf_dump_paths(char *const *paths, size_t n, const kf_dump_opts *o, kf_dump_result *res)
{
    kf_dump_result own_res;
    if (!res)
        res = &own_res;
    dump_run *d;
    int rc = KF_OPTS_NEW(&d, dump_run, o, KF_DUMP_OPTIONS_VERSION, max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    d->res = res;
    kf_paths_walk_opts *wo = &d->walk;
    kf_paths_walk_opts_on(wo, dump_file_path, dump_dir_path, dump_dir_path, d, walk_error, d);
    wo->other_dir_fn = dump_dir_path;
    wo->special_what = KF_PATH_SPECIAL_WHAT;
    wo->datadir_file_fn = wo->other_entry_fn = dump_entry;
    wo->unreadable_partitions = true; /* an unreadable entry is only an error when named like a Kafka file */
    wo->sniff_logs = true;
    uint64_t failed = res->failed;
    rc = kf_paths_walk(paths, n, wo);
    if (rc != KF_OK && rc != KF_ERR_NOMEM && res->failed == failed)
        res->failed++; /* a walk that failed without saying which path */
    kf_dtree_free(&d->tree);
    free(d);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}
