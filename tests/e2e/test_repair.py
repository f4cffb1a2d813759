#!/usr/bin/python3
"""End-to-end tests of `kfsck repair`.

Every damaged fixture (fixtures/damaged/*, fixtures/datadir/clicks-0) is
repaired in both modes and the result is checked against what the fixture
generator knows (fixtures/MANIFEST.json): the default result is byte for byte
the input cut at valid_bytes; the --salvage result holds exactly the intact
batches and passes `kfsck verify`; the rebuilt .index/.timeindex are
byte-identical to what the independent builder tools/model/kafka_index.py writes for
the repaired .log, and rebuilt .snapshot/.txnindex files to what
tools/model/kafka_producer_state.py writes for the repaired logs; repair.json names
every dropped byte range. Output safety
(no overwrite without --force, OUTDIR inside the input, unwritable OUTDIR) is
checked in temporary directories.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, MANIFEST, jsonl, of_type, read, run, run_model, tree_digest  # noqa: E402

LOGS = {l["path"]: l for l in MANIFEST["logs"]}
# damaged logs whose damage is in the .log itself (index-* cases damage only indexes)
LOG_DAMAGED = [l for l in MANIFEST["logs"] if "damage" in l and l["valid_bytes"] != l["size"] or
               any(p["file"] == l["path"] for p in l.get("problems", []))]


def dump_batches(path, want_code=0):
    """(base offset, last offset, CRC) of every batch `dump` shows of path,
    whose exit code must be want_code."""
    code, out, err = run("dump", "--json", path)
    assert code == want_code, (path, code, err)
    return [(b["base_offset"], b["last_offset"], b["crc"]) for b in of_type(jsonl(out), "batch")]


def verify(path):
    code, out, err = run("verify", "--json", path)
    lines = jsonl(out)
    errors = [p for p in of_type(lines, "problem") if p["severity"] == "error"]
    return code, errors, lines


def expected_gaps(log):
    """Byte ranges of the log not covered by intact batches: what salvage drops."""
    size = log["size"]
    ranges = []
    pos = 0
    for b in log["batches"]:
        if not b["intact"]:
            continue
        if b["position"] > pos:
            ranges.append((pos, b["position"]))
        pos = b["position"] + b["size"]
    if pos < size:
        ranges.append((pos, size))
    return ranges


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-repair-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def assert_indexes_match_reference(self, log_path):
        """The rebuilt .index/.timeindex beside log_path equal tools/model/kafka_index.py's."""
        ref = os.path.join(self.tmp, "ref-" + str(abs(hash(log_path))))
        code, _, err = run_model("kafka_index.py", log_path, ref)
        self.assertEqual(code, 0, err)
        stem = log_path[:-len(".log")]
        base = os.path.basename(stem)
        for ext in (".index", ".timeindex"):
            self.assertEqual(read(stem + ext), read(os.path.join(ref, base + ext)), stem + ext)

    def producer_state_reference(self, pdir):
        """{name: bytes} of the .snapshot/.txnindex files tools/model/kafka_producer_state.py
        writes for the logs of pdir."""
        ref = os.path.join(self.tmp, "pref-" + str(abs(hash(pdir))))
        shutil.rmtree(ref, ignore_errors=True)
        code, _, err = run_model("kafka_producer_state.py", pdir, ref)
        self.assertEqual(code, 0, err)
        return {n: read(os.path.join(ref, n)) for n in os.listdir(ref)}

    def assert_producer_state_matches_reference(self, pdir):
        """pdir's .snapshot (the newest) and every .txnindex equal the reference builder's."""
        want = self.producer_state_reference(pdir)
        names = sorted(os.listdir(pdir))
        snaps = [n for n in names if n.endswith(".snapshot")]
        self.assertTrue(snaps, pdir)
        got = {n: read(os.path.join(pdir, n)) for n in names if n.endswith(".txnindex")}
        got[snaps[-1]] = read(os.path.join(pdir, snaps[-1]))
        self.assertEqual(got, want)
        return want

    def assert_no_temp_files(self, d):
        for root, dirs, files in os.walk(d):
            for f in files:
                self.assertFalse(f.startswith(".") and ".tmp" in f, os.path.join(root, f))


