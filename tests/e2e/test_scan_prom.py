"""test_scan_prom: `kfsck scan --format prometheus` (src/cli/scan_prom.c).
The output passes `promtool check metrics` (Debian's prometheus package,
installed by `make deps`); every partition gauge equals the field of the
same partition in `scan --json`, and the run gauges its summary; stdout holds
the metrics only (problems go to stderr), the exit code is scan's; label
values are escaped (a data dir whose path holds a quote, a backslash and a
non-UTF-8 byte); --format json is --json; --json with --format prometheus
and an unknown format are usage errors.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, KFSCK, copy_in_cluster, jsonl, run  # noqa: E402

SAMPLE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')
FIELDS = {"kfsck_partition_errors": "errors", "kfsck_partition_warnings": "warnings",
          "kfsck_partition_bytes": "bytes", "kfsck_partition_segments": "segments",
          "kfsck_partition_log_end_offset": "log_end_offset"}


def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def parse(text):
    """{(metric, (datadir, topic, partition) or None): value}, and the
    families in the order of their TYPE lines."""
    samples, families = {}, []
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            families.append(line.split()[2])
            assert line.split()[3] == "gauge", line
            continue
        if line.startswith("# HELP "):
            continue
        m = SAMPLE.match(line)
        assert m, line
        name, labels, value = m.groups()
        assert families and families[-1] == name, f"{name} outside its family: {line}"
        key = None
        if labels:
            lab = {k: unescape(v) for k, v in LABEL.findall(labels)}
            key = (lab["datadir"], lab["topic"], int(lab["partition"]))
        samples[(name, key)] = float(value)
    return samples, families


def promtool(text):
    p = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    return p.returncode, p.stdout.decode()


class ScanPrometheusTest(unittest.TestCase):
    def check_against_json(self, *dirs, cwd=FIX):
        t0 = time.time()
        rc, out, err = run("scan", "--format", "prometheus", "--jobs", "1", *dirs, cwd=cwd)
        jrc, jout, _ = run("scan", "--json", "--jobs", "1", *dirs, cwd=cwd)
        self.assertEqual(rc, jrc)
        code, msg = promtool(out)
        self.assertEqual(code, 0, msg + out)
        samples, families = parse(out)
        self.assertEqual(len(families), len(set(families)), families)
        parts = jsonl(jout, "partition")
        self.assertTrue(parts)
        for p in parts:
            key = (p["datadir"], p["topic"], p["partition"])
            for metric, field in FIELDS.items():
                if p[field] is None:
                    self.assertNotIn((metric, key), samples)
                else:
                    self.assertEqual(samples[(metric, key)], p[field], (metric, key))
        self.assertEqual(sum(1 for (m, _k) in samples if m == "kfsck_partition_errors"), len(parts))
        summary = jsonl(jout, "summary")[0]
        self.assertEqual(samples[("kfsck_scan_errors", None)], summary["errors"])
        self.assertEqual(samples[("kfsck_scan_partitions", None)], summary["partitions"])
        self.assertGreaterEqual(samples[("kfsck_scan_duration_seconds", None)], 0)
        self.assertLess(abs(samples[("kfsck_scan_timestamp_seconds", None)] - t0), 120)
        return rc, out, err, samples

    def test_datadir_with_damage(self):
        rc, out, err, samples = self.check_against_json("datadir")
        self.assertEqual(rc, 1)
        self.assertEqual(samples[("kfsck_partition_errors", ("datadir", "clicks", 0))], 1)
        self.assertEqual(samples[("kfsck_partition_errors", ("datadir", "orders", 0))], 0)
        self.assertNotIn("crc_mismatch", out)
        self.assertIn("ERROR: crc_mismatch at position 14013", err)

    def test_two_datadirs_one_family_each(self):
        # two log dirs of one host (of one cluster: kraft/node1's copy names datadir's)
        d = tempfile.mkdtemp()
        try:
            node = copy_in_cluster(os.path.join(FIX, "kraft", "node1"), os.path.join(d, "node1"),
                                   os.path.join(FIX, "datadir"))
            rc, out, _, samples = self.check_against_json("datadir", node)
        finally:
            shutil.rmtree(d)
        self.assertEqual(rc, 1)
        self.assertEqual(samples[("kfsck_partition_errors", (node, "payments", 0))], 1)

    def test_label_escaping(self):
        d = tempfile.mkdtemp()
        try:
            name = b'odd "dir" \\ \xff'
            top = os.path.join(d.encode(), name)
            os.mkdir(top)
            shutil.copytree(os.fsencode(os.path.join(FIX, "datadir", "orders-1")), os.path.join(top, b"orders-1"))
            # a path that is not UTF-8 cannot go through run()'s str arguments
            p = subprocess.run([KFSCK, "scan", "--format", "prometheus", name], cwd=d, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            out = p.stdout.decode("utf-8")
            # the one escaping rule first (a backslash \\, a bad byte \xff), then the format's
            self.assertIn('datadir="odd \\"dir\\" \\\\\\\\ \\\\xff",topic="orders",partition="1"} 16', out)
            code, msg = promtool(out)
            self.assertEqual(code, 0, msg)
        finally:
            shutil.rmtree(d)

    def test_format_json_is_json(self):
        a = run("scan", "--json", "--jobs", "1", "datadir")
        b = run("scan", "--format", "json", "--jobs", "1", "datadir")
        self.assertEqual(a, b)
        self.assertEqual(a[0], 1)
        self.assertEqual(run("scan", "--format", "text", "datadir"), run("scan", "datadir"))

    def test_usage_errors(self):
        rc, out, err = run("scan", "--json", "--format", "prometheus", "datadir")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("--json cannot go with --format", err)
        rc, out, err = run("scan", "--format", "yaml", "datadir")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("--format is text, json or prometheus, not 'yaml'", err)


if __name__ == "__main__":
    unittest.main()
