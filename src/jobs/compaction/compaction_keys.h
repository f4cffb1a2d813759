/* compaction_keys.h: internal. The key table of the compaction job: for
 * each distinct key of one partition its 64-bit hash and the size and kind
 * of its latest record, never the key's bytes. Open addressing with linear
 * probing over 12-byte slots (the hash and the record in one place, so a
 * lookup touches one cache line), at most 3/4 full and doubled when full:
 * 16 to 32 bytes a key. Not the shared table (src/bytes/htab.h), which
 * keeps a copy of each key and a 32-byte entry: measured on the same 64-bit
 * hashes (10 M puts over 1 M distinct keys, -O2, a loaded 2-core VM), 25
 * vs 99 bytes a key and 67 vs 261 ns a put. */
#ifndef KFSCK_COMPACTION_KEYS_H
#define KFSCK_COMPACTION_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* A record's size with the tombstone bit: sizes are below 2^31. */
#define CK_TOMBSTONE 0x80000000u
#define CK_SIZE_MASK 0x7fffffffu

/* One slot: the hash in two halves (0/0: empty; a key hashing to 0 is
 * stored as 1) and the latest record's size | CK_TOMBSTONE. */
typedef struct ck_slot {
    uint32_t hash_lo, hash_hi, latest;
} ck_slot;

typedef struct ck_table {
    ck_slot *slots;
    size_t cap;         /* a power of two, or 0 before the first key */
    size_t n;           /* keys held */
} ck_table;

/* The slot bytes of a table: what the man page says a key costs. */
#define CK_SLOT_BYTES sizeof(ck_slot)

/* The key's hash as the table keeps it (XXH3-64 of its bytes). */
uint64_t ck_hash(const void *key, size_t len);

/* Ask the memory system for the slot where hash would go (a hint, for a
 * run of puts whose hashes are known ahead). */
void ck_prefetch(const ck_table *t, uint64_t hash);

/* Make `latest` the key's latest record. Returns 1 when the key was there
 * (*prev: its record before), 0 when it is new, -1 out of memory (the table
 * is unchanged). */
int ck_put(ck_table *t, uint64_t hash, uint32_t latest, uint32_t *prev);

/* Empty the table, keeping nothing allocated. */
void ck_free(ck_table *t);

#endif
