#!/usr/bin/python3
"""End-to-end tests of hostile inputs, as an attacker or an unlucky operator
would hand them to kfsck: a FIFO (or other special file) named like a
segment, a symlink loop, a partition directory that cannot be read, a
directory named like a segment, a segment that shrinks or grows while it is
read, and the reader's thread and chunk settings (the answer may not depend
on them). Every case must end quickly with a clear `kfsck: <path>: <what>`
line and the contract's exit code, never hang or crash.
"""
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, LOGS, TempDirTest, jsonl, of_type, run as _run  # noqa: E402

SEGMENT = os.path.join(FIX, "segments", "v2-none", "00000000000000000000.log")


def run(*args, timeout=60, **kw):
    """kfsck_e2e.run in this process's directory, 60 s at most unless told."""
    return _run(*args, cwd=None, timeout=timeout, **kw)


class Hostile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-")
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        for dirpath, dirnames, _ in os.walk(self.tmp):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
        shutil.rmtree(self.tmp)

    def partition_with_fifo(self):
        part = os.path.join(self.tmp, "orders-0")
        os.makedirs(part)
        shutil.copy(SEGMENT, part)
        fifo = os.path.join(part, "00000000000000000100.log")
        os.mkfifo(fifo)
        return part, fifo

    def test_fifo_named_like_a_segment_does_not_block(self):
        part, fifo = self.partition_with_fifo()
        for args in (["verify", fifo], ["dump", fifo], ["verify", part], ["dump", part],
                     ["repair", "-o", os.path.join(self.tmp, "out"), part],
                     ["stats", part]):
            with self.subTest(args=args):
                code, out, err = run(*args, timeout=20)  # a blocked open would hang here
                self.assertEqual(code, 3, (args, out, err))
                self.assertIn(f"kfsck: {fifo}: ", err)
                self.assertIn("not a regular file", err)

    def test_fifo_in_a_data_dir_under_scan(self):
        part, fifo = self.partition_with_fifo()
        code, out, err = run("scan", "--json", self.tmp, timeout=20)
        self.assertEqual(code, 3, (out, err))
        probs = jsonl(out, "problem")
        self.assertIn(("unreadable", fifo), [(p["code"], p["file"]) for p in probs])

    def test_symlink_loop_is_named(self):
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        os.symlink(b, a)
        os.symlink(a, b)
        for cmd in ("verify", "dump", "scan", "offsets"):
            with self.subTest(cmd=cmd):
                code, _, err = run(cmd, a)
                self.assertEqual(code, 3)
                self.assertIn("too many levels of symbolic links", err)
                self.assertNotIn("no such file", err)

    def test_directory_named_like_a_segment_under_dump(self):
        d = os.path.join(self.tmp, "00000000000000000000.log")
        os.makedirs(d)
        code, out, err = run("dump", d)
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertEqual(err.strip(), f"kfsck: {d}: is a directory, not a log file")

    def unprivileged(self):
        """The prefix that runs kfsck as nobody when root (root reads any directory)."""
        if os.geteuid() != 0:
            return ()
        setpriv = shutil.which("setpriv")
        if not setpriv:
            self.skipTest("setpriv is needed to drop root")
        return (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")

    def readable_copy(self, fixture):
        datadir = os.path.join(self.tmp, "data")
        shutil.copytree(os.path.join(FIX, fixture), datadir)
        for dirpath, dirnames, filenames in os.walk(datadir):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o644)
        return datadir

    def test_unreadable_partition_dir(self):
        prefix = self.unprivileged()
        datadir = self.readable_copy("datadir")
        locked = os.path.join(datadir, "orders-1")
        os.chmod(locked, 0)
        code, out, err = run("scan", datadir, prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        line = [l for l in out.splitlines() if l.startswith("orders-1 ")]
        self.assertEqual(len(line), 1, out)
        self.assertIn("cannot be read", line[0])
        self.assertNotIn(" ok", line[0])
        self.assertIn(f"kfsck: {locked}: ", err)
        self.assertIn("permission denied", err)
        code, out, err = run("verify", locked, prefix=prefix)
        self.assertEqual(code, 3)
        self.assertIn("permission denied", err)
        self.assertNotIn("neither a partition directory", err)
        code, out, err = run("offsets", datadir, prefix=prefix)
        self.assertEqual(code, 3)
        self.assertIn(f"kfsck: {locked}: permission denied", err)

    def test_unreadable_metadata_dir_in_a_data_dir(self):
        prefix = self.unprivileged()
        datadir = self.readable_copy(os.path.join("kraft", "node1"))
        locked = os.path.join(datadir, "__cluster_metadata-0")
        os.chmod(locked, 0)
        code, out, err = run("metadata", datadir, prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        self.assertIn(f"kfsck: {locked}: permission denied", err)


class ChangingFiles(unittest.TestCase):
    """A segment that changes while kfsck reads it: a finding, never a crash.
    A large file and a thread truncating it give the race; the outcome is one
    of two (the truncation came before the open, or during the read), both
    checked."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-change-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def big_segment(self, copies):
        with open(SEGMENT, "rb") as f:
            data = f.read()
        path = os.path.join(self.tmp, "00000000000000000000.log")
        # the same batches again and again: offsets regress, which verify
        # reports, but framing and CRCs hold all the way
        with open(path, "wb") as f:
            for _ in range(copies):
                f.write(data)
        return path, len(data) * copies

    def test_shrinking_segment(self):
        for _ in range(3):
            path, size = self.big_segment(4000)
            cut = size // 3

            def shrink():
                time.sleep(0.02)
                os.truncate(path, cut)

            t = threading.Thread(target=shrink)
            t.start()
            code, out, err = run("verify", "--json", path, env={"KFSCK_CHUNK_BYTES": "65536"})
            t.join()
            self.assertIn(code, (0, 1), err)  # never a signal
            seg = jsonl(out, "segment")
            self.assertEqual(len(seg), 1)
            self.assertLessEqual(seg[0]["valid_bytes"], seg[0]["size"])
            # the shrink came before or during the read: nothing past the cut
            # is valid (a read that ended before the shrink reports nothing)
            if "truncated" in [p["code"] for p in jsonl(out, "problem")]:
                self.assertLessEqual(seg[0]["valid_bytes"], cut)

    def test_shrink_is_reported_as_truncated(self):
        # deterministic: the library sees a shorter file than it opened
        # (tests/unit/test_segment.c has the exact case); here the CLI's line
        path, size = self.big_segment(200)
        os.truncate(path, size - 10)
        code, out, err = run("verify", "--json", path)
        self.assertEqual(code, 1, err)
        probs = jsonl(out, "problem")
        self.assertIn("truncated", [p["code"] for p in probs])


class FramingProblemsNameTheOffset(unittest.TestCase):
    """A framing problem (bad_length, truncated) names the batch's offset
    whenever the 8 bytes of its base offset are there (issue 10, item 6)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-framing-")
        with open(SEGMENT, "rb") as f:
            self.seg = f.read()
        # the fixture segment's batches: find the second one's position
        size0 = int.from_bytes(self.seg[8:12], "big") + 12
        self.second = size0
        self.second_offset = int.from_bytes(self.seg[size0:size0 + 8], "big")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def problems(self, data):
        path = os.path.join(self.tmp, "00000000000000000000.log")
        with open(path, "wb") as f:
            f.write(data)
        code, out, _ = run("verify", "--json", path)
        self.assertEqual(code, 1)
        return [p for p in jsonl(out, "problem")]

    def test_size_field_below_the_minimum(self):
        d = bytearray(self.seg)
        d[self.second + 8:self.second + 12] = (5).to_bytes(4, "big")  # size 5 < 14
        p = [x for x in self.problems(bytes(d)) if x["position"] == self.second]
        self.assertEqual(p[0]["code"], "bad_length")
        self.assertEqual(p[0]["offset"], self.second_offset)

    def test_entry_below_the_minimum_for_its_magic(self):
        d = bytearray(self.seg)
        d[self.second + 8:self.second + 12] = (30).to_bytes(4, "big")  # a v2 batch needs 49
        p = [x for x in self.problems(bytes(d)) if x["position"] == self.second]
        self.assertEqual(p[0]["code"], "bad_length")
        self.assertEqual(p[0]["offset"], self.second_offset)

    def test_tail_too_short_for_a_header(self):
        d = self.seg[:self.second] + self.seg[self.second:self.second + 12]  # 12 bytes: no magic
        p = [x for x in self.problems(d) if x["position"] == self.second]
        self.assertEqual(p[0]["code"], "truncated")
        self.assertEqual(p[0]["offset"], self.second_offset)
        # 6 (non-zero) bytes: not even the offset
        d = self.seg[:self.second] + b"\x01" * 6
        p = [x for x in self.problems(d) if x["position"] == self.second]
        self.assertEqual(p[0]["code"], "truncated")
        self.assertIsNone(p[0]["offset"])


class ReaderSettings(unittest.TestCase):
    """The reader's thread count and read size change nothing in the output."""

    def test_same_output_for_any_threads_and_chunks(self):
        # the data dir and every segment of damaged/ and segments/ (those are
        # folders of cases, not partition directories: named file by file)
        logs = [l for l in LOGS if l["path"].startswith(("datadir/", "damaged/", "segments/"))]
        paths = [os.path.join(FIX, "datadir")] + [os.path.join(FIX, l["path"]) for l in logs
                                                  if not l["path"].startswith("datadir/")]
        for cmd in (["verify", "--json"], ["dump", "--json", "--records"]):
            # the baseline, one thread and the default reads: the fixtures'
            # damage found (exit 1), every segment and its batches there
            code, out, err = run(*cmd, *paths, env={"KFSCK_THREADS": "1"})
            self.assertEqual(code, 1, (cmd, err))
            rows = jsonl(out)
            self.assertIn("crc_mismatch", [p["code"] for p in of_type(rows, "problem")], cmd)
            if cmd[0] == "verify":
                self.assertEqual(len(of_type(rows, "segment")), len(logs), cmd)
            else:
                self.assertGreater(len(of_type(rows, "record")), 1000, cmd)
            base = (code, out)
            for env in ({"KFSCK_THREADS": "1", "KFSCK_CHUNK_BYTES": "64"},
                        {"KFSCK_THREADS": "4", "KFSCK_CHUNK_BYTES": "300"}, {"KFSCK_THREADS": "2"}):
                code, out, _ = run(*cmd, *paths, env=env)
                self.assertEqual((code, out), base, (cmd, env))


@unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
class UnwritableOutput(unittest.TestCase):
    """stdout that cannot be written (a full disk: /dev/full) is exit 3 with
    one line `kfsck: <stdout>: cannot write output`, for every command."""

    def test_every_command_with_stdout_full(self):
        fx = lambda *p: os.path.join(FIX, *p)
        tmp = tempfile.mkdtemp(prefix="kfsck-full-")
        self.addCleanup(shutil.rmtree, tmp)
        replicas = [fx("replicas", b, "orders-0") for b in ("broker-1", "broker-2")]
        cases = [
            ["dump", SEGMENT], ["verify", fx("datadir")], ["offsets", fx("offsets", "datadir")],
            ["groups", fx("offsets", "datadir")], ["repair", "-o", "OUT", fx("damaged", "bitflip")],
            ["merge", "-o", "OUT", *replicas], ["scan", fx("datadir")], ["stats", fx("sink", "datadir")],
            ["stats", "--sink-partition-duration", "1h", "--flush-size", "100", fx("sink", "datadir")],
            ["txns", fx("txns", "datadir")], ["metadata", fx("kraft", "node1")], ["dump", "--help"], ["--version"],
        ]
        n = 0
        for case in cases:
            for json_flag in ([], ["--json"]):
                n += 1
                args = [os.path.join(tmp, str(n)) if a == "OUT" else a for a in case + json_flag]
                with open("/dev/full", "wb") as full:
                    code, _, err = run(*args, stdout=full, timeout=120)
                self.assertEqual(code, 3, (args, err))
                self.assertEqual(err.count("kfsck: <stdout>: cannot write output\n"), 1, (args, err))



class RandomBytes(TempDirTest):
    """Random bytes named like every kind of file: exit 0 or 1 and valid JSON, never a crash."""


    def test_random_bytes_never_crash(self):
        rnd = random.Random(1234)
        for i in range(30):
            n = rnd.choice([1, 16, 17, 18, 61, 100, 4096, 65536])
            data = bytes(rnd.getrandbits(8) for _ in range(n))
            p = self.write(f"{i:020d}.log", data)
            code, out, err = run("verify", "--json", p)
            self.assertIn(code, (0, 1), err)
            jsonl(out)  # valid JSON lines
            code, out, err = run("dump", "--json", "--records", p)
            self.assertIn(code, (0, 1), err)

    def test_random_index_and_snapshot_files(self):
        rnd = random.Random(99)
        for name in ("00000000000000000000.index", "00000000000000000000.timeindex",
                     "00000000000000000000.txnindex", "00000000000000000005.snapshot",
                     "leader-epoch-checkpoint", "partition.metadata", "meta.properties"):
            for n in (0, 1, 7, 13, 100, 1000):
                p = self.write(name, bytes(rnd.getrandbits(8) for _ in range(n)))
                for cmd in ("dump", "verify"):
                    code, out, err = run(cmd, "--json", p)
                    self.assertIn(code, (0, 1), f"{cmd} {name} {n}: {err}")
                    jsonl(out)


if __name__ == "__main__":
    unittest.main()
