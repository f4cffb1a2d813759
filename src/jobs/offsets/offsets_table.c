/* offsets_table.c: the replay's table of committed offsets
 * (offsets_table.h): open addressing with linear probing over (hash, row)
 * entries, backward-shift deletion, rows of one block each. */
#include "jobs/offsets/offsets_table.h"
#include "bytes/openaddr.h"

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

/* The table's entries on the probe loops of src/bytes/openaddr.h. */
static bool entry_used(const void *e, const void *ctx)
{
    return ((const offsets_entry *)e)->row != NULL;
}

static uint64_t entry_hash(const void *e, const void *ctx)
{
    return ((const offsets_entry *)e)->hash;
}

/* n zeroed entries; a table of megabytes on huge pages (random probes of a
 * table larger than the TLB reaches cost a page walk each). */
static void *entries_alloc(size_t n, size_t size)
{
    size_t bytes = n * size;
    if (bytes < HUGE_PAGE)
        return calloc(n, size);
    void *e = aligned_alloc(HUGE_PAGE, bytes);
    if (e) {
        (void)madvise(e, bytes, MADV_HUGEPAGE); /* advice only: 4 KiB pages do too */
        memset(e, 0, bytes);
    }
    return e;
}

static const kf_oa_shape shape = {
    .size = sizeof(offsets_entry), .used = entry_used, .hash = entry_hash, .zalloc = entries_alloc};

/* The slot a probe looks for. */
typedef struct slot_key {
    const uint8_t *key;
    uint32_t klen;
    int32_t src;
    uint64_t hash;
} slot_key;

static bool same_slot(const void *entry, const void *key, const void *ctx)
{
    const offsets_entry *e = entry;
    const slot_key *k = key;
    return e->hash == k->hash && e->row->klen == k->klen && e->row->v.source_partition == k->src &&
           memcmp(e->row->key, k->key, k->klen) == 0;
}

/* The entry holding the slot, or the free one where it would go; NULL when
 * the table has no entries. */
static offsets_entry *probe(const offsets_table *t, const slot_key *k)
{
    return kf_oa_lookup(&shape, t->e, t->cap, k->hash, same_slot, k, NULL);
}

offset_row *offsets_table_get(const offsets_table *t, const uint8_t *key, uint32_t klen, int32_t source_partition,
                              uint64_t hash)
{
    offsets_entry *e = probe(t, &(slot_key){key, klen, source_partition, hash});
    return e ? e->row : NULL;
}

bool offsets_table_put(offsets_table *t, offset_row *row, offset_row **old)
{
    slot_key k = {row->key, row->klen, row->v.source_partition, row->hash};
    offsets_entry *e = probe(t, &k);
    if (e && e->row) {
        *old = e->row;
        e->row = row;
        return true;
    }
    *old = NULL;
    if ((t->n + 1) * 4 > t->cap * 3) {
        if (!kf_oa_grow(&shape, &t->e, &t->cap, 64, NULL))
            return false;
        e = kf_oa_lookup(&shape, t->e, t->cap, k.hash, NULL, NULL, NULL);
    }
    *e = (offsets_entry){row->hash, row};
    t->n++;
    return true;
}

offset_row *offsets_table_del(offsets_table *t, const uint8_t *key, uint32_t klen, int32_t source_partition,
                              uint64_t hash)
{
    offsets_entry *e = probe(t, &(slot_key){key, klen, source_partition, hash});
    if (!e || !e->row)
        return NULL;
    offset_row *row = e->row;
    kf_oa_remove(&shape, t->e, t->cap, (size_t)(e - t->e), NULL);
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
