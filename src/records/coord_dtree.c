/* coord_dtree.c: the decoded-tree arena that the coordinator, KRaft and
 * consumer-protocol decoders fill (kf_dtree: one growing array of nodes,
 * linked by index) and the lookups callers read it with: a node's i-th
 * child, a struct's field by name, an integer field with a default
 * (include/kfsck/sys/coord.h). Nodes are added by the schema walker
 * (coord_walk.c). */
#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/coord.h"

void kf_dtree_reset(kf_dtree *t)
{
    if (t)
        t->n = 0;
}

void kf_dtree_free(kf_dtree *t)
{
    if (!t)
        return;
    free(t->nodes);
    t->nodes = NULL;
    t->n = t->cap = 0;
}

const kf_dnode *kf_dnode_child(const kf_dtree *t, const kf_dnode *n, uint32_t i)
{
    if (!t || !n)
        return NULL;
    uint32_t c = n->first_child;
    for (uint32_t k = 0; c != KF_DNODE_NONE && c < t->n; k++) {
        if (k == i)
            return &t->nodes[c];
        c = t->nodes[c].next;
    }
    return NULL;
}

const kf_dnode *kf_dnode_field(const kf_dtree *t, const kf_dnode *st, const char *name)
{
    if (!t || !st || !name || st->kind != KF_V_STRUCT)
        return NULL;
    for (uint32_t c = st->first_child; c != KF_DNODE_NONE && c < t->n; c = t->nodes[c].next) {
        /* equal literals are mostly one string after linking: the pointer
         * test settles most hits, the first character most misses */
        const char *n = t->nodes[c].name;
        if (n == name || (n && n[0] == name[0] && strcmp(n, name) == 0))
            return &t->nodes[c];
    }
    return NULL;
}

int64_t kf_dnode_int(const kf_dtree *t, const kf_dnode *st, const char *name, int64_t def)
{
    const kf_dnode *f = kf_dnode_field(t, st, name);
    return f && f->kind == KF_V_INT ? f->i : def;
}
