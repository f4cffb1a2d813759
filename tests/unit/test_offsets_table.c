/* test_offsets_table.c: the replay's table of committed offsets
 * (src/jobs/offsets/offsets_table.c) against a plain array of what it should hold,
 * through puts, replacements and deletions of many slots (the table grows
 * and deletions shift probe runs back), slots that differ only in their
 * source partition, and the strings of a row. */
#include "testutil.h"
#include "jobs/offsets/offsets_table.h"

/* An offset key: group "g<i % 37>", topic "t", partition i. */
static uint32_t key_of(uint8_t *out, uint32_t i)
{
    char g[16];
    int gl = snprintf(g, sizeof g, "g%u", i % 37);
    uint32_t n = 0;
    out[n++] = 0;
    out[n++] = (uint8_t)gl;
    memcpy(out + n, g, (size_t)gl);
    n += (uint32_t)gl;
    out[n++] = 0;
    out[n++] = 1;
    out[n++] = 't';
    for (int b = 3; b >= 0; b--)
        out[n++] = (uint8_t)(i >> (8 * b));
    return n;
}

static offset_row *row_of(uint32_t i, int32_t src)
{
    uint8_t key[64];
    uint32_t kl = key_of(key, i);
    char g[16];
    int gl = snprintf(g, sizeof g, "g%u", i % 37);
    offset_row_strings s = {(const uint8_t *)g, (const uint8_t *)"t", (const uint8_t *)"md", (uint32_t)gl, 1, 2};
    offset_row *r = offset_row_new(key, kl, src, offsets_slot_hash(key, kl, src), &s);
    assert_non_null(r);
    r->v.partition = (int32_t)i;
    return r;
}

static offset_row *get(const offsets_table *t, uint32_t i, int32_t src)
{
    uint8_t key[64];
    uint32_t kl = key_of(key, i);
    return offsets_table_get(t, key, kl, src, offsets_slot_hash(key, kl, src));
}

static offset_row *del(offsets_table *t, uint32_t i, int32_t src)
{
    uint8_t key[64];
    uint32_t kl = key_of(key, i);
    return offsets_table_del(t, key, kl, src, offsets_slot_hash(key, kl, src));
}

static void test_puts_replacements_and_deletions(void **state)
{
    (void)state;
    enum { N = 20000 };
    offsets_table t = {0};
    offset_row **model = calloc(2 * N, sizeof *model); /* slot (i, src 0 or 1) -> row */
    assert_non_null(model);
    for (uint32_t i = 0; i < N; i++)
        for (int32_t src = 0; src < 2; src++) {
            offset_row *old = (offset_row *)1;
            offset_row *r = row_of(i, src);
            assert_true(offsets_table_put(&t, r, &old));
            assert_null(old);
            model[2 * i + (uint32_t)src] = r;
        }
    assert_int_equal(t.n, 2 * N);
    /* replace every third slot, delete every fifth */
    for (uint32_t i = 0; i < N; i += 3) {
        offset_row *old = NULL, *r = row_of(i, 1);
        assert_true(offsets_table_put(&t, r, &old));
        assert_ptr_equal(old, model[2 * i + 1]);
        free(old);
        model[2 * i + 1] = r;
    }
    for (uint32_t i = 0; i < N; i += 5) {
        offset_row *r = del(&t, i, 0);
        assert_ptr_equal(r, model[2 * i]);
        free(r);
        model[2 * i] = NULL;
        assert_null(del(&t, i, 0));
    }
    for (uint32_t i = 0; i < N; i++)
        for (int32_t src = 0; src < 2; src++)
            assert_ptr_equal(get(&t, i, src), model[2 * i + (uint32_t)src]);
    assert_null(get(&t, N + 1, 0));
    assert_null(get(&t, 1, 2)); /* same key, another source partition */
    /* the strings of a row */
    offset_row *r = get(&t, 40, 1);
    assert_non_null(r);
    assert_string_equal(r->v.group, "g3");
    assert_string_equal(r->v.topic, "t");
    assert_string_equal(r->v.metadata, "md");
    assert_int_equal(r->metadata_len, 2);
    assert_int_equal(r->v.source_partition, 1);
    offsets_table_free(&t);
    assert_int_equal(t.n, 0);
    assert_null(get(&t, 1, 1));
    free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_puts_replacements_and_deletions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
