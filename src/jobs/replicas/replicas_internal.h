/* replicas_internal.h: what the pieces of the replicas job (replicas.h)
 * hand each other: one replica as an input gives it (a scan line, or a data
 * dir scan's partition), the scan-file reader (replicas_scanfile.c), the
 * data dir streams (replicas_datadir.c) and the per-partition judgement
 * (replicas_partition.c) the driver (replicas.c) feeds. Internal to the
 * library. */
#ifndef KFSCK_JOBS_REPLICAS_INTERNAL_H
#define KFSCK_JOBS_REPLICAS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/metadata.h"
#include "kfsck/replicas.h"
#include "kfsck/scan.h"

/* One replica of one partition as its input described it. Owns its strings. */
typedef struct rp_rec {
    char *topic;
    int32_t partition;
    bool has_broker;
    int32_t broker;
    char *datadir, *dir, *cluster_id;  /* dir, cluster_id may be NULL */
    const char *source;                /* the PATH (not owned) */
    bool from_scan_file;
    /* its entries in the data dir's offset checkpoints (a scan file's line
     * gives the log start and high watermark only) */
    kf_partition_checkpoints checkpoints;
    bool has_first_offset, has_end;
    int64_t first_offset, end;
    kf_leader_epoch *epochs;           /* as the checkpoint holds them (not loaded yet) */
    size_t nepochs;
    bool epochs_file_missing;          /* a data dir's partition with no leader-epoch-checkpoint */
    uint64_t errors;
} rp_rec;

void rp_rec_free(rp_rec *r);
/* Moves *from into *to (freeing what *to held); *from is left empty. */
void rp_rec_move(rp_rec *to, rp_rec *from);
/* (topic, partition) order, as scan hands partitions back. */
int rp_rec_cmp(const rp_rec *a, const rp_rec *b);

/* A stream of rp_recs in (topic, partition) order. next: 1 with *r filled
 * (the caller owns it), 0 at the end, or a negative kf_err. */
typedef struct rp_stream {
    int (*next)(void *self, rp_rec *r);
    void *self;
} rp_stream;

/* ---- scan files (replicas_scanfile.c) ---- */

/* The longest scan line read; a longer one is a bad_scan_line. */
#define RP_SCAN_LINE_MAX (1u << 20)
#define RP_SCAN_LINE_MAX_WORDS "1 MiB"
/* The most runs of lines in (topic, partition) order a scan file may have
 * (scan writes one per data dir); each is read with a buffer of its own, of
 * up to one line: memory stays below RP_SCAN_RUNS_MAX x RP_SCAN_LINE_MAX. */
#define RP_SCAN_RUNS_MAX 256

/* What path's first line is: a `kfsck scan --json` line (a JSON object
 * whose "type" is "partition", "problem" or "summary"), a line longer than
 * any scan line (RP_SCAN_LINE_MAX), or anything else (also when it cannot
 * be opened: then *err_no is set, else 0). */
typedef enum rp_sniff { RP_SNIFF_OTHER, RP_SNIFF_SCAN, RP_SNIFF_TOO_LONG } rp_sniff;
rp_sniff rp_scan_file_sniff(const char *path, int *err_no);

typedef struct rp_scan_file rp_scan_file;
/* Called for each distinct cluster_id the file's partition lines name, with
 * the first line naming it; returns KF_OK or an error that stops the read. */
typedef int (*rp_cluster_fn)(void *ctx, const char *path, const char *cluster_id);
/* Reads the file once: bad lines reported (problem_fn), each cluster_id
 * named to cluster_fn, and the runs of lines in (topic, partition) order
 * found (a new run where the order goes back: each data dir section of a
 * scan's output is one). KF_OK; KF_ERR_IO when it cannot be read or has
 * more than RP_SCAN_RUNS_MAX runs (the last error says why); KF_ERR_NOMEM;
 * or what cluster_fn returned. */
int rp_scan_file_open(rp_scan_file **f, const char *path, kf_problem_fn problem_fn, void *problem_ctx,
                      rp_cluster_fn cluster_fn, void *cluster_ctx);
size_t rp_scan_file_runs(const rp_scan_file *f);
/* The stream of run i's partition lines (bad lines skipped silently: the
 * first read reported them). Valid while f is open. */
rp_stream rp_scan_file_stream(rp_scan_file *f, size_t i);
void rp_scan_file_close(rp_scan_file *f);
/* The problems of the first read. */
uint64_t rp_scan_file_bad_lines(const rp_scan_file *f);

/* ---- data dirs (replicas_datadir.c) ---- */

typedef struct rp_datadir rp_datadir;
/* A data dir scanned on a thread of its own (kf_datadir_scan), its
 * partitions handed over one at a time as the stream asks for them. */
int rp_datadir_start(rp_datadir **d, const char *path, size_t max_batch_bytes);
rp_stream rp_datadir_stream(rp_datadir *d);
/* Waits for the scan to end (the rest of it read and dropped) and frees d. */
void rp_datadir_stop(rp_datadir *d);

/* ---- one partition (replicas_partition.c) ---- */

typedef struct rp_judge_opts {
    size_t max_batch_bytes;
    const kf_metadata *meta;           /* NULL: no KRaft metadata among the inputs */
    kf_problem_fn problem_fn;
    void *problem_ctx;
} rp_judge_opts;

/* Judge the partition whose replicas are recs[0..n) (same topic-partition,
 * one per broker) and hand it to partition_fn. *at_risk: set when no
 * candidate loses nothing acknowledged or the copies diverged. KF_OK or
 * KF_ERR_NOMEM. */
int rp_judge(rp_rec *recs, size_t n, const rp_judge_opts *o,
             void (*partition_fn)(void *ctx, const kf_replica_partition *p), void *ctx, bool *at_risk);

/* ---- the data dir copies read together (replicas_copies.c) ---- */

/* A stretch [from, to) of the merged log taken from one replica's files. */
typedef struct rp_run {
    size_t replica;
    int64_t from, to;
    int32_t epoch;      /* its batches' leader epoch (-1: v0/v1) */
} rp_run;

typedef struct rp_merged {
    bool read;          /* some copy came from a data dir and was read */
    rp_run *runs;       /* in offset order, those ending past `from` */
    size_t n;
    bool short_;        /* more stretches than kept: salvage may be short */
} rp_merged;

/* Reads the data dir copies among reps[0..n) together when there are two
 * or more (or one, with need_runs): each conflict reported as
 * copies_disagree and counted in *conflicts; with need_runs, the merged
 * log's stretches past `from` into *m. KF_OK or KF_ERR_NOMEM. Free *m with
 * rp_merged_free. */
int rp_read_copies(const kf_replica *reps, size_t n, const rp_judge_opts *o, bool need_runs, int64_t from,
                   rp_merged *m, uint64_t *conflicts);
void rp_merged_free(rp_merged *m);
/* e's salvage from the merged log (out: room for m->n entries), for the
 * partition p (its high watermark; its replicas' loaded epochs, scan
 * files' too: a stretch of a lower epoch than one that starts at or before
 * it is a discarded history, not salvage). */
void rp_salvage(const rp_merged *m, const kf_replica_partition *p, kf_replica_election *e, kf_replica_salvage *out);

#endif
