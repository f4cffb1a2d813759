/* partwriter.h: the partition writer, what repair and merge write a
 * partition directory with. The caller decides which batches to keep; the
 * writer writes them and everything the broker derives from them:
 *
 *   kf_part_writer_open         the output directory (created if missing)
 *   kf_part_writer_seed         optional: producer state from a snapshot at
 *                               the log start (the broker loads it too)
 *   kf_part_writer_segment      start a segment (the previous one is closed)
 *   kf_part_writer_add          append a batch (a kf_batch as the broker reads
 *                               it: kf_batch_parse_broker). It feeds
 *                                - the .index/.timeindex builder, by the rule
 *                                  broker recovery rebuilds them with
 *                                  (LogSegment.recover: an entry when more than
 *                                  4096 bytes were appended since the last);
 *                                - the leader epochs (a new entry whenever a
 *                                  v2 batch raises the epoch);
 *                                - the producer-state replay
 *                                  (producer_state.h), whose completed aborted
 *                                  transactions become the .txnindex entries
 *                                  of the segment holding their ABORT marker.
 *                               A batch the broker's index rebuild would not
 *                               take is refused and nothing is written.
 *   kf_part_writer_close_segment  commit .index, .timeindex, then .log (a .log
 *                               never appears without its indexes), then the
 *                               .txnindex when the segment has entries
 *   kf_part_writer_finish       close, then leader-epoch-checkpoint (the
 *                               rebuilt epochs) and the producer snapshot at
 *                               the log end offset
 *
 * Every file is written under a temporary name and renamed when complete
 * (the safe output files of out_file.h); without `force` an existing file
 * is never replaced. Memory: one entry per leader epoch and the producer
 * state; batch bytes and .txnindex entries are written through. The
 * library never prints: failures are kf_err codes with the path, errno and
 * what failed in kf_part_writer_err. */
#ifndef KFSCK_PARTWRITER_H
#define KFSCK_PARTWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"
#include "format/producer_state.h"
#include "kfsck/sys/producer_snapshot.h"
#include "kfsck/sys/segment.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_part_writer kf_part_writer;

#define KF_PART_WRITER_OPTIONS_VERSION 1
#define KF_PART_WRITER_OPTIONS_INIT KF_OPTIONS_INIT_(kf_part_writer_opts, KF_PART_WRITER_OPTIONS_VERSION)
typedef struct kf_part_writer_opts {
    unsigned version;         /* KF_PART_WRITER_OPTIONS_VERSION (kfsck.h: options) */
    bool force;               /* replace existing files */
    size_t max_batch_bytes;   /* decompression cap for control records (0: the default) */
    bool rewindable;          /* keep what kf_part_writer_rewind needs (a copy
                                 of the producer state at each segment's start) */
    const char *stage_dir;    /* NULL, or where the files are written (created if
                                 missing) while every path the writer reports
                                 names them in out_dir: the caller moves them
                                 there when the run is done (outdir.h) */
} kf_part_writer_opts;

/* Fills *o as KF_PART_WRITER_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_part_writer_opts: it may be NULL
 * (the defaults); its version must be 1..KF_PART_WRITER_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_part_writer_opts_init(kf_part_writer_opts *o);

/* What failed, after a KF_ERR_IO (or KF_ERR_NOMEM). */
typedef struct kf_part_writer_error {
    char path[4096];
    int err_no;
    char what[120];           /* "cannot write", "already exists (use --force to overwrite)", ... */
} kf_part_writer_error;

/* A batch the writer would not take (kf_part_writer_add: KF_ERR_CORRUPT). */
typedef struct kf_part_refusal {
    const char *code;         /* base_offset_mismatch / offset_overflow: its offsets do not
                                 fit the segment's relative offsets; offset_regression: the
                                 broker's index rebuild throws at it (offsets or index
                                 times not increasing), and recovery then truncates the
                                 whole segment */
    char message[200];
} kf_part_refusal;

/* A closed segment. Pointers stay valid until the next segment starts. */
typedef struct kf_part_segment {
    const char *input;        /* as given to kf_part_writer_segment */
    const char *log_path;     /* the .log written */
    int64_t base;
    kf_segment_written written;
    uint64_t txn_len;         /* its rebuilt .txnindex's bytes (34 per entry) */
    const char *txn_path;     /* the .txnindex written; NULL when it has no entry */
    const char *txn_written;  /* ... and where its bytes are now (in the writer's
                                 write_dir, the stage; NULL when it has no entry) */
} kf_part_segment;

