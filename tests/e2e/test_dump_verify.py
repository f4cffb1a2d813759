#!/usr/bin/python3
"""End-to-end tests of `kfsck dump` and `kfsck verify`.

They run the built binary ($KFSCK, default ./kfsck) on the committed fixtures
and compare its JSON output with fixtures/MANIFEST.json, which the fixture
generator (tools/gen/gen_fixtures.py, kafka-python's encoders) wrote from its own
knowledge of what it encoded: batches, records, valid_bytes and the damage
each damaged copy carries. Bad-input cases are built in temporary dirs.
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
KFSCK = os.path.abspath(os.environ.get("KFSCK", os.path.join(ROOT, "kfsck")))
FIX = os.path.join(ROOT, "fixtures")


def read(path):
    with open(path, "rb") as f:
        return f.read()


MANIFEST = json.loads(read(os.path.join(FIX, "MANIFEST.json")))
LOGS = MANIFEST["logs"]
HEALTHY = [l for l in LOGS if "damage" not in l and not l["path"].startswith("datadir/clicks-0")]
DAMAGED = [l for l in LOGS if "damage" in l]

BATCH_FIELDS = ["position", "base_offset", "last_offset", "count", "size", "magic", "codec", "crc", "crc_ok",
                "timestamp_type", "max_timestamp", "producer_id", "producer_epoch", "base_sequence",
                "transactional", "control", "leader_epoch"]


def run(*args, cwd=FIX):
    p = subprocess.run([KFSCK, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def of_type(lines, t):
    return [x for x in lines if x["type"] == t]


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

    def test_dump_batches_match_encoder(self):
        for log in HEALTHY:
            with self.subTest(log=log["path"]):
                code, out, err = run("dump", "--json", log["path"])
                self.assertEqual(code, 0, err)
                batches = of_type(jsonl(out), "batch")
                self.assertEqual(len(batches), len(log["batches"]))
                for got, want in zip(batches, log["batches"]):
                    self.assertEqual(got["file"], log["path"])
                    for f in BATCH_FIELDS:
                        if want["magic"] < 2 and f in ("transactional", "control"):
                            self.assertIsNone(got[f])  # magic 0/1 have no such attribute
                            continue
                        self.assertEqual(got[f], want[f], f"{f} of batch at {want['position']}")

    def test_dump_records_match_encoder(self):
        checked = 0
        for log in HEALTHY:
            if "records_detail" not in log:
                continue
            with self.subTest(log=log["path"]):
                code, out, err = run("dump", "--json", "--records", "--payload", log["path"])
                self.assertEqual(code, 0, err)
                recs = of_type(jsonl(out), "record")
                want = log["records_detail"]
                self.assertEqual(len(recs), len(want))
                for g, w in zip(recs, want):
                    for f in ("offset", "timestamp", "key_size", "value_size", "key_b64", "value_b64"):
                        self.assertEqual(g[f], w[f], f"{f} at offset {w['offset']}")
                    if w.get("headers") is not None and g["headers"] is not None:
                        self.assertEqual([(h["key"], h["value_b64"]) for h in g["headers"]],
                                         [(h["key"], h["value_b64"]) for h in w["headers"]])
                checked += 1
        self.assertGreater(checked, 10)

    def test_control_records_are_decoded(self):
        code, out, _ = run("dump", "--json", "--records", "segments/txn/00000000000000000000.log")
        self.assertEqual(code, 0)
        controls = [r["control"] for r in of_type(jsonl(out), "record") if "control" in r]
        self.assertEqual([c["type"] for c in controls], ["COMMIT", "ABORT"])
        batches = of_type(jsonl(out), "batch")
        self.assertTrue(any(b["count"] == 0 and b["size"] == 61 for b in batches), "empty batch kept")
        self.assertTrue(any(b["timestamp_type"] == "log_append" for b in batches))

    def test_text_dump_looks_like_kafka_dump_log(self):
        code, out, _ = run("dump", "--records", "segments/v2-none/00000000000000000000.log")
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0], "Dumping segments/v2-none/00000000000000000000.log")
        self.assertEqual(lines[1], "Log starting offset: 0")
        self.assertTrue(lines[2].startswith("baseOffset: 0 lastOffset: 4 count: 5 baseSequence: -1 lastSequence: -1 "
                                            "producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 "
                                            "isTransactional: false isControl: false deleteHorizonMs: "
                                            "OptionalLong.empty position: 0 CreateTime: "), lines[2])
        self.assertIn(" magic: 2 compresscodec: none crc: ", lines[2])
        self.assertTrue(lines[2].endswith("isvalid: true"))
        self.assertTrue(lines[3].startswith("| offset: 0 CreateTime: 1700000000000 keySize: 8 valueSize: 228"))


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
        _, out, _ = run("verify", "--json", log["path"])
        seg = of_type(jsonl(out), "segment")[0]
        intact = sum(1 for b in log["batches"] if b.get("intact"))
        self.assertEqual(seg["batches"], intact)
        self.assertEqual(seg["bad_batches"], 1)

    def test_damaged_batch_gets_problem_line_not_batch_line(self):
        log = next(l for l in DAMAGED if l["case"].endswith("bitflip"))
        code, out, _ = run("dump", "--json", log["path"])
        self.assertEqual(code, 1)
        lines = jsonl(out)
        pos = log["problems"][0]["position"]
        self.assertFalse([b for b in of_type(lines, "batch") if b["position"] == pos])
        self.assertTrue([p for p in of_type(lines, "problem") if p["position"] == pos])


class Indexes(unittest.TestCase):
    def test_index_dump_matches_encoder(self):
        checked = 0
        for ix in MANIFEST["indexes"]:
            if ix.get("damaged") or "damaged/" in ix["path"]:
                continue
            with self.subTest(index=ix["path"]):
                code, out, err = run("dump", "--json", ix["path"])
                entries = of_type(jsonl(out), "index_entry")
                self.assertEqual(len(entries), ix["entry_count"])
                for g, w in zip(entries, ix["entries"]):
                    self.assertEqual(g["file"], ix["path"])
                    for k, v in w.items():
                        self.assertEqual(g[k], v)
                checked += 1
        self.assertGreater(checked, 4)


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


class BadInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, data):
        p = os.path.join(self.tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_empty_segment(self):
        p = self.write("00000000000000000000.log", b"")
        code, out, _ = run("verify", "--json", p)
        self.assertEqual(code, 0)
        seg = of_type(jsonl(out), "segment")[0]
        self.assertEqual((seg["size"], seg["batches"], seg["valid_bytes"]), (0, 0, 0))
        self.assertIsNone(seg["first_offset"])
        self.assertIsNone(seg["last_offset"])

    def test_random_bytes_never_crash(self):
        rnd = random.Random(1234)
        for i in range(30):
            n = rnd.choice([1, 16, 17, 18, 61, 100, 4096, 65536])
            data = bytes(rnd.getrandbits(8) for _ in range(n))
            p = self.write(f"{i:020d}.log", data)
            code, out, err = run("verify", "--json", p)
            self.assertIn(code, (0, 1), err)
            jsonl(out)  # valid JSON lines
            code, out, err = run("dump", "--json", "--records", p)
            self.assertIn(code, (0, 1), err)

    def test_random_index_and_snapshot_files(self):
        rnd = random.Random(99)
        for name in ("00000000000000000000.index", "00000000000000000000.timeindex",
                     "00000000000000000000.txnindex", "00000000000000000005.snapshot",
                     "leader-epoch-checkpoint", "partition.metadata", "meta.properties"):
            for n in (0, 1, 7, 13, 100, 1000):
                p = self.write(name, bytes(rnd.getrandbits(8) for _ in range(n)))
                for cmd in ("dump", "verify"):
                    code, out, err = run(cmd, "--json", p)
                    self.assertIn(code, (0, 1), f"{cmd} {name} {n}: {err}")
                    jsonl(out)

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

    def test_missing_path_is_exit_3_one_line(self):
        missing = os.path.join(self.tmp, "nope.log")
        for cmd in ("dump", "verify"):
            code, out, err = run(cmd, missing)
            self.assertEqual(code, 3)
            self.assertEqual(err.splitlines(), [f"kfsck: {missing}: no such file or directory"])

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
        for name in ("README", "x.log", ".lock", "00000000000000000000.log.bak", "foo-bar"):
            self.write(os.path.join("t-0", name), b"junk")
        code, out, err = run("verify", "--json", self.tmp)
        self.assertEqual(code, 0, out + err)
        self.assertEqual(len(of_type(jsonl(out), "segment")), 1)

    def test_usage_errors(self):
        self.assertEqual(run()[0], 2)
        self.assertEqual(run("frobnicate")[0], 2)
        self.assertEqual(run("verify")[0], 2)
        self.assertEqual(run("verify", "--bogus", "x")[0], 2)
        self.assertEqual(run("dump", "--max-bytes")[0], 2)
        self.assertEqual(run("dump", "--max-bytes", "zero", "x")[0], 2)
        self.assertEqual(run("--help")[0], 0)
        self.assertEqual(run("verify", "--help")[0], 0)
        code, out, _ = run("--version")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("kfsck "))

    def test_man_page_names_the_programs_version(self):
        version = run("--version")[1].split()[1]
        with open(os.path.join(ROOT, "docs", "kfsck.1"), encoding="utf-8") as f:
            th = next(l for l in f if l.startswith(".TH "))
        self.assertIn(f'"kfsck {version}"', th)


class Limits(unittest.TestCase):
    def test_max_bytes_samples_the_start(self):
        log = next(l for l in HEALTHY if l["path"].startswith("segments/v2-multi"))
        cut = log["batches"][3]["position"] + 10
        code, out, _ = run("dump", "--json", "--max-bytes", str(cut), log["path"])
        self.assertEqual(code, 0)
        lines = jsonl(out)
        self.assertEqual(len(of_type(lines, "batch")), 3)
        self.assertEqual(of_type(lines, "problem"), [])

    def test_decompression_cap(self):
        code, out, _ = run("dump", "--json", "--max-batch-bytes", "1000", "segments/v2-gzip/00000000000000000000.log")
        self.assertEqual(code, 1)
        self.assertIn("decompress_error", [p["code"] for p in of_type(jsonl(out), "problem")])
        code, _, _ = run("dump", "--json", "--max-batch-bytes", "1M", "segments/v2-gzip/00000000000000000000.log")
        self.assertEqual(code, 0)

    def test_positions_past_2gib_and_holes(self):
        """A sparse 3 GB segment: a batch run, a 2.5 GB hole, the same run again."""
        src = read(os.path.join(FIX, "segments/v2-none/00000000000000000000.log"))
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "00000000000000000000.log")
            at = 2_600_000_000
            with open(p, "wb") as f:
                f.write(src)
                f.seek(at)
                f.write(src)
                f.truncate(3_000_000_000)
            code, out, _ = run("verify", "--json", p)
            self.assertEqual(code, 1)
            lines = jsonl(out)
            zf = [x for x in of_type(lines, "problem") if x["code"] == "zero_fill"]
            self.assertEqual([(z["position"], z["length"], z["severity"]) for z in zf],
                             [(len(src), at - len(src), "error"), (at + len(src), 3_000_000_000 - at - len(src), "warning")])
            codes = {x["code"] for x in of_type(lines, "problem")}
            self.assertIn("offset_regression", codes)  # the second run repeats offsets
            _, out, _ = run("dump", "--json", p)
            positions = [b["position"] for b in of_type(jsonl(out), "batch")]
            self.assertIn(at, positions)
            self.assertEqual(len(positions), 2 * len(MANIFEST["logs"][0]["batches"]))


class SmallFiles(unittest.TestCase):
    """Snapshots, txn indexes and checkpoints against what the generator wrote."""

    def test_partition_files(self):
        checked_txn = []
        for part in MANIFEST["partitions"]:
            with self.subTest(partition=part["path"]):
                d = part["path"]
                _, out, _ = run("dump", "--json", f"{d}/partition.metadata")
                pm = of_type(jsonl(out), "partition_metadata")
                self.assertEqual([(x["version"], x["topic_id"]) for x in pm], [(0, part["topic_id"])])
                _, out, _ = run("dump", "--json", f"{d}/leader-epoch-checkpoint")
                self.assertEqual([{"epoch": x["epoch"], "start_offset": x["start_offset"]}
                                  for x in of_type(jsonl(out), "leader_epoch")], part["leader_epochs"])
                snap = part.get("snapshot")
                if snap:
                    code, out, _ = run("dump", "--json", snap["path"])
                    self.assertEqual(code, 0)
                    lines = jsonl(out)
                    head = of_type(lines, "snapshot")[0]
                    self.assertEqual((head["version"], head["crc_ok"], head["count"]), (1, True, len(snap["entries"])))
                    got = [{k: v for k, v in x.items() if k not in ("type", "file")} for x in of_type(lines, "producer")]
                    self.assertEqual(got, snap["entries"])
                for txn in part.get("txnindex") or []:
                    _, out, _ = run("dump", "--json", txn["path"])
                    entries = of_type(jsonl(out), "txn_entry")
                    self.assertEqual(len(entries), len(txn["entries"]))
                    self.assertEqual([{k: e[k] for k in w} for e, w in zip(entries, txn["entries"])], txn["entries"])
                    checked_txn.append(txn["path"])
        self.assertEqual(checked_txn, ["datadir/payments-0/00000000000000000000.txnindex"])

    def test_datadir_files(self):
        dd = MANIFEST["datadir"]
        _, out, _ = run("dump", "--json", "datadir/meta.properties")
        mp = of_type(jsonl(out), "meta_properties")[0]
        self.assertEqual((mp["version"], mp["broker_id"], mp["cluster_id"], mp["node_id"]),
                         (dd["meta_version"], dd["broker_id"], dd["cluster_id"], None))
        for name, entries in dd["checkpoints"].items():
            with self.subTest(checkpoint=name):
                code, out, _ = run("dump", "--json", f"datadir/{name}")
                self.assertEqual(code, 0)
                got = [{"topic": x["topic"], "partition": x["partition"], "offset": x["offset"]}
                       for x in of_type(jsonl(out), "checkpoint_entry")]
                self.assertEqual(got, entries)

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
        def digest():
            h = hashlib.sha256()
            for d, _, files in sorted(os.walk(FIX)):
                for f in sorted(files):
                    p = os.path.join(d, f)
                    h.update(p.encode())
                    h.update(str(os.stat(p).st_mtime_ns).encode())
                    h.update(read(p))
            return h.hexdigest()
        before = digest()
        run("verify", "--json", "datadir")
        run("dump", "--json", "--records", "datadir")
        run("verify", "damaged")
        self.assertEqual(before, digest())


if __name__ == "__main__":
    unittest.main()
