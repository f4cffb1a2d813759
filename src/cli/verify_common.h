/* verify_common.h: the checks `kfsck verify` runs on segments (with their
 * indexes), a partition's segment chain and the small files beside them,
 * shared with `kfsck scan` (which runs them per partition, in threads, into a
 * per-partition output buffer). */
#ifndef KFSCK_CLI_VERIFY_COMMON_H
#define KFSCK_CLI_VERIFY_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/out.h"
#include "kfsck/kfsck.h"

typedef struct verify_ctx {
    out *o;
    uint64_t max_batch_bytes;
    uint64_t errors, warnings;
    int status;          /* worst of EXIT_CLEAN / EXIT_FAIL for unreadable inputs */
    bool segment_lines;  /* print one summary line per segment (verify) */
    bool progress;       /* progress bar on stderr (single-threaded use only) */
    unsigned threads;    /* kf_scan_opts.threads: 0 automatic, 1 none (scan's own threads) */
} verify_ctx;

/* A verify_ctx as `kfsck verify` uses it: segment lines, progress, reader threads. */
void verify_ctx_init(verify_ctx *v, out *o, uint64_t max_batch_bytes);

typedef struct seg_result {
    bool ok;       /* the segment could be read */
    bool has_offsets;
    int64_t base, first, last;
    uint64_t size;
} seg_result;

/* What verify_partition saw of the partition's log (plain .log segments,
 * no .deleted/.cleaned/.swap, no KRaft snapshots). */
typedef struct part_result {
    bool listed;          /* the directory could be listed */
    uint64_t segments;    /* plain .log files */
    uint64_t bytes;       /* their total size */
    bool has_offsets;     /* some intact batch */
    int64_t first_offset; /* base offset of the first intact batch */
    int64_t last_offset;  /* last offset of the last intact batch */
    bool has_last_segment;
    int64_t last_base;    /* base offset of the last segment */
    bool last_has_offsets;/* the last segment holds an intact batch */
    int64_t last_last;    /* ... and the last offset of its last one */
} part_result;

/* The log end offset the broker would load: last offset + 1 of the last
 * segment's last intact batch, else that segment's base offset. False when
 * the partition has no segment. */
bool part_log_end(const part_result *pr, int64_t *leo);

/* A file that cannot be read: stderr line, `unreadable` problem, exit 3. */
void verify_unreadable(verify_ctx *v, const char *path, int err_no);
void verify_segment(verify_ctx *v, const char *path, kf_name_info ni, seg_result *res);
/* Index, snapshot, checkpoint, metadata files: aux_check. */
void verify_aux(verify_ctx *v, const char *path, kf_name_info ni);
/* Every file of a partition dir and the segment chain; pr may be NULL. */
void verify_partition(verify_ctx *v, const char *dir, part_result *pr);

#endif
