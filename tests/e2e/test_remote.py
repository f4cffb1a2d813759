#!/usr/bin/python3
"""End-to-end tests of `kfsck remote` (tiered storage, KIP-405).

Every test builds a broker's data dir in a temporary directory with the
project's Python encoders (tools/gen/remotefmt.py: __remote_log_metadata
records from kraftfmt's own description of Kafka's storage schemas, the
metadata-partition rule, LocalTieredStorage's layout and Aiven's keys,
remote-log-index-cache entries; kafkafmt for the user partitions' batches),
independent of kfsck's C. The values expected follow from the shapes built:
which segments reached which state, where the local log starts, which
objects are in the storage. Each finding and each exit code of the
contract (cli.md, remote) has a test; the rules behind them are
docs/formats.md §22.
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, run, tree_digest  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
import kraftfmt as kf  # noqa: E402
import remotefmt as rf  # noqa: E402
from kafkafmt import seg_name  # noqa: E402

HOUR = 3600 * 1000
NOW = "--now=%d" % (rf.T0 + HOUR)
PARTITION_FIELDS = ("topic", "topic_id", "partition", "segments", "remote_start_offset", "remote_end_offset",
                    "local_log_start_offset", "local_log_end_offset", "offsets_in_no_tier", "remote_bytes",
                    "orphan_bytes")
SEGMENT_FIELDS = ("topic", "partition", "segment_id", "start_offset", "end_offset", "state", "event_timestamp",
                  "broker_id", "leader_epochs", "finding")
INDEX_FIELDS = ("file", "segment_id", "error")


class Cluster:
    """One broker's data dir (b1) with a tiered partition orders-0."""

    def __init__(self, top, broker=1, name="b1", log_start=0):
        self.tp = rf.TP("orders", 0)
        self.dir = os.path.join(top, name)
        self.values = []
        rf.broker_dir(self.dir, broker, [(self.tp, log_start)])

    def seg(self, label, start, end, upto, epochs=None, ts=rf.T0, broker=1, size=1000):
        sid = rf.uid(label)
        self.values += rf.lifecycle(self.tp, sid, start, end, epochs or [(0, start)], upto, broker=broker, ts=ts,
                                    size=size)
        return sid

    def metadata(self, extra_partitions=False):
        rf.metadata_log(self.dir, self.tp.mpart(), self.values)
        if extra_partitions:  # every other metadata partition, empty
            for m in range(rf.METADATA_PARTITIONS):
                if m != self.tp.mpart():
                    os.makedirs(os.path.join(self.dir, "__remote_log_metadata-%d" % m))

    def local(self, base, count, epochs=((0, 0),), epoch=0):
        rf.user_partition(self.dir, self.tp, [(base, count, epoch)], epochs=list(epochs))


def remote(*args):
    code, out, err = run("remote", *args, cwd=None)
    return code, out, err


def remote_json(*args):
    code, out, err = remote("--json", *args)
    rows = jsonl(out)
    return code, rows, err


def one(rows, t):
    got = [r for r in rows if r["type"] == t]
    assert len(got) == 1, rows
    return got[0]


def findings(rows, what):
    return [r for r in rows if r["type"] == "remote_segment" and r["finding"] == what]


