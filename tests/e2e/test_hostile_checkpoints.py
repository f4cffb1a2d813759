#!/usr/bin/python3
"""End-to-end tests of checkpoint files far bigger than a broker writes
(issue 20): a data dir whose replication-offset-checkpoint has a million
lines, nearly all for partitions the data dir does not hold. `scan` joins it
with the partitions as it reads it, so its memory follows the partitions,
not the file; `verify` reads it in pieces too. The orphan entries are listed
in file order, a hundred per file, then one summary; the entries of the
partitions present (the last one of a duplicated key, as the broker's map
keeps) and the missing-entry warning come out as before.

Peak memory is measured with getrusage(RUSAGE_CHILDREN) in a small helper
process that only forks and execs kfsck (a child of this test process would
start with the test process's own peak), and compared with the same command
on the same data dir with the fixture's small checkpoint: what the big file
adds, whatever the build (sanitizers have a large footprint of their own).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, KFSCK, MANIFEST, PY, jsonl, of_type  # noqa: E402

DATADIR = MANIFEST["datadir"]
ORPHAN_LINES = 1_000_000
LISTED = 100
# What the 19 MB checkpoint may add to the peak: the old scan held every
# entry (about 90 MiB more), the old verify the whole file (about 19 MiB);
# reading in pieces adds a 64 KiB buffer.
RSS_GROWTH_BOUND_MIB = 8

# Forks, execs argv[1:] with stdout to /dev/null, waits, prints the child's
# peak RSS in KiB and its exit code.
PEAK_HELPER = r"""
import os, resource, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status = os.waitpid(pid, 0)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def write_checkpoint(path, lines):
    with open(path, "w") as f:
        f.write("0\n%d\n" % len(lines))
        f.writelines(lines)


def peak_rss(cwd, *args):
    """(peak RSS in MiB, exit code) of kfsck args run in cwd."""
    p = subprocess.run([PY, "-S", "-c", PEAK_HELPER, KFSCK, *args], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600, check=True)
    kib, code = p.stdout.split()
    return int(kib) / 1024, int(code)


