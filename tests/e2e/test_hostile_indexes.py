#!/usr/bin/python3
"""End-to-end tests of a segment's .index and .timeindex when they are
hostile: larger than the 256 MiB kfsck reads whole (sparse files of 4 GiB
and more, which cost no disk), or not readable by the user running kfsck.
A large index is read in pieces and judged as the broker judges it
(docs/formats.md §5.3, §5.5); one that cannot be read is an `unreadable`
problem with exit 3, in a partition as when it is named alone, and the
partition is never "ok". Each case is run by verify and by scan. Then the
messages around such failures: the closing summary of verify and scan after
paths that could not be checked, the read cap named, and a snappy header
that claims 4 GiB.
"""
import json
import os
import shutil
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, drop_root, jsonl, run as _run  # noqa: E402

PARTITION = os.path.join(FIX, "partition", "orders-0")
FIRST = "00000000000000000000"
SECOND = "00000000000000000398"
BIG = 2**32  # past the whole-file read cap (256 MiB) and past 32-bit sizes

def run(*args, timeout=60, **kw):
    """kfsck_e2e.run in this process's directory, 60 s at most unless told."""
    return _run(*args, cwd=None, timeout=timeout, **kw)

def problems(out):
    return jsonl(out, "problem")

class HostileIndexes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kfsck-hostile-ix-")
        os.chmod(self.tmp, 0o755)
        # a data dir holding a copy of the fixture partition, readable by all
        self.datadir = os.path.join(self.tmp, "data")
        self.part = os.path.join(self.datadir, "orders-0")
        shutil.copytree(PARTITION, self.part)
        for dirpath, _, filenames in os.walk(self.datadir):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o644)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def file(self, base, ext):
        return os.path.join(self.part, base + ext)

    def sparse(self, path, size, tail=b""):
        """path becomes a sparse file of size bytes, all zeros but tail at its end."""
        with open(path, "wb") as f:
            f.truncate(size)
            if tail:
                f.seek(size - len(tail))
                f.write(tail)

    def unprivileged(self):
        return drop_root(self)

    def scan_line(self, out):
        rows = [l for l in out.splitlines() if l.startswith("orders-0 ")]
        self.assertEqual(len(rows), 1, out)
        return rows[0]

    # ---- larger than kfsck reads whole ----------------------------------------

    def test_huge_timeindex_in_a_partition_is_read_and_judged(self):
        # the fixture's entries, then a zero tail to 2^32+4 bytes: not a
        # multiple of 12, which the broker's sanity check calls corrupt
        ti = self.file(FIRST, ".timeindex")
        with open(ti, "r+b") as f:
            f.truncate(BIG + 4)
        code, out, err = run("verify", "--json", self.part)
        self.assertEqual(code, 1, (out, err))
        got = [(p["file"], p["code"], p["position"], p["message"]) for p in problems(out)]
        self.assertEqual(got, [(ti, "index_corrupt", BIG - 4,
                                f"time index file is corrupt, found {BIG + 4} bytes which is not a multiple of 12")])
        code, out, err = run("verify", self.part)
        self.assertEqual(code, 1, (out, err))
        self.assertEqual(out.splitlines()[-1], "1 error, 0 warnings")
        self.assertNotIn("larger than kfsck reads whole", err)
        code, out, err = run("verify", ti)
        self.assertEqual(code, 1, (out, err))
        self.assertIn(f"{BIG + 4} bytes which is not a multiple of 12", out)
        code, out, err = run("scan", self.datadir)
        self.assertEqual(code, 1, (out, err))
        line = self.scan_line(out)
        self.assertIn("1 error", line)
        self.assertNotIn(" ok", line)

    def test_huge_index_is_read_to_its_end(self):
        # an all-zero sparse .index but for its last slot, 4 GiB in: the
        # entries end at slot 0, so that slot is garbage past the zero tail
        ix = self.file(SECOND, ".index")
        self.sparse(ix, BIG + 8, tail=b"\x00\x00\x00\x07\x00\x00\x00\x40")
        code, out, err = run("verify", "--json", self.part)
        self.assertEqual(code, 1, (out, err))
        got = [(p["file"], p["code"], p["position"]) for p in problems(out)]
        self.assertEqual(got, [(ix, "index_corrupt", BIG)])
        self.assertIn(f"slot {BIG // 8} is not zero although the entries end at slot 0", problems(out)[0]["message"])
        code, out, err = run("verify", "--json", ix)
        self.assertEqual(code, 1, (out, err))
        self.assertEqual([(p["code"], p["position"]) for p in problems(out)], [("index_corrupt", BIG)])

    def test_huge_zero_index_named_alone_is_an_empty_index(self):
        # all zeros, a multiple of 8: no entries, nothing the broker minds
        ix = self.file(SECOND, ".index")
        self.sparse(ix, BIG + 8)
        code, out, err = run("verify", ix)
        self.assertEqual((code, err), (0, ""), out)
        self.assertEqual(out.splitlines()[-1], "0 errors, 0 warnings")

    # ---- not readable by the user -------------------------------------------------

    def test_unreadable_indexes_in_a_partition(self):
        prefix = self.unprivileged()
        locked = [self.file(SECOND, ".index"), self.file(SECOND, ".timeindex")]
        for p in locked:
            os.chmod(p, 0)
        # a missing index is not one that cannot be read: no problem for it
        os.remove(self.file(FIRST, ".index"))
        code, out, err = run("verify", "--json", self.part, prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        got = [(p["file"], p["code"], p["severity"], p["message"]) for p in problems(out)]
        self.assertEqual(got, [(p, "unreadable", "error", "cannot read: permission denied") for p in locked])
        for p in locked:
            self.assertIn(f"kfsck: {p}: cannot read: permission denied", err)
        # the segments themselves are still checked
        self.assertEqual(len(jsonl(out, "segment")), 3)
        code, out, err = run("verify", self.part, prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        self.assertEqual(out.splitlines()[-1], "2 errors, 0 warnings; could not check 2 paths")
        code, out, err = run("scan", self.datadir, prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        self.assertNotIn(" ok", self.scan_line(out))
        self.assertTrue(out.splitlines()[-1].endswith(", 2 errors, 0 warnings; could not check 2 paths"), out)
        code, out, err = run("scan", "--json", self.datadir, prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        part = jsonl(out, "partition")
        self.assertEqual(len(part), 1, out)
        self.assertEqual(part[0]["errors"], 2, json.dumps(part[0]))
        # named alone, the same
        code, out, err = run("verify", locked[0], prefix=prefix)
        self.assertEqual(code, 3, (out, err))
        self.assertEqual(err, f"kfsck: {locked[0]}: cannot read: permission denied\n")

    def test_index_that_is_a_directory(self):
        ti = self.file(FIRST, ".timeindex")
        os.remove(ti)
        os.mkdir(ti)
        code, out, err = run("verify", self.part)
        self.assertEqual(code, 3, (out, err))
        self.assertIn(f"kfsck: {ti}: cannot read: is a directory", err)

    # ---- messages ------------------------------------------------------------------

    def test_summary_counts_the_paths_that_could_not_be_checked(self):
        fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(fifo)
        loop = os.path.join(self.tmp, "loop")
        os.symlink(loop, loop)
        missing = os.path.join(self.tmp, "missing")
        for paths, n in (([missing], "1 path"), ([fifo, loop], "2 paths"), ([missing, self.part], "1 path")):
            code, out, err = run("verify", *paths)
            self.assertEqual(code, 3, (paths, out, err))
            self.assertEqual(out.splitlines()[-1], f"0 errors, 0 warnings; could not check {n}", paths)
        code, out, err = run("scan", missing, self.datadir)
        self.assertEqual(code, 3, (out, err))
        self.assertTrue(out.splitlines()[-1].endswith(", 0 errors, 0 warnings; could not check 1 path"), out)
        self.assertIn(" ok", self.scan_line(out))

    def test_huge_snapshot_is_read_in_pieces(self):
        snap = self.file("00000000000000001110", ".snapshot")
        self.sparse(snap, (256 << 20) + 1)  # once past the cap of a whole read
        code, out, err = run("verify", self.part)
        self.assertEqual(code, 1, (out, err))
        self.assertEqual(err, "")
        self.assertIn("snapshot_invalid at position 10: 268435447 bytes after the 0 entries the header announces", out)
        self.assertEqual(out.splitlines()[-1], "3 errors, 0 warnings")

    def test_snappy_header_claiming_4_gib(self):
        seg = os.path.join(self.tmp, "00000000000000000000.log")
        with open(os.path.join(FIX, "segments", "v2-snappy-raw", "00000000000000000000.log"), "rb") as f:
            data = bytearray(f.read())
        self.assertEqual(struct.unpack(">h", data[21:23])[0] & 7, 2)  # snappy
        data[61:66] = b"\xff\xff\xff\xff\x0f"  # raw snappy: uncompressed length 2^32-1
        end = 12 + struct.unpack(">i", data[8:12])[0]
        data[17:21] = struct.pack(">I", crc32c(bytes(data[21:end])))
        with open(seg, "wb") as f:
            f.write(data)
        code, out, err = run("verify", "--json", seg)
        self.assertEqual(code, 1, (out, err))
        msgs = [p["message"] for p in problems(out)]
        self.assertTrue(any(f"length header claims {2**32 - 1} decompressed bytes, over the {128 << 20}-byte cap"
                            in m for m in msgs), msgs)
        self.assertFalse(any("decompressed data exceeds" in m for m in msgs), msgs)


def crc32c(data):
    """CRC-32C (Castagnoli), as a v2 batch's CRC."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


if __name__ == "__main__":
    unittest.main()
