#!/usr/bin/python3
"""End-to-end tests of `kfsck dump`: segments, indexes and the small files
against fixtures/MANIFEST.json (tools/gen/gen_fixtures.py, kafka-python's
encoders); `dump --decode offsets|txn` against fixtures/offsets/MANIFEST.json
(tools/gen/gen_offsets.py, whose encoder is tools/gen/coordfmt.py); `dump
--decode metadata|share|remote` and the secrets it never prints against
fixtures/kraft/MANIFEST.json (tools/gen/gen_kraft.py, tools/gen/kraftfmt.py;
tests/e2e/kraft_e2e.py holds the comparisons).
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import DAMAGED, FIX, HEALTHY, LOGS, MANIFEST, jsonl, manifest, of_type, read, run, subset  # noqa: E402
from kraft_e2e import (CASES, KRAFT, KRAFT_CONTROL, MDIR, NODE, SECRETS, leaked, problems, rows_of,  # noqa: E402
                       run_lossy, same_fields)

BATCH_FIELDS = ["position", "base_offset", "last_offset", "count", "size", "magic", "codec", "crc", "crc_ok",
                "timestamp_type", "max_timestamp", "producer_id", "producer_epoch", "base_sequence",
                "transactional", "control", "leader_epoch"]
OFFSETS = manifest("offsets")
OFFSETS_DATADIR = OFFSETS["datadir"]


class HealthyLogs(unittest.TestCase):
    def test_dump_batches_match_encoder(self):
        self.assertGreater(len(HEALTHY), 20)
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
        self.assertTrue(MANIFEST["indexes"])
        for ix in MANIFEST["indexes"]:
            if ix.get("damaged") or "damaged/" in ix["path"]:
                continue
            with self.subTest(index=ix["path"]):
                code, out, err = run("dump", "--json", ix["path"])
                self.assertEqual(code, 0, err)
                entries = of_type(jsonl(out), "index_entry")
                self.assertEqual(len(entries), ix["entry_count"])
                for g, w in zip(entries, ix["entries"]):
                    self.assertEqual(g["file"], ix["path"])
                    for k, v in w.items():
                        self.assertEqual(g[k], v)
                checked += 1
        self.assertGreater(checked, 4)


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
            rc, out, err = run("dump", "--json", p)
            self.assertEqual(rc, 1, err)
            positions = [b["position"] for b in of_type(jsonl(out), "batch")]
            self.assertIn(at, positions)
            self.assertEqual(len(positions), 2 * len(MANIFEST["logs"][0]["batches"]))


class SmallFiles(unittest.TestCase):
    """Snapshots, txn indexes and checkpoints against what the generator wrote."""

    def test_partition_files(self):
        checked_txn = []
        self.assertTrue(MANIFEST["partitions"])
        for part in MANIFEST["partitions"]:
            with self.subTest(partition=part["path"]):
                d = part["path"]
                rc, out, err = run("dump", "--json", f"{d}/partition.metadata")
                self.assertEqual(rc, 0, err)
                pm = of_type(jsonl(out), "partition_metadata")
                self.assertEqual([(x["version"], x["topic_id"]) for x in pm], [(0, part["topic_id"])])
                rc, out, err = run("dump", "--json", f"{d}/leader-epoch-checkpoint")
                self.assertEqual(rc, 0, err)
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
                    rc, out, err = run("dump", "--json", txn["path"])
                    self.assertEqual(rc, 0, err)
                    entries = of_type(jsonl(out), "txn_entry")
                    self.assertEqual(len(entries), len(txn["entries"]))
                    self.assertEqual([{k: e[k] for k in w} for e, w in zip(entries, txn["entries"])], txn["entries"])
                    checked_txn.append(txn["path"])
        self.assertEqual(checked_txn, ["datadir/payments-0/00000000000000000000.txnindex"])

    def test_datadir_files(self):
        dd = MANIFEST["datadir"]
        rc, out, err = run("dump", "--json", "datadir/meta.properties")
        self.assertEqual(rc, 0, err)
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


class Directories(unittest.TestCase):
    """cli.md, dump: a partition directory dumps its segments in offset
    order, its index and snapshot files only when named themselves (scripts
    written for kafka-dump-log.sh read batch lines). The segments and their
    batches come from the generator's manifest."""

    def segments_under(self, d):
        return [l for l in LOGS if l["path"].startswith(d + "/") and l["path"].endswith(".log")]

    def test_partition_dir_dumps_its_segments(self):
        d = "datadir/orders-0"
        logs = self.segments_under(d)
        self.assertEqual(len(logs), 3)
        names = os.listdir(os.path.join(FIX, d))
        self.assertTrue({"leader-epoch-checkpoint", "partition.metadata"} <= set(names))
        self.assertTrue(any(n.endswith(".snapshot") for n in names) and any(n.endswith(".index") for n in names))
        for extra in ([], ["--records"], ["--records", "--payload"]):
            with self.subTest(options=extra):
                code, out, err = run("dump", "--json", *extra, d)
                self.assertEqual(code, 0, err)
                lines = jsonl(out)
                self.assertEqual({l["type"] for l in lines}, {"batch", "record"} if extra else {"batch"})
                got = [(b["file"], b["position"], b["base_offset"]) for b in of_type(lines, "batch")]
                want = [(l["path"], b["position"], b["base_offset"]) for l in logs for b in l["batches"]]
                self.assertEqual(got, want)
        code, out, err = run("dump", d)
        self.assertEqual(code, 0, err)
        self.assertEqual([l for l in out.splitlines() if l.startswith("Dumping ")],
                         ["Dumping " + l["path"] for l in logs])
        # nothing but the segments' heads and batch lines (magic 2 here)
        self.assertEqual([l for l in out.splitlines()
                          if not l.startswith(("Dumping ", "Log starting offset: ", "baseOffset: "))], [])

    def test_data_dir_dumps_the_segments_of_its_partitions(self):
        code, out, err = run("dump", "--json", "datadir")
        self.assertEqual(code, 1, err)  # clicks-0 carries damage
        lines = jsonl(out)
        self.assertEqual({l["type"] for l in lines}, {"batch", "problem"})
        logs = self.segments_under("datadir")
        self.assertEqual(sorted({l["file"] for l in lines}), sorted(l["path"] for l in logs))
        got = [(b["file"], b["position"]) for b in of_type(lines, "batch")]
        self.assertEqual(got, sorted(got, key=lambda x: (os.path.dirname(x[0]), x[0], x[1])))

    def test_kraft_metadata_dir_dumps_its_log_not_its_snapshots(self):
        code, out, err = run_lossy("dump", "--json", MDIR)
        self.assertEqual(code, 0, err)
        files = {l["file"] for l in jsonl(out)}
        self.assertTrue(files)
        self.assertEqual([f for f in files if not f.endswith(".log")], [])
        self.assertEqual(files, {d["file"] for d in KRAFT["segments"]})

    def test_named_files_still_dump(self):
        d = "datadir/orders-0"
        index = next(i for i in MANIFEST["indexes"] if i["path"].startswith(d + "/"))
        part = next(p for p in MANIFEST["partitions"] if p["path"] == d)
        code, out, err = run("dump", "--json", index["path"], f"{d}/leader-epoch-checkpoint", part["snapshot"]["path"],
                             f"{d}/partition.metadata")
        self.assertEqual(code, 0, err)
        lines = jsonl(out)
        self.assertEqual(len(of_type(lines, "index_entry")), index["entry_count"])
        self.assertEqual(len(of_type(lines, "leader_epoch")), len(part["leader_epochs"]))
        self.assertEqual(len(of_type(lines, "producer")), len(part["snapshot"]["entries"]))
        self.assertEqual(len(of_type(lines, "partition_metadata")), 1)


