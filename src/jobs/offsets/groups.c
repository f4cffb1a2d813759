/* groups.c: the groups model (include/kfsck/groups.h): every group id of a
 * replay with its kind, form, state, records and members. Each record is
 * decoded once for its group id; a group's kind is that of its latest
 * metadata record (else of its first record), and a group whose metadata
 * was deleted last is dead. */
#include "kfsck/groups.h"

#include "bytes/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

kf_group_kind kf_group_kind_of_type(int16_t t)
{
    if (t == KF_GREC_GROUP_METADATA)
        return KF_GROUP_CLASSIC;
    if ((t >= KF_GREC_CONSUMER_GROUP_METADATA && t <= KF_GREC_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT) ||
        t == KF_GREC_CONSUMER_GROUP_REGULAR_EXPRESSION)
        return KF_GROUP_CONSUMER;
    if (t >= KF_GREC_SHARE_GROUP_PARTITION_METADATA && t <= KF_GREC_SHARE_GROUP_STATE_PARTITION_METADATA)
        return KF_GROUP_SHARE;
    if (t >= KF_GREC_STREAMS_GROUP_METADATA && t <= KF_GREC_STREAMS_GROUP_TARGET_ASSIGNMENT_RESOLVED_TOPIC_IDS)
        return KF_GROUP_STREAMS;
    return KF_GROUP_NO_KIND;
}

kf_group_role kf_group_role_of_type(int16_t t)
{
    switch (t) {
    case KF_GREC_CONSUMER_GROUP_METADATA:
    case KF_GREC_SHARE_GROUP_METADATA:
    case KF_GREC_STREAMS_GROUP_METADATA: return KF_GROLE_METADATA;
    case KF_GREC_CONSUMER_GROUP_PARTITION_METADATA:
    case KF_GREC_SHARE_GROUP_PARTITION_METADATA:
    case KF_GREC_STREAMS_GROUP_PARTITION_METADATA: return KF_GROLE_PARTITION_METADATA;
    case KF_GREC_CONSUMER_GROUP_MEMBER_METADATA:
    case KF_GREC_SHARE_GROUP_MEMBER_METADATA:
    case KF_GREC_STREAMS_GROUP_MEMBER_METADATA: return KF_GROLE_MEMBER;
    case KF_GREC_CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA:
    case KF_GREC_SHARE_GROUP_TARGET_ASSIGNMENT_METADATA:
    case KF_GREC_STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA: return KF_GROLE_TARGET_METADATA;
    case KF_GREC_CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER:
    case KF_GREC_SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER:
    case KF_GREC_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER: return KF_GROLE_TARGET_MEMBER;
    case KF_GREC_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT:
    case KF_GREC_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT:
    case KF_GREC_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT: return KF_GROLE_CURRENT_MEMBER;
    case KF_GREC_CONSUMER_GROUP_REGULAR_EXPRESSION: return KF_GROLE_REGULAR_EXPRESSION;
    case KF_GREC_STREAMS_GROUP_TOPOLOGY: return KF_GROLE_TOPOLOGY;
    default: return KF_GROLE_OTHER;
    }
}

const char *kf_group_kind_name(kf_group_kind k)
{
    static const char *const names[] = {"classic", "consumer", "share", "streams"};
    return k >= KF_GROUP_CLASSIC && k <= KF_GROUP_STREAMS ? names[k] : NULL;
}

int kf_group_record_decode(const kf_group_record *gr, kf_dtree *t, kf_coord_record *cr, kf_group_key *k)
{
    kf_dtree_reset(t);
    int rc = kf_coord_decode(KF_COORD_OFFSETS, gr->key, (int32_t)gr->key_len, gr->value, (int32_t)gr->value_len, t,
                             cr);
    if (rc != KF_OK)
        return rc; /* the last error says why */
    if (!cr->key_ok || !cr->value_ok)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "the group record at offset %lld of partition %d does not decode",
                            (long long)gr->source_offset, (int)gr->source_partition);
    const kf_dnode *key = &t->nodes[cr->key_root];
    const kf_dnode *g = kf_dnode_field(t, key, cr->key_type == KF_GREC_GROUP_METADATA ? "group" : "group_id");
    const kf_dnode *m = kf_dnode_field(t, key, "member_id");
    if (!g || g->kind != KF_V_STRING)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "the group record at offset %lld of partition %d has no group id",
                            (long long)gr->source_offset, (int)gr->source_partition);
    k->group = (const char *)g->p;
    k->group_len = g->len;
    k->member = m && m->kind == KF_V_STRING ? (const char *)m->p : NULL;
    k->member_len = m && m->kind == KF_V_STRING ? m->len : 0;
    return KF_OK;
}

