/* stats_run.c: the stats job over the inputs (include/kfsck/stats.h):
 * each group of partitions read through kf_part_feed into one time
 * histogram, each partition's timestamp disorder tracked on its own. A
 * batch's records are staged (timestamp, offset, size) and counted once the
 * whole batch has read cleanly. */
#include <stdlib.h>
#include <string.h>

#include "bytes/report.h"
#include "jobs/stats/stats_internal.h"
#include "bytes/opts.h"
#include "kfsck/sys/codec.h"
#include "kfsck/sys/part_feed.h"
#include "kfsck/stats.h"

void kf_stats_opts_init(kf_stats_opts *o)
{
    *o = (kf_stats_opts)KF_STATS_OPTIONS_INIT;
}

typedef struct staged_rec {
    int64_t ts, offset;
    uint64_t bytes;
    bool has_ts;
} staged_rec;

typedef struct stats_feed {
    const kf_stats_opts *o;
    kf_stats_result *res;
    kf_stats_group *g;
    kf_timehist h;
    kf_lateness late;   /* of the partition being read */
    kf_buf stage;       /* the batch's records (staged_rec), counted once it read cleanly */
    size_t nst;
} stats_feed;

/* The staged records of the batch being read. */
static staged_rec *staged(stats_feed *F) { return (staged_rec *)(void *)F->stage.data; }

/* Count the staged records of a batch that read cleanly. */
static int count_staged(stats_feed *F)
{
    kf_stats_group *g = F->g;
    for (size_t i = 0; i < F->nst; i++) {
        const staged_rec *s = &staged(F)[i];
        g->records++;
        g->bytes += s->bytes;
        if (!g->has_offsets) {
            g->has_offsets = true;
            g->first_offset = s->offset;
        }
        g->last_offset = s->offset;
        if (!s->has_ts) {
            g->no_ts++;
            g->no_ts_bytes += s->bytes;
            continue;
        }
        if (kf_timehist_add(&F->h, s->ts, s->bytes) != KF_OK)
            return KF_ERR_NOMEM;
        if (!g->has_ts || s->ts < g->min_ts)
            g->min_ts = s->ts;
        if (!g->has_ts || s->ts > g->max_ts)
            g->max_ts = s->ts;
        g->has_ts = true;
        kf_lateness_add(&F->late, s->ts);
    }
    return KF_OK;
}

/* One batch of the partition (kf_part_batch_fn). */
static int stats_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    stats_feed *F = ctx;
    if (b->control) {
        F->g->control += b->count > 0 ? (uint64_t)b->count : 0;
        return KF_OK;
    }
    kf_record_iter it;
    F->nst = 0;
    F->stage.len = 0;
    int rc = kf_part_reader_records(r, b, &it);
    if (rc == KF_OK) {
        kf_record rec;
        while ((rc = kf_records_next(&it, &rec)) == 1) {
            staged_rec s = {rec.timestamp, rec.offset, kf_record_payload_bytes(&rec),
                            rec.magic >= 1 && rec.timestamp != -1};
            if (kf_buf_reserve(&F->stage, (F->nst + 1) * sizeof s) != KF_OK)
                return KF_ERR_NOMEM;
            staged(F)[F->nst++] = s;
            F->stage.len = F->nst * sizeof s; /* what kf_buf_reserve keeps */
        }
    }
    if (rc != KF_OK && rc != 0) {
        kf_report_in(F->o->problem_fn, F->o->problem_ctx, kf_part_reader_file(r),
                     it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position, true, b->base_offset,
                     "batch skipped by stats: %s", it.err_msg);
        F->g->skipped++;
        F->res->damaged = true;
        return KF_OK;
    }
    return count_staged(F);
}

static int read_partition(stats_feed *F, const kf_partition *p)
{
    memset(&F->late, 0, sizeof F->late);
    kf_part_result ur;
    int rc = kf_part_feed(p, &F->o->read, stats_batch, F, &ur);
    if (ur.uncovered)
        F->res->damaged = true;
    if (ur.unreadable)
        F->res->unreadable = true;
    kf_stats_group *g = F->g;
    g->partitions++;
    if (F->late.max_lateness > g->max_late)
        g->max_late = F->late.max_lateness;
    g->late_records += F->late.late_records;
    return rc;
}

/* The partitions [i, j) of in as group g, handed to group_fn. */
static int read_group(stats_feed *F, const kf_inputs *in, size_t i, size_t j)
{
    kf_stats_group g;
    memset(&g, 0, sizeof g);
    g.topic = in->parts[i].topic;
    g.partition = F->o->by_partition ? in->parts[i].partition : -1;
    F->g = &g;
    kf_timehist_init(&F->h, F->o->bucket_ms);
    int rc = KF_OK;
    for (size_t k = i; k < j && rc == KF_OK; k++)
        rc = read_partition(F, &in->parts[k]);
    kf_tbucket *v = NULL;
    size_t n = rc == KF_OK ? kf_timehist_sorted(&F->h, &v) : 0;
    if (n == (size_t)-1)
        rc = KF_ERR_NOMEM;
    if (rc == KF_OK) {
        g.buckets = n;
        if (F->o->group_fn)
            F->o->group_fn(F->o->group_ctx, &g, v, n);
    }
    free(v);
    kf_timehist_free(&F->h);
    return rc;
}

int kf_stats_run(const kf_inputs *in, const kf_stats_opts *o, kf_stats_result *res)
{
    memset(res, 0, sizeof *res);
    kf_stats_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_STATS_OPTIONS_VERSION, NULL) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    if (own.bucket_ms <= 0)
        own.bucket_ms = KF_STATS_BUCKET_MS_DEFAULT;
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;
    stats_feed F;
    memset(&F, 0, sizeof F);
    F.o = o;
    F.res = res;
    int rc = KF_OK;
    /* in->parts is sorted by topic, partition: a group is a run of it */
    for (size_t i = 0; i < in->n && rc == KF_OK;) {
        size_t j = i + 1;
        if (!o->by_partition)
            while (j < in->n && !strcmp(in->parts[j].topic, in->parts[i].topic))
                j++;
        rc = read_group(&F, in, i, j);
        i = j;
    }
    kf_buf_free(&F.stage);
    return rc;
}
