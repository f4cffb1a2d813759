#!/usr/bin/python3
"""End-to-end tests of the job drivers the library runs for the commands
(src/jobs/offsets/offsets_topic.c, part_feed.c and the others): what a command's
options give the driver reaches every reader it opens.

`--max-batch-bytes` caps the batches a partition reader reads whole: with
read chunks smaller than a batch (KFSCK_CHUNK_BYTES, the reader tuning the
tests use), a batch larger than the cap is a `batch_too_large` error and
is skipped, so `offsets` and `groups` exit 1. The __consumer_offsets
partitions of fixtures/offsets/datadir hold batches of 424 to 663 bytes.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import jsonl, run  # noqa: E402

DATADIR = "offsets/datadir"
SMALL_CHUNKS = {"KFSCK_CHUNK_BYTES": "256"}


def too_large(out):
    return [p for p in jsonl(out, "problem") if p["code"] == "batch_too_large"]


class MaxBatchBytesReachesTheReaders(unittest.TestCase):
    def test_offsets_skips_a_batch_over_the_cap(self):
        code, out, err = run("offsets", "--json", "--max-batch-bytes", "400", DATADIR, env=SMALL_CHUNKS)
        self.assertEqual(code, 1, err)
        big = too_large(out)
        self.assertTrue(big, out)
        for p in big:
            self.assertIn("__consumer_offsets-", p["file"])
            self.assertIn("larger than --max-batch-bytes (400)", p["message"])
        # the batch of 663 bytes at offset 14 of partition 33 is one of them
        self.assertIn((os.path.join(DATADIR, "__consumer_offsets-33", "00000000000000000000.log"), 14),
                      [(p["file"], p["offset"]) for p in big])

    def test_offsets_under_the_default_cap_reads_every_batch(self):
        code, out, err = run("offsets", "--json", DATADIR, env=SMALL_CHUNKS)
        self.assertEqual(too_large(out), [])
        self.assertTrue(jsonl(out, "offset"), out)

    def test_history_with_as_of_skips_the_same_batches(self):
        code, out, err = run("offsets", "--json", "--history", "--as-of", "9999999999999", "--max-batch-bytes",
                             "400", DATADIR, env=SMALL_CHUNKS)
        self.assertEqual(code, 1, err)
        self.assertTrue(too_large(out), out)

    def test_groups_skips_a_batch_over_the_cap(self):
        code, out, err = run("groups", "--json", "--max-batch-bytes", "400", DATADIR, env=SMALL_CHUNKS)
        self.assertEqual(code, 1, err)
        self.assertTrue(too_large(out), out)
        code, out, err = run("groups", "--json", DATADIR, env=SMALL_CHUNKS)
        self.assertEqual(too_large(out), [])


if __name__ == "__main__":
    unittest.main()
