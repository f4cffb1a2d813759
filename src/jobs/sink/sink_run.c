/* sink_run.c: the sink catch-up simulation over the inputs
 * (include/kfsck/sink.h), what `kfsck stats --sink-partition-duration`
 * runs: where each partition resumes (the resume point given, or a consumer
 * group's commits rebuilt by the offsets replay, with the log start for a
 * partition the group never committed: auto.offset.reset=earliest), each
 * partition read (sink_read.c), its peaks added up per topic
 * (sink_topic.c), and the topics' shares of the tasks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/order.h"
#include "bytes/error.h"
#include "bytes/opts.h"
#include "kfsck/sink.h"

#define OFFSETS_TOPIC "__consumer_offsets"

void kf_sink_run_opts_init(kf_sink_run_opts *o)
{
    *o = (kf_sink_run_opts)KF_SINK_RUN_OPTIONS_INIT;
}

/* ---- the group's commits ------------------------------------------------- */

typedef struct commit {
    char *topic;
    int32_t partition;
    int64_t offset;
} commit;

typedef struct commits {
    commit *v;
    size_t n;
} commits;

static void commits_free(commits *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->v[i].topic);
    free(c->v);
}

static int cmp_commit(const void *a, const void *b)
{
    const commit *x = a, *y = b;
    return kf_cmp_topic_partition(x->topic, x->partition, y->topic, y->partition);
}

/* The group's committed offset of p, or NULL. */
static const commit *commit_of(const commits *c, const kf_partition *p)
{
    commit key = {(char *)p->topic, p->partition, 0};
    return c->n ? bsearch(&key, c->v, c->n, sizeof key, cmp_commit) : NULL;
}

static bool topic_committed(const commits *c, const char *topic)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i].topic, topic))
            return true;
    return false;
}

/* Without a commit of the group: the groups that did commit, into res. */
static int keep_groups(kf_sink_run_result *res, const kf_offset_value *const *rows, size_t n)
{
    if (!n)
        return KF_OK;
    if (!(res->groups = calloc(n, sizeof *res->groups)))
        return kf_error_nomem();
    for (size_t i = 0; i < n; i++) {
        if (res->ngroups && !strcmp(res->groups[res->ngroups - 1], rows[i]->group))
            continue; /* rows are sorted by group */
        if (!(res->groups[res->ngroups] = strdup(rows[i]->group)))
            return kf_error_nomem();
        res->ngroups++;
    }
    return KF_OK;
}

/* Replay the offsets topic among in and keep the group's commits, sorted. */
static int load_group(const kf_inputs *in, const kf_sink_run_opts *o, commits *c, kf_sink_run_result *res)
{
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = o->read.max_batch_bytes;
    ro.problem_fn = o->offsets_problem_fn;
    ro.problem_ctx = o->offsets_problem_ctx;
    kf_replay *r;
    int rc = kf_replay_new(&r, &ro);
    if (rc != KF_OK)
        return rc;
    if (o->load_error_fn)
        kf_replay_on_load_error(r, o->load_error_fn, o->load_error_ctx);
    kf_offsets_topic_opts to;
    kf_offsets_topic_opts_init(&to);
    to.read = o->read;
    to.lost_fn = o->lost_fn;
    to.lost_ctx = o->lost_ctx;
    kf_offsets_topic_result tr;
    rc = kf_replay_offsets_topic(r, in, &to, &tr);
    res->offsets_partitions = tr.partitions;
    res->offsets_unreadable = tr.unreadable;
    res->offsets_damaged = tr.uncovered || kf_replay_get_stats(r).skipped;
    const kf_offset_value **rows = NULL;
    size_t n = rc == KF_OK && tr.partitions ? kf_replay_offsets(r, &rows) : 0;
    if (n && !(c->v = calloc(n, sizeof *c->v)))
        rc = kf_error_nomem();
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        if (strcmp(rows[i]->group, o->from_group))
            continue;
        commit *x = &c->v[c->n];
        if (!(x->topic = strdup(rows[i]->topic))) {
            rc = kf_error_nomem();
            break;
        }
        x->partition = rows[i]->partition;
        x->offset = rows[i]->offset;
        c->n++;
    }
    res->group_commits = c->n;
    if (rc == KF_OK && tr.partitions && !c->n)
        rc = keep_groups(res, rows, n);
    kf_replay_free(r);
    if (c->n)
        qsort(c->v, c->n, sizeof *c->v, cmp_commit);
    return rc;
}

/* ---- the topics and their partitions ------------------------------------- */

typedef struct sink_run {
    const kf_sink_run_opts *o;
    kf_sink_run_result *res;
    const commits *c;
} sink_run;