class DamagedSegments(Base):
    def test_cases_present(self):
        names = {l["case"] for l in LOG_DAMAGED}
        for c in ("damaged/bitflip", "damaged/torn-tail", "damaged/zeroed-page", "damaged/zero-tail",
                  "damaged/bad-magic", "damaged/absurd-length", "datadir/clicks-0"):
            self.assertIn(c, names)

    def test_default_is_recovery_cut(self):
        self.assertTrue(LOG_DAMAGED)
        for log in LOG_DAMAGED:
            with self.subTest(log=log["path"]):
                od = self.out("d-" + log["case"].replace("/", "_"))
                code, out, err = run("repair", "--json", "-o", od, log["path"])
                only_zero_dropped = log["valid_bytes"] == log["size"] or log.get("recovery_stop") == "bad_size" and \
                    read(os.path.join(FIX, log["path"]))[log["valid_bytes"]:].count(0) == log["size"] - log["valid_bytes"]
                self.assertEqual(code, 0 if only_zero_dropped else 1, err)
                # a single segment: written to OUTDIR/<segment file name>
                rlog = os.path.join(od, os.path.basename(log["path"]))
                # exactly the bytes broker recovery keeps
                self.assertEqual(read(rlog), read(os.path.join(FIX, log["path"]))[:log["valid_bytes"]])
                # (dump shows a batch with a bad magic byte as a problem, not a batch)
                below = [b for b in log["batches"] if b["position"] + b["size"] <= log["valid_bytes"]]
                kept = [(b["base_offset"], b["last_offset"], b["crc"]) for b in below if b["intact"]]
                self.assertEqual(dump_batches(rlog, 1 if len(kept) < len(below) else 0), kept)
                self.assert_indexes_match_reference(rlog)
                vcode, errors, vlines = verify(rlog)
                for seg in of_type(vlines, "segment"):
                    self.assertEqual(seg["valid_bytes"], seg["size"], seg["file"])
                if log["case"] == "damaged/bad-magic":
                    # the broker keeps a batch whose magic byte alone is bad (outside the CRC)
                    self.assertEqual({e["code"] for e in errors}, {"bad_magic"})
                else:
                    self.assertEqual(errors, [])
                    self.assertEqual(vcode, 0)
                rep = json.loads(read(os.path.join(od, "repair.json")))
                self.assertEqual(rep["mode"], "default")
                dropped = of_type(jsonl(out), "dropped")
                self.assertEqual(rep["dropped"], [{k: v for k, v in d.items() if k != "type"} for d in dropped])
                if log["valid_bytes"] == log["size"]:
                    self.assertEqual(rep["dropped"], [])
                else:
                    self.assertEqual(len(rep["dropped"]), 1)
                    d = rep["dropped"][0]
                    self.assertEqual((d["start"], d["end"]), (log["valid_bytes"], log["size"]))
                    self.assertEqual(d["file"], log["path"])
                    self.assertEqual(d["reason"], log["problems"][0]["code"])
                    self.assertEqual(d["data_loss"], not only_zero_dropped)
                    lost = [b for b in log["batches"] if b["position"] >= log["valid_bytes"]]
                    if lost:
                        self.assertEqual(d["offsets"], [lost[0]["base_offset"], lost[-1]["last_offset"]])
                    else:
                        self.assertIsNone(d["offsets"])
                self.assert_no_temp_files(od)

    def test_salvage_keeps_every_intact_batch(self):
        self.assertTrue(LOG_DAMAGED)
        for log in LOG_DAMAGED:
            with self.subTest(log=log["path"]):
                od = self.out("s-" + log["case"].replace("/", "_"))
                # the partition dir: written to OUTDIR/<partition dir name>/
                code, out, err = run("repair", "--salvage", "--json", "-o", od, os.path.dirname(log["path"]))
                gaps = expected_gaps(log)
                data = read(os.path.join(FIX, log["path"]))
                zero_only = all(data[s:e].count(0) == e - s for s, e in gaps) and \
                    all(b["intact"] for b in log["batches"])
                self.assertEqual(code, 0 if zero_only else 1, err)
                part = os.path.basename(os.path.dirname(log["path"]))
                rlog = os.path.join(od, part, os.path.basename(log["path"]))
                intact = [(b["base_offset"], b["last_offset"], b["crc"]) for b in log["batches"] if b["intact"]]
                self.assertEqual(dump_batches(rlog), intact)
                self.assertEqual(read(rlog), b"".join(data[b["position"]:b["position"] + b["size"]]
                                                      for b in log["batches"] if b["intact"]))
                vcode, errors, lines = verify(os.path.join(od, part))
                self.assertEqual(errors, [])
                self.assertEqual(vcode, 0)
                # a broker loading it would not truncate anything
                for seg in of_type(lines, "segment"):
                    self.assertEqual(seg["valid_bytes"], seg["size"], seg["file"])
                self.assert_indexes_match_reference(rlog)
                rep = json.loads(read(os.path.join(od, "repair.json")))
                self.assertEqual(rep["mode"], "salvage")
                self.assertEqual([(d["start"], d["end"]) for d in rep["dropped"]], gaps)
                probs = {p["position"]: p["code"] for p in log["problems"] if p["file"] == log["path"]}
                for d in rep["dropped"]:
                    self.assertEqual(d["file"], log["path"])
                    if d["start"] in probs:
                        self.assertEqual(d["reason"], probs[d["start"]])
                    lost = [b for b in log["batches"] if not b["intact"] and d["start"] <= b["position"] < d["end"]]
                    if lost:
                        self.assertEqual(d["offsets"], [lost[0]["base_offset"], lost[-1]["last_offset"]])
                        self.assertTrue(d["data_loss"])
                self.assert_no_temp_files(od)

    def test_single_segment_output_beside_indexes(self):
        log = LOGS["damaged/bitflip/00000000000000000000.log"]
        od = self.out("single")
        code, out, err = run("repair", "--salvage", "-o", od, log["path"])
        self.assertEqual(code, 1, err)
        names = sorted(os.listdir(od))
        self.assertEqual(names, ["00000000000000000000.index", "00000000000000000000.log",
                                 "00000000000000000000.timeindex", "repair.json"])
        self.assert_indexes_match_reference(os.path.join(od, "00000000000000000000.log"))
        self.assertIn("dropped", out)

    def test_suffixed_segment_takes_its_own_txnindex(self):
        # X.log.deleted beside a live X.log: the .txnindex of the deleted segment
        # is X.txnindex.deleted; X.txnindex is the live segment's
        d = os.path.join(self.tmp, "in")
        os.makedirs(d)
        x = "00000000000000000000"
        shutil.copy(os.path.join(FIX, "datadir", "payments-0", x + ".log"), os.path.join(d, x + ".log.deleted"))
        shutil.copy(os.path.join(FIX, "datadir", "orders-0", x + ".log"), os.path.join(d, x + ".log"))
        shutil.copy(os.path.join(FIX, "txns", "datadir", "orders-0", "00000000000000000013.txnindex"),
                    os.path.join(d, x + ".txnindex"))
        # without a .txnindex.deleted: rebuilt from the segment's ABORT marker, the live one not read
        od = self.out("sfx1")
        code, out, err = run("repair", "--json", "-o", od, os.path.join(d, x + ".log.deleted"))
        self.assertEqual(code, 0, err)
        files = of_type(jsonl(out), "file")
        self.assertEqual([(f["input"], f["action"]) for f in files], [(None, "rebuilt")], out)
        self.assertTrue(files[0]["reason"].startswith("missing in the input"), files[0])
        # with its own: that one is the input, and agrees with the markers
        shutil.copy(os.path.join(FIX, "datadir", "payments-0", x + ".txnindex"),
                    os.path.join(d, x + ".txnindex.deleted"))
        od = self.out("sfx2")
        code, out, err = run("repair", "--json", "-o", od, os.path.join(d, x + ".log.deleted"))
        self.assertEqual(code, 0, err)
        files = of_type(jsonl(out), "file")
        self.assertEqual([(f["input"], f["action"]) for f in files],
                         [(os.path.join(d, x + ".txnindex.deleted"), "copied")], out)

    def test_index_damage_only_rebuilds_indexes(self):
        for case in ("index-past-log", "index-not-monotonic", "timeindex-not-monotonic"):
            with self.subTest(case=case):
                od = self.out(case)
                code, out, err = run("repair", "-o", od, "damaged/" + case)
                self.assertEqual(code, 0, err)
                rlog = os.path.join(od, case, "00000000000000000000.log")
                self.assertEqual(read(rlog), read(os.path.join(FIX, "damaged", case, "00000000000000000000.log")))
                self.assert_indexes_match_reference(rlog)
                vcode, errors, _ = verify(os.path.join(od, case))
                self.assertEqual(errors, [])


