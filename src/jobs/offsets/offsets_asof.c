/* offsets_asof.c: the --as-of table folded from the change stream (see
 * offsets_asof.h). */
#include "jobs/offsets/offsets_asof.h"

#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/common.h"

void offsets_asof_init(offsets_asof *a, int64_t as_of)
{
    memset(a, 0, sizeof *a);
    a->as_of = as_of;
}

void offsets_asof_free(offsets_asof *a)
{
    for (size_t i = 0; i < a->table.cap; i++)
        if (a->table.e[i].key)
            free(a->table.e[i].val);
    htab_free(&a->table);
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

int offsets_asof_change(offsets_asof *a, const uint8_t *slot, uint32_t slen, const kf_offset_value *v, bool deleted)
{
    if (deleted) {
        free(htab_del(&a->table, slot, slen));
        return KF_OK;
    }
    void **s = htab_put(&a->table, slot, slen, NULL);
    if (!s)
        return kf_error_nomem();
    kf_offset_value *old = *s;
    if (old && strlen(old->metadata) == strlen(v->metadata)) {
        /* a re-commit of the same slot (same group and topic) whose metadata
         * has the old length, as re-commits usually do: the block is reused */
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
        return kf_error_nomem();
    free(old);
    *s = c;
    return KF_OK;
}
