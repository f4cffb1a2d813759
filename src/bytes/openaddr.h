/* openaddr.h: the probe loops of the library's open-addressing tables.
 *
 * Every hash table in the library is an array of a power-of-two number of
 * slots with linear probing: an entry's probe starts at its hash & (cap -
 * 1) and goes on slot by slot (wrapping) to the first free one. A table
 * grows by moving its entries into a larger array, and removes an entry by
 * backward shift (the later entries of its run pulled into the hole), so
 * no lookup ever crosses a tombstone. These loops are written once, here.
 *
 * What differs between the tables is the slot: htab.h's (a hash, a copied
 * key and a value pointer) is the general one; the tables in hot loops keep
 * slots of their own type (an index, a hash and an index, a bucket with its
 * counts inline) and say, where they are defined, why and what it
 * measured. A table describes its slot to the loops with a kf_oa_shape: its
 * size, whether one holds an entry, and the hash of the entry it holds.
 *
 * The functions are always inlined. Called with a shape that is a static
 * const of the table's own callbacks, the compiler makes each call the
 * table's own loop with the callbacks inlined (no call through a pointer),
 * which is what kept each table's speed when its hand-written loops moved
 * here. Internal to the library. */
#ifndef KFSCK_BYTES_OPENADDR_H
#define KFSCK_BYTES_OPENADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/htab.h"

#define KF_OA_INLINE static inline __attribute__((always_inline))

/* The slot of a table. ctx is the table's, passed on to every call (an
 * index table's entries, a generation). */
typedef struct kf_oa_shape {
    size_t size; /* bytes of a slot */
    /* Whether slot holds an entry. A slot of zero bytes never does. */
    bool (*used)(const void *slot, const void *ctx);
    /* The hash of the entry slot holds: its probe starts at hash & (cap - 1). */
    uint64_t (*hash)(const void *slot, const void *ctx);
    /* n zeroed slots of size bytes, freed by free() (NULL: calloc). */
    void *(*zalloc)(size_t n, size_t size);
} kf_oa_shape;

/* Whether key is the entry a used slot holds. */
typedef bool kf_oa_match(const void *slot, const void *key, const void *ctx);

/* A shape's callbacks for slots that begin with an int64_t key (a time
 * bucket's start): its hash (htab_mix64), and whether it is *(const
 * int64_t *)key (the kf_oa_match of a lookup). */
static inline uint64_t kf_oa_int64_hash(const void *slot, const void *ctx)
{
    return htab_mix64((uint64_t)*(const int64_t *)slot);
}

static inline bool kf_oa_int64_is(const void *slot, const void *key, const void *ctx)
{
    return *(const int64_t *)slot == *(const int64_t *)key;
}

/* The address of slot i. */
KF_OA_INLINE void *kf_oa_at(const kf_oa_shape *sh, const void *slots, size_t i)
{
    return (char *)slots + i * sh->size;
}

/* On the probe of hash in slots[0..cap) (cap a power of two, at least one
 * slot free): the index of the first slot that holds key (match; NULL
 * matches nothing) or else is free, whichever comes first. */
KF_OA_INLINE size_t kf_oa_probe(const kf_oa_shape *sh, const void *slots, size_t cap, uint64_t hash,
                                kf_oa_match *match, const void *key, const void *ctx)
{
    size_t mask = cap - 1, i = (size_t)hash & mask;
    for (;; i = (i + 1) & mask) {
        const void *s = kf_oa_at(sh, slots, i);
        if (!sh->used(s, ctx) || (match && match(s, key, ctx)))
            return i;
    }
}

/* kf_oa_probe's slot (its address), or NULL when the table has no slots
 * (cap 0). */
KF_OA_INLINE void *kf_oa_lookup(const kf_oa_shape *sh, const void *slots, size_t cap, uint64_t hash,
                                kf_oa_match *match, const void *key, const void *ctx)
{
    return cap ? kf_oa_at(sh, slots, kf_oa_probe(sh, slots, cap, hash, match, key, ctx)) : NULL;
}

/* Moves the entries of slots[0..cap) into to[0..tcap), whose slots are all
 * free and enough for them (a table's growth). */
KF_OA_INLINE void kf_oa_move(const kf_oa_shape *sh, void *to, size_t tcap, const void *slots, size_t cap,
                             const void *ctx)
{
    for (size_t i = 0; i < cap; i++) {
        const void *s = kf_oa_at(sh, slots, i);
        if (sh->used(s, ctx))
            memcpy(kf_oa_at(sh, to, kf_oa_probe(sh, to, tcap, sh->hash(s, ctx), NULL, NULL, ctx)), s, sh->size);
    }
}

/* Grows a table to twice its slots (first when it has none): *pslots, the
 * address of the table's pointer to its cap slots, then points to a new
 * array of zeroed (so free) slots holding the same entries, and *cap is
 * their number; the old array is freed. False when out of memory or too
 * large (the table unchanged). */
KF_OA_INLINE bool kf_oa_grow(const kf_oa_shape *sh, void *pslots, size_t *cap, size_t first, const void *ctx)
{
    size_t ncap = *cap ? *cap * 2 : first;
    if (ncap <= *cap || ncap > SIZE_MAX / sh->size)
        return false;
    void *slots, *to = sh->zalloc ? sh->zalloc(ncap, sh->size) : calloc(ncap, sh->size);
    if (!to)
        return false;
    memcpy(&slots, pslots, sizeof slots); /* the table's pointer, whatever its type */
    kf_oa_move(sh, to, ncap, slots, *cap, ctx);
    free(slots);
    memcpy(pslots, &to, sizeof to);
    *cap = ncap;
    return true;
}

/* Empties slot i of slots[0..cap) by backward shift: every later entry of
 * its run whose home is not between the hole and itself moves into the
 * hole, which moves on to where it was; the last hole is zeroed. */
KF_OA_INLINE void kf_oa_remove(const kf_oa_shape *sh, void *slots, size_t cap, size_t i, const void *ctx)
{
    size_t mask = cap - 1;
    for (size_t j = (i + 1) & mask; sh->used(kf_oa_at(sh, slots, j), ctx); j = (j + 1) & mask) {
        size_t home = (size_t)sh->hash(kf_oa_at(sh, slots, j), ctx) & mask;
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            memcpy(kf_oa_at(sh, slots, i), kf_oa_at(sh, slots, j), sh->size);
            i = j;
        }
    }
    memset(kf_oa_at(sh, slots, i), 0, sh->size);
}

#endif
