#!/usr/bin/python3
"""End-to-end tests of `kfsck stats --sink-partition-duration` (the storage
sink catch-up simulation of cli.md's stats section).

The expected figures come from tools/model/sink_model.py, the contract's
model independent of kfsck, on the fixtures' segments (fixtures/sink/,
tools/gen/gen_sink.py) decoded by kafka-python. It follows these words of
the contract:

  * records in offset order per topic partition; control records are not
    records a sink sees; a record with no timestamp (magic 0, or -1) cannot
    be placed by a time-based partitioner and is left out;
  * --from-offset N: the records at offsets >= N; --from-time MS: Kafka's
    offsetsForTimes, the first batch (control batches included) whose max
    timestamp is >= MS and in it the first record whose timestamp is >= MS;
  * bucket = floor(timestamp / duration); a bucket with no open file opens
    one; all open files are committed together after flush.size records
    written since the last commit, and with --rotate-interval also before a
    record whose bucket differs from the previous record's or whose timestamp
    is at least the interval past the first record written since the last
    commit; files still open at the end are not committed;
  * peak_at_offset: the record that first brought the open files to the peak;
    peak_buffer_bytes = peak x part size (default 25 MiB); per topic the sum
    of the partitions' peaks.
"""
import glob
import json
import os
import struct
import sys
import tempfile
import shutil
import unittest

from kafka.record.memory_records import MemoryRecords

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, jsonl, of_type, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "model"))
import sink_model  # noqa: E402
from sink_model import read_segment, resume, simulate  # noqa: E402

SINK = os.path.join(FIX, "sink")

with open(os.path.join(SINK, "MANIFEST.json"), "rb") as f:
    MANIFEST = json.loads(f.read())
PARTS = {p["path"]: p for p in MANIFEST["partitions"] + MANIFEST["damaged"]}

MIB = 1 << 20
HOUR = 3600000


def read_partition(rel):
    return sink_model.read_partition(os.path.join(FIX, rel))


def expect(rel, duration, flush, rotate=None, from_offset=None, from_time=None, schedule=None):
    return sink_model.expect_dir(os.path.join(FIX, rel), duration, flush, rotate, from_offset, from_time, schedule)


def sink_args(duration, flush, rotate=None, from_offset=None, from_time=None, part=None):
    a = ["stats", "--json", "--sink-partition-duration", str(duration), "--flush-size", str(flush)]
    if rotate:
        a += ["--rotate-interval", str(rotate)]
    if from_offset is not None:
        a += ["--from-offset", str(from_offset)]
    if from_time is not None:
        a += ["--from-time", str(from_time)]
    if part is not None:
        a += ["--part-size", str(part)]
    return a


def assert_usage_errors(test, bad):
    """Each of bad (arguments after `stats`) is a usage error: exit 2, nothing
    on stdout, the reason on stderr."""
    for args in bad:
        with test.subTest(args=args):
            code, out, err = run("stats", *args)
            test.assertEqual(code, 2, err)
            test.assertEqual(out, "")
            test.assertIn("kfsck stats:", err)


EVENTS = ["sink/datadir/events-0", "sink/datadir/events-1", "sink/datadir/events-2"]
T0 = 1700000000000

# (duration ms, flush.size, rotate ms, from offset, from time)
COMBOS = [
    (HOUR, 100, None, None, None),
    (HOUR, 1000, None, None, None),
    (600000, 50, None, None, None),
    (600000, 7, None, None, None),
    (86400000, 100, None, None, None),
    (60000, 1, None, None, None),
    (HOUR, 100, HOUR, None, None),
    (600000, 1000, 1800000, None, None),
    (600000, 1000, 600000, None, None),
    (HOUR, 100, None, 150, None),
    (600000, 50, None, 0, None),
    (600000, 50, 1800000, 399, None),
    (HOUR, 100, None, None, T0 + 90 * 60000),
    (600000, 30, None, None, T0 - 7 * 86400000),
    (600000, 30, 600000, None, T0 + 60 * 60000),
    (HOUR, 100, None, None, T0 + 365 * 86400000),
    (HOUR, 100, None, 100000, None),
]


