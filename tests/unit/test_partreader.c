/* test_partreader.c: unit tests for the merge logic of the partition reader
 * (src/format/partreader.c, rules in partition.h) on hand-built copies of a
 * partition (tests/unit/mkbatch.h): copies that agree, damage one copy
 * covers and damage none covers (a hole), other bytes at the same offsets
 * (the higher epoch wins; a conflict), a copy of an older leader epoch that
 * was never truncated and has other batch boundaries (one conflict over its
 * whole run, its offsets past the others' end a hole, epochs never going
 * back), an epoch known only from a checkpoint, a checkpoint entry at or past
 * its copy's log end (the broker drops it: no evidence), the deep check, a
 * copy's own offsets going back, and the problems reported when no event
 * callback takes conflicts and holes. Expected values follow from the rules
 * by hand. */
#include <sys/stat.h>

#include "testutil.h"
#include "mkbatch.h"

static int seq;

static int setup(void **state)
{
    (void)state;
    return tu_tmpdir_make("partreader");
}

static int teardown(void **state)
{
    (void)state;
    return tu_tmpdir_remove();
}

/* ---- building copies ------------------------------------------------------------ */

typedef struct copy_b {
    char dir[300];
    uint8_t data[1 << 16];
    size_t len;
    int64_t base;
} copy_b;

static void copy_init(copy_b *c, int64_t base)
{
    snprintf(c->dir, sizeof c->dir, "%s/c%d/t-0", tu_tmpdir, seq++);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", c->dir);
    assert_int_equal(system(cmd), 0);
    c->len = 0;
    c->base = base;
}

/* Append a batch; damaged: one payload byte flipped (its CRC fails). */
static void put(copy_b *c, int64_t base, int32_t count, int32_t epoch, uint8_t fill, bool damaged)
{
    mk_spec s = mk_data(base, count, epoch);
    s.fill = fill;
    uint32_t n = mk_batch(c->data + c->len, sizeof c->data - c->len, &s);
    assert_true(n > 0);
    if (damaged)
        c->data[c->len + n - 3] ^= 0x20;
    c->len += n;
}

static void copy_done(copy_b *c)
{
    char name[64];
    snprintf(name, sizeof name, "%020lld.log", (long long)c->base);
    assert_int_equal(mk_write(c->dir, name, c->data, c->len), 0);
}

static void checkpoint(copy_b *c, const char *text)
{
    assert_int_equal(mk_write(c->dir, "leader-epoch-checkpoint", text, strlen(text)), 0);
}

/* ---- reading them ----------------------------------------------------------------- */

typedef struct got {
    int n;
    int64_t first[64], last[64];
    size_t copy[64];
    int32_t epoch[64];
    int nc;
    kf_part_conflict cf[8];
    int32_t cf_eps[8][4];
    bool cf_has[8][4];
    int nh;
    kf_part_hole h[8];
    problem_log probs;
    kf_part_result res;
} got;

static void on_conflict(void *ctx, const kf_part_conflict *c)
{
    got *g = ctx;
    assert_true(g->nc < 8 && c->ncopies <= 4);
    g->cf[g->nc] = *c;
    for (size_t i = 0; i < c->ncopies; i++) {
        g->cf_has[g->nc][i] = c->has[i];
        g->cf_eps[g->nc][i] = c->leader_epochs[i];
    }
    g->nc++;
}

static void on_hole(void *ctx, const kf_part_hole *h)
{
    got *g = ctx;
    assert_true(g->nh < 8);
    g->h[g->nh++] = *h;
}

/* Read copies (in this order) as one log. events: take conflicts and holes
 * as events (else they are problems). */
static void read_all(got *g, copy_b *const *cs, size_t n, bool deep, bool events)
{
    memset(g, 0, sizeof *g);
    const char *dirs[4];
    for (size_t i = 0; i < n; i++)
        dirs[i] = cs[i]->dir;
    kf_partition p;
    assert_int_equal(kf_partition_of_dirs(&p, dirs, n, NULL, NULL), KF_OK);
    assert_int_equal(p.ncopies, n);
    kf_part_reader_opts o;
    kf_part_reader_opts_init(&o);
    o.deep = deep;
    o.threads = 1;
    o.problem_fn = problem_log_fn;
    o.problem_ctx = &g->probs;
    if (events) {
        o.conflict_fn = on_conflict;
        o.hole_fn = on_hole;
        o.event_ctx = g;
    }
    kf_part_reader *r;
    assert_int_equal(kf_part_reader_open(&r, &p, &o), KF_OK);
    kf_batch b;
    int rc;
    while ((rc = kf_part_reader_next(r, &b)) == 1) {
        assert_true(g->n < 64);
        g->first[g->n] = b.base_offset;
        g->last[g->n] = b.last_offset;
        g->epoch[g->n] = b.partition_leader_epoch;
        g->copy[g->n] = kf_part_reader_copy(r);
        g->n++;
    }
    assert_int_equal(rc, 0);
    kf_part_reader_close(r, &g->res);
    kf_partition_free(&p);
}

