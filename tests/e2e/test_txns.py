#!/usr/bin/python3
"""End-to-end tests of `kfsck txns`.

The fixtures under fixtures/txns/ were written by tools/gen/gen_txns.py with
kafka-python's transactional batch builder, hand-built COMMIT/ABORT marker
batches (CRC-32C computed in Python) and tools/gen/coordfmt.py's
__transaction_state records; fixtures/txns/MANIFEST.json holds what that
generator computed by reading the files back and replaying them with the
producer-state rules in Python (tools/model/kafka_producer_state.py): the open
transactions, last stable offsets, marker counts, .txnindex problems, the
coordinator's view and the damaged copy's answer.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, jsonl, manifest, run, tree_digest  # noqa: E402

M = manifest("txns")
DATADIR = M["datadir"]
PARTS = {p["topic"]: p for p in M["partitions"]}

# fields of an open_transaction line the manifest fixes (the coordinator's only with __transaction_state)
OPEN_FIELDS = ("topic", "partition", "producer_id", "producer_epoch", "first_offset", "last_offset", "batches",
               "records", "first_timestamp", "age_ms", "hanging", "last_timestamp", "idle_ms")
COORD_FIELDS = ("transactional_id", "coordinator_state", "marker_missing")
PART_FIELDS = ("topic", "partition", "log_end_offset", "last_stable_offset", "open_transactions",
               "aborted_transactions", "committed_transactions", "hanging_transactions", "start_offset",
               "snapshot", "incomplete")


def open_rows(out, topic):
    return [r for r in jsonl(out, "open_transaction") if r["topic"] == topic]


def partition_row(out, topic):
    rows = [r for r in jsonl(out, "partition") if r["topic"] == topic]
    assert len(rows) == 1, rows
    return rows[0]


def problems(out, codes=("txnindex_missing", "txnindex_extra", "marker_missing")):
    return sorted((p["code"], p["file"], p["offset"]) for p in jsonl(out, "problem") if p["code"] in codes)


def want_problems(parts):
    return sorted((p["code"], p["file"], p["offset"]) for x in parts for p in x["problems"])


class DataDir(unittest.TestCase):
    """The whole data dir: every partition, with the coordinator's view."""

    @classmethod
    def setUpClass(cls):
        cls.code, cls.out, cls.err = run("txns", "--json", DATADIR)

    def test_every_line_has_a_type_and_partitions_are_listed_in_order(self):
        rows = jsonl(self.out)
        self.assertTrue(rows)
        self.assertTrue(all("type" in r for r in rows))
        self.assertEqual([r["topic"] for r in jsonl(self.out, "partition")], [p["topic"] for p in M["partitions"]])
        self.assertNotIn("__transaction_state", [r["topic"] for r in jsonl(self.out, "partition")])

    def test_partition_lines(self):
        self.assertTrue(M["partitions"])
        for want in M["partitions"]:
            got = partition_row(self.out, want["topic"])
            for f in PART_FIELDS:
                self.assertEqual(got[f], want[f], (want["topic"], f))

    def test_open_transactions_in_order_with_the_coordinator_view(self):
        self.assertTrue(M["partitions"])
        for want in M["partitions"]:
            got = open_rows(self.out, want["topic"])
            self.assertEqual(len(got), len(want["open"]), want["topic"])
            for g, w in zip(got, want["open"]):
                for f in OPEN_FIELDS + COORD_FIELDS:
                    self.assertEqual(g[f], w[f], (want["topic"], w["producer_id"], f))

    def test_problems_are_the_txnindex_and_marker_findings(self):
        self.assertEqual(problems(self.out), want_problems(M["partitions"]))
        self.assertEqual(sorted({p["code"] for p in jsonl(self.out, "problem")}),
                         ["marker_missing", "txnindex_extra", "txnindex_missing"])
        for p in jsonl(self.out, "problem"):
            self.assertEqual(p["severity"], "error")

    def test_exit_1_for_the_hanging_transaction_and_the_findings(self):
        self.assertEqual(self.code, 1, self.err)

    def test_coordinator_line(self):
        (c,) = jsonl(self.out, "coordinator")
        self.assertEqual(c["transactional_ids"], M["transaction_state"]["transactional_ids"])
        self.assertEqual(sorted(c["partitions"]),
                         sorted(int(p.rsplit("-", 1)[1]) for p in M["transaction_state"]["paths"]))
        self.assertFalse(c["incomplete"])

    def test_summary(self):
        (s,) = jsonl(self.out, "summary")
        self.assertEqual(s["partitions"], len(M["partitions"]))
        self.assertEqual(s["open_transactions"], sum(p["open_transactions"] for p in M["partitions"]))
        self.assertEqual(s["hanging_transactions"], sum(p["hanging_transactions"] for p in M["partitions"]))
        self.assertEqual(s["markers_missing"], sum(r["marker_missing"] for p in M["partitions"] for r in p["open"]))


