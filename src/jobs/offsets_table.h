/* offsets_table.h: the replay's table of committed offsets (replay.c), one
 * row per slot (group, topic, partition and the __consumer_offsets
 * partition it came from). A row is one block: the public value, the slot
 * key (whose group and topic are the value's strings) and the metadata, so
 * a commit touches the table entry and one block; entries are 16 bytes
 * (hash, row), and a large table asks for huge pages. A replay of millions
 * of commits over many keys spends its time in these cache and TLB misses.
 * Internal to the library. */
#ifndef KFSCK_JOBS_OFFSETS_TABLE_H
#define KFSCK_JOBS_OFFSETS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/replay.h"

typedef struct offset_row {
    kf_offset_value v;     /* first: a row is handed out as its value */
    uint64_t hash;         /* of the slot key (offsets_slot_hash) */
    uint32_t slen;         /* the slot key's length */
    uint32_t metadata_len; /* v.metadata's length */
    uint8_t slot[];        /* the slot key, then the metadata and a NUL */
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

/* The hash of a slot key. */
uint64_t offsets_slot_hash(const uint8_t *slot, uint32_t slen);

/* A row of slot (group \0 topic \0 and 8 bytes: the slot key replay.c
 * builds, its group group_len bytes long) with metadata, every other field
 * zero. NULL when out of memory. Freed with free(). */
offset_row *offset_row_new(const uint8_t *slot, uint32_t slen, uint64_t hash, uint32_t group_len,
                           const uint8_t *metadata, uint32_t metadata_len);

offset_row *offsets_table_get(const offsets_table *t, const uint8_t *slot, uint32_t slen, uint64_t hash);
/* Puts row in the table in place of the row of its slot, which goes to
 * *old (NULL when the slot was empty). False when out of memory (row not
 * put). */
bool offsets_table_put(offsets_table *t, offset_row *row, offset_row **old);
/* Takes the row of slot out of the table (NULL when none). */
offset_row *offsets_table_del(offsets_table *t, const uint8_t *slot, uint32_t slen, uint64_t hash);
/* Prefetches: the entry of hash; once it is cached, the row it holds. */
void offsets_table_prefetch(const offsets_table *t, uint64_t hash);
void offsets_table_prefetch_row(const offsets_table *t, uint64_t hash);
/* Frees the table and its rows. */
void offsets_table_free(offsets_table *t);

#endif
