#!/usr/bin/python3
"""End-to-end tests: a directory given with a trailing slash is the same
directory. `kfsck stats DIR/`, `offsets DIR/`, `txns DIR/` and `metadata DIR/`
print what they print for DIR (the partition's topic comes from the directory
name, the KRaft cluster id from the data dir's meta.properties above it), and
`scan DATADIR/` gives the same partitions as `scan DATADIR` (only the echoed
data dir path differs).
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import jsonl, run  # noqa: E402


class TrailingSlash(unittest.TestCase):
    def assert_same(self, *args, path):
        """kfsck ARGS PATH/ is kfsck ARGS PATH, which ran (exit 0 or 1) and printed something."""
        with self.subTest(args=args, path=path):
            code, out, err = run(*args, path)
            self.assertIn(code, (0, 1), err)
            self.assertTrue(out)
            self.assertEqual(run(*args, path + "/"), (code, out, err))

    def test_stats_names_the_topic(self):
        self.assert_same("stats", path="datadir/orders-0")
        self.assert_same("stats", "--json", path="datadir/orders-0")
        code, out, err = run("stats", "datadir/orders-0/")
        self.assertEqual(code, 0, err)
        self.assertTrue(out.startswith("orders (1 partition"), out)

    def test_offsets_finds_the_consumer_offsets_partition(self):
        self.assert_same("offsets", "--json", path="offsets/datadir/__consumer_offsets-3")
        code, out, err = run("offsets", "--json", "offsets/datadir/__consumer_offsets-3/")
        self.assertEqual(code, 0, err)
        self.assertTrue([x for x in jsonl(out) if x["type"] == "offset"], out)

    def test_txns_names_the_partition(self):
        self.assert_same("txns", path="txns/datadir/orders-0")
        self.assert_same("txns", "--json", path="txns/datadir/orders-0")
        code, out, err = run("txns", "--json", "txns/datadir/orders-0/")
        self.assertEqual(code, 1, err)
        part = [x for x in jsonl(out) if x["type"] == "partition"]
        self.assertEqual([(x["topic"], x["partition"]) for x in part], [("orders", 0)], out)

    def test_metadata_reads_the_data_dirs_meta_properties(self):
        self.assert_same("metadata", "--json", path="kraft/node1/__cluster_metadata-0")
        code, out, err = run("metadata", "--json", "kraft/node1/__cluster_metadata-0/")
        self.assertEqual(code, 0, err)
        cluster = [x for x in jsonl(out) if x["type"] == "cluster"]
        self.assertEqual(len(cluster), 1, out)
        self.assertIsNotNone(cluster[0]["cluster_id"])

    def test_scan_gives_the_same_partitions(self):
        for d in ("datadir", "kraft/node1", "offsets/datadir"):
            with self.subTest(datadir=d):
                a, b = run("scan", "--json", d + "/"), run("scan", "--json", d)
                self.assertIn(b[0], (0, 1), b[2])
                self.assertEqual(a[0], b[0])
                strip = [dict(x, datadir=None) if "datadir" in x else x for x in jsonl(a[1])]
                self.assertEqual(strip, [dict(x, datadir=None) if "datadir" in x else x for x in jsonl(b[1])])
                self.assertTrue([x for x in jsonl(b[1]) if x["type"] == "partition"])


if __name__ == "__main__":
    unittest.main()
