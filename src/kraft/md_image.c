/* md_image.c: the cluster image of md_image.h: its objects' lifetimes (free
 * and deep copy: an open metadata transaction keeps a copy of the image from
 * before it), and the image as a whole. The rules that change it are in
 * md_apply.c, its sorted views in md_views.c. */
#include "kraft/md_image.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------------ */

char *md_dupn(const void *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        if (n)
            memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

char *md_dups(const char *s) { return s ? md_dupn(s, strlen(s)) : NULL; }

void *md_dupmem(const void *p, size_t n)
{
    if (!n)
        return NULL;
    void *d = malloc(n);
    if (d)
        memcpy(d, p, n);
    return d;
}

/* Put val under key, freeing what was there with fn. false: out of memory
 * (val is freed). */
bool md_put(htab *h, const void *key, uint32_t klen, void *val, void (*fn)(void *))
{
    bool created;
    void **slot = htab_put(h, key, klen, &created);
    if (!slot) {
        fn(val);
        return false;
    }
    if (!created && *slot)
        fn(*slot);
    *slot = val;
    return true;
}

/* ---- what each object owns -------------------------------------------------------
 *
 * The heap memory of an image object is listed once, field by field (an
 * md_kind): its free and its deep copy both follow the list, so the two
 * cannot disagree. Whatever a field's sort, its pointer is at `off`; its
 * uint32_t count or length, where it has one, at `aux`. */

typedef enum md_own_sort {
    OWN_STR,   /* char *, NUL-terminated (NULL: none) */
    OWN_BYTES, /* uint8_t *, aux bytes */
    OWN_INTS,  /* int32_t *, aux values in memory for md_ints_cap(aux) (md_image.h) */
    OWN_UUIDS, /* uint8_t (*)[16], aux uuids */
    /* the lists, last (fields_free) */
    OWN_STRS,  /* char **, aux strings */
    OWN_ARRAY, /* aux structs of the kind `elem`, in one block */
    OWN_OBJS,  /* aux pointers to objects of the kind `elem` */
} md_own_sort;

typedef struct md_kind md_kind;

typedef struct md_owned {
    md_own_sort sort;
    size_t off, aux;
    const md_kind *elem;
} md_owned;

struct md_kind {
    size_t size;
    const md_owned *owned;
    size_t nowned;
    /* what a copy sets beyond its fields' copies (NULL: nothing) */
    void (*after_copy)(void *d);
};

#define OWN(sort, t, f, n, elem) { sort, offsetof(t, f), n, elem }
#define STR(t, f) OWN(OWN_STR, t, f, 0, NULL)
#define BYTES(t, f, len) OWN(OWN_BYTES, t, f, offsetof(t, len), NULL)
#define INTS(t, f) OWN(OWN_INTS, t, f.v, offsetof(t, f.n), NULL)
#define UUIDS(t, f) OWN(OWN_UUIDS, t, f.v, offsetof(t, f.n), NULL)
#define STRS(t, f, n) OWN(OWN_STRS, t, f, offsetof(t, n), NULL)
#define ARRAY(t, f, n, k) OWN(OWN_ARRAY, t, f, offsetof(t, n), &k)
#define OBJS(t, f, n, k) OWN(OWN_OBJS, t, f, offsetof(t, n), &k)
/* name##_kind: objects of type t owning the fields listed after `after` */
#define KIND(name, t, after, ...)                                                                              \
    static const md_owned name##_owned[] = { __VA_ARGS__ };                                                    \
    static const md_kind name##_kind = { sizeof(t), name##_owned, sizeof name##_owned / sizeof name##_owned[0], after }

#define FIELD(o, off, type) ((type *)((char *)(o) + (off)))
#define CFIELD(o, off, type) ((const type *)((const char *)(o) + (off)))

static void fields_free(void *o, const md_kind *k);

static void obj_free(void *o, const md_kind *k)
{
    if (o) {
        fields_free(o, k);
        free(o);
    }
}

static void fields_free(void *o, const md_kind *k)
{
    for (size_t i = 0; i < k->nowned; i++) {
        const md_owned *f = &k->owned[i];
        void *p = *FIELD(o, f->off, void *);
        uint32_t n = f->sort >= OWN_STRS && p ? *FIELD(o, f->aux, uint32_t) : 0;
        for (uint32_t j = 0; j < n; j++) {
            if (f->sort == OWN_ARRAY)
                fields_free((char *)p + j * f->elem->size, f->elem);
            else if (f->sort == OWN_OBJS)
                obj_free(((void **)p)[j], f->elem);
            else
                free(((char **)p)[j]);
        }
        free(p);
    }
}

static bool fields_copy(void *d, const void *s, const md_kind *k);
static void *obj_copy(const void *s, const md_kind *k);

/* One element of a list field (OWN_STRS, OWN_ARRAY, OWN_OBJS). */
static bool elem_copy(const md_owned *f, void *d, const void *s, uint32_t j)
{
    if (f->sort == OWN_STRS)
        return (((char **)d)[j] = md_dups(((char *const *)s)[j])) != NULL;
    if (f->sort == OWN_OBJS)
        return (((void **)d)[j] = obj_copy(((void *const *)s)[j], f->elem)) != NULL;
    size_t size = f->elem->size;
    memcpy((char *)d + j * size, (const char *)s + j * size, size);
    return fields_copy((char *)d + j * size, (const char *)s + j * size, f->elem);
}

/* d's field f as a copy of s's; d's pointer and count are NULL and 0 until
 * there is memory behind them. */
static bool field_copy(const md_owned *f, void *d, const void *s)
{
    const void *sp = *CFIELD(s, f->off, void *);
    void **dp = FIELD(d, f->off, void *);
    if (f->sort == OWN_STR)
        return !sp || (*dp = md_dups(sp));
    uint32_t n = *CFIELD(s, f->aux, uint32_t);
    if (!sp || !n)
        return true;
    switch (f->sort) {
    case OWN_BYTES:
        *dp = md_dupmem(sp, n);
        break;
    case OWN_INTS:
        if ((*dp = malloc((size_t)md_ints_cap(n) * sizeof(int32_t))))
            memcpy(*dp, sp, (size_t)n * sizeof(int32_t));
        break;
    case OWN_UUIDS:
        *dp = md_dupmem(sp, (size_t)n * 16);
        break;
    default:
        *dp = calloc(n, f->sort == OWN_ARRAY ? f->elem->size : sizeof(void *));
        break;
    }
    if (!*dp)
        return false;
    *FIELD(d, f->aux, uint32_t) = n;
    bool ok = true;
    for (uint32_t j = 0; ok && j < n && f->sort >= OWN_STRS; j++)
        ok = elem_copy(f, *dp, sp, j);
    return ok;
}

/* d, a byte copy of s, made to own copies of what s owns; false when out of
 * memory (d then owns what was copied and nothing of s's). */
static bool fields_copy(void *d, const void *s, const md_kind *k)
{
    for (size_t i = 0; i < k->nowned; i++) {
        *FIELD(d, k->owned[i].off, void *) = NULL;
        if (k->owned[i].sort != OWN_STR)
            *FIELD(d, k->owned[i].aux, uint32_t) = 0;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < k->nowned; i++)
        ok = field_copy(&k->owned[i], d, s);
    if (ok && k->after_copy)
        k->after_copy(d);
    return ok;
}

static void *obj_copy(const void *s, const md_kind *k)
{
    void *d = malloc(k->size);
    if (!d)
        return NULL;
    memcpy(d, s, k->size);
    if (!fields_copy(d, s, k)) {
        obj_free(d, k);
        return NULL;
    }
    return d;
}

/* ---- the kinds of object --------------------------------------------------------- */

KIND(listener, kf_md_listener, NULL, STR(kf_md_listener, name), STR(kf_md_listener, host));
KIND(range, kf_md_version_range, NULL, STR(kf_md_version_range, name));
KIND(broker, kf_md_broker, NULL, STR(kf_md_broker, rack), ARRAY(kf_md_broker, listeners, nlisteners, listener_kind),
     ARRAY(kf_md_broker, features, nfeatures, range_kind), UUIDS(kf_md_broker, log_dirs),
     UUIDS(kf_md_broker, cordoned_log_dirs));
KIND(controller, kf_md_controller, NULL, ARRAY(kf_md_controller, listeners, nlisteners, listener_kind),
     ARRAY(kf_md_controller, features, nfeatures, range_kind));
KIND(partition, kf_md_partition, NULL, INTS(kf_md_partition, replicas), INTS(kf_md_partition, isr),
     INTS(kf_md_partition, removing_replicas), INTS(kf_md_partition, adding_replicas), INTS(kf_md_partition, elr),
     INTS(kf_md_partition, last_known_elr), UUIDS(kf_md_partition, directories));

/* A copied list's memory holds what it has: a topic's partitions, a
 * resource's configs, an entity's quotas. */
static void topic_fit(void *d) { ((kf_md_topic *)d)->cap = ((kf_md_topic *)d)->nparts; }
static void resource_fit(void *d) { ((md_resource *)d)->cap = ((md_resource *)d)->n; }

/* ... and the copied quotas point at the copy's entity. */
static void quota_entity_fit(void *d)
{
    md_quota_entity *e = d;
    e->cap = e->n;
    for (uint32_t i = 0; i < e->n; i++) {
        e->q[i]->entity = e->entity;
        e->q[i]->nentity = e->nentity;
    }
}

KIND(topic, kf_md_topic, topic_fit, STR(kf_md_topic, name), ARRAY(kf_md_topic, parts, nparts, partition_kind));
KIND(config, kf_md_config, NULL, STR(kf_md_config, resource_name), STR(kf_md_config, name), STR(kf_md_config, value));
KIND(resource, md_resource, resource_fit, STR(md_resource, name), OBJS(md_resource, cfg, n, config_kind));
/* a quota's entity is its md_quota_entity's */
KIND(quota, kf_md_quota, NULL, STR(kf_md_quota, key));
KIND(entity, kf_md_quota_entity, NULL, STR(kf_md_quota_entity, type), STR(kf_md_quota_entity, name));
KIND(quota_entity, md_quota_entity, quota_entity_fit, ARRAY(md_quota_entity, entity, nentity, entity_kind),
     OBJS(md_quota_entity, q, n, quota_kind));
KIND(acl, kf_md_acl, NULL, STR(kf_md_acl, resource_name), STR(kf_md_acl, principal), STR(kf_md_acl, host));
KIND(scram, kf_md_scram, NULL, STR(kf_md_scram, name), BYTES(kf_md_scram, salt, salt_len),
     BYTES(kf_md_scram, stored_key, stored_key_len), BYTES(kf_md_scram, server_key, server_key_len));
KIND(token, kf_md_token, NULL, STR(kf_md_token, token_id), STR(kf_md_token, owner), STR(kf_md_token, requester),
     STRS(kf_md_token, renewers, nrenewers));
KIND(feature, kf_md_feature, NULL, STR(kf_md_feature, name));

/* ---- freeing, for md_apply*.c ----------------------------------------------------- */

void md_partition_fields_free(kf_md_partition *p) { fields_free(p, &partition_kind); }
void md_broker_free(kf_md_broker *b) { obj_free(b, &broker_kind); }
void md_controller_free(kf_md_controller *c) { obj_free(c, &controller_kind); }
void md_topic_free(kf_md_topic *t) { obj_free(t, &topic_kind); }
void md_config_free(kf_md_config *c) { obj_free(c, &config_kind); }
void md_resource_free(md_resource *r) { obj_free(r, &resource_kind); }
void md_quota_free(kf_md_quota *q) { obj_free(q, &quota_kind); }
void md_quota_entity_free(md_quota_entity *e) { obj_free(e, &quota_entity_kind); }
void md_acl_free(kf_md_acl *a) { obj_free(a, &acl_kind); }
void md_scram_free(kf_md_scram *s) { obj_free(s, &scram_kind); }
void md_token_free(kf_md_token *k) { obj_free(k, &token_kind); }
void md_feature_free(kf_md_feature *f) { obj_free(f, &feature_kind); }

/* ---- the image as a whole ----------------------------------------------------------- */

/* The image's tables of objects and the kind of each one's values
 * (topic_names apart: its values are the topics'). */
static const struct {
    size_t off;
    const md_kind *kind;
} image_tables[] = {
    { offsetof(md_image, brokers), &broker_kind },     { offsetof(md_image, controllers), &controller_kind },
    { offsetof(md_image, features), &feature_kind },   { offsetof(md_image, topics), &topic_kind },
    { offsetof(md_image, resources), &resource_kind }, { offsetof(md_image, quotas), &quota_entity_kind },
    { offsetof(md_image, acls), &acl_kind },           { offsetof(md_image, scram), &scram_kind },
    { offsetof(md_image, tokens), &token_kind },
};
#define NTABLES (sizeof image_tables / sizeof image_tables[0])

void md_image_init(md_image *im)
{
    memset(im, 0, sizeof *im);
    im->next_producer_id = -1;
    im->pid_broker_id = -1;
    im->pid_broker_epoch = -1;
}

void md_image_free(md_image *im)
{
    for (size_t i = 0; i < NTABLES; i++) {
        htab *h = FIELD(im, image_tables[i].off, htab);
        HTAB_EACH(h, e)
        obj_free(e->val, image_tables[i].kind);
        htab_free(h);
    }
    htab_free(&im->topic_names);
    free(im->tcache);
    md_image_init(im);
}

static bool copy_table(htab *d, const htab *s, const md_kind *k)
{
    HTAB_EACH(s, e)
    {
        void *v = obj_copy(e->val, k);
        void **slot = v ? htab_put(d, e->key, e->klen, NULL) : NULL;
        if (!slot) {
            obj_free(v, k);
            return false;
        }
        *slot = v;
    }
    return true;
}

bool md_image_copy(md_image *d, const md_image *s)
{
    md_image_init(d);
    d->has_mv = s->has_mv;
    d->mv = s->mv;
    d->next_producer_id = s->next_producer_id;
    d->pid_broker_id = s->pid_broker_id;
    d->pid_broker_epoch = s->pid_broker_epoch;
    bool ok = true;
    for (size_t i = 0; ok && i < NTABLES; i++)
        ok = copy_table(FIELD(d, image_tables[i].off, htab), CFIELD(s, image_tables[i].off, htab),
                        image_tables[i].kind);
    /* the name index points at the copied topics */
    HTAB_EACH(&s->topic_names, e)
    {
        if (!ok)
            break;
        const kf_md_topic *st = e->val;
        kf_md_topic *dt = htab_get(&d->topics, st->id, 16);
        void **slot = dt ? htab_put(&d->topic_names, e->key, e->klen, NULL) : NULL;
        if (dt && !slot)
            ok = false;
        else if (slot)
            *slot = dt;
    }
    if (!ok)
        md_image_free(d);
    return ok;
}
