"""test_same_facts: the words other commands use for what predict forecasts
(issue 36, item 3). `verify` says "broker recovery keeps N bytes" only of a
segment the broker recovers at its next start; of one below the segment
holding the recovery point, or after a clean shutdown, it says the broker
keeps the damage and serves it (as predict's damage_kept). `scan` and
`verify` do not call a gap between segments "normal" when a torn batch or
other damage borders it. `metadata` reports damage of the log that the
snapshot the state is built from covers as a warning that says the state is
unaffected, and exits 0 for it. Data from tools/gen's encoders (kafkafmt)
and the KRaft fixtures tools/gen/gen_kraft.py wrote.
"""
import os
import shutil
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kfsck_e2e import FIX, ROOT, TempDirTest, jsonl, run  # noqa: E402
from kraft_e2e import NODE, problems  # noqa: E402
from test_predict import DAY, NOW, LogDir, batch  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
import kafkafmt as kf  # noqa: E402

FIRST = batch(0, 10, NOW - DAY)


class SameFactsTest(TempDirTest):
    def torn_below(self, clean=False, index=True, recovery_point=18):
        """orders-0: segment 0 holds 0..9 and a torn batch of 10..17;
        segment 18 holds 18..19; the recovery point as given."""
        d = LogDir(os.path.join(self.tmp, "d"))
        d.segment("orders-0", 0, FIRST + batch(10, 8, NOW - DAY)[:-30], index=index)
        d.segment("orders-0", 18, batch(18, 2, NOW - DAY))
        d.checkpoint("recovery-point-offset-checkpoint", [("orders", 0, recovery_point)])
        d.checkpoint("replication-offset-checkpoint", [("orders", 0, 20)])
        if clean:
            d.clean()
        return d, os.path.join(d.path, "orders-0")

    def seg0_line(self, out):
        (line,) = [x for x in out.splitlines() if x.startswith(os.path.join(self.tmp, "d", "orders-0",
                                                                           kf.seg_name(0, "log")))]
        return line

    def test_verify_says_the_damage_below_the_recovery_point_is_kept(self):
        d, part = self.torn_below()
        rc, out, err = run("verify", part, cwd=None)
        self.assertEqual(rc, 1, err)
        line = self.seg0_line(out)
        self.assertNotIn("broker recovery keeps", line)
        self.assertIn("the broker does not recover it (below the segment holding the recovery point 18): it keeps "
                      "the damage and serves it (recovering it would keep %d bytes)" % len(FIRST), line)
        # predict says the same of the same segment
        rc, pout, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        (p,) = jsonl(pout, "partition")
        self.assertEqual([(os.path.basename(k["file"]), k["position"]) for k in p["damage_kept"]],
                         [(kf.seg_name(0, "log"), len(FIRST))])

    def test_verify_says_the_damage_after_a_clean_shutdown_is_kept(self):
        d, part = self.torn_below(clean=True, recovery_point=0)
        rc, out, err = run("verify", part, cwd=None)
        self.assertIn("after the clean shutdown the broker does not recover it: it keeps the damage and serves it",
                      self.seg0_line(out))

    def test_verify_says_recovery_keeps_where_the_broker_recovers(self):
        # at the recovery point's segment after an unclean shutdown, and for a
        # missing .index whatever the shutdown
        for kw in ({"recovery_point": 5}, {"clean": True, "index": False}):
            with self.subTest(**kw):
                _, part = self.torn_below(**kw)
                rc, out, err = run("verify", part, cwd=None)
                self.assertIn(", 1 damaged, broker recovery keeps %d bytes" % len(FIRST), self.seg0_line(out))
                shutil.rmtree(os.path.join(self.tmp, "d"))

    def test_a_gap_bordered_by_damage_is_not_called_normal(self):
        d, part = self.torn_below()
        for args in (("verify", "--json", part), ("scan", "--json", d.path)):
            with self.subTest(cmd=args[0]):
                rc, out, err = run(*args, cwd=None)
                (gap,) = [p for p in jsonl(out, "problem") if p["code"] == "segment_gap"]
                self.assertEqual((gap["severity"], gap["offset"]), ("warning", 10))
                self.assertNotIn("normal", gap["message"])
                self.assertIn("damage borders the gap", gap["message"])

    def test_a_gap_with_no_damage_beside_it_is_still_compaction_or_retention(self):
        d = LogDir(os.path.join(self.tmp, "d"))
        d.segment("orders-0", 0, FIRST)
        d.segment("orders-0", 18, batch(18, 2, NOW - DAY))
        rc, out, err = run("verify", "--json", os.path.join(d.path, "orders-0"), cwd=None)
        (gap,) = [p for p in jsonl(out, "problem") if p["code"] == "segment_gap"]
        self.assertIn("normal after compaction or retention", gap["message"])

    def test_metadata_damage_a_later_snapshot_covers_leaves_the_state_unaffected(self):
        node = os.path.join(self.tmp, "node")
        shutil.copytree(os.path.join(FIX, NODE), node)
        seg = os.path.join(node, "__cluster_metadata-0", kf.seg_name(47, "log"))
        with open(seg, "rb") as f:
            data = bytearray(f.read())
        data[70] ^= 0xFF                       # the first batch's records: its CRC fails (offset 47)
        with open(seg, "wb") as f:
            f.write(bytes(data))
        rc, out, err = run("metadata", "--json", node, cwd=None)
        self.assertEqual(rc, 0, err)
        got = [p for p in problems(out) if p["code"] in ("crc_mismatch", "offsets_lost")]
        self.assertEqual(sorted(p["code"] for p in got), ["crc_mismatch", "offsets_lost"])
        for p in got:
            self.assertEqual(p["severity"], "warning")
            self.assertIn("below the end offset 122 of the snapshot the state is built from: the state is unaffected",
                          p["message"])
        # the same damage past the snapshot's end is an error, as before
        rc, out, err = run("metadata", "--json", "--as-of-offset", "60", node, cwd=None)
        self.assertEqual(rc, 1, err)
        self.assertIn("error", [p["severity"] for p in problems(out) if p["code"] == "crc_mismatch"])


if __name__ == "__main__":
    unittest.main()
