/* offsets_topic.c: the replay of every __consumer_offsets partition among
 * the inputs on one time line (include/kfsck/replay.h): one partition
 * reader per partition, and at each step the batch with the lowest max
 * timestamp of the partitions' next batches goes to the replay. The
 * ranges no copy holds intact go to the replay too (rows that may be
 * stale) and, with lost_fn, their "offsets_lost" problems with the time
 * window around them. The interleaving is the order of --history only:
 * it is not a time order (a transaction's marker, a clock that stepped
 * back), and the as-of table never depends on it (offsets_asof.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/opts.h"
#include "bytes/error.h"
#include "kfsck/replay.h"

void kf_offsets_topic_opts_init(kf_offsets_topic_opts *o)
{
    *o = (kf_offsets_topic_opts)KF_OFFSETS_TOPIC_OPTIONS_INIT;
}

/* The time window of a lost range: the max timestamps of the intact
 * batches around it. */
typedef struct lost_window {
    bool has_first, has_last;
    int64_t first, last;
} lost_window;

/* One partition of the topic: its reader, its next batch, and the windows
 * of the holes its reader found (in the reader's order). */
typedef struct topic_part {
    kf_part_reader *r;
    int32_t partition;
    bool has;
    kf_batch next;
    bool has_prev;
    int64_t prev_max_timestamp; /* of the batch before next */
    lost_window *windows;
    size_t nwindows;
    size_t reported;            /* offsets_lost problems handed on so far */
} topic_part;

/* The readers' problems pass through here: "offsets_lost" of the partition
 * being closed goes to lost_fn with its window, the rest to read.problem_fn. */
typedef struct lost_shim {
    const kf_offsets_topic_opts *o;
    topic_part *closing;
} lost_shim;

static void shim_problem(void *ctx, const kf_problem *p)
{
    lost_shim *sh = ctx;
    topic_part *t = sh->closing;
    if (t && sh->o->lost_fn && !strcmp(p->code, KF_P_OFFSETS_LOST)) {
        kf_offsets_lost l = {p, t->partition, false, false, 0, 0};
        if (t->reported < t->nwindows) {
            const lost_window *w = &t->windows[t->reported];
            l.has_first_timestamp = w->has_first;
            l.first_timestamp = w->first;
            l.has_last_timestamp = w->has_last;
            l.last_timestamp = w->last;
        }
        t->reported++;
        sh->o->lost_fn(sh->o->lost_ctx, &l);
        return;
    }
    if (sh->o->read.problem_fn)
        sh->o->read.problem_fn(sh->o->read.problem_ctx, p);
}

/* The holes found since the last batch lie between it and the new one. */
static int note_holes(kf_replay *r, topic_part *t)
{
    size_t n = kf_part_reader_holes(t->r);
    if (n <= t->nwindows)
        return KF_OK;
    lost_window *w = realloc(t->windows, n * sizeof *w);
    if (!w)
        return kf_error_nomem();
    t->windows = w;
    for (size_t i = t->nwindows; i < n; i++) {
        const kf_part_hole *h = kf_part_reader_hole(t->r, i);
        w[i] = (lost_window){t->has_prev, t->has, t->prev_max_timestamp, t->has ? t->next.max_timestamp : 0};
        kf_replay_lost_range(r, t->partition, h->has_end, h->end_offset);
    }
    t->nwindows = n;
    return KF_OK;
}

static int advance(kf_replay *r, topic_part *t)
{
    if (t->has) {
        t->has_prev = true;
        t->prev_max_timestamp = t->next.max_timestamp;
    }
    int rc = kf_part_reader_next(t->r, &t->next);
    t->has = rc == 1;
    if (rc < 0)
        return -rc;
    return note_holes(r, t);
}

/* The partition whose next batch comes first on the time line (n: none). */
static size_t earliest(const topic_part *ts, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (ts[i].has && (best == n || ts[i].next.max_timestamp < ts[best].next.max_timestamp))
            best = i;
    return best;
}

int kf_replay_offsets_topic(kf_replay *r, const kf_inputs *in, const kf_offsets_topic_opts *o,
                            kf_offsets_topic_result *res)
{
    memset(res, 0, sizeof *res);
    kf_offsets_topic_opts own;
    /* version 1 callers' struct ends before lost_fn */
    size_t size = o && o->version == 1 ? offsetof(kf_offsets_topic_opts, lost_fn) : sizeof own;
    if (kf_opts_take(&own, o, size, KF_OFFSETS_TOPIC_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    if (!own.topic)
        own.topic = "__consumer_offsets";
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;
    lost_shim shim = {o, NULL};
    kf_part_reader_opts ro = o->read;
    ro.problem_fn = shim_problem;
    ro.problem_ctx = &shim;
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += !strcmp(in->parts[i].topic, o->topic);
    res->partitions = n;
    topic_part *ts = calloc(n ? n : 1, sizeof *ts);
    if (!ts)
        return kf_error_nomem();
    int rc = KF_OK;
    size_t k = 0;
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        if (strcmp(in->parts[i].topic, o->topic))
            continue;
        ts[k].partition = in->parts[i].partition;
        rc = kf_part_reader_open(&ts[k].r, &in->parts[i], &ro);
        if (rc == KF_OK)
            rc = advance(r, &ts[k++]);
    }
    for (size_t best; rc == KF_OK && (best = earliest(ts, k)) < k;) {
        topic_part *t = &ts[best];
        if (!(t->next.magic == 2 && t->next.count == 0)) { /* empty batches kept by the cleaner */
            kf_replay_file(r, kf_part_reader_file(t->r));
            kf_replay_partition(r, t->partition);
            rc = kf_replay_batch(r, &t->next);
        }
        if (rc == KF_OK)
            rc = advance(r, t);
    }
    /* damage counts only where no copy covers it */
    for (size_t i = 0; i < k; i++) {
        kf_part_result ur;
        shim.closing = &ts[i];
        kf_part_reader_close(ts[i].r, &ur);
        shim.closing = NULL;
        free(ts[i].windows);
        res->uncovered += ur.uncovered;
        res->unreadable |= ur.unreadable;
    }
    free(ts);
    kf_replay_file(r, NULL); /* what the end reports (open transactions) names its partition */
    if (rc == KF_OK)
        kf_replay_finish(r);
    return rc;
}
