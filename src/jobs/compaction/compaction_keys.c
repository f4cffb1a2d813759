/* compaction_keys.c: the compaction job's key table (compaction_keys.h):
 * a key's hash to the size of its latest record, by open addressing with
 * linear probing. Keys are only ever added or updated, never removed, so
 * probing needs no tombstones. */
#include "jobs/compaction/compaction_keys.h"

#include <stdbool.h>
#include <stdlib.h>
#define XXH_INLINE_ALL /* xxhash's header-only form: no libxxhash to load at start-up */
#include <xxhash.h>

uint64_t ck_hash(const void *key, size_t len)
{
    uint64_t h = XXH3_64bits(key, len);
    return h ? h : 1;
}

static size_t home(uint64_t hash, size_t cap) { return (size_t)(hash ^ (hash >> 32)) & (cap - 1); }

static bool holds(const ck_slot *s, uint64_t hash)
{
    return s->hash_lo == (uint32_t)hash && s->hash_hi == (uint32_t)(hash >> 32);
}

static bool empty(const ck_slot *s) { return !s->hash_lo && !s->hash_hi; }

/* The slot holding hash, or the empty slot where it goes. */
static ck_slot *find_slot(ck_slot *slots, size_t cap, uint64_t hash)
{
    size_t i = home(hash, cap);
    while (!empty(&slots[i]) && !holds(&slots[i], hash))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

void ck_prefetch(const ck_table *t, uint64_t hash)
{
    if (t->cap)
        __builtin_prefetch(&t->slots[home(hash, t->cap)], 1);
}

static int grow(ck_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    if (cap > SIZE_MAX / sizeof(ck_slot))
        return -1;
    ck_slot *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        const ck_slot *o = &t->slots[i];
        if (!empty(o))
            *find_slot(s, cap, (uint64_t)o->hash_hi << 32 | o->hash_lo) = *o;
    }
    free(t->slots);
    t->slots = s;
    t->cap = cap;
    return 0;
}

int ck_put(ck_table *t, uint64_t hash, uint32_t latest, uint32_t *prev)
{
    if (t->cap) {
        ck_slot *s = find_slot(t->slots, t->cap, hash);
        if (!empty(s)) {
            *prev = s->latest;
            s->latest = latest;
            return 1;
        }
    }
    if ((t->n + 1) * 4 > t->cap * 3 && grow(t))
        return -1;
    ck_slot *s = find_slot(t->slots, t->cap, hash);
    *s = (ck_slot){(uint32_t)hash, (uint32_t)(hash >> 32), latest};
    t->n++;
    return 0;
}

void ck_free(ck_table *t)
{
    free(t->slots);
    *t = (ck_table){0};
}
