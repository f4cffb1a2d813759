/* md_apply_configs.c: config and client-quota records applied to the image
 * (ConfigurationsDelta, ClientQuotasDelta): a resource's config set or
 * removed, and a quota entity's values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kraft/md_apply_internal.h"

md_apply md_config_record(md_image *im, const kf_kraft_config *r, md_why *why)
{
    int8_t type = r->resource_type;
    const kf_kraft_str *rn = &r->resource_name, *name = &r->name, *value = &r->value;
    if (!r->has_names || !r->has_value)
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
    if (!value->p) { /* null: delete the key; a resource with none left goes */
        if (found < 0)
            return MD_APPLIED;
        md_config_free(res->cfg[found]);
        res->cfg[found] = res->cfg[--res->n];
        if (!res->n)
            md_resource_free(htab_del(&im->resources, k, klen));
        return MD_APPLIED;
    }
    if (found >= 0 && strlen(res->cfg[found]->value) >= value->len) {
        /* a new value no longer than the old one is written over it */
        char *v = res->cfg[found]->value;
        memcpy(v, value->p, value->len);
        v[value->len] = 0;
        return MD_APPLIED;
    }
    if (!res) {
        res = calloc(1, sizeof *res);
        if (!res || !(res->name = md_dupn(rn->p, rn->len))) {
            free(res);
            return nomem(why);
        }
        res->type = type;
        if (!md_put(&im->resources, k, klen, res, (void (*)(void *))md_resource_free))
            return nomem(why);
    }
    char *v = md_dupn(value->p, value->len);
    if (!v)
        return nomem(why);
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
        return nomem(why);
    }
    if (res->n == res->cap) {
        uint32_t nc = res->cap ? res->cap * 2 : 8;
        kf_md_config **nv = realloc(res->cfg, nc * sizeof *nv);
        if (!nv) {
            md_config_free(c);
            return nomem(why);
        }
        res->cfg = nv;
        res->cap = nc;
    }
    res->cfg[res->n++] = c;
    return MD_APPLIED;
}

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

/* The first k (type, name) pairs of a quota's entity e, and e itself (NULL:
 * nothing). */
static void entities_free(kf_md_quota_entity *e, uint32_t k)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < k; i++) {
        free(e[i].type);
        free(e[i].name);
    }
    free(e);
}

md_apply md_quota_record(md_image *im, md_fields *r, md_why *why)
{
    const kf_dnode *ent = fld(r, "entity"), *key = fld(r, "key");
    if (!ent || ent->kind != KF_V_ARRAY || !key || key->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    uint32_t n = ent->n_children;
    kf_md_quota_entity *e = n ? calloc(n, sizeof *e) : NULL;
    if (n && !e)
        return nomem(why);
    bool nm = false;
    uint32_t k = 0;
    for (uint32_t c = ent->first_child; c != KF_DNODE_NONE && k < n; c = r->t->nodes[c].next, k++) {
        md_fields x = {.t = r->t, .st = &r->t->nodes[c]};
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
        entities_free(e, k);
        free(kb);
        return nomem(why);
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
            res = nomem(why);
            goto done;
        }
        qe->entity = e;
        qe->nentity = k;
        e = NULL;
        if (!md_put(&im->quotas, kb, (uint32_t)o, qe, (void (*)(void *))md_quota_entity_free)) {
            res = nomem(why);
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
        res = nomem(why);
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
            res = nomem(why);
            goto done;
        }
        qe->q = nv;
        qe->cap = nc;
    }
    qe->q[qe->n++] = q;
done:
    entities_free(e, k);
    free(kb);
    return res;
}
