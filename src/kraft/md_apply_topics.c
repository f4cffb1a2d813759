/* md_apply_topics.c: topic and partition records applied to the image
 * (TopicsDelta/TopicDelta, with PartitionRegistration.merge for partition
 * changes): new topics and partitions, partition changes (replicas, ISR,
 * ELR, leader, directories), topic removal and ELR clearing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kraft/md_apply_internal.h"
#include "kfsck/sys/checkpoint.h"

/* An int32 array into *out (replacing it; an absent or null one empties
 * it). Its memory holds md_ints_cap(n) values (md_image.h), so a list that
 * grows within that is written where it is. */
static bool ints_from(const kf_kraft_array *a, kf_md_ints *out)
{
    uint32_t n = a->present ? a->n : 0;
    if (!n) {
        free(out->v);
        out->v = NULL;
        out->n = 0;
        return true;
    }
    if (!out->v || !out->n || n > md_ints_cap(out->n)) {
        int32_t *v = realloc(out->v, (size_t)md_ints_cap(n) * sizeof *v);
        if (!v)
            return false;
        out->v = v;
    }
    kf_kraft_ints_copy(a, out->v);
    out->n = n;
    return true;
}

static bool is_zero_uuid(const uint8_t u[16])
{
    for (int i = 0; i < 16; i++)
        if (u[i])
            return false;
    return true;
}

/* Kafka's defaultToMigrating: no directories, or all MIGRATING (the zero
 * uuid), become one MIGRATING per replica. */
static bool default_to_migrating(kf_md_uuids *d, uint32_t nreplicas)
{
    for (uint32_t i = 0; i < d->n; i++)
        if (!is_zero_uuid(d->v[i]))
            return true;
    if (d->n == nreplicas)
        return true; /* MIGRATING per replica already */
    free(d->v);
    d->v = nreplicas ? calloc(nreplicas, sizeof *d->v) : NULL;
    d->n = nreplicas;
    return !nreplicas || d->v;
}

/* int8 type + name bytes */
static uint32_t key_typed(uint8_t *k, size_t cap, int8_t type, const char *name)
{
    size_t n = strlen(name);
    if (n + 1 > cap)
        n = cap - 1;
    k[0] = (uint8_t)type;
    memcpy(k + 1, name, n);
    return (uint32_t)(n + 1);
}

