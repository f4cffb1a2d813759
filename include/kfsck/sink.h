/* sink.h: what a storage sink connector holds open while it catches up
 * (`kfsck stats --sink-partition-duration`): Confluent's S3, GCS and HDFS
 * sinks with a time-based partitioner and timestamp.extractor=Record write
 * each record of a topic partition to the file of its time bucket
 * (floor(timestamp / partition.duration.ms)), keep one open file (and one
 * upload buffer of s3.part.size bytes) per bucket, and commit all of a
 * partition's open files together after flush.size records, or, with
 * rotate.interval.ms set, also before a record whose bucket differs from the
 * previous record's or whose timestamp is at least the interval past the
 * first record written since the last commit. rotate.schedule.interval.ms
 * (which runs on the connector's wall clock) is modelled in records: a
 * connector catching up writes N records a second per partition, so all
 * open files are also committed every interval x N records written.
 *
 * The layers: kf_sink simulates one partition fed (offset, timestamp) in
 * offset order, with memory proportional to its open files;
 * kf_sink_read_partition reads one partition through a kf_part_reader from
 * where the connector resumes (an offset, or the offset Kafka's
 * offsetsForTimes finds for a time), leaving out control batches and
 * skipping damaged batches (reported); kf_sink_topic adds partitions up,
 * kf_sink_task_of and kf_sink_verdict_of deal them to tasks and weigh them
 * against a heap, kf_sink_levers and kf_sink_advise weigh and word the
 * settings that bound the figures, and kf_sink_explain states the model
 * with the figures filled in; kf_sink_run is all of it over the inputs,
 * each partition resumed where the connector would (a resume point given,
 * or a consumer group's commits). Nothing here prints. */
#ifndef KFSCK_SINK_H
#define KFSCK_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"
#include "kfsck/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

/* s3.part.size's default: the buffer each open file holds. */
#define KF_SINK_DEFAULT_PART_SIZE ((uint64_t)25 << 20)

/* The connector settings a simulation follows. */
typedef struct kf_sink_config {
    int64_t partition_duration_ms; /* partition.duration.ms, > 0 */
    uint64_t flush_size;           /* flush.size, > 0 */
    int64_t rotate_interval_ms;    /* rotate.interval.ms; 0: not set */
} kf_sink_config;

/* What one simulation saw. For a topic (kf_sink_topic) the counts are sums
 * over its partitions and has_peak / peak_at_offset are not used. */
typedef struct kf_sink_figures {
    uint64_t records_written;  /* records placed in a file */
    uint64_t files_committed;  /* files closed by flush.size or rotation */
    uint64_t open_files;       /* files still open after the last record */
    uint64_t peak_open_files;  /* most files open at once */
    bool has_peak;             /* some record was written */
    int64_t peak_at_offset;    /* the record that first brought the open files to the peak */
} kf_sink_figures;

/* ---- one partition's simulation ------------------------------------------ */

typedef struct kf_sink kf_sink;

/* A simulation with config c. KF_OK, KF_ERR_NOMEM, or KF_ERR_UNSUPPORTED
 * when the duration or flush.size is not positive or the interval negative. */
int kf_sink_new(kf_sink **s, const kf_sink_config *c);
/* Write the next record of the partition (in offset order). Any timestamp
 * is placed (floor division); callers leave out the records a connector
 * cannot place (see kf_sink_read_partition). KF_OK or KF_ERR_NOMEM. */
int kf_sink_add(kf_sink *s, int64_t offset, int64_t timestamp);
void kf_sink_figures_get(const kf_sink *s, kf_sink_figures *f);
/* rotate.schedule.interval.ms in records: also commit every open file each
 * time `records` records have been written since the previous scheduled
 * commit (the first counted from the first record); 0: not set (the
 * default). Call before the first kf_sink_add. */
void kf_sink_set_schedule(kf_sink *s, uint64_t records);
/* The records between two scheduled commits of a connector catching up at
 * `rate` records per second per partition with rotate.schedule.interval.ms
 * = interval_ms: interval_ms x rate / 1000, at least 1, saturating at
 * UINT64_MAX; 0 when interval_ms or rate is not positive. */
uint64_t kf_sink_schedule_records(int64_t interval_ms, uint64_t rate);
/* Forget everything written (the next partition); keeps the memory and
 * the schedule. */
void kf_sink_reset(kf_sink *s);
void kf_sink_free(kf_sink *s);

