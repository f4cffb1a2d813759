/* offsets_asof.c: the --as-of table folded from the change stream (see
 * offsets_asof.h). */
#include "jobs/offsets/offsets_asof.h"

#include <stdlib.h>
#include <string.h>

#include "kfsck/common.h"

/* the mark of a held-back deletion */
static kf_offset_value deleted_mark;

void offsets_asof_init(offsets_asof *a, int64_t as_of)
{
    memset(a, 0, sizeof *a);
    a->as_of = as_of;
}

static void free_value(void *v)
{
    if (v != &deleted_mark)
        free(v);
}

static void free_all(htab *h)
{
    for (size_t i = 0; i < h->cap; i++)
        if (h->e[i].key)
            free_value(h->e[i].val);
    htab_free(h);
}

void offsets_asof_free(offsets_asof *a)
{
    free_all(&a->table);
    free_all(&a->held);
}

/* A copy in one block (the struct, then group, topic and metadata). */
static kf_offset_value *copy_value(const kf_offset_value *v)
{
    size_t gl = strlen(v->group), tl = strlen(v->topic), ml = strlen(v->metadata);
    kf_offset_value *c = malloc(sizeof *c + gl + 1 + tl + 1 + ml + 1);
    if (!c)
        return NULL;
    *c = *v;
    char *s = (char *)(c + 1);
    memcpy(s, v->group, gl + 1);
    c->group = s;
    s += gl + 1;
    memcpy(s, v->topic, tl + 1);
    c->topic = s;
    s += tl + 1;
    memcpy(s, v->metadata, ml + 1);
    c->metadata = s;
    return c;
}

/* *slot becomes a copy of v (or the deletion mark), reusing the old block
 * when its metadata has the same length: re-commits usually do. */
static int set_value(void **slot, const kf_offset_value *v, bool deleted)
{
    kf_offset_value *old = *slot;
    if (deleted) {
        free_value(old);
        *slot = &deleted_mark;
        return KF_OK;
    }
    if (old && old != &deleted_mark && strlen(old->metadata) == strlen(v->metadata)) {
        /* same slot: same group and topic */
        const char *g = old->group, *t = old->topic;
        char *m = (char *)old->metadata;
        memcpy(m, v->metadata, strlen(v->metadata) + 1);
        *old = *v;
        old->group = g;
        old->topic = t;
        old->metadata = m;
        return KF_OK;
    }
    kf_offset_value *c = copy_value(v);
    if (!c)
        return KF_ERR_NOMEM;
    free_value(old);
    *slot = c;
    return KF_OK;
}

/* The table after one more change (a value, or the deletion mark). */
static int table_apply(offsets_asof *a, const uint8_t *slot, uint32_t slen, const kf_offset_value *v, bool deleted)
{
    if (deleted) {
        free_value(htab_del(&a->table, slot, slen));
        return KF_OK;
    }
    void **s = htab_put(&a->table, slot, slen, NULL);
    return s ? set_value(s, v, false) : KF_ERR_NOMEM;
}

/* The held-back changes join the prefix (their values move, no copy). */
static int fold_held(offsets_asof *a)
{
    int rc = KF_OK;
    for (size_t i = 0; i < a->held.cap; i++) {
        htab_entry *e = &a->held.e[i];
        if (!e->key)
            continue;
        if (e->val == &deleted_mark) {
            free_value(htab_del(&a->table, e->key, e->klen));
            continue;
        }
        void **s = htab_put(&a->table, e->key, e->klen, NULL);
        if (!s) {
            rc = KF_ERR_NOMEM;
            continue;
        }
        free_value(*s);
        *s = e->val;
        e->val = NULL;
    }
    free_all(&a->held);
    return rc;
}

int offsets_asof_change(offsets_asof *a, const uint8_t *slot, uint32_t slen, const kf_offset_value *v, bool deleted,
                        int64_t time)
{
    a->seen++;
    if (time > a->as_of) {
        /* in the prefix only if a later change qualifies: hold it back */
        void **s = htab_put(&a->held, slot, slen, NULL);
        return s ? set_value(s, v, deleted) : KF_ERR_NOMEM;
    }
    a->prefix = a->seen;
    int rc = a->held.n ? fold_held(a) : KF_OK;
    int rc2 = table_apply(a, slot, slen, v, deleted);
    return rc != KF_OK ? rc : rc2;
}
