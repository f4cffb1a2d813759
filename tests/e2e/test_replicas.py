#!/usr/bin/python3
"""test_replicas: `kfsck replicas` (docs/kfsck.1, replicas) over several brokers'
data dirs built here with the encoders of tools/gen (kafkafmt: v2 batches
with their partition leader epochs, leader-epoch-checkpoint; offset
checkpoints and meta.properties as the broker writes them; kraftfmt for a
KRaft metadata log with the ISR and ELR), over the `kfsck scan --json`
output of each broker, and over both mixed. The expected truncations, losses,
best candidates and divergence come from tools/model/replicas_model.py, a
model written from Kafka's LeaderEpochFileCache, Partition.makeLeader and
AbstractFetcherThread, never from the C.
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, drop_root, jsonl, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
sys.path.insert(0, os.path.join(ROOT, "tools", "model"))
import kraftfmt  # noqa: E402
import replicas_model as model  # noqa: E402
from kafkafmt import Rec, epoch_checkpoint, v2_batch  # noqa: E402

TOPIC = "t"
TOPIC_ID = bytes.fromhex("3a1f0c9e5b7d4c6e8a0b1c2d3e4f5a60")
PER_BATCH = 10


def segment(ranges):
    """A segment of 10-record batches: ranges [(first, end, epoch, tag)], each
    [first, end) written in that leader epoch with values marked by tag (two
    copies with other tags hold other bytes over the same offsets)."""
    out = []
    for first, end, epoch, tag in ranges:
        for b in range(first, end, PER_BATCH):
            recs = [Rec(o, 1700000000000 + o, b"k", b"v%d-%s" % (o, tag.encode())) for o in range(b, min(b + PER_BATCH, end))]
            out.append(v2_batch(b, recs, leader_epoch=epoch))
    return b"".join(out)


def epochs_of(ranges):
    """The leader-epoch-checkpoint a broker writes for those batches."""
    eps = []
    for first, _, epoch, _ in ranges:
        if not eps or eps[-1][0] != epoch:
            eps.append((epoch, first))
    return eps


class Case:
    """A broker: its id, its partition's batches, high watermark, and
    whether it has a leader-epoch-checkpoint."""

    def __init__(self, broker, ranges, hw, checkpoint=True, damage_at=None, cluster="c1", log_start=None,
                 second_segment=None, recovery_point=None, torn_at=None, clean=False):
        self.broker, self.ranges, self.hw, self.checkpoint = broker, ranges, hw, checkpoint
        self.damage_at, self.cluster, self.log_start = damage_at, cluster, log_start
        self.second_segment, self.recovery_point = second_segment, recovery_point
        self.torn_at, self.clean = torn_at, clean

    def intact(self):
        """The batches [(first, end, epoch)] its files hold intact (a merge reads them all)."""
        out = []
        for first, end, epoch, _ in self.ranges:
            for b in range(first, end, PER_BATCH):
                if b != self.damage_at and (self.torn_at is None or b < self.torn_at):
                    out.append((b, min(b + PER_BATCH, end), epoch))
        return out

    def batch_epochs(self):
        """The epochs a broker with no leader-epoch-checkpoint rebuilds from
        its batches at an unclean start (LogLoader recovers from the
        segment holding the recovery point: LogSegment.recover assigns)."""
        rp = self.recovery_point or 0
        seg_from = self.second_segment if self.second_segment is not None and self.second_segment <= rp else 0
        cache = model.EpochCache()
        for first, end, epoch, _ in self.ranges:
            for b in range(first, end, PER_BATCH):
                if b >= seg_from and (cache.latest() is None or epoch > cache.latest()[0]):
                    cache.assign(epoch, b)
        return cache.entries

    @property
    def end(self):
        """The log end after recovery (a damaged batch and what follows are cut)."""
        end = self.ranges[-1][1] if self.ranges else 0
        if self.torn_at is not None:
            end = self.torn_at
        return self.damage_at if self.damage_at is not None else end


def write_broker(root, c, name=None):
    """The data dir of broker c under root; its path."""
    dd = os.path.join(root, name or "b%d" % c.broker)
    pd = os.path.join(dd, "%s-0" % TOPIC)
    os.makedirs(pd)
    data = bytearray(segment(c.ranges))
    if c.damage_at is not None:
        # the batch starting at damage_at: flip a byte of its records (its CRC then fails)
        pos = len(segment([(f, min(e, c.damage_at), ep, t) for f, e, ep, t in c.ranges if f < c.damage_at]))
        data[pos + 70] ^= 0xFF
    if c.torn_at is not None:
        # the batch starting at torn_at cut in the middle, nothing after it
        pos = len(segment([(f, min(e, c.torn_at), ep, t) for f, e, ep, t in c.ranges if f < c.torn_at]))
        del data[pos + 40:]
    if c.clean:
        open(os.path.join(dd, ".kafka_cleanshutdown"), "w").close()
    cut = len(data)
    if c.second_segment is not None:
        cut = len(segment([(f, min(e, c.second_segment), ep, t) for f, e, ep, t in c.ranges if f < c.second_segment]))
        with open(os.path.join(pd, "%020d.log" % c.second_segment), "wb") as f:
            f.write(bytes(data[cut:]))
    with open(os.path.join(pd, "%020d.log" % 0), "wb") as f:
        f.write(bytes(data[:cut]))
    if c.recovery_point is not None:
        with open(os.path.join(dd, "recovery-point-offset-checkpoint"), "w") as f:
            f.write("0\n1\n%s 0 %d\n" % (TOPIC, c.recovery_point))
    if c.checkpoint:
        with open(os.path.join(pd, "leader-epoch-checkpoint"), "w") as f:
            f.write(epoch_checkpoint(epochs_of(c.ranges)))
    with open(os.path.join(dd, "replication-offset-checkpoint"), "w") as f:
        f.write("0\n1\n%s 0 %d\n" % (TOPIC, c.hw))
    if c.log_start is not None:
        with open(os.path.join(dd, "log-start-offset-checkpoint"), "w") as f:
            f.write("0\n1\n%s 0 %d\n" % (TOPIC, c.log_start))
    with open(os.path.join(dd, "meta.properties"), "w") as f:
        f.write("version=1\nnode.id=%d\ncluster.id=%s\n" % (c.broker, c.cluster))
    return dd


def write_metadata(root, isr, elr, replicas):
    """A KRaft metadata data dir naming topic t partition 0 with isr/elr; its path."""
    dd = os.path.join(root, "controller")
    os.makedirs(os.path.join(dd, "__cluster_metadata-0"))
    vals = [kraftfmt.encode_metadata(12, 0, {"Name": "metadata.version", "FeatureLevel": 20}),
            kraftfmt.encode_metadata(2, 0, {"Name": TOPIC, "TopicId": TOPIC_ID}),
            kraftfmt.encode_metadata(3, 2, {"PartitionId": 0, "TopicId": TOPIC_ID, "Replicas": replicas, "Isr": isr,
                                            "Leader": -1, "LeaderEpoch": 7, "PartitionEpoch": 9,
                                            "EligibleLeaderReplicas": elr, "LastKnownElr": []})]
    with open(os.path.join(dd, "__cluster_metadata-0", "%020d.log" % 0), "wb") as f:
        f.write(kraftfmt.data_batch(0, vals, 1700000000000, 1))
    with open(os.path.join(dd, "meta.properties"), "w") as f:
        f.write("version=1\nnode.id=100\ncluster.id=c1\n")
    return dd


def model_of(cases, isr=None, elr=None, scan_files=False, data_dirs=None):
    """What the model says: a replica with no checkpoint has its batches'
    epochs from a data dir, none from a scan file (scan reports the file's);
    a scan file cannot tell what its copy's files hold (no salvage)."""
    reps = [{"broker": c.broker, "log_end_offset": c.end, "high_watermark": c.hw, "log_start_offset": c.log_start,
             "epochs": epochs_of(c.ranges) if c.checkpoint else [] if scan_files else c.batch_epochs()}
            for c in cases]
    copies = None if scan_files else [(c.broker, c.intact()) for c in sorted(cases, key=lambda c: c.broker)
                                      if data_dirs is None or c.broker in data_dirs]
    return model.judge(reps, isr, elr, copies)


class ReplicasTest(TempDirTest):
    def brokers(self, cases):
        return [write_broker(self.tmp, c) for c in cases]

    def scan_files(self, dirs):
        """scan --json of each data dir into a file of its own; their paths."""
        files = []
        for d in dirs:
            rc, out, err = run("scan", "--json", d)
            self.assertIn(rc, (0, 1), err)
            files.append(self.write(os.path.basename(d) + ".scan.json", out.encode()))
        return files

    def replicas(self, *paths, rc_in=(0, 1)):
        rc, out, err = run("replicas", "--json", *paths)
        self.assertIn(rc, rc_in, err)
        return rc, jsonl(out), err

    def check(self, rows, cases, want):
        """rows agree with the model's judgement want."""
        elections = {e["candidate"]: e for e in rows if e["type"] == "election"}
        self.assertEqual(sorted(elections), sorted(c.broker for c in cases))
        for cand, w in want["elections"].items():
            e = elections[cand]
            got = {f["broker"]: (f["truncate_to"], f["offsets_lost"], f["acknowledged_lost"]) for f in e["followers"]}
            self.assertEqual(got, w["followers"], "elect %d" % cand)
            self.assertEqual((e["offsets_lost"], e["acknowledged_lost"]), (w["offsets_lost"], w["acknowledged_lost"]))
            self.assertEqual((e["leader_log_end"], e["acknowledged_missing"]),
                             (w["leader_log_end"], w["acknowledged_missing"]), "elect %d" % cand)
            if w["salvage"] is None:
                self.assertIsNone(e["salvage"])
            else:
                self.assertEqual([(x["broker"], x["from_offset"], x["to_offset"]) for x in e["salvage"]],
                                 w["salvage"], "elect %d" % cand)
        reps = {r["broker"]: r for r in rows if r["type"] == "replica"}
        for c in cases:
            r = reps[c.broker]
            self.assertEqual(r["log_end_offset"], c.end)
            self.assertEqual(r["high_watermark"], c.hw)
            self.assertEqual([(x["epoch"], x["start_offset"]) for x in r["leader_epochs"]], want["epochs"][c.broker])
        (p,) = [r for r in rows if r["type"] == "partition"]
        self.assertEqual(p["replicas"], sorted(c.broker for c in cases))
        self.assertEqual(p["high_watermark"], max(c.hw for c in cases))
        self.assertEqual(p["best_candidate"], want["best"])
        self.assertEqual(p["unclean"], want["unclean"])
        return p

    def both_ways(self, cases, isr=None, elr=None, meta=None):
        """Data dirs, then their scan files: each agrees with the model. The
        data dirs' partition line, and the scan files' rows."""
        dirs = self.brokers(cases)
        extra = [meta] if meta else []
        rc, rows, err = self.replicas(*dirs, *extra)
        want = model_of(cases, isr, elr)
        p = self.check(rows, cases, want)
        self.assertEqual(p["diverged"], want["diverged"] or p["copies_disagree"] > 0)
        best = want["elections"][want["best"]]
        at_risk = p["diverged"] or best["acknowledged_lost"] > 0 or best["acknowledged_missing"] > 0
        self.assertEqual(rc, 1 if at_risk else 0, err)
        rc2, rows2, err2 = self.replicas(*self.scan_files(dirs), *extra)
        want2 = model_of(cases, isr, elr, scan_files=True)
        p2 = self.check(rows2, cases, want2)
        self.assertEqual(p2["diverged"], want2["diverged"])
        return p, rows, p2, rows2

    # ---- the cases ----

    def test_in_sync_copies(self):
        cases = [Case(b, [(0, 100, 0, "a"), (100, 200, 1, "a")], 200) for b in (1, 2, 3)]
        p, rows, p2, _ = self.both_ways(cases)
        self.assertFalse(p["diverged"])
        for e in (r for r in rows if r["type"] == "election"):
            self.assertEqual((e["offsets_lost"], e["acknowledged_lost"]), (0, 0))
        self.assertEqual(p["best_candidate"], 1)
        self.assertIsNone(p["leader"])
        self.assertIsNone(p["isr"])

    def test_a_follower_behind(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 200, 1, "a")], 180),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a")], 150)]
        p, rows, _, _ = self.both_ways(cases)
        self.assertEqual(p["best_candidate"], 1)
        (e2,) = [e for e in rows if e["type"] == "election" and e["candidate"] == 2]
        self.assertEqual(e2["followers"][0]["truncate_to"], 150)
        self.assertEqual(e2["followers"][0]["acknowledged_lost"], 30)
        self.assertFalse(p["diverged"])

    def test_divergent_histories_old_leader_longer(self):
        # broker 2 was elected uncleanly at 150 (epoch 2); broker 1, the old
        # leader, went on writing epoch 1 up to 300
        cases = [Case(1, [(0, 100, 0, "a"), (100, 300, 1, "a")], 250),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 220, 2, "b")], 200)]
        p, rows, p2, _ = self.both_ways(cases)
        self.assertTrue(p["diverged"])
        self.assertTrue(p2["diverged"])
        self.assertGreater(p["copies_disagree"], 0)

    def test_divergent_histories_new_leader_longer(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 180, 1, "a")], 170),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 320, 2, "b")], 300)]
        p, rows, _, _ = self.both_ways(cases)
        self.assertTrue(p["diverged"])
        self.assertEqual(p["best_candidate"], 2)

    def test_a_damaged_leader(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 300, 1, "a")], 240, damage_at=250),
                 Case(2, [(0, 100, 0, "a"), (100, 240, 1, "a")], 240)]
        p, rows, _, _ = self.both_ways(cases)
        reps = {r["broker"]: r for r in rows if r["type"] == "replica"}
        self.assertTrue(reps[1]["damaged"])
        self.assertFalse(reps[2]["damaged"])
        self.assertEqual(reps[1]["log_end_offset"], 250)
        self.assertEqual(p["best_candidate"], 1)

    def test_a_missing_leader_epoch_checkpoint(self):
        # from a data dir the epochs come from the batches; a scan file has none (its follower truncates to its hw)
        cases = [Case(1, [(0, 100, 0, "a"), (100, 200, 1, "a"), (200, 260, 3, "a")], 250),
                 Case(2, [(0, 100, 0, "a"), (100, 200, 1, "a"), (200, 230, 2, "b")], 210, checkpoint=False)]
        p, rows, p2, rows2 = self.both_ways(cases)
        reps = {r["broker"]: r for r in rows if r["type"] == "replica"}
        self.assertTrue(reps[2]["epochs_from_batches"])
        self.assertEqual([(x["epoch"], x["start_offset"]) for x in reps[2]["leader_epochs"]], [(0, 0), (1, 100), (2, 200)])
        reps2 = {r["broker"]: r for r in rows2 if r["type"] == "replica"}
        self.assertEqual(reps2[2]["leader_epochs"], [])

    def test_a_missing_checkpoint_rebuilt_from_the_recovered_segments_only(self):
        # recovery starts at the segment holding the recovery point (200): epoch 1's start is not rebuilt
        cases = [Case(1, [(0, 100, 0, "a"), (100, 200, 1, "a"), (200, 300, 3, "a")], 290),
                 Case(2, [(0, 100, 0, "a"), (100, 250, 1, "a"), (250, 280, 2, "b")], 270, checkpoint=False,
                      second_segment=200, recovery_point=220)]
        self.assertEqual(cases[1].batch_epochs(), [(1, 200), (2, 250)])
        p, rows, _, _ = self.both_ways(cases)
        reps = {r["broker"]: r for r in rows if r["type"] == "replica"}
        self.assertEqual([(x["epoch"], x["start_offset"]) for x in reps[2]["leader_epochs"]], [(1, 200), (2, 250)])

    def test_a_multi_round_truncation(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 200, 2, "a"), (200, 300, 5, "a")], 290),
                 Case(2, [(0, 40, 0, "a"), (40, 120, 1, "b"), (120, 160, 3, "b"), (160, 180, 4, "b")], 170)]
        want = model_of(cases)
        self.assertEqual(want["elections"][1]["followers"][2][0], 40)
        _, rounds = model.follow(model.loaded_cache(epochs_of(cases[0].ranges), None, 300), 300,
                                 model.loaded_cache(epochs_of(cases[1].ranges), None, 180), 180, 170)
        self.assertEqual(rounds, 2)
        p, rows, _, _ = self.both_ways(cases)
        (e1,) = [e for e in rows if e["type"] == "election" and e["candidate"] == 1]
        self.assertEqual(e1["followers"][0]["rounds"], 2)

    def test_the_best_candidate_is_not_the_longest_log(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 300, 1, "a")], 150),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 250, 2, "b")], 240),
                 Case(3, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 240, 2, "b")], 240)]
        p, _, p2, _ = self.both_ways(cases)
        self.assertEqual(p["best_candidate"], 2)
        self.assertEqual(p2["best_candidate"], 2)

    def test_all_three_copies_damaged(self):
        # issue 36: broker 1 torn at 140, broker 2 a CRC error at 90 with every
        # batch after it intact, broker 3 cut cleanly at 200 after a clean
        # shutdown (high watermark 195); the partition's high watermark is 230
        data = [(0, 230, 0, "a")]
        cases = [Case(1, data, 230, torn_at=140), Case(2, data, 230, damage_at=90),
                 Case(3, [(0, 200, 0, "a")], 195, clean=True)]
        p, rows, p2, rows2 = self.both_ways(cases)
        self.assertEqual(p["best_candidate"], 3)
        (e3,) = [e for e in rows if e["type"] == "election" and e["candidate"] == 3]
        self.assertEqual((e3["leader_log_end"], e3["acknowledged_missing"], e3["acknowledged_lost"]), (200, 30, 0))
        self.assertEqual([(x["broker"], x["from_offset"], x["to_offset"]) for x in e3["salvage"]], [(2, 200, 230)])
        self.assertEqual(e3["acknowledged_missing_after_merge"], 0)
        (s3,) = [e for e in rows2 if e["type"] == "election" and e["candidate"] == 3]
        self.assertIsNone(s3["salvage"])
        dirs = [os.path.join(self.tmp, "b%d" % b, "%s-0" % TOPIC) for b in (1, 2, 3)]
        rc, out, err = run("replicas", *[os.path.dirname(d) for d in dirs])
        self.assertEqual(rc, 1, err)
        self.assertNotIn("(loses 0 offsets, 0 acknowledged)", out)
        self.assertIn("* elect broker 3: LOSES 30 ACKNOWLEDGED offsets (200..229: its log ends at 200), 30 of them "
                      "still in the copies' files", out)
        self.assertIn("broker 2's files still hold offsets 200..229 intact (past the damage its own recovery cuts)",
                      out)
        self.assertIn("kfsck merge -o OUTDIR %s" % " ".join(dirs), out)
        self.assertIn("before electing it: it then holds every acknowledged offset", out)
        # and the merge it names does bring them back
        outdir = os.path.join(self.tmp, "merged")
        rc, mout, err = run("merge", "--json", "-o", outdir, *dirs)
        self.assertEqual(rc, 0, err)
        self.assertEqual([r for r in jsonl(mout) if r["type"] == "hole"], [])
        rc, vout, err = run("verify", "--json", os.path.join(outdir, "%s-0" % TOPIC))
        (seg,) = jsonl(vout, "segment")
        self.assertEqual((seg["first_offset"], seg["last_offset"]), (0, 229))

    def test_kraft_metadata_isr_and_elr(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 300, 1, "a")], 150),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 250, 2, "b")], 240)]
        meta = write_metadata(self.tmp, [1], [2], [1, 2])
        p, _, p2, _ = self.both_ways(cases, [1], [2], meta)
        self.assertEqual((p["isr"], p["elr"], p["leader"], p["leader_epoch"]), ([1], [2], -1, 7))
        self.assertIs(p["unclean"], False)
        self.assertIs(p2["unclean"], False)
        rc, out, err = run("replicas", os.path.join(self.tmp, "b1.scan.json"), os.path.join(self.tmp, "b2.scan.json"),
                           os.path.join(meta, "__cluster_metadata-0"))
        self.assertIn("ISR [1], ELR [2]", out)
        self.assertIn("cleanly once it is up (it is in the ELR)", out)
        self.assertNotIn("--election-type unclean", out)

    def test_kraft_metadata_unclean(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 300, 1, "a")], 150),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 250, 2, "b")], 240)]
        meta = write_metadata(self.tmp, [1], [], [1, 2])
        p, _, _, _ = self.both_ways(cases, [1], [], meta)
        self.assertEqual(p["best_candidate"], 2)
        self.assertIs(p["unclean"], True)
        rc, out, err = run("replicas", os.path.join(self.tmp, "b1"), os.path.join(self.tmp, "b2"), meta)
        self.assertIn("--election-type unclean --topic t --partition 0", out)
        self.assertIn("kafka-reassign-partitions.sh", out)
        self.assertIn("kfsck merge", out)

    def test_copies_disagree(self):
        # same epochs, other bytes over 50..59: only the batches tell
        cases = [Case(1, [(0, 50, 0, "a"), (50, 60, 0, "x"), (60, 100, 0, "a")], 100),
                 Case(2, [(0, 50, 0, "a"), (50, 60, 0, "y"), (60, 100, 0, "a")], 100)]
        p, rows, p2, _ = self.both_ways(cases)
        self.assertTrue(p["diverged"])
        self.assertEqual(p["copies_disagree"], 1)
        (pr,) = [r for r in rows if r["type"] == "problem"]
        self.assertEqual((pr["code"], pr["offset"]), ("copies_disagree", 50))
        self.assertFalse(p2["diverged"])

    def test_different_cluster_ids(self):
        dirs = self.brokers([Case(1, [(0, 100, 0, "a")], 100), Case(2, [(0, 100, 0, "a")], 100, cluster="other")])
        rc, out, err = run("replicas", *dirs)
        self.assertEqual(rc, 3, err)
        self.assertIn(dirs[0], err)
        self.assertIn(dirs[1], err)
        self.assertIn("other", err)
        rc, out, err = run("replicas", *self.scan_files(dirs))
        self.assertEqual(rc, 3, err)
        self.assertIn("b1.scan.json", err)
        self.assertIn("b2.scan.json", err)

    def test_mixed_inputs(self):
        cases = [Case(1, [(0, 100, 0, "a"), (100, 300, 1, "a")], 250),
                 Case(2, [(0, 100, 0, "a"), (100, 150, 1, "a"), (150, 220, 2, "b")], 200)]
        dirs = self.brokers(cases)
        (f2,) = self.scan_files(dirs[1:])
        rc, rows, err = self.replicas(dirs[0], f2)
        self.check(rows, cases, model_of(cases, data_dirs=(1,)))
        self.assertEqual(rc, 1)

    def test_log_dirs_of_one_broker_are_one_broker(self):
        c = Case(1, [(0, 100, 0, "a")], 100)
        a = write_broker(self.tmp, c, "b1a")
        b = write_broker(self.tmp, Case(2, [(0, 100, 0, "a")], 100), "b2")
        other = os.path.join(self.tmp, "b1b")
        os.makedirs(os.path.join(other, "u-0"))
        with open(os.path.join(other, "meta.properties"), "w") as f:
            f.write("version=1\nnode.id=1\ncluster.id=c1\n")
        rc, rows, err = self.replicas(a, other, b)
        parts = [r for r in rows if r["type"] == "partition"]
        self.assertEqual([(p["topic"], p["replicas"]) for p in parts], [("t", [1, 2]), ("u", [1])])
        self.assertEqual(rc, 0, err)

    def test_bad_scan_lines(self):
        dirs = self.brokers([Case(1, [(0, 100, 0, "a")], 100)])
        (f,) = self.scan_files(dirs)
        with open(f) as fh:
            lines = fh.read().splitlines()
        bad = self.write("bad.json", ("\n".join(lines[:1] + ["{not json", '{"type":"partition","topic":"z"}',
                                                             "x" * (1 << 20) + "x"] + lines[1:]) + "\n").encode())
        rc, rows, err = self.replicas(bad)
        probs = [r for r in rows if r["type"] == "problem"]
        self.assertEqual([p["code"] for p in probs], ["bad_scan_line"] * 3)
        self.assertIn("line 2:", probs[0]["message"])
        self.assertIn("line 3:", probs[1]["message"])
        self.assertIn("line 4: longer than 1048576 bytes", probs[2]["message"])
        self.assertEqual(rc, 1)
        self.assertEqual(len([r for r in rows if r["type"] == "partition"]), 1)

    def test_not_a_scan_file_and_a_partition_dir(self):
        junk = self.write("junk.txt", b"hello\n")
        rc, out, err = run("replicas", junk)
        self.assertEqual(rc, 3)
        self.assertIn("junk.txt", err)
        dirs = self.brokers([Case(1, [(0, 100, 0, "a")], 100)])
        rc, out, err = run("replicas", os.path.join(dirs[0], "t-0"))
        self.assertEqual(rc, 2, err)

    def test_an_unreadable_scan_file(self):
        prefix = drop_root(self)
        dirs = self.brokers([Case(1, [(0, 100, 0, "a")], 100)])
        (f,) = self.scan_files(dirs)
        os.chmod(self.tmp, 0o755)
        os.chmod(f, 0)
        rc, out, err = run("replicas", f, prefix=prefix)
        self.assertEqual(rc, 3, err)
        self.assertIn("%s: permission denied" % f, err.lower())

    def test_a_scan_file_out_of_order_beyond_the_run_cap(self):
        # every line going back in (topic, partition) order starts a run; more than 256 is refused
        lines = [json.dumps({"type": "partition", "datadir": "d", "topic": "t", "partition": p, "leader_epochs": [],
                             "errors": 0, "broker": 1, "recovery_end_offset": 10, "high_watermark": 10})
                 for p in range(300, 0, -1)]
        f = self.write("reversed.json", ("\n".join(lines) + "\n").encode())
        rc, out, err = run("replicas", f)
        self.assertEqual(rc, 3, err)
        self.assertIn("more than 256 runs", err)
        ok = self.write("sorted.json", ("\n".join(reversed(lines)) + "\n").encode())
        rc, out, err = run("replicas", "--json", ok)
        self.assertEqual(rc, 0, err)
        self.assertEqual(jsonl(out, "summary")[0]["partitions"], 300)

    def test_model_rules(self):
        # endOffsetFor as Kafka's own unit test states it (LeaderEpochFileCacheTest): epochs 2@6, 3@8; asked 1 -> (1, 6)
        c = model.EpochCache([(2, 6), (3, 8)])
        self.assertEqual(c.end_offset_for(1, 10), (1, 6))
        self.assertEqual(c.end_offset_for(2, 10), (2, 8))
        self.assertEqual(c.end_offset_for(3, 10), (3, 10))
        self.assertEqual(c.end_offset_for(4, 10), (-1, -1))
        # a non-monotonic entry removes what it contradicts
        self.assertEqual(model.EpochCache([(1, 0), (3, 10), (2, 5)]).entries, [(1, 0), (2, 5)])
        lc = model.loaded_cache([(0, 0), (1, 100), (2, 200)], 150, 200)
        self.assertEqual(lc.entries, [(1, 150)])


if __name__ == "__main__":
    unittest.main()
