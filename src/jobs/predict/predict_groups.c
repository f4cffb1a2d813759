/* predict_groups.c: what a cut of a __consumer_offsets partition does to
 * the consumer groups (docs/formats.md §20.5, §11.6). The group coordinator
 * loads the partition from its log start to its end after start-up; when
 * start-up cuts offsets, the commits it loads are those of the kept part.
 * Both are replayed as `offsets` replays (replay.h): every intact batch of
 * the partition dir as it is now, and only the batches start-up keeps
 * (below the log end after recovery and outside every cut); each committed
 * offset whose value differs — reverted to an older commit, gone, or back
 * from a deletion the cut part held — is a kf_group_affected. */
#include "format/order.h"
#include "predict_internal.h"

#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/part_feed.h"
#include "kfsck/sys/part_reader.h"
#include "kfsck/replay.h"

typedef struct groups_feed {
    pp_part *p;
    kf_replay *now, *kept;
    int64_t log_start, end;
} groups_feed;

static bool kept_by_start_up(const groups_feed *g, const kf_batch *b)
{
    if (b->last_offset >= g->end)
        return false;
    for (size_t i = 0; i < g->p->ncuts; i++)
        if (b->last_offset >= g->p->cuts[i].from && b->base_offset < g->p->cuts[i].to)
            return false;
    return true;
}

static int groups_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    groups_feed *g = ctx;
    (void)r;
    if ((b->magic == 2 && b->count == 0) || b->last_offset < g->log_start)
        return KF_OK; /* empty batches kept by the cleaner; what the log start left behind */
    int rc = kf_replay_batch(g->now, b);
    if (rc == KF_OK && kept_by_start_up(g, b))
        rc = kf_replay_batch(g->kept, b);
    return rc;
}

static int cmp_key(const kf_offset_value *a, const kf_offset_value *b)
{
    int c = strcmp(a->group, b->group);
    return c ? c : kf_cmp_topic_partition(a->topic, a->partition, b->topic, b->partition);
}

static void add_change(pp_part *p, const kf_offset_value *now, const kf_offset_value *after)
{
    const kf_offset_value *k = now ? now : after;
    if (!pp_grow(p, &p->groups, &p->capgroups, p->ngroups, sizeof *p->groups))
        return;
    const char *group = pp_strf(p, "%s", k->group), *topic = pp_strf(p, "%s", k->topic);
    if (!group || !topic)
        return;
    p->groups[p->ngroups++] = (kf_group_affected){group, topic, k->partition, now != NULL, now ? now->offset : 0,
                                                  after != NULL, after ? after->offset : 0};
}

/* The two tables, both sorted by group, topic, partition, walked together. */
static void compare(pp_part *p, kf_replay *now, kf_replay *kept)
{
    const kf_offset_value **a, **b;
    size_t na = kf_replay_offsets(now, &a), nb = kf_replay_offsets(kept, &b), i = 0, j = 0;
    while ((i < na || j < nb) && p->rc == KF_OK) {
        int c = i == na ? 1 : j == nb ? -1 : cmp_key(a[i], b[j]);
        if (c < 0)
            add_change(p, a[i++], NULL);
        else if (c > 0)
            add_change(p, NULL, b[j++]);
        else {
            if (a[i]->offset != b[j]->offset)
                add_change(p, a[i], b[j]);
            i++;
            j++;
        }
    }
}

void pp_groups_affected(pp_part *p)
{
    kf_predict_partition *o = &p->out;
    bool cut = o->offsets_lost > 0;
    for (size_t i = 0; i < p->nacts && !cut; i++)
        cut = p->acts[i].action == KF_ACT_TRUNCATE_SEGMENT && p->acts[i].offsets_lost > 0;
    if (strcmp(p->topic, "__consumer_offsets") != 0 || p->state != KF_PST_ONLINE || !cut)
        return;
    const char *dirs[1] = {p->dir};
    kf_partition part;
    int rc = kf_partition_of_dirs(&part, dirs, 1, NULL, NULL);
    if (rc != KF_OK) {
        kf_partition_free(&part);
        if (rc == KF_ERR_NOMEM)
            p->rc = rc;
        return; /* listed once already: a dir that cannot be listed now is no forecast */
    }
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = p->max_batch_bytes;
    groups_feed g = {p, NULL, NULL, o->log_start_offset, o->log_end_offset_after};
    rc = kf_replay_new(&g.now, &ro);
    if (rc == KF_OK)
        rc = kf_replay_new(&g.kept, &ro);
    if (rc == KF_OK) {
        kf_replay_partition(g.now, p->partition);
        kf_replay_partition(g.kept, p->partition);
        kf_part_reader_opts po;
        kf_part_reader_opts_init(&po);
        po.max_batch_bytes = p->max_batch_bytes;
        rc = kf_part_feed(&part, &po, groups_batch, &g, NULL);
    }
    if (rc == KF_OK) {
        kf_replay_finish(g.now);
        kf_replay_finish(g.kept);
        compare(p, g.now, g.kept);
        o->groups_checked = true;
    } else if (p->rc == KF_OK) {
        p->rc = rc;
    }
    kf_replay_free(g.now);
    kf_replay_free(g.kept);
    kf_partition_free(&part);
    o->groups_affected = p->groups;
    o->n_groups_affected = p->ngroups;
}
