/* outdir.h: the output directory of repair and merge, one policy for both
 * (outdir.c). A run writes a partition copy into OUTDIR/<name>/ (name: the
 * input partition directory's), a single segment into OUTDIR itself, and its
 * report (repair.json, merge.json) into OUTDIR. kf_outdir_prepare, in order:
 *   - refuses OUTDIR equal to or inside an input's directory (a segment's
 *     directory, or a partition directory), and a copy that would be or hold
 *     an input (the CLI's usage error);
 *   - without force, refuses to write over existing output: the report, a
 *     copy directory that is not empty, or for a segment the segment and its
 *     index files in OUTDIR;
 *   - creates OUTDIR.
 * During the run (kf_repair_into, kf_merge_into in repair.h) the base name
 * of every file written is recorded; with force, the Kafka files of an
 * earlier run left in the copy directory that this run did not write are
 * removed at the end (stale files: kf_outdir_finish). Nothing here
 * prints. */
#ifndef KFSCK_OUTDIR_H
#define KFSCK_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_outdir {
    char *dir;                /* OUTDIR as given */
    char *name;               /* the (first) input's last component, trailing slashes cut */
    char *target;             /* where the files go: OUTDIR/<name> (partition) or OUTDIR (segment) */
    char *report;             /* OUTDIR/<report name> */
    bool partition;           /* a partition copy (else one segment) */
    bool force;               /* write over existing output, remove stale files */
    char *clash;              /* KF_OUTDIR_EXISTS: the path that exists */
    char **written;           /* base names of the files the run wrote */
    size_t nwritten, cap_written;
    bool written_incomplete;  /* a name could not be recorded (out of memory): nothing is stale */
    uint64_t stale_removed;   /* files kf_outdir_remove_stale removed */
} kf_outdir;

typedef enum kf_outdir_verdict {
    KF_OUTDIR_READY = 0,      /* checked, OUTDIR exists */
    KF_OUTDIR_INSIDE_INPUT,   /* OUTDIR or the copy is (inside) an input's directory, or holds one */
    KF_OUTDIR_EXISTS,         /* without force: od->clash is output of an earlier run */
    KF_OUTDIR_CANNOT_CREATE,  /* mkdir -p OUTDIR failed: the last error (common.h) says why */
    KF_OUTDIR_NOMEM,
} kf_outdir_verdict;

/* The output of a run over input (a partition directory when partition, else
 * a segment) into dir, with its report named report_name. KF_OK or
 * KF_ERR_NOMEM (od is then still safe to free). */
int kf_outdir_init(kf_outdir *od, const char *dir, const char *input, bool partition, const char *report_name,
                   bool force);
void kf_outdir_free(kf_outdir *od);

/* The checks above, over the inputs (n >= 1: the segment, or the copies). */
kf_outdir_verdict kf_outdir_prepare(kf_outdir *od, const char *const *inputs, size_t n);

/* Is input's last component od->name? (merge names the copy after its first input) */
bool kf_outdir_named_after(const kf_outdir *od, const char *input);

/* Write the run's report into OUTDIR (replacing an earlier one: the checks
 * were made by kf_outdir_prepare). KF_OK, or KF_ERR_IO (the last error,
 * common.h, says why). */
int kf_outdir_write_report(const kf_outdir *od, const void *doc, size_t len);

#ifdef __cplusplus
}
#endif

#endif
