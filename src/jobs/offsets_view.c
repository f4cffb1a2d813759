/* offsets_view.c: the consumer's view of each committed offset
 * (include/kfsck/offsets_view.h): the committed partition's bounds among
 * the inputs (log end: the end of the last intact batch over its copies;
 * log start: as the broker loads it, the larger of the data dir's
 * log-start-offset-checkpoint entry and the first segment's base offset,
 * the lowest over the copies), the out-of-range judgement of
 * docs/formats.md §11.8, staleness (§11.9) from the replay's lost ranges, and the
 * expiry of offset_expiry.c. Each partition's bounds, each data dir's
 * checkpoint and each group's condition are worked out once. */
#include "kfsck/offsets_view.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/opts.h"
#include "jobs/offset_expiry.h"
#include "kfsck/checkpoint.h"

/* A partition's bounds, once known. */
typedef struct bounds {
    char *topic;
    int32_t partition;
    bool known;
    int64_t log_start, log_end;
} bounds;

/* A data dir's log-start-offset-checkpoint entries. */
typedef struct ckpt_entry {
    char *topic;
    int32_t partition;
    int64_t offset;
} ckpt_entry;

typedef struct datadir_ckpt {
    char *dir;
    ckpt_entry *e;
    size_t n;
} datadir_ckpt;

/* A group's expiration condition, once known. */
typedef struct group_expiry {
    char *group;
    offset_expiry e;
} group_expiry;

struct kf_offsets_view {
    kf_offsets_view_opts o;
    const kf_inputs *in;
    const kf_replay *r;
    int64_t now;
    bounds *b;
    size_t nb;
    datadir_ckpt *ck;
    size_t nck;
    group_expiry *ge;
    size_t nge;
    bool nomem;
};

const char *kf_out_of_range_name(kf_out_of_range r)
{
    return r == KF_BELOW_LOG_START ? "below_log_start" : r == KF_ABOVE_LOG_END ? "above_log_end" : NULL;
}

void kf_offsets_view_opts_init(kf_offsets_view_opts *o) { *o = (kf_offsets_view_opts)KF_OFFSETS_VIEW_OPTIONS_INIT; }

kf_offsets_view *kf_offsets_view_new(const kf_inputs *in, const kf_replay *r, const kf_offsets_view_opts *o)
{
    kf_offsets_view_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_OFFSETS_VIEW_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return NULL;
    kf_offsets_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->o = own;
    if (!v->o.retention_ms)
        v->o.retention_ms = (int64_t)KF_OFFSETS_RETENTION_MINUTES_DEFAULT * 60000;
    v->in = in;
    v->r = r;
    v->now = own.now;
    if (!own.has_now)
        kf_replay_newest_time(r, &v->now);
    return v;
}

void kf_offsets_view_free(kf_offsets_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->nb; i++)
        free(v->b[i].topic);
    free(v->b);
    for (size_t i = 0; i < v->nck; i++) {
        for (size_t k = 0; k < v->ck[i].n; k++)
            free(v->ck[i].e[k].topic);
        free(v->ck[i].e);
        free(v->ck[i].dir);
    }
    free(v->ck);
    for (size_t i = 0; i < v->nge; i++) {
        free(v->ge[i].group);
        offset_expiry_free(&v->ge[i].e);
    }
    free(v->ge);
    free(v);
}

int64_t kf_offsets_view_now(const kf_offsets_view *v) { return v->now; }

/* ---- the log start ---------------------------------------------------------- */

static void on_ckpt_entry(void *ctx, const kf_checkpoint_entry *e)
{
    datadir_ckpt *c = ((void **)ctx)[0];
    kf_offsets_view *v = ((void **)ctx)[1];
    ckpt_entry *n = realloc(c->e, (c->n + 1) * sizeof *n);
    char *t = strdup(e->topic);
    if (!n || !t) {
        free(t);
        if (n)
            c->e = n;
        v->nomem = true;
        return;
    }
    c->e = n;
    c->e[c->n++] = (ckpt_entry){t, e->partition, e->offset};
}

/* The data dir's checkpoint, read once (a missing or bad file: no entries;
 * scan reports what is wrong in it). */
static const datadir_ckpt *checkpoint_of(kf_offsets_view *v, const char *dir)
{
    for (size_t i = 0; i < v->nck; i++)
        if (!strcmp(v->ck[i].dir, dir))
            return &v->ck[i];
    datadir_ckpt *n = realloc(v->ck, (v->nck + 1) * sizeof *n);
    char *d = strdup(dir);
    char *path = malloc(strlen(dir) + sizeof "/log-start-offset-checkpoint");
    if (!n || !d || !path) {
        if (n)
            v->ck = n;
        free(d);
        free(path);
        v->nomem = true;
        return NULL;
    }
    v->ck = n;
    datadir_ckpt *c = &v->ck[v->nck++];
    *c = (datadir_ckpt){d, NULL, 0};
    strcpy(path, dir);
    strcat(path, "/log-start-offset-checkpoint");
    void *ctx[2] = {c, v};
    int32_t version;
    kf_checkpoint_read(path, KF_CKPT_OFFSETS, &version, on_ckpt_entry, ctx, NULL, NULL);
    free(path);
    return c;
}

