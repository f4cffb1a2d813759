/* offsets_view.c: the consumer's view of each committed offset
 * (include/kfsck/offsets_view.h): the committed partition's bounds among
 * the inputs (log end: the end of the last intact batch over its copies;
 * log start: as the broker loads it, the larger of the data dir's
 * log-start-offset-checkpoint entry and the first segment's base offset,
 * the lowest over the copies), the out-of-range judgement of
 * docs/formats.md §11.8, staleness (§11.9) from the replay's lost ranges, the
 * expiry of offset_expiry.c, and damage at the committed offset (§11.11:
 * each copy read from its index's position for that offset up to its next
 * intact batch, kf_range_read). Each partition's bounds, each data dir's
 * checkpoint and each group's condition are worked out once and kept in a
 * hash table. */
#include "kfsck/offsets_view.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/htab.h"
#include "bytes/opts.h"
#include "jobs/offsets/offset_expiry.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/offset_range.h"
#include "bytes/satmath.h"

/* What a copy's log says at a committed offset (damage_at). */
typedef struct damage_probe {
    bool intact;        /* an intact batch holds it: */
    int64_t intact_first, intact_last; /* that batch's offsets */
    bool damaged;       /* it lies in a damaged stretch */
    bool has_next;      /* the first intact batch after it */
    int64_t next;
} damage_probe;

/* A partition's bounds, once known, and the last offset probed for damage
 * with what the probe found (the rows of several groups often commit the
 * same offset, or offsets of the same intact batch). */
typedef struct bounds {
    bool known;
    int64_t log_start, log_end;
    bool probed;
    int64_t probed_offset;
    damage_probe probe;
} bounds;

/* A data dir's log-start-offset-checkpoint entries: (topic, partition)
 * key -> offset. */
typedef struct datadir_ckpt {
    htab entries;               /* partition_key -> (int64_t *) */
} datadir_ckpt;

/* A group's expiration condition, once known. */
typedef struct group_expiry {
    offset_expiry e;
} group_expiry;

struct kf_offsets_view {
    kf_offsets_view_opts o;
    const kf_inputs *in;
    const kf_replay *r;
    int64_t now;
    htab bounds;   /* partition_key -> bounds* */
    htab ckpts;    /* data dir path -> datadir_ckpt* */
    htab groups;   /* group id -> group_expiry* */
    bool nomem;
};

/* The key of a (topic, partition): the topic's bytes, a NUL, the number. */
static uint32_t partition_key(uint8_t *out, size_t cap, const char *topic, int32_t partition)
{
    size_t n = strlen(topic);
    if (n + 1 + sizeof partition > cap)
        return 0;
    memcpy(out, topic, n + 1);
    memcpy(out + n + 1, &partition, sizeof partition);
    return (uint32_t)(n + 1 + sizeof partition);
}

#define PARTITION_KEY_MAX 512 /* a topic name is at most 249 bytes */

/* The value of key in h, a zeroed block of size bytes made when the key
 * is new (*created then true); NULL when out of memory (v->nomem set). */
static void *cached(kf_offsets_view *v, htab *h, const void *key, uint32_t klen, size_t size, bool *created)
{
    void **slot = htab_put(h, key, klen, created);
    if (!slot || (*created && !(*slot = calloc(1, size)))) {
        if (slot)
            htab_del(h, key, klen);
        v->nomem = true;
        return NULL;
    }
    return *slot;
}

const char *kf_out_of_range_name(kf_out_of_range r)
{
    return r == KF_BELOW_LOG_START ? "below_log_start" : r == KF_ABOVE_LOG_END ? "above_log_end" : NULL;
}

void kf_offsets_view_opts_init(kf_offsets_view_opts *o) { *o = (kf_offsets_view_opts)KF_OFFSETS_VIEW_OPTIONS_INIT; }

int kf_offsets_view_new(kf_offsets_view **out, const kf_inputs *in, const kf_replay *r,
                        const kf_offsets_view_opts *o)
{
    *out = NULL;
    kf_offsets_view *v;
    int rc = KF_OPTS_NEW(&v, kf_offsets_view, o, KF_OFFSETS_VIEW_OPTIONS_VERSION, max_batch_bytes);
    if (rc != KF_OK)
        return rc;
    if (!v->o.retention_ms)
        v->o.retention_ms = (int64_t)KF_OFFSETS_RETENTION_MINUTES_DEFAULT * 60000;
    v->in = in;
    v->r = r;
    v->now = v->o.now;
    if (!v->o.has_now)
        kf_replay_newest_time(r, &v->now);
    *out = v;
    return KF_OK;
}

