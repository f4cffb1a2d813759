/* predict_internal.h: internal to the predict job (include/kfsck/predict.h).
 * A partition's forecast is worked out in three steps, one file each, over
 * the pp_part below: the file actions of LogLoader's first passes and the
 * segments they leave (predict_files.c), recovery and the producer-state
 * rebuild (predict_recovery.c), the first retention pass
 * (predict_retention.c); the log dirs and their checks against each other
 * (predict_dirs.c), the threads and the recovery-time estimate are the
 * driver's (predict.c, predict_estimate.c). */
#ifndef KFSCK_PREDICT_INTERNAL_H
#define KFSCK_PREDICT_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/names.h"
#include "kfsck/metadata.h"
#include "kfsck/paths.h"
#include "kfsck/predict.h"
#include "kfsck/sys/segment.h"

/* One file of a partition dir as LogLoader lists it. */
typedef struct pp_file {
    char *name;
    bool is_file;          /* a regular file (File.isFile) */
    bool is_fifo;          /* a FIFO (opening it to read waits for a writer) */
    bool is_special;       /* a FIFO, socket or device */
    bool readable;
    uint64_t size;
    int64_t mtime_ms;
    bool gone;             /* deleted, or renamed away, by an earlier pass */
} pp_file;

/* One segment once the files are sorted out, and what reading it found. */
typedef struct pp_seg {
    int64_t base;
    char *path;            /* NNN.log as the broker names it */
    uint64_t size;         /* now; after a cut, the cut size */
    int64_t mtime_ms;
    bool read;             /* its batches were read: */
    uint64_t valid_bytes;  /* where LogSegment.recover cuts it */
    bool has_kept;         /* a batch is kept, */
    int64_t kept_last;     /* the last kept one's last offset */
    int64_t kept_max_ts;   /* largest batch timestamp kept (-1: none) */
    bool has_any;          /* some entry that frames (lengths only, as
                              LogSegment.readNextOffset reads: no CRC): */
    int64_t any_last;      /* the last one's last offset */
    bool recovered;        /* LogSegment.recover runs on it */
    bool cut;              /* and cuts it at valid_bytes */
    uint64_t orig_size;    /* its size before any cut */
    int64_t largest_ts;    /* LogSegment.largestTimestamp for retention */
} pp_seg;

/* Offsets a cut takes out of the log: [from, to). */
typedef struct pp_cut {
    int64_t from, to;
} pp_cut;

/* A producer-state snapshot file and whether it loads. */
typedef struct pp_snap {
    int64_t offset;
    bool valid;
    bool gone;
} pp_snap;

typedef struct pp_part {
    /* in */
    const char *datadir;
    char *name, *topic, *dir;
    int32_t partition;
    kf_predict_state state;
    bool deleting;         /* a -delete dir: loaded without recovery */
    bool stray_kraft;      /* the KRaft metadata does not place it here */
    char *stray_reason;
    bool clean;            /* the log dir was shut down cleanly */
    int64_t recovery_point, log_start_ckpt;
    bool has_hw;
    int64_t hw;
    size_t max_batch_bytes;
    int64_t now_ms;
    /* retention settings */
    int64_t retention_ms, retention_bytes;
    bool compact_only;
    const char *retention_source, *cleanup_policy;
    /* work */
    pp_file *files;
    size_t nfiles;
    pp_seg *segs;
    size_t nsegs, capsegs;
    pp_snap *snaps;
    size_t nsnaps, capsnaps;
    bool first_rebuild_done; /* the first producer-state rebuild a recovery made: */
    bool first_rebuild_has;  /* from a snapshot at */
    int64_t first_rebuild_off;
    /* out */
    kf_predict_partition out;
    kf_predict_action *acts;
    size_t nacts, capacts;
    kf_retention_delete *rets;
    size_t nrets, caprets;
    kf_damage_kept *kept;
    size_t nkept, capkept;
    kf_group_affected *groups;
    size_t ngroups, capgroups;
    pp_cut *cuts;          /* what recovery cuts, for the groups' replay */
    size_t ncuts, capcuts;
    uint64_t routine_recoveries; /* recover_segment actions that cut nothing */
    char **owned;          /* strings the actions point at */
    size_t nowned, capowned;
    bool io_error;         /* something could not be read: the log dir goes offline */
    char *io_what;
    int dir_errno;         /* the partition dir itself cannot be read (its errno), 0 when it can */
    char *dir_why;         /* ... in the walk's words (kf_path_why) */
    char *fatal_what;      /* an exception that stops the broker (a .log not named by an offset) */
    int rc;                /* KF_OK or KF_ERR_NOMEM */
    bool done;
} pp_part;

