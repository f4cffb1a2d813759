/* md_apply_security.c: security records applied to the image (AclsDelta,
 * ScramDelta, DelegationTokenDelta): ACLs added and removed, SCRAM
 * credentials and delegation tokens set and removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kraft/md_apply_internal.h"
#include "kfsck/sys/checkpoint.h"

md_apply md_acl_record(md_image *im, md_fields *r, md_why *why)
{
    const uint8_t *id = fuuid(r, "id");
    if (!id)
        return MD_NOT_APPLIED;
    kf_md_acl *a = calloc(1, sizeof *a);
    if (!a)
        return nomem(why);
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
        return nomem(why);
    }
    return md_put(&im->acls, id, 16, a, (void (*)(void *))md_acl_free) ? MD_APPLIED : nomem(why);
}

md_apply md_remove_acl(md_image *im, md_fields *r, md_why *why)
{
    const uint8_t *id = fuuid(r, "id");
    kf_md_acl *a = id ? htab_del(&im->acls, id, 16) : NULL;
    if (!a) {
        if (id) {
            char b64[23];
            kf_uuid_to_b64(id, b64);
            md_set_thrown(why, "java.lang.IllegalStateException",
                          "Failed to find existing ACL with ID %s in either image or changes", b64);
        }
        return md_no_such(why, "ACL", id);
    }
    md_acl_free(a);
    return MD_APPLIED;
}

static bool bytes_field(md_fields *r, const char *name, uint8_t **p, uint32_t *len)
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

md_apply md_scram_record(md_image *im, md_fields *r, int16_t key, md_why *why)
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
        return nomem(why);
    s->mechanism = mech;
    s->iterations = (int32_t)fint(r, "iterations", 0);
    bool ok = (s->name = md_dupn(name->p, name->len)) && bytes_field(r, "salt", &s->salt, &s->salt_len) &&
              bytes_field(r, "stored_key", &s->stored_key, &s->stored_key_len) &&
              bytes_field(r, "server_key", &s->server_key, &s->server_key_len);
    if (!ok) {
        md_scram_free(s);
        return nomem(why);
    }
    return md_put(&im->scram, k, klen, s, (void (*)(void *))md_scram_free) ? MD_APPLIED : nomem(why);
}

md_apply md_token_record(md_image *im, md_fields *r, int16_t key, md_why *why)
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
        return nomem(why);
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
        return nomem(why);
    }
    return md_put(&im->tokens, id->p, id->len, k, (void (*)(void *))md_token_free) ? MD_APPLIED : nomem(why);
}
