/* md_image.c: the cluster image of md_image.h: its objects' lifetimes (free
 * and deep copy: an open metadata transaction keeps a copy of the image from
 * before it), and the image as a whole. The rules that change it are in
 * md_apply.c, its sorted views in md_views.c. */
#include "kraft/md_image.h"

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

/* allocated for md_ints_cap(n) values, as md_apply_topics.c keeps them */
static bool ints_copy(kf_md_ints *d, const kf_md_ints *s)
{
    d->n = s->n;
    d->v = s->n ? malloc((size_t)md_ints_cap(s->n) * sizeof *d->v) : NULL;
    if (d->v)
        memcpy(d->v, s->v, s->n * sizeof *d->v);
    return !s->n || d->v;
}

static bool uuids_copy(kf_md_uuids *d, const kf_md_uuids *s)
{
    d->n = s->n;
    d->v = md_dupmem(s->v, s->n * sizeof *s->v);
    return !s->n || d->v;
}

/* ---- listeners and feature ranges ------------------------------------------------ */

void md_listeners_free(kf_md_listener *l, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(l[i].name);
        free(l[i].host);
    }
    free(l);
}

void md_ranges_free(kf_md_version_range *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(r[i].name);
    free(r);
}

static bool listeners_copy(kf_md_listener **d, const kf_md_listener *s, uint32_t n)
{
    *d = n ? calloc(n, sizeof **d) : NULL;
    if (n && !*d)
        return false;
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        (*d)[i] = s[i];
        (*d)[i].name = md_dups(s[i].name);
        (*d)[i].host = md_dups(s[i].host);
        ok &= (!s[i].name || (*d)[i].name) && (!s[i].host || (*d)[i].host);
    }
    return ok;
}

static bool ranges_copy(kf_md_version_range **d, const kf_md_version_range *s, uint32_t n)
{
    *d = n ? calloc(n, sizeof **d) : NULL;
    if (n && !*d)
        return false;
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        (*d)[i] = s[i];
        (*d)[i].name = md_dups(s[i].name);
        ok &= !s[i].name || (*d)[i].name;
    }
    return ok;
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

/* ---- object lifetimes ------------------------------------------------------------ */

void md_broker_free(kf_md_broker *b)
{
    if (!b)
        return;
    free(b->rack);
    md_listeners_free(b->listeners, b->nlisteners);
    md_ranges_free(b->features, b->nfeatures);
    free(b->log_dirs.v);
    free(b->cordoned_log_dirs.v);
    free(b);
}

void md_controller_free(kf_md_controller *c)
{
    if (!c)
        return;
    md_listeners_free(c->listeners, c->nlisteners);
    md_ranges_free(c->features, c->nfeatures);
    free(c);
}

void md_partition_fields_free(kf_md_partition *p)
{
    free(p->replicas.v);
    free(p->isr.v);
    free(p->removing_replicas.v);
    free(p->adding_replicas.v);
    free(p->elr.v);
    free(p->last_known_elr.v);
    free(p->directories.v);
}

void md_topic_free(kf_md_topic *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nparts; i++)
        md_partition_fields_free(&t->parts[i]);
    free(t->parts);
    free(t->name);
    free(t);
}

void md_config_free(kf_md_config *c)
{
    if (!c)
        return;
    free(c->resource_name);
    free(c->name);
    free(c->value);
    free(c);
}

void md_resource_free(md_resource *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++)
        md_config_free(r->cfg[i]);
    free(r->cfg);
    free(r->name);
    free(r);
}

void md_quota_free(kf_md_quota *q)
{
    if (!q)
        return;
    free(q->key);
    free(q);
}

void md_quota_entity_free(md_quota_entity *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->n; i++)
        md_quota_free(e->q[i]);
    free(e->q);
    for (uint32_t i = 0; i < e->nentity; i++) {
        free(e->entity[i].type);
        free(e->entity[i].name);
    }
    free(e->entity);
    free(e);
}

void md_acl_free(kf_md_acl *a)
{
    if (!a)
        return;
    free(a->resource_name);
    free(a->principal);
    free(a->host);
    free(a);
}

void md_scram_free(kf_md_scram *s)
{
    if (!s)
        return;
    free(s->name);
    free(s->salt);
    free(s->stored_key);
    free(s->server_key);
    free(s);
}

void md_token_free(kf_md_token *k)
{
    if (!k)
        return;
    free(k->token_id);
    free(k->owner);
    free(k->requester);
    for (uint32_t i = 0; i < k->nrenewers; i++)
        free(k->renewers[i]);
    free(k->renewers);
    free(k);
}

void md_feature_free(kf_md_feature *f)
{
    if (!f)
        return;
    free(f->name);
    free(f);
}

