/* offsets_view.h: what a committed offset means to the consumer that resumes
 * from it (the consumer's fetch and auto.offset.reset): the committed
 * partition's log start and end among the inputs, the lag, whether the commit
 * is out of the log's range (and what auto.offset.reset would skip or read
 * again), whether it may be stale (damage hid later commits of its
 * __consumer_offsets partition), and when the group coordinator's offset
 * cleanup would delete it (KIP-211's expiration), and whether the consumer's
 * next read lies in damage of the committed partition. Built over the inputs,
 * a finished replay and, for expiry, the groups model; nothing is printed. */
#ifndef KFSCK_OFFSETS_VIEW_H
#define KFSCK_OFFSETS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/groups.h"
#include "kfsck/partition.h"
#include "kfsck/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kafka's offsets.retention.minutes default (7 days). */
#define KF_OFFSETS_RETENTION_MINUTES_DEFAULT 10080

typedef enum kf_out_of_range {
    KF_IN_RANGE = 0,
    KF_BELOW_LOG_START,   /* the records between the commit and the log start are gone */
    KF_ABOVE_LOG_END,     /* the log lost records the group had consumed */
} kf_out_of_range;

/* "below_log_start", "above_log_end", or NULL for KF_IN_RANGE. */
const char *kf_out_of_range_name(kf_out_of_range r);

/* One row as the consumer sees it. */
typedef struct kf_offset_view {
    /* the committed partition's directory is among the inputs */
    bool has_bounds;
    int64_t log_start_offset;   /* as the broker loads it: max(log-start checkpoint, first segment base) */
    int64_t log_end_offset;     /* the end of the last intact batch */
    bool has_lag;               /* bounds known and the offset is not -1 (no position) */
    int64_t lag;                /* log_end - offset, as kafka-consumer-groups.sh gives it: also
                                   below the log start (out_of_range says so), negative past
                                   the log end */
    kf_out_of_range out_of_range;
    /* with out_of_range: what a restart with auto.offset.reset=earliest or
     * latest skips or reads again (offset counts) */
    int64_t skipped_if_earliest, skipped_if_latest, reread_if_earliest;
    /* The committed offset lies in damage of its partition's log among the
     * inputs: no copy holds it in an intact batch
     * and some copy shows damage there, so the consumer's next read fails.
     * Looked at only from the log start up to the log end, by
     * kf_offsets_view_damage. */
    bool in_damage;
    bool has_next_offset;       /* an intact batch follows the damage */
    int64_t next_offset;        /* its first offset: where a consumer that skips the damage resumes */
    bool may_be_stale;          /* kf_replay_row_may_be_stale */
    bool has_expires_at;        /* false: the coordinator never expires it (or no groups model) */
    int64_t expires_at;
    bool expired;               /* expires_at <= now */
} kf_offset_view;

typedef struct kf_offsets_view kf_offsets_view;

#define KF_OFFSETS_VIEW_OPTIONS_VERSION 1
#define KF_OFFSETS_VIEW_OPTIONS_INIT KF_OPTIONS_INIT_(kf_offsets_view_opts, KF_OFFSETS_VIEW_OPTIONS_VERSION)
typedef struct kf_offsets_view_opts {
    unsigned version;         /* KF_OFFSETS_VIEW_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* for the log end (0: KF_DEFAULT_MAX_BATCH_BYTES) */
    bool has_now;             /* false: the newest batch time of the replay */
    int64_t now;
    int64_t retention_ms;     /* 0: KF_OFFSETS_RETENTION_MINUTES_DEFAULT */
    const kf_groups *groups;  /* the groups model of the replay; NULL: no expiry */
} kf_offsets_view_opts;

/* Fills *o as KF_OFFSETS_VIEW_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_offsets_view_opts: it may be NULL
 * (the defaults); its version must be 1..KF_OFFSETS_VIEW_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_offsets_view_opts_init(kf_offsets_view_opts *o);

/* *out: a view over in, r (after kf_replay_finish) and o->groups, which
 * must outlive it. KF_OK, KF_ERR_NOMEM, or KF_ERR_UNSUPPORTED for o's
 * version (*out NULL then). */
int kf_offsets_view_new(kf_offsets_view **out, const kf_inputs *in, const kf_replay *r,
                        const kf_offsets_view_opts *o);
void kf_offsets_view_free(kf_offsets_view *v);

/* The moment expiry is judged at (opts.now, or the newest batch time). */
int64_t kf_offsets_view_now(const kf_offsets_view *v);

/* The view of one row of r's table (or of its history), all but damage.
 * The log start and end of each partition are read once. KF_OK or
 * KF_ERR_NOMEM. */
int kf_offsets_view_row(kf_offsets_view *v, const kf_offset_value *row, kf_offset_view *out);
/* Then whether the row's offset lies in damage (in_damage, next_offset):
 * each copy of its partition is read from its index's position for the
 * offset to its next intact batch, so a table asks for its rows, not a
 * history for every change. KF_OK or KF_ERR_NOMEM. */
int kf_offsets_view_damage(kf_offsets_view *v, const kf_offset_value *row, kf_offset_view *out);

/* The committed partition's log start and end among the inputs (false:
 * its directory is not among them, or no segment could be read). */
bool kf_offsets_view_bounds(kf_offsets_view *v, const char *topic, int32_t partition, int64_t *log_start,
                            int64_t *log_end);

/* ---- names that match nothing -----------------------------------------------
 *
 * The names among names[0..n) closest to want, best first, at most max of
 * them into out: a name that is want with "connect-" before it (a sink
 * connector's group), want without a "-<partition>" tail (a partition named
 * as a topic), then names within a small edit distance or holding want.
 * Returns how many were put in out. */
size_t kf_closest_names(const char *want, const char *const *names, size_t n, const char **out, size_t max);

#ifdef __cplusplus
}
#endif

#endif