class DecodeOffsets(unittest.TestCase):
    """`dump --decode offsets|txn`: __consumer_offsets and __transaction_state records."""

    def test_dump_decode_offsets_matches_encoder(self):
        got = []
        self.assertTrue(OFFSETS["partitions"])
        for part in OFFSETS["partitions"]:
            if part["topic"] != "__consumer_offsets":
                continue
            for seg in part["segments"]:
                code, out, err = run("dump", "--json", "--decode", "offsets", seg["path"])
                self.assertEqual(code, 0, err)
                got += [r for r in jsonl(out, "record") if "key_decoded" in r]
        self.assertEqual(len(got), len(OFFSETS["records"]))
        for g, w in zip(got, OFFSETS["records"]):
            self.assertEqual((g["offset"], g["key_type"], g["record_type"]), (w["offset"], w["key_type"], w["record_type"]))
            if w["key_decoded"] is None:
                self.assertIsNone(g["key_decoded"])
            else:
                subset(g["key_decoded"], w["key_decoded"])
            if w["expect"] == "decoded":
                self.assertEqual(g["value_version"], w["value_version"])
                if w["value_decoded"] is None:
                    self.assertIsNone(g["value_decoded"])
                else:
                    subset(g["value_decoded"], w["value_decoded"], f"p{w['partition']}/{w['offset']}")
                    self.assertEqual(sorted(g["value_decoded"]), sorted(w["value_decoded"]))

    def test_dump_and_offsets_give_the_same_problem_codes(self):
        # cli.md: an unknown record type is unknown_record_type (warning) in
        # dump --decode as in offsets; a known type's unknown value version
        # is undecoded_record in dump, and in offsets the coordinator_load_error
        # it causes (error), whose decode_error is dump's code
        want = {"unknown_record_type": "unknown_record_type", "unknown_value_version": "undecoded_record"}
        odd = [r for r in OFFSETS["records"] if r["expect"] != "decoded"]
        self.assertEqual(sorted({r["expect"] for r in odd}), sorted(want))
        code, out, err = run("offsets", "--json", OFFSETS_DATADIR)
        self.assertEqual(code, 1, err)
        probs = jsonl(out, "problem")
        # what dump calls each record offsets reported: its own code, or a load error's decode_error
        from_offsets = {(p["file"], p["offset"]): p.get("decode_error", p["code"]) for p in probs}
        load = [p["severity"] for p in probs if p["code"] == "coordinator_load_error"]
        self.assertEqual(load, ["error"] * sum(r["expect"] == "unknown_value_version" for r in odd))
        for r in odd:
            part = [p for p in OFFSETS["partitions"] if p["topic"] == "__consumer_offsets" and p["partition"] == r["partition"]]
            seg = [s for s in part[0]["segments"] if s["base_offset"] <= r["offset"]][-1]["path"]
            code, out, err = run("dump", "--json", "--records", "--decode", "offsets", seg)
            self.assertEqual(code, 0, err)
            got = [(p["code"], p["severity"]) for p in jsonl(out, "problem") if p["offset"] == r["offset"]]
            self.assertEqual(got, [(want[r["expect"]], "warning")], (seg, r["offset"]))
            self.assertEqual(from_offsets[(seg, r["offset"])], got[0][0], (seg, r["offset"]))

    def test_auto_decode_by_directory_name(self):
        seg = OFFSETS["partitions"][0]["segments"][0]["path"]
        code, out, err = run("dump", "--json", "--records", seg)
        self.assertEqual(code, 0, err)
        records = jsonl(out, "record")
        self.assertTrue(records)
        self.assertTrue(all("key_decoded" in r for r in records))

    def test_dump_decode_txn(self):
        ts = OFFSETS["transaction_state"]
        got = []
        for f in sorted(os.listdir(os.path.join(FIX, ts["path"]))):
            if f.endswith(".log"):
                code, out, err = run("dump", "--json", "--decode", "txn", os.path.join(ts["path"], f))
                self.assertEqual(code, 0, err)
                got += jsonl(out, "record")
        self.assertEqual(len(got), len(ts["records"]))
        for g, w in zip(got, ts["records"]):
            self.assertEqual(g["record_type"], "transaction_log")
            subset(g["key_decoded"], w["key_decoded"])
            if w["value_decoded"] is None:
                self.assertIsNone(g["value_decoded"])
            else:
                subset(g["value_decoded"], w["value_decoded"])


