/* repair.h: the repair of a segment or a partition directory (default: what
 * broker recovery keeps; salvage: every valid batch, offsets strictly
 * increasing) and the merge of several damaged copies of one partition.
 * Both jobs read with the streaming reader (segment.h) or the partition
 * reader (partition.h) and write with the partition writer (partwriter.h,
 * through the safe output files of out_file.h); they only decide what to
 * keep and what to report. Findings go to callbacks; the library never
 * prints. */
#ifndef KFSCK_REPAIR_H
#define KFSCK_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/outdir.h"
#include "kfsck/sys/part_reader.h"
#include "kfsck/sys/segment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- repair -------------------------------------------------------------- */

/* A byte range of an input file left out of the output. */
typedef struct kf_repair_drop {
    const char *file;         /* input path */
    uint64_t start, end;      /* [start, end) */
    const char *reason;       /* a problem code, or "after_truncation" */
    bool has_first, has_last;
    int64_t first_offset, last_offset; /* offsets lost, when known */
    bool data_loss;           /* false: only zero bytes, no offset lost */
    char message[240];
} kf_repair_drop;

/* A segment written. */
typedef struct kf_repair_segment {
    const char *input;        /* input .log path */
    const char *output;       /* output .log path */
    uint64_t input_size;
    kf_segment_written written; /* what the output holds */
} kf_repair_segment;

/* What was done with a file that is not a segment. */
typedef struct kf_repair_file {
    const char *input;        /* NULL when there is none (rebuilt from the log) */
    const char *output;       /* NULL when dropped */
    const char *action;       /* "copied", "rebuilt", "truncated", "dropped", "skipped" */
    char reason[240];
} kf_repair_file;

#define KF_REPAIR_OPTIONS_VERSION 1
#define KF_REPAIR_OPTIONS_INIT KF_OPTIONS_INIT_(kf_repair_opts, KF_REPAIR_OPTIONS_VERSION)
typedef struct kf_repair_opts {
    unsigned version;         /* KF_REPAIR_OPTIONS_VERSION (kfsck.h: options) */
    bool salvage;
    bool force;
    size_t max_batch_bytes;   /* decompression cap per batch (0: KF_DEFAULT_MAX_BATCH_BYTES) */
    unsigned threads;         /* the reader's (kf_segment_scan_opts.threads; 0: automatic) */
    size_t chunk_bytes;       /* the reader's read size (0: its default) */
    void (*drop_fn)(void *ctx, const kf_repair_drop *d);
    void (*segment_fn)(void *ctx, const kf_repair_segment *s);
    void (*file_fn)(void *ctx, const kf_repair_file *f);
    void *ctx;
    /* an input file beside the segments that exists but cannot be read: an
     * `unreadable` warning (p->file), and the file is rebuilt or dropped */
    void (*problem_fn)(void *ctx, const kf_problem *p);
} kf_repair_opts;

/* Fills *o as KF_REPAIR_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_repair_opts: it may be NULL
 * (the defaults); its version must be 1..KF_REPAIR_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_repair_opts_init(kf_repair_opts *o);

typedef struct kf_repair_result {
    uint64_t dropped_ranges;
    uint64_t data_loss_ranges;
    uint64_t segments_written;
} kf_repair_result;

/* Repair a partition directory into out_dir (the partition dir itself,
 * created if missing). */
int kf_repair_partition(const char *in_dir, const char *out_dir, const kf_repair_opts *o, kf_repair_result *res);
/* Repair one segment (with its .txnindex when beside it) into out_dir. */
int kf_repair_segment_file(const char *log_path, const char *out_dir, const kf_repair_opts *o,
                           kf_repair_result *res);
/* Repair path (od->partition: a partition directory, else a segment) into
 * the output od describes, after kf_outdir_prepare said KF_OUTDIR_READY:
 * od->force replaces o->force, every file written is named in od, and with
 * force the stale files of an earlier run go (od->stale_removed). After
 * kf_outdir_stage the files go into the stage (the paths reported still
 * name od->target) and the stale files go at kf_outdir_commit. */
int kf_repair_into(kf_outdir *od, const char *path, const kf_repair_opts *o, kf_repair_result *res);

/* ---- merge ------------------------------------------------------------------
 *
 * The copies are read as one log by the partition reader with deep checks
 * (partition.h has the rules: what is intact, the leader-epoch rule,
 * conflicts and holes); the batches it takes are written with the
 * partition writer into segments that start at the inputs' base offsets. */

typedef kf_part_conflict kf_merge_conflict;
typedef kf_part_hole kf_merge_hole;

#define KF_MERGE_OPTIONS_VERSION 1
#define KF_MERGE_OPTIONS_INIT KF_OPTIONS_INIT_(kf_merge_opts, KF_MERGE_OPTIONS_VERSION)
typedef struct kf_merge_opts {
    unsigned version;         /* KF_MERGE_OPTIONS_VERSION (kfsck.h: options) */
    bool force;
    size_t max_batch_bytes;   /* decompression cap per batch (0: KF_DEFAULT_MAX_BATCH_BYTES) */
    unsigned threads;         /* the reader's, per segment (kf_segment_scan_opts.threads) */
    size_t chunk_bytes;       /* the reader's read size (0: its default) */
    void (*conflict_fn)(void *ctx, const kf_merge_conflict *c);
    void (*hole_fn)(void *ctx, const kf_merge_hole *h);
    void (*segment_fn)(void *ctx, const kf_repair_segment *s);
    void (*file_fn)(void *ctx, const kf_repair_file *f);
    void (*problem_fn)(void *ctx, const kf_problem *p);   /* p->file: the segment, or an `unreadable`
                                                              snapshot or partition.metadata (a warning) */
    void *ctx;
} kf_merge_opts;

/* Fills *o as KF_MERGE_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_merge_opts: it may be NULL
 * (the defaults); its version must be 1..KF_MERGE_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_merge_opts_init(kf_merge_opts *o);

typedef struct kf_merge_result {
    uint64_t conflicts, holes, batches, segments_written;
} kf_merge_result;

/* Merge the copies in_dirs (n >= 1 partition directories) into out_dir.
 * KF_OK, KF_ERR_IO (the last error, common.h, says what), KF_ERR_NOMEM. */
int kf_merge_partitions(const char *const *in_dirs, size_t n, const char *out_dir, const kf_merge_opts *o,
                        kf_merge_result *res);
/* Merge them into the copy directory od describes (as kf_repair_into, also
 * with a stage). */
int kf_merge_into(kf_outdir *od, const char *const *in_dirs, size_t n, const kf_merge_opts *o, kf_merge_result *res);

#ifdef __cplusplus
}
#endif

#endif
