#!/usr/bin/python3
"""End-to-end tests of `kfsck compaction`.

Every test builds its data dir in a temporary directory with the project's
Python encoders (tools/gen/kafkafmt.py for batches and markers,
tools/gen/coordfmt.py for offset commits, tools/gen/kraftfmt.py for the
KRaft metadata holding topic configs) and takes the values it expects from
tools/model/compaction_model.py, a model of Kafka's cleaner rules written
from Kafka's sources (LogCleanerManager.cleanableOffsets, LogToClean,
Cleaner.shouldRetainRecord), not from kfsck's C.
"""
import json
import os
import shutil
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, jsonl, run, run_model  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
import coordfmt as cf  # noqa: E402
import kraftfmt as kf  # noqa: E402
from kafkafmt import Rec, seg_name, v2_batch, v2_control_batch  # noqa: E402

T0 = 1707688800000          # 2024-02-11T22:00:00Z
MIN = 60000
NOW = T0 + 24 * 60 * MIN
CONTRACT = ("topic", "partition", "bytes", "cleaner_offset", "first_dirty_offset", "first_uncleanable_offset",
            "uncleanable_reason", "pinned_by", "cleanable_bytes", "dirty_ratio", "would_clean", "keys", "records",
            "live_records", "reclaimable_bytes")
EXTRA = ("tombstones", "keyless_records", "aborted_records", "log_start_offset", "log_end_offset", "high_watermark",
         "last_stable_offset", "clean_bytes", "total_bytes", "compaction_delay_ms")


def commit(group, topic, partition, offset):
    """An OffsetCommit record of __consumer_offsets: (key, value)."""
    key = cf.encode_key(1, {"group": group, "topic": topic, "partition": partition})
    value = cf.encode_value(1, 3, {"offset": offset, "metadata": "", "commitTimestamp": T0, "leaderEpoch": -1})
    return key, value


def tombstone(group, topic, partition):
    return cf.encode_key(1, {"group": group, "topic": topic, "partition": partition}), None


class Part:
    """A partition being written: segments of batches, offsets in order."""

    def __init__(self, name):
        self.name = name
        self.next = 0
        self.segments = [(0, [])]

    def roll(self):
        self.segments.append((self.next, []))

    def batch(self, kvs, ts, pid=-1, epoch=-1, txn=False, codec="none"):
        base = self.next
        recs = [Rec(base + i, ts, k, v) for i, (k, v) in enumerate(kvs)]
        self.segments[-1][1].append(v2_batch(base, recs, codec=codec, producer_id=pid, producer_epoch=epoch,
                                             base_sequence=0 if pid >= 0 else -1, transactional=txn))
        self.next += len(kvs)
        return base

    def marker(self, kind, pid, epoch, ts):
        off = self.next
        self.segments[-1][1].append(v2_control_batch(off, kind, pid, epoch, 0, ts))
        self.next += 1
        return off

    def write(self, datadir):
        pdir = os.path.join(datadir, self.name)
        os.makedirs(pdir, exist_ok=True)
        for base, batches in self.segments:
            with open(os.path.join(pdir, seg_name(base, "log")), "wb") as f:
                f.write(b"".join(batches))
        return pdir


def checkpoint(datadir, name, entries):
    with open(os.path.join(datadir, name), "w") as f:
        f.write("0\n%d\n" % len(entries))
        for topic, part, off in entries:
            f.write("%s %d %d\n" % (topic, part, off))


def superseded(name="__consumer_offsets-0", rounds=(30, 30, 5), partitions=6, group="billing"):
    """Offset commits of one group superseded many times: one segment per round."""
    p = Part(name)
    for i, n in enumerate(rounds):
        if i:
            p.roll()
        for r in range(n):
            p.batch([commit(group, "orders", q, 100 * r + q) for q in range(partitions)], T0 + (i * 60 + r) * MIN)
    return p


