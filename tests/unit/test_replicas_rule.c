/* test_replicas_rule.c: the leader-epoch reconciliation of replicas.h
 * (src/jobs/replicas/replicas_rule.c) on histories worked out by hand from Kafka's
 * LeaderEpochFileCache, Partition.makeLeader and AbstractFetcherThread
 * (docs/formats.md §18); tests/e2e/test_replicas.py compares whole runs
 * with tools/model/replicas_model.py. */
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_load_cuts_and_monotonic(void **state)
{
    (void)state;
    /* a non-monotonic entry removes the ones it contradicts */
    kf_leader_epoch a[] = {{1, 0}, {3, 10}, {2, 5}};
    size_t n = kf_replica_epochs_load(a, N(a), 0, 100);
    assert_int_equal(n, 2);
    assert_int_equal(a[1].epoch, 2);
    assert_true(a[1].start_offset == 5);
    /* cut at the log end, then at the log-start checkpoint (the last entry
     * at or before it kept, starting there) */
    kf_leader_epoch b[] = {{0, 0}, {1, 100}, {2, 200}};
    n = kf_replica_epochs_load(b, N(b), 150, 200);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].epoch, 1);
    assert_true(b[0].start_offset == 150);
    /* the same epoch again at a later start is ignored; negative entries too */
    kf_leader_epoch c[] = {{4, 10}, {4, 20}, {-1, 30}, {5, -2}};
    assert_int_equal(kf_replica_epochs_load(c, N(c), 0, 100), 1);
}

static void test_divergent_follower(void **state)
{
    (void)state;
    /* the follower, the old leader, went on in epoch 1 to 300; the leader
     * started epoch 2 at 150: the follower keeps epoch 1 up to 150 */
    kf_leader_epoch le[] = {{0, 0}, {1, 100}, {2, 150}};
    kf_leader_epoch fe[] = {{0, 0}, {1, 100}};
    kf_replica_truncation t = kf_replica_reconcile(le, N(le), 220, fe, N(fe), 300, 250);
    assert_true(t.truncate_to == 150);
    assert_int_equal(t.rounds, 1);
    /* the other way: the follower's epoch 2 is unknown to the leader, whose
     * answer for it is (1, its new epoch's start 300); the follower's end of
     * epoch 1 is 150 */
    t = kf_replica_reconcile(fe, N(fe), 300, le, N(le), 220, 200);
    assert_true(t.truncate_to == 150);
}

static void test_multi_round(void **state)
{
    (void)state;
    kf_leader_epoch le[] = {{0, 0}, {2, 100}, {5, 200}};
    kf_leader_epoch fe[] = {{0, 0}, {1, 40}, {3, 120}, {4, 160}};
    /* asks 4: leader (2, 200); follower knows 1 below 2, ends it at 120: to 120, again;
     * asks 1: leader (0, 100); follower ends 0 at 40: to 40 */
    kf_replica_truncation t = kf_replica_reconcile(le, N(le), 300, fe, N(fe), 180, 170);
    assert_true(t.truncate_to == 40);
    assert_int_equal(t.rounds, 2);
}

static void test_follower_behind_and_no_epochs(void **state)
{
    (void)state;
    kf_leader_epoch le[] = {{0, 0}, {1, 100}};
    kf_leader_epoch fe[] = {{0, 0}, {1, 100}};
    kf_replica_truncation t = kf_replica_reconcile(le, N(le), 200, fe, N(fe), 150, 150);
    assert_true(t.truncate_to == 150);
    /* electing the shorter one: the longer follower truncates to its end */
    t = kf_replica_reconcile(fe, N(fe), 150, le, N(le), 200, 180);
    assert_true(t.truncate_to == 150);
    /* no epochs: to the high watermark */
    t = kf_replica_reconcile(le, N(le), 200, NULL, 0, 190, 120);
    assert_true(t.truncate_to == 120);
    assert_int_equal(t.rounds, 0);
    /* a leader with no epochs answers with its log end (its new epoch's start) */
    t = kf_replica_reconcile(NULL, 0, 90, fe, N(fe), 150, 150);
    assert_true(t.truncate_to == 90);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_cuts_and_monotonic),
        cmocka_unit_test(test_divergent_follower),
        cmocka_unit_test(test_multi_round),
        cmocka_unit_test(test_follower_behind_and_no_epochs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