class Reachable(TempDirTest):
    def test_all_offsets_reachable(self):
        c = Cluster(self.tmp)
        c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.seg("s2", 50, 99, rf.COPY_FINISHED, ts=rf.T0 + 10000)
        c.metadata()
        c.local(100, 50)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        p = one(rows, "remote_partition")
        for f in PARTITION_FIELDS:
            self.assertIn(f, p)
        self.assertEqual(p["topic"], "orders")
        self.assertEqual(p["topic_id"], rf.b64(c.tp.topic_id))
        self.assertEqual(p["segments"], {"copy_segment_started": 0, "copy_segment_finished": 2,
                                         "delete_segment_started": 0, "delete_segment_finished": 0})
        self.assertEqual((p["remote_start_offset"], p["remote_end_offset"]), (0, 99))
        local = [{"broker": 1, "log_start_offset": 100, "log_end_offset": 150}]
        for f in ("local_log_start_offset", "local_log_end_offset"):
            self.assertEqual([{k: x[k] for k in ("broker", "log_start_offset", "log_end_offset")} for x in p[f]], local)
        self.assertEqual(p["offsets_in_no_tier"], [])
        self.assertEqual(p["remote_bytes"], 2000)
        self.assertIsNone(p["orphan_bytes"])
        self.assertEqual(p["metadata_partition"], c.tp.mpart())
        self.assertEqual(findings(rows, "copy_stuck") + findings(rows, "orphan"), [])
        code, out, _ = remote(NOW, c.dir)
        self.assertEqual(out.splitlines()[0], "orders-0: all offsets reachable")

    def test_gap_in_neither_tier(self):
        """A deleted segment below the local start while the log start did
        not move: offsets 50..99 are in neither tier (exit 1)."""
        c = Cluster(self.tmp)
        c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.seg("s2", 50, 99, rf.DELETE_FINISHED, ts=rf.T0 + 10000)
        c.seg("s3", 100, 149, rf.COPY_FINISHED, ts=rf.T0 + 20000)
        c.metadata()
        c.local(150, 50)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 1, err)
        p = one(rows, "remote_partition")
        self.assertEqual(p["offsets_in_no_tier"], [{"from_offset": 50, "to_offset": 100}])
        self.assertEqual(p["segments"]["delete_segment_finished"], 1)
        self.assertEqual(one(rows, "summary")["offsets_in_no_tier"], 50)
        code, out, _ = remote(NOW, c.dir)
        self.assertEqual(code, 1)
        self.assertEqual(out.splitlines()[0], "orders-0: offsets 50..99 are in neither tier")

    def test_log_start_above_deleted_segments_is_no_loss(self):
        """Retention moved the log start past the deleted segments: nothing lost."""
        c = Cluster(self.tmp, log_start=100)
        c.seg("s1", 0, 99, rf.DELETE_FINISHED)
        c.seg("s2", 100, 149, rf.COPY_FINISHED, ts=rf.T0 + 10000)
        c.metadata()
        c.local(150, 50)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        self.assertEqual(one(rows, "remote_partition")["offsets_in_no_tier"], [])

    def test_superseded_upload_is_not_served(self):
        """Kafka's duplicate-upload rule: a later leader's segment over the
        same offsets replaces the earlier one in the epoch's offset map
        (RemoteLogLeaderEpochState); once that one is being deleted, the
        earlier finished segment is not found by a fetch: its offsets are in
        neither tier although a finished segment holds them."""
        c = Cluster(self.tmp)
        c.seg("early", 0, 49, rf.COPY_FINISHED)
        sid = c.seg("late", 0, 99, rf.COPY_FINISHED, ts=rf.T0 + 10000)
        c.values.append(rf.segment_update(c.tp, sid, rf.DELETE_STARTED, ts=rf.T0 + 20000))
        c.metadata()
        c.local(100, 50)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 1, err)
        p = one(rows, "remote_partition")
        self.assertEqual(p["segments"]["copy_segment_finished"], 1)
        self.assertEqual(p["offsets_in_no_tier"], [{"from_offset": 0, "to_offset": 100}])
        self.assertEqual([r["start_offset"] for r in findings(rows, "delete_pending")], [0])

    def test_tiered_topic_from_kraft_metadata_without_remote_metadata(self):
        """remote.storage.enable=true in the KRaft metadata, no
        __remote_log_metadata among the inputs at all: the partition is
        reported but not judged (its metadata partition is missing)."""
        c = Cluster(self.tmp)
        c.local(100, 50)
        recs = [kf.encode_metadata(2, 0, {"Name": "orders", "TopicId": c.tp.topic_id}),
                kf.encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "orders",
                                          "Name": "remote.storage.enable", "Value": "true"})]
        md = os.path.join(c.dir, "__cluster_metadata-0")
        os.makedirs(md)
        with open(os.path.join(md, seg_name(0, "log")), "wb") as f:
            f.write(kf.data_batch(0, recs, rf.T0, 1))
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        p = one(rows, "remote_partition")
        self.assertFalse(p["judged"])
        self.assertEqual(p["offsets_in_no_tier"], [])
        # with its metadata partition there (empty), the gap is judged
        os.makedirs(os.path.join(c.dir, "__remote_log_metadata-%d" % c.tp.mpart()))
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 1, err)
        self.assertEqual(one(rows, "remote_partition")["offsets_in_no_tier"], [{"from_offset": 0, "to_offset": 100}])

    def test_other_brokers_local_copy_holds_the_offsets(self):
        """Offsets below one broker's local start that another broker still
        holds locally are in a tier."""
        c = Cluster(self.tmp)
        c.seg("s1", 50, 99, rf.COPY_FINISHED)
        c.metadata()
        c.local(100, 50)
        c2 = Cluster(self.tmp, broker=2, name="b2")
        c2.local(0, 150)
        code, rows, err = remote_json(NOW, c.dir, c2.dir)
        self.assertEqual(code, 0, err)
        p = one(rows, "remote_partition")
        self.assertEqual(sorted(x["broker"] for x in p["local_log_start_offset"]), [1, 2])
        self.assertEqual(p["offsets_in_no_tier"], [])
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(one(rows, "remote_partition")["offsets_in_no_tier"], [{"from_offset": 0, "to_offset": 50}])