def metadata_log(datadir, configs):
    """__cluster_metadata-0 with a topic and config records: configs is
    [(resource type, resource name, name, value)]."""
    recs = [kf.encode_metadata(2, 0, {"Name": "compacted", "TopicId": b"\x01" * 16}),
            kf.encode_metadata(2, 0, {"Name": "plain", "TopicId": b"\x02" * 16})]
    for rtype, rname, cname, value in configs:
        recs.append(kf.encode_metadata(4, 0, {"ResourceType": {"topic": 2, "broker": 4}[rtype],
                                              "ResourceName": rname, "Name": cname, "Value": value}))
    pdir = os.path.join(datadir, "__cluster_metadata-0")
    os.makedirs(pdir)
    with open(os.path.join(pdir, seg_name(0, "log")), "wb") as f:
        f.write(kf.data_batch(0, recs, T0, 1))


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-compaction-")
        self.dd = os.path.join(self.tmp, "datadir")
        os.makedirs(self.dd)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def model(self, pdir, *args):
        code, out, err = run_model("compaction_model.py", "--now", str(NOW), *args, pdir)
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def compaction(self, *args, want_code=0):
        code, out, err = run("compaction", "--json", "--now", str(NOW), *args)
        self.assertEqual(code, want_code, out + err)
        return {(r["topic"], r["partition"]): r for r in jsonl(out, "compaction")}

    def check(self, got, want):
        for k in CONTRACT + EXTRA:
            if isinstance(want[k], float):
                self.assertAlmostEqual(got[k], want[k], places=9, msg=k)
            else:
                self.assertEqual(got[k], want[k], k)


class Superseded(Case):
    def test_commits_superseded_many_times_are_reclaimable(self):
        pdir = superseded().write(self.dd)
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["keys"], 6)
        self.assertEqual(got["records"], 65 * 6)
        self.assertEqual(got["uncleanable_reason"], "active_segment")
        self.assertTrue(got["would_clean"])
        self.assertGreater(got["reclaimable_bytes"], 0)

    def test_text_verdict_first(self):
        superseded().write(self.dd)
        code, out, err = run("compaction", "--now", str(NOW), self.dd)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "__consumer_offsets-0:")
        self.assertTrue(lines[1].startswith("  cleanable: "), lines[1])
        self.assertIn("log-cleaner.log", lines[1])
        self.assertIn("uncleanable-partitions-count", lines[1])

    def test_high_ratio_minimum_is_not_enough_dirty(self):
        pdir = superseded().write(self.dd)
        want = self.model(pdir, "--min-cleanable-ratio", "1")
        got = self.compaction("--min-cleanable-ratio", "1", self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertFalse(got["would_clean"])


class CleanerCheckpoint(Case):
    def write(self, offset, log_start=None):
        p = superseded()
        pdir = p.write(self.dd)
        checkpoint(self.dd, "cleaner-offset-checkpoint", [("__consumer_offsets", 0, offset)])
        if log_start is not None:
            checkpoint(self.dd, "log-start-offset-checkpoint", [("__consumer_offsets", 0, log_start)])
        return p, pdir

    def test_checkpoint_mid_log(self):
        p, pdir = self.write(31 * 6 + 3)  # inside the second segment
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["first_dirty_offset"], 31 * 6 + 3)
        self.assertEqual(got["cleaner_offset"], 31 * 6 + 3)
        self.assertGreater(got["dirty_ratio"], 0)
        self.assertLess(got["dirty_ratio"], 1)

    def test_checkpoint_below_log_start_is_reset(self):
        p, pdir = self.write(3, log_start=12)
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["first_dirty_offset"], 12)
        self.assertEqual(got["first_dirty_reason"], "below_log_start")

    def test_checkpoint_past_the_end_is_reset(self):
        p, pdir = self.write(100000)
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["first_dirty_offset"], 0)
        self.assertEqual(got["first_dirty_reason"], "past_log_end")


