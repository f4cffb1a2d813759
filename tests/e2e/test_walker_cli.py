#!/usr/bin/python3
"""End-to-end tests of the one walk over the PATHs (src/format/paths.c) as
dump, repair and merge use it: merge refuses copies whose data dirs'
meta.properties name different cluster.ids (the rule kf_inputs_collect
applies, now in kf_partition_of_dirs), and the words and exit codes for a
PATH each command cannot use (a FIFO, a missing path, a data dir given to
repair, a file given to merge) are the ones the commands always printed.
"""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, TempDirTest, run  # noqa: E402

REP = os.path.join(FIX, "replicas")
SEG0 = "00000000000000000000.log"
FIFO_WHAT = "not a regular file or directory (a FIFO, socket or device?)"


class TestMergeClusters(TempDirTest):
    def copy(self, broker, cluster_id):
        """A data dir self.tmp/<broker> holding a copy of replicas' orders-0
        and a meta.properties naming cluster_id; the copy's path."""
        dd = os.path.join(self.tmp, broker)
        shutil.copytree(os.path.join(REP, broker, "orders-0"), os.path.join(dd, "orders-0"))
        n = broker.rsplit("-", 1)[1]
        self.write(os.path.join(broker, "meta.properties"),
                   f"version=0\nbroker.id={n}\ncluster.id={cluster_id}\n".encode())
        return os.path.join(dd, "orders-0")

    def test_copies_of_different_clusters_are_refused(self):
        a = self.copy("broker-1", "AAAAAAAAAAAAAAAAAAAAAA")
        b = self.copy("broker-2", "BBBBBBBBBBBBBBBBBBBBBB")
        out = os.path.join(self.tmp, "out")
        rc, so, se = run("merge", "-o", out, a, b)
        self.assertEqual(rc, 3, se)
        self.assertEqual(
            se, f"kfsck: {os.path.dirname(b)}: its meta.properties names cluster.id BBBBBBBBBBBBBBBBBBBBBB, "
            f"but {os.path.dirname(a)} names AAAAAAAAAAAAAAAAAAAAAA: data dirs of different clusters are never "
            "read as copies of one another\n")
        self.assertFalse(os.path.exists(os.path.join(out, "orders-0", SEG0)))
        self.assertFalse(os.path.exists(os.path.join(out, "merge.json")))

    def test_copies_of_one_cluster_are_merged(self):
        # the rule refuses only different cluster.ids: the same one merges
        a = self.copy("broker-1", "AAAAAAAAAAAAAAAAAAAAAA")
        b = self.copy("broker-2", "AAAAAAAAAAAAAAAAAAAAAA")
        out = os.path.join(self.tmp, "out")
        rc, so, se = run("merge", "-o", out, a, b)
        self.assertIn(rc, (0, 1), se)
        self.assertNotIn("cluster.id", se)
        self.assertTrue(os.path.isfile(os.path.join(out, "orders-0", SEG0)))


class TestUnusablePaths(TempDirTest):
    """What each command says of a PATH it cannot use: one line (and the usage
    for a usage error), the exit code of cli.md."""

    def setUp(self):
        super().setUp()
        self.fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(self.fifo)
        self.missing = os.path.join(self.tmp, "missing")
        self.out = os.path.join(self.tmp, "out")
        self.part = os.path.join(REP, "broker-1", "orders-0")

    def first_line(self, *args):
        rc, _, se = run(*args)
        return rc, se.splitlines()[0] if se else ""

    def test_dump(self):
        self.assertEqual(self.first_line("dump", self.fifo), (3, f"kfsck: {self.fifo}: {FIFO_WHAT}"))
        self.assertEqual(self.first_line("dump", self.missing), (3, f"kfsck: {self.missing}: no such file or directory"))
        seg_dir = os.path.join(self.tmp, SEG0)
        os.mkdir(seg_dir)
        self.assertEqual(self.first_line("dump", seg_dir), (3, f"kfsck: {seg_dir}: is a directory, not a log file"))

    def test_repair(self):
        self.assertEqual(self.first_line("repair", "-o", self.out, self.fifo), (3, f"kfsck: {self.fifo}: {FIFO_WHAT}"))
        self.assertEqual(self.first_line("repair", "-o", self.out, self.missing),
                         (3, f"kfsck: {self.missing}: no such file or directory"))
        dd = os.path.join(REP, "broker-1")
        self.assertEqual(self.first_line("repair", "-o", self.out, dd),
                         (2, f"kfsck repair: a broker data directory: give one partition directory, not '{dd}'"))
        other = os.path.join(self.tmp, "empty")
        os.mkdir(other)
        self.assertEqual(self.first_line("repair", "-o", self.out, other),
                         (2, f"kfsck repair: not a segment (.log) or a partition directory: '{other}'"))
        manifest = os.path.join(REP, "MANIFEST.json")
        self.assertEqual(self.first_line("repair", "-o", self.out, manifest),
                         (2, f"kfsck repair: not a segment (.log) or a partition directory: '{manifest}'"))
        self.assertFalse(os.path.exists(self.out))

    def test_merge(self):
        seg = os.path.join(REP, "broker-2", "orders-0", SEG0)
        self.assertEqual(self.first_line("merge", "-o", self.out, self.part, seg),
                         (2, f"kfsck merge: not a partition directory: '{seg}'"))
        self.assertEqual(self.first_line("merge", "-o", self.out, self.part, self.fifo),
                         (2, f"kfsck merge: not a partition directory: '{self.fifo}'"))
        dd = os.path.join(REP, "broker-2")
        self.assertEqual(self.first_line("merge", "-o", self.out, self.part, dd),
                         (2, f"kfsck merge: not a partition directory: '{dd}'"))
        self.assertEqual(self.first_line("merge", "-o", self.out, self.part, self.missing),
                         (3, f"kfsck: {self.missing}: no such file or directory"))
        self.assertFalse(os.path.exists(self.out))

class TestFilePathsAsSegments(TempDirTest):
    """A file PATH given to the commands that read partitions (stats, txns,
    compaction, offsets) is read as a segment when its name says .log or
    its first bytes frame as a batch (a captured batch under any name);
    an index, a checkpoint or a note beside the data is skipped with one
    line, not read as a damaged segment."""

    def test_non_segment_files_are_skipped(self):
        idx = os.path.join(FIX, "datadir", "orders-0", "00000000000000000000.index")
        note = self.write("NOTES.txt", b"copied from broker 3 after the disk failure\n")
        for cmd in ("stats", "txns", "compaction"):
            with self.subTest(cmd=cmd):
                rc, out, err = run(cmd, "--json", idx, note)
                self.assertEqual(rc, 0, err)
                self.assertIn(f"kfsck: {idx}: not a segment (.log) file; skipped\n", err)
                self.assertIn(f"kfsck: {note}: not a Kafka file kfsck knows (by its name); skipped\n", err)
                self.assertNotIn('"type":"problem"', out.replace(" ", ""))

    def test_a_renamed_segment_is_still_read(self):
        seg = os.path.join(FIX, "datadir", "orders-0", SEG0)
        copy = os.path.join(self.tmp, "captured.bin")
        shutil.copyfile(seg, copy)
        rc, out, err = run("stats", "--json", copy)
        want = run("stats", "--json", seg)
        self.assertEqual(rc, want[0], err)
        self.assertNotIn("skipped", err)
        # the same buckets; only the topic, which the copy's name does not give, differs
        self.assertEqual(out.replace(copy, "X"), want[1].replace(seg, "X").replace('"topic":"orders"', '"topic":null'))

if __name__ == "__main__":
    unittest.main()