/* files x part_size, saturating at UINT64_MAX. */
uint64_t kf_sink_buffer_bytes(uint64_t files, uint64_t part_size);

/* ---- the settings a suggestion compares with ----------------------------- */

/* When the given config has no rotate.interval.ms, two alternatives are
 * simulated alongside it: the same config with rotate.interval.ms =
 * partition.duration.ms (at most one open file per partition), and with
 * flush.size / 10 (no rotation; only when flush.size > 1). */
enum { KF_SINK_WITH_ROTATE = 0, KF_SINK_WITH_SMALLER_FLUSH = 1, KF_SINK_ALTS = 2 };

typedef struct kf_sink_alt {
    bool on;
    kf_sink_config config;
    kf_sink_figures figures;
} kf_sink_alt;

/* Fill alt[] (on, config; figures zeroed) for the given config. */
void kf_sink_alternatives(const kf_sink_config *c, kf_sink_alt alt[KF_SINK_ALTS]);

/* ---- reading a partition ------------------------------------------------- */

/* Where the connector resumes. */
typedef enum kf_sink_from {
    KF_SINK_FROM_START = 0, /* the first offset on disk */
    KF_SINK_FROM_OFFSET,    /* from_value: an offset; the records at or after it */
    KF_SINK_FROM_TIME,      /* from_value: ms; the offset offsetsForTimes finds */
} kf_sink_from;

#define KF_SINK_OPTIONS_VERSION 2
#define KF_SINK_OPTIONS_INIT KF_OPTIONS_INIT_(kf_sink_opts, KF_SINK_OPTIONS_VERSION)
typedef struct kf_sink_opts {
    unsigned version;         /* KF_SINK_OPTIONS_VERSION (kfsck.h: options) */
    kf_sink_config config;
    kf_sink_from from;
    int64_t from_value;
    bool no_alternatives;    /* do not also simulate kf_sink_alternatives (by default they are) */
    /* Batches skipped because their records cannot be read (problem.file:
     * the segment). Damage the partition reader finds goes to its own
     * callback. */
    kf_problem_fn problem_fn;
    void *problem_ctx;
    /* Version 2: rotate.schedule.interval.ms in records
     * (kf_sink_schedule_records; 0: not set), for the given config and the
     * alternatives alike (kf_sink_set_schedule). */
    uint64_t schedule_records;
} kf_sink_opts;

/* Fills *o as KF_SINK_OPTIONS_INIT does: the version, every other field zero (its
 * default: no resume point, alternatives on, no callback). config has no
 * default: fill it. Every function here taking a kf_sink_opts: its version
 * must be 1..KF_SINK_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED (kfsck.h,
 * "Options"; a version-1 struct has no schedule_records); NULL is the
 * defaults, whose zero config kf_sink_new refuses. */
void kf_sink_opts_init(kf_sink_opts *o);

typedef struct kf_sink_partition {
    bool has_resume;                    /* false: nothing to read (no record at or after the resume point) */
    int64_t resume_offset;              /* the offset the connector resumes at */
    uint64_t records;                   /* data records from the resume point on */
    uint64_t records_without_timestamp; /* ... of which left out: no timestamp a connector can place */
    uint64_t control_records;           /* control records from the resume point on (not records to a sink) */
    uint64_t skipped_batches;           /* batches whose records could not be read */
    kf_sink_figures figures;            /* with opts.config */
    kf_sink_alt alt[KF_SINK_ALTS];      /* with the alternatives (when opts.alternatives) */
} kf_sink_partition;

/* Read the rest of r (just opened) and simulate o->config on its records
 * into *out. The resume point for KF_SINK_FROM_TIME follows Kafka's
 * offsetsForTimes (FileRecords.searchForTimestamp): the first batch, control
 * batches included, whose max timestamp is >= from_value, and in it the
 * first record whose timestamp is >= from_value; batches before it are not
 * decoded. Control records are not delivered to a sink and are left out;
 * so are records with no timestamp (magic 0, or -1) or a negative one, which
 * Kafka Connect gives a sink as null or rejects: a time-based partitioner
 * cannot place them (counted in records_without_timestamp). A batch whose
 * records do not all read cleanly is skipped as a whole and reported.
 * Returns KF_OK or KF_ERR_NOMEM. */
int kf_sink_read_partition(kf_part_reader *r, const kf_sink_opts *o, kf_sink_partition *out);

