#!/usr/bin/python3
"""End-to-end tests of memory that stays bounded whatever a file holds
(issue 37 item 1): every kind of file kfsck reads, made far larger than a
broker writes it, through every command that reads it. kfsck reads no file
whole but the three small by nature (partition.metadata, meta.properties,
quorum-state: KF_META_FILE_MAX, 1 MiB, and a larger one is damage), so what
a 48 MiB file adds to a command's peak RSS stays under a few MiB (the old
readers read a .txnindex, a producer snapshot, partition.metadata and
meta.properties whole, up to 256 MiB). And a file's problems are listed up
to KF_PROBLEMS_LISTED_MAX (1000), then counted in one problems_not_listed
problem, in the output and in what scan keeps: a segment of alternately
intact and damaged batches is a few lines and a few MiB, not a line and a
kept problem per batch.

Peak memory is measured as test_hostile_checkpoints measures it: the growth
over the same command on the same data dir without the hostile file.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "gen"))
from kfsck_e2e import FIX, KFSCK, jsonl, of_type, run  # noqa: E402
from test_hostile_checkpoints import PEAK_HELPER, PY  # noqa: E402

GROWTH_BOUND_MIB = 8
BIG = 48 << 20  # sparse: no disk
PART = "datadir/payments-0"
# the file of each kind made BIG (sparse zeros), under the data dir
HOSTILE = {
    "txnindex": PART + "/00000000000000000000.txnindex",
    "snapshot": PART + "/00000000000000000017.snapshot",
    "partition.metadata": PART + "/partition.metadata",
    "meta.properties": "datadir/meta.properties",
    "index": PART + "/00000000000000000000.index",
    "timeindex": PART + "/00000000000000000000.timeindex",
}
COMMANDS = [("scan", "--json", "--jobs", "1", "datadir"), ("verify", "--json", "datadir"),
            ("replicas", "--json", "datadir"), ("txns", "--json", "datadir"), ("stats", "--json", "datadir"),
            ("predict", "--json", "datadir"), ("compaction", "--json", "datadir"), ("offsets", "--json", "datadir"),
            ("groups", "--json", "datadir"), ("metadata", "--json", "datadir"), ("remote", "--json", "datadir"),
            ("repair", "--json", "--force", "-o", "OUT", PART), ("merge", "--json", "--force", "-o", "OUT", PART)]


def peak(cwd, args):
    """(peak RSS in MiB, exit code) of kfsck args run in cwd."""
    p = subprocess.run([PY, "-S", "-c", PEAK_HELPER, KFSCK, *args], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, timeout=600, check=True)
    kib, code = p.stdout.split()
    return int(kib) / 1024, int(code)


class HugeFiles(unittest.TestCase):
    """fixtures/datadir without its damaged partition, and one copy of it per
    file kind with that file BIG bytes of zeros."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-memory-")
        cls.small = os.path.join(cls.tmp, "small")
        shutil.copytree(os.path.join(FIX, "datadir"), os.path.join(cls.small, "datadir"))
        shutil.rmtree(os.path.join(cls.small, "datadir", "clicks-0"))
        cls.big = {}
        for kind, rel in HOSTILE.items():
            top = os.path.join(cls.tmp, kind.replace(".", "_"))
            shutil.copytree(cls.small, top)
            with open(os.path.join(top, rel), "wb") as f:
                f.truncate(BIG)
            cls.big[kind] = top
        cls.base = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def args(self, cmd, top):
        return [os.path.join(top, "out") if a == "OUT" else a for a in cmd]

    def baseline(self, cmd):
        if cmd not in self.base:
            self.base[cmd] = peak(self.small, self.args(cmd, self.small))[0]
        return self.base[cmd]

    def test_every_command_on_every_kind(self):
        for kind, top in self.big.items():
            for cmd in COMMANDS:
                with self.subTest(kind=kind, cmd=cmd[0]):
                    mib, _ = peak(top, self.args(cmd, top))
                    self.assertLess(mib - self.baseline(cmd), GROWTH_BOUND_MIB)

    def test_dump_of_each_kind(self):
        for kind, rel in HOSTILE.items():
            with self.subTest(kind=kind):
                small, _ = peak(self.small, ["dump", "--json", rel])
                mib, _ = peak(self.big[kind], ["dump", "--json", rel])
                self.assertLess(mib - small, GROWTH_BOUND_MIB)

    def test_a_metadata_file_too_large_is_damage(self):
        """The files small by nature are read whole with a cap of 1 MiB: a
        larger one is damage, named with its size (not 'cannot read')."""
        for kind in ("partition.metadata", "meta.properties"):
            with self.subTest(kind=kind):
                code, out, err = run("verify", "--json", HOSTILE[kind], cwd=self.big[kind])
                self.assertEqual(code, 1, (out, err))
                self.assertEqual(err, "")
                probs = of_type(jsonl(out), "problem")
                self.assertEqual([p["code"] for p in probs], ["metadata_invalid"])
                self.assertIn("%d bytes, far more than a %s holds" % (BIG, kind), probs[0]["message"])

    def test_huge_snapshot_checked_in_pieces(self):
        code, out, err = run("verify", "--json", HOSTILE["snapshot"], cwd=self.big["snapshot"])
        self.assertEqual(code, 1, (out, err))
        msgs = [p["message"] for p in of_type(jsonl(out), "problem")]
        self.assertIn("%d bytes after the 0 entries the header announces" % (BIG - 10), msgs)


