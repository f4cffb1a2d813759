/* compaction_keys.c: the compaction job's key table (compaction_keys.h):
 * a key's hash to the size of its latest record, by open addressing with
 * linear probing. Keys are only ever added or updated, never removed, so
 * probing needs no tombstones. */
#include "jobs/compaction_keys.h"

#include <stdlib.h>
#include <xxhash.h>

uint64_t ck_hash(const void *key, size_t len)
{
    uint64_t h = XXH3_64bits(key, len);
    return h ? h : 1;
}

/* The slot holding hash, or the empty slot where it goes. */
static size_t find_slot(const uint64_t *hashes, size_t cap, uint64_t hash)
{
    size_t mask = cap - 1;
    size_t i = (size_t)(hash ^ (hash >> 29)) & mask;
    while (hashes[i] && hashes[i] != hash)
        i = (i + 1) & mask;
    return i;
}

static int grow(ck_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    if (cap > SIZE_MAX / sizeof(uint64_t))
        return -1;
    uint64_t *h = calloc(cap, sizeof *h);
    uint32_t *l = malloc(cap * sizeof *l);
    if (!h || !l) {
        free(h);
        free(l);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->hashes[i])
            continue;
        size_t j = find_slot(h, cap, t->hashes[i]);
        h[j] = t->hashes[i];
        l[j] = t->latest[i];
    }
    free(t->hashes);
    free(t->latest);
    t->hashes = h;
    t->latest = l;
    t->cap = cap;
    return 0;
}

int ck_put(ck_table *t, uint64_t hash, uint32_t latest, uint32_t *prev)
{
    if (t->cap) {
        size_t i = find_slot(t->hashes, t->cap, hash);
        if (t->hashes[i]) {
            *prev = t->latest[i];
            t->latest[i] = latest;
            return 1;
        }
    }
    if ((t->n + 1) * 4 > t->cap * 3 && grow(t))
        return -1;
    size_t i = find_slot(t->hashes, t->cap, hash);
    t->hashes[i] = hash;
    t->latest[i] = latest;
    t->n++;
    return 0;
}

void ck_free(ck_table *t)
{
    free(t->hashes);
    free(t->latest);
    *t = (ck_table){0};
}
