/* Room jobs/rebuild/: writing a partition back. repair.c, repair_files.c
 * and repair_segment.c repair one copy (cut where the broker would, or
 * salvage past the damage); merge.c merges several copies; rebuild.c (this
 * file) is what both share as they write; outdir.c is where their output
 * goes and what it never writes over.
 *
 * rebuild.c: what repair and merge share as they write a partition
 * (rebuild.h). */
#include "jobs/rebuild/rebuild.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/rebuild/outdir_internal.h"
#include "bytes/error.h"
#include "bytes/report.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "format/out_file.h"
#include "format/source.h"

void rebuild_emit_filev(kf_outdir *od, rebuild_file_fn fn, void *ctx, const char *input, const char *output,
                        const char *action, const char *fmt, va_list ap)
{
    if (od)
        kf_outdir_wrote(od, output);
    if (!fn)
        return;
    kf_repair_file f;
    memset(&f, 0, sizeof f);
    f.input = input;
    f.output = output;
    f.action = action;
    vsnprintf(f.reason, sizeof f.reason, fmt, ap);
    fn(ctx, &f);
}

void rebuild_emit_file(kf_outdir *od, rebuild_file_fn fn, void *ctx, const char *input, const char *output,
                       const char *action, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rebuild_emit_filev(od, fn, ctx, input, output, action, fmt, ap);
    va_end(ap);
}

static void rebuild_segment_report(const kf_part_segment *s, const char *input, uint64_t input_size,
                                   kf_repair_segment *out)
{
    *out = (kf_repair_segment){.input = input, .output = s->log_path, .input_size = input_size,
                               .written = s->written};
}

void rebuild_segment_done(kf_outdir *od, rebuild_segment_fn fn, void *ctx, const kf_part_segment *s,
                          const char *input, uint64_t input_size)
{
    if (od)
        kf_outdir_wrote_segment(od, s->log_path);
    if (!fn)
        return;
    kf_repair_segment r;
    rebuild_segment_report(s, input, input_size, &r);
    fn(ctx, &r);
}

rebuild_target rebuild_target_of(kf_outdir *od, const char *out_dir, bool *force)
{
    if (od) {
        out_dir = od->target;
        *force = od->force;
    }
    return (rebuild_target){out_dir, od && od->stage ? od->stage : out_dir, od};
}

int rebuild_done(const rebuild_target *t, int rc)
{
    if (rc != KF_OK || !t->od || kf_outdir_finish(t->od) == KF_OK)
        return rc;
    return kf_error_set(KF_ERR_NOMEM, ENOMEM, t->od->target, "out of memory");
}

bool rebuild_unreadable(kf_problem_fn fn, void *ctx, const char *path, int rc, int err_no)
{
    if (rc == KF_ERR_IO && err_no == ENOENT)
        return false;
    kf_report_in(fn, ctx, path, KF_P_UNREADABLE, KF_SEV_WARNING, 0, false, 0, "cannot read: %s",
                 kf_read_error_str(rc, err_no));
    return true;
}

rebuild_md rebuild_copy_metadata(const char *in_path, const char *out_dir, const char *write_dir, bool force,
                                 char **outp, char *why, size_t why_cap, int *err_no, kf_problem_fn problem_fn,
                                 void *problem_ctx)
{
    *outp = NULL;
    kf_file_contents m;
    int read_errno = 0;
    /* small by nature: read whole with a cap (KF_META_FILE_MAX), one larger is invalid */
    int rc = kf_error_errno(kf_file_read_meta(in_path, "partition.metadata", &m.data, &m.size), &read_errno);
    if (rc == KF_ERR_NOMEM)
        return REBUILD_MD_NOMEM;
    if (rc == KF_ERR_CORRUPT) {
        snprintf(why, why_cap, "%s", kf_error_last()->message);
        return REBUILD_MD_INVALID;
    }
    if (rc != KF_OK) {
        rebuild_unreadable(problem_fn, problem_ctx, in_path, rc, read_errno);
        return REBUILD_MD_UNREADABLE;
    }
    kf_partition_metadata pm;
    rebuild_md res;
    if (kf_partition_metadata_parse(m.data, m.size, &pm) != KF_OK) {
        snprintf(why, why_cap, "%s", kf_error_last()->message);
        res = REBUILD_MD_INVALID;
    }
    else if (!(*outp = kf_path_join(out_dir, "partition.metadata")))
        res = REBUILD_MD_NOMEM;
    else if (kf_error_errno(kf_out_write_file(write_dir, "partition.metadata", m.data, m.size, force), err_no) != KF_OK)
        res = REBUILD_MD_WRITE_FAILED;
    else
        res = REBUILD_MD_COPIED;
    free(m.data);
    return res;
}
