/* offsets_topic.c: the replay of every __consumer_offsets partition among
 * the inputs on one time line (include/kfsck/replay.h): one partition
 * reader per partition, and at each step the batch with the lowest max
 * timestamp of the partitions' next batches goes to the replay. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/opts.h"
#include "bytes/error.h"
#include "kfsck/replay.h"

void kf_offsets_topic_opts_init(kf_offsets_topic_opts *o)
{
    *o = (kf_offsets_topic_opts)KF_OFFSETS_TOPIC_OPTIONS_INIT;
}

/* One partition of the topic: its reader and its next batch. */
typedef struct topic_part {
    kf_part_reader *r;
    int32_t partition;
    bool has;
    kf_batch next;
} topic_part;

static int advance(topic_part *t)
{
    int rc = kf_part_reader_next(t->r, &t->next);
    t->has = rc == 1;
    return rc < 0 ? -rc : KF_OK;
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
    if (kf_opts_take(&own, o, sizeof own, KF_OFFSETS_TOPIC_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    if (!own.topic)
        own.topic = "__consumer_offsets";
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += !strcmp(in->parts[i].topic, o->topic);
    res->partitions = n;
    topic_part *ts = calloc(n ? n : 1, sizeof *ts);
    if (!ts)
        return kf_error_set(KF_ERR_NOMEM, ENOMEM, NULL, "out of memory");
    int rc = KF_OK;
    size_t k = 0;
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        if (strcmp(in->parts[i].topic, o->topic))
            continue;
        ts[k].partition = in->parts[i].partition;
        rc = kf_part_reader_open(&ts[k].r, &in->parts[i], &o->read);
        if (rc == KF_OK)
            rc = advance(&ts[k++]);
    }
    for (size_t best; rc == KF_OK && (best = earliest(ts, k)) < k;) {
        topic_part *t = &ts[best];
        if (!(t->next.magic == 2 && t->next.count == 0)) { /* empty batches kept by the cleaner */
            kf_replay_file(r, kf_part_reader_file(t->r));
            kf_replay_partition(r, t->partition);
            rc = kf_replay_batch(r, &t->next);
        }
        if (rc == KF_OK)
            rc = advance(t);
    }
    /* damage counts only where no copy covers it */
    for (size_t i = 0; i < k; i++) {
        kf_part_result ur;
        kf_part_reader_close(ts[i].r, &ur);
        res->uncovered += ur.uncovered;
        res->unreadable |= ur.unreadable;
    }
    free(ts);
    kf_replay_file(r, NULL); /* what the end reports (open transactions) names its partition */
    if (rc == KF_OK)
        kf_replay_finish(r);
    return rc;
}
