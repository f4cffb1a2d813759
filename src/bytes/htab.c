/* htab.c: the byte-keyed hash table of htab.h. Hand-written because the
 * replay needs only put/get/delete over copied byte keys and C has no
 * standard table: its slot on the probe loops of openaddr.h; hashing itself
 * is xxhash's XXH3, compiled in from its header. */
#include "bytes/htab.h"
#include "bytes/openaddr.h"

#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL /* xxhash's header-only form: no libxxhash to load at start-up */
#include <xxhash.h>

static uint64_t hash_of(const void *key, uint32_t klen) { return XXH3_64bits(key, klen); }

static bool entry_used(const void *slot, const void *ctx)
{
    return ((const htab_entry *)slot)->key != NULL;
}

static uint64_t entry_hash(const void *slot, const void *ctx)
{
    return ((const htab_entry *)slot)->hash;
}

static const kf_oa_shape shape = {.size = sizeof(htab_entry), .used = entry_used, .hash = entry_hash};

/* The key a probe looks for. */
typedef struct probe_key {
    const void *key;
    uint32_t klen;
    uint64_t hash;
} probe_key;

static bool entry_is(const void *slot, const void *key, const void *ctx)
{
    const htab_entry *e = slot;
    const probe_key *k = key;
    return e->hash == k->hash && e->klen == k->klen && memcmp(e->key, k->key, k->klen) == 0;
}

void **htab_put(htab *h, const void *key, uint32_t klen, bool *created)
{
    probe_key k = {key, klen, hash_of(key, klen)};
    htab_entry *e = kf_oa_lookup(&shape, h->e, h->cap, k.hash, entry_is, &k, NULL);
    if (e && e->key) {
        if (created)
            *created = false;
        return &e->val;
    }
    if ((h->n + 1) * 4 > h->cap * 3) {
        if (!kf_oa_grow(&shape, &h->e, &h->cap, 64, NULL))
            return NULL;
        e = kf_oa_lookup(&shape, h->e, h->cap, k.hash, NULL, NULL, NULL);
    }
    uint8_t *copy = malloc(klen ? klen : 1);
    if (!copy)
        return NULL;
    memcpy(copy, key, klen);
    *e = (htab_entry){k.hash, copy, klen, NULL};
    h->n++;
    if (created)
        *created = true;
    return &e->val;
}

/* The slot holding key, or the free one where it would go; NULL when the
 * table has no slots. */
static htab_entry *probe(const htab *h, const void *key, uint32_t klen)
{
    probe_key k = {key, klen, hash_of(key, klen)};
    return kf_oa_lookup(&shape, h->e, h->cap, k.hash, entry_is, &k, NULL);
}

void *htab_get(const htab *h, const void *key, uint32_t klen)
{
    htab_entry *e = probe(h, key, klen);
    return e && e->key ? e->val : NULL;
}

void *htab_del(htab *h, const void *key, uint32_t klen)
{
    htab_entry *e = probe(h, key, klen);
    if (!e || !e->key)
        return NULL;
    void *val = e->val;
    free(e->key);
    kf_oa_remove(&shape, h->e, h->cap, (size_t)(e - h->e), NULL);
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
