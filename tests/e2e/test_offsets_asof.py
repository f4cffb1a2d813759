#!/usr/bin/python3
"""test_offsets_asof: `offsets --as-of` (issue 19 item 6, issue 33 item 1).

kfsck(1) (offsets, --as-of) dates a commit by its own commit_timestamp and a
deletion (an offset tombstone) by its batch's max timestamp, and `--as-of MS`
is every change whose time is <= MS, applied in the order `--history` lists
them: the fold of `--history --as-of MS`, which lists exactly those changes.
So the table never shows a commit_timestamp after MS, and it does not depend
on how the __consumer_offsets partitions are interleaved on the one time line
(their batches go by max timestamp): a data dir, one partition dir and several
copies give the same table. The deletions of one batch are one moment: they
take effect together at the batch's max timestamp, even when the batch also
holds a commit with an earlier commit_timestamp between them (the
coordinator's runtime appends the records of several writes in one batch).

This corner was wrong three times; every case is checked at every change time
and 1 ms either side against --history (check_against_history).

The data dirs are built in temporary directories with the Python encoders of
tools/gen (gen_offsets' record builders over coordfmt and kafkafmt); what each
table must hold is written out here, from the contract alone.
"""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, run  # noqa: E402
import test_offsets  # noqa: E402  (its replay of --history rows; not its tests)

sys.path[:0] = [os.path.join(ROOT, "tools", "gen")]
import coordfmt as cf  # noqa: E402
import gen_offsets as go  # noqa: E402

T = 1700000000000
M = T + 10_000          # the max timestamp of the batch holding the tombstones
TOPIC_ID = cf.uuid_str(bytes(range(16)))


def table(rows):
    """(group, topic, partition) -> (offset, source_offset) of --json rows."""
    return {(r["group"], r["topic"], r["partition"]): (r["offset"], r["source_offset"]) for r in rows}


def replay_history(rows):
    """The table a list of --history rows leaves (test_offsets' replay of them)."""
    return table(test_offsets.replay_history(rows))


def fold(rows, ms):
    """The table the --history rows whose change_time is <= ms leave, in their order."""
    return replay_history([h for h in rows if h["change_time"] <= ms])


HIST_KEY = ("group", "topic", "partition", "deleted", "source_partition", "source_offset", "effective_offset",
            "change_time")


class AsOfTest(TempDirTest):
    def build(self, batches):
        """__consumer_offsets-0 of a data dir: one batch per (records, timestamp)."""
        log = go.PartLog("__consumer_offsets", 0)
        for recs, ts in batches:
            log.data(recs, ts)
        go.Writer(self.tmp).partition("dd", log, TOPIC_ID)
        self.dd = os.path.join(self.tmp, "dd")

    def offsets(self, *args, paths=None):
        code, out, err = run("offsets", "--json", *args, *(paths or [self.dd]))
        self.assertEqual(code, 0, err)
        return jsonl(out, "offset")

    def as_of(self, ms, paths=None):
        return table(self.offsets("--as-of", str(ms), paths=paths))

    def check_against_history(self, paths=None):
        """At every change time and 1 ms either side: --as-of is the fold of the
        --history rows whose change_time is <= MS, shows no commit_timestamp
        after MS, and --history --as-of lists exactly those rows."""
        hist = self.offsets("--history", paths=paths)
        times = sorted({h["change_time"] for h in hist})
        self.assertTrue(times)
        for ms in sorted({t + d for t in times for d in (-1, 0, 1)}):
            with self.subTest(ms=ms, paths=paths):
                rows = self.offsets("--as-of", str(ms), paths=paths)
                self.assertEqual(table(rows), fold(hist, ms))
                self.assertEqual([r for r in rows if r["commit_timestamp"] > ms], [])
                got = self.offsets("--history", "--as-of", str(ms), paths=paths)
                self.assertEqual([[r[k] for k in HIST_KEY] for r in got],
                                 [[r[k] for k in HIST_KEY] for r in hist if r["change_time"] <= ms])
        return hist