class Rules(unittest.TestCase):
    """The producer-state rules, one partition at a time (no coordinator view)."""

    def test_fencing_epoch_bumps_and_interleaving(self):
        # orders-0: fenced producer's ABORT with the bumped epoch, a newer-epoch batch
        # with no marker, transaction-version-2 markers: only the hanging and the recent
        # transaction stay open
        want = PARTS["orders"]
        code, out, err = run("txns", "--json", want["path"])
        self.assertEqual(code, 1, err)  # a hanging transaction
        got = open_rows(out, "orders")
        self.assertEqual([(r["producer_id"], r["producer_epoch"], r["first_offset"], r["hanging"]) for r in got],
                         [(w["producer_id"], w["producer_epoch"], w["first_offset"], w["hanging"])
                          for w in want["open"]])
        for r in got:
            for f in COORD_FIELDS:
                self.assertNotIn(f, r)
        p = partition_row(out, "orders")
        self.assertEqual((p["committed_transactions"], p["aborted_transactions"], p["last_stable_offset"]),
                         (want["committed_transactions"], want["aborted_transactions"],
                          want["last_stable_offset"]))
        self.assertEqual(jsonl(out, "problem"), [])

    def test_hanging_ms(self):
        want = PARTS["orders"]
        for ms, n in sorted(want["hanging_by_threshold"].items(), key=lambda kv: int(kv[0])):
            code, out, err = run("txns", "--json", "--hanging-ms", ms, want["path"])
            self.assertEqual(partition_row(out, "orders")["hanging_transactions"], n, ms)
            hanging = [r["producer_id"] for r in open_rows(out, "orders") if r["hanging"]]
            self.assertEqual(hanging, [w["producer_id"] for w in want["open"] if w["idle_ms"] > int(ms)])
            self.assertEqual(code, 1 if n else 0, (ms, err))
        # durations are read too: 1h is 3600000
        rc, out, stderr = run("txns", "--json", "--hanging-ms", "1h", want["path"])
        self.assertEqual(rc, 0, stderr)
        self.assertEqual(partition_row(out, "orders")["hanging_transactions"], want["hanging_by_threshold"]["3600000"])

    def test_clean_partition_exits_0(self):
        want = PARTS["inventory"]
        code, out, err = run("txns", "--json", want["path"])
        self.assertEqual(code, 0, out + err)
        self.assertEqual(len(open_rows(out, "inventory")), want["open_transactions"])
        self.assertEqual(jsonl(out, "problem"), [])

    def test_txnindex_missing_and_extra(self):
        want = PARTS["payments"]
        code, out, err = run("txns", "--json", want["path"])
        self.assertEqual(code, 1, err)
        self.assertEqual(problems(out), want_problems([want]))
        p = partition_row(out, "payments")
        self.assertEqual((p["txnindex_missing"], p["txnindex_extra"]), (1, 1))
        self.assertEqual(p["open_transactions"], 0)

    def test_missing_marker_needs_the_coordinator(self):
        want = PARTS["shipments"]
        code, out, err = run("txns", "--json", want["path"])
        self.assertEqual(code, 0, err)  # the partition alone: open transactions, nothing wrong
        self.assertEqual(problems(out), [])
        ts = M["transaction_state"]["paths"]
        code, out, err = run("txns", "--json", want["path"], *ts)
        self.assertEqual(code, 1, err)
        self.assertEqual(problems(out), want_problems([want]))
        got = open_rows(out, "shipments")
        self.assertEqual([(r["producer_id"], r["transactional_id"], r["coordinator_state"], r["marker_missing"])
                          for r in got],
                         [(w["producer_id"], w["transactional_id"], w["coordinator_state"], w["marker_missing"])
                          for w in want["open"]])

    def test_producer_snapshot_at_the_log_start(self):
        want = PARTS["retained"]
        code, out, err = run("txns", "--json", want["path"])
        self.assertEqual(code, 0, err)
        (r,) = open_rows(out, "retained")
        (w,) = want["open"]
        for f in OPEN_FIELDS:
            self.assertEqual(r[f], w[f], f)
        self.assertEqual(partition_row(out, "retained")["snapshot"], want["snapshot"])

    def test_without_the_snapshot(self):
        want = M["retained_without_snapshot"]
        with tempfile.TemporaryDirectory() as t:
            dst = os.path.join(t, "retained-0")
            shutil.copytree(os.path.join(FIX, want["path"]), dst)
            os.remove(os.path.join(dst, os.path.basename(PARTS["retained"]["snapshot"])))
            code, out, err = run("txns", "--json", dst)
            self.assertEqual(code, 0, err)
            got = open_rows(out, "retained")
            self.assertEqual(len(got), len(want["open"]))
            for r, w in zip(got, want["open"]):
                for f in OPEN_FIELDS:
                    self.assertEqual(r[f], w[f], f)
            p = partition_row(out, "retained")
            self.assertIsNone(p["snapshot"])
            self.assertEqual(p["last_stable_offset"], want["last_stable_offset"])
            self.assertEqual(jsonl(out, "problem"), [])
            code, text, stderr = run("txns", dst)
            self.assertEqual(code, 0, stderr)
            self.assertIn("no producer snapshot", text)