/* Index of partition id in t->parts, or where it would go (*found false). */
static uint32_t part_find(const kf_md_topic *t, int32_t id, bool *found)
{
    /* partitions are numbered 0..n-1 almost always: try the direct slot */
    if (id >= 0 && (uint32_t)id < t->nparts && t->parts[id].id == id) {
        *found = true;
        return (uint32_t)id;
    }
    uint32_t lo = 0, hi = t->nparts;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->parts[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < t->nparts && t->parts[lo].id == id;
    return lo;
}

/* The cache slot of id, or NULL when there is no cache (out of memory). */
static size_t tslot_index(const uint8_t id[16])
{
    return (id[15] ^ ((uint32_t)id[14] << 8) ^ id[7]) & (MD_TOPIC_CACHE - 1);
}

static md_topic_slot *tslot(md_image *im, const uint8_t id[16])
{
    if (!im->tcache && !(im->tcache = calloc(MD_TOPIC_CACHE, sizeof *im->tcache)))
        return NULL;
    return &im->tcache[tslot_index(id)];
}

static bool uuid_eq(const uint8_t a[16], const uint8_t b[16])
{
    uint64_t x[2], y[2];
    memcpy(x, a, 16);
    memcpy(y, b, 16);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

/* The topic of an id, through the cache. */
static kf_md_topic *topic_get(md_image *im, const uint8_t id[16])
{
    md_topic_slot *sl = tslot(im, id);
    if (sl && sl->t && uuid_eq(sl->id, id))
        return sl->t;
    kf_md_topic *t = htab_get(&im->topics, id, 16);
    if (t && sl) {
        memcpy(sl->id, id, 16);
        sl->t = t;
    }
    return t;
}

/* Before the topic of id is freed or replaced. */
static void topic_forget(md_image *im, const uint8_t id[16])
{
    md_topic_slot *sl = im->tcache ? tslot(im, id) : NULL;
    if (sl && sl->t && uuid_eq(sl->id, id))
        sl->t = NULL;
}

/* The topic a partition or partition change record names. Kafka's
 * TopicsDelta hands a record of an unknown topic to a TopicDelta of no
 * image, whose replay then fails on that image. */
static kf_md_topic *topic_of(md_image *im, const uint8_t *id, md_why *why)
{
    kf_md_topic *t = id ? topic_get(im, id) : NULL;
    if (!t && id) {
        char b64[23];
        kf_uuid_to_b64(id, b64);
        md_set_msg(why, "no topic with id %s", b64);
        md_set_thrown(why, "java.lang.NullPointerException",
                      "Cannot invoke \"org.apache.kafka.image.TopicImage.partitions()\" because \"this.image\" is "
                      "null");
    }
    return t;
}

/* PartitionRegistration's checks of a record's directories and leader
 * recovery state, as Kafka throws them (the record named shortly). */
static void thrown_directories(md_why *why, const char *record, const uint8_t *topic_id, int32_t pid)
{
    char b64[23] = "?";
    if (topic_id)
        kf_uuid_to_b64(topic_id, b64);
    md_set_thrown(why, "org.apache.kafka.common.errors.InvalidReplicaDirectoriesException",
                  "The lengths for replicas and directories do not match: %s(partitionId=%d, topicId=%s, ...)", record,
                  (int)pid, b64);
}

static void thrown_recovery_state(md_why *why, int lrs)
{
    md_set_thrown(why, "java.lang.IllegalArgumentException", "Value %d is not a valid leader recovery state", lrs);
}

md_apply md_topic_record(md_image *im, const kf_kraft_topic *r, md_why *why)
{
    const uint8_t *id = r->topic_id;
    if (!id || !r->name.p)
        return MD_NOT_APPLIED;
    kf_md_topic *t = calloc(1, sizeof *t);
    if (!t || !(t->name = md_dupn(r->name.p, r->name.len))) {
        free(t);
        return nomem(why);
    }
    memcpy(t->id, id, 16);
    /* a second TopicRecord for an id starts it over with no partitions */
    topic_forget(im, id);
    kf_md_topic *old = htab_get(&im->topics, id, 16);
    if (old) {
        kf_md_topic *byname = htab_get(&im->topic_names, old->name, (uint32_t)strlen(old->name));
        if (byname == old)
            htab_del(&im->topic_names, old->name, (uint32_t)strlen(old->name));
    }
    if (!md_put(&im->topics, id, 16, t, (void (*)(void *))md_topic_free))
        return nomem(why);
    void **slot = htab_put(&im->topic_names, t->name, (uint32_t)strlen(t->name), NULL);
    if (!slot)
        return nomem(why);
    *slot = t;
    return MD_APPLIED;
}

md_apply md_partition_record(md_image *im, const kf_kraft_partition *r, int16_t version, md_why *why)
{
    const kf_kraft_partition_fields *l = &r->part;
    kf_md_topic *t = topic_of(im, l->topic_id, why);
    if (!t)
        return MD_NOT_APPLIED;
    int32_t pid = l->partition_id;
    kf_md_partition np = {0};
    np.id = pid;
    np.leader = l->leader;
    np.leader_epoch = r->leader_epoch;
    np.partition_epoch = r->partition_epoch;
    np.leader_recovery_state = l->leader_recovery_state;
    bool ok = ints_from(&l->replicas, &np.replicas) && ints_from(&l->isr, &np.isr) &&
              ints_from(&l->removing_replicas, &np.removing_replicas) &&
              ints_from(&l->adding_replicas, &np.adding_replicas) && ints_from(&l->elr, &np.elr) &&
              ints_from(&l->last_known_elr, &np.last_known_elr) && md_uuids_from(&l->directories, &np.directories);
    if (ok && np.directories.n && np.directories.n != np.replicas.n) {
        md_set_msg(why, "partition %d: %u directories for %u replicas", (int)pid, np.directories.n,
                np.replicas.n);
        thrown_directories(why, "PartitionRecord", l->topic_id, pid);
        md_partition_fields_free(&np);
        return MD_NOT_APPLIED;
    }
    if (np.leader_recovery_state != 0 && np.leader_recovery_state != 1) {
        md_set_msg(why, "partition %d: unknown leader recovery state %d", (int)pid, np.leader_recovery_state);
        thrown_recovery_state(why, np.leader_recovery_state);
        md_partition_fields_free(&np);
        return MD_NOT_APPLIED;
    }
    np.has_directories = version >= 1;
    ok = ok && default_to_migrating(&np.directories, np.replicas.n);
    if (!ok) {
        md_partition_fields_free(&np);
        return nomem(why);
    }
    bool found;
    uint32_t at = part_find(t, pid, &found);
    if (found) {
        md_partition_fields_free(&t->parts[at]);
        t->parts[at] = np;
        return MD_APPLIED;
    }
    if (t->nparts == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 4;
        kf_md_partition *p = realloc(t->parts, nc * sizeof *p);
        if (!p) {
            md_partition_fields_free(&np);
            return nomem(why);
        }
        t->parts = p;
        t->cap = nc;
    }
    memmove(&t->parts[at + 1], &t->parts[at], (t->nparts - at) * sizeof *t->parts);
    t->parts[at] = np;
    t->nparts++;
    return MD_APPLIED;
}

md_apply md_partition_change(md_image *im, const kf_kraft_partition_change *r, md_why *why)
{
    const kf_kraft_partition_fields *l = &r->part;
    kf_md_topic *t = topic_of(im, l->topic_id, why);
    if (!t)
        return MD_NOT_APPLIED;
    int32_t pid = l->partition_id;
    bool found;
    uint32_t at = part_find(t, pid, &found);
    if (!found) {
        md_set_msg(why, "topic %s has no partition %d", t->name, (int)pid);
        char b64[23];
        kf_uuid_to_b64(t->id, b64);
        md_set_thrown(why, "java.lang.RuntimeException", "Unable to find partition %s:%d", b64, (int)pid);
        return MD_NOT_APPLIED;
    }
    kf_md_partition *p = &t->parts[at];
    /* absent and null arrays change nothing */
    const kf_kraft_array *replicas = &l->replicas, *dirs = &l->directories;
    if (replicas->present && dirs->present && dirs->n && replicas->n != dirs->n) {
        md_set_msg(why, "%s-%d: %u directories for %u replicas", t->name, (int)pid, dirs->n, replicas->n);
        thrown_directories(why, "PartitionChangeRecord", t->id, pid);
        return MD_NOT_APPLIED;
    }
    int lrs = l->leader_recovery_state;
    if (lrs != -1 && lrs != 0 && lrs != 1) {
        md_set_msg(why, "%s-%d: unknown leader recovery state %lld", t->name, (int)pid, (long long)lrs);
        thrown_recovery_state(why, lrs);
        return MD_NOT_APPLIED;
    }
    bool ok = (!replicas->present || ints_from(replicas, &p->replicas)) &&
              (!l->isr.present || ints_from(&l->isr, &p->isr)) &&
              (!l->removing_replicas.present || ints_from(&l->removing_replicas, &p->removing_replicas)) &&
              (!l->adding_replicas.present || ints_from(&l->adding_replicas, &p->adding_replicas)) &&
              (!l->elr.present || ints_from(&l->elr, &p->elr)) &&
              (!l->last_known_elr.present || ints_from(&l->last_known_elr, &p->last_known_elr)) &&
              (!dirs->present || md_uuids_from(dirs, &p->directories));
    if (dirs->present)
        p->has_directories = true;
    if (dirs->present || replicas->present) /* else the directories are as they were normalised */
        ok = ok && default_to_migrating(&p->directories, p->replicas.n);
    if (!ok)
        return nomem(why);
    if (l->leader != -2) {
        p->leader = l->leader;
        p->leader_epoch++;
    }
    if (lrs != -1)
        p->leader_recovery_state = (int8_t)lrs;
    p->partition_epoch++;
    return MD_APPLIED;
}

void md_image_prefetch(const md_image *im, const kf_kraft_flat *f, const bool *use, size_t n)
{
    /* each step for the whole window before the next, so the misses of
     * one step overlap: the cache slots, the topics, the partitions, their
     * ISR lists (what a change reads and writes; only what is in the
     * cache already is followed) */
    enum { MAX = 64 };
    const void *at[MAX];
    if (!im->tcache || n > MAX)
        return;
    for (size_t i = 0; i < n; i++) {
        at[i] = NULL;
        if (use[i] && f[i].api_key == KF_MD_PARTITION_CHANGE) {
            at[i] = &im->tcache[tslot_index(f[i].u.partition_change.part.topic_id)];
            __builtin_prefetch(at[i]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const md_topic_slot *sl = at[i];
        at[i] = sl && sl->t && uuid_eq(sl->id, f[i].u.partition_change.part.topic_id) ? sl->t : NULL;
        if (at[i])
            __builtin_prefetch(at[i]);
    }
    for (size_t i = 0; i < n; i++) {
        const kf_md_topic *t = at[i];
        int32_t pid = t ? f[i].u.partition_change.part.partition_id : -1;
        at[i] = pid >= 0 && (uint32_t)pid < t->nparts ? &t->parts[pid] : NULL;
        if (at[i]) {
            __builtin_prefetch(at[i], 1);
            __builtin_prefetch((const char *)at[i] + sizeof(kf_md_partition) - 1, 1);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const kf_md_partition *p = at[i];
        if (p && p->isr.v)
            __builtin_prefetch(p->isr.v, 1);
    }
}

static void resource_del(md_image *im, int8_t type, const char *name)
{
    uint8_t k[1 + 32768];
    md_resource_free(htab_del(&im->resources, k, key_typed(k, sizeof k, type, name)));
}

md_apply md_remove_topic(md_image *im, md_fields *r, md_why *why)
{
    const uint8_t *id = fuuid(r, "topic_id");
    if (id)
        topic_forget(im, id);
    kf_md_topic *t = id ? htab_del(&im->topics, id, 16) : NULL;
    if (!t) {
        if (id) {
            char b64[23];
            kf_uuid_to_b64(id, b64);
            md_set_thrown(why, "java.lang.RuntimeException", "Unable to delete topic with id %s: no such topic found.",
                          b64);
        }
        return md_no_such(why, "topic", id);
    }
    if (htab_get(&im->topic_names, t->name, (uint32_t)strlen(t->name)) == t)
        htab_del(&im->topic_names, t->name, (uint32_t)strlen(t->name));
    resource_del(im, 2 /* TOPIC */, t->name);
    md_topic_free(t);
    return MD_APPLIED;
}

static bool clear_elr_topic(kf_md_topic *t)
{
    for (uint32_t i = 0; i < t->nparts; i++) {
        kf_md_partition *p = &t->parts[i];
        if (!p->elr.n && !p->last_known_elr.n)
            continue;
        free(p->elr.v);
        free(p->last_known_elr.v);
        p->elr = (kf_md_ints){0};
        p->last_known_elr = (kf_md_ints){0};
        p->partition_epoch++;
    }
    return true;
}

md_apply md_clear_elr(md_image *im, md_fields *r, md_why *why)
{
    const kf_dnode *name = fld(r, "topic_name");
    if (!name || name->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    if (name->len == 0) {
        HTAB_EACH(&im->topics, e)
        clear_elr_topic(e->val);
        return MD_APPLIED;
    }
    kf_md_topic *t = htab_get(&im->topic_names, name->p, name->len);
    if (!t) {
        int n = (int)(name->len > 200 ? 200 : name->len);
        md_set_msg(why, "cannot clear the ELR of topic %.*s: no such topic", n, (const char *)name->p);
        md_set_thrown(why, "java.lang.RuntimeException",
                      "Unable to clear elr for topic with name %.*s: no such topic found.", n, (const char *)name->p);
        return MD_NOT_APPLIED;
    }
    clear_elr_topic(t);
    return MD_APPLIED;
}