/* The same over a reader of p opened with ro, closed at the end (*res: its
 * result, may be NULL). Returns KF_OK or KF_ERR_NOMEM. */
int kf_sink_read(const kf_partition *p, const kf_part_reader_opts *ro, const kf_sink_opts *o, kf_sink_partition *out,
                 kf_part_result *res);

/* ---- per topic ----------------------------------------------------------- */

typedef struct kf_sink_topic {
    uint64_t partitions;                /* partitions added */
    uint64_t records, records_without_timestamp, control_records, skipped_batches;
    kf_sink_figures figures;            /* sums; peak_open_files: sum of the partitions' peaks */
    kf_sink_alt alt[KF_SINK_ALTS];      /* the same sums for the alternatives */
} kf_sink_topic;

/* Zero *t, with the alternatives of o->config unless o->no_alternatives
 * (o as kf_sink_read takes it; not NULL, its version not checked here). */
void kf_sink_topic_init(kf_sink_topic *t, const kf_sink_opts *o);
void kf_sink_topic_add(kf_sink_topic *t, const kf_sink_partition *p);

/* ---- tasks and the heap -------------------------------------------------- */

/* The task a connector with `tasks` tasks gives the index-th of its topic
 * partitions (0-based, in (topic, partition) order): round-robin, the first
 * to task 0. tasks 0 counts as 1. */
uint32_t kf_sink_task_of(uint64_t index, uint32_t tasks);

/* Whether the upload buffers of the tasks of one worker (they share its
 * heap) fit it. Buffers that fill the heap exactly fit by the contract's
 * rule (at most the heap) but leave nothing for the worker itself: words
 * never call them a fit. */
typedef enum kf_sink_verdict {
    KF_SINK_VERDICT_NONE = 0, /* no heap given */
    KF_SINK_FITS,             /* peak_buffer_bytes < heap: room is left for the worker */
    KF_SINK_EXCEEDS,          /* peak_buffer_bytes > heap */
    KF_SINK_FILLS,            /* peak_buffer_bytes == heap: nothing is left for the worker */
} kf_sink_verdict;
/* heap 0: not given. */
kf_sink_verdict kf_sink_verdict_of(uint64_t peak_buffer_bytes, uint64_t heap);
/* The JSON verdict: "fits" (KF_SINK_FITS and KF_SINK_FILLS: peak_buffer_bytes
 * <= heap), "exceeds", or NULL for KF_SINK_VERDICT_NONE. */
const char *kf_sink_verdict_name(kf_sink_verdict v);

/* ---- the levers and the suggestion --------------------------------------- */

/* s3.part.size's minimum. */
#define KF_SINK_MIN_PART_SIZE ((uint64_t)5 << 20)
/* Files of fewer records than this flood object storage with tiny files. */
#define KF_SINK_TINY_FILE_RECORDS 1000

/* What the suggestion of a topic weighs beyond its figures. */
typedef struct kf_sink_advice_in {
    kf_sink_config config;          /* the settings simulated */
    uint64_t schedule_records;      /* kf_sink_opts.schedule_records */
    int64_t schedule_interval_ms;   /* rotate.schedule.interval.ms it came from; 0: not set */
    uint64_t catch_up_rate;         /* ... and the records/s per partition it assumed */
    uint64_t part_size;             /* s3.part.size */
    uint64_t heap;                  /* one worker's heap; 0: not given */
    uint32_t tasks;                 /* tasks.max (0 counts as 1) */
    const uint64_t *partition_peaks; /* the topic's partitions' peak_open_files, in partition order */
    size_t npartitions;
} kf_sink_advice_in;

/* The settings that bound a topic's open files, each alone:
 *   KF_SINK_LEVER_ROTATE     rotate.interval.ms = partition.duration.ms
 *                            (kf_sink_alternatives; off when one is set),
 *   KF_SINK_LEVER_FLUSH      flush.size / 10 (off as that alternative),
 *   KF_SINK_LEVER_PART_SIZE  the largest s3.part.size in whole MiB whose
 *                            buffers stay below the heap (leaving the worker
 *                            room), at least the 5 MiB minimum (without a
 *                            heap: the minimum); off when the part size is
 *                            at most the minimum,
 *   KF_SINK_LEVER_WORKERS    tasks.max = K on K workers, a task each (the
 *                            topic's partitions dealt round-robin over K
 *                            tasks), K always more than the tasks given
 *                            (a.tasks) and at least 2: the fewest whose
 *                            largest task stays below the heap, else (and
 *                            without a heap) one partition per task; off
 *                            when the topic has no more partitions than
 *                            the tasks given.
 * peak_open_files is the topic's (for WORKERS: the largest task's, which
 * one worker holds): the sum of its partitions' peaks, an upper bound
 * reached only if every partition peaks at once. files_committed is what
 * the lever commits over the data read (the part size and the workers do
 * not change the files). The part-size lever is on only when it is below
 * the part size given. */