class TwoTombstonesInOneBatch(AsOfTest):
    def test_both_take_effect_together_at_the_batch_max_timestamp(self):
        # offsets 0-1: commits of t-0 and t-1; offsets 2-4, one batch of max
        # timestamp M: tombstone of t-0, a commit of t-2 made at T+2000 (before
        # M), tombstone of t-1
        self.build([([go.OC("g", "t", 0, 3, 10, T), go.OC("g", "t", 1, 3, 20, T + 1)], T + 1),
                    ([go.OT("g", "t", 0), go.OC("g", "t", 2, 3, 30, T + 2000), go.OT("g", "t", 1)], M)])
        committed = {("g", "t", 0): (10, 0), ("g", "t", 1): (20, 1)}
        c = {("g", "t", 2): (30, 3)}
        self.assertEqual(self.as_of(T + 1), committed)
        self.assertEqual(self.as_of(T + 1999), committed)
        # the commit counts from its own commit_timestamp; neither deletion yet
        self.assertEqual(self.as_of(T + 2000), {**committed, **c})
        self.assertEqual(self.as_of(M - 1), {**committed, **c})
        # both deletions at M, together
        self.assertEqual(self.as_of(M), c)
        self.assertEqual(table(self.offsets()), c)
        hist = self.check_against_history()
        deletions = [h for h in hist if h["deleted"]]
        self.assertEqual([(h["partition"], h["change_time"], h["effective_offset"]) for h in deletions],
                         [(0, M, 2), (1, M, 4)])
        # the batch's deletions are one moment of the history: nothing between them
        first = hist.index(deletions[0])
        self.assertEqual(hist[first + 1], deletions[1])

    def test_tombstones_alone(self):
        self.build([([go.OC("g", "t", 0, 3, 10, T), go.OC("g", "t", 1, 3, 20, T)], T),
                    ([go.OT("g", "t", 0), go.OT("g", "t", 1)], M)])
        self.assertEqual(self.as_of(M - 1), {("g", "t", 0): (10, 0), ("g", "t", 1): (20, 1)})
        self.assertEqual(self.as_of(M), {})
        self.check_against_history()

    def test_a_key_committed_again_in_the_batch_keeps_the_new_commit(self):
        # tombstone of t-0, then t-0 committed again in the same batch (at M-5000,
        # before the batch's max timestamp), then the tombstone of t-1: the final
        # table is the coordinator's (t-0 = 11, log order), the deletion of t-0 comes
        # before that commit, and t-1's deletion still waits for M
        self.build([([go.OC("g", "t", 0, 3, 10, T), go.OC("g", "t", 1, 3, 20, T)], T),
                    ([go.OT("g", "t", 0), go.OC("g", "t", 0, 3, 11, M - 5000), go.OT("g", "t", 1)], M)])
        self.assertEqual(table(self.offsets()), {("g", "t", 0): (11, 3)})
        self.assertEqual(self.as_of(M - 5001), {("g", "t", 0): (10, 0), ("g", "t", 1): (20, 1)})
        self.assertEqual(self.as_of(M - 1), {("g", "t", 0): (11, 3), ("g", "t", 1): (20, 1)})
        self.assertEqual(self.as_of(M), {("g", "t", 0): (11, 3)})
        self.check_against_history()


class CommitsInOneBatch(AsOfTest):
    def test_commits_count_from_their_own_commit_timestamp(self):
        # one batch of max timestamp M: t-0 committed at T+1000, t-1 at T+3000
        self.build([([go.OC("g", "t", 0, 3, 10, T + 1000), go.OC("g", "t", 1, 3, 20, T + 3000)], M)])
        self.assertEqual(self.as_of(T + 999), {})
        self.assertEqual(self.as_of(T + 1000), {("g", "t", 0): (10, 0)})
        self.assertEqual(self.as_of(T + 2999), {("g", "t", 0): (10, 0)})
        self.assertEqual(self.as_of(T + 3000), {("g", "t", 0): (10, 0), ("g", "t", 1): (20, 1)})
        self.check_against_history()


