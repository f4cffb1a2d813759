/* repair_internal.h: what the parts of repair share: the run's state
 * (repair_ctx), set up by the partition walk (repair.c), written by the
 * segment pass (repair_segment.c) and read by the partition files'
 * decisions (repair_files.c). Private. */
#ifndef KFSCK_JOBS_REPAIR_INTERNAL_H
#define KFSCK_JOBS_REPAIR_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/outdir.h"
#include "format/epoch_stream.h"
#include "format/partwriter.h"
#include "jobs/rebuild/rebuild.h"
#include "kfsck/repair.h"

typedef struct repair_range {
    int64_t first, last; /* last INT64_MAX when unknown */
} repair_range;

typedef struct repair_ctx {
    const kf_repair_opts *o;
    kf_repair_result *res;
    rebuild_target t;
    kf_part_writer *w;
    bool truncated;           /* default mode: a segment was cut, later ones go */
    /* the input's leader-epoch-checkpoint, checked against the kept batches
     * as they come, its entries read from the file as they are reached */
    char *in_le_path;
    kf_epoch_stream in_le;
    size_t in_le_k;           /* entries reached: the last of them covers the current batch */
    kf_leader_epoch in_le_cur, in_le_next;
    bool in_le_has_next;
    bool in_le_ok;            /* parsed and so far consistent */
    char in_le_why[200];
    /* offsets lost (for the producer snapshot check) */
    repair_range *lost;
    size_t nlost, cap_lost;
    int64_t ps_seed;          /* offset of the snapshot the producer state started from, -1: none */
    bool snap_written;        /* the rebuilt <leo>.snapshot was written */
} repair_ctx;

int repair_fail(repair_ctx *c, const char *path, int err_no, const char *what);
/* The writer's failure as the run's. */
int repair_writer_fail(repair_ctx *c);
void repair_emit_file(repair_ctx *c, const char *input, const char *output, const char *action, const char *fmt,
                      ...) __attribute__((format(printf, 5, 6)));

/* One input segment to repair (repair_segment.c). */
typedef struct repair_segment_job {
    const char *in_path;       /* input .log */
    const char *log_name;      /* output .log file name */
    int64_t base;              /* from the name (-1 unknown) */
    int64_t next_base;         /* next segment's base, -1 when last */
    const char *txn_path;      /* input .txnindex or NULL */
} repair_segment_job;

/* Read the segment of j, write what is kept to c's writer, report what is
 * dropped: KF_OK, or the run's error (the last error set). */
int repair_segment(repair_ctx *c, const repair_segment_job *j);

/* repair_files.c: the input's leader-epoch-checkpoint (read, then checked
 * against each kept batch), and the partition files written at the end. */
int repair_read_epochs(repair_ctx *c, const char *path);
void repair_check_epoch(repair_ctx *c, int64_t base, int32_t epoch);
/* The epoch check back to where it stood with k entries reached (a segment
 * the repair writes again). KF_OK or KF_ERR_NOMEM. */
int repair_rewind_epochs(repair_ctx *c, size_t k, bool ok, const char *why);
int repair_write_epochs(repair_ctx *c, const char *in_path, int64_t leo);
int repair_snapshot(repair_ctx *c, const char *in_path, const char *name, int64_t snap_off, bool have_leo, int64_t leo,
                    bool leo_in_input);
int repair_metadata(repair_ctx *c, const char *in_path);

#endif
