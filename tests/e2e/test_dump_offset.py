"""test_dump_offset: `dump --offset N` and `--from-offset N --to-offset M` on a
partition directory and on segment files (contract: dump in
docs/kfsck.1): the batches holding the offsets (with --records,
only the records inside the range), found with the segment's .index when it
holds up, the same answer when the index is wrong or missing, and
offset_not_found with its reason (below_log_start, past_log_end, gap,
damaged) for what no intact batch holds; `--include-damaged` (a damaged
stretch's header fields and, with --payload, its bytes in hex).

The partitions are built in temporary directories with tools/gen/kafkafmt.py
(kafka-python's batch builder) and their indexes with tools/model/kafka_index.py
(broker recovery's index rule); the expected batches and records come from
those builders, not from kfsck. KFSCK_RANGE_STATS=1 makes dump say on stderr
how many bytes the index let it skip; KFSCK_NO_SEEK=1 makes it read every
segment from its start.
"""
import base64
import os
import random
import re
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, read, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
sys.path.insert(0, os.path.join(ROOT, "tools", "model"))
from kafka_index import build_indexes  # noqa: E402
from kafkafmt import Rec, seg_name, v2_batch  # noqa: E402
from kafka.record.default_records import DefaultRecordBatch  # noqa: E402
from kafka.record.util import decode_varint  # noqa: E402

INTERVAL = 300  # index.interval.bytes for the test segments: an entry every two batches


def batch(base, n=5, value_size=10):
    """A v2 batch of n records base..base+n-1."""
    return v2_batch(base, [Rec(o, 1700000000000 + o, b"k%d" % o, b"v%d-" % o + b"x" * value_size)
                           for o in range(base, base + n)])


class Partition:
    """A partition dir of segments {base: [batches]}: their .log files and
    the .index broker recovery would write; remembers every batch's
    (position, base, last) per segment."""

    def __init__(self, root, name, segments):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.batches = {}  # base -> [(position, first, last)]
        self.entries = {}  # base -> the index's [(offset, position)]
        for base, batches in segments.items():
            data = b"".join(batches)
            with open(self.log(base), "wb") as f:
                f.write(data)
            ix = build_indexes(data, base, interval=INTERVAL)
            with open(self.index(base), "wb") as f:
                f.write(ix["index"])
            self.entries[base] = ix["index_entries"]
            pos, rows = 0, []
            for b in batches:
                first, length = struct.unpack_from(">qi", b, 0)
                last = first + struct.unpack_from(">i", b, 23)[0]
                rows.append((pos, first, last))
                pos += len(b)
            self.batches[base] = rows

    def log(self, base):
        return os.path.join(self.dir, seg_name(base, "log"))

    def index(self, base):
        return os.path.join(self.dir, seg_name(base, "index"))

    def holding(self, first, last):
        """[(segment base, position, batch first, batch last)] of the batches holding any of first..last."""
        return [(base, p, f, l) for base, rows in sorted(self.batches.items()) for p, f, l in rows
                if l >= first and f <= last]


def dump(*args, env=None):
    rc, out, err = run("dump", "--json", *args, env=env)
    return rc, jsonl(out), err


def not_found(rows):
    return [(r["offset"], r["last_offset"], r["reason"]) for r in rows
            if r["type"] == "problem" and r["code"] == "offset_not_found"]


def skipped(err):
    """The bytes the index let dump skip (KFSCK_RANGE_STATS)."""
    m = re.search(r"bytes_skipped (\d+)", err)
    assert m, err
    return int(m.group(1))