class Partitions(Base):
    def test_healthy_partition_is_copied_unchanged(self):
        for part in ("partition/orders-0", "datadir/payments-0"):
            for mode in ([], ["--salvage"]):
                with self.subTest(part=part, mode=mode):
                    od = self.out("h-" + part.replace("/", "_") + "".join(mode))
                    code, out, err = run("repair", "--json", *mode, "-o", od, part)
                    self.assertEqual(code, 0, err)
                    src = os.path.join(FIX, part)
                    dst = os.path.join(od, os.path.basename(part))
                    self.assertEqual(sorted(os.listdir(dst)), sorted(os.listdir(src)))
                    for n in os.listdir(src):
                        self.assertEqual(read(os.path.join(dst, n)), read(os.path.join(src, n)), n)
                    self.assertEqual(of_type(jsonl(out), "dropped"), [])

    def damaged_copy(self):
        """orders-0 with one bit flipped inside a batch of its middle segment."""
        src = os.path.join(FIX, "partition", "orders-0")
        dst = os.path.join(self.tmp, "in", "orders-0")
        shutil.copytree(src, dst)
        seg = LOGS["partition/orders-0/00000000000000000398.log"] if "partition/orders-0/00000000000000000398.log" \
            in LOGS else LOGS["datadir/orders-0/00000000000000000398.log"]
        victim = seg["batches"][3]
        p = os.path.join(dst, "00000000000000000398.log")
        data = bytearray(read(p))
        data[victim["position"] + victim["size"] - 5] ^= 0x04
        with open(p, "wb") as f:
            f.write(data)
        return dst, seg, victim

    def test_default_drops_later_segments(self):
        src, seg, victim = self.damaged_copy()
        od = self.out("pd")
        code, out, err = run("repair", "--json", "-o", od, src)
        self.assertEqual(code, 1, err)
        dst = os.path.join(od, "orders-0")
        self.assertTrue(os.path.exists(os.path.join(dst, "00000000000000000000.log")))
        self.assertEqual(os.path.getsize(os.path.join(dst, "00000000000000000398.log")), victim["position"])
        self.assertFalse(os.path.exists(os.path.join(dst, "00000000000000000812.log")))
        self.assertFalse(os.path.exists(os.path.join(dst, "00000000000000000812.index")))
        # the snapshot (end offset 1110) is past the new log end: replaced by one
        # rebuilt at the cut, equal to the reference builder's, and said why
        self.assertFalse(os.path.exists(os.path.join(dst, "00000000000000001110.snapshot")))
        files = {os.path.basename(f["input"] or ""): f for f in of_type(jsonl(out), "file")}
        snap = "%020d.snapshot" % victim["base_offset"]
        self.assertEqual(files["00000000000000001110.snapshot"]["action"], "rebuilt")
        self.assertEqual(files["00000000000000001110.snapshot"]["output"], os.path.join(dst, snap))
        self.assertIn("past the repaired log end offset %d" % victim["base_offset"],
                      files["00000000000000001110.snapshot"]["reason"])
        self.assertEqual(sorted(n for n in os.listdir(dst) if n.endswith((".snapshot", ".txnindex"))), [snap])
        self.assertEqual(self.assert_producer_state_matches_reference(dst).keys(), {snap})
        rep = json.loads(read(os.path.join(od, "repair.json")))
        self.assertIn({"input": files["00000000000000001110.snapshot"]["input"], "output": os.path.join(dst, snap),
                       "action": "rebuilt", "reason": files["00000000000000001110.snapshot"]["reason"]},
                      rep["files"])
        # leader epochs truncated to the log end (as the broker does)
        le = read(os.path.join(dst, "leader-epoch-checkpoint")).decode().split("\n")
        ends = victim["base_offset"]
        for line in le[2:]:
            if line:
                self.assertLess(int(line.split()[1]), ends)
        dropped = of_type(jsonl(out), "dropped")
        self.assertEqual([(os.path.basename(d["file"]), d["start"], d["reason"]) for d in dropped],
                         [("00000000000000000398.log", victim["position"], "crc_mismatch"),
                          ("00000000000000000812.log", 0, "after_truncation")])
        self.assertEqual(dropped[1]["offsets"], [812, 1109])
        vcode, errors, _ = verify(dst)
        self.assertEqual((vcode, errors), (0, []))
        for n in os.listdir(dst):
            if n.endswith(".log"):
                self.assert_indexes_match_reference(os.path.join(dst, n))

    def test_segment_cut_to_zero_bytes_is_kept(self):
        src = os.path.join(self.tmp, "in", "orders-0")
        shutil.copytree(os.path.join(FIX, "partition", "orders-0"), src)
        p = os.path.join(src, "00000000000000000398.log")
        data = bytearray(read(p))
        data[100] ^= 0x10            # inside the first batch: recovery keeps 0 bytes
        with open(p, "wb") as f:
            f.write(data)
        od = self.out("zero")
        code, out, err = run("repair", "--json", "-o", od, src)
        self.assertEqual(code, 1, err)
        dst = os.path.join(od, "orders-0")
        for ext in (".log", ".index", ".timeindex"):
            self.assertEqual(os.path.getsize(os.path.join(dst, "00000000000000000398" + ext)), 0)
        self.assertFalse(os.path.exists(os.path.join(dst, "00000000000000000812.log")))
        dropped = of_type(jsonl(out), "dropped")
        self.assertEqual([(d["start"], d["end"], d["offsets"]) for d in dropped],
                         [(0, len(data), [398, 811]), (0, os.path.getsize(os.path.join(src, "00000000000000000812.log")),
                                                       [812, 1109])])
        self.assertEqual(read(os.path.join(dst, "leader-epoch-checkpoint")), b"0\n1\n0 0\n")
        vcode, errors, _ = verify(dst)
        self.assertEqual((vcode, errors), (0, []))

    def test_salvage_keeps_later_segments(self):
        src, seg, victim = self.damaged_copy()
        od = self.out("ps")
        code, out, err = run("repair", "--salvage", "--json", "-o", od, src)
        self.assertEqual(code, 1, err)
        dst = os.path.join(od, "orders-0")
        vcode, errors, lines = verify(dst)
        self.assertEqual((vcode, errors), (0, []))
        dropped = of_type(jsonl(out), "dropped")
        self.assertEqual(len(dropped), 1)
        self.assertEqual((dropped[0]["start"], dropped[0]["end"]),
                         (victim["position"], victim["position"] + victim["size"]))
        self.assertEqual(dropped[0]["offsets"], [victim["base_offset"], victim["last_offset"]])
        want = [(b["base_offset"], b["last_offset"], b["crc"]) for b in seg["batches"] if b is not victim]
        self.assertEqual(dump_batches(os.path.join(dst, "00000000000000000398.log")), want)
        for n in ("00000000000000000000.log", "00000000000000000812.log", "leader-epoch-checkpoint",
                  "partition.metadata"):
            self.assertEqual(read(os.path.join(dst, n)), read(os.path.join(src, n)), n)
        for n in os.listdir(dst):
            if n.endswith(".log"):
                self.assert_indexes_match_reference(os.path.join(dst, n))

    def test_txnindex_kept_when_consistent_and_filtered_when_not(self):
        src = os.path.join(FIX, "datadir", "payments-0")
        log = LOGS["datadir/payments-0/00000000000000000000.log"]
        # cut the log before its last batches: the ABORT marker goes, so must its txnindex entry
        cp = os.path.join(self.tmp, "in", "payments-0")
        shutil.copytree(src, cp)
        data = read(os.path.join(cp, "00000000000000000000.log"))
        txn = read(os.path.join(cp, "00000000000000000000.txnindex"))
        marker = int.from_bytes(txn[18:26], "big")
        mb = [b for b in log["batches"] if b["base_offset"] == marker][0]
        with open(os.path.join(cp, "00000000000000000000.log"), "wb") as f:
            f.write(data[:mb["position"] + 20])
        od = self.out("txn")
        code, out, err = run("repair", "--json", "-o", od, cp)
        self.assertEqual(code, 1, err)
        files = {os.path.basename(f["input"] or ""): f for f in of_type(jsonl(out), "file")}
        self.assertEqual(files["00000000000000000000.txnindex"]["action"], "dropped")
        self.assertFalse(os.path.exists(os.path.join(od, "payments-0", "00000000000000000000.txnindex")))
        vcode, errors, _ = verify(os.path.join(od, "payments-0"))
        self.assertEqual(errors, [])
        # the snapshot (end offset 17) is past the cut: rebuilt at the marker's offset
        self.assertEqual(files["00000000000000000017.snapshot"]["action"], "rebuilt")
        self.assertEqual(self.assert_producer_state_matches_reference(os.path.join(od, "payments-0")).keys(),
                         {"%020d.snapshot" % marker})

    def test_cut_after_the_abort_keeps_txnindex_and_rebuilds_snapshot(self):
        # cut inside the batch after producer 2002's COMMIT: the ABORT (9) stays, 2001
        # has no transaction open, 2002's committed; the state differs from the input's
        log = LOGS["datadir/payments-0/00000000000000000000.log"]
        cp = os.path.join(self.tmp, "in", "payments-0")
        shutil.copytree(os.path.join(FIX, "datadir", "payments-0"), cp)
        data = read(os.path.join(cp, "00000000000000000000.log"))
        b13 = [b for b in log["batches"] if b["base_offset"] == 13][0]
        with open(os.path.join(cp, "00000000000000000000.log"), "wb") as f:
            f.write(data[:b13["position"] + 30])
        od = self.out("txn2")
        code, out, err = run("repair", "--json", "-o", od, cp)
        self.assertEqual(code, 1, err)
        dst = os.path.join(od, "payments-0")
        files = {os.path.basename(f["input"] or ""): f for f in of_type(jsonl(out), "file")}
        self.assertEqual(files["00000000000000000000.txnindex"]["action"], "copied")
        self.assertEqual(files["00000000000000000017.snapshot"]["action"], "rebuilt")
        want = self.assert_producer_state_matches_reference(dst)
        self.assertEqual(sorted(want), ["00000000000000000000.txnindex", "00000000000000000013.snapshot"])
        self.assertEqual(want["00000000000000000000.txnindex"], read(os.path.join(cp, "00000000000000000000.txnindex")))
        vcode, errors, _ = verify(dst)
        self.assertEqual(errors, [])


