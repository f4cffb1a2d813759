/* test_offsets_sort.c: the committed table's order (src/jobs/offsets/offsets_sort.c,
 * ranks of the names and a radix sort) is the order of strcmp on group, then
 * topic, then partition and source partition as signed numbers, on rows
 * whose names share prefixes, hold bytes above 0x7f (strcmp compares them
 * unsigned) or are empty, and whose numbers are negative, zero or large. */
#include "testutil.h"
#include "jobs/offsets/offsets_sort.h"

static int cmp_reference(const void *a, const void *b)
{
    const kf_offset_value *x = *(const kf_offset_value *const *)a, *y = *(const kf_offset_value *const *)b;
    int c = strcmp(x->group, y->group);
    if (!c)
        c = strcmp(x->topic, y->topic);
    if (!c)
        c = x->partition < y->partition ? -1 : x->partition > y->partition;
    if (!c)
        c = x->source_partition < y->source_partition ? -1 : x->source_partition > y->source_partition;
    return c;
}

static uint32_t next_random(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static void test_order_is_strcmp_then_numbers(void **state)
{
    (void)state;
    static const char *const names[] = {"", "a", "ab", "abc", "b", "group-0001", "group-0010", "group-01",
                                        "\xc3\xa9t\xc3\xa9", "\xff", "Z", "a b"};
    static const int32_t numbers[] = {INT32_MIN, -7, -1, 0, 1, 2, 255, 256, 65535, 65536, 1 << 24, INT32_MAX};
    enum { N = 3000 };
    size_t nn = sizeof names / sizeof names[0], nk = sizeof numbers / sizeof numbers[0];
    kf_offset_value *rows = calloc(N, sizeof *rows);
    const kf_offset_value **got = malloc(N * sizeof *got), **want = malloc(N * sizeof *want);
    assert_non_null(rows);
    assert_non_null(got);
    assert_non_null(want);
    uint32_t seed = 19;
    for (size_t i = 0; i < N; i++) {
        rows[i].group = names[next_random(&seed) % nn];
        rows[i].topic = names[next_random(&seed) % nn];
        rows[i].partition = numbers[next_random(&seed) % nk];
        rows[i].source_partition = numbers[next_random(&seed) % nk];
        rows[i].offset = (int64_t)i; /* which row it is, for the comparison */
        got[i] = want[i] = &rows[i];
    }
    offsets_sort(got, N);
    qsort(want, N, sizeof *want, cmp_reference);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(cmp_reference(&got[i], &want[i]), 0);
    /* every row once */
    bool *seen = calloc(N, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < N; i++) {
        assert_false(seen[got[i]->offset]);
        seen[got[i]->offset] = true;
    }
    free(seen);
    free(rows);
    free(got);
    free(want);
}

static void test_empty_and_one(void **state)
{
    (void)state;
    offsets_sort(NULL, 0);
    kf_offset_value v = {.group = "g", .topic = "t", .partition = 3};
    const kf_offset_value *one[1] = {&v};
    offsets_sort(one, 1);
    assert_ptr_equal(one[0], &v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_strcmp_then_numbers),
        cmocka_unit_test(test_empty_and_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