class OpenTransaction(Case):
    def build(self, close=False):
        p = superseded(rounds=(20,))
        p.roll()
        p.batch([commit("billing", "orders", q, 5000 + q) for q in range(6)], T0 + 100 * MIN)
        first = p.batch([commit("txn-app", "orders", q, 7000 + q) for q in range(3)], T0 + 65 * MIN, pid=4001,
                        epoch=3, txn=True)
        p.batch([commit("billing", "orders", q, 6000 + q) for q in range(6)], T0 + 120 * MIN)
        if close:
            p.marker("COMMIT", 4001, 3, T0 + 130 * MIN)
        p.roll()
        p.batch([commit("billing", "orders", 0, 9999)], T0 + 200 * MIN)
        return p.write(self.dd), first

    def test_open_transactional_commit_pins_cleaning(self):
        pdir, first = self.build()
        want = self.model(pdir)
        got = self.compaction(self.dd, want_code=1)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["uncleanable_reason"], "last_stable_offset")
        self.assertEqual(got["pinned_by"], {"producer_id": 4001, "producer_epoch": 3, "first_offset": first,
                                            "first_timestamp": T0 + 65 * MIN})
        self.assertEqual(got["first_uncleanable_offset"], first)

    def test_text_says_how_to_abort_it(self):
        pdir, first = self.build()
        code, out, err = run("compaction", "--now", str(NOW), self.dd)
        self.assertEqual(code, 1, err)
        verdict = out.splitlines()[1]
        self.assertIn("blocked by open transaction producer 4001 epoch 3 since 2024-02-11T23:05", verdict)
        self.assertIn("at offset %d" % first, verdict)
        self.assertIn("kafka-transactions.sh --bootstrap-server", verdict)
        self.assertIn("abort --topic __consumer_offsets --partition 0 --start-offset %d" % first, verdict)

    def test_committed_transaction_does_not_pin(self):
        pdir, _ = self.build(close=True)
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertIsNone(got["pinned_by"])
        self.assertEqual(got["uncleanable_reason"], "active_segment")

    def test_high_watermark_below_the_transaction_caps_it(self):
        pdir, first = self.build()
        checkpoint(self.dd, "replication-offset-checkpoint", [("__consumer_offsets", 0, first - 10)])
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["last_stable_offset"], first - 10)
        self.assertIsNone(got["pinned_by"])


class AbortedTransaction(Case):
    def test_aborted_commits_are_dropped_and_do_not_supersede(self):
        p = Part("__consumer_offsets-4")
        p.batch([commit("app", "orders", q, 100 + q) for q in range(3)], T0)
        first = p.batch([commit("app", "orders", q, 900 + q) for q in range(3)], T0 + MIN, pid=77, epoch=0, txn=True)
        p.batch([commit("app", "orders", 5, 5)], T0 + 2 * MIN)
        p.roll()
        abort = p.marker("ABORT", 77, 0, T0 + 3 * MIN)
        p.batch([commit("app", "orders", 0, 200)], T0 + 4 * MIN)
        pdir = p.write(self.dd)
        with open(os.path.join(pdir, seg_name(p.segments[1][0], "txnindex")), "wb") as f:
            f.write(struct.pack(">hqqqq", 0, 77, first, abort, first))
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 4)]
        self.check(got, want)
        self.assertEqual(got["aborted_records"], 3)
        self.assertEqual(got["keys"], 4)
        self.assertIsNone(got["pinned_by"])

    def test_without_txnindex_the_cleaner_does_not_know(self):
        p = Part("__consumer_offsets-4")
        p.batch([commit("app", "orders", q, 100 + q) for q in range(3)], T0)
        p.batch([commit("app", "orders", q, 900 + q) for q in range(3)], T0 + MIN, pid=77, epoch=0, txn=True)
        p.marker("ABORT", 77, 0, T0 + 3 * MIN)
        pdir = p.write(self.dd)
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 4)]
        self.check(got, want)
        self.assertEqual(got["aborted_records"], 0)


class CompactionLag(Case):
    def test_young_segment_bounds_cleaning(self):
        p = superseded(rounds=(10, 10, 10, 2))
        pdir = p.write(self.dd)
        # segment 1 ends at T0+69min, segment 2 at T0+129min: a lag putting the horizon between them
        now = T0 + 100 * MIN
        lag = str(100 * MIN - 80 * MIN)
        code, out, err = run_model("compaction_model.py", "--now", str(now), "--min-compaction-lag-ms", lag, pdir)
        self.assertEqual(code, 0, err)
        want = json.loads(out)
        code, out, err = run("compaction", "--json", "--now", str(now), "--min-compaction-lag-ms", lag, self.dd)
        self.assertEqual(code, 0, err)
        got = jsonl(out, "compaction")[0]
        self.check(got, want)
        self.assertEqual(got["uncleanable_reason"], "min_compaction_lag")
        self.assertEqual(got["first_uncleanable_offset"], 120)

    def test_now_in_iso_8601(self):
        superseded().write(self.dd)
        code, out, err = run("compaction", "--json", "--now", "2024-02-12T22:00:00Z", self.dd)
        self.assertEqual(code, 0, err)
        self.assertEqual(len(jsonl(out, "compaction")), 1)


