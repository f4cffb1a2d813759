/* outdir.h: the output directory of repair and merge, one policy for both.
 * A run writes a partition copy into OUTDIR/<name>/ (name: the input
 * partition directory's), a single segment into OUTDIR itself, and its
 * report (repair.json, merge.json) into OUTDIR. kf_outdir_prepare, in order:
 *   - refuses OUTDIR equal to or inside an input's directory (a segment's
 *     directory, or a partition directory), and a copy that would be or hold
 *     an input (the CLI's usage error);
 *   - refuses an OUTDIR that is a broker's data dir (it holds meta.properties,
 *     an offset checkpoint, the broker's .lock, __cluster_metadata-0, or
 *     partition dirs with no report of an earlier run beside them): a
 *     broker would load what is written there;
 *   - takes an exclusive lock on OUTDIR (flock(2) on the directory itself,
 *     so nothing is left in it) and refuses it when another run holds it:
 *     two runs into one OUTDIR would mix their files; the lock is held
 *     until kf_outdir_free;
 *   - without force, refuses to write over existing output: the report, a
 *     copy directory that is not empty, or for a segment the segment and its
 *     index files in OUTDIR;
 *   - creates OUTDIR.
 * After kf_outdir_stage, the run (kf_repair_into, kf_merge_into in
 * repair.h) writes into a stage, OUTDIR/.<name>.kfsck-tmp-<pid>[-<n>]: the
 * copy directory or the segment's files, then the report (without a stage
 * they are written in place, as they go). kf_outdir_commit moves them into
 * OUTDIR at the end (the .log files after their indexes, the report last); a
 * run that does not get there leaves nothing new in OUTDIR (kf_outdir_free
 * removes the stage). The base name of every file written is recorded; with
 * force, an earlier output in the way is moved aside and removed once the new
 * one is in place: the files of an earlier copy directory that are not Kafka
 * files are moved into the new one first, and the Kafka files this run did
 * not write go (stale files). Nothing here prints. */
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
    uint64_t stale_removed;   /* files kf_outdir_remove_stale or kf_outdir_commit removed */
    char *stage_root;         /* kf_outdir_stage: OUTDIR/.<name>.kfsck-tmp-<pid>[-<n>] */
    char *stage;              /* where the files are written meanwhile: stage_root/<name> or stage_root */
    bool committed;           /* kf_outdir_commit moved the output into place */
    bool keep_stage;          /* a failed commit could not put everything back: the stage is left */
    char *created;            /* the topmost directory of OUTDIR that kf_outdir_prepare created, or NULL */
    int lock_fd;              /* OUTDIR opened and flock'd, when locked */
    bool locked;
} kf_outdir;

typedef enum kf_outdir_verdict {
    KF_OUTDIR_READY = 0,      /* checked, OUTDIR exists */
    KF_OUTDIR_INSIDE_INPUT,   /* OUTDIR or the copy is (inside) an input's directory, or holds one */
    KF_OUTDIR_EXISTS,         /* without force: od->clash is output of an earlier run */
    KF_OUTDIR_IS_DATADIR,     /* OUTDIR is a broker data dir: od->clash is what says so */
    KF_OUTDIR_BUSY,           /* another run holds OUTDIR's lock (the last error says so) */
} kf_outdir_verdict;

/* The output of a run over input (a partition directory when partition, else
 * a segment) into dir, with its report named report_name. KF_OK or
 * KF_ERR_NOMEM (od is then still safe to free). */
int kf_outdir_init(kf_outdir *od, const char *dir, const char *input, bool partition, const char *report_name,
                   bool force);
/* Frees od; a stage not committed is removed first, and so are the
 * directories kf_outdir_prepare created for OUTDIR when they are empty. */
void kf_outdir_free(kf_outdir *od);

/* The checks above, over the inputs (n >= 1: the segment, or the copies):
 * KF_OK with *verdict READY (OUTDIR exists now) or the refusal; KF_ERR_IO
 * when OUTDIR cannot be created (mkdir -p failed) or opened to be locked
 * (the last error has the path and the errno), KF_ERR_NOMEM. */
int kf_outdir_prepare(kf_outdir *od, const char *const *inputs, size_t n, kf_outdir_verdict *verdict);

/* Is input's last component od->name? (merge names the copy after its first input) */
bool kf_outdir_named_after(const kf_outdir *od, const char *input);

/* Write the run's report into OUTDIR, or into the stage when there is one
 * (replacing an earlier one: the checks were made by kf_outdir_prepare).
 * KF_OK, or KF_ERR_IO (the last error, common.h, says why). */
int kf_outdir_write_report(const kf_outdir *od, const void *doc, size_t len);

/* Create the stage (after kf_outdir_prepare): od->stage is then where the
 * run writes, od->target still what its reports name. KF_OK, or KF_ERR_IO
 * (KF_ERR_NOMEM); the last error (common.h) says why. */
int kf_outdir_stage(kf_outdir *od);
/* Move the staged output (and report) into OUTDIR, as described at the top,
 * and remove the stage. KF_OK (od->stale_removed counts the stale files of
 * an earlier output), or KF_ERR_IO (KF_ERR_NOMEM; the last error says why)
 * with OUTDIR as it was before. Without a stage: KF_OK. */
int kf_outdir_commit(kf_outdir *od);

#ifdef __cplusplus
}
#endif

#endif