class DataDirPartitionDirAndCopies(AsOfTest):
    """Issue 33 item 1: a group deletes the offsets of two partitions of a
    topic (OffsetDelete: one batch of two tombstones) and later commits one of
    them again; other __consumer_offsets partitions of the data dir hold
    changes whose time is earlier than batches the merge puts before them: a
    transactional commit whose COMMIT marker comes 20 s after its commit, and
    a broker clock that stepped back. --as-of over the data dir must give the
    group what its own partition dir gives, at every change time."""

    G, H, K = "orders-app", "payments-app", "audit-app"
    D = T + 60_000      # the deletion batch's max timestamp

    def setUp(self):
        super().setUp()
        D = self.D
        parts = {go.partition_for(g) for g in (self.G, self.H, self.K)}
        self.assertEqual(len(parts), 3)
        a = go.PartLog("__consumer_offsets", go.partition_for(self.G))
        a.data([go.OC(self.G, "orders", 0, 3, 10, T), go.OC(self.G, "orders", 1, 3, 20, T)], T)
        a.data([go.OT(self.G, "orders", 0), go.OT(self.G, "orders", 1)], D)
        a.data([go.OC(self.G, "orders", 0, 3, 30, D + 12_000)], D + 12_000)
        b = go.PartLog("__consumer_offsets", go.partition_for(self.H))
        b.data([go.OC(self.H, "payments", 0, 3, 5, D - 5_000)], D - 5_000, pid=9000, epoch=0, txn=True)
        b.marker("COMMIT", 9000, 0, D + 20_000)
        c = go.PartLog("__consumer_offsets", go.partition_for(self.K))
        c.data([go.OC(self.K, "audit", 0, 3, 1, D + 100_000)], D + 100_000)
        c.data([go.OC(self.K, "audit", 0, 3, 2, D - 3_000)], D - 3_000)   # the clock stepped back
        w = go.Writer(self.tmp)
        for log in (a, b, c):
            w.partition("dd", log, TOPIC_ID)
        self.dd = os.path.join(self.tmp, "dd")
        self.part = os.path.join(self.dd, a.name)
        self.copy = os.path.join(self.tmp, "copy")
        shutil.copytree(self.dd, self.copy)

    def group(self, rows):
        return {k: v for k, v in rows.items() if k[0] == self.G}

    def test_the_deletions_and_the_new_commit_at_their_own_times(self):
        D, G = self.D, self.G
        old = {(G, "orders", 0): (10, 0), (G, "orders", 1): (20, 1)}
        new = {(G, "orders", 0): (30, 4)}
        for paths in ([self.dd], [self.part], [self.dd, self.copy], [self.part, os.path.join(self.copy, os.path.basename(self.part))]):
            with self.subTest(paths=paths):
                self.assertEqual(self.group(self.as_of(D - 1, paths)), old)
                self.assertEqual(self.group(self.as_of(D, paths)), {})
                self.assertEqual(self.group(self.as_of(D + 11_999, paths)), {})
                self.assertEqual(self.group(self.as_of(D + 12_000, paths)), new)
        # the other partitions' changes count at their own times too: the
        # transactional commit at its COMMIT marker, when the coordinator shows
        # it (Kafka 4.4 did so in the broker suite), not at its commit timestamp
        self.assertNotIn((self.H, "payments", 0), self.as_of(D - 1))
        self.assertNotIn((self.H, "payments", 0), self.as_of(D + 19_999))
        self.assertEqual(self.as_of(D + 20_000)[(self.H, "payments", 0)], (5, 0))
        self.assertEqual(self.as_of(D - 1)[(self.K, "audit", 0)], (2, 1))
        self.assertNotIn((self.K, "audit", 0), self.as_of(D - 3_001))

    def test_every_change_time_against_history(self):
        for paths in ([self.dd], [self.part], [self.dd, self.copy]):
            self.check_against_history(paths)

    def test_the_data_dir_gives_the_group_what_its_partition_dir_gives(self):
        times = {h["change_time"] for h in self.offsets("--history", paths=[self.dd])}
        for ms in sorted({t + d for t in times for d in (-1, 0, 1)}):
            with self.subTest(ms=ms):
                whole = self.as_of(ms, [self.dd])
                self.assertEqual(self.group(whole), self.as_of(ms, [self.part]))
                self.assertEqual(whole, self.as_of(ms, [self.dd, self.copy]))


if __name__ == "__main__":
    unittest.main()
