/* test_index.c: unit tests for src/format/index.c — the offset index, time index and
 * aborted-transaction index readers and their sanity checks. Every file is
 * built by hand in memory with the byte layouts of segment-format.md §4.3-4.6,
 * covering good files (including the real-world zero-filled preallocated
 * tail), each kind of damage, and the exact problem codes, positions and
 * offsets reported. */
#include "testutil.h"

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Offset-index entry i: relative offset, position. */
static void oent(uint8_t *buf, int i, int32_t rel, int32_t pos)
{
    put32(buf + 8 * i, (uint32_t)rel);
    put32(buf + 8 * i + 4, (uint32_t)pos);
}

/* Time-index entry i: timestamp, relative offset. */
static void tent(uint8_t *buf, int i, int64_t ts, int32_t rel)
{
    put64(buf + 12 * i, (uint64_t)ts);
    put32(buf + 12 * i + 8, (uint32_t)rel);
}

static int count_code(const problem_log *l, const char *code)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += strcmp(l->code[i], code) == 0;
    return n;
}

/* ---- offset index ---------------------------------------------------------- */

static void test_offset_index_empty(void **state)
{
    (void)state;
    kf_index ix;
    problem_log pl = {0};
    kf_offset_index_init(&ix, NULL, 0, 100);
    assert_int_equal(ix.slots, 0);
    assert_int_equal(ix.entries, 0);
    assert_int_equal(ix.entry_size, 8);
    kf_offset_index_check(&ix, 0, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

static void test_offset_index_good(void **state)
{
    (void)state;
    uint8_t buf[24];
    oent(buf, 0, 5, 4200);
    oent(buf, 1, 60, 8400);
    oent(buf, 2, 61, 12800);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 1000);
    assert_int_equal(ix.slots, 3);
    assert_int_equal(ix.entries, 3);
    int64_t off, pos;
    kf_offset_index_get(&ix, 0, &off, &pos);
    assert_int_equal(off, 1005);
    assert_int_equal(pos, 4200);
    kf_offset_index_get(&ix, 2, &off, &pos);
    assert_int_equal(off, 1061);
    assert_int_equal(pos, 12800);
    problem_log pl = {0};
    kf_offset_index_check(&ix, 20000, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

/* The active segment's preallocated index after a crash: entries then zeros. */
static void test_offset_index_zero_tail(void **state)
{
    (void)state;
    uint8_t buf[8 * 64] = {0};
    oent(buf, 0, 3, 4500);
    oent(buf, 1, 9, 9000);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 0);
    assert_int_equal(ix.slots, 64);
    assert_int_equal(ix.entries, 2);
    problem_log pl = {0};
    kf_offset_index_check(&ix, 10000, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

/* A preallocated index that never got an entry: slot 0 all zero = empty. */
static void test_offset_index_all_zero(void **state)
{
    (void)state;
    uint8_t buf[8 * 16] = {0};
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 42);
    assert_int_equal(ix.entries, 0);
    problem_log pl = {0};
    kf_offset_index_check(&ix, 0, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

/* Slot 0 with relative offset 0 but a position is an entry (the rule ends
 * only at slots i > 0, or an all-zero slot 0). */
static void test_offset_index_slot0_rel0(void **state)
{
    (void)state;
    uint8_t buf[16] = {0};
    oent(buf, 0, 0, 4100);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 7);
    assert_int_equal(ix.entries, 1);
    int64_t off, pos;
    kf_offset_index_get(&ix, 0, &off, &pos);
    assert_int_equal(off, 7);
    assert_int_equal(pos, 4100);
}

static void test_offset_index_bad_size(void **state)
{
    (void)state;
    uint8_t buf[8 * 2 + 5] = {0};
    oent(buf, 0, 1, 5000);
    oent(buf, 1, 2, 9000);
    buf[17] = 0x77; /* the partial entry holds bytes, still not an entry */
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 0);
    assert_int_equal(ix.slots, 2);
    assert_int_equal(ix.entries, 2);
    problem_log pl = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_INDEX_CORRUPT);
    assert_int_equal(pl.position[0], 16);
    assert_int_equal(pl.severity[0], KF_SEV_ERROR);
}

static void test_offset_index_not_monotonic(void **state)
{
    (void)state;
    uint8_t buf[8 * 4];
    oent(buf, 0, 10, 5000);
    oent(buf, 1, 20, 9000);
    oent(buf, 2, 20, 13000); /* offset repeats */
    oent(buf, 3, 30, 12000); /* position goes back */
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 500);
    assert_int_equal(ix.entries, 4);
    problem_log pl = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    assert_int_equal(pl.n, 2);
    assert_string_equal(pl.code[0], KF_P_INDEX_NOT_MONOTONIC);
    assert_int_equal(pl.position[0], 16);
    assert_true(pl.has_offset[0]);
    assert_int_equal(pl.offset[0], 520);
    assert_string_equal(pl.code[1], KF_P_INDEX_NOT_MONOTONIC);
    assert_int_equal(pl.position[1], 24);
    assert_int_equal(pl.offset[1], 530);
}

static void test_offset_index_decreasing_offset(void **state)
{
    (void)state;
    uint8_t buf[8 * 3];
    oent(buf, 0, 10, 5000);
    oent(buf, 1, 8, 9000);
    oent(buf, 2, 12, 13000);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 0);
    problem_log pl = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_INDEX_NOT_MONOTONIC);
    assert_int_equal(pl.position[0], 8);
    assert_int_equal(pl.offset[0], 8);
}

