"""test_scan_fields: the fields of scan's "type":"partition" lines that come
from beyond the partition's own files: `broker` and `cluster_id` (the data
dir's meta.properties: node.id, else broker.id; null without one) and
`recovery_end_offset` (where the broker's recovery after an unclean shutdown
would leave the log end: from the segment holding the recovery point to the
end, cut at the first batch recovery truncates at, later segments deleted;
the log start when that end is below the log-start checkpoint; null when a
segment cannot be read), and the gauge kfsck_partition_recovery_end_offset
of `scan --format prometheus`. Damaged copies are made of fixture partitions
in temporary data dirs (the fixtures stay as they are).
"""
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, TempDirTest, jsonl, run  # noqa: E402

GAUGE = "kfsck_partition_recovery_end_offset"


def scan_json(datadir):
    """scan --json of one data dir: exit code, {partition dir name: its line}, problems."""
    rc, out, err = run("scan", "--json", datadir)
    rows = jsonl(out)
    parts = {os.path.basename(r["dir"]): r for r in rows if r["type"] == "partition"}
    return rc, parts, [r for r in rows if r["type"] == "problem"]


def batches(segment):
    """dump --json's batches of a segment: [(position, last_offset)]."""
    rc, out, err = run("dump", "--json", segment)
    assert rc in (0, 1), err
    return [(r["position"], r["last_offset"]) for r in jsonl(out, "batch")]


class MetaPropertiesTest(TempDirTest):
    def test_broker_id_of_a_version_0_data_dir(self):
        rc, parts, _ = scan_json(os.path.join(FIX, "datadir"))
        self.assertEqual(sorted(parts), ["clicks-0", "orders-0", "orders-1", "payments-0"])
        for name, p in parts.items():
            self.assertEqual((p["broker"], p["cluster_id"]), (1, "Nb-ZLcnpxhZhLnaWps7MGw"), name)

    def test_node_id_of_a_kraft_data_dir(self):
        rc, parts, _ = scan_json(os.path.join(FIX, "kraft", "node1"))
        self.assertTrue(parts)
        for name, p in parts.items():
            self.assertEqual((p["broker"], p["cluster_id"]), (1, "S3JhZnRLZnNja0NsdXN0ZQ"), name)

    def test_node_id_is_preferred_and_no_cluster_id_is_null(self):
        dd = os.path.join(self.tmp, "dd")
        shutil.copytree(os.path.join(FIX, "datadir", "payments-0"), os.path.join(dd, "payments-0"))
        self.write("dd/meta.properties", b"version=1\nnode.id=7\nbroker.id=3\ncluster.id=c-1\n")
        self.assertEqual((scan_json(dd)[1]["payments-0"]["broker"], scan_json(dd)[1]["payments-0"]["cluster_id"]),
                         (7, "c-1"))
        self.write("dd/meta.properties", b"version=0\nbroker.id=3\n")
        p = scan_json(dd)[1]["payments-0"]
        self.assertEqual((p["broker"], p["cluster_id"]), (3, None))

    def test_no_meta_properties_is_null(self):
        rc, parts, _ = scan_json(os.path.join(FIX, "replicas", "broker-1"))
        self.assertEqual(list(parts), ["orders-0"])
        self.assertIn("broker", parts["orders-0"])
        self.assertIsNone(parts["orders-0"]["broker"])
        self.assertIsNone(parts["orders-0"]["cluster_id"])