class Findings(TempDirTest):
    def test_copy_stuck(self):
        c = Cluster(self.tmp)
        c.seg("s1", 0, 99, rf.COPY_FINISHED)
        sid = c.seg("s2", 100, 149, rf.COPY_STARTED, ts=rf.T0 + 5000)
        c.metadata()
        c.local(100, 80)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)  # a warning
        (s,) = findings(rows, "copy_stuck")
        for f in SEGMENT_FIELDS:
            self.assertIn(f, s)
        self.assertEqual((s["segment_id"], s["start_offset"], s["end_offset"]), (rf.b64(sid), 100, 149))
        self.assertEqual((s["state"], s["event_timestamp"], s["broker_id"]), ("copy_segment_started", rf.T0 + 5000, 1))
        self.assertEqual(s["leader_epochs"], [{"epoch": 0, "start_offset": 100}])
        self.assertEqual(s["age_ms"], HOUR - 5000)
        self.assertEqual(s["object_prefix"], rf.object_stem(100, sid))
        code, out, _ = remote(NOW, c.dir)
        self.assertEqual(out.splitlines()[0], "orders-0: 1 upload stuck since 2026-01-01T00:00:05.000Z")
        # younger than --stuck-after: in flight, no finding
        code, rows, err = remote_json(NOW, "--stuck-after", "2h", c.dir)
        self.assertEqual(findings(rows, "copy_stuck"), [])
        # the default is 10 minutes
        code, rows, err = remote_json("--now=%d" % (rf.T0 + 5000 + 9 * 60000), c.dir)
        self.assertEqual(findings(rows, "copy_stuck"), [])
        code, rows, err = remote_json("--now=%d" % (rf.T0 + 5000 + 11 * 60000), c.dir)
        self.assertEqual(len(findings(rows, "copy_stuck")), 1)

    def test_copy_stuck_names_the_objects_it_was_writing(self):
        c = Cluster(self.tmp)
        sid = c.seg("s2", 100, 149, rf.COPY_STARTED)
        c.metadata()
        c.local(100, 80)
        storage = os.path.join(self.tmp, "bucket")
        rf.lts_objects(storage, c.tp, 100, sid, kinds=["log"])
        code, rows, err = remote_json(NOW, "--storage", storage, c.dir)
        (s,) = findings(rows, "copy_stuck")
        want = os.path.relpath(os.path.join(rf.lts_dir(storage, c.tp), rf.object_stem(100, sid)), storage)
        self.assertEqual(s["object_prefix"], want)

    def test_delete_pending_and_partition_delete(self):
        c = Cluster(self.tmp, log_start=50)
        c.seg("s1", 0, 49, rf.DELETE_STARTED)
        c.seg("s2", 50, 99, rf.COPY_FINISHED, ts=rf.T0 + 10000)
        c.values.append(rf.partition_delete(c.tp, rf.PART_STARTED, ts=rf.T0 + 20000))
        c.metadata()
        c.local(100, 10)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        (s,) = findings(rows, "delete_pending")
        self.assertEqual((s["start_offset"], s["state"]), (0, "delete_segment_started"))
        p = one(rows, "remote_partition")
        self.assertEqual(p["partition_delete_state"], "delete_partition_started")
        code, out, _ = remote(NOW, c.dir)
        self.assertEqual(out.splitlines()[0], "orders-0: 1 delete pending since 2026-01-01T00:00:02.000Z")

    def test_partition_delete_finished_drops_the_partition(self):
        c = Cluster(self.tmp)
        sid = c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.values.append(rf.partition_delete(c.tp, rf.PART_FINISHED, ts=rf.T0 + 20000))
        c.metadata()
        storage = os.path.join(self.tmp, "bucket")
        rf.lts_objects(storage, c.tp, 0, sid)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        self.assertEqual(one(rows, "summary")["partitions"], 0)
        # what its segments left in the storage is orphaned
        code, rows, err = remote_json(NOW, "--storage", storage, c.dir)
        (o,) = findings(rows, "orphan")
        self.assertEqual(o["segment_id"], rf.b64(sid))

    def test_epoch_chain_break_remote_ahead_of_local(self):
        """A finished segment reaching past the lineage broker's log end:
        off the lineage (isRemoteSegmentWithinLeaderEpochs), offsets all
        held locally (exit 0)."""
        c = Cluster(self.tmp)
        sid = c.seg("s1", 0, 99, rf.COPY_FINISHED)
        c.metadata()
        c.local(0, 50)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        (s,) = findings(rows, "epoch_chain_break")
        self.assertEqual(s["segment_id"], rf.b64(sid))
        self.assertEqual(s["lineage_broker"], 1)
        self.assertIn("log end 50", s["reason"])
        code, out, _ = remote(NOW, c.dir)
        self.assertEqual(out.splitlines()[0], "orders-0: 1 finished segment off the local leader-epoch lineage")

    def test_epoch_chain_break_unreachable_epoch(self):
        """Segments uploaded under an epoch the local lineage does not have:
        off the lineage, and a fetch looks them up under the lineage's epoch
        and finds nothing: the offsets are in neither tier too."""
        c = Cluster(self.tmp)
        c.seg("s1", 0, 99, rf.COPY_FINISHED, epochs=[(1, 0)])
        c.metadata()
        c.local(100, 50, epochs=((0, 0), (2, 100)), epoch=2)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 1, err)
        (s,) = findings(rows, "epoch_chain_break")
        self.assertIn("epoch 1 is not in the local lineage", s["reason"])
        self.assertEqual(one(rows, "remote_partition")["offsets_in_no_tier"], [{"from_offset": 0, "to_offset": 100}])

    def test_epochs_follow_the_lineage(self):
        c = Cluster(self.tmp)
        c.seg("s1", 0, 99, rf.COPY_FINISHED, epochs=[(0, 0), (1, 60)])
        c.seg("s2", 100, 149, rf.COPY_FINISHED, epochs=[(1, 100)], ts=rf.T0 + 10000)
        c.metadata()
        c.local(150, 50, epochs=((0, 0), (1, 60)), epoch=1)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        self.assertEqual(findings(rows, "epoch_chain_break"), [])
        self.assertEqual(one(rows, "remote_partition")["offsets_in_no_tier"], [])