class DumpMetadata(unittest.TestCase):
    def check_file(self, d, *extra):
        code, out, err = run_lossy("dump", "--json", "--decode", d["decode"], *extra, d["file"])
        self.assertEqual(code, 0, err)
        self.assertEqual(problems(out), [], d["file"])
        batches = jsonl(out, "batch")
        self.assertEqual(len(batches), d["batches"], d["file"])
        self.assertEqual(sum(1 for b in batches if b["control"]), d["control_batches"], d["file"])
        got = rows_of(out)
        self.assertEqual([r["offset"] for r in got], [r["offset"] for r in d["records"]], d["file"])
        return got

    def test_every_record_of_the_log_and_snapshots(self):
        self.assertTrue(KRAFT["dump"])
        for d in KRAFT["dump"]:
            with self.subTest(file=d["file"]):
                got = self.check_file(d)
                for g, w in zip(got, d["records"]):
                    where = f"{d['file']}@{w['offset']}"
                    self.assertEqual(g["record_type"], w["record_type"], where)
                    self.assertEqual(g["record_version"], w["record_version"], where)
                    same_fields(g["value_decoded"], w["value_decoded"], where)

    def test_show_secrets(self):
        self.assertTrue(KRAFT["dump"])
        for d in KRAFT["dump"]:
            shown = [w for w in d["records"] if "value_decoded_shown" in w]
            if not shown:
                continue
            with self.subTest(file=d["file"]):
                got = {r["offset"]: r for r in self.check_file(d, "--show-secrets")}
                for w in shown:
                    same_fields(got[w["offset"]]["value_decoded"], w["value_decoded_shown"],
                                f"{d['file']}@{w['offset']}")

    def test_every_record_type_at_lowest_and_highest_version(self):
        """The fixtures hold what the contract needs: checked here on kfsck's output."""
        seen = {}
        self.assertTrue(KRAFT["dump"])
        for d in KRAFT["dump"]:
            code, out, err = run_lossy("dump", "--json", "--decode", "metadata", d["file"])
            self.assertEqual(code, 0, err)
            for r in rows_of(out):
                seen.setdefault(r.get("record_type"), set()).add(r.get("record_version"))
        self.assertTrue(KRAFT["record_versions"])
        for rt, versions in KRAFT["record_versions"].items():
            self.assertIn(rt, seen)
            self.assertTrue({min(versions), max(versions)} <= seen[rt], (rt, seen[rt]))

    def test_control_records_in_every_log(self):
        self.assertTrue(KRAFT["dump"])
        for d in KRAFT["dump"]:
            want = [w for w in d["records"] if w["control"]]
            with self.subTest(file=d["file"]):
                code, out, err = run_lossy("dump", "--json", "--decode", "metadata", d["file"])
                self.assertEqual(code, 0, err)
                got = {r["offset"]: r for r in rows_of(out)}
                for w in want:
                    self.assertIn(w["record_type"], KRAFT_CONTROL)
                    g = got[w["offset"]]
                    self.assertEqual((g["record_type"], g["record_version"]), (w["record_type"], 0))
                    same_fields(g["value_decoded"], w["value_decoded"], f"{d['file']}@{w['offset']}")
        # snapshots start with a header and end with a footer
        self.assertTrue(KRAFT["snapshots"])
        for s in KRAFT["snapshots"]:
            code, out, err = run_lossy("dump", "--json", "--decode", "metadata", s["file"])
            self.assertEqual(code, 0, err)
            rows = rows_of(out)
            self.assertEqual(rows[0]["record_type"], "snapshot_header")
            self.assertEqual(rows[-1]["record_type"], "snapshot_footer")

    def test_auto_decode_by_directory_and_snapshot_name(self):
        for f in (KRAFT["segments"][0]["file"], KRAFT["snapshots"][0]["file"]):
            want = next(d for d in KRAFT["dump"] if d["file"] == f)
            code, out, err = run_lossy("dump", "--json", "--records", f)
            self.assertEqual(code, 0, err)
            got = rows_of(out)
            self.assertEqual([r.get("record_type") for r in got], [w["record_type"] for w in want["records"]], f)
        for d in (KRAFT["share"], KRAFT["remote"]):
            code, out, err = run_lossy("dump", "--json", "--records", d["file"])
            self.assertEqual(code, 0, err)
            got = rows_of(out)
            self.assertEqual([r.get("record_type") for r in got if r["offset"] != d["records"][-1]["offset"]],
                             [w["record_type"] for w in d["records"][:-1]], d["file"])

    def test_bootstrap_checkpoint(self):
        d = next(d for d in KRAFT["dump"] if d["file"] == KRAFT["bootstrap_checkpoint"])
        self.assertEqual([w["record_type"] for w in d["records"]],
                         ["snapshot_header", "feature_level", "snapshot_footer"])
        got = self.check_file(d)
        self.assertEqual([g["record_type"] for g in got], [w["record_type"] for w in d["records"]])

    def test_share_group_state(self):
        d = KRAFT["share"]
        code, out, err = run_lossy("dump", "--json", "--decode", "share", d["file"])
        got = {r["offset"]: r for r in rows_of(out)}
        self.assertEqual(sorted(got), [w["offset"] for w in d["records"]])
        for w in d["records"]:
            g = got[w["offset"]]
            where = f"share@{w['offset']}"
            if w.get("expect") == "unknown_record_type":
                self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual(g["record_type"], w["record_type"], where)
            if "key_decoded" in g and g["key_decoded"] is not None:
                subset(g["key_decoded"], w["key_decoded"], where)
            if w.get("tombstone"):
                self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual(g["record_version"], w["record_version"], where)
            same_fields(g["value_decoded"], w["value_decoded"], f"{where} ({w['layout']} layout)")
        unknown = [p for p in problems(out) if p["code"] == "unknown_record_type"]
        self.assertEqual([(p["offset"], p["severity"]) for p in unknown],
                         [(w["offset"], "warning") for w in d["records"] if w.get("expect")])
        self.assertIn(code, (0, 1), err)

    def test_remote_log_metadata(self):
        d = KRAFT["remote"]
        code, out, err = run_lossy("dump", "--json", "--decode", "remote", d["file"])
        got = {r["offset"]: r for r in rows_of(out)}
        self.assertEqual(sorted(got), [w["offset"] for w in d["records"]])
        for w in d["records"]:
            g = got[w["offset"]]
            where = f"remote@{w['offset']}"
            if w.get("expect") == "unknown_record_type":
                self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual((g["record_type"], g["record_version"]), (w["record_type"], 0), where)
            same_fields(g["value_decoded"], w["value_decoded"], where)
        unknown = [p for p in problems(out) if p["code"] == "unknown_record_type"]
        self.assertEqual([(p["offset"], p["severity"]) for p in unknown],
                         [(w["offset"], "warning") for w in d["records"] if w.get("expect")])
        self.assertIn(code, (0, 1), err)

    def test_unknown_record_types_and_versions(self):
        c = CASES["unknown_records"]
        d = c["dump"]
        code, out, err = run_lossy("dump", "--json", "--decode", "metadata", d["file"])
        got = {r["offset"]: r for r in rows_of(out)}
        self.assertEqual(sorted(got), [w["offset"] for w in d["records"]], "every record listed")
        for w in d["records"]:
            g = got[w["offset"]]
            where = f"unknown@{w['offset']} ({w.get('why', '')})"
            if w.get("expect") == "unknown_record_type":
                if not w.get("best_effort_decode_allowed"):
                    self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual((g["record_type"], g["record_version"]), (w["record_type"], w["record_version"]))
            same_fields(g["value_decoded"], w["value_decoded"], where)
        unknown = [p for p in problems(out) if p["code"] == "unknown_record_type"]
        self.assertEqual(sorted((p["offset"], p["severity"]) for p in unknown),
                         sorted((p["offset"], "warning") for p in c["problems"]))
        self.assertNotIn("error", [p["severity"] for p in problems(out)])
        self.assertIn(code, (0, 1), err)

    def test_text_output(self):
        code, out, err = run_lossy("dump", "--decode", "metadata", KRAFT["segments"][0]["file"])
        self.assertEqual(code, 0, err)
        self.assertTrue(out.strip())
        self.assertFalse(any(l.startswith("{") for l in out.splitlines()))