class DumpOffsetTest(TempDirTest):
    def setUp(self):
        super().setUp()
        # three segments: 0..99, 100..149 and (compacted away: 150..159) 160..199, 200..249
        self.p = Partition(self.tmp, "orders-0", {
            0: [batch(o) for o in range(0, 100, 5)],
            100: [batch(o) for o in range(100, 150, 5)] + [batch(o) for o in range(160, 200, 5)],
            200: [batch(o) for o in range(200, 250, 5)],
        })

    def answer(self, *args, env=None):
        """dump's lines for args over the partition, and its exit code."""
        rc, rows, err = dump(*args, self.p.dir, env=env)
        self.assertIn(rc, (0, 1), err)
        return rc, rows

    def test_offset_in_the_middle_of_a_partition(self):
        rc, rows, err = dump("--offset", "137", "--records", self.p.dir, env={"KFSCK_RANGE_STATS": "1"})
        self.assertEqual(rc, 0, err)
        (base, pos, first, last), = self.p.holding(137, 137)
        self.assertEqual([(r["file"], r["position"], r["base_offset"], r["last_offset"]) for r in rows
                          if r["type"] == "batch"], [(self.p.log(100), pos, first, last)])
        self.assertEqual([r["offset"] for r in rows if r["type"] == "record"], [137])
        self.assertEqual(not_found(rows), [])
        # the index led there (its largest entry at or below 137): what comes before was not read
        entry = max(e for e in self.p.entries[100] if e[0] <= 137)
        self.assertGreater(entry[1], 0)
        self.assertEqual(skipped(err), entry[1])

    def test_range_across_segments_and_a_gap(self):
        rc, rows = self.answer("--from-offset", "97", "--to-offset", "203", "--records")
        self.assertEqual(rc, 0)
        want = self.p.holding(97, 203)
        self.assertEqual([(r["base_offset"], r["last_offset"]) for r in rows if r["type"] == "batch"],
                         [(f, l) for _, _, f, l in want])
        self.assertEqual([r["offset"] for r in rows if r["type"] == "record"],
                         [o for o in range(97, 204) if not 150 <= o < 160])
        self.assertEqual(not_found(rows), [(150, 159, "gap")])
        self.assertEqual({r["file"] for r in rows if r["type"] == "batch"},
                         {self.p.log(0), self.p.log(100), self.p.log(200)})

    def test_reasons(self):
        self.assertEqual(not_found(self.answer("--offset", "155")[1]), [(155, 155, "gap")])
        self.assertEqual(not_found(self.answer("--offset", "250")[1]), [(250, 250, "past_log_end")])
        self.assertEqual(not_found(self.answer("--from-offset", "240", "--to-offset", "400")[1]),
                         [(250, 400, "past_log_end")])
        # retention deleted the first segment: the log starts at 100
        os.remove(self.p.log(0))
        os.remove(self.p.index(0))
        rc, rows = self.answer("--from-offset", "90", "--to-offset", "101")
        self.assertEqual(not_found(rows), [(90, 99, "below_log_start")])
        self.assertEqual([(r["base_offset"]) for r in rows if r["type"] == "batch"], [100])
        self.assertEqual(rc, 0)  # offset_not_found is a warning

    def test_log_start_from_the_checkpoint(self):
        """The log start is the first segment's base offset, raised by the
        data dir's log-start-offset-checkpoint (LogLoader): what a segment
        still holds below it is printed, what it does not is below_log_start;
        between the log start and the first batch (a compacted head) is a gap."""
        with open(os.path.join(self.tmp, "log-start-offset-checkpoint"), "w") as f:
            f.write("0\n2\nother-0 7\norders-0 120\n")
        rc, rows = self.answer("--offset", "50")
        self.assertEqual([(r["base_offset"], r["last_offset"]) for r in rows if r["type"] == "batch"], [(50, 54)])
        os.remove(self.p.log(0))
        rc, rows = self.answer("--from-offset", "95", "--to-offset", "101")
        self.assertEqual(not_found(rows), [(95, 99, "below_log_start")])
        # a head removed by compaction: the segment's base is 0, its first batch at 3
        head = Partition(self.tmp, "events-0", {0: [batch(3), batch(8)]})
        rc, rows, err = dump("--from-offset", "0", "--to-offset", "4", head.dir)
        self.assertEqual(not_found(rows), [(0, 2, "gap")])

    def test_an_empty_partition(self):
        empty = os.path.join(self.tmp, "empty-0")
        os.makedirs(empty)
        rc, rows, err = dump("--offset", "5", empty)
        self.assertEqual((rc, not_found(rows)), (0, [(5, 5, "past_log_end")]))
        self.assertEqual(rows[0]["file"], empty)

    def test_offset_inside_a_damaged_batch(self):
        base, pos, first, last = self.p.holding(122, 122)[0]
        with open(self.p.log(100), "r+b") as f:
            f.seek(pos + 100)
            byte = f.read(1)
            f.seek(pos + 100)
            f.write(bytes([byte[0] ^ 0xFF]))
        rc, rows = self.answer("--offset", "122", "--records")
        self.assertEqual(rc, 1)
        self.assertEqual(not_found(rows), [(122, 122, "damaged")])
        crc = [r for r in rows if r["type"] == "problem" and r["code"] == "crc_mismatch"]
        self.assertEqual([(r["position"], r["offset"]) for r in crc], [(pos, 120)])
        self.assertFalse([r for r in rows if r["type"] in ("batch", "record")])
        # where the damaged stretch begins, and where a consumer that skips it resumes
        nf, = [r for r in rows if r["type"] == "problem" and r["code"] == "offset_not_found"]
        (_, next_pos, next_first, _), = self.p.holding(last + 1, last + 1)
        self.assertEqual((nf["file"], nf["position"], nf["next_offset"]), (self.p.log(100), pos, next_first))
        self.assertEqual(next_first, last + 1)
        self.assertNotEqual(nf["position"], next_pos)
        # --include-damaged --records: the wanted record of the damaged batch, flagged
        rc, rows = self.answer("--offset", "122", "--records", "--include-damaged", "--payload")
        recs = [r for r in rows if r["type"] == "record"]
        self.assertEqual([(r["offset"], r["damaged"], r["position"]) for r in recs], [(122, True, pos)])
        self.assertEqual(base64.b64decode(recs[0]["key_b64"]), b"k122")
        self.assertEqual([r["type"] for r in rows], ["problem", "damaged_batch", "record", "problem"])
        self.assertIn("CRC", rows[1]["error"])
        # the damage is nothing to an offset outside it
        rc, rows = self.answer("--offset", "127")
        self.assertEqual((rc, not_found(rows)), (0, []))
        self.assertEqual([r["type"] for r in rows], ["batch"])
        # --include-damaged: its header fields, and with --payload its bytes
        rc, rows = self.answer("--offset", "122", "--include-damaged", "--payload")
        d, = [r for r in rows if r["type"] == "damaged_batch"]
        data = read(self.p.log(100))
        size = 12 + struct.unpack_from(">i", data, pos + 8)[0]
        self.assertEqual((d["position"], d["length"], d["code"]), (pos, size, "crc_mismatch"))
        self.assertEqual((d["base_offset"], d["last_offset"], d["magic"], d["count"], d["codec"]),
                         (120, 124, 2, 5, "none"))
        self.assertEqual(d["crc"], struct.unpack_from(">I", data, pos + 17)[0])
        self.assertEqual(d["bytes_hex"], data[pos:pos + size].hex())
        self.assertFalse(d["bytes_hex_truncated"])
        # without --payload, no bytes
        rc, rows = self.answer("--offset", "122", "--include-damaged")
        d, = [r for r in rows if r["type"] == "damaged_batch"]
        self.assertNotIn("bytes_hex", d)

    def test_offset_inside_damage_at_the_end_of_the_log(self):
        """Nothing intact follows: next_offset is null (broker recovery cuts
        the log at the damage), the run is reported where the damage begins."""
        (base, pos, first, last), = self.p.holding(247, 247)
        with open(self.p.log(base), "r+b") as f:
            f.seek(pos + 70)
            byte = f.read(1)
            f.seek(pos + 70)
            f.write(bytes([byte[0] ^ 0x10]))
        rc, rows = self.answer("--offset", "247")
        self.assertEqual(rc, 1)
        nf, = [r for r in rows if r["type"] == "problem" and r["code"] == "offset_not_found"]
        self.assertEqual((nf["reason"], nf["position"], nf["next_offset"]), ("damaged", pos, None))
        rc, out, err = run("dump", "--offset", "247", self.p.dir)
        self.assertIn("next_offset none", out)

    def test_same_answer_whatever_the_index(self):
        """A wrong, unsorted or missing .index gives the same lines and exit
        code as the broker's own index and as no index at all."""
        offsets = [0, 3, 57, 99, 100, 114, 137, 149, 155, 160, 199, 200, 222, 249, 250, 1000]
        ranges = [("--offset", str(o)) for o in offsets] + [("--from-offset", "40", "--to-offset", "230"),
                                                           ("--from-offset", "145", "--to-offset", "165")]

        def answers(env=None):
            return [self.answer(*a, "--records", env=env) for a in ranges]

        right = answers()
        self.assertEqual(answers({"KFSCK_NO_SEEK": "1"}), right)
        good = {b: read(self.p.index(b)) for b in self.p.batches}
        sizes = {b: os.path.getsize(self.p.log(b)) for b in self.p.batches}
        rng = random.Random(22)

        def entries(b):
            return [struct.unpack_from(">ii", good[b], i) for i in range(0, len(good[b]), 8)]

        wrong = {
            # positions past the end of the log
            "past_end": lambda b: b"".join(struct.pack(">ii", r, sizes[b] + 1000 * (i + 1))
                                           for i, (r, _) in enumerate(entries(b))),
            # every entry points at the batch two entries on (a later batch)
            "wrong_batch": lambda b: b"".join(struct.pack(">ii", r, entries(b)[min(i + 2, len(entries(b)) - 1)][1])
                                              for i, (r, _) in enumerate(entries(b))),
            # positions inside a batch, not at its start
            "mid_batch": lambda b: b"".join(struct.pack(">ii", r, p + 7) for r, p in entries(b)),
            "unsorted": lambda b: b"".join(struct.pack(">ii", *e) for e in rng.sample(entries(b), len(entries(b)))),
            "garbage": lambda b: bytes(rng.randrange(256) for _ in range(len(good[b]))),
            "empty": lambda b: b"",
        }
        for name, make in wrong.items():
            for b in self.p.batches:
                with open(self.p.index(b), "wb") as f:
                    f.write(make(b))
            self.assertEqual(answers(), right, name)
            # a wrong entry is never taken: nothing was skipped
            if name in ("past_end", "wrong_batch", "mid_batch", "garbage"):
                _, _, err = dump("--offset", "137", self.p.dir, env={"KFSCK_RANGE_STATS": "1"})
                self.assertEqual(skipped(err), 0, name)
        for b in self.p.batches:
            os.remove(self.p.index(b))
        self.assertEqual(answers(), right, "missing")

    def test_segment_file_alone(self):
        rc, rows, err = dump("--offset", "172", "--records", self.p.log(100), env={"KFSCK_RANGE_STATS": "1"})
        self.assertEqual(rc, 0, err)
        self.assertEqual([r["offset"] for r in rows if r["type"] == "record"], [172])
        self.assertGreater(skipped(err), 0)
        # below what the file holds, and a text dump names the file
        rc, out, err = run("dump", "--offset", "5", self.p.log(100))
        self.assertEqual(rc, 0, err)
        self.assertIn("Dumping " + self.p.log(100), out)
        self.assertIn("offset_not_found", out)
        self.assertIn("below_log_start", out)

    def test_usage_errors(self):
        for args in (["--offset", "5", "--from-offset", "1", "--to-offset", "9"], ["--from-offset", "3"],
                     ["--to-offset", "3"], ["--from-offset", "9", "--to-offset", "3"], ["--offset", "-1"],
                     ["--offset", "x"], ["--offset", "5", "--max-bytes", "100"]):
            rc, out, err = run("dump", *args, self.p.dir)
            self.assertEqual(rc, 2, args)
            self.assertIn("kfsck dump:", err)


