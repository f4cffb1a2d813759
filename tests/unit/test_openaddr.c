/* test_openaddr.c: the probe loops of src/bytes/openaddr.h on a table of
 * its own: a lookup stops at its key or the first free slot, wrapping at
 * the end; growth keeps every entry (through the shape's allocator when it
 * has one); backward-shift removal, against a plain array of what the
 * table should hold, through many inserts and removals on keys whose
 * hashes crowd into a few probe runs that wrap around the array. */
#include "testutil.h"
#include "bytes/openaddr.h"

/* A slot: an int64_t key and a value, value 0 when free. */
typedef struct slot {
    int64_t key;
    uint32_t val;
} slot;

/* The table's ctx: a key's hash is base + key % homes, so that keys crowd
 * into a few homes. */
typedef struct table_ctx {
    uint64_t base, homes;
    int zallocs; /* calls of the shape's allocator */
} table_ctx;

static uint64_t hash_of(int64_t key, const table_ctx *c) { return c->base + (uint64_t)key % c->homes; }

static bool slot_used(const void *s, const void *ctx) { return ((const slot *)s)->val != 0; }

static uint64_t slot_hash(const void *s, const void *ctx)
{
    return hash_of(((const slot *)s)->key, ctx);
}

static const kf_oa_shape shape = {.size = sizeof(slot), .used = slot_used, .hash = slot_hash};

static table_ctx *counted; /* the ctx whose allocations zalloc counts */

static void *counting_zalloc(size_t n, size_t size)
{
    counted->zallocs++;
    return calloc(n, size);
}

static const kf_oa_shape counted_shape = {
    .size = sizeof(slot), .used = slot_used, .hash = slot_hash, .zalloc = counting_zalloc};

static void test_probe_stops_at_key_or_free_slot_and_wraps(void **state)
{
    (void)state;
    table_ctx c = {0, 8, 0};
    slot t[8] = {0};
    /* keys 6, 14 and 22 all start at slot 6: 6, 7, then 0 after the wrap */
    for (int64_t k = 6; k <= 22; k += 8) {
        size_t i = kf_oa_probe(&shape, t, 8, (uint64_t)k % 8, kf_oa_int64_is, &k, &c);
        assert_int_equal(t[i].val, 0);
        t[i] = (slot){k, (uint32_t)k};
    }
    assert_int_equal(t[6].key, 6);
    assert_int_equal(t[7].key, 14);
    assert_int_equal(t[0].key, 22);
    int64_t k = 22;
    assert_int_equal(kf_oa_probe(&shape, t, 8, 6, kf_oa_int64_is, &k, &c), 0);
    k = 30; /* absent: the first free slot after the run */
    assert_int_equal(kf_oa_probe(&shape, t, 8, 6, kf_oa_int64_is, &k, &c), 1);
    /* no match: the first free slot, even past a slot holding the key */
    assert_int_equal(kf_oa_probe(&shape, t, 8, 7, NULL, NULL, &c), 1);
    assert_null(kf_oa_lookup(&shape, NULL, 0, 6, kf_oa_int64_is, &k, &c));
    assert_ptr_equal(kf_oa_lookup(&shape, t, 8, 6, kf_oa_int64_is, &(int64_t){14}, &c), &t[7]);
}

static void test_grow_keeps_entries(void **state)
{
    (void)state;
    table_ctx c = {0, 1u << 20, 0};
    counted = &c;
    slot *t = NULL;
    size_t cap = 0, n = 0;
    for (int64_t k = 1; k <= 1000; k++) {
        if ((n + 1) * 2 > cap) {
            size_t before = cap;
            assert_true(kf_oa_grow(&counted_shape, &t, &cap, 4, &c));
            assert_int_equal(cap, before ? before * 2 : 4);
        }
        slot *s = kf_oa_lookup(&counted_shape, t, cap, hash_of(k, &c), kf_oa_int64_is, &k, &c);
        *s = (slot){k, (uint32_t)k};
        n++;
    }
    assert_int_equal(cap, 2048);
    assert_int_equal(c.zallocs, 10); /* 4, 8, ..., 2048 */
    size_t used = 0;
    for (size_t i = 0; i < cap; i++)
        used += t[i].val != 0;
    assert_int_equal(used, 1000);
    for (int64_t k = 1; k <= 1000; k++) {
        slot *s = kf_oa_lookup(&shape, t, cap, hash_of(k, &c), kf_oa_int64_is, &k, &c);
        assert_int_equal(s->key, k);
        assert_int_equal(s->val, (uint32_t)k);
    }
    free(t);
}

/* A table of cap slots and the model of what it holds agree: every key of
 * the model found with its value, every other key absent, nothing more. */
static void check(const slot *t, size_t cap, const table_ctx *c, const uint32_t *model, int64_t keys)
{
    size_t live = 0, used = 0;
    for (int64_t k = 0; k < keys; k++) {
        const slot *s = kf_oa_lookup(&shape, t, cap, hash_of(k, c), kf_oa_int64_is, &k, c);
        assert_int_equal(s->val, model[k]);
        live += model[k] != 0;
    }
    for (size_t i = 0; i < cap; i++)
        used += t[i].val != 0;
    assert_int_equal(used, live);
}

static void test_remove_shifts_runs_back(void **state)
{
    (void)state;
    enum { CAP = 64, KEYS = 200 };
    /* homes 60..63 and 0..3: one run of up to 3/4 of the table, wrapping */
    table_ctx c = {60, 8, 0};
    slot t[CAP] = {0};
    uint32_t model[KEYS] = {0};
    size_t n = 0;
    uint64_t x = 88172645463325252ull; /* xorshift */
    for (int step = 0; step < 20000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t k = (int64_t)(x % KEYS);
        slot *s = kf_oa_lookup(&shape, t, CAP, hash_of(k, &c), kf_oa_int64_is, &k, &c);
        if (s->val) {
            assert_int_equal(s->val, model[k]);
            kf_oa_remove(&shape, t, CAP, (size_t)(s - t), &c);
            model[k] = 0;
            n--;
        } else if (n < CAP * 3 / 4) {
            *s = (slot){k, (uint32_t)step + 1};
            model[k] = (uint32_t)step + 1;
            n++;
        }
        if (step % 97 == 0)
            check(t, CAP, &c, model, KEYS);
    }
    check(t, CAP, &c, model, KEYS);
}

static void test_int64_key_callbacks(void **state)
{
    (void)state;
    slot s = {-5, 1};
    int64_t k = -5, other = 5;
    assert_true(kf_oa_int64_is(&s, &k, NULL));
    assert_false(kf_oa_int64_is(&s, &other, NULL));
    assert_int_equal(kf_oa_int64_hash(&s, NULL), htab_mix64((uint64_t)-5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_stops_at_key_or_free_slot_and_wraps),
        cmocka_unit_test(test_grow_keeps_entries),
        cmocka_unit_test(test_remove_shifts_runs_back),
        cmocka_unit_test(test_int64_key_callbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