class Damage(unittest.TestCase):
    def test_damaged_marker_is_skipped_and_the_answer_incomplete(self):
        want = M["damaged"]
        code, out, err = run("txns", "--json", want["path"])
        self.assertEqual(code, 1, err)
        (d,) = want["damage"]
        probs = jsonl(out, "problem")
        self.assertIn(("crc_mismatch", d["file"], d["position"], d["offset"]),
                      [(p["code"], p["file"], p["position"], p["offset"]) for p in probs])
        p = partition_row(out, "events")
        self.assertTrue(p["incomplete"])
        for f in PART_FIELDS:
            self.assertEqual(p[f], want[f], f)
        self.assertEqual([(r["producer_id"], r["first_offset"], r["batches"]) for r in open_rows(out, "events")],
                         [(w["producer_id"], w["first_offset"], w["batches"]) for w in want["open"]])
        code, text, stderr = run("txns", want["path"])
        self.assertEqual(code, 1, stderr)
        self.assertIn("may be missing", text)

    def test_every_txnindex_entry_is_checked_in_the_copy_the_marker_came_from(self):
        # two copies of orders-0; the first (which the reader prefers) lost its .txnindex files
        want = PARTS["orders"]
        with tempfile.TemporaryDirectory() as t:
            a = os.path.join(t, "a", "orders-0")
            b = os.path.join(t, "b", "orders-0")
            shutil.copytree(os.path.join(FIX, want["path"]), a)
            shutil.copytree(os.path.join(FIX, want["path"]), b)
            for n in os.listdir(a):
                if n.endswith(".txnindex"):
                    os.remove(os.path.join(a, n))
            code, out, err = run("txns", "--json", a, b)
            self.assertEqual(code, 1, err)
            got = problems(out)
            self.assertEqual(got, sorted(("txnindex_missing", os.path.join(a, os.path.basename(e["file"])),
                                          e["last_offset"]) for e in want["txnindex_entries"]))
            self.assertEqual(partition_row(out, "orders")["open_transactions"], want["open_transactions"])
            # both copies intact: the same answer as one copy, nothing reported twice
            code, out, err = run("txns", "--json", b, os.path.join(FIX, want["path"]))
            self.assertEqual(code, 1, err)
            self.assertEqual(problems(out), [])
            self.assertEqual(len(open_rows(out, "orders")), want["open_transactions"])

    def test_a_garbage_txnindex_is_reported_not_trusted(self):
        want = PARTS["inventory"]
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, "inventory-0")
            shutil.copytree(os.path.join(FIX, want["path"]), d)
            (e,) = want["txnindex_entries"]
            name = os.path.join(d, os.path.basename(e["file"]))
            with open(name, "wb") as f:
                f.write(b"\xff" * 70)  # two entries of version -1 and a partial one
            code, out, err = run("txns", "--json", d)
            self.assertEqual(code, 1, err)
            codes = [p["code"] for p in jsonl(out, "problem")]
            self.assertIn("txnindex_invalid", codes)
            self.assertIn("txnindex_missing", codes)


    def test_damage_in_the_coordinators_log_keeps_every_json_line_whole(self):
        # the problems of a damaged __transaction_state partition come before
        # the coordinator line, not inside it
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, "datadir")
            shutil.copytree(os.path.join(FIX, DATADIR), d)
            state = sorted(n for n in os.listdir(d) if n.startswith("__transaction_state-"))[0]
            seg = os.path.join(d, state, "00000000000000000000.log")
            with open(seg, "r+b") as f:
                f.seek(70)            # inside the first batch's records: its CRC fails
                b = f.read(1)[0]
                f.seek(70)
                f.write(bytes([b ^ 0x10]))
            code, out, err = run("txns", "--json", d)
            self.assertEqual(code, 1, err)
            lines = jsonl(out)        # every line parses
            types = [r["type"] for r in lines]
            self.assertIn("crc_mismatch", [r["code"] for r in lines if r["type"] == "problem"])
            self.assertEqual(types.count("coordinator"), 1)
            self.assertLess(types.index("problem"), types.index("coordinator"))
            self.assertTrue(lines[types.index("coordinator")]["incomplete"])