class ProducerState(Base):
    """Healthy partitions: the rebuilt producer state is the input's, byte for byte."""

    HEALTHY = [("partition/orders-0", "00000000000000001110.snapshot", None),
               ("datadir/payments-0", "00000000000000000017.snapshot", "00000000000000000000.txnindex")]

    def test_reference_builder_reproduces_fixtures(self):
        for part, snap, txn in self.HEALTHY:
            with self.subTest(part=part):
                src = os.path.join(FIX, part)
                want = {snap: read(os.path.join(src, snap))}
                if txn:
                    want[txn] = read(os.path.join(src, txn))
                self.assertEqual(self.producer_state_reference(src), want)

    def broken_copy(self, part, how):
        src = os.path.join(FIX, part)
        dst = os.path.join(self.tmp, "in-" + how, os.path.basename(part))
        shutil.copytree(src, dst)
        return src, dst

    def test_disagreeing_snapshot_rebuilt_identical(self):
        for part, snap, txn in self.HEALTHY:
            for how in ("past-end", "corrupt", "no-txnindex", "bad-txnindex"):
                if txn is None and how.endswith("txnindex"):
                    continue
                with self.subTest(part=part, how=how):
                    src, cp = self.broken_copy(part, how)
                    sp = os.path.join(cp, snap)
                    if how == "past-end":      # names an end past the log: rebuilt at the log end
                        os.rename(sp, os.path.join(cp, "00000000000000099999.snapshot"))
                    elif how == "corrupt":     # CRC mismatch
                        data = bytearray(read(sp))
                        data[-1] ^= 1
                        with open(sp, "wb") as f:
                            f.write(data)
                    elif how == "no-txnindex":
                        os.remove(os.path.join(cp, txn))
                    else:                      # a wrong lastStableOffset
                        data = bytearray(read(os.path.join(cp, txn)))
                        data[33] ^= 1
                        with open(os.path.join(cp, txn), "wb") as f:
                            f.write(data)
                    for mode in ([], ["--salvage"]):
                        od = self.out("o-%s-%s%s" % (part.replace("/", "_"), how, "".join(mode)))
                        code, out, err = run("repair", "--json", *mode, "-o", od, cp)
                        self.assertEqual(code, 0, err)
                        dst = os.path.join(od, os.path.basename(part))
                        self.assertEqual(sorted(os.listdir(dst)), sorted(os.listdir(src)))
                        for n in os.listdir(src):
                            self.assertEqual(read(os.path.join(dst, n)), read(os.path.join(src, n)), n)
                        files = of_type(jsonl(out), "file")
                        rebuilt = [f for f in files if f["action"] == "rebuilt"]
                        self.assertEqual(len(rebuilt), 1, files)
                        self.assertTrue(rebuilt[0]["reason"])
                        self.assertEqual(os.path.basename(rebuilt[0]["output"]),
                                         txn if how.endswith("txnindex") else snap)
                        if how == "no-txnindex":
                            self.assertIsNone(rebuilt[0]["input"])
                        self.assert_producer_state_matches_reference(dst)


    def test_log_start_past_zero_starts_from_its_snapshot(self):
        # orders-0 after retention deleted its first segment: the broker keeps the
        # snapshot at the new log start (398); producer state is replayed from it
        src = os.path.join(FIX, "partition", "orders-0")
        cp = os.path.join(self.tmp, "in-ret", "orders-0")
        shutil.copytree(src, cp)
        seed = self.producer_state_reference(os.path.join(src, "00000000000000000000.log"))
        self.assertEqual(sorted(seed), ["00000000000000000398.snapshot"])
        with open(os.path.join(cp, "00000000000000000398.snapshot"), "wb") as f:
            f.write(seed["00000000000000000398.snapshot"])
        for ext in (".log", ".index", ".timeindex"):
            os.remove(os.path.join(cp, "00000000000000000000" + ext))
        os.rename(os.path.join(cp, "00000000000000001110.snapshot"), os.path.join(cp, "00000000000000005000.snapshot"))
        od = self.out("ret")
        code, out, err = run("repair", "--json", "-o", od, cp)
        self.assertEqual(code, 0, err)
        dst = os.path.join(od, "orders-0")
        self.assertEqual(read(os.path.join(dst, "00000000000000001110.snapshot")),
                         read(os.path.join(src, "00000000000000001110.snapshot")))
        self.assertEqual(read(os.path.join(dst, "00000000000000000398.snapshot")), seed["00000000000000000398.snapshot"])
        files = {os.path.basename(f["input"] or ""): f for f in of_type(jsonl(out), "file")}
        self.assertEqual(files["00000000000000005000.snapshot"]["action"], "rebuilt")
        self.assertIn("the snapshot at offset 398", files["00000000000000005000.snapshot"]["reason"])


