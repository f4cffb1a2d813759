/* md_views.c: the sorted views of the cluster image (md_image.h) that
 * metadata.h hands out: features by name, brokers and controllers by id,
 * topics by name, configs by resource and name, quotas by entity and key,
 * ACLs by id, SCRAM credentials by name and mechanism, tokens by id. */
#include "kraft/md_image.h"

#include <stdlib.h>
#include <string.h>

/* ---- sorted views -------------------------------------------------------------------- */

static int cmp_feature(const void *a, const void *b)
{
    return strcmp((*(const kf_md_feature *const *)a)->name, (*(const kf_md_feature *const *)b)->name);
}
static int cmp_broker(const void *a, const void *b)
{
    int32_t x = (*(const kf_md_broker *const *)a)->id, y = (*(const kf_md_broker *const *)b)->id;
    return x < y ? -1 : x > y;
}
static int cmp_controller(const void *a, const void *b)
{
    int32_t x = (*(const kf_md_controller *const *)a)->id, y = (*(const kf_md_controller *const *)b)->id;
    return x < y ? -1 : x > y;
}
static int cmp_topic(const void *a, const void *b)
{
    const kf_md_topic *x = *(const kf_md_topic *const *)a, *y = *(const kf_md_topic *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : memcmp(x->id, y->id, 16);
}
static int cmp_config(const void *a, const void *b)
{
    const kf_md_config *x = *(const kf_md_config *const *)a, *y = *(const kf_md_config *const *)b;
    if (x->resource_type != y->resource_type)
        return x->resource_type < y->resource_type ? -1 : 1;
    int c = strcmp(x->resource_name, y->resource_name);
    return c ? c : strcmp(x->name, y->name);
}
static int cmp_quota(const void *a, const void *b)
{
    const kf_md_quota *x = *(const kf_md_quota *const *)a, *y = *(const kf_md_quota *const *)b;
    for (uint32_t i = 0; i < x->nentity && i < y->nentity; i++) {
        int c = md_cmp_quota_entity(&x->entity[i], &y->entity[i]);
        if (c)
            return c;
    }
    if (x->nentity != y->nentity)
        return x->nentity < y->nentity ? -1 : 1;
    return strcmp(x->key, y->key);
}
static int cmp_acl(const void *a, const void *b)
{
    return memcmp((*(const kf_md_acl *const *)a)->id, (*(const kf_md_acl *const *)b)->id, 16);
}
static int cmp_scram(const void *a, const void *b)
{
    const kf_md_scram *x = *(const kf_md_scram *const *)a, *y = *(const kf_md_scram *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->mechanism > y->mechanism) - (x->mechanism < y->mechanism);
}
static int cmp_token(const void *a, const void *b)
{
    return strcmp((*(const kf_md_token *const *)a)->token_id, (*(const kf_md_token *const *)b)->token_id);
}

static bool view_of(const htab *h, md_view *out, int (*cmp)(const void *, const void *))
{
    out->v = malloc((h->n ? h->n : 1) * sizeof *out->v);
    if (!out->v)
        return false;
    HTAB_EACH(h, e)
    out->v[out->n++] = e->val;
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp);
    return true;
}

bool md_views_build(md_views *v, const md_image *im)
{
    memset(v, 0, sizeof *v);
    bool ok = view_of(&im->features, &v->features, cmp_feature) && view_of(&im->brokers, &v->brokers, cmp_broker) &&
              view_of(&im->controllers, &v->controllers, cmp_controller) &&
              view_of(&im->topics, &v->topics, cmp_topic) && view_of(&im->acls, &v->acls, cmp_acl) &&
              view_of(&im->scram, &v->scram, cmp_scram) && view_of(&im->tokens, &v->tokens, cmp_token);
    if (!ok) {
        md_views_free(v);
        return false;
    }
    /* configs and quotas: one per key across the resources / entities */
    size_t nc = 0, nq = 0;
    HTAB_EACH(&im->resources, e)
    nc += ((const md_resource *)e->val)->n;
    HTAB_EACH(&im->quotas, e)
    nq += ((const md_quota_entity *)e->val)->n;
    v->configs.v = malloc((nc ? nc : 1) * sizeof *v->configs.v);
    v->quotas.v = malloc((nq ? nq : 1) * sizeof *v->quotas.v);
    if (!v->configs.v || !v->quotas.v) {
        md_views_free(v);
        return false;
    }
    HTAB_EACH(&im->resources, e)
    {
        const md_resource *r = e->val;
        for (uint32_t i = 0; i < r->n; i++)
            v->configs.v[v->configs.n++] = r->cfg[i];
    }
    HTAB_EACH(&im->quotas, e)
    {
        const md_quota_entity *q = e->val;
        for (uint32_t i = 0; i < q->n; i++)
            v->quotas.v[v->quotas.n++] = q->q[i];
    }
    if (v->configs.n > 1)
        qsort(v->configs.v, v->configs.n, sizeof *v->configs.v, cmp_config);
    if (v->quotas.n > 1)
        qsort(v->quotas.v, v->quotas.n, sizeof *v->quotas.v, cmp_quota);
    return true;
}

void md_views_free(md_views *v)
{
    md_view *all[] = {&v->features, &v->brokers, &v->controllers, &v->topics, &v->configs,
                      &v->quotas,   &v->acls,    &v->scram,       &v->tokens};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free((void *)all[i]->v);
    memset(v, 0, sizeof *v);
}