/* Frees every value of h (each freed by free_val), then h. */
static void free_table(htab *h, void (*free_val)(void *))
{
    for (size_t i = 0; i < h->cap; i++)
        if (h->e[i].key)
            free_val(h->e[i].val);
    htab_free(h);
}

static void free_ckpt(void *p)
{
    datadir_ckpt *c = p;
    if (c)
        free_table(&c->entries, free);
    free(c);
}

static void free_group(void *p)
{
    group_expiry *g = p;
    if (g)
        offset_expiry_free(&g->e);
    free(g);
}

void kf_offsets_view_free(kf_offsets_view *v)
{
    if (!v)
        return;
    free_table(&v->bounds, free);
    free_table(&v->ckpts, free_ckpt);
    free_table(&v->groups, free_group);
    free(v);
}

int64_t kf_offsets_view_now(const kf_offsets_view *v) { return v->now; }

/* ---- the log start ---------------------------------------------------------- */

static void on_ckpt_entry(void *ctx, const kf_checkpoint_entry *e)
{
    void **c = ctx;
    datadir_ckpt *ck = c[0];
    kf_offsets_view *v = c[1];
    uint8_t key[PARTITION_KEY_MAX];
    uint32_t kl = partition_key(key, sizeof key, e->topic, e->partition);
    void **slot = kl ? htab_put(&ck->entries, key, kl, NULL) : NULL;
    if (!kl)
        return;
    if (!slot || (!*slot && !(*slot = malloc(sizeof(int64_t))))) {
        v->nomem = true;
        return;
    }
    *(int64_t *)*slot = e->offset; /* the last line of a key wins, as the broker reads it into a map */
}

/* The data dir's checkpoint, read once (a missing or bad file: no entries;
 * scan reports what is wrong in it). NULL when out of memory. */
static const datadir_ckpt *checkpoint_of(kf_offsets_view *v, const char *dir)
{
    bool created;
    datadir_ckpt *c = cached(v, &v->ckpts, dir, (uint32_t)strlen(dir), sizeof *c, &created);
    if (!c || !created)
        return c;
    char *path = malloc(strlen(dir) + sizeof "/log-start-offset-checkpoint");
    if (!path) {
        v->nomem = true;
        return c;
    }
    strcpy(path, dir);
    strcat(path, "/log-start-offset-checkpoint");
    void *ctx[2] = {c, v};
    int32_t version;
    kf_checkpoint_read(path, KF_CHECKPOINT_OFFSETS, &version, on_ckpt_entry, ctx, NULL, NULL);
    free(path);
    return c;
}

/* The data dir holding a copy that is a partition directory, malloc'd
 * (NULL: the copy is a lone file, or out of memory). */