/* A string kept until the partition is freed (NULL: out of memory, p->rc set). */
char *pp_strf(pp_part *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An action of the partition, with file and reason already kept strings. */
kf_predict_action *pp_act(pp_part *p, kf_predict_action_kind k, const char *file, const char *reason,
                          uint64_t bytes);
void pp_io_error(pp_part *p, const char *path, int err_no);

/* predict_files.c: the files listed, LogLoader's passes over them
 * (.deleted, .cleaned, .swap, orphan indexes) and the segments loaded with
 * their sanity checks (those failing recovered at once). */
int pp_load_files(pp_part *p);
/* predict_recovery.c */
/* One pass of the streaming reader over a segment (limit: its first bytes
 * only; 0 all), on the calling thread; fns (may be NULL): its batch_fn,
 * problem_fn and contexts are used. A file that cannot be read is an I/O
 * error of the partition (KF_OK). */
int pp_scan_segment(pp_part *p, const char *path, int64_t base, uint64_t limit, bool no_resync,
                    kf_segment_summary *sum, const kf_segment_scan_opts *fns);
int pp_read_segment(pp_part *p, pp_seg *s, bool need_tail);
/* A snapshot file at off (replacing one there) */
void pp_snap_put(pp_part *p, int64_t off, bool valid);
/* LogLoader.recoverSegment of segs[i] (emits truncate_segment when it cuts) */
void pp_recover_segment(pp_part *p, size_t i, const char *why_action, kf_predict_action_kind kind);
/* recoverLog, the log-start rule, the producer state, the offsets */
void pp_recover_log(pp_part *p);
/* predict_retention.c: largest timestamps, future timestamps, deletableSegments */
void pp_retention(pp_part *p);
/* predict_kept.c: the damage of the segments the broker does not recover
 * (damage_kept), and acknowledged_missing */
void pp_damage_kept(pp_part *p);
/* predict_groups.c: for a __consumer_offsets partition that start-up cuts,
 * the committed offsets the coordinator then loads differently */
void pp_groups_affected(pp_part *p);
/* KF_GROW (bytes/grow.h) for p's arrays: pv the address of the array (of
 * *cap elements of size sz, n used); false when p has failed already or out
 * of memory (p->rc set). */
bool pp_grow(pp_part *p, void *pv, size_t *cap, size_t n, size_t sz);
/* predict_estimate.c: the partitions' bytes (sorted here, largest first) on
 * `threads` threads at `rate` bytes per second: the time the last one ends. */
double pp_estimate_seconds(uint64_t *bytes, size_t n, uint32_t threads, uint64_t rate);

/* ---- the driver's state (predict.c, predict_dirs.c) ---- */

/* A log-dir action (topic NULL): the marker's deletion, a fatal. */
typedef struct pp_dir_action {
    kf_predict_action_kind kind;
    char *file, *reason;
    int32_t partition;
    char *topic;
} pp_dir_action;

typedef struct pp_dir {
    const char *path;
    kf_datadir_info info;
    bool listed;
    bool has_metadata_log;     /* holds __cluster_metadata-0 */
    pp_part *parts;
    size_t nparts, capparts;
    pp_dir_action *acts;
    size_t nacts;
    const kf_predict_partition **harmed; /* out.harmed */
    kf_predict_datadir out;
    bool offline, stops;
    bool kraft_snapshot_torn;  /* the latest KRaft snapshot is cut short: */
    char *kraft_snapshot;      /* it */
    bool raft_stops;           /* a check of the raft layer stops the node before its metadata loads */
} pp_dir;

typedef struct pp_run {
    kf_predict_opts o;
    const kf_predict_config *cfg;
    pp_dir *dirs;
    size_t ndirs;
    kf_metadata *meta;
    bool has_broker_id;
    int32_t broker_id;
    int64_t now;
    int rc;
    /* the log dir being worked on */
    pp_dir *work_dir;
} pp_run;

/* An action of the log dir d (file and the formatted reason copied; topic
 * NULL for one on the log dir itself); a fatal is counted. KF_OK or
 * KF_ERR_NOMEM. */
int pp_dir_act(pp_dir *d, kf_predict_action_kind kind, const char *file, const char *topic, int32_t partition,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The words for a FIFO the broker opens to read at start-up (a log dir's
 * meta.properties and checkpoints, a partition's leader-epoch-checkpoint
 * and partition.metadata): it waits for a writer (checked against the
 * broker, docs/formats.md §20.3). A format taking the path. */
#define PP_FIFO_HANGS \
    "%s is a FIFO: the broker opens it to read it and waits for a writer that never comes: it hangs at start-up"
/* When path, a file of the log dir d the broker reads before it loads
 * anything, is a FIFO: the fatal that stops d (PP_FIFO_HANGS), its
 * pp_dir_act result in *rc, and true. */
bool pp_dir_fifo(pp_dir *d, const char *path, int *rc);
/* vasprintf's string, NULL when out of memory */
char *pp_vformat(const char *fmt, va_list ap);
/* predict_dirs.c: a log dir's meta.properties and entries (a bad name is
 * a fatal); the checks across log dirs; the KRaft image; a stray partition */
int pp_list_dir(pp_run *r, pp_dir *d);
int pp_check_meta_properties(pp_run *r);
int pp_check_duplicates(pp_run *r);
int pp_build_image(pp_run *r);
void pp_check_stray(pp_run *r, pp_part *p);
/* predict_kraft.c: a KRaft node's own start-up checks of its metadata
 * partition (quorum-state, the log start, the latest snapshot): fatals;
 * then, once the image is built, its metadata loader's replay of the log
 * onto a latest snapshot cut short: a fatal where it fails. */
int pp_check_kraft(pp_run *r, pp_dir *d);
int pp_check_kraft_load(pp_run *r);

/* A segment's file name for base: 20-digit offset + ext. */
void pp_offset_name(int64_t base, const char *ext, char *out, size_t cap);

#endif
