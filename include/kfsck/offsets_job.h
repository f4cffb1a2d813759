/* offsets_job.h: the driver of `kfsck offsets` and `kfsck groups` over a
 * command's inputs, in one call: the replay of every __consumer_offsets
 * partition on one time line (replay.h, kf_replay_offsets_topic), the
 * groups model (groups.h), and for the groups and topics asked for the
 * committed table or its history, each row with what it means to the
 * consumer (offsets_view.h: bounds, lag, out of range, damage at the
 * commit, staleness, expiry) and its topic's id (the commit's own, else
 * the one topic_names.h gives). Nothing is printed: rows, changes and
 * problems go to the caller. */
#ifndef KFSCK_OFFSETS_JOB_H
#define KFSCK_OFFSETS_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/groups.h"
#include "kfsck/offsets_view.h"
#include "kfsck/sys/part_reader.h"
#include "kfsck/replay.h"
#include "kfsck/topic_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A row of the table, or a change of the history. */
typedef struct kf_offsets_row {
    const kf_offset_value *value;   /* for a deletion: the value removed */
    kf_offset_view view;            /* history: bounds, lag and range only */
    bool has_topic_id;              /* the commit's own id, else its topic's (opts.names) */
    uint8_t topic_id[16];
    /* history */
    bool deleted;
    int64_t change_time;            /* what --as-of compares (replay.h) */
    int64_t at_offset;              /* where the change took effect */
} kf_offsets_row;

typedef void (*kf_offsets_change_fn)(void *ctx, const kf_offsets_row *row);

#define KF_OFFSETS_JOB_OPTIONS_VERSION 1
#define KF_OFFSETS_JOB_OPTIONS_INIT KF_OPTIONS_INIT_(kf_offsets_job_opts, KF_OFFSETS_JOB_OPTIONS_VERSION)
typedef struct kf_offsets_job_opts {
    unsigned version;           /* KF_OFFSETS_JOB_OPTIONS_VERSION (kfsck.h: options) */
    /* The partition readers (their version may be left 0): max_batch_bytes,
     * tuning, and the problems met in the copies (damage no copy covers
     * comes as lost_fn's offsets_lost). */
    kf_part_reader_opts read;
    const char *topic;          /* the offsets topic (NULL: "__consumer_offsets") */
    /* Only these groups and topics, exact names (none given: all). */
    const char *const *groups;
    size_t ngroups;
    const char *const *topics;
    size_t ntopics;
    /* The history: each change of those groups and topics goes to
     * change_fn as it takes effect, and there is no table. */
    kf_offsets_change_fn change_fn;
    void *change_ctx;
    bool has_as_of;             /* the table, or the history, as of as_of (replay.h) */
    int64_t as_of;
    bool has_now;               /* expiry: offsets_view.h's now and retention */
    int64_t now;
    int64_t retention_ms;
    const kf_topic_names *names; /* topic ids for commits without one (NULL: none) */
    /* The replay's problems (undecodable records, open transactions), its
     * coordinator_load_errors (NULL: to problem_fn), and each offsets_lost
     * with its time window (NULL: to read.problem_fn). */
    kf_problem_fn problem_fn;
    void *problem_ctx;
    kf_coord_load_error_fn load_error_fn;
    void *load_error_ctx;
    kf_offsets_lost_fn lost_fn;
    void *lost_ctx;
} kf_offsets_job_opts;

/* Fills *o as KF_OFFSETS_JOB_OPTIONS_INIT does: the version, every other
 * field zero (its default). Every function here taking a
 * kf_offsets_job_opts: it may be NULL (the defaults); its version must be
 * 1..KF_OFFSETS_JOB_OPTIONS_VERSION, else KF_ERR_UNSUPPORTED (kfsck.h,
 * "Options"). */
void kf_offsets_job_opts_init(kf_offsets_job_opts *o);

typedef struct kf_offsets_job kf_offsets_job;

/* Replays the offsets topic among in (which must outlive the job) and
 * builds the groups model; with change_fn, hands on the history as it
 * goes. KF_OK with *out set, KF_ERR_UNSUPPORTED (o's version) or
 * KF_ERR_NOMEM with *out NULL. */
int kf_offsets_job_run(kf_offsets_job **out, const kf_inputs *in, const kf_offsets_job_opts *o);
void kf_offsets_job_free(kf_offsets_job *j);

/* The table's rows of the groups and topics asked for, sorted by group,
 * topic, partition (empty with change_fn), each with its view and topic
 * id. Valid until kf_offsets_job_free. KF_OK or KF_ERR_NOMEM. */
int kf_offsets_job_table(kf_offsets_job *j, const kf_offsets_row **rows, size_t *n);

/* The groups model (every group, whatever was asked for). */
const kf_groups *kf_offsets_job_groups(const kf_offsets_job *j);
/* Every topic the table holds, sorted, each once (to say what a --topic
 * that matches nothing is closest to). KF_OK or KF_ERR_NOMEM. */
int kf_offsets_job_topics(kf_offsets_job *j, const char *const **topics, size_t *n);

typedef struct kf_offsets_job_result {
    uint64_t partitions;        /* partitions of the offsets topic replayed */
    uint64_t uncovered;         /* damaged ranges no copy covered */
    bool unreadable;            /* some segment could not be read */
    uint64_t skipped;           /* records of a known type that did not decode */
} kf_offsets_job_result;
kf_offsets_job_result kf_offsets_job_get_result(const kf_offsets_job *j);

/* A row as `kfsck offsets --json` prints it (kfsck/sys/json_lines.h): an
 * "offset" line; history: as a change of the time line (--history: a
 * deletion with its previous value, the change's time and offset) rather
 * than a row of the table (staleness and expiry). */
struct kf_jsonl;
void kf_offsets_row_json(struct kf_jsonl *j, const kf_offsets_row *r, bool history);

#ifdef __cplusplus
}
#endif

#endif
