/* test_sorted.c: kf_lower_bound (src/bytes/sorted.h) against a scan from
 * the start, on sorted arrays with runs of equal keys, every key from
 * below the first to above the last, and the empty array. */
#include "testutil.h"
#include "bytes/sorted.h"

typedef struct elem {
    int32_t pad;
    int64_t key;
} elem;

static bool elem_below(const void *e, const void *key) { return ((const elem *)e)->key < *(const int64_t *)key; }

/* The first index of v[0..n) whose key is not below key, by scanning. */
static size_t scan(const elem *v, size_t n, int64_t key)
{
    size_t i = 0;
    while (i < n && v[i].key < key)
        i++;
    return i;
}

static void test_matches_a_scan(void **state)
{
    (void)state;
    elem v[40];
    uint64_t x = 2463534242u; /* xorshift */
    for (size_t n = 0; n <= 40; n++) {
        int64_t k = -10;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k += (int64_t)(x % 3); /* steps of 0 (a run of equal keys), 1 or 2 */
            v[i] = (elem){0, k};
        }
        for (int64_t key = -12; key <= k + 2; key++)
            assert_int_equal(kf_lower_bound(v, n, sizeof *v, &key, elem_below), scan(v, n, key));
    }
}

static void test_empty_and_runs(void **state)
{
    (void)state;
    int64_t key = 5;
    assert_int_equal(kf_lower_bound(NULL, 0, sizeof(elem), &key, elem_below), 0);
    elem v[] = {{0, 1}, {0, 5}, {0, 5}, {0, 5}, {0, 9}};
    assert_int_equal(kf_lower_bound(v, 5, sizeof *v, &key, elem_below), 1); /* the first of the run */
    key = 6;
    assert_int_equal(kf_lower_bound(v, 5, sizeof *v, &key, elem_below), 4);
    key = 10;
    assert_int_equal(kf_lower_bound(v, 5, sizeof *v, &key, elem_below), 5);
    key = INT64_MIN;
    assert_int_equal(kf_lower_bound(v, 5, sizeof *v, &key, elem_below), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_a_scan),
        cmocka_unit_test(test_empty_and_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
