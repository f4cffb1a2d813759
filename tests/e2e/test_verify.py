#!/usr/bin/python3
"""End-to-end tests of `kfsck verify`.

They run the built binary ($KFSCK, default ./kfsck) on the committed fixtures
and compare its JSON output with fixtures/MANIFEST.json, which the fixture
generator (tools/gen/gen_fixtures.py, kafka-python's encoders) wrote from its own
knowledge of what it encoded: batches, records, valid_bytes and the damage
each damaged copy carries. Bad-input cases are built in temporary dirs.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import (DAMAGED, FIX, HEALTHY, LOGS, MANIFEST, TempDirTest, jsonl, of_type, read, run,  # noqa: E402
                       tree_digest)


class HealthyLogs(unittest.TestCase):
    def test_verify_each_healthy_log(self):
        self.assertGreater(len(HEALTHY), 20)
        for log in HEALTHY:
            with self.subTest(log=log["path"]):
                code, out, err = run("verify", "--json", log["path"])
                lines = jsonl(out)
                errors = [p for p in of_type(lines, "problem") if p["severity"] == "error"]
                self.assertEqual(errors, [])
                self.assertEqual(code, 0, err)
                seg = of_type(lines, "segment")
                self.assertEqual(len(seg), 1)
                seg = seg[0]
                self.assertEqual(seg["file"], log["path"])
                self.assertEqual(seg["size"], log["size"])
                self.assertEqual(seg["valid_bytes"], log["valid_bytes"])
                self.assertEqual(seg["batches"], log["batch_count"])
                self.assertEqual(seg["records"], log["records"])
                self.assertEqual(seg["bad_batches"], 0)
                self.assertEqual(seg["first_offset"], log["first_offset"])
                self.assertEqual(seg["last_offset"], log["last_offset"])


class DamagedLogs(unittest.TestCase):
    def test_each_damage_is_named_where_it_is(self):
        self.assertGreaterEqual(len(DAMAGED), 9)
        for log in DAMAGED:
            with self.subTest(log=log["path"]):
                code, out, err = run("verify", "--json", log["path"])
                lines = jsonl(out)
                problems = of_type(lines, "problem")
                for want in log["problems"]:
                    match = [p for p in problems if p["file"] == want["file"] and p["code"] == want["code"]
                             and p["position"] == want["position"]]
                    self.assertTrue(match, f"missing {want} in {problems}")
                    p = match[0]
                    self.assertEqual(p["severity"], want["severity"])
                    self.assertEqual(p["offset"], want["offset"])
                    if "length" in want:
                        self.assertEqual(p["length"], want["length"])
                any_error = any(w["severity"] == "error" for w in log["problems"])
                self.assertEqual(code, 1 if any_error else 0, err)
                seg = of_type(lines, "segment")[0]
                self.assertEqual(seg["valid_bytes"], log["valid_bytes"])

    def test_resync_keeps_checking_after_damage(self):
        # bitflip: one batch lost, every other batch still read
        log = next(l for l in DAMAGED if l["case"].endswith("bitflip"))
        code, out, err = run("verify", "--json", log["path"])
        self.assertEqual(code, 1, err)
        seg = of_type(jsonl(out), "segment")[0]
        intact = sum(1 for b in log["batches"] if b.get("intact"))
        self.assertEqual(seg["batches"], intact)
        self.assertEqual(seg["bad_batches"], 1)


class Directories(unittest.TestCase):
    def test_partition_dir_is_clean(self):
        code, out, err = run("verify", "--json", "partition/orders-0")
        self.assertEqual(code, 0, out + err)
        segs = of_type(jsonl(out), "segment")
        self.assertEqual([s["file"] for s in segs], MANIFEST["partitions"][0]["segments"])

    def test_datadir_names_the_one_damaged_partition(self):
        code, out, err = run("verify", "--json", "datadir")
        self.assertEqual(code, 1)
        errors = [p for p in of_type(jsonl(out), "problem") if p["severity"] == "error"]
        want = MANIFEST["datadir"]["expected_problems"]
        self.assertEqual([(p["file"], p["code"], p["position"], p["offset"]) for p in errors],
                         [(w["file"], w["code"], w["position"], w["offset"]) for w in want])

    def test_segment_gap_and_overlap(self):
        with tempfile.TemporaryDirectory() as t:
            part = os.path.join(t, "orders-0")
            os.mkdir(part)
            src = os.path.join(FIX, "partition/orders-0")
            logs = sorted(f for f in os.listdir(src) if f.endswith(".log"))
            # keep segments 0 and 812 only: offsets 398..811 are in no segment
            for f in (logs[0], logs[2]):
                shutil.copy(os.path.join(src, f), part)
            code, out, _ = run("verify", "--json", part)
            probs = of_type(jsonl(out), "problem")
            gap = [p for p in probs if p["code"] == "segment_gap"]
            self.assertEqual(len(gap), 1)
            self.assertEqual(gap[0]["severity"], "warning")
            self.assertEqual(gap[0]["offset"], 398)
            self.assertEqual(code, 0)
            # a copy of segment 0 named as if it started at 100 overlaps segment 0's offsets
            shutil.copy(os.path.join(src, logs[0]), os.path.join(part, "00000000000000000100.log"))
            code, out, _ = run("verify", "--json", part)
            codes = [p["code"] for p in of_type(jsonl(out), "problem")]
            self.assertIn("segment_overlap", codes)
            self.assertIn("base_offset_mismatch", codes)
            self.assertEqual(code, 1)


class BadInput(TempDirTest):
    def test_empty_segment(self):
        p = self.write("00000000000000000000.log", b"")
        code, out, _ = run("verify", "--json", p)
        self.assertEqual(code, 0)
        seg = of_type(jsonl(out), "segment")[0]
        self.assertEqual((seg["size"], seg["batches"], seg["valid_bytes"]), (0, 0, 0))
        self.assertIsNone(seg["first_offset"])
        self.assertIsNone(seg["last_offset"])

    def test_absurd_lengths_and_truncations_of_a_real_batch(self):
        gz = next(l for l in LOGS if l["path"] == "segments/v2-gzip/00000000000000000000.log")
        src = read(os.path.join(FIX, gz["path"]))
        # one zero byte (the top byte of offset 0) is only a zero tail
        p = self.write("00000000000000000000.log", src[:1])
        code, out, _ = run("verify", "--json", p)
        self.assertEqual(code, 0)
        self.assertEqual([x["code"] for x in of_type(jsonl(out), "problem")], ["zero_fill"])
        for cut in (12, 17, 18, 60, 61, 62, 200, len(src) - 1):
            p = self.write("00000000000000000000.log", src[:cut])
            code, out, _ = run("verify", "--json", p)
            seg = of_type(jsonl(out), "segment")[0]
            starts = [b["position"] for b in gz["batches"] if b["position"] <= cut]
            self.assertEqual(seg["valid_bytes"], max(starts))  # the torn batch's start
            self.assertEqual(code, 1)
        for length in (0, 13, 48, 0x7fffffff, -1):
            d = bytearray(src)
            d[8:12] = (length & 0xffffffff).to_bytes(4, "big")
            p = self.write("00000000000000000000.log", bytes(d))
            code, out, _ = run("verify", "--json", p)
            self.assertEqual(code, 1)
            self.assertEqual(of_type(jsonl(out), "segment")[0]["valid_bytes"], 0)

    def test_directory_in_place_of_a_segment(self):
        part = os.path.join(self.tmp, "t-0")
        os.makedirs(os.path.join(part, "00000000000000000000.log"))
        code, _, err = run("verify", part)
        self.assertEqual(code, 3)
        self.assertTrue(err.startswith(f"kfsck: {part}/00000000000000000000.log: "), err)
        self.assertEqual(len(err.splitlines()), 1)
        code, out, _ = run("verify", "--json", part)
        self.assertEqual(code, 3)
        self.assertEqual([(p["code"], p["file"]) for p in of_type(jsonl(out), "problem")],
                         [("unreadable", f"{part}/00000000000000000000.log")])

    def test_stray_names_are_ignored(self):
        part = os.path.join(self.tmp, "t-0")
        os.makedirs(part)
        shutil.copy(os.path.join(FIX, "segments/v2-none/00000000000000000000.log"), part)
        for name in ("README", ".lock", "00000000000000000000.log.bak", "foo-bar"):
            self.write(os.path.join("t-0", name), b"junk")
        code, out, err = run("verify", "--json", self.tmp)
        self.assertEqual(code, 0, out + err)
        self.assertEqual(len(of_type(jsonl(out), "segment")), 1)

    def test_a_log_named_by_no_offset_stops_the_broker(self):
        """The broker reads a .log's offset from the text before the first
        '.' with Long.parseLong: x.log (valid batches in it or not) throws
        NumberFormatException and stops it (checked against Kafka 4.4)."""
        part = os.path.join(self.tmp, "t-0")
        os.makedirs(part)
        shutil.copy(os.path.join(FIX, "segments/v2-none/00000000000000000000.log"), part)
        shutil.copy(os.path.join(FIX, "segments/v2-none/00000000000000000000.log"), os.path.join(part, "x.log"))
        self.write(os.path.join("t-0", "y.timeindex"), b"")
        for cmd in ("verify", "scan"):
            with self.subTest(cmd=cmd):
                code, out, err = run(cmd, "--json", self.tmp)
                self.assertEqual(code, 1, out + err)
                probs = [p for p in of_type(jsonl(out), "problem") if p["code"] == "file_name_invalid"]
                self.assertEqual(sorted(p["file"] for p in probs),
                                 [os.path.join(part, "x.log"), os.path.join(part, "y.timeindex")])
                self.assertIn('("x"), which is no number', [p for p in probs if p["file"].endswith("x.log")][0]["message"])


class DamagedSmallFiles(unittest.TestCase):
    """A checkpoint and a snapshot that do not parse."""
    """Snapshots, txn indexes and checkpoints against what the generator wrote."""

    def test_damaged_checkpoint_and_snapshot(self):
        with tempfile.TemporaryDirectory() as t:
            ck = os.path.join(t, "recovery-point-offset-checkpoint")
            with open(ck, "w") as f:
                f.write("0\n3\norders 0 5\norders one 6\n")
            code, out, _ = run("verify", "--json", ck)
            self.assertEqual(code, 1)
            self.assertIn("checkpoint_invalid", [p["code"] for p in of_type(jsonl(out), "problem")])
            src = read(os.path.join(FIX, MANIFEST["partitions"][0]["snapshot"]["path"]))
            snap = os.path.join(t, "00000000000000001110.snapshot")
            bad = bytearray(src)
            bad[-1] ^= 1
            with open(snap, "wb") as f:
                f.write(bad)
            code, out, _ = run("verify", "--json", snap)
            self.assertEqual(code, 1)
            probs = of_type(jsonl(out), "problem")
            self.assertEqual([(p["code"], p["position"]) for p in probs], [("snapshot_invalid", 2)])


class ReadOnly(unittest.TestCase):
    def test_inputs_are_not_modified(self):
        before = tree_digest(FIX)
        # the data dir's damaged clicks-0 and every damaged case: exit 1
        damaged = sorted(os.path.join("damaged", d) for d in os.listdir(os.path.join(FIX, "damaged")))
        self.assertGreater(len(damaged), 5)
        self.assertEqual(run("verify", "--json", "datadir")[0], 1)
        self.assertEqual(run("dump", "--json", "--records", "datadir")[0], 1)
        code, out, err = run("verify", *damaged)
        self.assertEqual(code, 1, err)
        self.assertEqual(err, "")
        self.assertEqual(before, tree_digest(FIX))


if __name__ == "__main__":
    unittest.main()
