#!/usr/bin/python3
"""End-to-end tests of `kfsck scan` (health of whole data dirs).

They run the built binary ($KFSCK, default ./kfsck) on the committed fixture
data dirs and compare the partition lines with fixtures/MANIFEST.json and
fixtures/offsets/MANIFEST.json (log end offsets, topic ids, leader epochs, the
data dir's checkpoint files). Checkpoint disagreements are built in temporary
copies of fixtures/datadir.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, MANIFEST, copy_in_cluster, jsonl, manifest, of_type, read, run  # noqa: E402
from kraft_e2e import CASES, KRAFT, problems, run_lossy  # noqa: E402

OFFSETS = manifest("offsets")
DATADIR = MANIFEST["datadir"]
CKPT_FIELDS = {
    "recovery-point-offset-checkpoint": "recovery_point",
    "replication-offset-checkpoint": "high_watermark",
    "log-start-offset-checkpoint": "log_start_offset",
    "cleaner-offset-checkpoint": "cleaner_offset",
}
PARTITION_FIELDS = ["datadir", "topic", "partition", "dir", "topic_id", "segments", "bytes", "first_offset",
                    "log_end_offset", "recovery_point", "high_watermark", "log_start_offset", "cleaner_offset",
                    "leader_epochs", "errors", "warnings"]


def write_checkpoint(path, entries):
    with open(path, "w") as f:
        f.write("0\n%d\n" % len(entries))
        for t, p, o in entries:
            f.write("%s %d %d\n" % (t, p, o))


def read_checkpoint(path):
    lines = read(path).decode().splitlines()
    return [(l.split()[0], int(l.split()[1]), int(l.split()[2])) for l in lines[2:] if l.strip()]


class ScanFixtureDatadir(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.code, out, cls.err = run("scan", "--json", DATADIR["path"])
        cls.lines = jsonl(out)
        cls.parts = of_type(cls.lines, "partition")

    def test_exit_code_damage(self):
        self.assertEqual(self.code, 1, self.err)

    def test_one_line_per_partition_in_order(self):
        names = ["%s-%d" % (p["topic"], p["partition"]) for p in self.parts]
        self.assertEqual(names, sorted(DATADIR["partitions"], key=lambda n: (n.rsplit("-", 1)[0], int(n.rsplit("-", 1)[1]))))
        for p in self.parts:
            for f in PARTITION_FIELDS:
                self.assertIn(f, p)
            self.assertEqual(p["datadir"], DATADIR["path"])
            self.assertEqual(p["dir"], "%s/%s-%d" % (DATADIR["path"], p["topic"], p["partition"]))

    def test_values_match_manifest(self):
        by_path = {m["path"]: m for m in MANIFEST["partitions"]}
        for p in self.parts:
            with self.subTest(dir=p["dir"]):
                m = by_path[p["dir"]]
                self.assertEqual(p["log_end_offset"], m["log_end_offset"])
                self.assertEqual(p["topic_id"], m["topic_id"])
                self.assertEqual(p["leader_epochs"], m["leader_epochs"])
                self.assertEqual(p["segments"], len(m["segments"]))
                self.assertEqual(p["bytes"], sum(os.path.getsize(os.path.join(FIX, s)) for s in m["segments"]))
                self.assertEqual(p["first_offset"], m["log_start_offset"])

    def test_checkpoint_values(self):
        for p in self.parts:
            for name, field in CKPT_FIELDS.items():
                want = [e["offset"] for e in DATADIR["checkpoints"][name]
                        if e["topic"] == p["topic"] and e["partition"] == p["partition"]]
                with self.subTest(dir=p["dir"], field=field):
                    self.assertEqual(p[field], want[0] if want else None)

    def test_expected_problems(self):
        problems = of_type(self.lines, "problem")
        for exp in DATADIR["expected_problems"]:
            with self.subTest(code=exp["code"]):
                hits = [x for x in problems if x["file"] == exp["file"] and x["code"] == exp["code"]
                        and x["position"] == exp["position"] and x["offset"] == exp["offset"]]
                self.assertEqual(len(hits), 1, problems)
                self.assertEqual(hits[0]["severity"], exp["severity"])
        # only clicks-0 is damaged; the checkpoints agree with the logs
        self.assertEqual([x["code"] for x in problems], ["crc_mismatch"])
        clicks = [p for p in self.parts if p["topic"] == "clicks"][0]
        self.assertEqual((clicks["errors"], clicks["warnings"]), (1, 0))

    def test_problem_follows_its_partition(self):
        i = next(k for k, x in enumerate(self.lines) if x["type"] == "problem")
        self.assertEqual(self.lines[i - 1]["type"], "partition")
        self.assertEqual(self.lines[i - 1]["topic"], "clicks")

    def test_summary(self):
        s = of_type(self.lines, "summary")
        self.assertEqual(len(s), 1)
        self.assertEqual(self.lines[-1]["type"], "summary")
        s = s[0]
        self.assertEqual(s["partitions"], len(self.parts))
        self.assertEqual(s["segments"], sum(p["segments"] for p in self.parts))
        self.assertEqual(s["bytes"], sum(p["bytes"] for p in self.parts))
        self.assertEqual(s["errors"], 1)
        self.assertEqual(s["warnings"], 0)

    def test_jobs_do_not_change_output(self):
        runs = [run("scan", "--json", "--jobs", str(j), DATADIR["path"]) for j in (1, 4, 16)]
        self.assertEqual([r[0] for r in runs], [1, 1, 1], runs[0][2])
        outs = [r[1] for r in runs]
        self.assertTrue(jsonl(outs[0], "partition"))
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(outs[0], outs[2])
        t1 = run("scan", "--jobs", "1", DATADIR["path"])
        t4 = run("scan", "-j", "4", DATADIR["path"])
        self.assertEqual(t1, t4)

    def test_text_mode(self):
        code, out, err = run("scan", DATADIR["path"])
        self.assertEqual(code, 1)
        lines = out.splitlines()
        self.assertTrue(any(l.startswith("orders-0 ") and "3 segments" in l and "hw 1110" in l
                            and l.endswith("ok") for l in lines), out)
        # ranges are first..last (as verify prints them); the log end offset is named
        logs = {l["path"]: l for l in MANIFEST["logs"]}
        self.assertTrue(MANIFEST["partitions"])
        for m in MANIFEST["partitions"]:
            if not m["path"].startswith(DATADIR["path"] + "/"):
                continue
            name = os.path.basename(m["path"])
            last = max(b["last_offset"] for s in m["segments"] for b in logs[s]["batches"] if b["crc_ok"])
            with self.subTest(partition=name):
                line = next(l for l in lines if l.startswith(name + " "))
                self.assertIn("offsets %d..%d " % (m["log_start_offset"], last), line)
                self.assertIn("log end %d " % m["log_end_offset"], line)
        self.assertTrue(any(l.startswith("clicks-0 ") and "1 error" in l for l in lines), out)
        self.assertTrue(any("crc_mismatch" in l for l in lines), out)
        self.assertIn("4 partitions", lines[-1])


class ScanOffsetsDatadir(unittest.TestCase):
    def test_offsets_datadir(self):
        code, out, err = run("scan", "--json", "--jobs", "3", OFFSETS["datadir"])
        self.assertEqual(code, 0, err)
        lines = jsonl(out)
        parts = {p["dir"]: p for p in of_type(lines, "partition")}
        want = [m for m in OFFSETS["partitions"] + OFFSETS["topic_partitions"]
                if m["path"].startswith(OFFSETS["datadir"] + "/")]
        self.assertGreater(len(want), 5)
        self.assertEqual(sorted(parts), sorted({m["path"] for m in want}))
        for m in want:
            with self.subTest(dir=m["path"]):
                p = parts[m["path"]]
                self.assertEqual(p["log_end_offset"], m["log_end_offset"])
                self.assertEqual(p["topic_id"], m["topic_id"])
                self.assertEqual((p["topic"], p["partition"]), (m["topic"], m["partition"]))
        order = [(p["topic"], p["partition"]) for p in of_type(lines, "partition")]
        self.assertEqual(order, sorted(order))
        self.assertEqual(of_type(lines, "summary")[0]["partitions"], len(order))
        self.assertEqual(of_type(lines, "summary")[0]["errors"], 0)


class ScanCheckpointChecks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-scan-")
        self.dd = os.path.join(self.tmp, "datadir")
        shutil.copytree(os.path.join(FIX, DATADIR["path"]), self.dd)
        # clicks-0 is damaged on purpose; leave it out so only the checkpoint problems count
        shutil.rmtree(os.path.join(self.dd, "clicks-0"))
        for name in CKPT_FIELDS:
            path = os.path.join(self.dd, name)
            write_checkpoint(path, [e for e in read_checkpoint(path) if e[0] != "clicks"])

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def scan(self, *extra):
        code, out, err = run("scan", "--json", *extra, "datadir", cwd=self.tmp)
        return code, jsonl(out), err

    def test_clean_copy(self):
        code, lines, err = self.scan()
        self.assertEqual(code, 0, (lines, err))
        self.assertEqual(of_type(lines, "problem"), [])

    def test_high_watermark_ahead_of_log(self):
        path = os.path.join(self.dd, "replication-offset-checkpoint")
        write_checkpoint(path, [(t, p, o + 5 if (t, p) == ("orders", 1) else o) for t, p, o in read_checkpoint(path)])
        code, lines, err = self.scan()
        self.assertEqual(code, 1)
        probs = [x for x in of_type(lines, "problem") if x["code"] == "checkpoint_ahead_of_log"]
        self.assertEqual(len(probs), 1, lines)
        self.assertEqual(probs[0]["severity"], "error")
        self.assertEqual(probs[0]["file"], "datadir/replication-offset-checkpoint")
        self.assertEqual(probs[0]["offset"], 21)
        p = [x for x in of_type(lines, "partition") if (x["topic"], x["partition"]) == ("orders", 1)][0]
        self.assertEqual(p["high_watermark"], 21)
        self.assertEqual(p["log_end_offset"], 16)
        self.assertEqual(p["errors"], 1)
        self.assertEqual(of_type(lines, "summary")[0]["errors"], 1)

    def test_recovery_point_and_log_start_ahead(self):
        for name in ("recovery-point-offset-checkpoint", "log-start-offset-checkpoint"):
            path = os.path.join(self.dd, name)
            write_checkpoint(path, [(t, p, 99 if (t, p) == ("payments", 0) else o) for t, p, o in read_checkpoint(path)])
        code, lines, err = self.scan()
        self.assertEqual(code, 1)
        probs = [x for x in of_type(lines, "problem") if x["code"] == "checkpoint_ahead_of_log"]
        self.assertEqual(sorted(x["file"] for x in probs),
                         ["datadir/log-start-offset-checkpoint", "datadir/recovery-point-offset-checkpoint"])

    def test_orphan_entry(self):
        path = os.path.join(self.dd, "recovery-point-offset-checkpoint")
        write_checkpoint(path, read_checkpoint(path) + [("ghost", 3, 42)])
        code, lines, err = self.scan()
        self.assertEqual(code, 0, lines)  # a warning only
        probs = [x for x in of_type(lines, "problem") if x["code"] == "checkpoint_orphan_entry"]
        self.assertEqual(len(probs), 1, lines)
        self.assertEqual(probs[0]["severity"], "warning")
        self.assertEqual(probs[0]["file"], "datadir/recovery-point-offset-checkpoint")
        self.assertEqual(probs[0]["offset"], 42)
        self.assertEqual(of_type(lines, "summary")[0]["warnings"], 1)

    def test_partition_missing_from_checkpoints(self):
        for name in CKPT_FIELDS:
            path = os.path.join(self.dd, name)
            write_checkpoint(path, [e for e in read_checkpoint(path) if e[:2] != ("payments", 0)])
        code, lines, err = self.scan()
        self.assertEqual(code, 0)
        probs = [x for x in of_type(lines, "problem") if x["code"] == "checkpoint_missing_entry"]
        self.assertEqual([x["file"] for x in probs], ["datadir/payments-0"])
        p = [x for x in of_type(lines, "partition") if x["topic"] == "payments"][0]
        self.assertEqual([p[f] for f in CKPT_FIELDS.values()], [None] * 4)
        self.assertEqual(p["warnings"], 1)

    def test_leader_epoch_ahead_of_log(self):
        with open(os.path.join(self.dd, "orders-1", "leader-epoch-checkpoint"), "w") as f:
            f.write("0\n2\n2 0\n5 40\n")
        code, lines, err = self.scan()
        self.assertEqual(code, 0)
        probs = [x for x in of_type(lines, "problem") if x["code"] == "leader_epoch_ahead_of_log"]
        self.assertEqual(len(probs), 1, lines)
        self.assertEqual((probs[0]["severity"], probs[0]["offset"]), ("warning", 40))
        p = [x for x in of_type(lines, "partition") if (x["topic"], x["partition"]) == ("orders", 1)][0]
        # the entry past the log end is named by the warning, not kept (the broker cuts it at load)
        self.assertEqual(p["leader_epochs"], [{"epoch": 2, "start_offset": 0}])

    def test_invalid_checkpoint_file(self):
        with open(os.path.join(self.dd, "replication-offset-checkpoint"), "w") as f:
            f.write("0\n7\norders 0 1110\n")
        code, lines, err = self.scan()
        self.assertEqual(code, 1)
        probs = [x for x in of_type(lines, "problem") if x["code"] == "checkpoint_invalid"]
        self.assertEqual([x["file"] for x in probs], ["datadir/replication-offset-checkpoint"])

    def test_multiple_datadirs_and_trailing_slash(self):
        # two log dirs of one host (of one cluster: the offsets data dir's copy names datadir's)
        other = copy_in_cluster(os.path.join(FIX, OFFSETS["datadir"]), os.path.join(self.tmp, "other"),
                                os.path.join(self.tmp, "datadir"))
        code, out, err = run("scan", "--json", "datadir/", other, cwd=self.tmp)
        lines = jsonl(out)
        self.assertEqual(code, 0, err)
        self.assertEqual(of_type(lines, "partition")[0]["dir"], "datadir/orders-0")
        self.assertEqual(len(of_type(lines, "summary")), 1)


class ScanUsage(unittest.TestCase):
    def test_missing_datadir(self):
        code, out, err = run("scan", "no/such/datadir")
        self.assertEqual(code, 3)
        self.assertIn("no/such/datadir", err)

    def test_partition_dir_is_usage_error(self):
        code, out, err = run("scan", DATADIR["path"] + "/orders-0")
        self.assertEqual(code, 2)
        self.assertIn("verify", err)
        self.assertEqual(out, "")

    def test_bad_jobs(self):
        for bad in ("0", "-1", "x", "3x"):
            with self.subTest(jobs=bad):
                self.assertEqual(run("scan", "--jobs", bad, DATADIR["path"])[0], 2)

    def test_no_args_and_help(self):
        self.assertEqual(run("scan")[0], 2)
        code, out, err = run("scan", "--help")
        self.assertEqual(code, 0)
        self.assertIn("--jobs", out)

    def test_input_not_modified(self):
        before = {}
        for dp, dn, fn in os.walk(os.path.join(FIX, DATADIR["path"])):
            for f in fn:
                p = os.path.join(dp, f)
                before[p] = (os.path.getsize(p), read(p))
        code, _, err = run("scan", DATADIR["path"])
        self.assertEqual(code, 1, err)
        self.assertTrue(before)
        for p, v in before.items():
            self.assertEqual((os.path.getsize(p), read(p)), v)



class ScanKraftNode(unittest.TestCase):
    """A KRaft node's data dir: partitions checked against its metadata log (kraft_e2e.py)."""

    def test_node_partitions_checked_against_the_metadata_log(self):
        """payments-0's partition.metadata names another id than the log
        (topic_id_mismatch, error); ghost-0's id is unknown to the log
        (stray_partition, warning). __cluster_metadata-0 (its reserved id) and
        the partitions that match are not problems."""
        s = KRAFT["scan"]
        code, out, err = run_lossy("scan", "--json", s["path"])
        self.assertEqual(code, 1, err)
        parts = jsonl(out, "partition")
        self.assertEqual(sorted("%s-%d" % (p["topic"], p["partition"]) for p in parts), s["partitions"])
        # the share-group-state and remote-log-metadata partitions each hold a record of
        # an unknown type on purpose: a scan that decodes them may warn about it
        got = [p for p in problems(out) if not (p["code"] == "unknown_record_type" and p["severity"] == "warning"
                                               and ("/__share_group_state-0/" in p["file"]
                                                    or "/__remote_log_metadata-0/" in p["file"]))]
        self.assertEqual(sorted((p["code"], p["severity"]) for p in got),
                         sorted((p["code"], p["severity"]) for p in s["problems"]), got)
        for w in s["problems"]:
            p = next(p for p in got if p["code"] == w["code"])
            self.assertIn("/" + os.path.basename(w["dir"]), p["file"], p)
        summary = jsonl(out, "summary")[0]
        self.assertEqual(summary["errors"], 1)
        self.assertGreaterEqual(summary["warnings"], 1)

    def test_trimmed_and_healthy_have_no_kraft_problem(self):
        for path in (CASES["trimmed"]["path"],):
            code, out, err = run_lossy("scan", "--json", path)
            self.assertEqual(code, 0, err)
            self.assertEqual(problems(out), [])


if __name__ == "__main__":
    unittest.main()
