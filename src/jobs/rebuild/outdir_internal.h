/* outdir_internal.h: what repair and merge record in the output directory
 * as they write (outdir.c): the names written, and the stale files removed
 * at the end. Internal to the library; a caller only inits, prepares and
 * frees a kf_outdir (outdir.h) and hands it to kf_repair_into or
 * kf_merge_into. */
#ifndef KFSCK_JOBS_OUTDIR_INTERNAL_H
#define KFSCK_JOBS_OUTDIR_INTERNAL_H

#include "kfsck/outdir.h"

/* Record a file written (its base name; NULL is ignored), or a segment: its
 * .log and the .index/.timeindex beside it. */
void kf_outdir_wrote(kf_outdir *od, const char *path);
void kf_outdir_wrote_segment(kf_outdir *od, const char *log_path);
bool kf_outdir_has_written(const kf_outdir *od, const char *name);
/* With force and a partition copy: remove the Kafka files (by name) in the
 * copy directory that were not recorded as written; other files stay.
 * Returns how many went (also in od->stale_removed). */
uint64_t kf_outdir_remove_stale(kf_outdir *od);
/* The run is done: kf_outdir_remove_stale, or KF_ERR_NOMEM (and nothing
 * removed) when a name written could not be recorded. */
int kf_outdir_finish(kf_outdir *od);

#endif
