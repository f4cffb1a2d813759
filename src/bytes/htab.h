/* htab.h: internal open-addressing hash table keyed by byte strings (keys
 * are copied; values are caller pointers). Linear probing with backward-
 * shift deletion, so lookups never cross tombstones; hashing by XXH3. */
#ifndef KFSCK_HTAB_H
#define KFSCK_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct htab_entry {
    uint64_t hash;
    uint8_t *key; /* NULL: empty slot */
    uint32_t klen;
    void *val;
} htab_entry;

typedef struct htab {
    htab_entry *e;
    size_t cap; /* power of two, or 0 */
    size_t n;
} htab;

/* A 64-bit integer scrambled for a power-of-two table of integer keys
 * (MurmurHash3's finaliser). */
static inline uint64_t htab_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* The value slot for key, created (val NULL, *created true) if missing.
 * NULL on allocation failure. */
void **htab_put(htab *h, const void *key, uint32_t klen, bool *created);
void *htab_get(const htab *h, const void *key, uint32_t klen);
/* Removes key; returns its value (NULL if absent). */
void *htab_del(htab *h, const void *key, uint32_t klen);
/* The same with the key's hash already computed (htab_hash), so a caller
 * can hash a run of keys first and prefetch their slots (htab_prefetch:
 * the slot; htab_prefetch_entry: once the slot is cached, the key and value
 * it holds) before looking them up: lookups of a large table are cache
 * misses, and this overlaps them. */
uint64_t htab_hash(const void *key, uint32_t klen);
void **htab_put_h(htab *h, const void *key, uint32_t klen, uint64_t hv, bool *created);
void *htab_get_h(const htab *h, const void *key, uint32_t klen, uint64_t hv);
void htab_prefetch(const htab *h, uint64_t hv);
void htab_prefetch_entry(const htab *h, uint64_t hv);
/* Frees the table and its key copies (not the values). */
void htab_free(htab *h);

#endif