class Storage(TempDirTest):
    def build(self):
        c = Cluster(self.tmp)
        self.s1 = c.seg("s1", 0, 49, rf.COPY_FINISHED)
        self.s2 = c.seg("s2", 50, 99, rf.COPY_FINISHED, ts=rf.T0 + 10000)
        self.gone = c.seg("gone", 100, 149, rf.DELETE_FINISHED, ts=rf.T0 + 20000)
        c.metadata()
        c.local(100, 100)
        self.c = c
        self.storage = os.path.join(self.tmp, "bucket")
        rf.lts_objects(self.storage, c.tp, 0, self.s1)
        rf.lts_objects(self.storage, c.tp, 50, self.s2, kinds=["log", "index", "timeindex"])
        self.orphans = rf.lts_objects(self.storage, c.tp, 100, self.gone, size=250)
        return c

    def check(self, rows, code, err):
        self.assertEqual(code, 1, err)
        (m,) = findings(rows, "missing_in_storage")
        self.assertEqual((m["segment_id"], m["start_offset"]), (rf.b64(self.s2), 50))
        self.assertEqual(m["missing"], ["snapshot", "leader_epoch_checkpoint"])
        (o,) = findings(rows, "orphan")
        self.assertEqual((o["segment_id"], o["start_offset"]), (rf.b64(self.gone), 100))
        self.assertEqual(o["bytes"], 250 * len(rf.LTS_KINDS))
        self.assertEqual(len(o["keys"]), len(rf.LTS_KINDS))
        p = one(rows, "remote_partition")
        self.assertEqual(p["orphan_bytes"], 250 * len(rf.LTS_KINDS))
        self.assertEqual(p["offsets_in_no_tier"], [])

    def test_local_tiered_storage(self):
        c = self.build()
        before = tree_digest(self.tmp)
        code, rows, err = remote_json(NOW, "--storage", self.storage, c.dir)
        self.check(rows, code, err)
        self.assertEqual(sorted(findings(rows, "orphan")[0]["keys"]),
                         sorted(os.path.relpath(k, self.storage) for k in self.orphans))
        self.assertEqual(tree_digest(self.tmp), before)  # read only
        code, out, _ = remote(NOW, "--storage", self.storage, c.dir)
        self.assertEqual(out.splitlines()[0], "orders-0: 1 finished segment missing from the storage: fetches there fail")

    def test_listing_key_size(self):
        c = self.build()
        lines = []
        for d, _, files in os.walk(self.storage):
            for f in files:
                p = os.path.join(d, f)
                lines.append("%s %d" % (os.path.relpath(p, self.storage), os.path.getsize(p)))
        listing = os.path.join(self.tmp, "listing.txt")
        with open(listing, "w") as f:
            f.write("\n".join(lines) + "\n")
        code, rows, err = remote_json(NOW, "--listing", listing, c.dir)
        self.check(rows, code, err)

    def test_listing_aws_and_aiven_keys(self):
        """`aws s3 ls --recursive` of a bucket written by Aiven's plugin."""
        c = self.build()
        lines = []
        for sid, start, kinds, size in ((self.s1, 0, rf.AIVEN_KINDS, 100), (self.s2, 50, ["log"], 100),
                                        (self.gone, 100, rf.AIVEN_KINDS, 250)):
            for k in kinds:
                lines.append("2026-01-01 00:00:00 %10d %s" % (size, rf.aiven_key(c.tp, start, sid, k, "tiered/")))
        lines.append("2026-01-01 00:00:00        12 tiered/README")
        listing = os.path.join(self.tmp, "aws.txt")
        with open(listing, "w") as f:
            f.write("\n".join(lines) + "\n")
        code, rows, err = remote_json(NOW, "--listing", listing, c.dir)
        self.assertEqual(code, 1, err)
        (m,) = findings(rows, "missing_in_storage")
        self.assertEqual((m["start_offset"], m["missing"]), (50, ["rsm-manifest"]))
        self.assertEqual(m["found"], ["log"])
        (o,) = findings(rows, "orphan")
        self.assertEqual(o["bytes"], 250 * len(rf.AIVEN_KINDS))
        s = one(rows, "summary")
        self.assertEqual((s["objects"], s["unrecognised_objects"]), (len(lines), 1))

    def test_gsutil_listing(self):
        c = self.build()
        lines = ["%10d  2026-01-01T00:00:00Z  gs://b/%s" % (100, rf.aiven_key(c.tp, 0, self.s1, k))
                 for k in rf.AIVEN_KINDS]
        lines += ["%10d  2026-01-01T00:00:00Z  gs://b/%s" % (100, rf.aiven_key(c.tp, 50, self.s2, k))
                  for k in rf.AIVEN_KINDS]
        lines.append("TOTAL: 6 objects, 600 bytes (600 B)")
        listing = os.path.join(self.tmp, "gs.txt")
        with open(listing, "w") as f:
            f.write("\n".join(lines) + "\n")
        code, rows, err = remote_json(NOW, "--listing", listing, c.dir)
        self.assertEqual(code, 0, err)
        self.assertEqual(findings(rows, "missing_in_storage") + findings(rows, "orphan"), [])
        self.assertEqual(one(rows, "summary")["objects"], 6)

    def test_objects_of_partitions_not_judged(self):
        """Objects of a partition whose metadata partition is not among the
        inputs are neither orphans nor anything else."""
        c = self.build()
        other = rf.TP("clicks", 3)
        while other.mpart() == c.tp.mpart():
            other = rf.TP("clicks", other.partition + 1)
        rf.lts_objects(self.storage, other, 0, rf.uid("x"))
        code, rows, err = remote_json(NOW, "--storage", self.storage, c.dir)
        self.assertEqual(len(findings(rows, "orphan")), 1)
        self.assertEqual(one(rows, "summary")["unjudged_objects"], len(rf.LTS_KINDS))