class OutputSafety(Base):
    def test_outdir_inside_input_is_usage_error(self):
        for args in (["-o", "partition/orders-0/sub", "partition/orders-0"],
                     ["-o", "partition/orders-0", "partition/orders-0"],
                     ["-o", "partition", "partition/orders-0"],
                     ["-o", "damaged/bitflip", "damaged/bitflip/00000000000000000000.log"],
                     ["-o", "damaged/bitflip/x/y", "damaged/bitflip/00000000000000000000.log"]):
            with self.subTest(args=args):
                before = tree_digest(FIX)
                code, out, err = run("repair", *args)
                self.assertEqual(code, 2, err)
                self.assertTrue(err.strip())
                self.assertFalse(os.path.exists(os.path.join(FIX, "partition", "orders-0", "sub")))
                self.assertFalse(os.path.exists(os.path.join(FIX, "damaged", "bitflip", "x")))
                self.assertEqual(before, tree_digest(FIX))

    def test_no_overwrite_without_force(self):
        od = self.out("o")
        code, out, err = run("repair", "-o", od, "damaged/bitflip")
        self.assertEqual(code, 1, err)
        seg = os.path.join(od, "bitflip", "00000000000000000000.log")
        first = read(seg)
        code, out, err = run("repair", "--salvage", "-o", od, "damaged/bitflip")
        self.assertEqual(code, 3)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertTrue(err.startswith("kfsck: "), err)
        self.assertIn("--force", err)
        self.assertEqual(read(seg), first)
        code, out, err = run("repair", "--salvage", "--force", "-o", od, "damaged/bitflip")
        self.assertEqual(code, 1, err)
        self.assertGreater(len(read(seg)), len(first))
        self.assertEqual(json.loads(read(os.path.join(od, "repair.json")))["mode"], "salvage")
        self.assert_no_temp_files(od)

    def test_force_removes_stale_files_of_an_earlier_output(self):
        src = os.path.join(self.tmp, "in", "orders-0")
        shutil.copytree(os.path.join(FIX, "partition", "orders-0"), src)
        p = os.path.join(src, "00000000000000000398.log")
        data = bytearray(read(p))
        data[200] ^= 1
        with open(p, "wb") as f:
            f.write(data)
        od = self.out("f")
        self.assertEqual(run("repair", "--salvage", "-o", od, src)[0], 1)
        self.assertTrue(os.path.exists(os.path.join(od, "orders-0", "00000000000000000812.log")))
        code, out, err = run("repair", "--force", "-o", od, src)
        self.assertEqual(code, 1, err)
        self.assertFalse(os.path.exists(os.path.join(od, "orders-0", "00000000000000000812.log")))
        self.assertFalse(os.path.exists(os.path.join(od, "orders-0", "00000000000000000812.index")))
        for n in ("00000000000000000000", "00000000000000000398"):
            for ext in (".log", ".index", ".timeindex"):
                self.assertTrue(os.path.exists(os.path.join(od, "orders-0", n + ext)), n + ext)
        vcode, errors, _ = verify(os.path.join(od, "orders-0"))
        self.assertEqual(errors, [])

    def test_unwritable_outdir_exit_3(self):
        blocker = os.path.join(self.tmp, "plainfile")
        with open(blocker, "w") as f:
            f.write("x")
        for path in ("damaged/bitflip", "damaged/bitflip/00000000000000000000.log"):
            with self.subTest(path=path):
                code, out, err = run("repair", "-o", os.path.join(blocker, "sub"), path)
                self.assertEqual(code, 3)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertTrue(err.startswith("kfsck: "), err)

    def test_usage_errors(self):
        self.assertEqual(run("repair", "damaged/bitflip")[0], 2)               # no -o
        self.assertEqual(run("repair", "-o", self.out("u"))[0], 2)              # no PATH
        self.assertEqual(run("repair", "--bogus", "-o", self.out("u"), "damaged/bitflip")[0], 2)
        self.assertEqual(run("repair", "-o", self.out("u"), "damaged/bitflip", "damaged/torn-tail")[0], 2)
        code, out, err = run("repair", "-o", self.out("u"), "no/such/dir")
        self.assertEqual(code, 3)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_text_output(self):
        code, out, err = run("repair", "-o", self.out("t"), "damaged/torn-tail")
        self.assertEqual(code, 1, err)
        self.assertIn("dropped", out)
        self.assertIn("truncated", out)


if __name__ == "__main__":
    unittest.main()
