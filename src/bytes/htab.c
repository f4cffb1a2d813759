/* htab.c: the byte-keyed hash table of htab.h. Hand-written because the
 * replay needs only put/get/delete over copied byte keys and C has no
 * standard table; hashing itself is xxhash's XXH3, compiled in from its header. */
#include "bytes/htab.h"

#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL /* xxhash's header-only form: no libxxhash to load at start-up */
#include <xxhash.h>

static uint64_t hash_of(const void *key, uint32_t klen) { return XXH3_64bits(key, klen); }

static bool grow(htab *h)
{
    size_t ncap = h->cap ? h->cap * 2 : 64;
    htab_entry *ne = calloc(ncap, sizeof *ne);
    if (!ne)
        return false;
    for (size_t i = 0; i < h->cap; i++) {
        htab_entry *o = &h->e[i];
        if (!o->key)
            continue;
        size_t j = o->hash & (ncap - 1);
        while (ne[j].key)
            j = (j + 1) & (ncap - 1);
        ne[j] = *o;
    }
    free(h->e);
    h->e = ne;
    h->cap = ncap;
    return true;
}

static htab_entry *find(const htab *h, const void *key, uint32_t klen, uint64_t hv)
{
    if (!h->cap)
        return NULL;
    size_t j = hv & (h->cap - 1);
    while (h->e[j].key) {
        htab_entry *e = &h->e[j];
        if (e->hash == hv && e->klen == klen && memcmp(e->key, key, klen) == 0)
            return e;
        j = (j + 1) & (h->cap - 1);
    }
    return NULL;
}

void **htab_put(htab *h, const void *key, uint32_t klen, bool *created)
{
    uint64_t hv = hash_of(key, klen);
    htab_entry *e = find(h, key, klen, hv);
    if (e) {
        if (created)
            *created = false;
        return &e->val;
    }
    if ((h->n + 1) * 4 > h->cap * 3 && !grow(h))
        return NULL;
    uint8_t *k = malloc(klen ? klen : 1);
    if (!k)
        return NULL;
    memcpy(k, key, klen);
    size_t j = hv & (h->cap - 1);
    while (h->e[j].key)
        j = (j + 1) & (h->cap - 1);
    h->e[j] = (htab_entry){hv, k, klen, NULL};
    h->n++;
    if (created)
        *created = true;
    return &h->e[j].val;
}

void *htab_get(const htab *h, const void *key, uint32_t klen)
{
    htab_entry *e = find(h, key, klen, hash_of(key, klen));
    return e ? e->val : NULL;
}

void *htab_del(htab *h, const void *key, uint32_t klen)
{
    htab_entry *e = find(h, key, klen, hash_of(key, klen));
    if (!e)
        return NULL;
    void *val = e->val;
    free(e->key);
    size_t mask = h->cap - 1;
    size_t i = (size_t)(e - h->e);
    /* backward-shift: pull later entries of the probe run into the hole */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!h->e[j].key)
            break;
        size_t home = h->e[j].hash & mask;
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (between)
            continue;
        h->e[i] = h->e[j];
        i = j;
    }
    h->e[i] = (htab_entry){0, NULL, 0, NULL};
    h->n--;
    return val;
}

void htab_free(htab *h)
{
    for (size_t i = 0; i < h->cap; i++)
        free(h->e[i].key);
    free(h->e);
    h->e = NULL;
    h->cap = h->n = 0;
}
