/* report.h: one self-contained HTML file of everything kfsck finds in a set
 * of PATHs (what `kfsck report` writes): the library's drivers that apply
 * to the inputs run one after the other - the data dir scan (scan.h), a
 * start-up forecast per broker (predict.h), the replicas compared when
 * several brokers are given (replicas.h), the __consumer_offsets replay and
 * its groups (offsets_job.h), transactions (txns.h), compaction
 * (compaction.h), the KRaft metadata image (metadata.h), tiered storage
 * (remote.h) and the time histogram (stats.h) - and the page is handed to a
 * writer callback: per broker a verdict banner, the damage map (each
 * partition with something to say as a bar of its segments on an offset
 * scale), the election table, the consumer groups with the reset CSV as a
 * download link, open transactions, pinned compaction, the cluster and
 * records per hour per topic, then each driver's findings as the JSON lines
 * of its command. Every text from the data is escaped for where it goes
 * (HTML text, attributes, SVG, JSON inside a script element) and secrets
 * are redacted as `metadata` redacts them. Memory and the page's size are
 * bounded whatever the inputs: long lists are cut and the page says where
 * (kfsck(1), report). Nothing is printed and no file is written but
 * through the output file below. */
#ifndef KFSCK_REPORT_H
#define KFSCK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives the page in pieces, in order: KF_OK, or a kf_err that stops the
 * run (kf_report_run then returns it). */
typedef int (*kf_report_write_fn)(void *ctx, const void *p, size_t n);

#define KF_REPORT_OPTIONS_VERSION 1
#define KF_REPORT_OPTIONS_INIT KF_OPTIONS_INIT_(kf_report_opts, KF_REPORT_OPTIONS_VERSION)
typedef struct kf_report_opts {
    unsigned version;          /* KF_REPORT_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;    /* decompression cap per batch (0: the default) */
    const char *title;         /* the page's title (NULL: "kfsck report"); escaped like the data */
    int64_t now_ms;            /* the clock of predict's retention, compaction and remote (the
                                  library reads none) */
    /* The reader tuning every driver's readers get (0: their defaults). */
    unsigned threads;
    size_t chunk_bytes;
    kf_report_write_fn write_fn;
    void *write_ctx;
    /* Each PATH (or entry) that cannot be used, as the walk reports it. */
    kf_path_error_fn error_fn;
    void *error_ctx;
    /* Before each driver: its command's name ("scan", "predict", ...). May be NULL. */
    void (*step_fn)(void *ctx, const char *command);
    void *step_ctx;
} kf_report_opts;

/* Fills *o as KF_REPORT_OPTIONS_INIT does. kf_report_run: o's version must
 * be 1..KF_REPORT_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED. */
void kf_report_opts_init(kf_report_opts *o);

/* What a run found, in the figures the page shows first. */
typedef struct kf_report_summary {
    int status;                /* the highest exit status of the commands it ran: 0 or 1 */
    bool unreadable;           /* a PATH or a file under one could not be read (the commands' 3) */
    bool mixed_clusters;       /* the PATHs are of different clusters: nothing was read */
    bool nothing;              /* no PATH held a data dir, a partition or KRaft metadata: no page
                                  was written (with unreadable: none could be used) */
    uint64_t bytes;            /* of the page */
    uint64_t commands;         /* drivers run */
    uint64_t brokers, datadirs, partitions;  /* scan's */
    uint64_t damaged_partitions, damaged_segments; /* partitions and .log files with an error */
    int64_t offsets_lost, acknowledged_missing;   /* predict's, every broker */
    uint64_t fatal;            /* log dirs (or brokers) that would not start */
    uint64_t groups, groups_out_of_range;
    uint64_t open_transactions, hanging_transactions, pinned_compactions;
} kf_report_summary;

/* Run what applies to paths[0..n) and write the page through o->write_fn.
 * KF_OK (sum filled, also when some PATH could not be used: sum->unreadable;
 * when the PATHs are of different clusters, sum->mixed_clusters, one report
 * through error_fn, and no page; when there is nothing to report on,
 * sum->nothing and no page), KF_ERR_NOMEM,
 * KF_ERR_UNSUPPORTED (options, or no write_fn), or what write_fn returned. */
int kf_report_run(char *const *paths, size_t n, const kf_report_opts *o, kf_report_summary *sum);

/* ---- the output file ---------------------------------------------------------
 *
 * Written whole or not at all: the page goes to a temporary name in the
 * file's directory, which kf_report_file_commit flushes, fsyncs and renames
 * into place (an earlier file there is replaced); a run that does not get
 * there leaves no file. Never over an input: kf_report_file_open refuses a
 * path that is one of the inputs or lies inside an input directory. */
typedef struct kf_report_file kf_report_file;

typedef enum kf_report_file_verdict {
    KF_REPORT_FILE_OK = 0,
    KF_REPORT_FILE_INSIDE_INPUT,  /* the path is an input, or inside an input directory: *clash names it */
    KF_REPORT_FILE_IS_DIR,        /* the path is a directory */
    KF_REPORT_FILE_CANNOT_WRITE,  /* its directory cannot be written: the last error (common.h) says why */
} kf_report_file_verdict;

/* Open path for the page, after the checks above. KF_OK with *f set
 * (*verdict KF_REPORT_FILE_OK); KF_ERR_IO with *verdict saying why and *f
 * NULL (clash: the input, valid until the next call); KF_ERR_NOMEM. */
int kf_report_file_open(kf_report_file **f, const char *path, char *const *inputs, size_t n,
                        kf_report_file_verdict *verdict, const char **clash);
/* A kf_report_write_fn: ctx is the kf_report_file. */
int kf_report_file_write(void *ctx, const void *p, size_t n);
/* Flush, fsync, rename into place, fsync the directory; frees f. KF_OK, or
 * KF_ERR_IO (the last error says why; nothing is left at path or beside it). */
int kf_report_file_commit(kf_report_file *f);
/* Remove the temporary file; frees f (NULL is fine). */
void kf_report_file_abort(kf_report_file *f);

#ifdef __cplusplus
}
#endif

#endif