class HugeQuorumState(unittest.TestCase):
    """fixtures/kraft/node1 with its quorum-state's first line followed by
    BIG bytes of zeros: a node reads the first line alone, so the file is
    sound, and only its first line is read (the old readers read it
    whole)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-quorum-")
        cls.small = os.path.join(cls.tmp, "small")
        cls.big = os.path.join(cls.tmp, "big")
        shutil.copytree(os.path.join(FIX, "kraft", "node1"), os.path.join(cls.small, "node1"))
        shutil.copytree(cls.small, cls.big)
        qs = os.path.join(cls.big, "node1", "__cluster_metadata-0", "quorum-state")
        with open(qs, "rb") as f:
            line = f.read().splitlines()[0]
        with open(qs, "wb") as f:
            f.write(line + b"\n")
            f.truncate(BIG)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_first_line_only(self):
        for cmd in (("verify", "--json", "node1"), ("metadata", "--json", "node1"), ("predict", "--json", "node1"),
                    ("scan", "--json", "node1"), ("dump", "--json", "node1/__cluster_metadata-0/quorum-state")):
            with self.subTest(cmd=cmd[0]):
                small, code_small = peak(self.small, cmd)
                big, code_big = peak(self.big, cmd)
                self.assertEqual(code_big, code_small)
                self.assertLess(big - small, GROWTH_BOUND_MIB)


class ManyProblems(unittest.TestCase):
    """A segment of 3000 one-record batches, every other one with a broken
    CRC (each damaged batch a problem of its own, each a hole of one
    offset)."""

    N = 3000

    @classmethod
    def setUpClass(cls):
        from kafkafmt import Rec, seg_name, v2_batch
        cls.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-problems-")
        os.makedirs(os.path.join(cls.tmp, "datadir", "t-0"))
        data = bytearray()
        for i in range(cls.N):
            b = bytearray(v2_batch(i, [Rec(i, 1700000000000 + i, b"k", b"v")], leader_epoch=0))
            if i % 2 == 0:
                b[-1] ^= 1  # the last value byte: the CRC no longer matches
            data += b
        cls.seg = os.path.join("datadir", "t-0", seg_name(0, "log"))
        with open(os.path.join(cls.tmp, cls.seg), "wb") as f:
            f.write(data)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_capped(self, probs, file, hidden):
        listed = [p for p in probs if p["file"] == file and p["code"] != "problems_not_listed"]
        self.assertEqual(len(listed), 1000)
        summary = [p for p in probs if p["file"] == file and p["code"] == "problems_not_listed"]
        self.assertEqual(len(summary), 1, summary)
        self.assertEqual((summary[0]["errors"], summary[0]["warnings"], summary[0]["severity"]),
                         (hidden, 0, "error"))
        self.assertIn("%d further problems of this file are not listed" % hidden, summary[0]["message"])

    def test_verify_lists_a_thousand_then_counts(self):
        code, out, err = run("verify", "--json", self.seg, cwd=self.tmp)
        self.assertEqual(code, 1, err)
        rows = jsonl(out)
        self.check_capped(of_type(rows, "problem"), self.seg, self.N // 2 - 1000)
        self.assertEqual(of_type(rows, "segment")[0]["errors"], self.N // 2)  # every one counted

    def test_text_lists_a_thousand_then_counts(self):
        code, out, err = run("verify", self.seg, cwd=self.tmp)
        self.assertEqual(code, 1, err)
        self.assertEqual(sum(1 for l in out.splitlines() if "crc_mismatch" in l), 1000)
        self.assertEqual(sum(1 for l in out.splitlines() if "problems_not_listed" in l), 1)

    def test_scan_keeps_a_thousand(self):
        code, out, err = run("scan", "--json", "datadir", cwd=self.tmp)
        self.assertEqual(code, 1, err)
        rows = jsonl(out)
        self.check_capped(of_type(rows, "problem"), self.seg, self.N // 2 - 1000)
        self.assertEqual(of_type(rows, "partition")[0]["errors"], self.N // 2)

    def test_holes_past_a_thousand_are_one(self):
        code, out, err = run("txns", "--json", "datadir/t-0", cwd=self.tmp)
        self.assertEqual(code, 1, err)
        lost = [p for p in of_type(jsonl(out), "problem") if p["code"] == "offsets_lost"]
        self.assertEqual(len(lost), 1000)
        self.assertEqual(lost[-1]["offset"], 1998)
        self.assertIn("offsets 1998..%d are damaged" % (self.N - 2), lost[-1]["message"])
        self.assertIn("%d separate stretches" % (self.N // 2 - 999), lost[-1]["message"])


if __name__ == "__main__":
    unittest.main()
