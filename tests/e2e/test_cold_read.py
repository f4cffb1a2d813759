"""test_cold_read: a segment read with none of it in the page cache (a copied
data dir on its disk) gives exactly what the same segment gives cached.

Cold, the streaming reader reads its blocks past the page cache (O_DIRECT
into huge pages, two at a time; after the resync from the damage, a short
block through the cache up to the next page boundary) or, where that is not
to be had, one block at a time and smaller than cached
(src/format/reader_pool.c, may_read), so entries are put together over
other block boundaries (the carry) and damage is met at others. The segment is built with
kafka-python's batch builder: small batches, batches of about 700 KiB
(larger than a cold block, smaller than the 1 MiB chunk), a batch with a
flipped byte in its records (a CRC failure the reader resyncs past) and
more batches after it. Each command runs cached and then with the file's
pages dropped (posix_fadvise DONTNEED, checked with fincore), on two
threads and on one; the outputs must be the same, and the cold runs must
leave the pages they read out of the cache. Skips where the file system
does not drop clean pages on request (tmpfs).
"""
import os
import shutil
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import TempDirTest, run  # noqa: E402

from kafka.record.default_records import DefaultRecordBatchBuilder  # noqa: E402


def batch(base_offset, values):
    """One magic-2 batch of the values at base_offset (kafka-python writes
    base offset 0; it is outside the CRC, so it is set afterwards)."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1, batch_size=1 << 30)
    for i, v in enumerate(values):
        b.append(i, timestamp=1_700_000_000_000 + base_offset + i, key=b"k%d" % (base_offset + i), value=v,
                 headers=[])
    data = bytearray(b.build())
    struct.pack_into(">q", data, 0, base_offset)
    return bytes(data)


def segment():
    """The segment's bytes and where the damaged batch starts."""
    out, off = [], 0

    def add(values):
        nonlocal off
        out.append(batch(off, values))
        off += len(values)

    for i in range(400):  # small batches: many per block
        add([bytes([i % 251]) * (500 + i % 1000) for _ in range(1 + i % 5)])
    for i in range(6):  # larger than a cold block (256 KiB)
        add([bytes([65 + i]) * 7000 for _ in range(100)])
    damaged_at = sum(len(b) for b in out)
    add([b"x" * 3000 for _ in range(40)])
    for i in range(300):
        add([bytes([i % 200]) * (300 + i) for _ in range(3)])
    data = bytearray(b"".join(out))
    data[damaged_at + 61 + 1000] ^= 0x55  # inside the damaged batch's records
    return bytes(data), damaged_at


def cached_bytes(path):
    """Bytes of path in the page cache, or None without fincore."""
    if not shutil.which("fincore"):
        return None
    p = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES", path],
                       stdout=subprocess.PIPE, text=True)
    return int(p.stdout.split()[0]) if p.returncode == 0 and p.stdout.split() else None


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class ColdReadTest(TempDirTest):
    def setUp(self):
        super().setUp()
        d = os.path.join(self.tmp, "t-0")
        os.mkdir(d)
        self.data, self.damaged_at = segment()
        self.log = os.path.join(d, "00000000000000000000.log")
        with open(self.log, "wb") as f:
            f.write(self.data)
        drop(self.log)
        if cached_bytes(self.log) is None:
            self.skipTest("no fincore to tell what is cached")
        if cached_bytes(self.log) != 0:
            self.skipTest("this file system keeps clean pages cached on request (tmpfs?)")

    def twice(self, *args, threads):
        """args run cached, then cold: (cached output, cold output)."""
        env = {"KFSCK_THREADS": str(threads), "KFSCK_CHUNK_BYTES": str(1 << 20)}
        with open(self.log, "rb") as f:  # into the page cache
            f.read()
        self.assertGreaterEqual(cached_bytes(self.log), len(self.data))
        hot = run(*args, cwd=self.tmp, env=env)
        drop(self.log)
        self.assertEqual(cached_bytes(self.log), 0)
        cold = run(*args, cwd=self.tmp, env=env)
        # a cold run leaves out of the cache what it read (so it took the
        # cold path: the pages were found uncached when looked at)
        self.assertLess(cached_bytes(self.log), 1 << 20)
        return hot, cold

    def test_verify_and_dump_cold_as_cached(self):
        for threads in (2, 1):
            for args in (("verify", "--json", "t-0/00000000000000000000.log"),
                         ("dump", "--records", "t-0/00000000000000000000.log")):
                hot, cold = self.twice(*args, threads=threads)
                self.assertEqual(cold, hot, (args, threads))
                if args[0] == "verify":
                    self.assertEqual(hot[0], 1, hot)  # the damaged batch
                    self.assertIn(str(self.damaged_at), hot[1])


if __name__ == "__main__":
    unittest.main()
