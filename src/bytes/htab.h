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

/* The value slot for key, created (val NULL, *created true) if missing.
 * NULL on allocation failure. */
void **htab_put(htab *h, const void *key, uint32_t klen, bool *created);
void *htab_get(const htab *h, const void *key, uint32_t klen);
/* Removes key; returns its value (NULL if absent). */
void *htab_del(htab *h, const void *key, uint32_t klen);
/* Frees the table and its key copies (not the values). */
void htab_free(htab *h);

#endif
