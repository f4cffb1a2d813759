/* offsets_table.c: the replay's table of committed offsets
 * (offsets_table.h): open addressing with linear probing over (hash, row)
 * entries, backward-shift deletion, rows of one block each. */
#include "jobs/offsets/offsets_table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* XXH3 compiled in here: the hash of every commit's slot key */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define HUGE_PAGE ((size_t)2 << 20)

uint64_t offsets_slot_hash(const uint8_t *key, uint32_t klen, int32_t source_partition)
{
    return XXH3_64bits_withSeed(key, klen, (uint32_t)source_partition);
}

/* s (n bytes) and a NUL at p; the string. */
static char *put_string(char *p, const uint8_t *s, uint32_t n)
{
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    return p;
}

offset_row *offset_row_new(const uint8_t *key, uint32_t klen, int32_t source_partition, uint64_t hash,
                           const offset_row_strings *s)
{
    offset_row *r =
        malloc(sizeof *r + (size_t)klen + s->group_len + 1 + s->topic_len + 1 + s->metadata_len + 1);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    memcpy(r->key, key, klen);
    char *p = (char *)r->key + klen;
    r->v.group = put_string(p, s->group, s->group_len);
    p += s->group_len + 1;
    r->v.topic = put_string(p, s->topic, s->topic_len);
    p += s->topic_len + 1;
    r->v.metadata = put_string(p, s->metadata, s->metadata_len);
    r->v.source_partition = source_partition;
    r->hash = hash;
    r->klen = klen;
    r->metadata_len = s->metadata_len;
    return r;
}

static bool same_slot(const offsets_entry *e, const uint8_t *key, uint32_t klen, int32_t src, uint64_t hash)
{
    return e->hash == hash && e->row->klen == klen && e->row->v.source_partition == src &&
           memcmp(e->row->key, key, klen) == 0;
}

static offsets_entry *find(const offsets_table *t, const uint8_t *key, uint32_t klen, int32_t src, uint64_t hash)
{
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    for (size_t j = hash & mask; t->e[j].row; j = (j + 1) & mask)
        if (same_slot(&t->e[j], key, klen, src, hash))
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

offset_row *offsets_table_get(const offsets_table *t, const uint8_t *key, uint32_t klen, int32_t source_partition,
                              uint64_t hash)
{
    offsets_entry *e = find(t, key, klen, source_partition, hash);
    return e ? e->row : NULL;
}

bool offsets_table_put(offsets_table *t, offset_row *row, offset_row **old)
{
    offsets_entry *e = find(t, row->key, row->klen, row->v.source_partition, row->hash);
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

offset_row *offsets_table_del(offsets_table *t, const uint8_t *key, uint32_t klen, int32_t source_partition,
                              uint64_t hash)
{
    offsets_entry *e = find(t, key, klen, source_partition, hash);
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
        /* the value's fields, the key and the metadata: up to three lines */
        const char *p = (const char *)e->row;
        __builtin_prefetch(p, 1);
        __builtin_prefetch(p + 64, 1);
        __builtin_prefetch(p + 128, 1);
    }
}

void offsets_table_free(offsets_table *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        /* free() reads the header before each row: a miss per row otherwise */
        if (i + 8 < t->cap && t->e[i + 8].row)
            __builtin_prefetch((const char *)t->e[i + 8].row - 16);
        free(t->e[i].row);
    }
    free(t->e);
    t->e = NULL;
    t->cap = t->n = 0;
}
