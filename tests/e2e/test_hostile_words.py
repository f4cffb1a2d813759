#!/usr/bin/python3
"""Silent skips and wrong words (issue 37 item 5): each case said, in words
that fit it. (A .log named by no offset, abc.log, is test_verify's
test_a_log_named_by_no_offset_stops_the_broker.)

Segments are encoded by tools/gen/kafkafmt.py (kafka-python's builder)."""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, KFSCK, ROOT, TempDirTest, jsonl, of_type, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
from kafkafmt import Rec, seg_name, v2_batch  # noqa: E402

T = 1700000000000


def batch(base, n, epoch=0, size=1):
    return v2_batch(base, [Rec(base + i, T + i, b"k", b"v" * size) for i in range(n)], leader_epoch=epoch)


class Words(TempDirTest):
    def test_kraft_snapshot_whose_offset_is_no_long(self):
        """Snapshots.parse reads the first 20 characters with
        Long.parseLong: 99999999999999999999 is past 2^63-1."""
        meta = os.path.join(self.tmp, "node", "__cluster_metadata-0")
        shutil.copytree(os.path.join(FIX, "kraft", "node1", "__cluster_metadata-0"), meta)
        bad = os.path.join(meta, "99999999999999999999-0000000004.checkpoint")
        shutil.copy(os.path.join(meta, "00000000000000000122-0000000003.checkpoint"), bad)
        for cmd in ("verify", "scan"):
            with self.subTest(cmd=cmd):
                code, out, err = run(cmd, "--json", os.path.dirname(meta), cwd=None)
                self.assertEqual(code, 1, (out, err))
                probs = [p for p in of_type(jsonl(out), "problem") if p["file"] == bad]
                self.assertEqual([p["code"] for p in probs], ["file_name_invalid"], out)
                self.assertIn("Snapshots.parse", probs[0]["message"])

    def test_quorum_state_voters_past_those_kept(self):
        qs = self.write("quorum-state", (json.dumps(
            {"clusterId": "", "leaderId": 1, "leaderEpoch": 5, "votedId": -1, "appliedOffset": 0,
             "currentVoters": [{"voterId": i} for i in range(1, 101)], "data_version": 0}) + "\n").encode())
        code, out, err = run("dump", qs, cwd=None)
        self.assertEqual(code, 0, err)
        self.assertIn("59,60,61,62,63,64,... and 36 more (100 in all)]", out)
        code, out, err = run("dump", "--json", qs, cwd=None)
        row = of_type(jsonl(out), "quorum_state")[0]
        self.assertEqual(len(row["current_voters"]), 64)
        self.assertEqual(row["current_voters_not_listed"], 36)

    def test_predict_config_long_line(self):
        cfg = self.write("server.properties", b"log.retention.hours=1\nx=" + b"y" * (1 << 20) + b"\n")
        code, out, err = run("predict", "--config", cfg, os.path.join(FIX, "datadir"), cwd=None)
        self.assertEqual(code, 3, (out, err))
        self.assertEqual(err, "kfsck: %s: line 2: longer than kfsck reads (1 MiB)\n" % cfg)

    def test_predict_config_too_large(self):
        cfg = os.path.join(self.tmp, "server.properties")
        with open(cfg, "wb") as f:
            f.write(b"# " + b"x" * 1000 + b"\n")
            f.truncate(9 << 20)
        code, out, err = run("predict", "--config", cfg, os.path.join(FIX, "datadir"), cwd=None)
        self.assertEqual(code, 3, (out, err))
        self.assertIn("larger than 8 MiB, far more than any server.properties", err)
        self.assertNotIn("256 MiB", err)

    def test_replicas_scan_file_with_a_long_first_line(self):
        scan = self.write("broker1.scan", b'{"type":"partition","x":"' + b"a" * (2 << 20) + b'"}\n')
        code, out, err = run("replicas", scan, cwd=None)
        self.assertEqual(code, 3, (out, err))
        self.assertEqual(err, "kfsck: %s: its first line is longer than 1 MiB, more than any line of "
                              "`kfsck scan --json` output: not read\n" % scan)

    def test_txns_on_one_copy_says_no_copies(self):
        """Batches of epoch 1 past the start of epoch 2 (by the
        leader-epoch-checkpoint) in one copy: a history the cluster
        discarded, no disagreement between copies."""
        part = os.path.join(self.tmp, "t-0")
        os.makedirs(part)
        with open(os.path.join(part, seg_name(0, "log")), "wb") as f:
            f.write(batch(0, 5, 1) + batch(5, 5, 1) + batch(10, 5, 2))
        with open(os.path.join(part, "leader-epoch-checkpoint"), "w") as f:
            f.write("0\n2\n1 0\n2 5\n")
        code, out, err = run("txns", "--json", part, cwd=None)
        probs = [p for p in of_type(jsonl(out), "problem") if p["code"] == "copies_disagree"]
        self.assertEqual(len(probs), 1, out)
        self.assertNotIn("copies hold", probs[0]["message"])
        self.assertIn("the batches of this copy at offsets 5..9 are of a lower leader epoch", probs[0]["message"])

    def test_offsets_retention_minutes_past_an_int(self):
        code, out, err = run("offsets", "--offsets-retention-minutes", "9223372036854775807",
                             os.path.join(FIX, "offsets"), cwd=None)
        self.assertEqual(code, 2)
        self.assertIn("needs a count of minutes from 1 to 2147483647 (offsets.retention.minutes is an int), not "
                      "'9223372036854775807'", err)
        self.assertNotIn("positive count", err)

    def test_meta_properties_with_two_cluster_ids(self):
        mp = self.write("meta.properties", b"version=1\nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\n"
                                           b"cluster.id=BBBBBBBBBBBBBBBBBBBBBB\n")
        code, out, err = run("verify", "--json", mp, cwd=None)
        self.assertEqual(code, 0, (out, err))
        probs = of_type(jsonl(out), "problem")
        self.assertEqual([(p["code"], p["severity"]) for p in probs], [("metadata_invalid", "warning")])
        self.assertIn('cluster.id is set more than once, first to "AAAAAAAAAAAAAAAAAAAAAA", last to '
                      '"BBBBBBBBBBBBBBBBBBBBBB": the broker reads the last', probs[0]["message"])