class RecoveryEndTest(TempDirTest):
    def copy(self, name="orders-0"):
        """A data dir of its own holding a copy of fixtures/datadir/<name>; its path."""
        dd = os.path.join(self.tmp, "dd")
        shutil.copytree(os.path.join(FIX, "datadir", name), os.path.join(dd, name))
        return dd

    def checkpoint(self, file, entries):
        self.write(os.path.join("dd", file),
                   ("0\n%d\n" % len(entries) + "".join("%s %d %d\n" % e for e in entries)).encode())

    def damage(self, segment, position):
        """Flips a byte of a batch's records (past its 61-byte header): a CRC mismatch."""
        with open(segment, "r+b") as f:
            f.seek(position + 70)
            b = f.read(1)
            f.seek(position + 70)
            f.write(bytes([b[0] ^ 0xFF]))

    def test_healthy_partitions_end_at_the_log_end(self):
        rc, parts, _ = scan_json(os.path.join(FIX, "datadir"))
        for name in ("orders-0", "orders-1", "payments-0"):
            p = parts[name]
            self.assertEqual(p["errors"], 0, name)
            self.assertIsNotNone(p["log_end_offset"])
            self.assertEqual(p["recovery_end_offset"], p["log_end_offset"], name)

    def test_clicks_0_is_cut_at_its_crc_mismatch(self):
        rc, parts, problems = scan_json(os.path.join(FIX, "datadir"))
        p = parts["clicks-0"]
        crc = [q for q in problems if q["code"] == "crc_mismatch"]
        self.assertEqual([q["offset"] for q in crc], [170])
        below = [last for pos, last in batches(os.path.join(FIX, "datadir", "clicks-0", "00000000000000000000.log"))
                 if pos < crc[0]["position"]]
        self.assertEqual(p["recovery_end_offset"], below[-1] + 1)
        self.assertEqual(p["recovery_end_offset"], 170)
        self.assertEqual(p["log_end_offset"], 348)  # scan's own log end is not the forecast
        rc, out, err = run("scan", os.path.join(FIX, "datadir"))
        self.assertRegex(out, r"clicks-0 .*log end 348 .*recovery would cut to offset 170")
        self.assertNotRegex(out, r"orders-0 .*recovery would cut")

    def test_damage_below_the_recovery_points_segment_is_not_recovered(self):
        dd = self.copy()
        seg0 = os.path.join(dd, "orders-0", "00000000000000000000.log")
        b = batches(seg0)
        self.damage(seg0, b[3][0])
        self.checkpoint("recovery-point-offset-checkpoint", [("orders", 0, 812)])
        p = scan_json(dd)[1]["orders-0"]
        self.assertGreater(p["errors"], 0)
        self.assertEqual((p["recovery_point"], p["log_end_offset"], p["recovery_end_offset"]), (812, 1110, 1110))
        # a recovery point inside the damaged segment (or none: 0) recovers it
        self.checkpoint("recovery-point-offset-checkpoint", [("orders", 0, 100)])
        self.assertEqual(scan_json(dd)[1]["orders-0"]["recovery_end_offset"], b[2][1] + 1)
        os.unlink(os.path.join(dd, "recovery-point-offset-checkpoint"))
        self.assertEqual(scan_json(dd)[1]["orders-0"]["recovery_end_offset"], b[2][1] + 1)

    def test_a_cut_at_a_segments_first_batch_leaves_its_base_offset(self):
        dd = self.copy()
        seg = os.path.join(dd, "orders-0", "00000000000000000398.log")
        self.damage(seg, batches(seg)[0][0])
        self.checkpoint("recovery-point-offset-checkpoint", [("orders", 0, 398)])
        p = scan_json(dd)[1]["orders-0"]
        self.assertEqual((p["log_end_offset"], p["recovery_end_offset"]), (1110, 398))

    def test_an_end_below_the_log_start_checkpoint_starts_there(self):
        dd = self.copy()
        self.checkpoint("log-start-offset-checkpoint", [("orders", 0, 1200)])
        p = scan_json(dd)[1]["orders-0"]
        self.assertEqual((p["log_end_offset"], p["log_start_offset"], p["recovery_end_offset"]), (1110, 1200, 1200))

    def test_a_segment_that_cannot_be_read_leaves_it_unknown(self):
        dd = self.copy("payments-0")
        os.mkdir(os.path.join(dd, "payments-0", "00000000000000000050.log"))
        rc, parts, problems = scan_json(dd)
        self.assertIn("unreadable", [q["code"] for q in problems])
        self.assertIn("recovery_end_offset", parts["payments-0"])
        self.assertIsNone(parts["payments-0"]["recovery_end_offset"])


class PrometheusGaugeTest(TempDirTest):
    def gauges(self, datadir):
        rc, out, err = run("scan", "--format", "prometheus", datadir)
        self.assertIn("# TYPE %s gauge" % GAUGE, out)
        got = {}
        for m in re.finditer(r'^%s\{datadir="[^"]*",topic="([^"]*)",partition="(\d+)"\} (\S+)$' % GAUGE, out, re.M):
            got["%s-%s" % (m.group(1), m.group(2))] = int(m.group(3))
        return out, got

    def test_the_gauge_is_the_json_field(self):
        dd = os.path.join(FIX, "datadir")
        out, got = self.gauges(dd)
        want = {n: p["recovery_end_offset"] for n, p in scan_json(dd)[1].items()}
        self.assertEqual(got, want)
        self.assertEqual(got["clicks-0"], 170)
        if shutil.which("promtool"):
            p = subprocess.run(["promtool", "check", "metrics"], input=out.encode(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout.decode())

    def test_unknown_has_no_sample(self):
        dd = os.path.join(self.tmp, "dd")
        shutil.copytree(os.path.join(FIX, "datadir", "payments-0"), os.path.join(dd, "payments-0"))
        shutil.copytree(os.path.join(FIX, "datadir", "orders-1"), os.path.join(dd, "orders-1"))
        os.mkdir(os.path.join(dd, "payments-0", "00000000000000000050.log"))
        out, got = self.gauges(dd)
        self.assertEqual(got, {"orders-1": 16})
        self.assertIn('kfsck_partition_log_end_offset{datadir="%s",topic="payments",partition="0"} 50' % dd, out)


if __name__ == "__main__":
    unittest.main()