typedef enum kf_sink_lever_kind {
    KF_SINK_LEVER_ROTATE = 0,
    KF_SINK_LEVER_FLUSH,
    KF_SINK_LEVER_PART_SIZE,
    KF_SINK_LEVER_WORKERS,
    KF_SINK_LEVERS
} kf_sink_lever_kind;

typedef struct kf_sink_lever {
    bool on;
    uint64_t value;             /* rotate.interval.ms, flush.size, s3.part.size or K */
    uint64_t peak_open_files;
    uint64_t peak_buffer_bytes;
    uint64_t files_committed;
    uint64_t records_written;
    uint64_t records_per_file;  /* records_written / the files written (committed and still open); 0: none */
    bool tiny_files;            /* files_committed > 0 and records_per_file < KF_SINK_TINY_FILE_RECORDS */
    kf_sink_verdict verdict;    /* peak_buffer_bytes against the heap */
} kf_sink_lever;

/* The setting's name: "rotate.interval.ms", "flush.size", "s3.part.size",
 * "tasks.max" (one worker each). */
const char *kf_sink_lever_name(kf_sink_lever_kind k);
/* Fill lever[] for topic t (with its alternatives, kf_sink_topic_init). */
void kf_sink_levers(const kf_sink_topic *t, const kf_sink_advice_in *a, kf_sink_lever lever[KF_SINK_LEVERS]);

/* The suggestion for a topic, in words, into buf (always terminated):
 * "nothing to change" when its buffers stay below the heap, else every
 * lever that is on with its open files, its files and, when they are tiny,
 * a warning (buffers that fill the heap exactly are said to leave nothing
 * for the worker itself). Returns the length it needed (as snprintf). */
size_t kf_sink_advise(const kf_sink_topic *t, const kf_sink_advice_in *a, char *buf, size_t n);

/* The model of the simulation in one paragraph with the topic's figures
 * filled in (the commit rules with these settings; open files of a
 * partition ~ the buckets its records between two commits span; buffers ~
 * open files x part size; x the partitions of one worker, against the
 * heap), so the operator can redo it for other settings. As kf_sink_advise
 * returns. */
size_t kf_sink_explain(const kf_sink_topic *t, const kf_sink_advice_in *a, char *buf, size_t n);

/* ---- the run over the inputs --------------------------------------------- */

/* One task's share of a topic: how many of its partitions the task holds
 * and the sum of their peaks. */
typedef struct kf_sink_task_row {
    uint64_t partitions, peak_open_files;
} kf_sink_task_row;

/* A topic of the run. */
typedef struct kf_sink_run_topic {
    const char *topic;          /* "" when unknown (loose segment files); points into the inputs */
    bool committed;             /* from_group: the group committed an offset of one of its partitions */
    kf_sink_topic t;            /* the sums over its partitions (zero before they are read) */
    uint64_t damaged;           /* damaged ranges no copy covers + batches skipped */
    size_t first;               /* its first partition's index among every partition read: the
                                   k-th is dealt to task kf_sink_task_of(first + k, tasks) */
    kf_sink_advice_in advice;   /* what kf_sink_levers, kf_sink_advise and kf_sink_explain take
                                   for it (partition_peaks: its partitions', in partition order) */
} kf_sink_run_topic;

