/* htab.h: internal open-addressing hash table keyed by byte strings (keys
 * are copied; values are caller pointers). Linear probing with backward-
 * shift deletion, so lookups never cross tombstones (the loops of
 * openaddr.h); hashing by XXH3.
 *
 * The library's general hash table. The tables that keep slots of their
 * own type are in hot loops over integer or pre-hashed keys and say why,
 * with what was measured: the compaction job's key hashes
 * (compaction_keys.h), and on openaddr.h's loops the replay's committed
 * offsets (offsets_table.h), the producers of the producer-state rebuild
 * (producer_state.c), the stats histogram (stats.c), the sink's open files
 * (sink.c: emptied by one increment) and remote's partitions and segments
 * (remote_cache.c). */
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
/* Frees the table and its key copies (not the values). */
void htab_free(htab *h);

#endif
