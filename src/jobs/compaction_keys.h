/* compaction_keys.h: internal. The key table of the compaction job: for
 * each distinct key of one partition its 64-bit hash and the size and kind
 * of its latest record, never the key's bytes. Open addressing with linear
 * probing over two arrays (8 + 4 bytes a slot), at most 3/4 full: 16 to
 * 32 bytes a key, doubled when full. */
#ifndef KFSCK_COMPACTION_KEYS_H
#define KFSCK_COMPACTION_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* A record's size with the tombstone bit: sizes are below 2^31. */
#define CK_TOMBSTONE 0x80000000u
#define CK_SIZE_MASK 0x7fffffffu

typedef struct ck_table {
    uint64_t *hashes;   /* 0: an empty slot (a key hashing to 0 is stored as 1) */
    uint32_t *latest;   /* the latest record's size | CK_TOMBSTONE */
    size_t cap;         /* a power of two, or 0 before the first key */
    size_t n;           /* keys held */
} ck_table;

/* The slot bytes of a table: what the man page says a key costs. */
#define CK_SLOT_BYTES (sizeof(uint64_t) + sizeof(uint32_t))

/* The key's hash as the table keeps it (XXH3-64 of its bytes). */
uint64_t ck_hash(const void *key, size_t len);

/* Make `latest` the key's latest record. Returns 1 when the key was there
 * (*prev: its record before), 0 when it is new, -1 out of memory (the table
 * is unchanged). */
int ck_put(ck_table *t, uint64_t hash, uint32_t latest, uint32_t *prev);

/* Empty the table, keeping nothing allocated. */
void ck_free(ck_table *t);

#endif
