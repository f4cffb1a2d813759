/* offset_expiry.c: the offset-expiration condition of a group, by the
 * group coordinator's rule (docs/formats.md §11.10; Kafka's
 * ClassicGroup/ConsumerGroup.offsetExpirationCondition,
 * OffsetExpirationConditionImpl and OffsetMetadataManager
 * .cleanupExpiredOffsets, KIP-211):
 *   - a classic group with a protocol type: empty, its offsets expire a
 *     retention after it became empty (current_state_timestamp; without
 *     one, after each commit); with members of protocol type "consumer"
 *     whose subscriptions decode, the offsets of topics no member
 *     subscribes to expire a retention after their commit; any other
 *     classic group with members expires nothing;
 *   - a classic group without a protocol type (a standalone consumer, and a
 *     group known only from its commits): a retention after each commit;
 *   - consumer and streams groups: a retention after each commit, except
 *     the topics their members subscribe to;
 *   - a value with its own expire timestamp (v1) expires then instead.
 * Share groups commit no offsets. */
#include "jobs/offsets/offset_expiry.h"

#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/coord.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Add every string of the array node arr to e->subscribed. */
static bool add_topics(offset_expiry *e, const kf_dtree *t, const kf_dnode *arr)
{
    if (!arr || arr->kind != KF_V_ARRAY)
        return true;
    for (uint32_t c = arr->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next) {
        const kf_dnode *s = &t->nodes[c];
        if (s->kind != KF_V_STRING)
            continue;
        char **n = realloc(e->subscribed, (e->nsubscribed + 1) * sizeof *n);
        if (!n)
            return false;
        e->subscribed = n;
        char *copy = malloc((size_t)s->len + 1);
        if (!copy)
            return false;
        memcpy(copy, s->p, s->len);
        copy[s->len] = 0;
        e->subscribed[e->nsubscribed++] = copy;
    }
    return true;
}

static const kf_dnode *value_field(const kf_dtree *t, const kf_coord_record *cr, const char *name)
{
    return cr->value_root == KF_DNODE_NONE ? NULL : kf_dnode_field(t, &t->nodes[cr->value_root], name);
}

/* A classic group from its group-metadata record. */
static bool classic(const kf_group *g, offset_expiry *e, kf_dtree *t)
{
    kf_coord_record cr;
    kf_group_key k;
    e->base = EXPIRY_FROM_COMMIT;
    if (!g->metadata || kf_group_record_decode(g->metadata, t, &cr, &k) != KF_OK)
        return true; /* known only from its commits: a standalone consumer */
    const kf_dnode *pt = value_field(t, &cr, "protocol_type");
    if (!pt || pt->kind != KF_V_STRING || pt->len == 0)
        return true; /* no protocol type: a standalone consumer */
    const kf_dnode *members = value_field(t, &cr, "members");
    if (!members || members->kind != KF_V_ARRAY || members->n_children == 0) {
        e->base = EXPIRY_FROM_EMPTY;
        int64_t cst = kf_dnode_int(t, &t->nodes[cr.value_root], "current_state_timestamp", -1);
        e->has_state_time = cst >= 0;
        e->state_time = cst;
        return true;
    }
    if (pt->len != 8 || memcmp(pt->p, "consumer", 8) != 0) {
        e->base = EXPIRY_NEVER;
        return true;
    }
    for (uint32_t m = members->first_child; m != KF_DNODE_NONE; m = t->nodes[m].next) {
        const kf_dnode *sub = kf_dnode_field(t, &t->nodes[m], "subscription");
        if (!sub || sub->kind != KF_V_STRUCT) {
            e->base = EXPIRY_NEVER; /* subscriptions unknown to the coordinator too */
            return true;
        }
        if (!add_topics(e, t, kf_dnode_field(t, sub, "topics")))
            return false;
    }
    return true;
}

/* The record type: the big-endian int16 that starts the key. */
static int16_t key_type(const kf_group_record *r)
{
    return r->key_len >= 2 ? (int16_t)(r->key[0] << 8 | r->key[1]) : -1;
}

/* A consumer or streams group: its members' subscribed topics (and the
 * topics its regular expressions resolved to). */
static bool modern(const kf_group *g, offset_expiry *e, kf_dtree *t)
{
    e->base = EXPIRY_FROM_COMMIT;
    kf_coord_record cr;
    kf_group_key k;
    for (size_t i = 0; i < g->nmembers; i++) {
        if (!g->members[i].metadata || kf_group_record_decode(g->members[i].metadata, t, &cr, &k) != KF_OK)
            continue;
        const kf_dnode *names = value_field(t, &cr, "subscribed_topic_names");
        if (!names && g->kind == KF_GROUP_STREAMS) {
            e->base = EXPIRY_NEVER; /* a member's topics are in its topology, not read here */
            return true;
        }
        if (!add_topics(e, t, names))
            return false;
    }
    for (size_t i = 0; g->nmembers && i < g->nrecords; i++) {
        if (kf_group_role_of_type(key_type(g->records[i])) != KF_GROLE_REGULAR_EXPRESSION ||
            kf_group_record_decode(g->records[i], t, &cr, &k) != KF_OK)
            continue;
        if (!add_topics(e, t, value_field(t, &cr, "topics")))
            return false;
    }
    return true;
}

bool offset_expiry_of(const kf_group *g, offset_expiry *e)
{
    memset(e, 0, sizeof *e);
    e->base = EXPIRY_FROM_COMMIT;
    if (!g || g->form == KF_GROUP_BARE || g->form == KF_GROUP_DELETED)
        return true;
    kf_dtree t = {0};
    bool ok = true;
    if (g->kind == KF_GROUP_CLASSIC)
        ok = classic(g, e, &t);
    else if (g->kind == KF_GROUP_CONSUMER || g->kind == KF_GROUP_STREAMS)
        ok = modern(g, e, &t);
    else
        e->base = EXPIRY_NEVER; /* share groups: no offset expiration */
    kf_dtree_free(&t);
    if (ok && e->nsubscribed)
        qsort(e->subscribed, e->nsubscribed, sizeof *e->subscribed, cmp_str);
    return ok;
}

void offset_expiry_free(offset_expiry *e)
{
    for (size_t i = 0; i < e->nsubscribed; i++)
        free(e->subscribed[i]);
    free(e->subscribed);
    memset(e, 0, sizeof *e);
}

bool offset_expiry_at(const offset_expiry *e, const char *topic, int64_t commit_ms, int64_t expire_ms,
                      int64_t retention_ms, int64_t *at)
{
    if (e->base == EXPIRY_NEVER)
        return false;
    if (e->nsubscribed && bsearch(&topic, e->subscribed, e->nsubscribed, sizeof *e->subscribed, cmp_str))
        return false;
    if (expire_ms >= 0) { /* a v1 value's own expire timestamp */
        *at = expire_ms;
        return true;
    }
    int64_t base = e->base == EXPIRY_FROM_EMPTY && e->has_state_time ? e->state_time : commit_ms;
    *at = base > INT64_MAX - retention_ms ? INT64_MAX : base + retention_ms;
    return true;
}