class ShrinkingSegment(TempDirTest):
    """repair of a segment cut to a quarter while it is read (kfsck stopped
    once the file is open, the file truncated, kfsck resumed): the reads
    come back short of the size it had, and repair says the file shrank
    and writes nothing, rather than a torn tail and a loss."""

    def test_repair_says_the_file_shrank(self):
        part = os.path.join(self.tmp, "t-0")
        os.makedirs(part)
        one = bytearray(batch(0, 100, size=1000))
        seg = os.path.join(part, seg_name(0, "log"))
        with open(seg, "wb") as f:
            for k in range(640):  # 64 MB: the CRC does not cover the base offset
                struct.pack_into(">q", one, 0, k * 100)
                f.write(one)
        size = os.path.getsize(seg)
        out = os.path.join(self.tmp, "out")
        env = dict(os.environ, KFSCK_CHUNK_BYTES="65536", KFSCK_THREADS="1")
        p = subprocess.Popen([KFSCK, "repair", "-o", out, part], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env)
        fds = "/proc/%d/fd" % p.pid
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if any(os.readlink(os.path.join(fds, f)) == seg for f in os.listdir(fds)):
                    break
            except OSError:
                pass
        os.kill(p.pid, signal.SIGSTOP)
        os.truncate(seg, size // 4)
        os.kill(p.pid, signal.SIGCONT)
        o, e = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 3, (o, e))
        self.assertIn("kfsck: %s: the file shrank while it was read (it had %d bytes when opened" % (seg, size),
                      e.decode())
        self.assertFalse(os.path.exists(os.path.join(out, "t-0")))


if __name__ == "__main__":
    unittest.main()