class Figures(unittest.TestCase):
    def check_partition(self, got, e, part=25 * MIB, rotate=None):
        sim = e["sim"]
        self.assertEqual(got["records"], e["records"])
        self.assertEqual(got["records_without_timestamp"], e["no_ts"])
        self.assertEqual(got["records_written"], sim["written"])
        self.assertEqual(got["files_committed"], sim["committed"])
        self.assertEqual(got["peak_open_files"], sim["peak"])
        self.assertEqual(got["peak_at_offset"], sim["peak_at"])
        self.assertEqual(got["peak_buffer_bytes"], sim["peak"] * part)
        self.assertEqual(got["open_files_at_end"], sim["open"])
        self.assertEqual(got["resume_offset"], e["resume"])
        self.assertEqual(got["control_records"], e["control"])

    def test_each_partition_and_option_combination(self):
        for rel in EVENTS + ["sink/datadir/legacy-0"]:
            topic, num = os.path.basename(rel).rsplit("-", 1)
            for dur, flush, rot, fo, ft in COMBOS:
                with self.subTest(partition=rel, duration=dur, flush=flush, rotate=rot, from_offset=fo, from_time=ft):
                    code, out, err = run(*sink_args(dur, flush, rot, fo, ft), rel)
                    self.assertEqual(code, 0, err)
                    lines = jsonl(out)
                    parts = of_type(lines, "sink_partition")
                    self.assertEqual(len(parts), 1)
                    self.assertEqual((parts[0]["topic"], parts[0]["partition"]), (topic, int(num)))
                    e = expect(rel, dur, flush, rot, fo, ft)
                    self.check_partition(parts[0], e)
                    s = of_type(lines, "sink_summary")
                    self.assertEqual(len(s), 1)
                    s = s[0]
                    self.assertEqual(s["partitions"], 1)
                    self.assertEqual(s["peak_open_files"], e["sim"]["peak"])
                    self.assertEqual(s["peak_buffer_bytes"], e["sim"]["peak"] * 25 * MIB)
                    self.assertEqual(s["files_committed"], e["sim"]["committed"])
                    if rot:
                        self.assertIsNone(s["with_rotate_interval"])
                        self.assertLessEqual(e["sim"]["peak"], 1)
                    else:
                        alt = s["with_rotate_interval"]
                        self.assertEqual(alt["rotate_interval_ms"], dur)
                        self.assertEqual((alt["peak_open_files"], alt["files_committed"]),
                                         (e["alt_rotate"]["peak"], e["alt_rotate"]["committed"]))
                        alt = s["with_smaller_flush_size"]
                        if flush == 1:
                            self.assertIsNone(alt)
                        else:
                            self.assertEqual(alt["flush_size"], max(flush // 10, 1))
                            self.assertEqual((alt["peak_open_files"], alt["files_committed"]),
                                             (e["alt_flush"]["peak"], e["alt_flush"]["committed"]))

    def test_topic_summary_sums_partitions(self):
        for dur, flush, rot in ((HOUR, 100, None), (600000, 40, None), (600000, 40, 1200000)):
            with self.subTest(duration=dur, flush=flush, rotate=rot):
                code, out, err = run(*sink_args(dur, flush, rot, part="5M"), "sink/datadir")
                self.assertEqual(code, 0, err)
                lines = jsonl(out)
                types = [x["type"] for x in lines]
                self.assertEqual(types, sorted(types))  # sink_partition lines, then sink_summary lines
                exp = {rel: expect(rel, dur, flush, rot) for rel in EVENTS}
                got = {(p["topic"], p["partition"]): p for p in of_type(lines, "sink_partition")}
                self.assertEqual(sorted(got), [("events", 0), ("events", 1), ("events", 2), ("legacy", 0)])
                for rel, e in exp.items():
                    self.check_partition(got[("events", int(rel[-1]))], e, part=5 * MIB)
                sums = {s["topic"]: s for s in of_type(lines, "sink_summary")}
                self.assertEqual(sorted(sums), ["events", "legacy"])
                ev = sums["events"]
                peak = sum(e["sim"]["peak"] for e in exp.values())
                self.assertEqual(ev["partitions"], 3)
                self.assertEqual(ev["peak_open_files"], peak)
                self.assertEqual(ev["peak_buffer_bytes"], peak * 5 * MIB)
                self.assertEqual(ev["part_size"], 5 * MIB)
                self.assertEqual(ev["records"], sum(e["records"] for e in exp.values()))
                if not rot:
                    self.assertEqual(ev["with_rotate_interval"]["peak_open_files"],
                                     sum(e["alt_rotate"]["peak"] for e in exp.values()))
                    self.assertEqual(ev["with_smaller_flush_size"]["peak_open_files"],
                                     sum(e["alt_flush"]["peak"] for e in exp.values()))

    def test_disorder_and_lateness_raise_the_peak(self):
        # the fixtures are what they claim: ordered data keeps open only the buckets
        # flush.size records span (200 x 30 s = 100 min: 11 of 10 min), disorder and
        # late data more
        e = {rel: expect(rel, 600000, 200)["sim"]["peak"] for rel in EVENTS}
        self.assertLessEqual(e["sink/datadir/events-0"], 11)
        self.assertGreater(e["sink/datadir/events-1"], e["sink/datadir/events-0"])
        self.assertGreater(e["sink/datadir/events-2"], e["sink/datadir/events-1"])

    def test_part_size(self):
        for arg, size in (("1", 1), ("5M", 5 * MIB), ("26214400", 25 * MIB), ("1G", 1 << 30)):
            with self.subTest(part=arg):
                code, out, _ = run(*sink_args(600000, 50, part=arg), "sink/datadir/events-2")
                self.assertEqual(code, 0)
                p = of_type(jsonl(out), "sink_partition")[0]
                self.assertEqual(p["peak_buffer_bytes"], p["peak_open_files"] * size)

    def test_single_segment_file(self):
        seg = "sink/datadir/events-0/00000000000000000203.log"
        code, out, err = run(*sink_args(600000, 20), seg)
        self.assertEqual(code, 0, err)
        b, _ = read_segment(os.path.join(FIX, seg))
        recs = [r for x in b if not x.control for r in x.records]
        sim = simulate(recs, 600000, 20)
        p = of_type(jsonl(out), "sink_partition")[0]
        self.assertEqual((p["records"], p["peak_open_files"], p["peak_at_offset"], p["files_committed"]),
                         (len(recs), sim["peak"], sim["peak_at"], sim["committed"]))


class ResumePoint(unittest.TestCase):
    def test_from_time_can_land_on_a_transaction_marker(self):
        fact = PARTS["sink/datadir/events-2"]
        (marker,) = fact["control_offsets"]
        batches, _ = read_partition(fact["path"])
        ctl = next(b for b in batches if b.control)
        # offsetsForTimes finds the marker when its time is the first to reach the target
        code, out, _ = run(*sink_args(HOUR, 100, from_time=ctl.max_ts), fact["path"])
        self.assertEqual(code, 0)
        p = of_type(jsonl(out), "sink_partition")[0]
        self.assertEqual(p["resume_offset"], marker)
        self.assertEqual(p["control_records"], 1)
        e = expect(fact["path"], HOUR, 100, from_time=ctl.max_ts)
        self.assertEqual(e["resume"], marker)
        self.assertEqual(p["records"], e["records"])
        # every data record after the marker is read, even those older than the target (late data)
        self.assertTrue(any(ts < ctl.max_ts for _, ts in
                            resume(batches, from_time=ctl.max_ts)[1]))

    def test_from_time_in_disordered_data(self):
        # the resume point is the first offset whose record reaches the target;
        # records after it with older timestamps are read all the same
        rel = "sink/datadir/events-1"
        batches, _ = read_partition(rel)
        for t in (T0 + 30 * 60000, T0 + 100 * 60000, T0 + 150 * 60000):
            code, out, _ = run(*sink_args(HOUR, 100, from_time=t), rel)
            self.assertEqual(code, 0)
            p = of_type(jsonl(out), "sink_partition")[0]
            first_batch = next(b for b in batches if b.max_ts >= t)
            want = next(o for o, ts in first_batch.records if ts >= t)
            self.assertEqual(p["resume_offset"], want)
            later = [ts for b in batches for o, ts in b.records if o > want]
            self.assertTrue(any(ts < t for ts in later))
            self.assertEqual(p["records"], len(later) + 1)

    def test_from_time_looks_into_a_batch_only_when_its_max_timestamp_reaches_it(self):
        # Kafka's searchForTimestamp skips a batch whose header max timestamp is
        # below the target, whatever its records say: lower one batch's header
        # (CRC recomputed) and the resume point moves on to the next batch
        from kafka.record.util import calc_crc32c
        with tempfile.TemporaryDirectory() as t:
            dst = os.path.join(t, "events-0")
            shutil.copytree(os.path.join(FIX, "sink/datadir/events-0"), dst)
            seg = os.path.join(dst, "00000000000000000000.log")
            with open(seg, "rb") as f:
                data = bytearray(f.read())
            pos, n = 0, 0
            while True:  # the 10th batch
                size = struct.unpack_from(">i", data, pos + 8)[0]
                if n == 10:
                    break
                pos += 12 + size
                n += 1
            entry = bytes(data[pos:pos + 12 + size])
            recs = [(r.offset, r.timestamp) for r in MemoryRecords(entry).next_batch()]
            base_ts = struct.unpack_from(">q", data, pos + 27)[0]
            struct.pack_into(">q", data, pos + 35, base_ts - 1)
            struct.pack_into(">I", data, pos + 17, calc_crc32c(bytes(data[pos + 21:pos + 12 + size])))
            with open(seg, "wb") as f:
                f.write(data)
            target = recs[0][1]
            code, out, err = run(*sink_args(HOUR, 100, from_time=target), dst)
            self.assertEqual(code, 0, err)
            p = of_type(jsonl(out), "sink_partition")[0]
            self.assertEqual(p["resume_offset"], recs[-1][0] + 1)
            batches, _ = read_segment(seg)
            self.assertEqual(resume(batches, from_time=target)[0], recs[-1][0] + 1)

    def test_from_time_after_everything_reads_nothing(self):
        code, out, _ = run(*sink_args(HOUR, 100, from_time=T0 + 365 * 86400000), "sink/datadir")
        self.assertEqual(code, 0)
        for p in of_type(jsonl(out), "sink_partition"):
            self.assertIsNone(p["resume_offset"])
            self.assertEqual((p["records"], p["peak_open_files"]), (0, 0))
            self.assertIsNone(p["peak_at_offset"])
        for s in of_type(jsonl(out), "sink_summary"):
            self.assertEqual(s["peak_open_files"], 0)
            self.assertIn("nothing", s["suggestion"])

    def test_magic0_records_are_left_out(self):
        fact = PARTS["sink/datadir/legacy-0"]
        self.assertEqual(fact["magics"], [0, 1, 2])
        code, out, _ = run(*sink_args(HOUR, 100), fact["path"])
        self.assertEqual(code, 0)
        p = of_type(jsonl(out), "sink_partition")[0]
        self.assertEqual(p["records"], fact["data_records"])
        self.assertEqual(p["records_without_timestamp"], 12)  # 10 magic-0 messages, 2 v2 records at -1
        self.assertEqual(p["records_written"], fact["data_records"] - 12)
        code, out, err = run("stats", "--sink-partition-duration", "1h", "--flush-size", "100", fact["path"])
        self.assertEqual(code, 0, err)
        self.assertIn("without a timestamp", out)


class Suggestion(unittest.TestCase):
    def test_suggestion_names_the_settings_and_figures(self):
        code, out, _ = run(*sink_args(600000, 200), "sink/datadir/events-2")
        self.assertEqual(code, 0)
        s = of_type(jsonl(out), "sink_summary")[0]
        self.assertGreater(s["peak_open_files"], 1)
        self.assertIn("rotate.interval.ms", s["suggestion"])
        self.assertIn("600000", s["suggestion"])
        self.assertIn("flush.size to 20", s["suggestion"])
        self.assertIn("1 open file (25.0 MiB", s["suggestion"])
        self.assertIn("%d files committed" % s["with_rotate_interval"]["files_committed"], s["suggestion"])

    def test_with_rotation_given(self):
        code, out, _ = run(*sink_args(600000, 200, rotate=600000), "sink/datadir")
        self.assertEqual(code, 0)
        for s in of_type(jsonl(out), "sink_summary"):
            self.assertLessEqual(s["peak_open_files"], s["partitions"])
            self.assertIn("already", s["suggestion"])
            self.assertIsNone(s["with_rotate_interval"])
            self.assertIsNone(s["with_smaller_flush_size"])

    def test_one_file_per_partition_already(self):
        code, out, _ = run(*sink_args(HOUR, 1), "sink/datadir/events-1")
        self.assertEqual(code, 0)
        s = of_type(jsonl(out), "sink_summary")[0]
        self.assertEqual(s["peak_open_files"], 1)
        self.assertIsNone(s["with_smaller_flush_size"])
        self.assertIn("already at most one file open per partition", s["suggestion"])

    def test_text_output(self):
        code, out, _ = run("stats", "--sink-partition-duration", "10m", "--flush-size", "100", "sink/datadir")
        self.assertEqual(code, 0)
        self.assertIn("events-1", out)
        self.assertIn("suggestion: set rotate.interval.ms", out)
        self.assertIn("PEAK OPEN", out)
        self.assertIn("partition.duration.ms=600000", out)


class Damage(unittest.TestCase):
    def test_damaged_batches_are_skipped_and_reported(self):
        fact = PARTS["sink/damaged/events-1"]
        kinds = sorted(d["kind"] for d in fact["damage"])
        self.assertEqual(kinds, ["crc_mismatch", "decompress_error"])
        for dur, flush, rot in ((HOUR, 100, None), (600000, 20, None), (600000, 20, 1800000)):
            with self.subTest(duration=dur, flush=flush, rotate=rot):
                code, out, _ = run(*sink_args(dur, flush, rot), fact["path"])
                self.assertEqual(code, 1)
                lines = jsonl(out)
                codes = {p["code"] for p in of_type(lines, "problem")}
                self.assertIn("crc_mismatch", codes)
                self.assertIn("decompress_error", codes)
                e = expect(fact["path"], dur, flush, rot)
                self.assertEqual(e["damaged"], 2)
                p = of_type(lines, "sink_partition")[0]
                Figures.check_partition(self, p, e)
                self.assertGreaterEqual(p["damaged_ranges"], 2)
                self.assertLess(p["records"], 400)
                s = of_type(lines, "sink_summary")[0]
                self.assertGreaterEqual(s["damaged_ranges"], 2)

    def test_text_says_figures_may_be_low(self):
        code, out, err = run("stats", "--sink-partition-duration", "1h", "--flush-size", "100",
                             "sink/damaged/events-1")
        self.assertEqual(code, 1)
        self.assertIn("may be low", out)
        self.assertIn("decompress_error", err)

    def test_damage_covered_by_another_copy_is_not_damage(self):
        # the bit-flipped batch alone, covered by the healthy copy
        with tempfile.TemporaryDirectory() as t:
            dst = os.path.join(t, "events-1")
            shutil.copytree(os.path.join(FIX, "sink/datadir/events-1"), dst)
            seg = os.path.join(dst, "00000000000000000000.log")
            crc = next(d for d in PARTS["sink/damaged/events-1"]["damage"] if d["kind"] == "crc_mismatch")
            with open(seg, "r+b") as f:
                f.seek(crc["position"] + 70)
                byte = f.read(1)[0]
                f.seek(crc["position"] + 70)
                f.write(bytes([byte ^ 0x10]))
            code, out, _ = run(*sink_args(600000, 20), dst)
            self.assertEqual(code, 1)
            code, out2, _ = run(*sink_args(600000, 20), dst, "sink/datadir/events-1")
            self.assertEqual(code, 0)
            e = expect("sink/datadir/events-1", 600000, 20)
            Figures.check_partition(self, of_type(jsonl(out2), "sink_partition")[0], e)


class Usage(unittest.TestCase):
    def test_usage_errors(self):
        p = "sink/datadir/events-0"
        bad = [
            ["--sink-partition-duration", "1h", p],                                   # no --flush-size
            ["--flush-size", "10", p],                                                # no duration
            ["--rotate-interval", "1h", p],
            ["--part-size", "5M", p],
            ["--from-offset", "3", p],
            ["--from-time", "1700000000000", p],
            ["--sink-partition-duration", "1h", "--flush-size", "0", p],
            ["--sink-partition-duration", "1h", "--flush-size", "-5", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10k", p],
            ["--sink-partition-duration", "0", "--flush-size", "10", p],
            ["--sink-partition-duration", "1x", "--flush-size", "10", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--rotate-interval", "0", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--part-size", "0", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--from-offset", "-1", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--from-time", "-1", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--from-offset", "1", "--from-time", "5", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--bucket", "1h", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10", "--by-partition", p],
            ["--sink-partition-duration", "1h", "--flush-size", "10"],                # no PATH
            ["--sink-partition-duration"],
        ]
        assert_usage_errors(self, bad)

    def test_help_names_the_options(self):
        code, out, _ = run("stats", "--help")
        self.assertEqual(code, 0)
        for opt in ("--sink-partition-duration", "--flush-size", "--rotate-interval", "--part-size",
                    "--from-offset", "--from-time"):
            self.assertIn(opt, out)

    def test_missing_path_exit_3(self):
        code, _, err = run(*sink_args(HOUR, 10), "no/such/dir")
        self.assertEqual(code, 3)
        self.assertIn("kfsck: no/such/dir:", err)

    def test_durations(self):
        for arg, ms in (("10m", 600000), ("1h", HOUR), ("1d", 86400000), ("90000", 90000)):
            with self.subTest(duration=arg):
                code, out, _ = run("stats", "--json", "--sink-partition-duration", arg, "--flush-size", "50",
                                   "--rotate-interval", arg, "sink/datadir/events-1")
                self.assertEqual(code, 0)
                s = of_type(jsonl(out), "sink_summary")[0]
                self.assertEqual((s["partition_duration_ms"], s["rotate_interval_ms"]), (ms, ms))


if __name__ == "__main__":
    unittest.main()