static void assert_batch(const got *g, int i, int64_t first, int64_t last, size_t copy)
{
    assert_true(i < g->n);
    assert_int_equal(g->first[i], first);
    assert_int_equal(g->last[i], last);
    assert_int_equal(g->copy[i], copy);
}

static void assert_hole(const got *g, int i, int64_t start, bool has_end, int64_t end)
{
    assert_true(i < g->nh);
    assert_true(g->h[i].has_start);
    assert_int_equal(g->h[i].start_offset, start);
    assert_int_equal(g->h[i].has_end, has_end);
    if (has_end)
        assert_int_equal(g->h[i].end_offset, end);
}

static void assert_conflict(const got *g, int i, int64_t start, int64_t end, size_t chosen, const int32_t *eps,
                            size_t n)
{
    assert_true(i < g->nc);
    assert_int_equal(g->cf[i].start_offset, start);
    assert_int_equal(g->cf[i].end_offset, end);
    assert_int_equal(g->cf[i].chosen, chosen);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(g->cf_has[i][k], eps[k] != -9);
        if (eps[k] != -9)
            assert_int_equal(g->cf_eps[i][k], eps[k]);
    }
}

/* ---- tests -------------------------------------------------------------------------- */

static void test_copies_agree(void **state)
{
    (void)state;
    copy_b a, b;
    copy_init(&a, 0);
    copy_init(&b, 0);
    for (int i = 0; i < 3; i++) {
        put(&a, i * 5, 5, 0, 'a', false);
        put(&b, i * 5, 5, 0, 'a', false);
    }
    copy_done(&a);
    copy_done(&b);
    copy_b *cs[] = {&a, &b};
    got g;
    read_all(&g, cs, 2, true, true);
    assert_int_equal(g.n, 3);
    for (int i = 0; i < 3; i++)
        assert_batch(&g, i, i * 5, i * 5 + 4, 0);
    assert_int_equal(g.nc + g.nh + g.probs.n, 0);
}

static void test_damage_covered_or_a_hole(void **state)
{
    (void)state;
    copy_b a, b;
    copy_init(&a, 0);
    copy_init(&b, 0);
    put(&a, 0, 5, 0, 'a', false);
    put(&a, 5, 5, 0, 'a', true);   /* damaged in a, intact in b */
    put(&a, 10, 5, 0, 'a', false);
    put(&a, 15, 5, 0, 'a', true);  /* damaged in both */
    put(&a, 20, 5, 0, 'a', false);
    put(&b, 0, 5, 0, 'a', false);
    put(&b, 5, 5, 0, 'a', false);
    put(&b, 10, 5, 0, 'a', false);
    put(&b, 15, 5, 0, 'a', true);
    put(&b, 20, 5, 0, 'a', false);
    put(&b, 25, 5, 0, 'a', false);
    copy_done(&a);
    copy_done(&b);
    copy_b *cs[] = {&a, &b};
    got g;
    read_all(&g, cs, 2, true, true);
    assert_int_equal(g.n, 5);
    assert_batch(&g, 0, 0, 4, 0);
    assert_batch(&g, 1, 5, 9, 1);
    assert_batch(&g, 2, 10, 14, 0);
    assert_batch(&g, 3, 20, 24, 0);
    assert_batch(&g, 4, 25, 29, 1);
    assert_int_equal(g.nc, 0);
    assert_int_equal(g.nh, 1);
    assert_hole(&g, 0, 15, true, 19);
    assert_false(g.h[0].discarded);
    assert_int_equal(g.res.damaged_ranges, 3);
    assert_int_equal(g.res.uncovered, 1);
    assert_true(problem_log_has(&g.probs, KF_P_CRC_MISMATCH));
    assert_false(problem_log_has(&g.probs, KF_P_OFFSETS_LOST)); /* an event, not a problem */
    /* without the event callback: an offsets_lost error at close */
    read_all(&g, cs, 2, true, false);
    assert_true(problem_log_has(&g.probs, KF_P_OFFSETS_LOST));
    for (int i = 0; i < g.probs.n; i++)
        if (!strcmp(g.probs.code[i], KF_P_OFFSETS_LOST)) {
            assert_int_equal(g.probs.offset[i], 15);
            assert_int_equal(g.probs.severity[i], KF_SEV_ERROR);
        }
}

