#!/usr/bin/python3
"""Offsets at the 2^63 edge (hostile inputs): a batch whose last offset + 1
(the next offset, the log end it leaves) is past 2^63-1 is damage with its
own problem code, last_offset_overflow, and its offsets count nowhere; a
batch that ends just below the edge is intact and every command handles it.
No command may crash, print a negative offset, or (in the UBSan build, where
signed overflow aborts) overflow on the way.

The segments are encoded by tools/gen/kafkafmt.py (kafka-python's builder)."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, of_type, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
from kafkafmt import Rec, seg_name, v2_batch  # noqa: E402

MAX = 2**63 - 1
T = 1700000000000


def batch(base, n):
    return v2_batch(base, [Rec(base + i, T + i, b"k%d" % i, b"v") for i in range(n)])


def negative_offsets(value, path=""):
    """The keys under value naming an offset that hold a negative number
    other than -1 (Kafka's 'none')."""
    bad = []
    if isinstance(value, dict):
        for k, v in value.items():
            if "offset" in k and isinstance(v, int) and not isinstance(v, bool) and v < -1:
                bad.append("%s.%s=%d" % (path, k, v))
            bad += negative_offsets(v, path + "." + k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            bad += negative_offsets(v, "%s[%d]" % (path, i))
    return bad


class LastOffsetEdge(TempDirTest):
    def setUp(self):
        super().setUp()
        self.data = os.path.join(self.tmp, "data")
        # past the edge: a record at 2^63-1 itself, then one past it (the last
        # offset delta wraps the last offset)
        self.wraps = self.part("wraps-0", 0, batch(0, 1) + batch(MAX - 1, 2))
        # at the edge: the last offset is 2^63-1, so the next one is not an offset
        self.at_max = self.part("atmax-0", 0, batch(0, 1) + batch(MAX, 1))
        # just below: offsets 2^63-7 .. 2^63-3, log end 2^63-2
        self.below = self.part("below-0", MAX - 6, batch(MAX - 6, 5))

    def part(self, name, base, data):
        d = os.path.join(self.data, name)
        os.makedirs(d)
        with open(os.path.join(d, seg_name(base, "log")), "wb") as f:
            f.write(data)
        return d

    def test_a_last_offset_past_the_edge_is_damage(self):
        for d in (self.wraps, self.at_max):
            with self.subTest(d=os.path.basename(d)):
                code, out, err = run("verify", "--json", d)
                self.assertEqual(code, 1, err)
                rows = jsonl(out)
                problems = of_type(rows, "problem")
                self.assertEqual([p["code"] for p in problems], ["last_offset_overflow"], problems)
                self.assertEqual(problems[0]["position"], len(batch(0, 1)))
                seg = of_type(rows, "segment")[0]
                self.assertEqual((seg["first_offset"], seg["last_offset"]), (0, 0))
                self.assertEqual(seg["bad_batches"], 1)

    def test_a_batch_just_below_the_edge_is_intact(self):
        code, out, err = run("verify", "--json", self.below)
        self.assertEqual(code, 0, err)
        seg = of_type(jsonl(out), "segment")[0]
        self.assertEqual((seg["first_offset"], seg["last_offset"]), (MAX - 6, MAX - 2))
        code, out, err = run("dump", "--json", "--offset", str(MAX - 2), self.below)
        self.assertEqual(code, 0, err)
        self.assertEqual(of_type(jsonl(out), "batch")[0]["last_offset"], MAX - 2)
        code, out, err = run("dump", "--json", "--offset", str(MAX), self.below)
        nf = [p for p in of_type(jsonl(out), "problem") if p["code"] == "offset_not_found"]
        self.assertEqual(len(nf), 1, out + err)

    def test_replicas_log_bounds(self):
        code, out, err = run("replicas", "--json", self.data, cwd=None)
        self.assertIn(code, (0, 1), err)
        reps = {(r["topic"], r["partition"]): r for r in of_type(jsonl(out), "replica")}
        for topic in ("wraps", "atmax"):
            r = reps[(topic, 0)]
            self.assertEqual((r["log_start_offset"], r["log_end_offset"]), (0, 1), r)
        r = reps[("below", 0)]
        self.assertEqual((r["log_start_offset"], r["log_end_offset"]), (MAX - 6, MAX - 1), r)

    def test_every_command_reads_the_edge_cleanly(self):
        out_dir = os.path.join(self.tmp, "out")
        runs = []
        for d in (self.wraps, self.at_max, self.below):
            for cmd in (["verify", "--json"], ["dump", "--json", "--records"],
                        ["dump", "--json", "--include-damaged", "--records"], ["txns", "--json"],
                        ["stats", "--json"], ["compaction", "--json"]):
                runs.append(cmd + [d])
            for off in (MAX - 2, MAX - 1, MAX):
                runs.append(["dump", "--json", "--offset", str(off), d])
            runs.append(["repair", "--force", "--json", "-o", out_dir, d])
            runs.append(["repair", "--salvage", "--force", "--json", "-o", out_dir, d])
            runs.append(["merge", "--force", "--json", "-o", out_dir, d, d])
        for cmd in (["scan", "--json"], ["predict", "--json"], ["replicas", "--json"], ["offsets", "--json"]):
            runs.append(cmd + [self.data])
        runs.append(["replicas", "--json", self.data, self.data])
        for args in runs:
            with self.subTest(args=" ".join(args).replace(self.tmp, "")):
                code, out, err = run(*args, cwd=None)
                self.assertIn(code, (0, 1), err)
                self.assertNotIn("runtime error", err)
                for line in out.splitlines():
                    self.assertEqual(negative_offsets(json.loads(line)), [], line)


class SumsSaturate(TempDirTest):
    """Counts of offsets added up over partitions and log dirs saturate at
    2^63-1 instead of wrapping (issue 37 item 3): two partitions whose
    recovery cuts 5*10^18 offsets each (an intact batch at 0, then one at
    5*10^18 whose CRC fails: the broker's log end before recovery is past
    it, after it is 1)."""

    LOST = 5 * 10**18

    def setUp(self):
        super().setUp()
        for data in ("d1", "d2"):
            for name in ("a-0", "b-0"):
                d = os.path.join(self.tmp, data, name)
                os.makedirs(d)
                bad = bytearray(batch(self.LOST, 1))
                bad[-1] ^= 1  # the CRC no longer matches
                with open(os.path.join(d, seg_name(0, "log")), "wb") as f:
                    f.write(batch(0, 1) + bytes(bad))

    def test_predict_over_partitions_and_log_dirs(self):
        for dirs in (["d1"], ["d1", "d2"]):
            with self.subTest(dirs=dirs):
                code, out, err = run("predict", "--json", *dirs, cwd=self.tmp)
                self.assertEqual(code, 1, err)
                self.assertNotIn("runtime error", err)
                rows = jsonl(out)
                self.assertEqual([p["offsets_lost"] for p in of_type(rows, "partition")], [self.LOST] * 2 * len(dirs))
                self.assertEqual(of_type(rows, "summary")[0]["offsets_lost"], MAX)
                code, out, err = run("predict", *dirs, cwd=self.tmp)
                self.assertEqual(code, 1, err)
                self.assertIn("LOSES at least %d offsets" % MAX, out.splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