static void test_offset_index_below_base(void **state)
{
    (void)state;
    uint8_t buf[8];
    oent(buf, 0, -3, 5000);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 1000);
    assert_int_equal(ix.entries, 1);
    problem_log pl = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_INDEX_CORRUPT);
    assert_int_equal(pl.position[0], 0);
    assert_int_equal(pl.offset[0], 997);
}

static void test_offset_index_beyond_log(void **state)
{
    (void)state;
    uint8_t buf[8 * 3];
    oent(buf, 0, 1, 5000);
    oent(buf, 1, 2, 9999);  /* the last byte of a 10000-byte log: fine */
    oent(buf, 2, 3, 10000); /* at the end: beyond */
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 0);
    problem_log pl = {0};
    kf_offset_index_check(&ix, 10000, problem_log_fn, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_INDEX_BEYOND_LOG);
    assert_int_equal(pl.severity[0], KF_SEV_ERROR);
    assert_int_equal(pl.position[0], 16);
    assert_int_equal(pl.offset[0], 3);
    /* Without a log nothing is beyond it. */
    problem_log pl2 = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl2);
    assert_int_equal(pl2.n, 0);
    /* An empty log: every position is beyond. */
    problem_log pl3 = {0};
    kf_offset_index_check(&ix, 0, problem_log_fn, &pl3);
    assert_int_equal(count_code(&pl3, KF_P_INDEX_BEYOND_LOG), 3);
}

static void test_offset_index_negative_position(void **state)
{
    (void)state;
    uint8_t buf[8];
    oent(buf, 0, 1, -8);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 0);
    int64_t off, pos;
    kf_offset_index_get(&ix, 0, &off, &pos);
    assert_int_equal(pos, -8);
    problem_log pl = {0};
    kf_offset_index_check(&ix, 100, problem_log_fn, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_INDEX_CORRUPT);
}

/* A non-zero slot after the first zero slot: an entry lost behind zeros. */
static void test_offset_index_garbage_after_tail(void **state)
{
    (void)state;
    uint8_t buf[8 * 6] = {0};
    oent(buf, 0, 1, 5000);
    oent(buf, 1, 2, 9000);
    oent(buf, 4, 5, 20000);
    kf_index ix;
    kf_offset_index_init(&ix, buf, sizeof buf, 0);
    assert_int_equal(ix.entries, 2);
    problem_log pl = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    assert_int_equal(pl.n, 1);
    assert_string_equal(pl.code[0], KF_P_INDEX_CORRUPT);
    assert_int_equal(pl.position[0], 32);
}

/* A garbage index gives a bounded number of problems. */
static void test_offset_index_problem_cap(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint8_t *buf = malloc(8 * N);
    assert_non_null(buf);
    for (int i = 0; i < N; i++)
        oent(buf, i, N + 1 - i, 100); /* decreasing offsets */
    kf_index ix;
    kf_offset_index_init(&ix, buf, 8 * N, 0);
    assert_int_equal(ix.entries, N);
    problem_log pl = {0};
    kf_offset_index_check(&ix, UINT64_MAX, problem_log_fn, &pl);
    /* problem_log keeps 64; the cap is 100 + 1 summary, counted below */
    assert_int_equal(pl.n, 64);
    free(buf);
}