/* ---- building ---------------------------------------------------------------- */

typedef struct group_ref {
    char *group;
    const kf_group_record *rec;
    int16_t type;
} group_ref;

struct kf_groups {
    kf_group *v;
    size_t n;
    group_ref *refs;                /* every decodable record, by group then log order */
    size_t nrefs;
    const kf_group_record **recs;   /* refs' records in the same order: each group's a run of it */
    kf_dtree t;
};

static int cmp_ref(const void *a, const void *b)
{
    const group_ref *x = a, *y = b;
    int c = strcmp(x->group, y->group);
    if (c)
        return c;
    return x->rec->source_offset < y->rec->source_offset ? -1 : x->rec->source_offset > y->rec->source_offset;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

typedef struct member_ref {
    const char *member; /* points into the record's key bytes */
    uint32_t mlen;
    const kf_group_record *rec;
} member_ref;

static int cmp_member_ref(const void *a, const void *b)
{
    const member_ref *x = a, *y = b;
    if (x->mlen != y->mlen)
        return x->mlen < y->mlen ? -1 : 1;
    return memcmp(x->member, y->member, x->mlen);
}

static const kf_group_record *member_find(const member_ref *v, size_t n, const kf_group_key *k)
{
    member_ref key = {k->member, k->member_len, NULL};
    const member_ref *m = bsearch(&key, v, n, sizeof *v, cmp_member_ref);
    return m ? m->rec : NULL;
}

/* A consumer, share or streams group's epochs: its metadata record's and
 * its target assignment metadata record's (the latest of each). */
static void find_epochs(kf_groups *G, kf_group *g)
{
    g->group_epoch = g->assignment_epoch = -1;
    kf_coord_record cr;
    kf_group_key k;
    for (size_t i = 0; i < g->nrecords; i++) {
        if (kf_group_record_decode(g->records[i], &G->t, &cr, &k) != KF_OK)
            continue;
        const kf_dnode *v = &G->t.nodes[cr.value_root];
        kf_group_role role = kf_group_role_of_type(cr.key_type);
        if (role == KF_GROLE_METADATA)
            g->group_epoch = kf_dnode_int(&G->t, v, "epoch", -1);
        else if (role == KF_GROLE_TARGET_METADATA)
            g->assignment_epoch = kf_dnode_int(&G->t, v, "assignment_epoch", -1);
    }
}

/* A consumer, share or streams group's members: each member-metadata
 * record of its kind, with the current and target assignment records of
 * the same member id; the state is stable when any member record (of any
 * kind) decodes. KF_OK or KF_ERR_NOMEM. */
static int find_members(kf_groups *G, kf_group *g)
{
    member_ref *cur = malloc((g->nrecords + 1) * sizeof *cur), *tgt = malloc((g->nrecords + 1) * sizeof *tgt);
    kf_group_member *ms = malloc((g->nrecords + 1) * sizeof *ms);
    if (!cur || !tgt || !ms) {
        free(cur);
        free(tgt);
        free(ms);
        return kf_error_nomem();
    }
    size_t ncur = 0, ntgt = 0, nmeta = 0;
    kf_coord_record cr;
    kf_group_key k;
    for (size_t i = 0; i < g->nrecords; i++) {
        if (kf_group_record_decode(g->records[i], &G->t, &cr, &k) != KF_OK)
            continue;
        kf_group_role role = kf_group_role_of_type(cr.key_type);
        nmeta += role == KF_GROLE_MEMBER;
        if (!k.member || kf_group_kind_of_type(cr.key_type) != g->kind)
            continue;
        if (role == KF_GROLE_CURRENT_MEMBER)
            cur[ncur++] = (member_ref){k.member, k.member_len, g->records[i]};
        else if (role == KF_GROLE_TARGET_MEMBER)
            tgt[ntgt++] = (member_ref){k.member, k.member_len, g->records[i]};
    }
    qsort(cur, ncur, sizeof *cur, cmp_member_ref);
    qsort(tgt, ntgt, sizeof *tgt, cmp_member_ref);
    size_t n = 0;
    for (size_t i = 0; i < g->nrecords; i++) {
        if (kf_group_record_decode(g->records[i], &G->t, &cr, &k) != KF_OK ||
            kf_group_role_of_type(cr.key_type) != KF_GROLE_MEMBER || kf_group_kind_of_type(cr.key_type) != g->kind)
            continue;
        ms[n++] = (kf_group_member){g->records[i], member_find(cur, ncur, &k), member_find(tgt, ntgt, &k)};
    }
    free(cur);
    free(tgt);
    g->members = ms;
    g->nmembers = n;
    g->state = nmeta ? KF_GROUP_STABLE : KF_GROUP_EMPTY;
    return KF_OK;
}

/* A classic group's state from its group-metadata record: stable with
 * members. false when the record does not decode. */
static bool classic_state(kf_groups *G, kf_group *g)
{
    kf_coord_record cr;
    kf_group_key k;
    if (kf_group_record_decode(g->metadata, &G->t, &cr, &k) != KF_OK)
        return false;
    const kf_dnode *members = kf_dnode_field(&G->t, &G->t.nodes[cr.value_root], "members");
    g->state = members && members->n_children ? KF_GROUP_STABLE : KF_GROUP_EMPTY;
    return true;
}

/* Kind, form and state of group g from its records and r's tombstones. */
static int describe(kf_groups *G, kf_replay *r, kf_group *g)
{
    int kind = KF_GROUP_NO_KIND;
    int64_t latest = -1;
    const kf_group_record *classic = NULL;
    for (size_t i = 0; i < g->nrecords; i++) {
        const group_ref *ref = &G->refs[(size_t)(g->records - G->recs) + i];
        int16_t ty = ref->type;
        bool metadata = ty == KF_GREC_GROUP_METADATA || kf_group_role_of_type(ty) == KF_GROLE_METADATA;
        if (metadata && ref->rec->source_offset >= latest) {
            latest = ref->rec->source_offset;
            kind = kf_group_kind_of_type(ty);
            classic = ty == KF_GREC_GROUP_METADATA ? ref->rec : NULL;
        }
        if (kind < 0)
            kind = kf_group_kind_of_type(ty);
    }
    /* deleted: its last metadata record is a tombstone and none lives */
    int16_t dead_type = latest < 0 ? kf_replay_dead_group_type(r, g->id) : -1;
    g->kind = (kf_group_kind)kind;
    if (dead_type < 0 && kind == KF_GROUP_CLASSIC && classic) {
        g->metadata = classic;
        g->form = KF_GROUP_FROM_METADATA;
        if (classic_state(G, g))
            return KF_OK;
        g->metadata = NULL;
    } else if (dead_type < 0 && kind > KF_GROUP_CLASSIC) {
        g->form = KF_GROUP_FROM_RECORDS;
        find_epochs(G, g);
        return find_members(G, g);
    } else if (dead_type > KF_GREC_GROUP_METADATA) {
        g->kind = kf_group_kind_of_type(dead_type);
        g->form = KF_GROUP_DELETED;
        g->state = KF_GROUP_DEAD;
        return KF_OK;
    }
    /* known only from committed offsets, or a deleted classic group */
    g->kind = KF_GROUP_CLASSIC;
    g->form = KF_GROUP_BARE;
    g->state = dead_type == KF_GREC_GROUP_METADATA ? KF_GROUP_DEAD : KF_GROUP_EMPTY;
    return KF_OK;
}

/* Every group record decoded once for its group id, sorted by group then
 * log order, into G->refs and G->recs. */
static int collect_refs(kf_groups *G, kf_replay *r)
{
    const kf_group_record **recs;
    size_t nrec = kf_replay_group_records(r, &recs);
    G->refs = malloc((nrec + 1) * sizeof *G->refs);
    G->recs = malloc((nrec + 1) * sizeof *G->recs);
    if (!G->refs || !G->recs)
        return kf_error_nomem();
    kf_coord_record cr;
    kf_group_key k;
    for (size_t i = 0; i < nrec; i++) {
        if (kf_group_record_decode(recs[i], &G->t, &cr, &k) != KF_OK)
            continue;
        char *name = strndup(k.group, k.group_len);
        if (!name)
            return kf_error_nomem();
        G->refs[G->nrefs++] = (group_ref){name, recs[i], cr.key_type};
    }
    qsort(G->refs, G->nrefs, sizeof *G->refs, cmp_ref);
    for (size_t i = 0; i < G->nrefs; i++)
        G->recs[i] = G->refs[i].rec;
    return KF_OK;
}

/* Every group id, sorted, each once: from group records, offsets, dead
 * groups and the groups an offset commit created. A deleted group (its
 * metadata tombstoned) is listed even when its offsets are gone too; so is
 * a group known only from offsets whose offsets were all deleted, or whose
 * only commit was transactional and aborted: the coordinator created it
 * when it replayed the commit and keeps it, empty, until its cleanup writes
 * the group's tombstone (docs/formats.md §11). */
static int build_groups(kf_groups *G, kf_replay *r)
{
    const kf_offset_value **offs;
    size_t noff = kf_replay_offsets(r, &offs);
    const char *const *dead;
    size_t ndead = kf_replay_dead_groups(r, &dead);
    const char *const *simple;
    size_t nsimple = kf_replay_offset_groups(r, &simple);
    size_t nids = 0;
    size_t most = G->nrefs + noff + ndead + nsimple + 1;
    const char **ids = malloc(most * sizeof *ids);
    G->v = calloc(most, sizeof *G->v);
    if (!ids || !G->v) {
        free(ids);
        return kf_error_nomem();
    }
    for (size_t i = 0; i < G->nrefs; i++)
        ids[nids++] = G->refs[i].group;
    for (size_t i = 0; i < noff; i++) /* sorted by group: each group once */
        if (!i || strcmp(offs[i]->group, offs[i - 1]->group))
            ids[nids++] = offs[i]->group;
    for (size_t i = 0; i < ndead; i++)
        ids[nids++] = dead[i];
    for (size_t i = 0; i < nsimple; i++)
        ids[nids++] = simple[i];
    qsort(ids, nids, sizeof *ids, cmp_name);
    int rc = KF_OK;
    size_t j = 0; /* walks refs, sorted the same way as ids */
    for (size_t i = 0; i < nids && rc == KF_OK; i++) {
        if (i && !strcmp(ids[i], ids[i - 1]))
            continue;
        kf_group *g = &G->v[G->n++];
        g->id = ids[i];
        while (j < G->nrefs && strcmp(G->refs[j].group, g->id) < 0)
            j++;
        g->records = G->recs + j;
        for (; j < G->nrefs && !strcmp(G->refs[j].group, g->id); j++)
            g->nrecords++;
        rc = describe(G, r, g);
    }
    free(ids);
    return rc;
}

int kf_groups_build(kf_groups **out, kf_replay *r)
{
    *out = NULL;
    kf_groups *G = calloc(1, sizeof *G);
    if (!G || collect_refs(G, r) != KF_OK || build_groups(G, r) != KF_OK) {
        kf_groups_free(G);
        return kf_error_nomem();
    }
    kf_dtree_free(&G->t);
    *out = G;
    return KF_OK;
}

void kf_groups_free(kf_groups *G)
{
    if (!G)
        return;
    for (size_t i = 0; i < G->n; i++)
        free((void *)G->v[i].members);
    free(G->v);
    for (size_t i = 0; i < G->nrefs; i++)
        free(G->refs[i].group);
    free(G->refs);
    free(G->recs);
    kf_dtree_free(&G->t);
    free(G);
}

size_t kf_groups_list(const kf_groups *G, const kf_group **out)
{
    *out = G->v;
    return G->n;
}

int kf_group_topic_names(const kf_group *g, const kf_topic_names *under, kf_topic_names **out)
{
    int rc = kf_topic_names_new(out, under);
    kf_dtree t = {0};
    kf_coord_record cr;
    kf_group_key k;
    for (size_t i = 0; i < g->nrecords && rc == KF_OK; i++) {
        if (kf_group_record_decode(g->records[i], &t, &cr, &k) != KF_OK ||
            kf_group_role_of_type(cr.key_type) != KF_GROLE_PARTITION_METADATA)
            continue;
        const kf_dnode *ts = kf_dnode_field(&t, &t.nodes[cr.value_root], "topics");
        for (uint32_t c = ts && ts->kind == KF_V_ARRAY ? ts->first_child : KF_DNODE_NONE;
             c != KF_DNODE_NONE && rc == KF_OK; c = t.nodes[c].next) {
            const kf_dnode *id = kf_dnode_field(&t, &t.nodes[c], "topic_id");
            const kf_dnode *nm = kf_dnode_field(&t, &t.nodes[c], "topic_name");
            if (id && nm && id->kind == KF_V_UUID && nm->kind == KF_V_STRING)
                rc = kf_topic_names_add(*out, id->p, (const char *)nm->p, nm->len);
        }
    }
    kf_dtree_free(&t);
    if (rc != KF_OK) {
        kf_topic_names_free(*out);
        *out = NULL;
    }
    return rc;
}
