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
        contract = ("producer_id", "producer_epoch", "first_offset", "first_timestamp")
        self.assertEqual({k: got["pinned_by"][k] for k in contract},
                         {"producer_id": 4001, "producer_epoch": 3, "first_offset": first,
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


def txn_state(datadir, entries, partition=0):
    """__transaction_state-<partition> holding, in order, each (transactional
    id, producer id, epoch, timeout ms, state) as the coordinator writes it
    (state None: a tombstone)."""
    p = Part("__transaction_state-%d" % partition)
    for tid, pid, epoch, timeout, state in entries:
        key = cf.encode_key(0, {"TransactionalId": tid}, txn=True)
        value = None if state is None else cf.encode_value(0, 0, {
            "ProducerId": pid, "ProducerEpoch": epoch, "TransactionTimeoutMs": timeout, "TransactionStatus": state,
            "TransactionPartitions": [{"Topic": "__consumer_offsets", "PartitionIds": [0]}],
            "TransactionLastUpdateTimestampMs": T0 + 65 * MIN, "TransactionStartTimestampMs": T0 + 64 * MIN},
            txn=True)
        p.batch([(key, value)], T0 + 64 * MIN)
    return p.write(datadir)


class PinningTransaction(Case):
    """The transaction that pins a cleaning is named from the coordinator's
    state among the inputs (__transaction_state) and said hanging (older than
    its transaction timeout at --now: its own from the coordinator, else
    transaction.max.timeout.ms's default) or live, before the abort advice."""
    ONGOING, COMPLETE_COMMIT = 1, 4
    build = OpenTransaction.build

    def model_of(self, pdir, states, *args):
        extra = []
        for d in states:
            extra += ["--txn-state", d]
        return self.model(pdir, *extra, *args)

    def verdict_line(self, *args, want_code=1):
        code, out, err = run("compaction", *args)
        self.assertEqual(code, want_code, out + err)
        lines = [x for x in out.splitlines() if x.startswith("  blocked by open transaction")]
        self.assertEqual(len(lines), 1, out)
        return lines[0]

    def test_named_by_the_coordinator_and_hanging_past_its_own_timeout(self):
        pdir, first = self.build()
        ts = txn_state(self.dd, [("other-app", 4002, 0, 60000, self.ONGOING),
                                 ("txn-app", 4001, 3, 60000, self.ONGOING)])
        want = self.model_of(pdir, [ts])
        got = self.compaction(self.dd, want_code=1)[("__consumer_offsets", 0)]
        self.check(got, want)
        self.assertEqual(got["pinned_by"]["transactional_id"], "txn-app")
        self.assertEqual(got["pinned_by"]["coordinator_state"], "Ongoing")
        self.assertEqual((got["pinned_by"]["timeout_ms"], got["pinned_by"]["timeout_source"]), (60000, "coordinator"))
        self.assertEqual(got["pinned_by"]["age_ms"], NOW - (T0 + 65 * MIN))
        self.assertIs(got["pinned_by"]["hanging"], True)
        line = self.verdict_line("--now", str(NOW), self.dd)
        self.assertIn('at offset %d (transactional id "txn-app", Ongoing in the coordinator): hanging, 22h55m old, '
                      "past its 1m timeout (its transaction.timeout.ms)" % first, line)
        # who and whether it hangs come before the advice to abort it
        self.assertLess(line.index("hanging"), line.index("abort it"))
        self.assertIn("abort --topic __consumer_offsets --partition 0 --start-offset %d" % first, line)

    def test_live_within_its_timeout(self):
        pdir, first = self.build()
        ts = txn_state(self.dd, [("txn-app", 4001, 3, 60 * MIN, self.ONGOING)])
        now = T0 + 65 * MIN + 10 * MIN
        want = self.model_of(pdir, [ts], "--now", str(now))
        got = {(r["topic"], r["partition"]): r for r in
               jsonl(run("compaction", "--json", "--now", str(now), self.dd)[1], "compaction")}
        w = got[("__consumer_offsets", 0)]["pinned_by"]
        self.assertEqual(w, want["pinned_by"])
        self.assertEqual((w["age_ms"], w["timeout_ms"], w["hanging"]), (10 * MIN, 60 * MIN, False))
        line = self.verdict_line("--now", str(now), self.dd)
        self.assertIn("): live, 10m00s old, within its 1h timeout (its transaction.timeout.ms): its producer or, at the "
                      "timeout, the coordinator ends it — abort it only if its producer is gone: `kafka-transactions.sh",
                      line)
        self.assertNotIn("hanging", line)

    def test_without_its_own_timeout_the_brokers_default_decides(self):
        pdir, first = self.build()
        # no __transaction_state among the inputs
        now = T0 + 65 * MIN + 14 * MIN
        w = self.compaction("--now", str(now), self.dd, want_code=1)[("__consumer_offsets", 0)]["pinned_by"]
        self.assertEqual(w, self.model_of(pdir, [], "--now", str(now))["pinned_by"])
        self.assertEqual((w["transactional_id"], w["coordinator_state"]), (None, None))
        self.assertEqual((w["timeout_ms"], w["timeout_source"], w["hanging"]), (900000, "default", False))
        line = self.verdict_line("--now", str(now), self.dd)
        self.assertIn("(transactional id unknown: no __transaction_state partition among the inputs): live, 14m00s old, "
                      "within its 15m timeout (transaction.max.timeout.ms's default)", line)
        now += 2 * MIN
        line = self.verdict_line("--now", str(now), self.dd)
        self.assertIn("): hanging, 16m00s old, past its 15m timeout (transaction.max.timeout.ms's default) — abort it: `",
                      line)

    def test_a_coordinator_that_does_not_know_the_producer(self):
        pdir, first = self.build()
        # the id was moved to another producer id, and a tombstone removed the other
        ts = txn_state(self.dd, [("txn-app", 4001, 3, 60000, self.ONGOING), ("gone", 4001, 3, 60000, self.ONGOING),
                                 ("txn-app", 4999, 0, 60000, self.COMPLETE_COMMIT), ("gone", 0, 0, 0, None)])
        want = self.model_of(pdir, [ts])
        got = self.compaction(self.dd, want_code=1)[("__consumer_offsets", 0)]
        self.check(got, want)
        w = got["pinned_by"]
        self.assertEqual((w["transactional_id"], w["coordinator_state"], w["timeout_source"], w["hanging"]),
                         (None, None, "default", True))
        line = self.verdict_line("--now", str(NOW), self.dd)
        self.assertIn("(no transactional id: no coordinator state among the inputs names producer 4001): hanging",
                      line)


class QuietPartitions(Case):
    """A whole data dir's text lists the partitions with something to say;
    those with nothing to clean (and those not compacted) are counted, and
    --verbose lists them. JSON is not changed by --verbose."""

    def build(self):
        superseded().write(self.dd)                                   # cleanable
        for n in range(1, 4):                                         # nothing to clean: one active segment
            superseded(name="__consumer_offsets-%d" % n, rounds=(3,)).write(self.dd)
        os.makedirs(os.path.join(self.dd, "__consumer_offsets-9"))   # empty
        plain = Part("plain-0")
        plain.batch([(b"k", b"v")], T0)
        plain.write(self.dd)                                          # not compacted

    def test_counted_not_listed(self):
        self.build()
        code, out, err = run("compaction", "--now", str(NOW), self.dd)
        self.assertEqual(code, 0, err)
        self.assertIn("__consumer_offsets-0:\n  cleanable: ", out)
        for name in ("__consumer_offsets-1", "__consumer_offsets-2", "__consumer_offsets-3", "__consumer_offsets-9",
                     "plain-0"):
            self.assertNotIn(name, out)
        self.assertIn("not listed (--verbose lists them): 4 partitions with nothing to clean, 1 not compacted\n", out)
        self.assertTrue(out.endswith("5 compacted partitions (1 skipped): 0 pinned by an open transaction, 1 the "
                                     "cleaner would clean\n"), out)

    def test_verbose_lists_them(self):
        self.build()
        code, out, err = run("compaction", "--verbose", "--now", str(NOW), self.dd)
        self.assertEqual(code, 0, err)
        for n in (1, 2, 3):
            self.assertIn("__consumer_offsets-%d:\n  nothing to clean: " % n, out)
        self.assertIn("__consumer_offsets-9: empty: nothing to clean\n", out)
        self.assertIn("plain-0: skipped: not compacted", out)
        self.assertNotIn("not listed", out)
        # JSON: every compacted partition, with or without --verbose
        for extra in ([], ["--verbose"]):
            code, out, _ = run("compaction", "--json", "--now", str(NOW), *extra, self.dd)
            self.assertEqual(len(jsonl(out, "compaction")), 5)

    def test_a_partition_named_alone_is_listed(self):
        self.build()
        code, out, _ = run("compaction", "--now", str(NOW), os.path.join(self.dd, "__consumer_offsets-1"))
        self.assertEqual(code, 0)
        self.assertIn("__consumer_offsets-1:\n  nothing to clean: ", out)
        self.assertNotIn("not listed", out)

    def test_help_names_the_option(self):
        code, out, _ = run("compaction", "--help")
        self.assertEqual(code, 0)
        self.assertIn("--verbose", out)


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
