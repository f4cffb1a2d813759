/* offsets_sort.c: sorting the committed table (offsets_sort.h). A table
 * has many rows and few names: each distinct group and topic gets its rank
 * among the names first (one pass over the rows numbers the names in a hash
 * table, then the names alone are sorted), and the rows are sorted by
 * integers, (group rank, topic rank) then (partition, source partition),
 * by a radix sort, instead of by two strcmp calls through pointers to rows
 * scattered over the heap per comparison. */
#include "jobs/offsets/offsets_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/htab.h"

static int cmp_rows(const void *a, const void *b)
{
    const kf_offset_value *x = *(const kf_offset_value *const *)a, *y = *(const kf_offset_value *const *)b;
    int c = strcmp(x->group, y->group);
    if (c)
        return c;
    if ((c = strcmp(x->topic, y->topic)))
        return c;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return x->source_partition < y->source_partition ? -1 : x->source_partition > y->source_partition;
}

typedef struct sort_item {
    uint64_t names;   /* group rank << 32 | topic rank */
    uint64_t numbers; /* partition, source partition, as unsigned in the same order */
    const kf_offset_value *v;
} sort_item;

/* Byte d of an item's 16-byte key, 0 the least significant. */
static unsigned key_byte(const sort_item *it, unsigned d)
{
    return (unsigned)((d < 8 ? it->numbers >> (8 * d) : it->names >> (8 * (d - 8))) & 0xff);
}

/* Sorts items[0..n) by (names, numbers): a least-significant-digit radix
 * sort by bytes, one counting pass for every byte, then one stable
 * scattering pass for each byte that is not the same in every item (a few:
 * ranks and partitions are small numbers). tmp holds n items. */
static void radix_sort(sort_item *items, sort_item *tmp, size_t n)
{
    size_t count[16][256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        for (unsigned d = 0; d < 16; d++)
            count[d][key_byte(&items[i], d)]++;
    sort_item *from = items, *to = tmp;
    for (unsigned d = 0; d < 16; d++) {
        if (!n || count[d][key_byte(&items[0], d)] == n)
            continue; /* the same byte everywhere: nothing to order */
        size_t pos[256], sum = 0;
        for (unsigned b = 0; b < 256; b++) {
            pos[b] = sum;
            sum += count[d][b];
        }
        for (size_t i = 0; i < n; i++)
            to[pos[key_byte(&from[i], d)]++] = from[i];
        sort_item *t = from;
        from = to;
        to = t;
    }
    if (from != items)
        memcpy(items, from, n * sizeof *items);
}

/* Distinct names, numbered in the order they are met. */
typedef struct name_ids {
    htab ids;            /* name -> (void *)(id + 1) */
    const char **names;  /* by id */
    uint32_t *rank;      /* by id: the rank of the name in strcmp order */
    size_t n;
} name_ids;

/* The id of s (a name of one of the n rows); UINT32_MAX when out of memory. */
static uint32_t name_id(name_ids *t, const char *s)
{
    bool created;
    void **slot = htab_put(&t->ids, s, (uint32_t)strlen(s), &created);
    if (!slot)
        return UINT32_MAX;
    if (created) {
        t->names[t->n] = s;
        *slot = (void *)(uintptr_t)++t->n;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Each id's rank: the names sorted, then their ids looked up again. */
static bool rank_names(name_ids *t)
{
    const char **sorted = malloc((t->n ? t->n : 1) * sizeof *sorted);
    t->rank = malloc((t->n ? t->n : 1) * sizeof *t->rank);
    if (!sorted || !t->rank) {
        free(sorted);
        return false;
    }
    memcpy(sorted, t->names, t->n * sizeof *sorted);
    qsort(sorted, t->n, sizeof *sorted, cmp_names);
    for (size_t i = 0; i < t->n; i++)
        t->rank[(uintptr_t)htab_get(&t->ids, sorted[i], (uint32_t)strlen(sorted[i])) - 1] = (uint32_t)i;
    free(sorted);
    return true;
}

static void name_ids_free(name_ids *t)
{
    htab_free(&t->ids);
    free(t->names);
    free(t->rank);
}

/* Items of the rows with their name ids in names, then ranks. */
static bool sort_items(const kf_offset_value **v, size_t n, sort_item *items)
{
    name_ids g = {0}, t = {0};
    g.names = malloc((n ? n : 1) * sizeof *g.names);
    t.names = malloc((n ? n : 1) * sizeof *t.names);
    bool ok = g.names && t.names;
    for (size_t i = 0; i < n && ok; i++) {
        if (i + 8 < n) { /* the rows lie all over the heap: a value and its names */
            const char *ahead = (const char *)v[i + 8];
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 64);
            __builtin_prefetch(ahead + 128);
        }
        uint32_t gi = name_id(&g, v[i]->group), ti = name_id(&t, v[i]->topic);
        ok = gi != UINT32_MAX && ti != UINT32_MAX;
        items[i].names = (uint64_t)gi << 32 | ti;
        items[i].numbers = (uint64_t)((uint32_t)v[i]->partition ^ 0x80000000u) << 32 |
                           ((uint32_t)v[i]->source_partition ^ 0x80000000u);
        items[i].v = v[i];
    }
    ok = ok && rank_names(&g) && rank_names(&t);
    for (size_t i = 0; i < n && ok; i++)
        items[i].names = (uint64_t)g.rank[items[i].names >> 32] << 32 | t.rank[(uint32_t)items[i].names];
    name_ids_free(&g);
    name_ids_free(&t);
    return ok;
}

void offsets_sort(const kf_offset_value **v, size_t n)
{
    sort_item *items = malloc((n ? n : 1) * sizeof *items), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!items || !tmp || !sort_items(v, n, items)) {
        /* out of memory: the same order by comparing the strings */
        qsort(v, n, sizeof *v, cmp_rows);
    } else {
        radix_sort(items, tmp, n);
        for (size_t i = 0; i < n; i++)
            v[i] = items[i].v;
    }
    free(items);
    free(tmp);
}