static char *datadir_of(kf_offsets_view *v, const kf_partition_copy *cp)
{
    struct stat st;
    if (stat(cp->label, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    char *dir = strdup(cp->label);
    if (!dir) {
        v->nomem = true;
        return NULL;
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
    return dir;
}

/* A copy's log start: its first segment's base offset, raised to its data
 * dir's checkpoint entry (a copy that is a partition directory). */
static bool copy_log_start(kf_offsets_view *v, const uint8_t *key, uint32_t klen, const kf_partition_copy *cp, int64_t *out)
{
    bool has = cp->nseg && cp->bases[0] >= 0;
    int64_t start = has ? cp->bases[0] : 0;
    char *dir = datadir_of(v, cp);
    const datadir_ckpt *c = dir ? checkpoint_of(v, dir) : NULL;
    free(dir);
    const int64_t *ck = c ? htab_get(&c->entries, key, klen) : NULL;
    if (ck && (!has || *ck > start))
        start = *ck;
    *out = start;
    return has || ck;
}

bool kf_offsets_view_bounds(kf_offsets_view *v, const char *topic, int32_t partition, int64_t *log_start,
                            int64_t *log_end)
{
    *log_start = *log_end = 0;
    uint8_t key[PARTITION_KEY_MAX];
    uint32_t kl = partition_key(key, sizeof key, topic, partition);
    bool created;
    bounds *b = kl ? cached(v, &v->bounds, key, kl, sizeof *b, &created) : NULL;
    if (!b)
        return false;
    const kf_partition *p = created ? kf_inputs_find(v->in, topic, partition) : NULL;
    if (p && kf_partition_log_end(p, v->o.max_batch_bytes, &b->log_end)) {
        for (size_t i = 0; i < p->ncopies; i++) {
            int64_t s;
            if (copy_log_start(v, key, kl, &p->copies[i], &s) && (!b->known || s < b->log_start)) {
                b->log_start = s;
                b->known = true;
            }
        }
    }
    *log_start = b->log_start;
    *log_end = b->log_end;
    return b->known;
}

/* ---- damage at a committed offset ------------------------------------------- */

typedef struct probe_ctx {
    damage_probe *d;
    int64_t offset;
} probe_ctx;

/* The first batch the read passes on answers: it holds the offset, or it is
 * the first intact one after it. */
static int probe_batch(void *ctx, const kf_batch *b)
{
    probe_ctx *c = ctx;
    int64_t lo = b->base_offset_known ? b->base_offset : b->last_offset;
    if (lo <= c->offset) {
        c->d->intact = true;
        c->d->intact_first = lo;
        c->d->intact_last = b->last_offset;
    } else {
        c->d->has_next = true;
        c->d->next = lo;
    }
    return 1;
}

/* The read's offset_not_found for the offset says whether it is damage or
 * a gap (compaction, retention). */
static void probe_problem(void *ctx, const kf_problem *p)
{
    probe_ctx *c = ctx;
    if (strcmp(p->code, KF_P_OFFSET_NOT_FOUND) || !p->has_offset || p->offset != c->offset)
        return;
    for (unsigned i = 0; i < p->nextra; i++)
        if (!strcmp(p->extra[i].name, "reason") && !strcmp(p->extra[i].text, KF_RANGE_DAMAGED))
            c->d->damaged = true;
}

/* Whether offset lies in damage of p's log over its copies (as the
 * partition reader joins them: damaged when no copy holds it intact and
 * some copy shows damage there; the damage ends before the first intact
 * batch after it in any copy). A copy that cannot be read says nothing. */
static void damage_at(kf_offsets_view *v, const kf_partition *p, int64_t offset, damage_probe *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < p->ncopies && !out->intact; i++) {
        damage_probe d = {0};
        probe_ctx c = {&d, offset};
        kf_range_opts o;
        kf_range_opts_init(&o);
        o.first = offset;
        o.last = INT64_MAX;
        o.scan.max_batch_bytes = v->o.max_batch_bytes;
        o.scan.threads = 1; /* the answer is in the first batches: no reading ahead */
        o.scan.batch_fn = probe_batch;
        o.scan.problem_fn = probe_problem;
        o.scan.ctx = &c;
        o.scan.problem_ctx = &c;
        if (kf_range_read(&p->copies[i], &o, NULL) == KF_ERR_NOMEM)
            v->nomem = true;
        if (d.intact) {
            out->intact = true;
            out->intact_first = d.intact_first;
            out->intact_last = d.intact_last;
        }
        out->damaged |= d.damaged;
        if (d.has_next && (!out->has_next || d.next < out->next)) {
            out->has_next = true;
            out->next = d.next;
        }
    }
}

int kf_offsets_view_damage(kf_offsets_view *v, const kf_offset_value *row, kf_offset_view *out)
{
    out->in_damage = out->has_next_offset = false;
    out->next_offset = 0;
    /* only where what the consumer reads next is in the log */
    if (!out->has_bounds || row->offset < out->log_start_offset || row->offset >= out->log_end_offset)
        return KF_OK;
    uint8_t key[PARTITION_KEY_MAX];
    uint32_t kl = partition_key(key, sizeof key, row->topic, row->partition);
    bounds *b = kl ? htab_get(&v->bounds, key, kl) : NULL;
    if (!b)
        return KF_OK;
    const damage_probe *d = &b->probe;
    bool known = b->probed && (b->probed_offset == row->offset ||
                               (d->intact && row->offset >= d->intact_first && row->offset <= d->intact_last));
    if (!known) {
        const kf_partition *p = kf_inputs_find(v->in, row->topic, row->partition);
        if (!p)
            return KF_OK;
        damage_at(v, p, row->offset, &b->probe);
        b->probed = true;
        b->probed_offset = row->offset;
    }
    out->in_damage = !b->probe.intact && b->probe.damaged;
    out->has_next_offset = out->in_damage && b->probe.has_next;
    out->next_offset = out->has_next_offset ? b->probe.next : 0;
    return v->nomem ? KF_ERR_NOMEM : KF_OK;
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
    bool created;
    group_expiry *g = cached(v, &v->groups, group, (uint32_t)strlen(group), sizeof *g, &created);
    if (!g)
        return NULL;
    if (created && !offset_expiry_of(find_group(v->o.groups, group), &g->e)) {
        v->nomem = true;
        return NULL;
    }
    return &g->e;
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
            out->skipped_if_earliest = kf_offsets_between(row->offset, start);
            out->skipped_if_latest = kf_offsets_between(row->offset, end);
        } else if (row->offset > end) {
            out->out_of_range = KF_ABOVE_LOG_END;
            out->reread_if_earliest = kf_offsets_between(start, end);
        }
        if (row->offset >= 0) { /* below the log start too: out_of_range says the rest */
            out->has_lag = true;
            out->lag = kf_sat_sub(end, row->offset);
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