class Tombstones(Case):
    def test_tombstones_are_live_and_keyless_records_dropped(self):
        p = Part("__consumer_offsets-3")
        p.batch([commit("g", "t", q, q) for q in range(4)], T0)
        p.batch([tombstone("g", "t", q) for q in range(2)], T0 + MIN)
        p.batch([(None, b"no key " * 40), commit("g", "t", 3, 33)], T0 + 2 * MIN, codec="gzip")
        p.roll()
        p.batch([commit("g", "t", 1, 11)], T0 + 3 * MIN)
        pdir = p.write(self.dd)
        want = self.model(pdir)
        got = self.compaction(self.dd)[("__consumer_offsets", 3)]
        self.check(got, want)
        self.assertEqual(got["keys"], 4)
        self.assertEqual(got["tombstones"], 1)
        self.assertEqual(got["keyless_records"], 1)


class TopicConfigs(Case):
    def build(self):
        for name in ("compacted-0", "plain-0"):
            p = Part(name)
            for r in range(10):
                p.batch([(b"k%d" % (r % 3), b"v%d" % r)], T0 + r * MIN)
                if r in (4, 8):
                    p.roll()
            p.write(self.dd)

    def test_kraft_topic_configs(self):
        self.build()
        metadata_log(self.dd, [("topic", "compacted", "cleanup.policy", "compact"),
                               ("topic", "compacted", "min.cleanable.dirty.ratio", "0.95"),
                               ("topic", "plain", "cleanup.policy", "delete")])
        checkpoint(self.dd, "cleaner-offset-checkpoint", [("compacted", 0, 3)])
        want = self.model(os.path.join(self.dd, "compacted-0"), "--min-cleanable-ratio", "0.95")
        self.assertTrue(self.model(os.path.join(self.dd, "compacted-0"))["would_clean"])  # at the default 0.5
        got = self.compaction(self.dd)
        self.assertEqual(sorted(got), [("compacted", 0)])
        r = got[("compacted", 0)]
        self.check(r, want)
        self.assertEqual(r["cleanup_policy"], "compact")
        self.assertEqual(r["min_cleanable_ratio"], 0.95)
        self.assertEqual(r["min_cleanable_ratio_source"], "metadata")
        self.assertFalse(r["would_clean"])

    def test_topic_config_wins_over_the_option(self):
        self.build()
        metadata_log(self.dd, [("topic", "compacted", "cleanup.policy", "compact,delete"),
                               ("topic", "compacted", "min.compaction.lag.ms", str(10 * MIN))])
        got = self.compaction("--min-compaction-lag-ms", "1", "--min-cleanable-ratio", "0.1", self.dd)
        r = got[("compacted", 0)]
        self.assertEqual(r["min_compaction_lag_ms"], 10 * MIN)
        self.assertEqual(r["min_compaction_lag_source"], "metadata")
        self.assertEqual(r["min_cleanable_ratio"], 0.1)
        self.assertEqual(r["min_cleanable_ratio_source"], "option")

    def test_non_compacted_topic_is_skipped(self):
        self.build()
        code, out, err = run("compaction", "--json", "--now", str(NOW), self.dd)
        self.assertEqual(code, 0, err)
        self.assertEqual(jsonl(out, "compaction"), [])
        self.assertEqual(jsonl(out, "summary")[0]["skipped"], 2)

    def test_partition_dir_named_alone_is_compacted(self):
        self.build()
        pdir = os.path.join(self.dd, "plain-0")
        want = self.model(pdir)
        got = self.compaction(pdir)
        self.check(got[("plain", 0)], want)
        self.assertEqual(got[("plain", 0)]["compacted_because"], "named")


class Usage(unittest.TestCase):
    def test_bad_options(self):
        for args in (["--now", "yesterday", "x"], ["--min-cleanable-ratio", "2", "x"],
                     ["--min-compaction-lag-ms", "-1", "x"], ["--bogus", "x"], []):
            code, _, err = run("compaction", *args)
            self.assertEqual(code, 2, (args, err))
            self.assertIn("kfsck compaction: ", err)   # the command's own words, not "unknown command"
            self.assertIn("usage: kfsck compaction", err)

    def test_missing_path(self):
        code, _, err = run("compaction", "/nonexistent/kfsck-compaction")
        self.assertEqual(code, 3)
        self.assertIn("kfsck: /nonexistent/kfsck-compaction:", err)


if __name__ == "__main__":
    unittest.main()
