/* offsets_table.h: the replay's table of committed offsets (replay.c), one
 * row per slot: (group, topic, partition) and the __consumer_offsets
 * partition it came from. A slot is looked up by its offset key in the
 * bytes an offset commit's record key holds after its type, int16 length
 * and group, int16 length and topic, int32 partition, all big-endian
 * (docs/formats.md §11.1, §11.2), and by its source partition: a commit
 * is found from its record's own bytes, with no copy (a hash over bytes
 * just copied waits for the copy's stores). A row is one block: the public value, the
 * key, the group, topic and metadata strings, so a commit touches a table
 * entry and one block; entries are 16 bytes (hash, row), and a large table
 * asks for huge pages. A replay of millions of commits over many keys
 * spends its time in these cache and TLB misses, which is why this is not
 * the shared table (src/bytes/htab.h: an entry, a key copy and a value
 * block a commit): moving off it took the offsets bench (2.5 M commits
 * over 100 k keys) from 0.61 to 0.41 s of CPU and 41 to 32 MiB peak RSS.
 * Internal to the library. */
#ifndef KFSCK_JOBS_OFFSETS_TABLE_H
#define KFSCK_JOBS_OFFSETS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/replay.h"

typedef struct offset_row {
    kf_offset_value v;     /* first: a row is handed out as its value; its
                            * source_partition is the slot's */
    uint64_t hash;         /* offsets_slot_hash of the key and source partition */
    uint32_t klen;         /* the offset key's length */
    uint32_t metadata_len; /* v.metadata's length */
    uint8_t key[];         /* the offset key, then group, topic and metadata, each with a NUL */
} offset_row;

typedef struct offsets_entry {
    uint64_t hash;
    offset_row *row;       /* NULL: empty */
} offsets_entry;

typedef struct offsets_table {
    offsets_entry *e;
    size_t cap;            /* a power of two, or 0 */
    size_t n;
} offsets_table;

/* The hash of a slot: its offset key and source partition. */
uint64_t offsets_slot_hash(const uint8_t *key, uint32_t klen, int32_t source_partition);

/* The strings of a row. */
typedef struct offset_row_strings {
    const uint8_t *group, *topic, *metadata;
    uint32_t group_len, topic_len, metadata_len;
} offset_row_strings;

/* A row of the slot (key, source_partition; hash its offsets_slot_hash)
 * with strings s, every other field zero. NULL when out of memory. Freed
 * with free(). */
offset_row *offset_row_new(const uint8_t *key, uint32_t klen, int32_t source_partition, uint64_t hash,
                           const offset_row_strings *s);

offset_row *offsets_table_get(const offsets_table *t, const uint8_t *key, uint32_t klen, int32_t source_partition,
                              uint64_t hash);
/* Puts row in the table in place of the row of its slot, which goes to
 * *old (NULL when the slot was empty). False when out of memory (row not
 * put). */
bool offsets_table_put(offsets_table *t, offset_row *row, offset_row **old);
/* Takes the row of slot out of the table (NULL when none). */
offset_row *offsets_table_del(offsets_table *t, const uint8_t *key, uint32_t klen, int32_t source_partition,
                              uint64_t hash);
/* Prefetches: the entry of hash; once it is cached, the row it holds. */
void offsets_table_prefetch(const offsets_table *t, uint64_t hash);
void offsets_table_prefetch_row(const offsets_table *t, uint64_t hash);
/* Frees the table and its rows. */
void offsets_table_free(offsets_table *t);

#endif
