/* rebuild.h: what repair (repair.c, repair_files.c) and merge (merge.c)
 * share as they write a partition: the report of a file that is not a
 * segment and of a segment written (each also named in the run's output
 * directory, outdir.h, when there is one), and the copy of
 * partition.metadata. Private to src/jobs. */
#ifndef KFSCK_JOBS_REBUILD_H
#define KFSCK_JOBS_REBUILD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/outdir.h"
#include "format/partwriter.h"
#include "kfsck/repair.h"

typedef void (*rebuild_file_fn)(void *ctx, const kf_repair_file *f);

typedef void (*rebuild_segment_fn)(void *ctx, const kf_repair_segment *s);

/* Report what became of a file (fn may be NULL: nothing); its output, if
 * any, is named in od (may be NULL). The reason is printf-formatted, cut to
 * kf_repair_file.reason's size. */
void rebuild_emit_file(kf_outdir *od, rebuild_file_fn fn, void *ctx, const char *input, const char *output,
                       const char *action, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void rebuild_emit_filev(kf_outdir *od, rebuild_file_fn fn, void *ctx, const char *input, const char *output,
                        const char *action, const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

/* A segment the partition writer closed: named in od (may be NULL), then
 * reported to fn (may be NULL). input: the input segment it came from,
 * input_size its size (0 when not one file's). */
void rebuild_segment_done(kf_outdir *od, rebuild_segment_fn fn, void *ctx, const kf_part_segment *s,
                          const char *input, uint64_t input_size);

/* Where a run writes. */
typedef struct rebuild_target {
    const char *out_dir;   /* the output the paths reported name */
    const char *write_dir; /* where the files are written: out_dir, or its stage (outdir.h) */
    kf_outdir *od;         /* the output directory's policy (kf_repair_into, kf_merge_into), or NULL */
} rebuild_target;

/* Where and how a run writes: into out_dir; or, with od (may be NULL), into
 * its target through its stage when it has one, with its *force. */
rebuild_target rebuild_target_of(kf_outdir *od, const char *out_dir, bool *force);

/* The end of a run into t that returned rc: into an output directory, a
 * run that succeeded has the stale files go (kf_outdir_finish). rc, or
 * KF_ERR_NOMEM (the last error names the copy) when the names written are
 * not all known. */
int rebuild_done(const rebuild_target *t, int rc);

/* A file beside the segments that the job reads (a producer snapshot or a
 * .txnindex in pieces, partition.metadata whole; its reader gave rc,
 * err_no) could not be read: unless it is missing (ENOENT), an
 * `unreadable` warning about path to fn (may be NULL), the message as
 * verify's ("cannot read: permission denied"). True when reported. */
bool rebuild_unreadable(kf_problem_fn fn, void *ctx, const char *path, int rc, int err_no);

/* What became of an input partition.metadata (rebuild_copy_metadata). */
typedef enum rebuild_md {
    REBUILD_MD_COPIED,       /* valid: written to out_dir as it is */
    REBUILD_MD_UNREADABLE,   /* could not be read */
    REBUILD_MD_INVALID,      /* does not parse: why says why */
    REBUILD_MD_NOMEM,
    REBUILD_MD_WRITE_FAILED, /* valid, but out_dir/partition.metadata could not be written: *err_no */
} rebuild_md;

/* Copy in_path to out_dir/partition.metadata when it parses, writing it
 * in write_dir (the output's stage, outdir.h; or out_dir itself). *outp:
 * the output path in out_dir (malloc'd, caller frees; NULL unless COPIED or
 * WRITE_FAILED). UNREADABLE: reported to problem_fn (rebuild_unreadable)
 * unless missing. */
rebuild_md rebuild_copy_metadata(const char *in_path, const char *out_dir, const char *write_dir, bool force,
                                 char **outp, char *why, size_t why_cap, int *err_no, kf_problem_fn problem_fn,
                                 void *problem_ctx);

#endif