class Text(unittest.TestCase):
    def test_readable_output_names_the_abort_command(self):
        code, out, err = run("txns", DATADIR)
        self.assertEqual(code, 1)
        hanging = [w for w in PARTS["orders"]["open"] if w["hanging"]]
        self.assertTrue(hanging)
        for w in hanging:
            self.assertIn("abort --topic orders --partition 0 --start-offset %d" % w["first_offset"], out)
        self.assertIn("HANGING", out)
        self.assertIn("orders-0: log end %d, last stable offset %d" % (
            PARTS["orders"]["log_end_offset"], PARTS["orders"]["last_stable_offset"]), out)
        self.assertIn("marker_missing", out)


class Usage(unittest.TestCase):
    def test_usage_errors(self):
        for args in (["txns"], ["txns", "--hanging-ms", "soon", DATADIR], ["txns", "--hanging-ms"],
                     ["txns", "--bogus", DATADIR], ["txns", "--max-batch-bytes", "0", DATADIR]):
            code, _, err = run(*args)
            self.assertEqual(code, 2, args)
            self.assertTrue(err, args)

    def test_help(self):
        code, out, _ = run("txns", "--help")
        self.assertEqual(code, 0)
        self.assertIn("--hanging-ms", out)

    def test_missing_path_exits_3(self):
        code, _, err = run("txns", "--json", "txns/no-such-dir")
        self.assertEqual(code, 3)
        self.assertIn("kfsck: txns/no-such-dir: ", err)

    def test_a_fifo_named_like_a_txnindex_does_not_block(self):
        want = PARTS["inventory"]
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, "inventory-0")
            shutil.copytree(os.path.join(FIX, want["path"]), d)
            (e,) = want["txnindex_entries"]
            name = os.path.join(d, os.path.basename(e["file"]))
            os.remove(name)
            os.mkfifo(name)
            code, out, err = run("txns", "--json", d)  # a blocked open would time out here
            self.assertEqual(code, 3, err)
            self.assertIn("kfsck: %s: cannot read: not a regular file" % name, err)
            self.assertEqual(len(open_rows(out, "inventory")), want["open_transactions"])

    def test_inputs_are_not_modified(self):
        before = tree_digest(os.path.join(FIX, "txns"))
        # a hanging transaction and the .txnindex findings: exit 1
        self.assertEqual(run("txns", "--json", "txns/datadir")[0], 1)
        self.assertEqual(run("txns", "txns/datadir", "txns/damaged")[0], 1)
        self.assertEqual(before, tree_digest(os.path.join(FIX, "txns")))


if __name__ == "__main__":
    unittest.main()
