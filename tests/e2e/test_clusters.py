#!/usr/bin/python3
"""test_clusters: inputs of different clusters are refused together (issue 33
item 3): every command that takes several PATHs refuses PATHs whose data
dirs' meta.properties name different cluster.ids with one error line naming
both data dirs and both ids, exit 3, and reads nothing; whether they share a
partition or not, given as data dirs, partition dirs or segments, with
meta.properties in KRaft's form (version=1, node.id, directory.id,
cluster.id) or ZooKeeper's (version=0, broker.id, cluster.id). predict is
the one exception, as the contract has it: log dirs of one broker that
disagree stop the broker (a fatal action). The rule is one, in the library
(kf_paths_one_cluster, src/format/paths.c).

The data dirs are copies of committed fixtures (written by tools/gen) whose
meta.properties the test rewrites.
"""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, TempDirTest, jsonl, run  # noqa: E402

OFFSETS = os.path.join(FIX, "offsets", "datadir")
ZK = os.path.join(FIX, "datadir")
KRAFT_FORM = "version=1\nnode.id=%d\ndirectory.id=%s\ncluster.id=%s\n"
ZK_FORM = "version=0\nbroker.id=%d\ncluster.id=%s\n"
ONE, OTHER = "S2FmY2stb2Zmc2V0cyGqAQ", "T3RoZXJDbHVzdGVySWQxMg"
DIR_IDS = ("ZGlyLWEtbWV0YS1wcm9wAA", "ZGlyLWItbWV0YS1wcm9wAA")

# every command that takes several PATHs, with what it needs besides them
COMMANDS = {
    "offsets": [], "groups": [], "dump": [], "verify": [], "scan": [], "stats": [], "txns": [],
    "metadata": [], "compaction": [], "replicas": [],
}


class Clusters(TempDirTest):
    def datadir(self, name, src, form, node, cluster, keep=None):
        """A copy of src named name whose meta.properties is form (KRAFT_FORM or
        ZK_FORM) for node and cluster; keep: only these partition dirs."""
        d = os.path.join(self.tmp, name)
        shutil.copytree(src, d, ignore=None if keep is None else
                        (lambda dirpath, names: [n for n in names if dirpath == src and "-" in n and n not in keep]))
        text = KRAFT_FORM % (node, DIR_IDS[name != "a"], cluster) if form is KRAFT_FORM else ZK_FORM % (node, cluster)
        with open(os.path.join(d, "meta.properties"), "w") as f:
            f.write(text)
        return d

    def refused(self, cmd, *paths, first, second, ids=(ONE, OTHER), extra=()):
        for fmt in ((), ("--json",)):
            with self.subTest(cmd=cmd, fmt=fmt, paths=paths):
                code, out, err = run(cmd, *fmt, *extra, *paths, cwd=self.tmp)
                self.assertEqual(code, 3, err)
                self.assertEqual(out, "")
                self.assertEqual(err, "kfsck: %s: its meta.properties names cluster.id %s, but %s names %s: data "
                                 "dirs of different clusters are never read as copies of one another\n"
                                 % (second, ids[1], first, ids[0]))

    def test_every_command_refuses_data_dirs_of_two_clusters(self):
        a = self.datadir("a", OFFSETS, KRAFT_FORM, 1, ONE)
        b = self.datadir("b", OFFSETS, KRAFT_FORM, 2, OTHER)
        for cmd, extra in COMMANDS.items():
            self.refused(cmd, "a", "b", first="a", second="b", extra=extra)

    def test_no_partition_in_common(self):
        # the two clusters' data dirs hold different partitions: nothing to read
        # as copies, and still one data set: refused
        self.datadir("a", OFFSETS, KRAFT_FORM, 1, ONE, keep={"__consumer_offsets-12", "orders-0"})
        self.datadir("b", OFFSETS, KRAFT_FORM, 2, OTHER, keep={"__consumer_offsets-3", "payments-0"})
        for cmd, extra in COMMANDS.items():
            self.refused(cmd, "a", "b", first="a", second="b", extra=extra)

    def test_partition_dirs_and_segments(self):
        self.datadir("a", OFFSETS, KRAFT_FORM, 1, ONE)
        self.datadir("b", OFFSETS, KRAFT_FORM, 2, OTHER)
        parts = ("a/__consumer_offsets-12", "b/__consumer_offsets-12")
        for cmd in ("offsets", "groups", "dump", "verify", "stats", "txns", "compaction"):
            self.refused(cmd, *parts, first="a", second="b")
        seg = "00000000000000000000.log"
        for cmd in ("offsets", "dump", "verify"):
            self.refused(cmd, *(os.path.join(p, seg) for p in parts), first="a", second="b")
        # merge takes partition dirs only
        code, out, err = run("merge", "-o", "out", *parts, cwd=self.tmp)
        self.assertEqual((code, out), (3, ""))
        self.assertIn("b: its meta.properties names cluster.id %s, but a names %s" % (OTHER, ONE), err)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out")))

    def test_zookeeper_form(self):
        self.datadir("a", ZK, ZK_FORM, 1, "zk-cluster-a")
        self.datadir("b", ZK, ZK_FORM, 2, "zk-cluster-b")
        for cmd in ("offsets", "dump", "verify", "scan", "stats", "replicas"):
            self.refused(cmd, "a", "b", first="a", second="b", ids=("zk-cluster-a", "zk-cluster-b"))

    def test_one_cluster_is_read(self):
        # the same cluster.id, or a data dir that names none: read together
        self.datadir("a", OFFSETS, KRAFT_FORM, 1, ONE)
        self.datadir("b", OFFSETS, KRAFT_FORM, 2, ONE)
        c = os.path.join(self.tmp, "c")
        shutil.copytree(OFFSETS, c)
        os.remove(os.path.join(c, "meta.properties"))
        for cmd in COMMANDS:
            with self.subTest(cmd=cmd):
                code, out, err = run(cmd, "--json", "a", "b", "c", cwd=self.tmp)
                self.assertNotIn("cluster.id", err)
                if cmd != "metadata":  # no KRaft metadata log in these data dirs: nothing to print
                    self.assertIn(code, (0, 1), err)
                    self.assertTrue(out)
        code, out, err = run("offsets", "--json", "a", "b", "c", cwd=self.tmp)
        alone = jsonl(run("offsets", "--json", "a", cwd=self.tmp)[1], "offset")
        self.assertEqual(jsonl(out, "offset"), alone)

    def test_predict_forecasts_a_broker_that_will_not_start(self):
        # log dirs of one broker naming two clusters: the broker stops (a fatal
        # action, exit 1), as the contract has it for predict
        self.datadir("a", OFFSETS, KRAFT_FORM, 1, ONE, keep={"orders-0"})
        self.datadir("b", OFFSETS, KRAFT_FORM, 1, OTHER, keep={"orders-1"})
        code, out, err = run("predict", "--json", "a", "b", cwd=self.tmp)
        self.assertEqual(code, 1, err)
        fatal = [r for r in jsonl(out, "action") if r["action"] == "fatal"]
        self.assertEqual(len(fatal), 1, out)
        self.assertIn("Invalid cluster.id", fatal[0]["reason"])
        self.assertNotIn("cluster.id", err)


if __name__ == "__main__":
    unittest.main()