def records_as_kafka_python_reads(data):
    """The records of the v2 batch data as kafka-python decodes them (it does
    not check the CRC while iterating), up to the first it refuses."""
    got = []
    try:
        for r in DefaultRecordBatch(bytes(data)):
            got.append((r.offset, r.key, r.value))
    except Exception:  # kafka-python's CorruptRecordException and friends: the end of what decodes
        pass
    return got


def record_starts(data):
    """The positions of the records of an uncompressed v2 batch (after its
    61-byte header: a zigzag varint length, then the record)."""
    starts, p = [], 61
    while p < len(data):
        starts.append(p)
        n, q = decode_varint(data, p)
        p = q + n
    return starts


def dumped_records(out):
    return [(r["offset"], base64.b64decode(r["key_b64"]), base64.b64decode(r["value_b64"]), r.get("damaged"))
            for r in jsonl(out, "record")]


class IncludeDamagedTest(TempDirTest):
    def test_records_of_a_batch_that_fails_its_crc(self):
        """--include-damaged --records decodes a batch that frames but fails
        its CRC as far as its records go (as kafka-dump-log.sh does), each
        record flagged; without --include-damaged there are none of them."""
        good0, bad, good10 = batch(0), bytearray(batch(5)), batch(10)
        at = bad.index(b"v7-") + 5
        bad[at] ^= 0x01  # inside record 7's value: the CRC no longer holds, the records still frame
        log = self.write(seg_name(0, "log"), good0 + bytes(bad) + good10)
        want = records_as_kafka_python_reads(bad)
        self.assertEqual([o for o, _, _ in want], [5, 6, 7, 8, 9])
        self.assertEqual(want[2][2], b"v7-xxyxxxxxxx")  # the damaged byte, as it is on disk
        rc, out, err = run("dump", "--json", "--include-damaged", "--records", "--payload", log)
        self.assertEqual(rc, 1, err)
        got = dumped_records(out)
        self.assertEqual([g for g in got if g[3]], [(o, k, v, True) for o, k, v in want])
        self.assertEqual([g[0] for g in got if not g[3]], list(range(0, 5)) + list(range(10, 15)))
        self.assertFalse([r for r in jsonl(out, "record") if "damaged" in r and r["damaged"] is not True])
        # after their damaged_batch line
        types = [r["type"] for r in jsonl(out)]
        self.assertEqual(types.index("damaged_batch") + 1, types.index("record", types.index("damaged_batch")))
        # never without --include-damaged
        rc, out, err = run("dump", "--json", "--records", "--payload", log)
        self.assertEqual(rc, 1, err)
        self.assertEqual([g[0] for g in dumped_records(out)], list(range(0, 5)) + list(range(10, 15)))
        # text: the record lines say so
        rc, out, err = run("dump", "--include-damaged", "--records", log)
        damaged = [l for l in out.splitlines() if l.startswith("| offset:") and " damaged: true" in l]
        self.assertEqual([int(l.split()[2]) for l in damaged], [5, 6, 7, 8, 9])

    def test_records_stop_at_the_first_that_does_not_parse(self):
        bad = bytearray(batch(5))
        third = record_starts(bad)[2]
        bad[third] = 0x7E  # record 7's length becomes 63: it swallows record 8 and does not parse
        log = self.write(seg_name(0, "log"), batch(0) + bytes(bad) + batch(10))
        want = records_as_kafka_python_reads(bad)
        self.assertEqual([o for o, _, _ in want], [5, 6])
        rc, out, err = run("dump", "--json", "--include-damaged", "--records", "--payload", log)
        self.assertEqual(rc, 1, err)
        self.assertEqual([g for g in dumped_records(out) if g[3]], [(o, k, v, True) for o, k, v in want])
        self.assertEqual([g[0] for g in dumped_records(out) if not g[3]], list(range(0, 5)) + list(range(10, 15)))

    def test_a_compressed_batch_under_the_decompression_cap(self):
        """The stored CRC of a gzip batch damaged: its records still decode,
        decompressed under --max-batch-bytes; over the cap, none, and no
        more than the batch's damage is reported."""
        recs = [Rec(o, 1700000000000 + o, b"k%d" % o, b"value-%d-" % o + b"z" * 3000) for o in range(0, 20)]
        gz = bytearray(v2_batch(0, recs, codec="gzip"))
        gz[17] ^= 0xFF  # the stored CRC
        log = self.write(seg_name(0, "log"), bytes(gz) + batch(20))
        want = records_as_kafka_python_reads(gz)
        self.assertEqual([o for o, _, _ in want], list(range(0, 20)))
        rc, out, err = run("dump", "--json", "--include-damaged", "--records", "--payload", log)
        self.assertEqual(rc, 1, err)
        self.assertEqual([g for g in dumped_records(out) if g[3]], [(o, k, v, True) for o, k, v in want])
        cap = str(len(gz) + 1000)  # the batch fits, its 60 KB of records do not
        rc, out, err = run("dump", "--json", "--include-damaged", "--records", "--max-batch-bytes", cap, log)
        self.assertEqual(rc, 1, err)
        self.assertEqual([r["offset"] for r in jsonl(out, "record")], list(range(20, 25)))
        self.assertEqual([p["code"] for p in jsonl(out, "problem")], ["crc_mismatch"])

    def test_a_large_damaged_batch_is_cut_at_16_kib(self):
        big = batch(0, n=3, value_size=20000)
        data = bytearray(big + batch(3))
        data[5000] ^= 0xFF  # inside the records: the CRC no longer holds
        log = self.write(seg_name(0, "log"), bytes(data))
        rc, out, err = run("dump", "--json", "--include-damaged", "--payload", log)
        self.assertEqual(rc, 1, err)
        d, = jsonl(out, "damaged_batch")
        self.assertEqual((d["position"], d["length"], d["base_offset"], d["count"]), (0, len(big), 0, 3))
        self.assertEqual(d["bytes_hex"], bytes(data[:16384]).hex())
        self.assertTrue(d["bytes_hex_truncated"])
        self.assertEqual([r["base_offset"] for r in jsonl(out, "batch")], [3])

    def test_header_fields_as_far_as_they_go(self):
        """A batch torn after 30 bytes: the fields before the cut, null after."""
        whole = batch(0)
        log = self.write(seg_name(0, "log"), whole[:30])
        rc, out, err = run("dump", "--json", "--include-damaged", log)
        self.assertEqual(rc, 1, err)
        d, = jsonl(out, "damaged_batch")
        self.assertEqual((d["position"], d["length"], d["code"]), (0, 30, "truncated"))
        self.assertEqual((d["base_offset"], d["magic"], d["last_offset"]), (0, 2, 4))
        self.assertEqual(d["crc"], struct.unpack_from(">I", whole, 17)[0])
        for field in ("base_timestamp", "max_timestamp", "producer_id", "count"):
            self.assertIsNone(d[field], field)

    def test_text(self):
        data = bytearray(batch(0) + batch(5))
        data[70] ^= 0xFF
        log = self.write(seg_name(0, "log"), bytes(data))
        rc, out, err = run("dump", "--include-damaged", "--payload", log)
        self.assertEqual(rc, 1, err)
        line, = [l for l in out.splitlines() if l.startswith("damaged:")]
        self.assertIn("position: 0 length: %d code: crc_mismatch baseOffset: 0 lastOffset: 4" % len(batch(0)), line)
        self.assertIn("bytes: " + bytes(data[:len(batch(0))]).hex(), line)


if __name__ == "__main__":
    unittest.main()
