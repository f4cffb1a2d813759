#!/usr/bin/python3
"""test_offsets_asof: `offsets --as-of` and deletions (issue 19 item 6).

kfsck(1) (offsets, --as-of) dates a deletion (an offset tombstone) by its batch's max timestamp
and a commit by its own commit_timestamp, and `--as-of MS` is the table after
the last change (in `--history` order) whose time is <= MS. The deletions of
one batch are one moment: they take effect together at the batch's max
timestamp, even when the batch also holds a commit with an earlier
commit_timestamp between them (the coordinator's runtime appends the records
of several writes in one batch), and --as-of stays a prefix of --history.

The data dirs are built in temporary directories with the Python encoders of
tools/gen (gen_offsets' record builders over coordfmt and kafkafmt); what each
table must hold is written out here, from the contract alone.
"""
import os
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


class AsOfTest(TempDirTest):
    def build(self, batches):
        """__consumer_offsets-0 of a data dir: one batch per (records, timestamp)."""
        log = go.PartLog("__consumer_offsets", 0)
        for recs, ts in batches:
            log.data(recs, ts)
        go.Writer(self.tmp).partition("dd", log, TOPIC_ID)
        self.dd = os.path.join(self.tmp, "dd")

    def offsets(self, *args):
        code, out, err = run("offsets", "--json", *args, self.dd)
        self.assertEqual(code, 0, err)
        return jsonl(out, "offset")

    def as_of(self, ms):
        return table(self.offsets("--as-of", str(ms)))

    def check_prefix_of_history(self):
        """At every change time and around it, --as-of is the replay of the
        --history prefix up to the last change whose time is <= MS, and
        --history --as-of prints that prefix."""
        hist = self.offsets("--history")
        times = sorted({h["change_time"] for h in hist})
        for ms in sorted({t + d for t in times for d in (-1, 0, 1)}):
            with self.subTest(ms=ms):
                n = max((i + 1 for i, h in enumerate(hist) if h["change_time"] <= ms), default=0)
                self.assertEqual(self.as_of(ms), replay_history(hist[:n]))
                got = self.offsets("--history", "--as-of", str(ms))
                key = ("group", "topic", "partition", "deleted", "source_offset", "effective_offset")
                self.assertEqual([[r[k] for k in key] for r in got], [[r[k] for k in key] for r in hist[:n]])
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
        hist = self.check_prefix_of_history()
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
        self.check_prefix_of_history()

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
        self.check_prefix_of_history()


class CommitsInOneBatch(AsOfTest):
    def test_commits_count_from_their_own_commit_timestamp(self):
        # one batch of max timestamp M: t-0 committed at T+1000, t-1 at T+3000
        self.build([([go.OC("g", "t", 0, 3, 10, T + 1000), go.OC("g", "t", 1, 3, 20, T + 3000)], M)])
        self.assertEqual(self.as_of(T + 999), {})
        self.assertEqual(self.as_of(T + 1000), {("g", "t", 0): (10, 0)})
        self.assertEqual(self.as_of(T + 2999), {("g", "t", 0): (10, 0)})
        self.assertEqual(self.as_of(T + 3000), {("g", "t", 0): (10, 0), ("g", "t", 1): (20, 1)})
        self.check_prefix_of_history()


if __name__ == "__main__":
    unittest.main()