class IndexCache(TempDirTest):
    def test_cache_entries(self):
        c = Cluster(self.tmp)
        live = c.seg("live", 0, 99, rf.COPY_FINISHED)
        gone = c.seg("gone", 100, 149, rf.DELETE_FINISHED, ts=rf.T0 + 10000)
        c.metadata(extra_partitions=True)
        c.local(100, 50)
        cache = os.path.join(c.dir, "remote-log-index-cache")
        os.makedirs(cache)
        good = rf.index_cache_entry(cache, 0, live, offsets=[(10, 0), (20, 4096)], times=[(5, 10), (9, 20)])
        stale = rf.index_cache_entry(cache, 100, gone, offsets=[(110, 0)], times=[(5, 110)])
        broken = rf.uid("broken")
        corrupt = rf.index_cache_entry(cache, 200, broken, offsets=[(220, 0), (150, 10)], times=[(5, 220)])
        part = rf.index_cache_entry(cache, 300, rf.uid("part"), offsets=[(300, 0)], files=("index", "timeindex"))
        with open(os.path.join(cache, "notes.txt"), "w") as f:
            f.write("x")
        before = tree_digest(self.tmp)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)  # cache entries are warnings
        self.assertEqual(tree_digest(self.tmp), before)
        got = {}
        for r in rows:
            if r["type"] == "remote_index":
                for f in INDEX_FIELDS:
                    self.assertIn(f, r)
                got.setdefault(os.path.basename(r["file"]), {})[r["code"]] = r
        self.assertNotIn(os.path.basename(good[0]), got)
        self.assertEqual(list(got[os.path.basename(stale[0])]), ["deleted_segment"])
        self.assertEqual(got[os.path.basename(stale[0])]["deleted_segment"]["segment_id"], rf.b64(gone))
        bad = got[os.path.basename(corrupt[0])]
        self.assertEqual(sorted(bad), ["deleted_segment", "index_corrupt"])  # never in the metadata either
        self.assertTrue(bad["index_corrupt"]["stops_broker"])
        self.assertFalse(bad["deleted_segment"]["stops_broker"])
        self.assertEqual(bad["index_corrupt"]["segment_id"], rf.b64(broken))
        self.assertIn("incomplete", got[os.path.basename(part[0])])
        notes = got["notes.txt"]["bad_name"]
        self.assertTrue(notes["stops_broker"])
        self.assertIsNone(notes["segment_id"])
        self.assertEqual(one(rows, "summary")["bad_index_entries"], 5)

    def test_time_index_the_broker_refuses(self):
        """A zero tail (a full disk): verify's checks end the entries at the
        first zero slot, the broker's sanity check reads the last slot and
        throws: the broker does not start."""
        c = Cluster(self.tmp)
        live = c.seg("live", 0, 99, rf.COPY_FINISHED)
        c.metadata()
        c.local(100, 50)
        cache = os.path.join(c.dir, "remote-log-index-cache")
        os.makedirs(cache)
        files = rf.index_cache_entry(cache, 0, live, offsets=[(10, 0)], times=[(5, 10), (9, 20)])
        with open(files[1], "ab") as f:
            f.write(bytes(24))
        code, rows, err = remote_json(NOW, c.dir)
        (r,) = [r for r in rows if r["type"] == "remote_index"]
        self.assertTrue(r["stops_broker"])
        self.assertIn("last timestamp 0", r["error"])


