/* offsets_table.c: the replay's table of committed offsets
 * (offsets_table.h): open addressing with linear probing over (hash, row)
 * entries, backward-shift deletion, rows of one block each. */
#include "jobs/offsets_table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* XXH3 compiled in here: the hash of every commit's slot key */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define HUGE_PAGE ((size_t)2 << 20)

uint64_t offsets_slot_hash(const uint8_t *slot, uint32_t slen) { return XXH3_64bits(slot, slen); }

offset_row *offset_row_new(const uint8_t *slot, uint32_t slen, uint64_t hash, uint32_t group_len,
                           const uint8_t *metadata, uint32_t metadata_len)
{
    offset_row *r = malloc(sizeof *r + (size_t)slen + metadata_len + 1);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    memcpy(r->slot, slot, slen);
    char *m = (char *)r->slot + slen;
    if (metadata_len)
        memcpy(m, metadata, metadata_len);
    m[metadata_len] = 0;
    r->hash = hash;
    r->slen = slen;
    r->metadata_len = metadata_len;
    r->v.group = (const char *)r->slot;
    r->v.topic = (const char *)r->slot + group_len + 1;
    r->v.metadata = m;
    return r;
}

static bool same_slot(const offsets_entry *e, const uint8_t *slot, uint32_t slen, uint64_t hash)
{
    return e->hash == hash && e->row->slen == slen && memcmp(e->row->slot, slot, slen) == 0;
}

static offsets_entry *find(const offsets_table *t, const uint8_t *slot, uint32_t slen, uint64_t hash)
{
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    for (size_t j = hash & mask; t->e[j].row; j = (j + 1) & mask)
        if (same_slot(&t->e[j], slot, slen, hash))
            return &t->e[j];
    return NULL;
}

/* Zeroed entries; a table of megabytes on huge pages (random probes of a
 * table larger than the TLB reaches cost a page walk each). */
static offsets_entry *entries_alloc(size_t cap)
{
    size_t bytes = cap * sizeof(offsets_entry);
    if (bytes < HUGE_PAGE)
        return calloc(cap, sizeof(offsets_entry));
    offsets_entry *e = aligned_alloc(HUGE_PAGE, bytes);
    if (e) {
        (void)madvise(e, bytes, MADV_HUGEPAGE); /* advice only: 4 KiB pages do too */
        memset(e, 0, bytes);
    }
    return e;
}

static bool grow(offsets_table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    offsets_entry *ne = entries_alloc(ncap);
    if (!ne)
        return false;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].row)
            continue;
        size_t j = t->e[i].hash & (ncap - 1);
        while (ne[j].row)
            j = (j + 1) & (ncap - 1);
        ne[j] = t->e[i];
    }
    free(t->e);
    t->e = ne;
    t->cap = ncap;
    return true;
}

offset_row *offsets_table_get(const offsets_table *t, const uint8_t *slot, uint32_t slen, uint64_t hash)
{
    offsets_entry *e = find(t, slot, slen, hash);
    return e ? e->row : NULL;
}

bool offsets_table_put(offsets_table *t, offset_row *row, offset_row **old)
{
    offsets_entry *e = find(t, row->slot, row->slen, row->hash);
    if (e) {
        *old = e->row;
        e->row = row;
        return true;
    }
    *old = NULL;
    if ((t->n + 1) * 4 > t->cap * 3 && !grow(t))
        return false;
    size_t j = row->hash & (t->cap - 1);
    while (t->e[j].row)
        j = (j + 1) & (t->cap - 1);
    t->e[j] = (offsets_entry){row->hash, row};
    t->n++;
    return true;
}

offset_row *offsets_table_del(offsets_table *t, const uint8_t *slot, uint32_t slen, uint64_t hash)
{
    offsets_entry *e = find(t, slot, slen, hash);
    if (!e)
        return NULL;
    offset_row *row = e->row;
    size_t mask = t->cap - 1;
    size_t i = (size_t)(e - t->e);
    /* backward shift: pull later entries of the probe run into the hole */
    for (size_t j = (i + 1) & mask; t->e[j].row; j = (j + 1) & mask) {
        size_t home = t->e[j].hash & mask;
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (between)
            continue;
        t->e[i] = t->e[j];
        i = j;
    }
    t->e[i] = (offsets_entry){0, NULL};
    t->n--;
    return row;
}

void offsets_table_prefetch(const offsets_table *t, uint64_t hash)
{
    if (t->cap)
        __builtin_prefetch(&t->e[hash & (t->cap - 1)]);
}

void offsets_table_prefetch_row(const offsets_table *t, uint64_t hash)
{
    if (!t->cap)
        return;
    const offsets_entry *e = &t->e[hash & (t->cap - 1)];
    if (e->row && e->hash == hash) {
        /* the value's fields, the slot key and the metadata: up to three lines */
        const char *p = (const char *)e->row;
        __builtin_prefetch(p, 1);
        __builtin_prefetch(p + 64, 1);
        __builtin_prefetch(p + 128, 1);
    }
}

void offsets_table_free(offsets_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->e[i].row);
    free(t->e);
    t->e = NULL;
    t->cap = t->n = 0;
}