static void free_table(htab *h, void (*fn)(void *))
{
    HTAB_EACH(h, e)
    fn(e->val);
    htab_free(h);
}

void md_image_init(md_image *im)
{
    memset(im, 0, sizeof *im);
    im->next_producer_id = -1;
    im->pid_broker_id = -1;
    im->pid_broker_epoch = -1;
}

void md_image_free(md_image *im)
{
    free_table(&im->brokers, (void (*)(void *))md_broker_free);
    free_table(&im->controllers, (void (*)(void *))md_controller_free);
    free_table(&im->features, (void (*)(void *))md_feature_free);
    free_table(&im->topics, (void (*)(void *))md_topic_free);
    htab_free(&im->topic_names); /* values owned by topics */
    free_table(&im->resources, (void (*)(void *))md_resource_free);
    free_table(&im->quotas, (void (*)(void *))md_quota_entity_free);
    free_table(&im->acls, (void (*)(void *))md_acl_free);
    free_table(&im->scram, (void (*)(void *))md_scram_free);
    free_table(&im->tokens, (void (*)(void *))md_token_free);
    free(im->tcache);
    md_image_init(im);
}

/* ---- the copy ------------------------------------------------------------------------ */

static kf_md_broker *broker_copy(const kf_md_broker *s)
{
    kf_md_broker *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *s;
    d->rack = NULL;
    d->listeners = NULL;
    d->features = NULL;
    d->log_dirs.v = d->cordoned_log_dirs.v = NULL;
    bool ok = (!s->rack || (d->rack = md_dups(s->rack))) && listeners_copy(&d->listeners, s->listeners, s->nlisteners) &&
              ranges_copy(&d->features, s->features, s->nfeatures) && uuids_copy(&d->log_dirs, &s->log_dirs) &&
              uuids_copy(&d->cordoned_log_dirs, &s->cordoned_log_dirs);
    if (!ok) {
        md_broker_free(d);
        return NULL;
    }
    return d;
}

static kf_md_controller *controller_copy(const kf_md_controller *s)
{
    kf_md_controller *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *s;
    d->listeners = NULL;
    d->features = NULL;
    if (!listeners_copy(&d->listeners, s->listeners, s->nlisteners) ||
        !ranges_copy(&d->features, s->features, s->nfeatures)) {
        md_controller_free(d);
        return NULL;
    }
    return d;
}

static bool partition_copy(kf_md_partition *d, const kf_md_partition *s)
{
    *d = *s;
    return ints_copy(&d->replicas, &s->replicas) & ints_copy(&d->isr, &s->isr) &
           ints_copy(&d->removing_replicas, &s->removing_replicas) &
           ints_copy(&d->adding_replicas, &s->adding_replicas) & ints_copy(&d->elr, &s->elr) &
           ints_copy(&d->last_known_elr, &s->last_known_elr) & uuids_copy(&d->directories, &s->directories);
}

static kf_md_topic *topic_copy(const kf_md_topic *s)
{
    kf_md_topic *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    memcpy(d->id, s->id, 16);
    d->name = md_dups(s->name);
    d->parts = s->nparts ? calloc(s->nparts, sizeof *d->parts) : NULL;
    bool ok = d->name && (!s->nparts || d->parts);
    for (uint32_t i = 0; ok && i < s->nparts; i++) {
        ok = partition_copy(&d->parts[i], &s->parts[i]);
        d->nparts = i + 1;
    }
    d->cap = d->nparts;
    if (!ok) {
        md_topic_free(d);
        return NULL;
    }
    return d;
}

static kf_md_config *config_copy(const kf_md_config *s)
{
    kf_md_config *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->resource_type = s->resource_type;
    d->resource_name = md_dups(s->resource_name);
    d->name = md_dups(s->name);
    d->value = md_dups(s->value);
    if (!d->resource_name || !d->name || (s->value && !d->value)) {
        md_config_free(d);
        return NULL;
    }
    return d;
}

static md_resource *resource_copy(const md_resource *s)
{
    md_resource *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->type = s->type;
    d->name = md_dups(s->name);
    d->cfg = s->n ? calloc(s->n, sizeof *d->cfg) : NULL;
    bool ok = d->name && (!s->n || d->cfg);
    for (uint32_t i = 0; ok && i < s->n; i++) {
        ok = (d->cfg[i] = config_copy(s->cfg[i])) != NULL;
        d->n = i + 1;
    }
    d->cap = d->n;
    if (!ok) {
        md_resource_free(d);
        return NULL;
    }
    return d;
}

