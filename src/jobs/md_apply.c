/* md_apply.c: applying decoded KRaft metadata records to the cluster image
 * (md_image.h) by the rules of Kafka's image deltas (kraft-metadata.md §5;
 * ClusterDelta, TopicsDelta/TopicDelta with PartitionRegistration.merge,
 * ConfigurationsDelta, FeaturesDelta, ClientQuotasDelta, AclsDelta,
 * ScramDelta, DelegationTokenDelta, ProducerIdsDelta).
 *
 * Records are read from the decoder's tree by field name. A record Kafka
 * would refuse to replay (a change to an unknown partition, a broker epoch
 * that does not match, ...) changes nothing and is reported by the caller
 * with the reason written here. */
#include "jobs/md_image.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/checkpoint.h"
#include "kfsck/kraft.h"

/* ---- small helpers ------------------------------------------------------------ */

static void set_msg(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || !msglen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

/* Reading a record's fields. */
typedef struct rd {
    const kf_dtree *t;
    const kf_dnode *st;
    bool has_mask;
    uint64_t mask;             /* name_bit of every child's name */
} rd;

/* A bit for a field name from its first two characters: a name whose bit is
 * not in the record's mask is not in the record. */
static uint64_t name_bit(const char *n) { return (uint64_t)1 << (((unsigned char)n[0] * 31u + (unsigned char)(n[0] ? n[1] : 0)) & 63); }

/* A field of the record by name. This lookup runs a dozen times per record,
 * for fields that are often absent: absent ones mostly stop at the mask
 * (without it, replaying 1 M records takes 4.5 % more instructions). */
static const kf_dnode *fld(rd *r, const char *name)
{
    if (!r->has_mask) {
        const kf_dnode *nodes = r->t->nodes;
        for (uint32_t c = r->st->first_child; c != KF_DNODE_NONE && c < r->t->n; c = nodes[c].next)
            if (nodes[c].name)
                r->mask |= name_bit(nodes[c].name);
        r->has_mask = true;
    }
    return r->mask & name_bit(name) ? kf_dnode_field(r->t, r->st, name) : NULL;
}

static int64_t fint(rd *r, const char *name, int64_t def)
{
    const kf_dnode *n = fld(r, name);
    return n && (n->kind == KF_V_INT || n->kind == KF_V_BOOL) ? n->i : def;
}

static const uint8_t *fuuid(rd *r, const char *name)
{
    const kf_dnode *n = fld(r, name);
    return n && n->kind == KF_V_UUID ? n->p : NULL;
}

/* A string field: false when absent; *out NULL for a null string. */
static bool fstr(rd *r, const char *name, char **out, bool *nomem)
{
    const kf_dnode *n = fld(r, name);
    *out = NULL;
    if (!n)
        return false;
    if (n->kind == KF_V_NULL)
        return true;
    if (n->kind != KF_V_STRING && n->kind != KF_V_BYTES)
        return false;
    if (!(*out = md_dupn(n->p, n->len)))
        *nomem = true;
    return true;
}

static bool str_eq(const kf_dnode *n, const char *s)
{
    size_t k = strlen(s);
    return n && n->kind == KF_V_STRING && n->len == k && memcmp(n->p, s, k) == 0;
}

/* An int32 array node into *out (replacing it; its memory is reused when
 * the new list is no longer). */
static bool ints_from(const kf_dtree *t, const kf_dnode *arr, kf_md_ints *out)
{
    uint32_t n = arr ? arr->n_children : 0;
    if (n && n <= out->n && out->v) {
        uint32_t k = 0;
        for (uint32_t c = arr->first_child; c != KF_DNODE_NONE && k < n; c = t->nodes[c].next)
            out->v[k++] = (int32_t)t->nodes[c].i;
        out->n = k;
        return true;
    }
    if (!n) {
        free(out->v);
        out->v = NULL;
        out->n = 0;
        return true;
    }
    int32_t *v = realloc(out->v, n * sizeof *v);
    if (!v)
        return false;
    uint32_t k = 0;
    for (uint32_t c = arr->first_child; c != KF_DNODE_NONE && k < n; c = t->nodes[c].next)
        v[k++] = (int32_t)t->nodes[c].i;
    out->v = v;
    out->n = k;
    return true;
}

static bool uuids_from(const kf_dtree *t, const kf_dnode *arr, kf_md_uuids *out)
{
    uint32_t n = arr ? arr->n_children : 0;
    uint8_t(*v)[16] = n ? malloc(n * sizeof *v) : NULL;
    if (n && !v)
        return false;
    uint32_t k = 0;
    for (uint32_t c = arr ? arr->first_child : KF_DNODE_NONE; c != KF_DNODE_NONE && k < n; c = t->nodes[c].next)
        if (t->nodes[c].kind == KF_V_UUID)
            memcpy(v[k++], t->nodes[c].p, 16);
    free(out->v);
    out->v = v;
    out->n = k;
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

static bool listeners_from(const kf_dtree *t, const kf_dnode *arr, kf_md_listener **out, uint32_t *nout)
{
    uint32_t n = arr && arr->kind == KF_V_ARRAY ? arr->n_children : 0;
    kf_md_listener *l = n ? calloc(n, sizeof *l) : NULL;
    if (n && !l)
        return false;
    uint32_t k = 0;
    bool nomem = false;
    for (uint32_t c = n ? arr->first_child : KF_DNODE_NONE; c != KF_DNODE_NONE && k < n; c = t->nodes[c].next) {
        rd e = {.t = t, .st = &t->nodes[c]};
        fstr(&e, "name", &l[k].name, &nomem);
        fstr(&e, "host", &l[k].host, &nomem);
        l[k].port = (int32_t)fint(&e, "port", 0);
        l[k].security_protocol = (int16_t)fint(&e, "security_protocol", -1);
        k++;
    }
    if (nomem) {
        md_listeners_free(l, k);
        return false;
    }
    *out = l;
    *nout = k;
    return true;
}

static bool ranges_from(const kf_dtree *t, const kf_dnode *arr, kf_md_version_range **out, uint32_t *nout)
{
    uint32_t n = arr && arr->kind == KF_V_ARRAY ? arr->n_children : 0;
    kf_md_version_range *r = n ? calloc(n, sizeof *r) : NULL;
    if (n && !r)
        return false;
    uint32_t k = 0;
    bool nomem = false;
    for (uint32_t c = n ? arr->first_child : KF_DNODE_NONE; c != KF_DNODE_NONE && k < n; c = t->nodes[c].next) {
        rd e = {.t = t, .st = &t->nodes[c]};
        fstr(&e, "name", &r[k].name, &nomem);
        r[k].min = (int16_t)fint(&e, "min_supported_version", 0);
        r[k].max = (int16_t)fint(&e, "max_supported_version", 0);
        k++;
    }
    if (nomem) {
        md_ranges_free(r, k);
        return false;
    }
    *out = r;
    *nout = k;
    return true;
}

/* ---- table helpers ------------------------------------------------------------------ */

static uint32_t key_i32(uint8_t k[4], int32_t v)
{
    memcpy(k, &v, 4);
    return 4;
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

/* ---- cluster: brokers and controllers ------------------------------------------------- */

static md_apply nomem(char *msg, size_t msglen)
{
    set_msg(msg, msglen, "out of memory");
    return MD_NOMEM;
}

static md_apply register_broker(md_image *im, rd *r, int16_t version, char *msg, size_t msglen)
{
    kf_md_broker *b = calloc(1, sizeof *b);
    if (!b)
        return nomem(msg, msglen);
    bool nm = false;
    b->id = (int32_t)fint(r, "broker_id", -1);
    b->epoch = fint(r, "broker_epoch", -1);
    const uint8_t *inc = fuuid(r, "incarnation_id");
    if (inc)
        memcpy(b->incarnation_id, inc, 16);
    b->is_migrating_zk_broker = fint(r, "is_migrating_zk_broker", 0) != 0;
    b->fenced = fint(r, "fenced", 1) != 0;
    b->in_controlled_shutdown = fint(r, "in_controlled_shutdown", 0) != 0;
    fstr(r, "rack", &b->rack, &nm);
    bool ok = !nm && listeners_from(r->t, fld(r, "end_points"), &b->listeners, &b->nlisteners) &&
              ranges_from(r->t, fld(r, "features"), &b->features, &b->nfeatures) &&
              uuids_from(r->t, fld(r, "log_dirs"), &b->log_dirs);
    const kf_dnode *cord = fld(r, "cordoned_log_dirs");
    if (ok && version >= 4 && cord && cord->kind == KF_V_ARRAY) {
        b->has_cordoned = true;
        ok = uuids_from(r->t, cord, &b->cordoned_log_dirs);
    }
    uint8_t k[4];
    if (!ok || !md_put(&im->brokers, k, key_i32(k, b->id), b, (void (*)(void *))md_broker_free)) {
        if (!ok)
            md_broker_free(b);
        return nomem(msg, msglen);
    }
    return MD_APPLIED;
}

/* The broker a fence/unfence/change record names, when it is registered with
 * that epoch (ClusterDelta.getBrokerOrThrow). */
static kf_md_broker *broker_checked(md_image *im, int32_t id, int64_t epoch, const char *what, char *msg,
                                    size_t msglen)
{
    uint8_t k[4];
    kf_md_broker *b = htab_get(&im->brokers, k, key_i32(k, id));
    if (!b) {
        set_msg(msg, msglen, "cannot %s broker %d: it is not registered", what, (int)id);
        return NULL;
    }
    if (b->epoch != epoch) {
        set_msg(msg, msglen, "cannot %s broker %d: epoch %lld does not match its registration's %lld", what, (int)id,
                (long long)epoch, (long long)b->epoch);
        return NULL;
    }
    return b;
}

static md_apply broker_change(md_image *im, rd *r, int16_t key, char *msg, size_t msglen)
{
    if (key == KF_MD_FENCE_BROKER || key == KF_MD_UNFENCE_BROKER) {
        int32_t id = (int32_t)fint(r, "id", -1);
        kf_md_broker *b = broker_checked(im, id, fint(r, "epoch", -1), key == KF_MD_FENCE_BROKER ? "fence" : "unfence",
                                         msg, msglen);
        if (!b)
            return MD_NOT_APPLIED;
        b->fenced = key == KF_MD_FENCE_BROKER;
        return MD_APPLIED;
    }
    int32_t id = (int32_t)fint(r, "broker_id", -1);
    kf_md_broker *b = broker_checked(im, id, fint(r, "broker_epoch", -1), "change", msg, msglen);
    if (!b)
        return MD_NOT_APPLIED;
    int64_t fenced = fint(r, "fenced", 0), cs = fint(r, "in_controlled_shutdown", 0);
    if (fenced != 0 && fenced != 1 && fenced != -1) {
        set_msg(msg, msglen, "broker %d: unknown value %lld for fenced", (int)id, (long long)fenced);
        return MD_NOT_APPLIED;
    }
    if (cs != 0 && cs != 1) {
        set_msg(msg, msglen, "broker %d: unknown value %lld for in_controlled_shutdown", (int)id, (long long)cs);
        return MD_NOT_APPLIED;
    }
    const kf_dnode *dirs = fld(r, "log_dirs");
    const kf_dnode *cord = fld(r, "cordoned_log_dirs");
    if (dirs && dirs->kind == KF_V_ARRAY && dirs->n_children && !uuids_from(r->t, dirs, &b->log_dirs))
        return nomem(msg, msglen);
    if (cord && cord->kind == KF_V_ARRAY) {
        if (!uuids_from(r->t, cord, &b->cordoned_log_dirs))
            return nomem(msg, msglen);
        b->has_cordoned = true;
    }
    if (fenced)
        b->fenced = fenced == 1;
    if (cs == 1)
        b->in_controlled_shutdown = true;
    return MD_APPLIED;
}

static md_apply register_controller(md_image *im, rd *r, char *msg, size_t msglen)
{
    kf_md_controller *c = calloc(1, sizeof *c);
    if (!c)
        return nomem(msg, msglen);
    c->id = (int32_t)fint(r, "controller_id", -1);
    const uint8_t *inc = fuuid(r, "incarnation_id");
    if (inc)
        memcpy(c->incarnation_id, inc, 16);
    c->zk_migration_ready = fint(r, "zk_migration_ready", 0) != 0;
    bool ok = listeners_from(r->t, fld(r, "end_points"), &c->listeners, &c->nlisteners) &&
              ranges_from(r->t, fld(r, "features"), &c->features, &c->nfeatures);
    uint8_t k[4];
    if (!ok || !md_put(&im->controllers, k, key_i32(k, c->id), c, (void (*)(void *))md_controller_free)) {
        if (!ok)
            md_controller_free(c);
        return nomem(msg, msglen);
    }
    return MD_APPLIED;
}

static md_apply unregister(htab *h, int32_t id, void (*fn)(void *))
{
    uint8_t k[4];
    fn(htab_del(h, k, key_i32(k, id)));
    return MD_APPLIED;
}

/* ---- topics and partitions ---------------------------------------------------------- */

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
static md_topic_slot *tslot(md_image *im, const uint8_t id[16])
{
    if (!im->tcache && !(im->tcache = calloc(MD_TOPIC_CACHE, sizeof *im->tcache)))
        return NULL;
    return &im->tcache[(id[15] ^ ((uint32_t)id[14] << 8) ^ id[7]) & (MD_TOPIC_CACHE - 1)];
}

/* The topic of an id, through the cache. */
static kf_md_topic *topic_get(md_image *im, const uint8_t id[16])
{
    md_topic_slot *sl = tslot(im, id);
    if (sl && sl->t && memcmp(sl->id, id, 16) == 0)
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
    if (sl && sl->t && memcmp(sl->id, id, 16) == 0)
        sl->t = NULL;
}

static kf_md_topic *topic_of(md_image *im, rd *r, char *msg, size_t msglen)
{
    const uint8_t *id = fuuid(r, "topic_id");
    kf_md_topic *t = id ? topic_get(im, id) : NULL;
    if (!t && id) {
        char b64[23];
        kf_uuid_to_b64(id, b64);
        set_msg(msg, msglen, "no topic with id %s", b64);
    }
    return t;
}

static md_apply topic_record(md_image *im, rd *r, char *msg, size_t msglen)
{
    const uint8_t *id = fuuid(r, "topic_id");
    const kf_dnode *name = fld(r, "name");
    if (!id || !name || name->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    kf_md_topic *t = calloc(1, sizeof *t);
    if (!t || !(t->name = md_dupn(name->p, name->len))) {
        free(t);
        return nomem(msg, msglen);
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
        return nomem(msg, msglen);
    void **slot = htab_put(&im->topic_names, t->name, (uint32_t)strlen(t->name), NULL);
    if (!slot)
        return nomem(msg, msglen);
    *slot = t;
    return MD_APPLIED;
}

static md_apply partition_record(md_image *im, rd *r, int16_t version, char *msg, size_t msglen)
{
    kf_md_topic *t = topic_of(im, r, msg, msglen);
    if (!t)
        return MD_NOT_APPLIED;
    int32_t pid = (int32_t)fint(r, "partition_id", -1);
    kf_md_partition np = {0};
    np.id = pid;
    np.leader = (int32_t)fint(r, "leader", -1);
    np.leader_epoch = (int32_t)fint(r, "leader_epoch", -1);
    np.partition_epoch = (int32_t)fint(r, "partition_epoch", -1);
    np.leader_recovery_state = (int8_t)fint(r, "leader_recovery_state", 0);
    const kf_dnode *elr = fld(r, "eligible_leader_replicas"), *lk = fld(r, "last_known_elr");
    const kf_dnode *dirs = fld(r, "directories");
    bool ok = ints_from(r->t, fld(r, "replicas"), &np.replicas) && ints_from(r->t, fld(r, "isr"), &np.isr) &&
              ints_from(r->t, fld(r, "removing_replicas"), &np.removing_replicas) &&
              ints_from(r->t, fld(r, "adding_replicas"), &np.adding_replicas) &&
              ints_from(r->t, elr && elr->kind == KF_V_ARRAY ? elr : NULL, &np.elr) &&
              ints_from(r->t, lk && lk->kind == KF_V_ARRAY ? lk : NULL, &np.last_known_elr) &&
              uuids_from(r->t, dirs && dirs->kind == KF_V_ARRAY ? dirs : NULL, &np.directories);
    if (ok && np.directories.n && np.directories.n != np.replicas.n) {
        set_msg(msg, msglen, "partition %d: %u directories for %u replicas", (int)pid, np.directories.n,
                np.replicas.n);
        md_partition_fields_free(&np);
        return MD_NOT_APPLIED;
    }
    if (np.leader_recovery_state != 0 && np.leader_recovery_state != 1) {
        set_msg(msg, msglen, "partition %d: unknown leader recovery state %d", (int)pid, np.leader_recovery_state);
        md_partition_fields_free(&np);
        return MD_NOT_APPLIED;
    }
    np.has_directories = version >= 1;
    ok = ok && default_to_migrating(&np.directories, np.replicas.n);
    if (!ok) {
        md_partition_fields_free(&np);
        return nomem(msg, msglen);
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
            return nomem(msg, msglen);
        }
        t->parts = p;
        t->cap = nc;
    }
    memmove(&t->parts[at + 1], &t->parts[at], (t->nparts - at) * sizeof *t->parts);
    t->parts[at] = np;
    t->nparts++;
    return MD_APPLIED;
}

/* A nullable array of a change record: NULL when absent or null (no change). */
static const kf_dnode *change_of(rd *r, const char *name)
{
    const kf_dnode *n = fld(r, name);
    return n && n->kind == KF_V_ARRAY ? n : NULL;
}

static md_apply partition_change(md_image *im, rd *r, char *msg, size_t msglen)
{
    kf_md_topic *t = topic_of(im, r, msg, msglen);
    if (!t)
        return MD_NOT_APPLIED;
    int32_t pid = (int32_t)fint(r, "partition_id", -1);
    bool found;
    uint32_t at = part_find(t, pid, &found);
    if (!found) {
        set_msg(msg, msglen, "topic %s has no partition %d", t->name, (int)pid);
        return MD_NOT_APPLIED;
    }
    kf_md_partition *p = &t->parts[at];
    const kf_dnode *replicas = change_of(r, "replicas"), *isr = change_of(r, "isr");
    const kf_dnode *removing = change_of(r, "removing_replicas"), *adding = change_of(r, "adding_replicas");
    const kf_dnode *dirs = change_of(r, "directories"), *elr = change_of(r, "eligible_leader_replicas");
    const kf_dnode *lk = change_of(r, "last_known_elr");
    int64_t leader = fint(r, "leader", -2), lrs = fint(r, "leader_recovery_state", -1);
    if (replicas && dirs && dirs->n_children && replicas->n_children != dirs->n_children) {
        set_msg(msg, msglen, "%s-%d: %u directories for %u replicas", t->name, (int)pid, dirs->n_children,
                replicas->n_children);
        return MD_NOT_APPLIED;
    }
    if (lrs != -1 && lrs != 0 && lrs != 1) {
        set_msg(msg, msglen, "%s-%d: unknown leader recovery state %lld", t->name, (int)pid, (long long)lrs);
        return MD_NOT_APPLIED;
    }
    bool ok = (!replicas || ints_from(r->t, replicas, &p->replicas)) && (!isr || ints_from(r->t, isr, &p->isr)) &&
              (!removing || ints_from(r->t, removing, &p->removing_replicas)) &&
              (!adding || ints_from(r->t, adding, &p->adding_replicas)) &&
              (!elr || ints_from(r->t, elr, &p->elr)) && (!lk || ints_from(r->t, lk, &p->last_known_elr)) &&
              (!dirs || uuids_from(r->t, dirs, &p->directories));
    if (dirs)
        p->has_directories = true;
    if (dirs || replicas) /* else the directories are as they were normalised */
        ok = ok && default_to_migrating(&p->directories, p->replicas.n);
    if (!ok)
        return nomem(msg, msglen);
    if (leader != -2) {
        p->leader = (int32_t)leader;
        p->leader_epoch++;
    }
    if (lrs != -1)
        p->leader_recovery_state = (int8_t)lrs;
    p->partition_epoch++;
    return MD_APPLIED;
}

static void resource_del(md_image *im, int8_t type, const char *name)
{
    uint8_t k[1 + 32768];
    md_resource_free(htab_del(&im->resources, k, key_typed(k, sizeof k, type, name)));
}

static md_apply remove_topic(md_image *im, rd *r, char *msg, size_t msglen)
{
    const uint8_t *id = fuuid(r, "topic_id");
    if (id)
        topic_forget(im, id);
    kf_md_topic *t = id ? htab_del(&im->topics, id, 16) : NULL;
    if (!t) {
        char b64[23] = "?";
        if (id)
            kf_uuid_to_b64(id, b64);
        set_msg(msg, msglen, "cannot remove topic %s: no such topic", b64);
        return MD_NOT_APPLIED;
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

static md_apply clear_elr(md_image *im, rd *r, char *msg, size_t msglen)
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
        set_msg(msg, msglen, "cannot clear the ELR of topic %.*s: no such topic", (int)(name->len > 200 ? 200 : name->len),
                (const char *)name->p);
        return MD_NOT_APPLIED;
    }
    clear_elr_topic(t);
    return MD_APPLIED;
}

/* ---- configs, features, producer ids ---------------------------------------------- */

static md_apply config_record(md_image *im, rd *r, char *msg, size_t msglen)
{
    int8_t type = (int8_t)fint(r, "resource_type", 0);
    const kf_dnode *rn = fld(r, "resource_name"), *name = fld(r, "name"), *value = fld(r, "value");
    if (!rn || rn->kind != KF_V_STRING || !name || name->kind != KF_V_STRING || !value)
        return MD_NOT_APPLIED;
    uint8_t k[1 + 32768];
    k[0] = (uint8_t)type;
    memcpy(k + 1, rn->p, rn->len);
    uint32_t klen = 1 + rn->len;
    md_resource *res = htab_get(&im->resources, k, klen);
    int found = -1;
    for (uint32_t i = 0; res && i < res->n; i++)
        if (strlen(res->cfg[i]->name) == name->len && !memcmp(res->cfg[i]->name, name->p, name->len)) {
            found = (int)i;
            break;
        }
    if (value->kind == KF_V_NULL) { /* delete the key; a resource with none left goes */
        if (found < 0)
            return MD_APPLIED;
        md_config_free(res->cfg[found]);
        res->cfg[found] = res->cfg[--res->n];
        if (!res->n)
            md_resource_free(htab_del(&im->resources, k, klen));
        return MD_APPLIED;
    }
    if (!res) {
        res = calloc(1, sizeof *res);
        if (!res || !(res->name = md_dupn(rn->p, rn->len))) {
            free(res);
            return nomem(msg, msglen);
        }
        res->type = type;
        if (!md_put(&im->resources, k, klen, res, (void (*)(void *))md_resource_free))
            return nomem(msg, msglen);
    }
    char *v = md_dupn(value->p, value->len);
    if (!v)
        return nomem(msg, msglen);
    if (found >= 0) {
        free(res->cfg[found]->value);
        res->cfg[found]->value = v;
        return MD_APPLIED;
    }
    kf_md_config *c = calloc(1, sizeof *c);
    if (c) {
        c->resource_type = type;
        c->resource_name = md_dups(res->name);
        c->name = md_dupn(name->p, name->len);
        c->value = v;
    }
    if (!c || !c->resource_name || !c->name) {
        if (c)
            md_config_free(c);
        else
            free(v);
        return nomem(msg, msglen);
    }
    if (res->n == res->cap) {
        uint32_t nc = res->cap ? res->cap * 2 : 8;
        kf_md_config **nv = realloc(res->cfg, nc * sizeof *nv);
        if (!nv) {
            md_config_free(c);
            return nomem(msg, msglen);
        }
        res->cfg = nv;
        res->cap = nc;
    }
    res->cfg[res->n++] = c;
    return MD_APPLIED;
}

static md_apply feature_record(md_image *im, rd *r, char *msg, size_t msglen)
{
    const kf_dnode *name = fld(r, "name");
    if (!name || name->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    /* 3.0-3.2 layout: Min/MaxFeatureLevel; the finalized level is the max */
    int64_t level = fint(r, "feature_level", fint(r, "max_feature_level", 0));
    if (str_eq(name, "metadata.version")) {
        im->has_mv = true;
        im->mv = (int16_t)level;
        return MD_APPLIED;
    }
    if (str_eq(name, "kraft.version"))
        return MD_APPLIED; /* KAFKA-18979: ignored; kraft.version comes from KRaftVersionRecord */
    if (level == 0) {
        md_feature_free(htab_del(&im->features, name->p, name->len));
        return MD_APPLIED;
    }
    kf_md_feature *f = calloc(1, sizeof *f);
    if (!f || !(f->name = md_dupn(name->p, name->len))) {
        free(f);
        return nomem(msg, msglen);
    }
    f->level = (int16_t)level;
    return md_put(&im->features, name->p, name->len, f, (void (*)(void *))md_feature_free) ? MD_APPLIED
                                                                                      : nomem(msg, msglen);
}

/* ---- quotas, ACLs, SCRAM, tokens --------------------------------------------------- */

int md_cmp_quota_entity(const void *a, const void *b)
{
    const kf_md_quota_entity *x = a, *y = b;
    int c = strcmp(x->type, y->type);
    if (c)
        return c;
    if (!x->name || !y->name)
        return (x->name != NULL) - (y->name != NULL);
    return strcmp(x->name, y->name);
}

static md_apply quota_record(md_image *im, rd *r, char *msg, size_t msglen)
{
    const kf_dnode *ent = fld(r, "entity"), *key = fld(r, "key");
    if (!ent || ent->kind != KF_V_ARRAY || !key || key->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    uint32_t n = ent->n_children;
    kf_md_quota_entity *e = n ? calloc(n, sizeof *e) : NULL;
    if (n && !e)
        return nomem(msg, msglen);
    bool nm = false;
    uint32_t k = 0;
    for (uint32_t c = ent->first_child; c != KF_DNODE_NONE && k < n; c = r->t->nodes[c].next, k++) {
        rd x = {.t = r->t, .st = &r->t->nodes[c]};
        fstr(&x, "entity_type", &e[k].type, &nm);
        fstr(&x, "entity_name", &e[k].name, &nm);
        if (!e[k].type)
            e[k].type = md_dups("");
        nm |= !e[k].type;
    }
    /* the entity is the unordered set of (type, name) pairs: a sorted key */
    size_t klen = 0;
    uint8_t *kb = NULL;
    if (!nm) {
        qsort(e, k, sizeof *e, md_cmp_quota_entity);
        for (uint32_t i = 0; i < k; i++)
            klen += strlen(e[i].type) + 2 + (e[i].name ? strlen(e[i].name) : 0) + 1;
        kb = malloc(klen + 1);
        nm = !kb;
    }
    if (nm) {
        for (uint32_t i = 0; i < k; i++) {
            free(e[i].type);
            free(e[i].name);
        }
        free(e);
        free(kb);
        return nomem(msg, msglen);
    }
    size_t o = 0;
    for (uint32_t i = 0; i < k; i++) {
        size_t tl = strlen(e[i].type);
        memcpy(kb + o, e[i].type, tl + 1);
        o += tl + 1;
        kb[o++] = e[i].name ? 1 : 0;
        if (e[i].name) {
            size_t nl = strlen(e[i].name);
            memcpy(kb + o, e[i].name, nl + 1);
            o += nl + 1;
        } else {
            kb[o++] = 0;
        }
    }
    md_quota_entity *qe = htab_get(&im->quotas, kb, (uint32_t)o);
    bool remove = fint(r, "remove", 0) != 0;
    const kf_dnode *val = fld(r, "value");
    md_apply res = MD_APPLIED;
    if (qe) { /* the stored entity is the same set */
        for (uint32_t i = 0; i < k; i++) {
            free(e[i].type);
            free(e[i].name);
        }
        free(e);
        e = NULL;
    }
    int at = -1;
    for (uint32_t i = 0; qe && i < qe->n; i++)
        if (strlen(qe->q[i]->key) == key->len && !memcmp(qe->q[i]->key, key->p, key->len))
            at = (int)i;
    if (remove) {
        if (qe && at >= 0) {
            md_quota_free(qe->q[at]);
            qe->q[at] = qe->q[--qe->n];
            if (!qe->n)
                md_quota_entity_free(htab_del(&im->quotas, kb, (uint32_t)o));
        }
        goto done;
    }
    if (!qe) {
        qe = calloc(1, sizeof *qe);
        if (!qe) {
            res = nomem(msg, msglen);
            goto done;
        }
        qe->entity = e;
        qe->nentity = k;
        e = NULL;
        if (!md_put(&im->quotas, kb, (uint32_t)o, qe, (void (*)(void *))md_quota_entity_free)) {
            res = nomem(msg, msglen);
            goto done;
        }
    }
    if (at >= 0) {
        qe->q[at]->value = val && val->kind == KF_V_FLOAT ? val->f : 0;
        goto done;
    }
    kf_md_quota *q = calloc(1, sizeof *q);
    if (!q || !(q->key = md_dupn(key->p, key->len))) {
        free(q);
        res = nomem(msg, msglen);
        goto done;
    }
    q->value = val && val->kind == KF_V_FLOAT ? val->f : 0;
    q->entity = qe->entity;
    q->nentity = qe->nentity;
    if (qe->n == qe->cap) {
        uint32_t nc = qe->cap ? qe->cap * 2 : 4;
        kf_md_quota **nv = realloc(qe->q, nc * sizeof *nv);
        if (!nv) {
            md_quota_free(q);
            res = nomem(msg, msglen);
            goto done;
        }
        qe->q = nv;
        qe->cap = nc;
    }
    qe->q[qe->n++] = q;
done:
    if (e) {
        for (uint32_t i = 0; i < k; i++) {
            free(e[i].type);
            free(e[i].name);
        }
        free(e);
    }
    free(kb);
    return res;
}

static md_apply acl_record(md_image *im, rd *r, char *msg, size_t msglen)
{
    const uint8_t *id = fuuid(r, "id");
    if (!id)
        return MD_NOT_APPLIED;
    kf_md_acl *a = calloc(1, sizeof *a);
    if (!a)
        return nomem(msg, msglen);
    bool nm = false;
    memcpy(a->id, id, 16);
    a->resource_type = (int8_t)fint(r, "resource_type", 0);
    a->pattern_type = (int8_t)fint(r, "pattern_type", 0);
    a->operation = (int8_t)fint(r, "operation", 0);
    a->permission_type = (int8_t)fint(r, "permission_type", 0);
    fstr(r, "resource_name", &a->resource_name, &nm);
    fstr(r, "principal", &a->principal, &nm);
    fstr(r, "host", &a->host, &nm);
    if (nm) {
        md_acl_free(a);
        return nomem(msg, msglen);
    }
    return md_put(&im->acls, id, 16, a, (void (*)(void *))md_acl_free) ? MD_APPLIED : nomem(msg, msglen);
}

static md_apply remove_acl(md_image *im, rd *r, char *msg, size_t msglen)
{
    const uint8_t *id = fuuid(r, "id");
    kf_md_acl *a = id ? htab_del(&im->acls, id, 16) : NULL;
    if (!a) {
        char b64[23] = "?";
        if (id)
            kf_uuid_to_b64(id, b64);
        set_msg(msg, msglen, "cannot remove ACL %s: no such ACL", b64);
        return MD_NOT_APPLIED;
    }
    md_acl_free(a);
    return MD_APPLIED;
}

static bool bytes_field(rd *r, const char *name, uint8_t **p, uint32_t *len)
{
    const kf_dnode *n = fld(r, name);
    *p = NULL;
    *len = 0;
    if (!n || n->kind != KF_V_BYTES || !n->len)
        return true;
    *p = md_dupmem(n->p, n->len);
    *len = n->len;
    return *p != NULL;
}

static md_apply scram_record(md_image *im, rd *r, int16_t key, char *msg, size_t msglen)
{
    const kf_dnode *name = fld(r, "name");
    if (!name || name->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    int8_t mech = (int8_t)fint(r, "mechanism", 0);
    uint8_t k[1 + 32768];
    k[0] = (uint8_t)mech;
    memcpy(k + 1, name->p, name->len);
    uint32_t klen = 1 + name->len;
    if (key == KF_MD_REMOVE_USER_SCRAM_CREDENTIAL) {
        md_scram_free(htab_del(&im->scram, k, klen));
        return MD_APPLIED;
    }
    if (!fld(r, "salt")) /* the never-written <= 3.4 layout: nothing to apply */
        return MD_NOT_APPLIED;
    kf_md_scram *s = calloc(1, sizeof *s);
    if (!s)
        return nomem(msg, msglen);
    s->mechanism = mech;
    s->iterations = (int32_t)fint(r, "iterations", 0);
    bool ok = (s->name = md_dupn(name->p, name->len)) && bytes_field(r, "salt", &s->salt, &s->salt_len) &&
              bytes_field(r, "stored_key", &s->stored_key, &s->stored_key_len) &&
              bytes_field(r, "server_key", &s->server_key, &s->server_key_len);
    if (!ok) {
        md_scram_free(s);
        return nomem(msg, msglen);
    }
    return md_put(&im->scram, k, klen, s, (void (*)(void *))md_scram_free) ? MD_APPLIED : nomem(msg, msglen);
}

static md_apply token_record(md_image *im, rd *r, int16_t key, char *msg, size_t msglen)
{
    const kf_dnode *id = fld(r, "token_id");
    if (!id || id->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    if (key == KF_MD_REMOVE_DELEGATION_TOKEN) {
        md_token_free(htab_del(&im->tokens, id->p, id->len));
        return MD_APPLIED;
    }
    kf_md_token *k = calloc(1, sizeof *k);
    if (!k)
        return nomem(msg, msglen);
    bool nm = false;
    fstr(r, "token_id", &k->token_id, &nm);
    fstr(r, "owner", &k->owner, &nm);
    fstr(r, "requester", &k->requester, &nm);
    k->issue_timestamp = fint(r, "issue_timestamp", -1);
    k->max_timestamp = fint(r, "max_timestamp", -1);
    k->expiration_timestamp = fint(r, "expiration_timestamp", -1);
    const kf_dnode *ren = fld(r, "renewers");
    if (!nm && ren && ren->kind == KF_V_ARRAY && ren->n_children) {
        k->renewers = calloc(ren->n_children, sizeof *k->renewers);
        nm = !k->renewers;
        for (uint32_t c = ren->first_child; !nm && c != KF_DNODE_NONE && k->nrenewers < ren->n_children;
             c = r->t->nodes[c].next) {
            const kf_dnode *x = &r->t->nodes[c];
            nm = !(k->renewers[k->nrenewers++] = md_dupn(x->p, x->kind == KF_V_STRING ? x->len : 0));
        }
    }
    if (nm) {
        md_token_free(k);
        return nomem(msg, msglen);
    }
    return md_put(&im->tokens, id->p, id->len, k, (void (*)(void *))md_token_free) ? MD_APPLIED : nomem(msg, msglen);
}

/* ---- dispatch ------------------------------------------------------------------------ */

md_apply md_image_apply(md_image *im, int16_t key, int16_t version, const kf_dtree *t, uint32_t root,
                        bool from_snapshot, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (root == KF_DNODE_NONE || root >= t->n)
        return MD_NOT_APPLIED;
    rd r = {.t = t, .st = &t->nodes[root]};
    switch (key) {
    case KF_MD_REGISTER_BROKER: return register_broker(im, &r, version, msg, msglen);
    case KF_MD_UNREGISTER_BROKER:
        return unregister(&im->brokers, (int32_t)fint(&r, "broker_id", -1), (void (*)(void *))md_broker_free);
    case KF_MD_TOPIC: return topic_record(im, &r, msg, msglen);
    case KF_MD_PARTITION: return partition_record(im, &r, version, msg, msglen);
    case KF_MD_CONFIG: return config_record(im, &r, msg, msglen);
    case KF_MD_PARTITION_CHANGE: return partition_change(im, &r, msg, msglen);
    case KF_MD_FENCE_BROKER:
    case KF_MD_UNFENCE_BROKER:
    case KF_MD_BROKER_REGISTRATION_CHANGE: return broker_change(im, &r, key, msg, msglen);
    case KF_MD_REMOVE_TOPIC: return remove_topic(im, &r, msg, msglen);
    case KF_MD_DELEGATION_TOKEN:
    case KF_MD_REMOVE_DELEGATION_TOKEN: return token_record(im, &r, key, msg, msglen);
    case KF_MD_USER_SCRAM_CREDENTIAL:
    case KF_MD_REMOVE_USER_SCRAM_CREDENTIAL: return scram_record(im, &r, key, msg, msglen);
    case KF_MD_FEATURE_LEVEL: return feature_record(im, &r, msg, msglen);
    case KF_MD_CLIENT_QUOTA: return quota_record(im, &r, msg, msglen);
    case KF_MD_PRODUCER_IDS:
        im->next_producer_id = fint(&r, "next_producer_id", -1);
        im->pid_broker_id = from_snapshot ? -1 : (int32_t)fint(&r, "broker_id", -1);
        im->pid_broker_epoch = from_snapshot ? -1 : fint(&r, "broker_epoch", -1);
        return MD_APPLIED;
    case KF_MD_ACCESS_CONTROL_ENTRY: return acl_record(im, &r, msg, msglen);
    case KF_MD_REMOVE_ACCESS_CONTROL_ENTRY: return remove_acl(im, &r, msg, msglen);
    case KF_MD_REGISTER_CONTROLLER: return register_controller(im, &r, msg, msglen);
    case KF_MD_UNREGISTER_CONTROLLER:
        return unregister(&im->controllers, (int32_t)fint(&r, "controller_id", -1), (void (*)(void *))md_controller_free);
    case KF_MD_CLEAR_ELR: return clear_elr(im, &r, msg, msglen);
    case KF_MD_NO_OP:
    case KF_MD_ZK_MIGRATION_STATE: return MD_APPLIED; /* nothing but the offset (4.x: a no-op) */
    case KF_MD_ACCESS_CONTROL:
    case KF_MD_REMOVE_FEATURE_LEVEL:
        set_msg(msg, msglen, "a record type Kafka defined but never wrote (no longer known to 4.x)");
        return MD_NOT_APPLIED;
    default:
        set_msg(msg, msglen, "record type %d has no replay rule", key);
        return MD_NOT_APPLIED;
    }
}