class Replay(TempDirTest):
    def test_invalid_transitions_are_dropped(self):
        c = Cluster(self.tmp)
        sid = c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.values.append(rf.segment_update(c.tp, sid, rf.DELETE_FINISHED, ts=rf.T0 + 5000))  # skips DELETE_STARTED
        c.values.append(rf.segment_update(c.tp, rf.uid("nobody"), rf.COPY_FINISHED, ts=rf.T0 + 6000))
        c.metadata()
        c.local(50, 10)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 0, err)
        probs = [r for r in rows if r["type"] == "problem"]
        self.assertEqual([(p["code"], p["severity"], p["offset"]) for p in probs],
                         [("invalid_transition", "warning", 2), ("invalid_transition", "warning", 3)])
        self.assertIn("COPY_SEGMENT_FINISHED cannot go to DELETE_SEGMENT_FINISHED", probs[0]["message"])
        p = one(rows, "remote_partition")
        self.assertEqual(p["segments"]["copy_segment_finished"], 1)  # the drop left it finished
        self.assertEqual(one(rows, "summary")["invalid_transitions"], 2)

    def test_records_that_stop_the_brokers_consumer(self):
        """A snapshot record in the topic, and segment metadata whose state
        is not COPY_SEGMENT_STARTED: the broker's metadata consumer stops
        (bad_record errors); the replay is incomplete (exit 1)."""
        c = Cluster(self.tmp)
        c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.values.append(rf.snapshot_record(rf.uid("snap"), 50, 99, [(0, 50)]))
        c.values.append(rf.segment_metadata(c.tp, rf.uid("s2"), 50, 99, [(0, 50)], state=rf.COPY_FINISHED))
        c.values.append(rf.segment_metadata(c.tp, rf.uid("s3"), 60, 50, [(0, 60)]))
        c.metadata()
        c.local(50, 10)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 1, err)
        probs = [r for r in rows if r["type"] == "problem"]
        self.assertEqual([(p["code"], p["offset"]) for p in probs],
                         [("bad_record", 2), ("bad_record", 3), ("bad_record", 4)])
        self.assertTrue(all("consumer stops" in p["message"] for p in probs))
        s = one(rows, "summary")
        self.assertEqual((s["fatal_records"], s["incomplete"]), (3, True))

    def test_a_record_that_stops_the_consumer_blocks_its_partitions(self):
        """A value the broker's serde cannot read (frame version 0) in
        orders-0's metadata partition: a broker restarted on it never loads
        that metadata partition (Kafka 4.4.0: ReplicaNotAvailableException
        'Remote log metadata cache is not initialized' for every remote
        fetch, ListOffsets latest-tiered -1, no upload). orders-0 says so
        first, with the offset; payments-0, in another metadata partition,
        does not."""
        c = Cluster(self.tmp, log_start=0)
        c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.values.append(b"\x00\xff\x00\xff")
        c.seg("s2", 50, 99, rf.COPY_FINISHED, ts=rf.T0 + 10000)
        c.metadata()
        c.local(100, 10)
        other = rf.TP("payments", 0)
        self.assertNotEqual(other.mpart(), c.tp.mpart())
        rf.metadata_log(c.dir, other.mpart(), rf.lifecycle(other, rf.uid("p1"), 0, 49, [(0, 0)], rf.COPY_FINISHED))
        rf.user_partition(c.dir, other, [(50, 10, 0)], epochs=[(0, 0)])
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(code, 1, err)
        bad = [r for r in rows if r["type"] == "problem"]
        self.assertEqual([(p["code"], p["offset"]) for p in bad], [("bad_record", 2)])
        self.assertTrue(bad[0]["message"].endswith("applies nothing after it"), bad[0]["message"])
        parts = {r["topic"]: r for r in rows if r["type"] == "remote_partition"}
        self.assertEqual(parts["orders"]["metadata_consumer_stops_at"], 2)
        self.assertEqual(parts["orders"]["offsets_in_no_tier"], [])  # the records after it still judged
        self.assertIsNone(parts["payments"]["metadata_consumer_stops_at"])
        code, out, _ = remote(NOW, c.dir)
        verdicts = [l for l in out.splitlines() if l.startswith(("orders-0:", "payments-0:"))]
        self.assertEqual(verdicts, [
            "orders-0: the broker's metadata consumer stops at __remote_log_metadata-%d offset 2: restarted, "
            "it serves none of offsets 0..99 (below the local log start) and uploads nothing" % c.tp.mpart(),
            "payments-0: all offsets reachable"])

    def test_copies_of_the_metadata_partition(self):
        """Two brokers' copies of the metadata partition, each damaged
        elsewhere: read as one log, nothing is missing."""
        c = Cluster(self.tmp)
        for i in range(6):
            c.seg("s%d" % i, i * 10, i * 10 + 9, rf.COPY_FINISHED, ts=rf.T0 + i * 10000)
        c.metadata()
        c.local(60, 10)
        c2 = Cluster(self.tmp, broker=2, name="b2")
        c2.values = list(c.values)
        c2.metadata()
        seg1 = os.path.join(c.dir, "__remote_log_metadata-%d" % c.tp.mpart(), seg_name(0, "log"))
        seg2 = os.path.join(c2.dir, "__remote_log_metadata-%d" % c.tp.mpart(), seg_name(0, "log"))
        size = os.path.getsize(seg1)
        for path, at in ((seg1, size // 4), (seg2, 3 * size // 4)):
            with open(path, "r+b") as f:
                f.seek(at)
                b = f.read(1)
                f.seek(at)
                f.write(bytes([b[0] ^ 0xFF]))
        code, rows, err = remote_json(NOW, c.dir, c2.dir)
        self.assertEqual(code, 0, err)
        p = one(rows, "remote_partition")
        self.assertEqual(p["segments"]["copy_segment_finished"], 6)
        self.assertEqual(one(rows, "summary")["records"], 12)
        code, rows, err = remote_json(NOW, c.dir)  # one damaged copy alone
        self.assertEqual(code, 1)
        self.assertTrue(one(rows, "summary")["incomplete"])

    def test_metadata_partition_rule(self):
        """The partition a user partition's records go to is Kafka's
        murmur2 rule (written here from Kafka's Java, independently)."""
        for name, p in (("orders", 0), ("orders", 7), ("a-topic.with_chars", 123)):
            c = Cluster(os.path.join(self.tmp, "%s-%d" % (name, p)))
            c.tp = rf.TP(name, p)
            c.seg("x", 0, 9, rf.COPY_FINISHED)
            c.metadata()
            code, rows, err = remote_json(NOW, c.dir)
            self.assertEqual(one(rows, "remote_partition")["metadata_partition"], rf.metadata_partition(c.tp.topic_id, p))

    def test_many_epochs_take_no_quadratic_time(self):
        """Segments listing 200,000 leader epochs each, interleaved, against
        a lineage of as many: the replay and the lineage check stay near
        linear (each took minutes when epochs were looked up one by one)."""
        c = Cluster(self.tmp)
        n = 200000
        c.seg("even", 0, 2 * n, rf.COPY_FINISHED, epochs=[(2 * i, 2 * i) for i in range(n)])
        c.seg("odd", 0, 2 * n, rf.COPY_FINISHED, epochs=[(2 * i + 1, 2 * i) for i in range(n)],
              ts=rf.T0 + 10000)
        c.metadata()
        c.local(2 * n + 1, 5, epochs=[(i, i) for i in range(2 * n)], epoch=2 * n - 1)
        code, out, err = run("remote", "--json", NOW, c.dir, cwd=None, timeout=30)
        self.assertIn(code, (0, 1), err)
        p = one(jsonl(out), "remote_partition")
        self.assertEqual(p["segments"]["copy_segment_finished"], 2)

    def test_hostile_topic_name_is_escaped(self):
        c = Cluster(self.tmp)
        c.tp = rf.TP("evil\x1b[31m\nname", 0)
        c.seg("x", 0, 9, rf.COPY_FINISHED)
        c.metadata()
        code, out, err = remote(NOW, c.dir)
        self.assertIn("evil\\x1b[31m\\x0aname-0:", out)
        self.assertNotIn("\x1b", out)
        code, rows, err = remote_json(NOW, c.dir)
        self.assertEqual(one(rows, "remote_partition")["topic"], "evil\x1b[31m\nname")


class Usage(TempDirTest):
    def test_exit_codes(self):
        c = Cluster(self.tmp)
        c.seg("s1", 0, 49, rf.COPY_FINISHED)
        c.metadata()
        self.assertEqual(remote("--storage", "a", "--listing", "b", c.dir)[0], 2)
        self.assertEqual(remote("--stuck-after", "soon", c.dir)[0], 2)
        self.assertEqual(remote("--bogus", c.dir)[0], 2)
        self.assertEqual(remote()[0], 2)
        code, out, err = remote("--listing", os.path.join(self.tmp, "missing.txt"), c.dir)
        self.assertEqual(code, 3)
        self.assertIn("missing.txt", err)
        code, out, err = remote("--storage", os.path.join(self.tmp, "nowhere"), c.dir)
        self.assertEqual(code, 3)
        self.assertEqual(remote(os.path.join(self.tmp, "nothing-here"))[0], 3)
        code, out, _ = remote("--help")
        self.assertEqual(code, 0)
        self.assertIn("--stuck-after", out)

    def test_no_tiered_partition(self):
        empty = os.path.join(self.tmp, "dd")
        rf.broker_dir(empty, 1)
        code, out, err = remote(empty)
        self.assertEqual(code, 0, err)
        self.assertIn("no tiered partition among the inputs", out)


if __name__ == "__main__":
    unittest.main()