static md_quota_entity *quota_entity_copy(const md_quota_entity *s)
{
    md_quota_entity *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->entity = s->nentity ? calloc(s->nentity, sizeof *d->entity) : NULL;
    bool ok = !s->nentity || d->entity;
    for (uint32_t i = 0; ok && i < s->nentity; i++) {
        d->entity[i].type = md_dups(s->entity[i].type);
        d->entity[i].name = md_dups(s->entity[i].name);
        d->nentity = i + 1;
        ok = d->entity[i].type && (!s->entity[i].name || d->entity[i].name);
    }
    d->q = ok && s->n ? calloc(s->n, sizeof *d->q) : NULL;
    ok = ok && (!s->n || d->q);
    for (uint32_t i = 0; ok && i < s->n; i++) {
        kf_md_quota *q = calloc(1, sizeof *q);
        if (q) {
            q->key = md_dups(s->q[i]->key);
            q->value = s->q[i]->value;
            q->entity = d->entity;
            q->nentity = d->nentity;
        }
        d->q[i] = q;
        d->n = i + 1;
        ok = q && q->key;
    }
    d->cap = d->n;
    if (!ok) {
        md_quota_entity_free(d);
        return NULL;
    }
    return d;
}

static kf_md_acl *acl_copy(const kf_md_acl *s)
{
    kf_md_acl *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *s;
    d->resource_name = md_dups(s->resource_name);
    d->principal = md_dups(s->principal);
    d->host = md_dups(s->host);
    if ((s->resource_name && !d->resource_name) || (s->principal && !d->principal) || (s->host && !d->host)) {
        md_acl_free(d);
        return NULL;
    }
    return d;
}

static kf_md_scram *scram_copy(const kf_md_scram *s)
{
    kf_md_scram *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *s;
    d->name = md_dups(s->name);
    d->salt = md_dupmem(s->salt, s->salt_len);
    d->stored_key = md_dupmem(s->stored_key, s->stored_key_len);
    d->server_key = md_dupmem(s->server_key, s->server_key_len);
    if (!d->name || (s->salt_len && !d->salt) || (s->stored_key_len && !d->stored_key) ||
        (s->server_key_len && !d->server_key)) {
        md_scram_free(d);
        return NULL;
    }
    return d;
}

static kf_md_token *token_copy(const kf_md_token *s)
{
    kf_md_token *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *s;
    d->token_id = md_dups(s->token_id);
    d->owner = md_dups(s->owner);
    d->requester = md_dups(s->requester);
    d->renewers = s->nrenewers ? calloc(s->nrenewers, sizeof *d->renewers) : NULL;
    bool ok = d->token_id && (!s->owner || d->owner) && (!s->requester || d->requester) &&
              (!s->nrenewers || d->renewers);
    for (uint32_t i = 0; ok && i < s->nrenewers; i++)
        ok = (d->renewers[i] = md_dups(s->renewers[i])) != NULL;
    if (!d->renewers)
        d->nrenewers = 0;
    if (!ok) {
        md_token_free(d);
        return NULL;
    }
    return d;
}

static kf_md_feature *feature_copy(const kf_md_feature *s)
{
    kf_md_feature *d = calloc(1, sizeof *d);
    if (d && !(d->name = md_dups(s->name))) {
        free(d);
        return NULL;
    }
    if (d)
        d->level = s->level;
    return d;
}

static bool copy_table(htab *d, const htab *s, void *(*cp)(const void *), void (*fn)(void *))
{
    HTAB_EACH(s, e)
    {
        void *v = cp(e->val);
        if (!v || !md_put(d, e->key, e->klen, v, fn))
            return false;
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
    bool ok = copy_table(&d->brokers, &s->brokers, (void *(*)(const void *))broker_copy,
                         (void (*)(void *))md_broker_free) &&
              copy_table(&d->controllers, &s->controllers, (void *(*)(const void *))controller_copy,
                         (void (*)(void *))md_controller_free) &&
              copy_table(&d->features, &s->features, (void *(*)(const void *))feature_copy,
                         (void (*)(void *))md_feature_free) &&
              copy_table(&d->topics, &s->topics, (void *(*)(const void *))topic_copy, (void (*)(void *))md_topic_free) &&
              copy_table(&d->resources, &s->resources, (void *(*)(const void *))resource_copy,
                         (void (*)(void *))md_resource_free) &&
              copy_table(&d->quotas, &s->quotas, (void *(*)(const void *))quota_entity_copy,
                         (void (*)(void *))md_quota_entity_free) &&
              copy_table(&d->acls, &s->acls, (void *(*)(const void *))acl_copy, (void (*)(void *))md_acl_free) &&
              copy_table(&d->scram, &s->scram, (void *(*)(const void *))scram_copy, (void (*)(void *))md_scram_free) &&
              copy_table(&d->tokens, &s->tokens, (void *(*)(const void *))token_copy, (void (*)(void *))md_token_free);
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