class Secrets(unittest.TestCase):
    """cli.md: SCRAM salts and keys, delegation-token ids and the values of
    configs named *password, *jaas.config*, *secret* are never printed
    unless --show-secrets is given: not in JSON, not in text, not on stderr,
    in no encoding."""

    FILES = [d["file"] for d in KRAFT["dump"]]

    def assert_clean(self, *args):
        code, out, err = run_lossy(*args)
        self.assertIn(code, (0, 1), "%s: %s" % (" ".join(args), err))
        self.assertEqual(leaked(out + err), [], " ".join(args))
        return out

    def test_the_secrets_are_in_the_data(self):
        raw = b""
        for f in self.FILES:
            with open(os.path.join(FIX, f), "rb") as fh:
                raw += fh.read()
        for name, s in SECRETS.items():
            self.assertIn(s, raw, name)

    def test_dump_never_prints_them(self):
        for f in self.FILES:
            with self.subTest(file=f):
                self.assert_clean("dump", "--json", "--decode", "metadata", f)
                self.assert_clean("dump", "--decode", "metadata", f)
                self.assert_clean("dump", "--json", "--payload", "--decode", "metadata", f)
                self.assert_clean("dump", "--payload", f)
                self.assert_clean("dump", "--json", "--payload", f)
        self.assert_clean("dump", "--json", "--decode", "metadata", MDIR)

    def test_other_commands_never_print_them(self):
        for args in (("metadata", "--json", NODE), ("metadata", NODE), ("metadata", "--json", MDIR),
                     ("metadata", "--json", "--as-of-offset", str(KRAFT["marks"]["snapshot_a"]), NODE),
                     ("verify", "--json", MDIR), ("verify", MDIR), ("scan", "--json", NODE),
                     ("groups", "--json", NODE), ("stats", "--json", MDIR)):
            with self.subTest(args=args):
                self.assert_clean(*args)

    def test_show_secrets_prints_them(self):
        found = set()
        for f in self.FILES:
            code, out, err = run_lossy("dump", "--json", "--decode", "metadata", "--show-secrets", f)
            self.assertEqual(code, 0, err)
            found |= set(leaked(out))
        self.assertEqual(sorted(found), sorted(SECRETS))
        found = set()
        for f in self.FILES:
            code, out, err = run_lossy("dump", "--decode", "metadata", "--show-secrets", f)
            self.assertEqual(code, 0, err)
            found |= set(leaked(out))
        self.assertEqual(sorted(found), sorted(SECRETS), "text output with --show-secrets")

    def test_a_damaged_record_hides_nothing(self):
        """dump --include-damaged --records decodes the records of a batch
        that fails its CRC; in the metadata log a damaged byte may be the
        one that marks a secret (here the config name ssl.keystore.password
        becomes ...passwore): without --show-secrets such records are
        neither decoded nor shown raw, and the stretch's bytes
        (--include-damaged --payload) are redacted too."""
        src = os.path.join(FIX, KRAFT["segments"][0]["file"])
        data = bytearray(read(src))
        at = data.index(b"ssl.keystore.password") + len(b"ssl.keystore.password") - 1
        data[at] ^= 0x01
        with tempfile.TemporaryDirectory() as t:
            part = os.path.join(t, "__cluster_metadata-0")
            os.makedirs(part)
            log = os.path.join(part, os.path.basename(src))
            with open(log, "wb") as f:
                f.write(data)
            for args in (["--json", "--payload"], ["--payload"], ["--json", "--decode", "metadata"],
                         ["--decode", "metadata"]):
                with self.subTest(args=args):
                    code, out, err = run_lossy("dump", "--include-damaged", "--records", *args, log)
                    self.assertEqual(code, 1, err)
                    self.assertEqual(leaked(out + err), [])
            code, out, err = run_lossy("dump", "--json", "--include-damaged", "--records", "--payload", log)
            damaged = [r for r in rows_of(out) if r.get("damaged")]
            self.assertTrue(damaged)
            self.assertEqual({r["value"] for r in damaged}, {"<redacted>"})
            code, out, err = run_lossy("dump", "--json", "--include-damaged", "--records", "--payload",
                                       "--show-secrets", log)
            self.assertIn("ssl_keystore_password", leaked(out))

    def test_redacted_marker(self):
        code, out, err = run_lossy("dump", "--json", "--decode", "metadata", KRAFT["segments"][0]["file"])
        self.assertEqual(code, 0, err)
        cfg = [r["value_decoded"] for r in rows_of(out) if r.get("record_type") == "config"
               and r["value_decoded"]["name"].endswith("password")]
        self.assertEqual([c["value"] for c in cfg], ["<redacted>"])


if __name__ == "__main__":
    unittest.main()