static int read_partition(sink_run *R, const kf_partition *p, kf_sink_run_topic *t)
{
    const kf_sink_run_opts *o = R->o;
    kf_sink_opts po = o->sink;
    if (o->from_group) {
        const commit *c = commit_of(R->c, p);
        po.from = c ? KF_SINK_FROM_OFFSET : KF_SINK_FROM_START;
        po.from_value = c ? c->offset : 0;
    }
    kf_sink_partition sp;
    kf_part_result ur;
    int rc = kf_sink_read(p, &o->read, &po, &sp, &ur);
    if (rc != KF_OK)
        return rc;
    uint64_t damaged = ur.uncovered + sp.skipped_batches;
    kf_sink_run_result *res = R->res;
    res->damaged |= damaged > 0;
    res->unreadable |= ur.unreadable;
    t->damaged += damaged;
    kf_sink_topic_add(&t->t, &sp);
    t->advice.npartitions++;
    res->peaks[res->npartitions++] = sp.figures.peak_open_files;
    res->peak_open_files += sp.figures.peak_open_files;
    if (o->partition_fn)
        o->partition_fn(o->ctx, p, &sp, damaged);
    return KF_OK;
}

/* The partitions in->parts[i .. j), one topic. */
static int read_topic(sink_run *R, const kf_inputs *in, size_t i, size_t j)
{
    const kf_sink_run_opts *o = R->o;
    kf_sink_run_result *res = R->res;
    kf_sink_run_topic *t = &res->topics[res->ntopics++];
    t->topic = in->parts[i].topic;
    t->committed = o->from_group && topic_committed(R->c, t->topic);
    t->first = res->npartitions;
    kf_sink_topic_init(&t->t, &o->sink);
    t->advice = (kf_sink_advice_in){o->sink.config, o->sink.schedule_records, o->schedule_interval_ms,
                                    o->catch_up_rate, o->part_size, o->heap, res->tasks,
                                    res->peaks + res->npartitions, 0};
    if (o->topic_begin_fn)
        o->topic_begin_fn(o->ctx, t);
    int rc = KF_OK;
    for (size_t k = i; k < j && rc == KF_OK; k++)
        rc = read_partition(R, &in->parts[k], t);
    if (rc == KF_OK && o->topic_end_fn)
        o->topic_end_fn(o->ctx, t);
    return rc;
}

int kf_sink_run(const kf_inputs *in, const kf_sink_run_opts *o, kf_sink_run_result *res)
{
    memset(res, 0, sizeof *res);
    kf_sink_run_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_SINK_RUN_OPTIONS_VERSION, &own.read.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_opts_nested(&own.sink.version, KF_SINK_OPTIONS_VERSION);
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    if (!own.part_size)
        own.part_size = KF_SINK_DEFAULT_PART_SIZE;
    o = &own;
    res->tasks = o->tasks ? o->tasks : 1;
    if (!in->n)
        return KF_OK;
    commits c = {0};
    int rc = o->from_group ? load_group(in, o, &c, res) : KF_OK;
    bool resumable = !o->from_group || (res->offsets_partitions && !res->offsets_unreadable && c.n);
    if (rc == KF_OK && resumable && (!(res->topics = calloc(in->n, sizeof *res->topics)) ||
                                     !(res->peaks = calloc(in->n, sizeof *res->peaks))))
        rc = kf_error_nomem();
    sink_run R = {o, res, &c};
    /* in->parts is sorted by topic, then partition */
    for (size_t i = 0; i < in->n && rc == KF_OK && resumable;) {
        size_t j = i + 1;
        while (j < in->n && !strcmp(in->parts[j].topic, in->parts[i].topic))
            j++;
        if (!o->from_group || strcmp(in->parts[i].topic, OFFSETS_TOPIC))
            rc = read_topic(&R, in, i, j);
        i = j;
    }
    commits_free(&c);
    return rc;
}

void kf_sink_run_free(kf_sink_run_result *res)
{
    for (size_t i = 0; i < res->ngroups; i++)
        free(res->groups[i]);
    free(res->groups);
    free(res->topics);
    free(res->peaks);
    memset(res, 0, sizeof *res);
}

void kf_sink_run_tasks(const kf_sink_run_result *res, const kf_sink_run_topic *t, kf_sink_task_row *rows)
{
    memset(rows, 0, res->tasks * sizeof *rows);
    for (size_t k = t->first; k < t->first + t->t.partitions; k++) {
        kf_sink_task_row *row = &rows[kf_sink_task_of(k, res->tasks)];
        row->partitions++;
        row->peak_open_files += res->peaks[k];
    }
}
