#!/usr/bin/python3
"""End-to-end tests of repair's and merge's output when the job fails
partway: a full file system (a small tmpfs mounted for the test) or an input
segment that cannot be read. The output appears whole or not at all: the
run exits 3 and OUTDIR holds nothing new (no copy directory, no segment,
no report, no stage directory, not even OUTDIR itself when the run made
it), and an earlier output that --force would replace is left as it was.
Then the files beside the segments that repair and merge read (a producer
snapshot and a .txnindex in pieces, partition.metadata whole): one that exists but
cannot be read is an `unreadable` warning, never silent, and the job goes
on without it (rebuilding what it rebuilds from the kept batches).
Mounting needs root: the full-disk tests are skipped without it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, KFSCK, drop_root, jsonl, read, run as _run, tree_digest  # noqa: E402

PARTITION = os.path.join(FIX, "partition", "orders-0")  # 3 segments, about 160 KiB
FIRST = "00000000000000000000"
SECOND = "00000000000000000398"
REPLICAS = [os.path.join(FIX, "replicas", b, "orders-0") for b in ("broker-1", "broker-2")]
PAYMENTS = os.path.join(FIX, "datadir", "payments-0")     # a .txnindex and a snapshot
RETAINED = os.path.join(FIX, "txns", "datadir", "retained-0")  # log start 100, its snapshot there


def run(*args, timeout=60, **kw):
    """kfsck_e2e.run in this process's directory, 60 s at most unless told."""
    return _run(*args, cwd=None, timeout=timeout, **kw)


def entries(top):
    """Every path under top (directories too, hidden ones too), relative."""
    got = []
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            got.append(os.path.relpath(os.path.join(d, n), top))
    return sorted(got)


class HostileOutputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-out-")
        os.chmod(self.tmp, 0o755)
        self.mounted = None

    def tearDown(self):
        if self.mounted:
            subprocess.run(["umount", self.mounted], check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def small_fs(self, kib):
        """A tmpfs of kib KiB mounted for this test; its path."""
        if os.geteuid() != 0:
            self.skipTest("mounting a small tmpfs needs root")
        m = os.path.join(self.tmp, "small")
        os.mkdir(m)
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", m], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            self.skipTest(f"cannot mount a tmpfs here: {p.stderr.decode().strip()}")
        self.mounted = m
        return m

    def copy(self, src, name=None):
        """A copy of the partition directory src in self.tmp, readable by all."""
        dst = os.path.join(self.tmp, "in", name or os.path.basename(src))
        shutil.copytree(src, dst)
        for d, _, files in os.walk(os.path.join(self.tmp, "in")):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        return dst

    def unprivileged(self):
        return drop_root(self)

    def open_outdir(self):
        """self.tmp/out, made and writable by all (kfsck may run as nobody)."""
        od = os.path.join(self.tmp, "out")
        os.mkdir(od)
        os.chmod(od, 0o777)
        return od

    def assert_failed_cleanly(self, code, err, top, before):
        """Exit 3 with one 'kfsck: ' line, and top holds what it held before."""
        self.assertEqual(code, 3, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertTrue(err.startswith("kfsck: "), err)
        self.assertEqual(entries(top), before)

    # ---- a full disk mid-job ---------------------------------------------------

    def test_full_disk_repair_of_a_partition_leaves_nothing(self):
        small = self.small_fs(100)  # the first segment fits, the second does not
        od = os.path.join(small, "out")
        os.mkdir(od)
        code, out, err = run("repair", "-o", od, PARTITION)
        self.assert_failed_cleanly(code, err, small, ["out"])
        self.assertIn("No space left on device", err)
        # an OUTDIR the run made goes too
        code, out, err = run("repair", "--salvage", "-o", os.path.join(small, "a", "b"), PARTITION)
        self.assert_failed_cleanly(code, err, small, ["out"])

    def test_full_disk_repair_of_a_segment_leaves_nothing(self):
        small = self.small_fs(40)  # less than the segment (58988 bytes)
        od = os.path.join(small, "out")
        os.mkdir(od)
        code, out, err = run("repair", "-o", od, os.path.join(PARTITION, FIRST + ".log"))
        self.assert_failed_cleanly(code, err, small, ["out"])

    def test_full_disk_merge_leaves_nothing(self):
        small = self.small_fs(100)
        od = os.path.join(small, "out")
        os.mkdir(od)
        code, out, err = run("merge", "-o", od, *REPLICAS)
        self.assert_failed_cleanly(code, err, small, ["out"])

    def test_full_disk_force_keeps_the_earlier_output(self):
        small = self.small_fs(120)
        od = os.path.join(small, "out")
        # an earlier output: the repair of the partition's first segment alone
        one = self.copy(PARTITION)
        for name in os.listdir(one):
            if not name.startswith(FIRST) and name != "partition.metadata":
                os.remove(os.path.join(one, name))
        code, out, err = run("repair", "-o", od, one)
        self.assertEqual(code, 0, err)
        before, digest = entries(small), tree_digest(small)
        self.assertIn(os.path.join("out", "orders-0", FIRST + ".log"), before)
        # the whole partition does not fit beside it
        code, out, err = run("repair", "--force", "-o", od, PARTITION)
        self.assert_failed_cleanly(code, err, small, before)
        self.assertEqual(tree_digest(small), digest)

    # ---- an input read failing mid-job ------------------------------------------

    def test_unreadable_segment_mid_repair_leaves_nothing(self):
        prefix = self.unprivileged()
        src = self.copy(PARTITION)
        os.chmod(os.path.join(src, SECOND + ".log"), 0)
        od = self.open_outdir()
        for mode in ((), ("--salvage",)):
            with self.subTest(mode=mode):
                code, out, err = run("repair", *mode, "-o", od, src, prefix=prefix)
                self.assert_failed_cleanly(code, err, od, [])
                self.assertIn(os.path.join(src, SECOND + ".log"), err)

    # ---- the move into place failing ------------------------------------------------

    def test_failed_move_into_place_puts_the_earlier_output_back(self):
        # an earlier segment output whose .log is now a directory: the indexes
        # go in first, then the .log cannot, and everything is put back
        od = os.path.join(self.tmp, "out")
        os.mkdir(od)
        index = os.path.join(od, FIRST + ".index")
        with open(index, "wb") as f:
            f.write(b"earlier")
        os.mkdir(os.path.join(od, FIRST + ".log"))
        before, digest = entries(od), tree_digest(od)
        code, out, err = run("repair", "--force", "-o", od, os.path.join(PARTITION, FIRST + ".log"))
        self.assert_failed_cleanly(code, err, od, before)
        self.assertEqual(tree_digest(od), digest)
        self.assertEqual(read(index), b"earlier")

    # ---- what a successful run leaves ---------------------------------------------

    def test_force_over_an_earlier_copy_keeps_other_files_and_no_stage(self):
        # what --force did before the stage existed, kept: the earlier copy's
        # files that are not Kafka files stay, its stale Kafka files go (this
        # one passes with the binary before the stage too)
        od = os.path.join(self.tmp, "out")
        code, out, err = run("repair", "-o", od, PARTITION)
        self.assertEqual(code, 0, err)
        want = entries(od)
        self.assertEqual([e for e in want if os.path.basename(e).startswith(".")], [])
        copy = os.path.join(od, "orders-0")
        with open(os.path.join(copy, "notes.txt"), "w") as f:
            f.write("mine\n")
        shutil.copy(os.path.join(copy, FIRST + ".log"), os.path.join(copy, "00000000000000009999.log"))
        code, out, err = run("repair", "--force", "--json", "-o", od, PARTITION)
        self.assertEqual(code, 0, err)
        self.assertEqual(jsonl(out, "summary")[0]["stale_files_removed"], 1)
        self.assertEqual(entries(od), sorted(want + [os.path.join("orders-0", "notes.txt")]))
        self.assertEqual(read(os.path.join(copy, "notes.txt")), b"mine\n")

    # ---- files read whole that cannot be read --------------------------------------

    def repair_with_locked(self, name):
        """Repair, as nobody, a copy of PAYMENTS whose file name cannot be
        read: exit 0 with one `unreadable` warning about it. (out, err, its
        path, OUTDIR)."""
        prefix = self.unprivileged()
        src = self.copy(PAYMENTS)
        locked = os.path.join(src, name)
        os.chmod(locked, 0)
        od = self.open_outdir()
        code, out, err = run("repair", "--json", "-o", od, src, prefix=prefix)
        self.assertEqual(code, 0, (out, err))
        self.assertEqual(self.unreadable_problems(out), [(locked, "warning", "cannot read: permission denied")])
        self.assertIn(f"kfsck: {locked}: cannot read: permission denied", err)
        return out, err, locked, od

    def unreadable_problems(self, out):
        return [(p["file"], p["severity"], p["message"]) for p in jsonl(out, "problem") if p["code"] == "unreadable"]

    def test_repair_reports_an_unreadable_snapshot_and_rebuilds_it(self):
        out, err, snap, od = self.repair_with_locked("00000000000000000017.snapshot")
        files = [f for f in jsonl(out, "file") if f["input"] == snap]
        self.assertEqual([f["action"] for f in files], ["rebuilt"], out)
        self.assertTrue(os.path.exists(os.path.join(od, "payments-0", "00000000000000000017.snapshot")))

    def test_repair_reports_an_unreadable_txnindex(self):
        out, err, txn, od = self.repair_with_locked(FIRST + ".txnindex")
        files = [f for f in jsonl(out, "file") if f["input"] == txn]
        self.assertEqual([f["action"] for f in files], ["rebuilt"], out)
        # the rebuilt one is the input's (every aborted transaction's marker is kept)
        self.assertEqual(read(os.path.join(od, "payments-0", FIRST + ".txnindex")),
                         read(os.path.join(PAYMENTS, FIRST + ".txnindex")))

    def test_repair_reads_a_huge_txnindex_in_pieces(self):
        src = self.copy(PAYMENTS)
        txn = os.path.join(src, FIRST + ".txnindex")
        size = (256 << 20) + 34  # sparse: no disk; once past the cap of a whole read
        with open(txn, "wb") as f:
            f.truncate(size)
        od = os.path.join(self.tmp, "out")
        code, out, err = run("repair", "--json", "-o", od, src)
        self.assertEqual(code, 0, (out, err))
        self.assertEqual(self.unreadable_problems(out), [])
        files = [f for f in jsonl(out, "file") if f["input"] == txn]
        self.assertEqual([f["action"] for f in files], ["rebuilt"], out)
        self.assertIn("of the input's %d name a kept marker; the input had malformed entries" % (size // 34),
                      files[0]["reason"])
        self.assertEqual(read(os.path.join(od, "payments-0", FIRST + ".txnindex")),
                         read(os.path.join(PAYMENTS, FIRST + ".txnindex")))

    def test_repair_reports_an_unreadable_partition_metadata(self):
        out, err, md, od = self.repair_with_locked("partition.metadata")
        files = [f for f in jsonl(out, "file") if f["input"] == md]
        self.assertEqual([f["action"] for f in files], ["dropped"], out)

    def test_merge_reports_an_unreadable_snapshot_and_metadata_of_a_copy(self):
        prefix = self.unprivileged()
        a = self.copy(RETAINED, os.path.join("a", "retained-0"))
        b = self.copy(RETAINED, os.path.join("b", "retained-0"))
        snap = os.path.join(a, "00000000000000000100.snapshot")
        md = os.path.join(a, "partition.metadata")
        os.chmod(snap, 0)
        os.chmod(md, 0)
        od = self.open_outdir()
        code, out, err = run("merge", "--json", "-o", od, a, b, prefix=prefix)
        self.assertEqual(code, 0, (out, err))
        self.assertEqual(sorted(self.unreadable_problems(out)),
                         sorted([(snap, "warning", "cannot read: permission denied"),
                                 (md, "warning", "cannot read: permission denied")]))
        # the other copy's take their place
        copied = [f["input"] for f in jsonl(out, "file") if f["action"] in ("copied", "rebuilt") and f["input"]]
        self.assertIn(os.path.join(b, "partition.metadata"), copied)
        self.assertIn(os.path.join(b, "00000000000000000100.snapshot"), copied)
        report = json.loads(read(os.path.join(od, "merge.json")))
        self.assertEqual(report["output"], os.path.join(od, "retained-0"))


class TwoWriters(unittest.TestCase):
    """repair and merge lock OUTDIR (flock(2) on the directory) for the
    whole run: a second run into it is refused, never mixed with the first
    (issue 37 item 6: two repair --force -o SAME at once, default and
    --salvage, left one's repair.json beside the other's segment); and an
    OUTDIR that is a broker's data dir is refused."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-two-writers-")
        self.od = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_a_held_lock_refuses_the_run(self):
        import fcntl
        os.mkdir(self.od)
        fd = os.open(self.od, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            for args in (["repair", "--force"], ["repair", "--salvage", "--force"], ["merge", "--force"]):
                with self.subTest(args=args):
                    inputs = [PARTITION] if args[0] == "repair" else REPLICAS
                    code, out, err = run(*args, "-o", self.od, *inputs)
                    self.assertEqual(code, 3, (out, err))
                    self.assertEqual(err, f"kfsck: {self.od}: another kfsck repair or merge is writing into it\n")
                    self.assertEqual(entries(self.od), [])
        finally:
            os.close(fd)
        code, out, err = run("repair", "--force", "-o", self.od, PARTITION)
        self.assertEqual(code, 0, err)

    def test_two_runs_at_once_never_mix(self):
        """Rounds of a default and a --salvage repair of a damaged
        partition started together into one OUTDIR: each round ends with
        one run's output whole (its report lists the segment there, byte
        for byte), the other refused or run after it."""
        src = os.path.join(FIX, "datadir", "clicks-0")
        for rnd in range(8):
            with self.subTest(round=rnd):
                runs = [subprocess.Popen([KFSCK, "repair", *mode, "--force", "--json", "-o", self.od, src],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                        for mode in ([], ["--salvage"])]
                results = [(p.wait(timeout=120), p.stderr.read().decode()) for p in runs]
                for p in runs:
                    p.stdout.close()
                    p.stderr.close()
                self.assertIn(1, [c for c, _ in results], results)  # data was left out: exit 1
                for code, err in results:
                    self.assertIn(code, (1, 3), err)
                    if code == 3:
                        self.assertIn("another kfsck repair or merge is writing into it", err)
                with open(os.path.join(self.od, "repair.json")) as f:
                    report = json.load(f)
                for seg in report["segments"]:
                    self.assertEqual(os.path.getsize(seg["file"]), seg["size"], report["mode"])

    def test_a_data_dir_is_no_outdir(self):
        dd = os.path.join(self.tmp, "datadir")
        shutil.copytree(os.path.join(FIX, "datadir"), dd)
        before = tree_digest(dd)
        seg = os.path.join(dd, "orders-1", FIRST + ".log")
        code, out, err = run("repair", "--force", "-o", dd, seg)
        self.assertEqual(code, 2, (out, err))
        self.assertEqual(err, f"kfsck repair: the output directory '{dd}' is a broker's data directory (it holds "
                              "meta.properties): a broker would load what kfsck wrote there; choose another -o OUTDIR\n")
        self.assertEqual(tree_digest(dd), before)
        os.unlink(os.path.join(dd, "meta.properties"))
        code, out, err = run("repair", "--force", "-o", dd, seg)
        self.assertEqual(code, 2, (out, err))
        self.assertIn("is a broker's data directory (it holds recovery-point-offset-checkpoint)", err)


if __name__ == "__main__":
    unittest.main()
