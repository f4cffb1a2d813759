#!/usr/bin/python3
"""Verdicts that agree with the exit code (issue 37 item 4).

One rule for a data dir's entry named <topic>-<n> that cannot be read (a
symlink whose target does not exist, a loop of symlinks, a directory that
cannot be listed), kept by the walk (paths.h): every command says it once,
"kfsck: <path>: a symlink to <target>, which does not exist", goes on with
the rest, and exits 3 (a path that cannot be read).

predict forecasts what the broker does with them, as Kafka 4.4 was seen to
do (docs/formats.md §20.3): a dangling or looping partition symlink
is no directory to LogManager.loadLogs, so the partition is not loaded
(state "missing", the verdict names it, exit 1); a partition dir that
cannot be read, a FIFO named like a segment, a recovery-point checkpoint
that cannot be read or whose lines have the wrong number of fields
(IOException) take the log dir offline; a FIFO meta.properties,
recovery-point checkpoint or leader-epoch-checkpoint hangs the broker (it
waits for a writer); num.recovery.threads.per.data.dir=0 is refused as the
broker's validator refuses it. None of them is "loses nothing" with exit 0.
"""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, TempDirTest, drop_root, jsonl, of_type, run  # noqa: E402

COMMANDS = ("scan", "replicas", "dump", "verify", "txns", "compaction", "offsets", "stats", "groups", "remote")


class UnreadablePartitionEntry(TempDirTest):
    """fixtures/datadir (its damaged clicks-0 left out) with one more entry
    named like a partition that cannot be read."""

    def setUp(self):
        super().setUp()
        self.dd = os.path.join(self.tmp, "dd")
        shutil.copytree(os.path.join(FIX, "datadir"), self.dd)
        shutil.rmtree(os.path.join(self.dd, "clicks-0"))
        os.chmod(self.tmp, 0o755)

    def check_one_rule(self, entry, words, prefix=()):
        for cmd in COMMANDS:
            with self.subTest(cmd=cmd):
                code, out, err = run(cmd, self.dd, cwd=None, prefix=prefix)
                self.assertEqual(code, 3, (out, err))
                lines = [l for l in err.splitlines() if entry in l]
                self.assertEqual(lines, ["kfsck: %s: %s" % (entry, words)], err)
                if cmd in ("scan", "verify", "stats", "dump"):  # the rest is still read
                    self.assertIn("orders", out)

    def test_dangling_symlink(self):
        entry = os.path.join(self.dd, "gone-0")
        os.symlink("/nonexistent/kfsck-disk2/gone-0", entry)
        self.check_one_rule(entry, "a symlink to /nonexistent/kfsck-disk2/gone-0, which does not exist")

    def test_symlink_loop(self):
        entry = os.path.join(self.dd, "loop-0")
        os.symlink("loop-0", entry)
        self.check_one_rule(entry, "a symlink to loop-0, in a loop of symlinks (too many levels of symbolic links)")

    def test_directory_that_cannot_be_listed(self):
        prefix = drop_root(self)
        entry = os.path.join(self.dd, "locked-0")
        os.mkdir(entry)
        for d, dirs, files in os.walk(self.dd):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        os.chmod(entry, 0)
        self.check_one_rule(entry, "permission denied", prefix)