static int cap_count;
static void count_fn(void *ctx, const kf_problem *p)
{
    (void)ctx;
    (void)p;
    cap_count++;
}

static void test_offset_index_problem_cap_total(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint8_t *buf = malloc(8 * N);
    assert_non_null(buf);
    for (int i = 0; i < N; i++)
        oent(buf, i, N + 1 - i, 100);
    kf_index ix;
    kf_offset_index_init(&ix, buf, 8 * N, 0);
    cap_count = 0;
    kf_offset_index_check(&ix, UINT64_MAX, count_fn, NULL);
    assert_int_equal(cap_count, 101);
    free(buf);
}

/* ---- time index ------------------------------------------------------------- */

static void test_time_index_good_and_tail(void **state)
{
    (void)state;
    uint8_t buf[12 * 10] = {0};
    tent(buf, 0, 1700000000100, 4);
    tent(buf, 1, 1700000000100, 9);  /* equal timestamps allowed */
    tent(buf, 2, 1700000000500, 9);  /* equal offsets allowed */
    kf_index ix;
    kf_time_index_init(&ix, buf, sizeof buf, 200);
    assert_int_equal(ix.entry_size, 12);
    assert_int_equal(ix.slots, 10);
    assert_int_equal(ix.entries, 3);
    int64_t ts, off;
    kf_time_index_get(&ix, 2, &ts, &off);
    assert_int_equal(ts, 1700000000500);
    assert_int_equal(off, 209);
    problem_log pl = {0};
    kf_time_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

/* A closed segment's 12-byte time index whose only entry names the base offset. */
static void test_time_index_single_base_entry(void **state)
{
    (void)state;
    uint8_t buf[12];
    tent(buf, 0, 1686000000000, 0);
    kf_index ix;
    kf_time_index_init(&ix, buf, sizeof buf, 18);
    assert_int_equal(ix.entries, 1);
    int64_t ts, off;
    kf_time_index_get(&ix, 0, &ts, &off);
    assert_int_equal(off, 18);
    problem_log pl = {0};
    kf_time_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

static void test_time_index_all_zero(void **state)
{
    (void)state;
    uint8_t buf[12 * 4] = {0};
    kf_index ix;
    kf_time_index_init(&ix, buf, sizeof buf, 0);
    assert_int_equal(ix.entries, 0);
    problem_log pl = {0};
    kf_time_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

static void test_time_index_not_monotonic(void **state)
{
    (void)state;
    uint8_t buf[12 * 4];
    tent(buf, 0, 1000, 1);
    tent(buf, 1, 900, 2);   /* timestamp goes back */
    tent(buf, 2, 1100, 3);
    tent(buf, 3, 1200, 2);  /* offset goes back */
    kf_index ix;
    kf_time_index_init(&ix, buf, sizeof buf, 50);
    assert_int_equal(ix.entries, 4);
    problem_log pl = {0};
    kf_time_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 2);
    assert_string_equal(pl.code[0], KF_P_TIMEINDEX_NOT_MONOTONIC);
    assert_int_equal(pl.position[0], 12);
    assert_int_equal(pl.offset[0], 52);
    assert_string_equal(pl.code[1], KF_P_INDEX_NOT_MONOTONIC);
    assert_int_equal(pl.position[1], 36);
    assert_int_equal(pl.offset[1], 52);
}

static void test_time_index_bad_size_and_below_base(void **state)
{
    (void)state;
    uint8_t buf[12 + 7] = {0};
    tent(buf, 0, 1000, -1);
    kf_index ix;
    kf_time_index_init(&ix, buf, sizeof buf, 10);
    assert_int_equal(ix.slots, 1);
    assert_int_equal(ix.entries, 1);
    problem_log pl = {0};
    kf_time_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 2);
    assert_true(problem_log_has(&pl, KF_P_INDEX_CORRUPT));
    assert_int_equal(count_code(&pl, KF_P_INDEX_CORRUPT), 2);
    /* in file order: base problem at entry 0, size problem at the partial entry */
    assert_int_equal(pl.position[0], 0);
    assert_int_equal(pl.offset[0], 9);
    assert_int_equal(pl.position[1], 12);
}

/* ---- transaction index ------------------------------------------------------ */

static void txn(uint8_t *buf, int i, int16_t ver, int64_t pid, int64_t first, int64_t last, int64_t lso)
{
    uint8_t *p = buf + 34 * i;
    put16(p, (uint16_t)ver);
    put64(p + 2, (uint64_t)pid);
    put64(p + 10, (uint64_t)first);
    put64(p + 18, (uint64_t)last);
    put64(p + 26, (uint64_t)lso);
}

static void test_txn_index_good(void **state)
{
    (void)state;
    uint8_t buf[34 * 2];
    txn(buf, 0, 0, 4000, 95, 110, 95);
    txn(buf, 1, 0, 4001, 111, 130, 111);
    assert_int_equal(kf_txn_index_count(sizeof buf), 2);
    kf_txn_entry e;
    kf_txn_index_get(buf, 1, &e);
    assert_int_equal(e.version, 0);
    assert_int_equal(e.producer_id, 4001);
    assert_int_equal(e.first_offset, 111);
    assert_int_equal(e.last_offset, 130);
    assert_int_equal(e.last_stable_offset, 111);
    problem_log pl = {0};
    /* first offset may lie in an earlier segment */
    kf_index ix;
    kf_txn_index_init(&ix, buf, sizeof buf, 100);
    assert_int_equal(ix.entries, 2);
    kf_txn_index_entry(&ix, 1, &e);
    assert_int_equal(e.producer_id, 4001);
    kf_txn_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
    char why[200];
    assert_true(kf_txn_index_sanity(&ix, why, sizeof why));
    kf_txn_index_init(&ix, NULL, 0, 100);
    kf_txn_index_check(&ix, problem_log_fn, &pl);
    assert_int_equal(pl.n, 0);
}

static void test_txn_index_bad(void **state)
{
    (void)state;
    uint8_t buf[34 * 4 + 10] = {0};
    txn(buf, 0, 1, 1, 100, 110, 100);   /* version 1 */
    txn(buf, 1, 0, 1, 90, 99, 90);      /* last < base 100, and not increasing */
    txn(buf, 2, 0, 1, 140, 130, 130);   /* first > last */
    txn(buf, 3, 0, 1, 131, 130, 130);   /* first > last, last not increasing */
    assert_int_equal(kf_txn_index_count(sizeof buf), 4);
    problem_log pl = {0};
    kf_index ix;
    kf_txn_index_init(&ix, buf, sizeof buf, 100);
    kf_txn_index_check(&ix, problem_log_fn, &pl);
    char why[200];
    assert_false(kf_txn_index_sanity(&ix, why, sizeof why));
    assert_non_null(strstr(why, "version 1"));
    assert_int_equal(count_code(&pl, KF_P_TXNINDEX_INVALID), pl.n);
    assert_int_equal(pl.n, 7);
    assert_int_equal(pl.position[0], 0);
    assert_int_equal(pl.position[1], 34);   /* below base */
    assert_int_equal(pl.offset[1], 99);
    assert_int_equal(pl.position[2], 34);   /* not increasing */
    assert_int_equal(pl.position[3], 68);   /* first > last */
    assert_int_equal(pl.position[4], 102);
    assert_int_equal(pl.position[5], 102);
    assert_int_equal(pl.position[6], 136);  /* partial entry */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_index_empty),
        cmocka_unit_test(test_offset_index_good),
        cmocka_unit_test(test_offset_index_zero_tail),
        cmocka_unit_test(test_offset_index_all_zero),
        cmocka_unit_test(test_offset_index_slot0_rel0),
        cmocka_unit_test(test_offset_index_bad_size),
        cmocka_unit_test(test_offset_index_not_monotonic),
        cmocka_unit_test(test_offset_index_decreasing_offset),
        cmocka_unit_test(test_offset_index_below_base),
        cmocka_unit_test(test_offset_index_beyond_log),
        cmocka_unit_test(test_offset_index_negative_position),
        cmocka_unit_test(test_offset_index_garbage_after_tail),
        cmocka_unit_test(test_offset_index_problem_cap),
        cmocka_unit_test(test_offset_index_problem_cap_total),
        cmocka_unit_test(test_time_index_good_and_tail),
        cmocka_unit_test(test_time_index_single_base_entry),
        cmocka_unit_test(test_time_index_all_zero),
        cmocka_unit_test(test_time_index_not_monotonic),
        cmocka_unit_test(test_time_index_bad_size_and_below_base),
        cmocka_unit_test(test_txn_index_good),
        cmocka_unit_test(test_txn_index_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
