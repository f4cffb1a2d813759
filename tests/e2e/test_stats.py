#!/usr/bin/python3
"""End-to-end tests of `kfsck stats`.

The expected buckets, byte counts, timestamp ranges and lateness are computed
here independently of kfsck: for the single-segment fixtures from
fixtures/MANIFEST.json's records_detail (what the generator encoded), for the
partition and data-dir fixtures by reading the segments with kafka-python's
own record readers (kafka.record.memory_records.MemoryRecords).

bytes of a record = key length + value length + every header's key (UTF-8)
and value length, null counting 0; control records are left out; records
without a timestamp are in no bucket but in the summary.
"""
import base64
import glob
import os
import shutil
import sys
import tempfile
import unittest

from kafka.record.memory_records import MemoryRecords

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, MANIFEST, jsonl, of_type, run  # noqa: E402

SEGMENT_LOGS = [l for l in MANIFEST["logs"] if l["path"].startswith("segments/") and "records_detail" in l]


class Acc:
    """Independent model of one group: buckets, totals, lateness."""

    def __init__(self, width):
        self.width = width
        self.buckets = {}
        self.records = self.bytes = self.no_ts = self.control = 0
        self.min_ts = self.max_ts = None
        self.max_late = 0

    def partition(self):
        return {"max": None}

    def add(self, part, ts, size):
        self.records += 1
        self.bytes += size
        if ts is None or ts == -1:
            self.no_ts += 1
            return
        start = (ts // self.width) * self.width  # Python floors, as the contract says
        b = self.buckets.setdefault(start, [0, 0])
        b[0] += 1
        b[1] += size
        self.min_ts = ts if self.min_ts is None else min(self.min_ts, ts)
        self.max_ts = ts if self.max_ts is None else max(self.max_ts, ts)
        if part["max"] is not None:
            self.max_late = max(self.max_late, part["max"] - ts)
            part["max"] = max(part["max"], ts)
        else:
            part["max"] = ts

    def bucket_list(self):
        return [(s, r, b) for s, (r, b) in sorted(self.buckets.items())]


def manifest_size(rec):
    n = max(rec["key_size"], 0) + max(rec["value_size"], 0)
    for h in rec.get("headers") or []:
        n += len(h["key"].encode("utf-8"))
        if h.get("value_b64") is not None:
            n += len(base64.b64decode(h["value_b64"]))
    return n


def manifest_expect(log, width):
    """Expected stats of a segments/* fixture from its records_detail."""
    acc = Acc(width)
    part = acc.partition()
    for rec in sorted(log["records_detail"], key=lambda r: r["offset"]):
        batch = next(b for b in log["batches"]
                     if (b.get("base_offset") if b.get("base_offset") is not None else b["last_offset"])
                     <= rec["offset"] <= b["last_offset"])
        if batch["control"]:
            acc.control += 1
            continue
        ts = rec["timestamp"]
        if batch.get("timestamp_type") == "log_append":
            ts = batch["max_timestamp"]
        acc.add(part, ts, manifest_size(rec))
    return acc


def kp_size(r):
    n = len(r.key or b"") + len(r.value or b"")
    for k, v in getattr(r, "headers", None) or []:
        n += len(k.encode("utf-8")) + len(v or b"")
    return n


def kp_read_partition(partdir, acc):
    """Feed one partition dir's records, read by kafka-python, into acc."""
    part = acc.partition()
    for seg in sorted(glob.glob(os.path.join(FIX, partdir, "*.log"))):
        with open(seg, "rb") as f:
            mr = MemoryRecords(f.read())
        while True:
            b = mr.next_batch()
            if b is None:
                break
            if getattr(b, "is_control_batch", False):
                acc.control += sum(1 for _ in b)
                continue
            for r in b:
                acc.add(part, r.timestamp, kp_size(r))
    return acc


def got_buckets(lines, topic, partition=None):
    return [(b["start"], b["records"], b["bytes"]) for b in of_type(lines, "bucket")
            if b["topic"] == topic and b["partition"] == partition]


class SegmentFixtures(unittest.TestCase):
    def test_buckets_of_every_segment_fixture(self):
        self.assertGreater(len(SEGMENT_LOGS), 10)
        for width, arg in ((10, "10ms"), (1000, "1s"), (3600000, "1h"), (7, "7")):
            for log in SEGMENT_LOGS:
                with self.subTest(log=log["path"], bucket=arg):
                    code, out, err = run("stats", "--json", "--bucket", arg, log["path"])
                    self.assertEqual(code, 0, err)
                    lines = jsonl(out)
                    exp = manifest_expect(log, width)
                    self.assertEqual(got_buckets(lines, None), exp.bucket_list())
                    sums = of_type(lines, "summary")
                    self.assertEqual(len(sums), 1)
                    s = sums[0]
                    self.assertEqual(s["records"], exp.records)
                    self.assertEqual(s["bytes"], exp.bytes)
                    self.assertEqual(s["min_timestamp"], exp.min_ts)
                    self.assertEqual(s["max_timestamp"], exp.max_ts)
                    self.assertEqual(s["records_without_timestamp"], exp.no_ts)
                    self.assertEqual(s["control_records"], exp.control)
                    if exp.min_ts is None:
                        self.assertIsNone(s["max_lateness_ms"])
                    else:
                        self.assertEqual(s["max_lateness_ms"], exp.max_late)

    def test_bucket_lines_come_before_summaries_and_in_order(self):
        code, out, _ = run("stats", "--json", "--bucket", "10ms", "segments/v2-none")
        self.assertEqual(code, 0)
        types = [x["type"] for x in jsonl(out)]
        self.assertEqual(types, sorted(types))  # "bucket" < "summary"
        starts = [b["start"] for b in of_type(jsonl(out), "bucket")]
        self.assertEqual(starts, sorted(starts))

    def test_log_append_time_uses_batch_max_timestamp(self):
        log = next(l for l in SEGMENT_LOGS if l["case"] == "txn")
        lat = [b for b in log["batches"] if b["timestamp_type"] == "log_append"]
        self.assertTrue(lat)
        code, out, _ = run("stats", "--json", "--bucket", "1ms", log["path"])
        self.assertEqual(code, 0)
        buckets = {b["start"]: b["records"] for b in of_type(jsonl(out), "bucket")}
        for b in lat:
            self.assertGreaterEqual(buckets.get(b["max_timestamp"], 0), b["count"])
        # the txn fixture has records after the log-append batch with older timestamps
        s = of_type(jsonl(out), "summary")[0]
        self.assertGreater(s["max_lateness_ms"], 0)
        self.assertEqual(s["control_records"], log["control_records"])

    def test_magic0_records_have_no_timestamp(self):
        for case in ("v0-none", "v0-gzip"):
            log = next(l for l in SEGMENT_LOGS if l["case"] == case)
            code, out, _ = run("stats", "--json", log["path"])
            self.assertEqual(code, 0)
            lines = jsonl(out)
            self.assertEqual(of_type(lines, "bucket"), [])
            s = of_type(lines, "summary")[0]
            self.assertEqual(s["records"], log["data_records"])
            self.assertEqual(s["records_without_timestamp"], log["data_records"])
            self.assertIsNone(s["min_timestamp"])
            self.assertIsNone(s["max_timestamp"])

    def test_text_output(self):
        code, out, _ = run("stats", "--bucket", "10ms", "segments/v2-none")
        self.assertEqual(code, 0)
        self.assertIn("2023-11-14T22:13:20.000Z", out)
        self.assertIn("#", out)
        self.assertIn("total: 24 records", out)


class Partitions(unittest.TestCase):
    def check_group(self, lines, topic, partition, acc):
        self.assertEqual(got_buckets(lines, topic, partition), acc.bucket_list())
        s = [x for x in of_type(lines, "summary") if x["topic"] == topic and x["partition"] == partition]
        self.assertEqual(len(s), 1, (topic, partition))
        s = s[0]
        self.assertEqual((s["records"], s["bytes"], s["min_timestamp"], s["max_timestamp"], s["max_lateness_ms"],
                          s["control_records"]),
                         (acc.records, acc.bytes, acc.min_ts, acc.max_ts, acc.max_late, acc.control))

    def test_partition_dir_by_partition(self):
        for d in ("partition/orders-0", "datadir/orders-0", "datadir/payments-0", "offsets/datadir/orders-0"):
            with self.subTest(dir=d):
                code, out, err = run("stats", "--json", "--by-partition", "--bucket", "1s", d)
                self.assertEqual(code, 0, err)
                lines = jsonl(out)
                acc = kp_read_partition(d, Acc(1000))
                self.check_group(lines, os.path.basename(d).rsplit("-", 1)[0], 0, acc)
                s = of_type(lines, "summary")[0]
                self.assertEqual(s["first_offset"] <= s["last_offset"], True)

    def test_disorder_is_measured(self):
        # orders-0 was written by several producers: timestamps run behind
        acc = kp_read_partition("datadir/orders-0", Acc(1000))
        self.assertGreater(acc.max_late, 0)
        code, out, err = run("stats", "--json", "datadir/orders-0")
        self.assertEqual(code, 0, err)
        self.assertEqual(of_type(jsonl(out), "summary")[0]["max_lateness_ms"], acc.max_late)

    def test_datadir_per_topic_and_by_partition(self):
        healthy = ["orders-0", "orders-1", "payments-0"]
        with tempfile.TemporaryDirectory() as t:
            dd = os.path.join(t, "data")
            os.mkdir(dd)
            for p in healthy:
                shutil.copytree(os.path.join(FIX, "datadir", p), os.path.join(dd, p))
            code, out, err = run("stats", "--json", "--bucket", "10s", dd)
            self.assertEqual(code, 0, err)
            lines = jsonl(out)
            orders = Acc(10000)
            kp_read_partition("datadir/orders-0", orders)
            kp_read_partition("datadir/orders-1", orders)
            self.check_group(lines, "orders", None, orders)
            self.check_group(lines, "payments", None, kp_read_partition("datadir/payments-0", Acc(10000)))
            self.assertEqual([s["topic"] for s in of_type(lines, "summary")], ["orders", "payments"])
            self.assertEqual(of_type(lines, "summary")[0]["partitions"], 2)
            topics = [b["topic"] for b in of_type(lines, "bucket")]
            self.assertEqual(topics, sorted(topics))

            code, out, err = run("stats", "--json", "--by-partition", "--bucket", "10s", dd)
            self.assertEqual(code, 0, err)
            lines = jsonl(out)
            for p in healthy:
                topic, num = p.rsplit("-", 1)
                self.check_group(lines, topic, int(num), kp_read_partition("datadir/" + p, Acc(10000)))
            keys = [(b["topic"], b["partition"], b["start"]) for b in of_type(lines, "bucket")]
            self.assertEqual(keys, sorted(keys))

    def test_copies_count_each_record_once(self):
        code, out, err = run("stats", "--json", "datadir/orders-0")
        self.assertEqual(code, 0, err)
        one = jsonl(out)
        code, out, _ = run("stats", "--json", "datadir/orders-0", "partition/orders-0")
        self.assertEqual(code, 0)
        two = jsonl(out)
        self.assertEqual(of_type(one, "summary"), of_type(two, "summary"))
        self.assertEqual(of_type(one, "bucket"), of_type(two, "bucket"))

    def test_every_topic_counts_internal_ones_too(self):
        code, out, err = run("stats", "--json", "offsets/datadir")
        self.assertIn(code, (0, 1), err)
        topics = [s["topic"] for s in of_type(jsonl(out), "summary")]
        self.assertIn("__consumer_offsets", topics)
        self.assertIn("__transaction_state", topics)
        self.assertEqual(topics, sorted(topics))


class Damage(unittest.TestCase):
    def test_damaged_partition_exit_1_with_problem(self):
        code, out, _ = run("stats", "--json", "datadir/clicks-0")
        self.assertEqual(code, 1)
        lines = jsonl(out)
        probs = of_type(lines, "problem")
        self.assertTrue(probs)
        for p in probs:
            for k in ("file", "position", "offset", "code", "severity", "message"):
                self.assertIn(k, p)
        log = next(l for l in MANIFEST["logs"] if l["path"].startswith("datadir/clicks-0"))
        s = of_type(lines, "summary")[0]
        self.assertLess(s["records"], log["data_records"])
        self.assertGreater(s["records"], 0)

    def test_damaged_segment_text_mode(self):
        code, out, err = run("stats", "datadir/clicks-0")
        self.assertEqual(code, 1)
        self.assertIn("crc_mismatch", err)
        self.assertIn("total:", out)

    def test_decompress_error_skips_batch(self):
        # a gzip batch whose payload is garbage but whose CRC is recomputed: stats cannot read it
        import zlib  # noqa: F401  (kafka-python computes CRC-32C below)
        from kafka.record.util import calc_crc32c
        log = next(l for l in SEGMENT_LOGS if l["case"] == "v2-gzip")
        with open(os.path.join(FIX, log["path"]), "rb") as f:
            data = bytearray(f.read())
        b = log["batches"][1]
        pos, size = b["position"], b["size"]
        for i in range(pos + 61, pos + size):
            data[i] = 0x41
        crc = calc_crc32c(bytes(data[pos + 21:pos + size]))
        data[pos + 17:pos + 21] = crc.to_bytes(4, "big")
        with tempfile.TemporaryDirectory() as t:
            seg = os.path.join(t, "00000000000000000000.log")
            with open(seg, "wb") as f:
                f.write(data)
            code, out, _ = run("stats", "--json", seg)
            self.assertEqual(code, 1)
            lines = jsonl(out)
            self.assertTrue([p for p in of_type(lines, "problem") if p["code"] == "decompress_error"])
            s = of_type(lines, "summary")[0]
            self.assertEqual(s["skipped_batches"], 1)
            self.assertEqual(s["records"], log["data_records"] - b["count"])


class Usage(unittest.TestCase):
    def test_bad_bucket_is_usage_error(self):
        for bad in ("0", "-5", "abc", "10x", "1.5h", "", "99999999999999999999d"):
            with self.subTest(bucket=bad):
                code, _, err = run("stats", "--bucket", bad, "segments/v2-none")
                self.assertEqual(code, 2)
                self.assertIn("--bucket", err)

    def test_good_buckets(self):
        for arg, width in (("500ms", 500), ("10s", 10000), ("10m", 600000), ("1h", 3600000), ("1d", 86400000),
                           ("250", 250)):
            with self.subTest(bucket=arg):
                code, out, _ = run("stats", "--json", "--bucket", arg, "segments/v2-none")
                self.assertEqual(code, 0)
                for b in of_type(jsonl(out), "bucket"):
                    self.assertEqual(b["start"] % width, 0)
                self.assertEqual(of_type(jsonl(out), "summary")[0]["bucket_ms"], width)

    def test_default_bucket_is_one_hour(self):
        code, out, _ = run("stats", "--json", "segments/v2-none")
        self.assertEqual(code, 0)
        self.assertEqual(of_type(jsonl(out), "summary")[0]["bucket_ms"], 3600000)

    def test_usage_errors(self):
        self.assertEqual(run("stats")[0], 2)
        self.assertEqual(run("stats", "--no-such-option", "segments/v2-none")[0], 2)
        self.assertEqual(run("stats", "--bucket")[0], 2)
        self.assertEqual(run("stats", "--max-batch-bytes", "0", "segments/v2-none")[0], 2)
        code, out, _ = run("stats", "--help")
        self.assertEqual(code, 0)
        self.assertIn("--bucket", out)

    def test_missing_path_exit_3(self):
        code, _, err = run("stats", "--json", "no/such/path")
        self.assertEqual(code, 3)
        self.assertIn("kfsck: no/such/path:", err)

    def test_max_batch_bytes_too_small_is_damage(self):
        code, out, _ = run("stats", "--json", "--max-batch-bytes", "64", "segments/v2-gzip")
        self.assertEqual(code, 1)
        self.assertTrue(of_type(jsonl(out), "problem"))


if __name__ == "__main__":
    unittest.main()