/* Open a writer over out_dir (created if missing). KF_OK, KF_ERR_NOMEM or
 * KF_ERR_IO (*w is still set: read kf_part_writer_err, then close). */
int kf_part_writer_open(kf_part_writer **w, const char *out_dir, const kf_part_writer_opts *o);
/* Free the writer; temporary files of an unfinished segment are removed. */
void kf_part_writer_close(kf_part_writer *w);
const kf_part_writer_error *kf_part_writer_err(const kf_part_writer *w);

/* Start the producer state from a parsed snapshot (before any batch). */
int kf_part_writer_seed(kf_part_writer *w, const kf_producer_snapshot *s);

/* Start a segment with this base offset: <base>.log (or log_name), .index,
 * .timeindex. input names where its batches come from (for reports). The
 * open segment, if any, is closed first (its report is then lost: call
 * kf_part_writer_close_segment yourself to get it). */
int kf_part_writer_segment(kf_part_writer *w, int64_t base, const char *log_name, const char *input);

/* Append b (bytes, last offset, max timestamp, size, producer fields and
 * epoch as the broker reads them) to the open segment. KF_OK; KF_ERR_CORRUPT
 * when refused (kf_part_writer_refusal says why; nothing was written);
 * KF_ERR_IO; KF_ERR_NOMEM. */
int kf_part_writer_add(kf_part_writer *w, const kf_batch *b);
/* Append the entry at pos in src, whose bytes are too many to hold (larger
 * than what the reader reads whole): its frame and header are read, the
 * bytes copied in pieces. Its records are not read (a control batch this
 * large is no transaction marker). *header (may be NULL) gets its header
 * fields (bytes and payload NULL). As kf_part_writer_add. */
int kf_part_writer_add_large(kf_part_writer *w, kf_source *src, uint64_t pos, kf_batch *header);
const kf_part_refusal *kf_part_writer_refusal(const kf_part_writer *w);
/* What the last batch added did to the producer state. */
const kf_pstate_step *kf_part_writer_step(const kf_part_writer *w);
/* Add an entry to the open segment's .txnindex (an aborted transaction the
 * replay could not complete: it began before the state it started from). */
int kf_part_writer_txn_entry(kf_part_writer *w, const kf_aborted_txn *t);

/* Forget every batch of the open segment: it starts over empty, and the
 * producer state, leader epochs and log end are as they were when it
 * started (opts.rewindable). KF_OK, KF_ERR_IO, KF_ERR_NOMEM. */
int kf_part_writer_rewind(kf_part_writer *w);

/* Commit the open segment (see the top); *out (may be NULL) describes it
 * (out->log_path NULL when no segment was open). */
int kf_part_writer_close_segment(kf_part_writer *w, kf_part_segment *out);

/* The rebuilt leader epochs so far. */
const kf_leader_epoch *kf_part_writer_epochs(const kf_part_writer *w, size_t *n);
/* The producer state so far. */
const kf_pstate *kf_part_writer_pstate(const kf_part_writer *w);
/* The last offset written, when any batch was. */
bool kf_part_writer_last_offset(const kf_part_writer *w, int64_t *last);
/* The log end offset: last offset + 1, or with no batch the base of the
 * last segment started. False when nothing was started. */
bool kf_part_writer_log_end(const kf_part_writer *w, int64_t *leo);

/* Write leader-epoch-checkpoint with these entries (NULL: the rebuilt ones). */
int kf_part_writer_write_epochs(kf_part_writer *w, const kf_leader_epoch *e, size_t n);
/* Write the producer state as <log end offset>.snapshot; *path (may be NULL)
 * is the file written (valid until the writer is closed). */
int kf_part_writer_write_snapshot(kf_part_writer *w, const char **path);

typedef struct kf_part_finish {
    const char *epochs_path;    /* leader-epoch-checkpoint */
    const char *snapshot_path;  /* <log end>.snapshot; NULL when no batch was written */
    int64_t log_end;
} kf_part_finish;

/* Close the open segment (its report: close it yourself first), write the
 * rebuilt leader-epoch-checkpoint and, when a batch was written, the
 * snapshot at the log end offset. */
int kf_part_writer_finish(kf_part_writer *w, kf_part_finish *out);

#ifdef __cplusplus
}
#endif

#endif