#define KF_SINK_RUN_OPTIONS_VERSION 1
#define KF_SINK_RUN_OPTIONS_INIT KF_OPTIONS_INIT_(kf_sink_run_opts, KF_SINK_RUN_OPTIONS_VERSION)
typedef struct kf_sink_run_opts {
    unsigned version;           /* KF_SINK_RUN_OPTIONS_VERSION (kfsck.h: options) */
    /* The connector's settings, where it resumes (sink.from; ignored with
     * from_group), the scheduled rotation in records, and the batches
     * skipped (sink.problem_fn). Its version may stay 0. */
    kf_sink_opts sink;
    /* rotate.schedule.interval.ms that sink.schedule_records was made of and
     * the catch-up rate it assumed (0: not set), for the model's words. */
    int64_t schedule_interval_ms;
    uint64_t catch_up_rate;
    uint64_t part_size;         /* s3.part.size (0: KF_SINK_DEFAULT_PART_SIZE) */
    uint32_t tasks;             /* tasks.max: partitions dealt round-robin (0 counts as 1) */
    uint64_t heap;              /* one worker's heap (0: not given) */
    kf_part_reader_opts read;   /* every partition's reader (its version may stay 0) */
    /* Resume at a consumer group's commits: each partition at the group's
     * committed offset, rebuilt from the __consumer_offsets partitions among
     * the inputs as kf_replay_offsets_topic rebuilds it for `offsets`; a
     * partition with no commit at its log start (the connector's
     * auto.offset.reset=earliest). The __consumer_offsets partitions are
     * where the commits come from, not what the connector reads: they are
     * left out. NULL: sink.from for every partition. */
    const char *from_group;
    kf_problem_fn offsets_problem_fn;         /* the replay's problems (undecodable records, open transactions) */
    void *offsets_problem_ctx;
    kf_coord_load_error_fn load_error_fn;     /* its coordinator_load_error problems (NULL: offsets_problem_fn) */
    void *load_error_ctx;
    kf_offsets_lost_fn lost_fn;               /* its offsets_lost problems (NULL: read.problem_fn) */
    void *lost_ctx;
    /* Each topic before its partitions are read (t->t is zero), each of its
     * partitions once read (damaged: ranges no copy covers + batches
     * skipped), and the topic once all are (all valid during the call). */
    void (*topic_begin_fn)(void *ctx, const kf_sink_run_topic *t);
    void (*partition_fn)(void *ctx, const kf_partition *p, const kf_sink_partition *s, uint64_t damaged);
    void (*topic_end_fn)(void *ctx, const kf_sink_run_topic *t);
    void *ctx;
} kf_sink_run_opts;

/* Fills *o as KF_SINK_RUN_OPTIONS_INIT does (sink.config has no default:
 * fill it). kf_sink_run: its version must be 1..KF_SINK_RUN_OPTIONS_VERSION,
 * else KF_ERR_UNSUPPORTED. */
void kf_sink_run_opts_init(kf_sink_run_opts *o);

typedef struct kf_sink_run_result {
    kf_sink_run_topic *topics;  /* in the inputs' (topic) order */
    size_t ntopics;
    uint64_t *peaks;            /* every partition read, in (topic, partition) order: its peak_open_files */
    size_t npartitions;
    uint64_t peak_open_files;   /* their sum: what one worker holding every task may hold at once */
    uint32_t tasks;             /* tasks.max (at least 1) */
    bool damaged;               /* damage was skipped in a partition read: figures may be low */
    bool unreadable;            /* a segment of a partition read could not be read */
    /* With from_group. Nothing is read (no topic) when the group's commits
     * are not known: no __consumer_offsets partition among the inputs, one
     * of its segments unreadable, or no commit of the group there. */
    uint64_t offsets_partitions;  /* __consumer_offsets partitions replayed */
    bool offsets_unreadable;
    bool offsets_damaged;       /* damage or undecodable records skipped there: a commit may be missing */
    size_t group_commits;       /* the group's committed partitions */
    char **groups;              /* with no commit of the group: the groups that did commit, sorted
                                   (for the closest names) */
    size_t ngroups;
} kf_sink_run_result;

/* The sink simulation over every topic partition of in, topic by topic
 * (in->parts' order), each partition resumed where the connector would
 * (kf_sink_read), its peaks added up per topic. With an empty in, nothing
 * is read (from_group is not looked at). *res is filled (free it with
 * kf_sink_run_free, also on failure). KF_OK, KF_ERR_NOMEM or
 * KF_ERR_UNSUPPORTED (options). */
int kf_sink_run(const kf_inputs *in, const kf_sink_run_opts *o, kf_sink_run_result *res);
void kf_sink_run_free(kf_sink_run_result *res);

/* Topic t's share of each of res->tasks tasks into rows[0 .. res->tasks). */
void kf_sink_run_tasks(const kf_sink_run_result *res, const kf_sink_run_topic *t, kf_sink_task_row *rows);

#ifdef __cplusplus
}
#endif

#endif