static void test_higher_epoch_wins(void **state)
{
    (void)state;
    /* b became leader at epoch 1 from offset 5 and wrote other bytes there */
    copy_b a, b;
    copy_init(&a, 0);
    copy_init(&b, 0);
    for (int i = 0; i < 3; i++)
        put(&a, i * 5, 5, 0, 'a', false);
    put(&b, 0, 5, 0, 'a', false);
    put(&b, 5, 5, 1, 'b', false);
    put(&b, 10, 5, 1, 'b', false);
    copy_done(&a);
    copy_done(&b);
    for (int order = 0; order < 2; order++) {
        copy_b *cs[2] = {order ? &b : &a, order ? &a : &b};
        size_t ia = order ? 1 : 0, ib = order ? 0 : 1;
        got g;
        read_all(&g, cs, 2, true, true);
        assert_int_equal(g.n, 3);
        assert_batch(&g, 0, 0, 4, 0); /* the same bytes: the copy given first */
        assert_batch(&g, 1, 5, 9, ib);
        assert_batch(&g, 2, 10, 14, ib);
        assert_int_equal(g.nc, 1);
        int32_t eps[2];
        eps[ia] = 0;
        eps[ib] = 1;
        assert_conflict(&g, 0, 5, 14, ib, eps, 2);
        assert_int_equal(g.nh, 0);
    }
}

static void test_old_leader_never_truncated(void **state)
{
    (void)state;
    /* a: the leader of epoch 0 went on writing (other batch boundaries) after
     * b took over at epoch 1 from offset 5; b's log ends at 14, a's at 30 */
    copy_b a, b;
    copy_init(&a, 0);
    copy_init(&b, 0);
    put(&a, 0, 5, 0, 'c', false);
    put(&a, 5, 3, 0, 'z', false);
    put(&a, 8, 13, 0, 'z', false);
    put(&a, 21, 10, 0, 'z', false);
    put(&b, 0, 5, 0, 'c', false);
    put(&b, 5, 5, 1, 'b', false);
    put(&b, 10, 5, 1, 'b', false);
    copy_done(&a);
    copy_done(&b);
    checkpoint(&a, "0\n1\n0 0\n");
    checkpoint(&b, "0\n2\n0 0\n1 5\n");
    copy_b *cs[] = {&a, &b};
    got g;
    read_all(&g, cs, 2, true, true);
    assert_int_equal(g.n, 3);
    assert_batch(&g, 0, 0, 4, 0);
    assert_batch(&g, 1, 5, 9, 1);
    assert_batch(&g, 2, 10, 14, 1);
    for (int i = 1; i < g.n; i++) /* the log never goes back to a lower epoch */
        assert_true(g.epoch[i] >= g.epoch[i - 1]);
    /* one conflict over everything a left out, not just its first batch */
    assert_int_equal(g.nc, 1);
    int32_t eps[] = {0, 1};
    assert_conflict(&g, 0, 5, 30, 1, eps, 2);
    /* the offsets only a's discarded history holds */
    assert_int_equal(g.nh, 1);
    assert_hole(&g, 0, 15, true, 30);
    assert_true(g.h[0].discarded);
    /* without callbacks: a copies_disagree warning and an offsets_lost error */
    read_all(&g, cs, 2, false, false);
    assert_true(problem_log_has(&g.probs, KF_P_COPIES_DISAGREE));
    assert_true(problem_log_has(&g.probs, KF_P_OFFSETS_LOST));
    assert_int_equal(g.res.disagreements, 1);
    assert_int_equal(g.res.uncovered, 1);
}

static void test_epoch_from_a_checkpoint(void **state)
{
    (void)state;
    /* b's epoch-1 batch at 5 is damaged; its checkpoint says epoch 1 began at
     * 5, and its batches reach past it: a's epoch-0 batches from 5 on are a
     * discarded history even where b has no intact batch */
    copy_b a, b;
    copy_init(&a, 0);
    copy_init(&b, 0);
    put(&a, 0, 5, 0, 'c', false);
    put(&a, 5, 5, 0, 'z', false);
    put(&a, 10, 5, 0, 'z', false);
    put(&b, 0, 5, 0, 'c', false);
    put(&b, 5, 5, 1, 'b', true);
    put(&b, 10, 5, 1, 'b', false);
    copy_done(&a);
    copy_done(&b);
    checkpoint(&b, "0\n2\n0 0\n1 5\n");
    copy_b *cs[] = {&a, &b};
    got g;
    read_all(&g, cs, 2, true, true);
    assert_int_equal(g.n, 2);
    assert_batch(&g, 0, 0, 4, 0);
    assert_batch(&g, 1, 10, 14, 1);
    assert_int_equal(g.nc, 1);
    int32_t eps[] = {0, 1};
    assert_conflict(&g, 0, 5, 14, 1, eps, 2); /* nothing taken at 5: chosen is b, whose epoch it is */
    assert_int_equal(g.nh, 1);
    assert_hole(&g, 0, 5, true, 9);
    assert_false(g.h[0].discarded); /* b showed damage there too */
}