class PredictSeesWhatTheBrokerSees(TempDirTest):
    def setUp(self):
        super().setUp()
        self.dd = os.path.join(self.tmp, "dd")
        shutil.copytree(os.path.join(FIX, "datadir"), self.dd)
        shutil.rmtree(os.path.join(self.dd, "clicks-0"))
        for d, dirs, files in os.walk(self.tmp):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)

    def predict(self, *args, prefix=()):
        code, out, err = run("predict", "--json", *args, self.dd, cwd=None, prefix=prefix, timeout=30)
        rows = jsonl(out)
        tcode, text, _ = run("predict", *args, self.dd, cwd=None, prefix=prefix, timeout=30)
        self.assertEqual(tcode, code)
        self.assertNotIn("loses nothing", text)
        return code, rows, text

    def test_dangling_partition_symlink_is_not_loaded(self):
        os.symlink("/nonexistent/kfsck-disk2/gone-0", os.path.join(self.dd, "gone-0"))
        code, rows, text = self.predict()
        self.assertEqual(code, 1, text)
        gone = [p for p in of_type(rows, "partition") if p["topic"] == "gone"][0]
        self.assertEqual(gone["state"], "missing")
        self.assertEqual(gone["missing_why"], "a symlink to /nonexistent/kfsck-disk2/gone-0, which does not exist")
        verdict = text.splitlines()[0]
        self.assertIn("gone-0 (not loaded: a symlink to /nonexistent/kfsck-disk2/gone-0, which does not exist)",
                      verdict)
        self.assertEqual(of_type(rows, "datadir")[0]["fatal"], 0)  # the broker starts

    def test_unreadable_partition_dir_takes_the_log_dir_offline(self):
        prefix = drop_root(self)
        locked = os.path.join(self.dd, "locked-0")
        os.mkdir(locked)
        os.chmod(locked, 0)
        code, rows, text = self.predict(prefix=prefix)
        self.assertEqual(code, 1, text)
        fatal = [a for a in of_type(rows, "action") if a["action"] == "fatal"]
        self.assertEqual(len(fatal), 1, rows)
        self.assertIn("locked-0: permission denied", fatal[0]["reason"])
        self.assertEqual(of_type(rows, "datadir")[0]["fatal"], 1)
        first = text.splitlines()[0]
        self.assertTrue(first.startswith("%s: will NOT load (goes offline" % self.dd), first)
        self.assertFalse(first.endswith(": "), first)

    def fifo(self, rel):
        path = os.path.join(self.dd, rel)
        if os.path.exists(path):
            os.unlink(path)
        os.mkfifo(path)
        return path

    def test_fifos(self):
        for rel, stops in (("meta.properties", True), ("recovery-point-offset-checkpoint", True),
                           ("orders-1/leader-epoch-checkpoint", True),
                           ("orders-1/00000000000000000016.log", False)):
            with self.subTest(rel=rel):
                self.setUp()
                path = self.fifo(rel)
                code, rows, text = self.predict()
                self.assertEqual(code, 1, text)
                d = of_type(rows, "datadir")[0]
                self.assertEqual(d["fatal"], 1, rows)
                fatal = [a for a in of_type(rows, "action") if a["action"] == "fatal"][0]
                self.assertIn(path, fatal["reason"])
                if stops:
                    self.assertIn("is a FIFO: the broker opens it to read it and waits for a writer", fatal["reason"])
                    self.assertIn("will NOT load (the broker stops)", text.splitlines()[0])
                else:
                    self.assertIn("is not a regular file", fatal["reason"])
                    self.assertIn("will NOT load (goes offline", text.splitlines()[0])

    def test_recovery_point_checkpoint_the_broker_cannot_read(self):
        prefix = drop_root(self)
        ck = os.path.join(self.dd, "recovery-point-offset-checkpoint")
        os.chmod(ck, 0)
        code, rows, text = self.predict(prefix=prefix)
        self.assertEqual(code, 1, text)
        fatal = [a for a in of_type(rows, "action") if a["action"] == "fatal"][0]
        self.assertEqual(fatal["reason"], "Error while reading checkpoint file %s (permission denied): the log dir is "
                                          "reported failed and goes offline" % ck)

    def test_malformed_checkpoints(self):
        """CheckpointFile.read throws an IOException for a line with the
        wrong number of fields (the log dir goes offline) and a
        NumberFormatException for a bad number (the entries are reset, the
        broker starts): both seen with Kafka 4.4."""
        ck = os.path.join(self.dd, "log-start-offset-checkpoint")
        for content, offline in (("0\n1\nzz\n", True), ("0\n1\norders x 5\n", False)):
            with self.subTest(content=content):
                with open(ck, "w") as f:
                    f.write(content)
                code, out, err = run("predict", "--json", self.dd, cwd=None)
                rows = jsonl(out)
                fatal = [a for a in of_type(rows, "action") if a["action"] == "fatal"]
                self.assertEqual(len(fatal), 1 if offline else 0, rows)
                self.assertEqual(of_type(rows, "datadir")[0]["fatal"], 1 if offline else 0)

    def test_zero_recovery_threads_refused(self):
        cfg = os.path.join(self.tmp, "server.properties")
        for key, value, least in (("num.recovery.threads.per.data.dir", "0", 1), ("log.index.interval.bytes", "-1", 0)):
            with self.subTest(key=key):
                with open(cfg, "w") as f:
                    f.write("%s=%s\n" % (key, value))
                code, out, err = run("predict", "--config", cfg, self.dd, cwd=None)
                self.assertEqual(code, 3, (out, err))
                self.assertEqual(out, "")
                self.assertEqual(err, "kfsck: %s: Invalid value %s for configuration %s: Value must be at least %d "
                                      "(line 1)\n" % (cfg, value, key, least))


if __name__ == "__main__":
    unittest.main()
