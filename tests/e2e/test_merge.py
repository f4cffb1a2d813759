#!/usr/bin/python3
"""End-to-end tests of `kfsck merge`.

fixtures/replicas/broker-{1,2,3}/orders-0 are three copies of one partition,
each damaged in other places, one holding a batch with a raised leader epoch;
broker-4/orders-0 is an older leader that was never truncated: past the start
of a higher epoch it holds its own lower-epoch batches, with other batch
boundaries (tools/gen/gen_fixtures.py gen_replicas; the facts, and what merges
must give as computed by tools/model/merge_model.py from the contract, are in
fixtures/replicas/MANIFEST.json). A merge must take the batches the model
takes (every batch some copy holds intact, except a history the cluster
discarded: the merged log never goes back to a lower leader epoch), report
the conflicts (covering every offset left out) and the holes exactly, and
write a partition that passes `kfsck verify`, with indexes identical to
tools/model/kafka_index.py's and a producer snapshot (and .txnindex files)
identical to tools/model/kafka_producer_state.py's for the merged logs.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, jsonl, manifest, of_type, read, run_model, run as _run  # noqa: E402

REP = os.path.join(FIX, "replicas")
MANIFEST = manifest("replicas")


def run(*args, cwd=REP):
    """kfsck_e2e.run in fixtures/replicas/ unless told."""
    return _run(*args, cwd=cwd)


def strip_type(d):
    return {k: v for k, v in d.items() if k != "type"}


class Merge(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-merge-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def merged_batches(self, pdir):
        out = []
        for n in sorted(os.listdir(pdir)):
            if n.endswith(".log"):
                code, text, err = run("dump", "--json", os.path.join(pdir, n))
                self.assertEqual(code, 0, err)
                out += [(int(n[:20]), b["base_offset"], b["last_offset"], b["crc"], b["leader_epoch"])
                        for b in of_type(jsonl(text), "batch")]
        return out

    def check_indexes(self, pdir):
        ref = os.path.join(self.tmp, "ref")
        for n in os.listdir(pdir):
            if not n.endswith(".log"):
                continue
            code, _, err = run_model("kafka_index.py", os.path.join(pdir, n), ref)
            self.assertEqual(code, 0, err)
            for ext in (".index", ".timeindex"):
                self.assertEqual(read(os.path.join(pdir, n[:20] + ext)), read(os.path.join(ref, n[:20] + ext)),
                                 n[:20] + ext)

    def check_producer_state(self, pdir):
        """The .snapshot and .txnindex files in pdir are exactly the reference builder's."""
        ref = os.path.join(self.tmp, "pref")
        shutil.rmtree(ref, ignore_errors=True)
        code, _, err = run_model("kafka_producer_state.py", pdir, ref)
        self.assertEqual(code, 0, err)
        want = {n: read(os.path.join(ref, n)) for n in os.listdir(ref)}
        got = {n: read(os.path.join(pdir, n)) for n in os.listdir(pdir) if n.endswith((".snapshot", ".txnindex"))}
        self.assertEqual(got, want)
        return want

    def check_left_out_is_reported(self, got, conflicts, batches=None):
        """The merged log never goes back to a lower leader epoch, and every
        offset some copy holds intact is in it or in a conflict line."""
        epochs = [e for _, _, _, _, e in got]
        self.assertEqual(epochs, sorted(epochs))
        have = set()
        for _, first, last, _, _ in got:
            have.update(range(first, last + 1))
        for c in conflicts:
            have.update(range(c["start_offset"], c["end_offset"] + 1))
        for b in batches if batches is not None else MANIFEST["batches"]:
            if any(b["intact"]):
                self.assertTrue(set(range(b["base_offset"], b["last_offset"] + 1)) <= have, b)

    def test_replicas_each_damaged(self):
        # each copy alone is damaged (verify finds errors)
        self.assertTrue(MANIFEST["copies"])
        for c in MANIFEST["copies"]:
            code, out, err = run("verify", c)
            self.assertEqual(code, 1, c)

    def test_merge_recovers_every_intact_batch(self):
        od = os.path.join(self.tmp, "out")
        code, out, err = run("merge", "--json", "-o", od, *MANIFEST["copies"])
        self.assertEqual(code, 1, err)
        lines = jsonl(out)
        conflicts = [strip_type(c) for c in of_type(lines, "conflict")]
        holes = [strip_type(h) for h in of_type(lines, "hole")]
        self.assertEqual([{k: c[k] for k in ("start_offset", "end_offset", "chosen", "leader_epochs")}
                          for c in conflicts], MANIFEST["conflicts"])
        self.assertEqual(holes, MANIFEST["holes"])
        rep = json.loads(read(os.path.join(od, "merge.json")))
        self.assertEqual(rep["conflicts"], conflicts)
        self.assertEqual(rep["holes"], holes)

        pdir = os.path.join(od, MANIFEST["partition"])
        got = self.merged_batches(pdir)
        want = [(b["segment"], b["base_offset"], b["last_offset"], b["crc"], b["leader_epoch"])
                for b in MANIFEST["merged"]]
        self.assertEqual(got, want)
        self.check_left_out_is_reported(got, conflicts)
        # segment boundaries follow the inputs'
        bases = sorted(int(n[:20]) for n in os.listdir(pdir) if n.endswith(".log"))
        self.assertEqual(bases, MANIFEST["segment_bases"])
        code, out, err = run("verify", "--json", pdir)
        errors = [p for p in of_type(jsonl(out), "problem") if p["severity"] == "error"]
        self.assertEqual(errors, [])
        self.assertEqual(code, 0)
        self.check_indexes(pdir)
        self.assertEqual(read(os.path.join(pdir, "partition.metadata")),
                         read(os.path.join(REP, MANIFEST["copies"][0], "partition.metadata")))
        self.assertTrue(os.path.exists(os.path.join(pdir, "leader-epoch-checkpoint")))
        # producer state at the merged log end, reported as rebuilt
        leo = got[-1][2] + 1
        want = self.check_producer_state(pdir)
        self.assertEqual(sorted(want), ["%020d.snapshot" % leo])
        files = [f for f in rep["files"] if f["output"] and f["output"].endswith(".snapshot")]
        self.assertEqual([(f["action"], os.path.basename(f["output"])) for f in files],
                         [("rebuilt", "%020d.snapshot" % leo)])
        self.assertTrue(files[0]["reason"])
        self.assertIn(files[0], [strip_type(f) for f in of_type(lines, "file")])

    def test_copy_order_does_not_matter(self):
        od = os.path.join(self.tmp, "rev")
        code, out, err = run("merge", "--json", "-o", od, *reversed(MANIFEST["copies"]))
        self.assertEqual(code, 1, err)
        conflicts = of_type(jsonl(out), "conflict")
        self.assertEqual([c["chosen"] for c in conflicts], [c["chosen"] for c in MANIFEST["conflicts"]])
        self.assertEqual([c["leader_epochs"] for c in conflicts],
                         [list(reversed(c["leader_epochs"])) for c in MANIFEST["conflicts"]])
        self.assertEqual([strip_type(h) for h in of_type(jsonl(out), "hole")], MANIFEST["holes"])

    def test_two_copies_without_the_epoch_conflict(self):
        # broker-1 and broker-2 agree wherever both are intact: no conflict; without
        # broker-3's epoch 2 their epoch-1 batches are history the cluster kept
        m = MANIFEST["two_copies"]
        self.assertEqual(m["conflicts"], [])
        od = os.path.join(self.tmp, "two")
        code, out, err = run("merge", "--json", "-o", od, *m["copies"])
        self.assertEqual(code, 1, err)
        self.assertEqual(of_type(jsonl(out), "conflict"), [])
        self.assertEqual([strip_type(h) for h in of_type(jsonl(out), "hole")], m["holes"])
        self.assertEqual(self.merged_batches(os.path.join(od, "orders-0")),
                         [(b["segment"], b["base_offset"], b["last_offset"], b["crc"], b["leader_epoch"])
                          for b in m["batches"]])
        code, vout, err = run("verify", os.path.join(od, "orders-0"))
        self.assertEqual(code, 0, vout)

    def test_healthy_copies_merge_clean(self):
        od = os.path.join(self.tmp, "healthy")
        code, out, err = run("merge", "--json", "-o", od, "partition/orders-0", "datadir/orders-0", cwd=FIX)
        self.assertEqual(code, 0, err)
        lines = jsonl(out)
        self.assertEqual(of_type(lines, "conflict") + of_type(lines, "hole"), [])
        for n in os.listdir(os.path.join(FIX, "partition", "orders-0")):
            if n.endswith((".log", ".index", ".timeindex", "leader-epoch-checkpoint", "partition.metadata",
                           ".snapshot")):
                self.assertEqual(read(os.path.join(od, "orders-0", n)),
                                 read(os.path.join(FIX, "partition", "orders-0", n)), n)

    def test_transactions_merged(self):
        # payments-0 (aborted transaction, .txnindex) and a copy with a bit flipped in the
        # ABORT marker's batch: the merge takes it from the healthy copy and writes the
        # input's .txnindex and snapshot again
        src = os.path.join(FIX, "datadir", "payments-0")
        cp = os.path.join(self.tmp, "b2", "payments-0")
        shutil.copytree(src, cp)
        for n in os.listdir(cp):
            if n.endswith((".snapshot", ".txnindex")):
                os.remove(os.path.join(cp, n))
        p = os.path.join(cp, "00000000000000000000.log")
        data = bytearray(read(p))
        txn = read(os.path.join(src, "00000000000000000000.txnindex"))
        marker = int.from_bytes(txn[18:26], "big")
        pos = 0
        while pos < len(data):
            if int.from_bytes(data[pos:pos + 8], "big") == marker:
                break
            pos += 12 + int.from_bytes(data[pos + 8:pos + 12], "big")
        data[pos + 70] ^= 0x01
        with open(p, "wb") as f:
            f.write(data)
        code, out, err = run("dump", "--json", p)
        self.assertEqual(code, 1, err)
        self.assertNotIn(marker, [b["base_offset"] for b in of_type(jsonl(out), "batch") if b.get("crc_ok", True)])
        self.assertEqual(run("verify", cp)[0], 1)
        for order in ((cp, src), (src, cp)):
            with self.subTest(order=order):
                od = os.path.join(self.tmp, "txn-%d" % (order[0] == src))
                code, out, err = run("merge", "--json", "-o", od, *order)
                self.assertEqual(code, 0, err)
                pdir = os.path.join(od, "payments-0")
                self.assertEqual(read(os.path.join(pdir, "00000000000000000000.log")),
                                 read(os.path.join(src, "00000000000000000000.log")))
                want = self.check_producer_state(pdir)
                self.assertEqual(want, {n: read(os.path.join(src, n)) for n in os.listdir(src)
                                        if n.endswith((".snapshot", ".txnindex"))})
                files = of_type(jsonl(out), "file")
                rebuilt = sorted(os.path.basename(f["output"]) for f in files if f["action"] == "rebuilt")
                self.assertEqual(rebuilt, ["00000000000000000000.txnindex", "00000000000000000017.snapshot",
                                           "leader-epoch-checkpoint"])
                dropped = sorted(os.path.basename(f["input"]) for f in files if f["action"] == "dropped")
                self.assertEqual(dropped, ["00000000000000000000.txnindex", "00000000000000000017.snapshot"])

    def test_log_start_past_zero_starts_from_a_snapshot(self):
        # copies without their first segment; one holds the snapshot at the log start
        src = os.path.join(FIX, "partition", "orders-0")
        ref = os.path.join(self.tmp, "seed")
        code, _, err = run_model("kafka_producer_state.py", os.path.join(src, "00000000000000000000.log"), ref)
        self.assertEqual(code, 0, err)
        copies = []
        for k in range(2):
            cp = os.path.join(self.tmp, "ret%d" % k, "orders-0")
            shutil.copytree(src, cp)
            for n in os.listdir(cp):
                if n.startswith("00000000000000000000.") or n.endswith(".snapshot"):
                    os.remove(os.path.join(cp, n))
            copies.append(cp)
        shutil.copy(os.path.join(ref, "00000000000000000398.snapshot"), copies[1])
        od = os.path.join(self.tmp, "ret-out")
        code, out, err = run("merge", "--json", "-o", od, *copies)
        self.assertEqual(code, 0, err)
        self.assertEqual(read(os.path.join(od, "orders-0", "00000000000000001110.snapshot")),
                         read(os.path.join(src, "00000000000000001110.snapshot")))
        snap = [f for f in of_type(jsonl(out), "file") if f["output"] and f["output"].endswith(".snapshot")]
        self.assertEqual(len(snap), 1)
        self.assertEqual(snap[0]["input"], os.path.join(copies[1], "00000000000000000398.snapshot"))

    def test_diverged_copy(self):
        # broker-4 never truncated its epoch-1 history past the start of epoch 3:
        # one conflict over all of it (other batch boundaries than the batches
        # taken), its offsets past the others' end are a hole, epochs never go back
        self.assertTrue(MANIFEST["diverged"])
        for m in MANIFEST["diverged"]:
            with self.subTest(copies=m["copies"]):
                od = os.path.join(self.tmp, "div-%d" % len(m["copies"]))
                code, out, err = run("merge", "--json", "-o", od, *m["copies"])
                self.assertEqual(code, 1, err)
                lines = jsonl(out)
                conflicts = [strip_type(c) for c in of_type(lines, "conflict")]
                self.assertEqual([{k: c[k] for k in ("start_offset", "end_offset", "chosen", "leader_epochs")}
                                  for c in conflicts], m["conflicts"])
                self.assertEqual([strip_type(h) for h in of_type(lines, "hole")], m["holes"])
                rep = json.loads(read(os.path.join(od, "merge.json")))
                self.assertEqual(rep["conflicts"], conflicts)
                pdir = os.path.join(od, MANIFEST["partition"])
                got = self.merged_batches(pdir)
                self.assertEqual(got, [(b["segment"], b["base_offset"], b["last_offset"], b["crc"], b["leader_epoch"])
                                       for b in m["batches"]])
                epochs = [e for _, _, _, _, e in got]
                self.assertEqual(epochs, sorted(epochs))
                self.assertGreater(m["conflicts"][-1]["end_offset"], got[-1][2])  # left out past the log end
                code, vout, err = run("verify", "--json", pdir)
                self.assertEqual(code, 0, err)
                self.assertEqual([p for p in of_type(jsonl(vout), "problem") if p["severity"] == "error"], [])
                self.check_indexes(pdir)
                self.check_producer_state(pdir)

    def test_single_partdir_is_usage_error(self):
        # merging one copy is `repair --salvage`
        od = os.path.join(self.tmp, "one")
        code, out, err = run("merge", "-o", od, MANIFEST["copies"][0])
        self.assertEqual(code, 2, err)
        self.assertIn("repair --salvage", err)
        self.assertFalse(os.path.exists(od))

    def test_output_safety(self):
        c = MANIFEST["copies"]
        self.assertEqual(run("merge", *c)[0], 2)                                   # no -o
        self.assertEqual(run("merge", "-o", os.path.join(self.tmp, "x"))[0], 2)     # no PARTDIR
        self.assertEqual(run("merge", "-o", os.path.join(c[0], "sub"), *c)[0], 2)   # inside an input
        self.assertFalse(os.path.exists(os.path.join(REP, c[0], "sub")))
        self.assertEqual(run("merge", "-o", "broker-1", *c)[0], 2)                  # would write into broker-1/orders-0
        code, out, err = run("merge", "-o", os.path.join(self.tmp, "m"), c[0], "no-such-dir")
        self.assertEqual(code, 3)
        od = os.path.join(self.tmp, "again")
        self.assertEqual(run("merge", "-o", od, *c)[0], 1)
        before = read(os.path.join(od, "orders-0", "00000000000000000000.log"))
        code, out, err = run("merge", "-o", od, *c)
        self.assertEqual(code, 3)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("--force", err)
        self.assertEqual(read(os.path.join(od, "orders-0", "00000000000000000000.log")), before)
        self.assertEqual(run("merge", "--force", "-o", od, *c)[0], 1)
        blocker = os.path.join(self.tmp, "plain")
        with open(blocker, "w") as f:
            f.write("x")
        code, out, err = run("merge", "-o", os.path.join(blocker, "d"), *c)
        self.assertEqual(code, 3)
        self.assertEqual(len(err.strip().splitlines()), 1, err)


if __name__ == "__main__":
    unittest.main()