static void test_checkpoint_past_log_end_is_no_evidence(void **state)
{
    (void)state;
    /* b was elected at epoch 1 with log end 10 (the broker writes "1 10")
     * and never wrote: the broker drops that entry when it loads the log, and
     * a's epoch-0 batches past 10 are the history the cluster kept */
    copy_b a, b;
    copy_init(&a, 0);
    copy_init(&b, 0);
    for (int i = 0; i < 4; i++)
        put(&a, i * 5, 5, 0, 'a', false);
    put(&b, 0, 5, 0, 'a', false);
    put(&b, 5, 5, 0, 'a', false);
    copy_done(&a);
    copy_done(&b);
    checkpoint(&b, "0\n2\n0 0\n1 10\n");
    copy_b *cs[] = {&a, &b};
    got g;
    read_all(&g, cs, 2, true, true);
    assert_int_equal(g.n, 4);
    assert_batch(&g, 3, 15, 19, 0);
    assert_int_equal(g.nc + g.nh, 0);
}

static void test_torn_tail_of_unknown_extent(void **state)
{
    (void)state;
    /* a ends in an entry torn before its header is whole: its extent is
     * unknown. Covered where another copy supplies its first offset and on;
     * else an open-ended hole */
    copy_b a, b, c;
    copy_init(&a, 0);
    copy_init(&b, 0);
    copy_init(&c, 0);
    put(&a, 0, 5, 0, 'a', false);
    put(&a, 5, 5, 0, 'a', false);
    size_t at = a.len;
    put(&a, 10, 5, 0, 'a', false);
    a.len = at + 30;
    for (int i = 0; i < 4; i++)
        put(&b, i * 5, 5, 0, 'a', false);
    put(&c, 0, 5, 0, 'a', false);
    copy_done(&a);
    copy_done(&b);
    copy_done(&c);
    copy_b *ab[] = {&a, &b};
    got g;
    read_all(&g, ab, 2, true, true);
    assert_int_equal(g.n, 4);
    assert_batch(&g, 3, 15, 19, 1);
    assert_int_equal(g.nh, 0);
    assert_int_equal(g.res.damaged_ranges, 1);
    copy_b *ac[] = {&a, &c};
    read_all(&g, ac, 2, true, true);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.nh, 1);
    assert_hole(&g, 0, 10, false, 0);
    assert_true(problem_log_has(&g.probs, KF_P_TRUNCATED));
}

static void test_deep_check_and_offsets(void **state)
{
    (void)state;
    /* a batch whose CRC holds but whose record count is wrong (CRC
     * recomputed), and a batch going back below its copy's previous one */
    copy_b a;
    copy_init(&a, 0);
    put(&a, 0, 5, 0, 'a', false);
    size_t at = a.len;
    put(&a, 5, 5, 0, 'a', false);
    tb_put32(a.data + at + 57, 6);
    tb_put32(a.data + at + 17, kf_crc32c(0, a.data + at + 21, a.len - at - 21));
    put(&a, 10, 5, 0, 'a', false);
    put(&a, 7, 2, 0, 'a', false); /* offsets go back */
    put(&a, 15, 5, 0, 'a', false);
    copy_done(&a);
    copy_b *cs[] = {&a};
    got g;
    read_all(&g, cs, 1, true, true);
    assert_int_equal(g.n, 3);
    assert_batch(&g, 1, 10, 14, 0);
    assert_batch(&g, 2, 15, 19, 0);
    assert_int_equal(g.nh, 1);
    assert_hole(&g, 0, 5, true, 9);
    assert_true(problem_log_has(&g.probs, KF_P_BAD_RECORD)); /* its records end before its count */
    assert_true(problem_log_has(&g.probs, KF_P_OFFSET_REGRESSION));
    /* not deep: the batch with the wrong count is read as it is */
    read_all(&g, cs, 1, false, true);
    assert_int_equal(g.n, 4);
    assert_batch(&g, 1, 5, 9, 0);
    assert_int_equal(g.nh, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_agree),
        cmocka_unit_test(test_damage_covered_or_a_hole),
        cmocka_unit_test(test_higher_epoch_wins),
        cmocka_unit_test(test_old_leader_never_truncated),
        cmocka_unit_test(test_epoch_from_a_checkpoint),
        cmocka_unit_test(test_checkpoint_past_log_end_is_no_evidence),
        cmocka_unit_test(test_torn_tail_of_unknown_extent),
        cmocka_unit_test(test_deep_check_and_offsets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
