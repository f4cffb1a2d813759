/* offsets_job.c: the driver of `offsets` and `groups` (include/kfsck/offsets_job.h):
 * a replay of the offsets topic with the caller's problem callbacks, the
 * history handed on as it is replayed (each change of the groups and
 * topics asked for, with the view's bounds), then the groups model, and on
 * demand the table's rows asked for with their whole view. */
#include "kfsck/offsets_job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/opts.h"

struct kf_offsets_job {
    kf_offsets_job_opts o;
    kf_replay *replay;
    kf_offsets_view *view;
    kf_groups *groups;
    kf_offsets_topic_result topic;
    kf_offsets_row *rows;       /* the table asked for, once built */
    size_t nrows;
    bool has_rows;
    const char **topics;        /* every topic of the table, once listed */
    size_t ntopics;
    int err;                    /* KF_ERR_NOMEM once a view failed */
};

void kf_offsets_job_opts_init(kf_offsets_job_opts *o) { *o = (kf_offsets_job_opts)KF_OFFSETS_JOB_OPTIONS_INIT; }

static bool listed(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return true;
    return n == 0;
}

static bool wanted(const kf_offsets_job_opts *o, const kf_offset_value *v)
{
    return listed(o->groups, o->ngroups, v->group) && listed(o->topics, o->ntopics, v->topic);
}

/* A row of v: its view and its topic's id. */
static void row_of(kf_offsets_job *j, const kf_offset_value *v, kf_offsets_row *r)
{
    memset(r, 0, sizeof *r);
    r->value = v;
    if (kf_offsets_view_row(j->view, v, &r->view) != KF_OK)
        j->err = KF_ERR_NOMEM;
    r->has_topic_id = v->has_topic_id;
    memcpy(r->topic_id, v->topic_id, sizeof r->topic_id);
    if (!r->has_topic_id && j->o.names)
        r->has_topic_id = kf_topic_names_id(j->o.names, v->topic, r->topic_id);
}

static void on_change(void *ctx, const kf_offset_value *v, bool deleted, int64_t time, int64_t at)
{
    kf_offsets_job *j = ctx;
    if (!wanted(&j->o, v))
        return;
    kf_offsets_row r;
    row_of(j, v, &r);
    r.deleted = deleted;
    r.change_time = time;
    r.at_offset = at;
    j->o.change_fn(j->o.change_ctx, &r);
}

/* The view over in: in a history (before the replay, no groups) bounds
 * only; for the table (after it) with the groups' expiry. */
static int make_view(kf_offsets_job *j, const kf_inputs *in, const kf_groups *groups)
{
    kf_offsets_view_opts vo;
    kf_offsets_view_opts_init(&vo);
    vo.max_batch_bytes = j->o.read.max_batch_bytes;
    vo.has_now = j->o.has_now;
    vo.now = j->o.now;
    vo.retention_ms = j->o.retention_ms;
    vo.groups = groups;
    kf_offsets_view_free(j->view);
    j->view = NULL;
    return kf_offsets_view_new(&j->view, in, j->replay, &vo);
}

int kf_offsets_job_run(kf_offsets_job **out, const kf_inputs *in, const kf_offsets_job_opts *o)
{
    *out = NULL;
    kf_offsets_job *j;
    int rc = KF_OPTS_NEW(&j, kf_offsets_job, o, KF_OFFSETS_JOB_OPTIONS_VERSION, read.max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    kf_opts_nested(&j->o.read.version, KF_PART_READER_OPTIONS_VERSION);
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = j->o.read.max_batch_bytes;
    ro.has_as_of = j->o.has_as_of;
    ro.as_of = j->o.as_of;
    ro.problem_fn = j->o.problem_fn;
    ro.problem_ctx = j->o.problem_ctx;
    if (j->o.change_fn) {
        ro.change_fn = on_change;
        ro.change_ctx = j;
    }
    kf_offsets_topic_opts to;
    kf_offsets_topic_opts_init(&to);
    to.topic = j->o.topic;
    to.read = j->o.read;
    to.lost_fn = j->o.lost_fn;
    to.lost_ctx = j->o.lost_ctx;
    rc = kf_replay_new(&j->replay, &ro);
    if (rc == KF_OK && j->o.load_error_fn)
        kf_replay_on_load_error(j->replay, j->o.load_error_fn, j->o.load_error_ctx);
    if (rc == KF_OK && j->o.change_fn)
        rc = make_view(j, in, NULL);
    if (rc == KF_OK)
        rc = kf_replay_offsets_topic(j->replay, in, &to, &j->topic);
    if (rc == KF_OK)
        rc = j->err;
    if (rc == KF_OK)
        rc = kf_groups_build(&j->groups, j->replay);
    if (rc == KF_OK && !j->o.change_fn)
        rc = make_view(j, in, j->groups);
    if (rc != KF_OK) {
        kf_offsets_job_free(j);
        return rc;
    }
    *out = j;
    return KF_OK;
}

void kf_offsets_job_free(kf_offsets_job *j)
{
    if (!j)
        return;
    free(j->rows);
    free(j->topics);
    kf_offsets_view_free(j->view);
    kf_groups_free(j->groups);
    kf_replay_free(j->replay);
    free(j);
}

int kf_offsets_job_table(kf_offsets_job *j, const kf_offsets_row **rows, size_t *n)
{
    if (!j->has_rows && !j->o.change_fn) {
        const kf_offset_value **all;
        size_t k = kf_replay_offsets(j->replay, &all);
        free(j->rows);
        j->rows = malloc((k ? k : 1) * sizeof *j->rows);
        if (!j->rows)
            return kf_error_nomem();
        j->nrows = 0;
        for (size_t i = 0; i < k; i++) {
            if (!wanted(&j->o, all[i]))
                continue;
            kf_offsets_row *r = &j->rows[j->nrows++];
            row_of(j, all[i], r);
            if (kf_offsets_view_damage(j->view, all[i], &r->view) != KF_OK)
                j->err = KF_ERR_NOMEM;
        }
        j->has_rows = true;
    }
    *rows = j->rows;
    *n = j->has_rows ? j->nrows : 0;
    return j->err;
}

const kf_groups *kf_offsets_job_groups(const kf_offsets_job *j) { return j->groups; }

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int kf_offsets_job_topics(kf_offsets_job *j, const char *const **topics, size_t *n)
{
    const kf_offset_value **all;
    size_t k = kf_replay_offsets(j->replay, &all);
    free(j->topics);
    j->topics = malloc((k ? k : 1) * sizeof *j->topics);
    if (!j->topics) {
        *topics = NULL;
        *n = 0;
        return kf_error_nomem();
    }
    for (size_t i = 0; i < k; i++)
        j->topics[i] = all[i]->topic;
    qsort(j->topics, k, sizeof *j->topics, cmp_name);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) /* each topic once */
        if (!m || strcmp(j->topics[m - 1], j->topics[i]))
            j->topics[m++] = j->topics[i];
    *topics = j->topics;
    *n = m;
    return KF_OK;
}

kf_offsets_job_result kf_offsets_job_get_result(const kf_offsets_job *j)
{
    kf_replay_stats st = kf_replay_get_stats(j->replay);
    return (kf_offsets_job_result){j->topic.partitions, j->topic.uncovered, j->topic.unreadable, st.skipped};
}