/* A copy's log start: its first segment's base offset, raised to its data
 * dir's checkpoint entry (a copy that is a partition directory). */
static bool copy_log_start(kf_offsets_view *v, const kf_partition *p, const kf_copy *cp, int64_t *out)
{
    bool has = cp->nseg && cp->bases[0] >= 0;
    int64_t start = has ? cp->bases[0] : 0;
    struct stat st;
    if (stat(cp->label, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *dir = strdup(cp->label);
        if (!dir) {
            v->nomem = true;
            return false;
        }
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            dir[--len] = 0;
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            dir[1] = 0;
        else if (slash)
            *slash = 0;
        else
            strcpy(dir, ".");
        const datadir_ckpt *c = checkpoint_of(v, dir);
        free(dir);
        for (size_t i = 0; c && i < c->n; i++)
            if (c->e[i].partition == p->partition && !strcmp(c->e[i].topic, p->topic)) {
                if (!has || c->e[i].offset > start)
                    start = c->e[i].offset;
                has = true;
            }
    }
    *out = start;
    return has;
}

bool kf_offsets_view_bounds(kf_offsets_view *v, const char *topic, int32_t partition, int64_t *log_start,
                            int64_t *log_end)
{
    for (size_t i = 0; i < v->nb; i++)
        if (v->b[i].partition == partition && !strcmp(v->b[i].topic, topic)) {
            *log_start = v->b[i].log_start;
            *log_end = v->b[i].log_end;
            return v->b[i].known;
        }
    bounds b = {strdup(topic), partition, false, 0, 0};
    bounds *n = realloc(v->b, (v->nb + 1) * sizeof *n);
    if (!b.topic || !n) {
        free(b.topic);
        if (n)
            v->b = n;
        v->nomem = true;
        return false;
    }
    v->b = n;
    const kf_partition *p = kf_inputs_find(v->in, topic, partition);
    if (p && kf_partition_log_end(p, v->o.max_batch_bytes, &b.log_end)) {
        bool any = false;
        for (size_t i = 0; i < p->ncopies; i++) {
            int64_t s;
            if (copy_log_start(v, p, &p->copies[i], &s) && (!any || s < b.log_start)) {
                b.log_start = s;
                any = true;
            }
        }
        b.known = any;
    }
    v->b[v->nb++] = b;
    *log_start = b.log_start;
    *log_end = b.log_end;
    return b.known;
}

/* ---- expiry ------------------------------------------------------------------- */

static const kf_group *find_group(const kf_groups *gs, const char *id)
{
    const kf_group *list;
    size_t lo = 0, hi = kf_groups_list(gs, &list);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(list[mid].id, id);
        if (!c)
            return &list[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const offset_expiry *expiry_of(kf_offsets_view *v, const char *group)
{
    for (size_t i = v->nge; i-- > 0;) /* rows come sorted by group: the last one first */
        if (!strcmp(v->ge[i].group, group))
            return &v->ge[i].e;
    group_expiry *n = realloc(v->ge, (v->nge + 1) * sizeof *n);
    char *g = strdup(group);
    if (!n || !g) {
        if (n)
            v->ge = n;
        free(g);
        v->nomem = true;
        return NULL;
    }
    v->ge = n;
    group_expiry *e = &v->ge[v->nge];
    e->group = g;
    if (!offset_expiry_of(find_group(v->o.groups, group), &e->e)) {
        offset_expiry_free(&e->e);
        free(g);
        v->nomem = true;
        return NULL;
    }
    v->nge++;
    return &e->e;
}

/* ---- one row --------------------------------------------------------------------- */

int kf_offsets_view_row(kf_offsets_view *v, const kf_offset_value *row, kf_offset_view *out)
{
    memset(out, 0, sizeof *out);
    int64_t start, end;
    if (kf_offsets_view_bounds(v, row->topic, row->partition, &start, &end)) {
        out->has_bounds = true;
        out->log_start_offset = start;
        out->log_end_offset = end;
        if (row->offset >= 0 && row->offset < start) {
            out->out_of_range = KF_BELOW_LOG_START;
            out->skipped_if_earliest = start - row->offset;
            out->skipped_if_latest = end - row->offset;
        } else if (row->offset > end) {
            out->out_of_range = KF_ABOVE_LOG_END;
            out->reread_if_earliest = end - start;
        }
        if (row->offset >= 0 && row->offset >= start) {
            out->has_lag = true;
            out->lag = end - row->offset;
        }
    }
    out->may_be_stale = kf_replay_row_may_be_stale(v->r, row);
    if (v->o.groups) {
        const offset_expiry *e = expiry_of(v, row->group);
        if (e && offset_expiry_at(e, row->topic, row->commit_timestamp, row->expire_timestamp, v->o.retention_ms,
                                  &out->expires_at)) {
            out->has_expires_at = true;
            out->expired = out->expires_at <= v->now;
        }
    }
    return v->nomem ? KF_ERR_NOMEM : KF_OK;
}