def scan(cwd):
    p = subprocess.run([KFSCK, "scan", "--json", "--jobs", "1", "datadir"], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, jsonl(p.stdout.decode())


class HugeCheckpoint(unittest.TestCase):
    """A copy of fixtures/datadir without its damaged partition (clicks-0),
    whose replication-offset-checkpoint holds a million orphan entries with
    the real entries after them, and an early stale entry for orders-1."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-ckpt-")
        cls.dd = os.path.join(cls.tmp, "datadir")
        shutil.copytree(os.path.join(FIX, DATADIR["path"]), cls.dd)
        shutil.rmtree(os.path.join(cls.dd, "clicks-0"))
        cls.small = os.path.join(cls.tmp, "small")  # small/datadir: the same with the fixture's checkpoints
        os.makedirs(cls.small)
        shutil.copytree(cls.dd, os.path.join(cls.small, "datadir"))
        cls.real = {}
        for name in os.listdir(cls.dd):
            if name.endswith("-checkpoint"):
                path = os.path.join(cls.dd, name)
                with open(path) as f:
                    kept = [l for l in f.read().splitlines()[2:] if l.strip() and not l.startswith("clicks ")]
                if name == "replication-offset-checkpoint":
                    cls.real = {(l.split()[0], int(l.split()[1])): int(l.split()[2]) for l in kept}
                    lines = ["orders 1 3\n"]  # stale: a later entry for orders-1 follows
                    lines += ["gone-%d %d %d\n" % (i // 1000, i % 1000, i) for i in range(ORPHAN_LINES)]
                    lines += [l + "\n" for l in kept]
                    write_checkpoint(path, lines)
                else:
                    write_checkpoint(path, [l + "\n" for l in kept])
        cls.code, cls.lines = scan(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def orphans(self):
        return [x for x in of_type(self.lines, "problem") if x["code"] == "checkpoint_orphan_entry"]

    def growth(self, *args):
        """What the big checkpoint adds to the peak RSS of kfsck args, in MiB."""
        big, code = peak_rss(self.tmp, *args)
        self.assertEqual(code, 0)
        small, code = peak_rss(self.small, *args)
        self.assertEqual(code, 0)
        return big - small

    def test_scan_memory_follows_the_partitions(self):
        self.assertLess(self.growth("scan", "--json", "--jobs", "1", "datadir"), RSS_GROWTH_BOUND_MIB)

    def test_verify_memory(self):
        self.assertLess(self.growth("verify", "--json", "datadir"), RSS_GROWTH_BOUND_MIB)

    def test_exit_code_warnings_only(self):
        self.assertEqual(self.code, 0)
        self.assertEqual(of_type(self.lines, "summary")[0]["errors"], 0)

    def test_orphans_listed_then_summed_up(self):
        probs = self.orphans()
        self.assertEqual(len(probs), LISTED + 1)
        for i, p in enumerate(probs[:LISTED]):
            self.assertEqual(p["severity"], "warning")
            self.assertEqual(p["file"], "datadir/replication-offset-checkpoint")
            self.assertEqual(p["offset"], i)  # file order
            self.assertIn("gone-0-%d " % i, p["message"])
        self.assertEqual(probs[LISTED]["offset"], None)
        self.assertIn("%d further entries" % (ORPHAN_LINES - LISTED), probs[LISTED]["message"])
        positions = [p["position"] for p in probs]
        self.assertEqual(positions, sorted(positions))
        self.assertEqual(of_type(self.lines, "summary")[0]["warnings"], LISTED + 1)

    def test_entries_of_present_partitions(self):
        parts = of_type(self.lines, "partition")
        self.assertEqual(len(parts), len(self.real))
        for p in parts:
            self.assertEqual(p["high_watermark"], self.real[(p["topic"], p["partition"])])
            self.assertEqual(p["warnings"], 0)
        self.assertNotIn("checkpoint_missing_entry", [x["code"] for x in of_type(self.lines, "problem")])


class CheckpointJoin(unittest.TestCase):
    """Small checkpoints: orphans among real entries, in file order, and a
    partition in none of the checkpoints."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-ckpt-")
        self.dd = os.path.join(self.tmp, "datadir")
        shutil.copytree(os.path.join(FIX, DATADIR["path"]), self.dd)
        shutil.rmtree(os.path.join(self.dd, "clicks-0"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_orphans_in_file_order_and_a_missing_partition(self):
        for name in os.listdir(self.dd):
            if name.endswith("-offset-checkpoint"):
                path = os.path.join(self.dd, name)
                with open(path) as f:
                    kept = [l + "\n" for l in f.read().splitlines()[2:]
                            if l.strip() and l.split()[0] not in ("clicks", "payments")]
                if name == "recovery-point-offset-checkpoint":
                    kept = ["zeta 1 7\n"] + kept[:1] + ["alpha 0 5\n"] + kept[1:]
                write_checkpoint(path, kept)
        code, lines = scan(self.tmp)
        self.assertEqual(code, 0, lines)
        probs = of_type(lines, "problem")
        orphans = [x for x in probs if x["code"] == "checkpoint_orphan_entry"]
        self.assertEqual([(x["offset"], x["file"]) for x in orphans],
                         [(7, "datadir/recovery-point-offset-checkpoint"),
                          (5, "datadir/recovery-point-offset-checkpoint")])
        self.assertIn("zeta-1", orphans[0]["message"])
        missing = [x for x in probs if x["code"] == "checkpoint_missing_entry"]
        self.assertEqual([x["file"] for x in missing], ["datadir/payments-0"])
        orders = [p for p in of_type(lines, "partition") if p["topic"] == "orders"]
        self.assertTrue(all(p["recovery_point"] is not None for p in orders))


if __name__ == "__main__":
    unittest.main()


class HugeLeaderEpochCheckpoint(unittest.TestCase):
    """A partition of 100 offsets (epochs 0 and 1, encoded by
    tools/gen/kafkafmt.py) whose leader-epoch-checkpoint names its two
    epochs, then a million more starting past its log end. Every command
    that reads the file streams it: what the big file adds to the peak RSS
    stays under RSS_GROWTH_BOUND_MIB (the old readers held it whole and
    every entry: scan hundreds of MiB), and scan names a few of the entries
    past the log end, then sums up the rest."""

    EXTRA = 1_000_000

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "gen"))
        from kafkafmt import Rec, seg_name, v2_batch
        cls.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-epochs-")
        t0 = 1700000000000
        batches = b"".join(v2_batch(i * 10, [Rec(i * 10 + j, t0 + j, b"k", b"v") for j in range(10)],
                                    leader_epoch=0 if i < 5 else 1) for i in range(10))
        for top, extra in (("big", cls.EXTRA), ("small", 0)):
            part = os.path.join(cls.tmp, top, "datadir", "t-0")
            os.makedirs(part)
            with open(os.path.join(part, seg_name(0, "log")), "wb") as f:
                f.write(batches)
            write_checkpoint(os.path.join(part, "leader-epoch-checkpoint"),
                             ["0 0\n", "1 50\n"] + ["%d %d\n" % (2 + i, 200 + i) for i in range(extra)])
        cls.big = os.path.join(cls.tmp, "big")
        cls.small = os.path.join(cls.tmp, "small")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_command_streams_the_file(self):
        out = os.path.join(self.tmp, "out")
        for args in (("scan", "--json", "--jobs", "1", "datadir"), ("replicas", "--json", "datadir"),
                     ("verify", "--json", "datadir/t-0"), ("txns", "--json", "datadir/t-0"),
                     ("stats", "--json", "datadir"), ("predict", "--json", "datadir"),
                     ("repair", "--json", "--force", "-o", out, "datadir/t-0"),
                     ("merge", "--json", "--force", "-o", out, "datadir/t-0"),
                     ("compaction", "--json", "datadir/t-0"),
                     ("dump", "--json", "datadir/t-0/leader-epoch-checkpoint"),
                     ("dump", "datadir/t-0/leader-epoch-checkpoint"), ("offsets", "--json", "datadir"),
                     ("groups", "--json", "datadir"), ("metadata", "--json", "datadir"),
                     ("remote", "--json", "datadir")):
            with self.subTest(args=args[0]):
                big, code_big = peak_rss(self.big, *args)
                small, code_small = peak_rss(self.small, *args)
                self.assertEqual(code_big, code_small)
                self.assertLess(big - small, RSS_GROWTH_BOUND_MIB)

    def test_scan_names_a_few_then_sums_up(self):
        p = subprocess.run([KFSCK, "scan", "--json", "datadir"], cwd=self.big, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = jsonl(p.stdout.decode())
        ahead = [x for x in of_type(rows, "problem") if x["code"] == "leader_epoch_ahead_of_log"]
        self.assertEqual([x["offset"] for x in ahead[:-1]], [200 + i for i in range(len(ahead) - 1)])
        self.assertIn("%d further leader epochs" % (self.EXTRA - len(ahead) + 1), ahead[-1]["message"])
        self.assertIsNone(ahead[-1]["offset"])
        self.assertLessEqual(len(ahead), 10)
        part = of_type(rows, "partition")[0]
        self.assertEqual(part["leader_epochs"], [{"epoch": 0, "start_offset": 0}, {"epoch": 1, "start_offset": 50}])

    def test_repair_cuts_the_checkpoint_at_the_log_end(self):
        out = os.path.join(self.tmp, "cut")
        p = subprocess.run([KFSCK, "repair", "--json", "-o", out, "datadir/t-0"], cwd=self.big,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "t-0", "leader-epoch-checkpoint")) as f:
            self.assertEqual(f.read(), "0\n2\n0 0\n1 50\n")
        files = [x for x in of_type(jsonl(p.stdout.decode()), "file") if x["output"].endswith("leader-epoch-checkpoint")]
        self.assertEqual(files[0]["action"], "truncated")
        self.assertIn("%d entries start at or past" % self.EXTRA, files[0]["reason"])
