#!/usr/bin/python3
"""gen_fixtures: deterministically generate kfsck's committed test fixtures.

Usage: /usr/bin/python3 tools/gen/gen_fixtures.py OUTDIR      (normally `fixtures`)

Writes, below OUTDIR (replacing only these entries):
  segments/<case>/NNNNNNNNNNNNNNNNNNNN.log   one segment per format case
                                              (v2 x codecs, raw snappy, v1/v0
                                              x codecs, mixed, txn, compacted,
                                              v2-multi with its indexes)
  partition/orders-0/     3 indexed segments + leader-epoch-checkpoint,
                          partition.metadata, producer .snapshot
  datadir/                a small broker log dir (meta.properties, the four
                          checkpoints, orders-0, orders-1, payments-0 with a
                          .txnindex, and damaged clicks-0)
  damaged/<case>/         copies of segments/v2-multi with one damage each
  replicas/               three damaged copies of orders-0 (broker-1..3) and
                          one of an older leader never truncated (broker-4)
                          for `kfsck merge`, with replicas/MANIFEST.json
                          (expected merges from tools/model/merge_model.py)
  MANIFEST.json           the facts computed here (batches, record counts,
                          valid_bytes, expected problem codes and positions,
                          index entries) for end-to-end tests to assert on.
  offsets/                __consumer_offsets / __transaction_state / Connect
                          fixtures and their own MANIFEST.json, written by
                          tools/gen/gen_offsets.py (see its docstring)
  sink/                   topic partitions with ordered, disordered and very
                          late timestamps (and a damaged copy) for the sink
                          catch-up simulation, with their own MANIFEST.json,
                          written by tools/gen/gen_sink.py (see its docstring)
  txns/                   transactional partitions (open, hanging, aborted,
                          fenced, .txnindex problems, a missing marker, a
                          producer snapshot) with their __transaction_state
                          and their own MANIFEST.json, written by
                          tools/gen/gen_txns.py (see its docstring)
  kraft/                  a KRaft node's data dir (__cluster_metadata-0 with
                          snapshots, topic partitions, share-group state,
                          remote log metadata, a KIP-848 group), damaged
                          variants and copies, with their own MANIFEST.json,
                          written by tools/gen/gen_kraft.py (see its docstring)

All batches are encoded by kafka-python's builders (see kafkafmt.py); indexes
are built by kafka_index.py (broker recovery rule). Timestamps are fixed
(from 1700000000000 ms) and all randomness is seeded, so two runs give
identical bytes. Must run under Debian's /usr/bin/python3 (python3-kafka,
python3-snappy, python3-lz4, python3-zstandard, python3-xxhash).
"""

import base64
import json
import os
import random
import shutil
import struct
import sys

# this folder (the encoders) and tools/model/ (the models the expectations come from)
_TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(_TOOLS, "gen"), os.path.join(_TOOLS, "model")]

import kafka                                             # noqa: E402
import gen_kraft                                         # noqa: E402
import gen_offsets                                       # noqa: E402
import gen_sink                                          # noqa: E402
import gen_txns                                          # noqa: E402
import kafka_index                                       # noqa: E402
import merge_model                                       # noqa: E402
from kafkafmt import (Rec, describe_segment, epoch_checkpoint, legacy_entries,  # noqa: E402
                      partition_metadata, read_records, record_fact, seg_name, v2_batch,
                      v2_control_batch, v2_empty_batch)
from kafka.record.util import calc_crc32c               # noqa: E402

T0 = 1700000000000          # 2023-11-14T22:13:20Z
INDEX_INTERVAL = 4096
OWNED = ("segments", "partition", "datadir", "damaged", "replicas", "sink", "txns", "kraft",
         "MANIFEST.json")

WORDS = ("express standard gift wrapped fragile priority backorder warehouse north south "
         "east west pallet parcel courier signature requested leave at door weekend "
         "delivery invoice paid pending refund partial discount coupon loyalty member "
         "bulk order return label damaged box replacement").split()


def kafka_uuid(rng):
    """A Kafka Uuid as printed: URL-safe base64 of 16 bytes, no padding;
    like Uuid.randomUuid(), never all-zero and never starting with '-'."""
    while True:
        raw = rng.getrandbits(128).to_bytes(16, "big")
        s = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        if any(raw) and not s.startswith("-"):
            return s


# ---------------------------------------------------------------------------
# batches with the records they should decode to

class Item:
    """One or more log entries plus the records kafka-python must decode
    from them: (offset, effective timestamp, key, value, headers)."""

    def __init__(self, data, expected, **meta):
        self.data = data
        self.expected = expected
        self.meta = meta


def B2(base, recs, **kw):
    lat = kw.get("log_append_time")
    exp = [(r.offset, lat if lat is not None else r.timestamp, r.key, r.value, list(r.headers))
           for r in recs]
    return Item(v2_batch(base, recs, **kw), exp, base_offset=base,
                last_offset=kw.get("last_offset") or recs[-1].offset, count=len(recs),
                max_timestamp=lat if lat is not None else max(r.timestamp for r in recs),
                producer_id=kw.get("producer_id", -1), producer_epoch=kw.get("producer_epoch", -1),
                base_sequence=kw.get("base_sequence", -1), control=False,
                transactional=kw.get("transactional", False))


def BC(offset, kind, pid, pepoch, coord_epoch, ts, leader_epoch=0):
    data = v2_control_batch(offset, kind, pid, pepoch, coord_epoch, ts, leader_epoch)
    key = struct.pack(">hh", 0, {"ABORT": 0, "COMMIT": 1}[kind])
    return Item(data, [(offset, ts, key, struct.pack(">hi", 0, coord_epoch), [])],
                base_offset=offset, last_offset=offset, count=1, max_timestamp=ts,
                producer_id=pid, producer_epoch=pepoch, base_sequence=-1, control=True,
                control_type=kind, coordinator_epoch=coord_epoch, transactional=True)


def BE(base, last, max_ts, pid, pepoch, bseq, transactional=False, leader_epoch=0):
    return Item(v2_empty_batch(base, last, max_ts, pid, pepoch, bseq, transactional, leader_epoch),
                [], base_offset=base, last_offset=last, count=0, max_timestamp=max_ts,
                producer_id=pid, producer_epoch=pepoch, base_sequence=bseq, control=False,
                transactional=transactional)


def BL(magic, codec, recs, log_append_time=None):
    def ts(r):
        if magic == 0:
            return None
        return log_append_time if log_append_time is not None else r.timestamp
    return Item(legacy_entries(magic, codec, recs, log_append_time),
                [(r.offset, ts(r), r.key, r.value, []) for r in recs])


# ---------------------------------------------------------------------------
# record contents

def filler(i, n=6):
    """Compressible text so kafka-python keeps the requested codec."""
    return (b"value-%04d lorem ipsum dolor sit amet " % i) * n


def showcase_v2(t0=T0):
    """Four v2 batches' records: plain, null key, tombstone, headers (with a
    null header value), empty key/value, non-UTF-8 binary value, and a
    timestamp that goes backwards inside a batch."""
    def r(o, key, value, headers=(), dt=0):
        return Rec(o, t0 + o * 10 + dt, key, value, list(headers))
    return [
        [r(o, b"user-%03d" % o, filler(o)) for o in range(0, 5)],
        [r(5, None, filler(5)),
         r(6, b"user-001", None),
         r(7, b"user-007", filler(7), [("trace-id", b"4bf92f3577b34da6"), ("empty", b""),
                                       ("null-value", None), ("schl\u00fcssel", b"\xe2\x9c\x93")]),
         r(8, b"user-008", filler(8)), r(9, b"user-009", filler(9)), r(10, b"user-010", filler(10))],
        [r(11, b"bin-011", b"\x00\xff\xfe\x80\xc3\x28" + bytes(range(0x80, 0xa0))),
         r(12, b"", b""),
         r(13, b"user-013", filler(13)), r(14, b"user-014", filler(14)),
         r(15, b"user-015", filler(15)), r(16, b"user-016", filler(16))],
        [r(o, b"user-%03d" % o, filler(o), dt=(-500 if o == 20 else 0)) for o in range(17, 24)],
    ]


def showcase_legacy(first=0, t0=T0):
    """Records for magic 0/1 (no headers): plain, null key, tombstone,
    binary value, empty value."""
    def r(o, key, value):
        return Rec(o, t0 + o * 10, key, value)
    o = first
    return [r(o, b"user-%03d" % o, filler(o)), r(o + 1, None, filler(o + 1)),
            r(o + 2, b"user-001", None), r(o + 3, b"bin", b"\xff\xfe\x00\x80" + bytes(range(0x80, 0x90))),
            r(o + 4, b"empty", b""), r(o + 5, b"user-%03d" % (o + 5), filler(o + 5)),
            r(o + 6, b"user-%03d" % (o + 6), filler(o + 6)), r(o + 7, b"user-%03d" % (o + 7), filler(o + 7)),
            r(o + 8, b"user-%03d" % (o + 8), filler(o + 8)), r(o + 9, b"user-%03d" % (o + 9), filler(o + 9))]


def order_value(rng, oid):
    return json.dumps({
        "order_id": oid, "customer": "cust-%04d" % rng.randrange(5000),
        "sku": "SKU-%05d" % rng.randrange(20000), "qty": rng.randint(1, 9),
        "price_cents": rng.randrange(199, 99999), "currency": "EUR",
        "status": rng.choice(["CREATED", "PAID", "SHIPPED", "CANCELLED"]),
        "note": " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))},
        separators=(",", ":")).encode()


def click_value(rng, n):
    return json.dumps({
        "session": "%016x" % rng.getrandbits(64), "url": "/p/%d?ref=%s" % (rng.randrange(900),
                                                                           rng.choice(WORDS)),
        "ua": rng.choice(["Mozilla/5.0 (X11; Linux x86_64)", "Mozilla/5.0 (Macintosh)",
                          "okhttp/4.12.0"]), "n": n}, separators=(",", ":")).encode()


def payment_value(rng, n):
    return json.dumps({"payment": n, "order_id": rng.randrange(100000),
                       "amount_cents": rng.randrange(100, 50000), "method": rng.choice(
                           ["card", "sepa", "paypal"])}, separators=(",", ":")).encode()


class Producer:
    def __init__(self, pid=-1, epoch=-1):
        self.pid, self.epoch, self.seq = pid, epoch, 0

    def fields(self, n):
        if self.pid < 0:
            return {"producer_id": -1, "producer_epoch": -1, "base_sequence": -1}
        d = {"producer_id": self.pid, "producer_epoch": self.epoch, "base_sequence": self.seq}
        self.seq += n
        return d


def batch_stream(rng, key_fn, value_fn, codecs, main, late, epoch_of, first_offset=0,
                 t0=T0, min_recs=3, max_recs=18, late_every=5):
    """Endless v2 batches: codecs cycled, every `late_every`-th batch comes
    from the `late` producer with timestamps a few seconds behind (so batch
    max timestamps are not monotonic)."""
    offset, clock, i = first_offset, t0, 0
    while True:
        n = rng.randint(min_recs, max_recs)
        is_late = late_every and i % late_every == late_every - 1
        lag = rng.randint(3000, 8000) if is_late else 0
        recs = []
        for j in range(n):
            clock += rng.randint(1, 40)
            recs.append(Rec(offset + j, clock - lag, key_fn(rng, offset + j), value_fn(rng, offset + j)))
        prod = late if is_late else main
        yield B2(offset, recs, codec=codecs[i % len(codecs)], leader_epoch=epoch_of(i),
                 **prod.fields(n))
        offset += n
        i += 1


def split_segments(stream, targets):
    """Cut a batch stream into segments of at most targets[k] bytes."""
    segs, carry = [], None
    for target in targets:
        items, size = ([carry], len(carry.data)) if carry else ([], 0)
        while True:
            it = next(stream)
            if items and size + len(it.data) > target:
                carry = it
                break
            items.append(it)
            size += len(it.data)
        segs.append(items)
    return segs


# ---------------------------------------------------------------------------
# writing files and collecting the manifest

class Gen:
    def __init__(self, out):
        self.out = out
        self.logs = []
        self.indexes = []
        self.partitions = []
        self.datadir = None

    def path(self, rel):
        p = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def write(self, rel, data):
        if isinstance(data, str):
            data = data.encode()
        with open(self.path(rel), "wb") as f:
            f.write(data)

    # -- healthy segments --------------------------------------------------

    def log(self, rel, base_offset, items, case, description, indexes=False,
            final_time_entry=True, index_prealloc=None, detail=False):
        """Write a healthy segment (and optionally its indexes), check it with
        kafka-python, and record its facts. Returns (data, facts, index info)."""
        data = b"".join(it.data for it in items)
        self.write(rel, data)
        decoded = read_records(data)
        got = [(r.offset, r.timestamp, r.key, r.value, list(r.headers))
               for _, recs in decoded for r in recs]
        want = [e for it in items for e in it.expected]
        if got != want:
            raise AssertionError("%s: kafka-python decodes other records than were written" % rel)
        info = kafka_index.build_indexes(data, base_offset, INDEX_INTERVAL, final_time_entry)
        assert info["valid_bytes"] == len(data) and info["stop"] == "end", rel
        batches = describe_segment(data, len(data))
        assert all(b["crc_ok"] for b in batches)
        assert len(batches) == len(decoded)
        for b, (kb, recs) in zip(batches, decoded):
            assert b["crc"] == kb._crc if b["magic"] < 2 else b["crc"] == kb.crc
            assert b["codec"] == ["none", "gzip", "snappy", "lz4", "zstd"][kb.compression_type]
            assert b["count"] == len(recs)
        # construction intent (per Item) against what was parsed back
        for it in items:
            m = it.meta
            if not m:
                continue
            b = next(x for x in batches if x["magic"] >= 2 and x["base_offset"] == m["base_offset"])
            for k in ("last_offset", "count", "max_timestamp", "producer_id", "producer_epoch",
                      "base_sequence", "control", "transactional"):
                assert b[k] == m[k], (rel, k, b[k], m[k])
            if m.get("control_type"):
                assert b["control_type"] == m["control_type"]
        fact = self.log_fact(rel, base_offset, data, batches, case, description)
        if detail:
            fact["records_detail"] = [record_fact(r) for _, recs in decoded for r in recs]
        self.logs.append(fact)
        if indexes:
            self.write_indexes(rel, base_offset, info, index_prealloc)
        return data, fact, info

    def log_fact(self, rel, base_offset, data, batches, case, description):
        data_batches = [b for b in batches if not b["control"]]
        return {
            "path": rel, "case": case, "description": description,
            "base_offset": base_offset, "size": len(data), "valid_bytes": len(data),
            "recovery_stop": "end", "batches": batches, "batch_count": len(batches),
            "records": sum(b["count"] for b in batches),
            "data_records": sum(b["count"] for b in data_batches),
            "control_records": sum(b["count"] for b in batches if b["control"]),
            "first_offset": batches[0]["base_offset"] if batches else None,
            "last_offset": batches[-1]["last_offset"] if batches else None,
            "max_timestamp": max((b["max_timestamp"] for b in batches
                                  if b["max_timestamp"] is not None), default=None),
            "problems": [],
        }

    def write_indexes(self, log_rel, base_offset, info, prealloc=None):
        """.index/.timeindex beside the log; prealloc=(index_bytes,
        timeindex_bytes) pads them with zeros like a live active segment."""
        stem = log_rel[:-len(".log")]
        idx, tidx = info["index"], info["timeindex"]
        if prealloc:
            idx = idx + bytes(prealloc[0] - len(idx))
            tidx = tidx + bytes(prealloc[1] - len(tidx))
        self.write(stem + ".index", idx)
        self.write(stem + ".timeindex", tidx)
        self.indexes.append({
            "path": stem + ".index", "kind": "offset", "log": log_rel, "base_offset": base_offset,
            "size": len(idx), "entry_count": len(info["index_entries"]),
            "zero_tail_bytes": len(idx) - len(info["index"]),
            "entries": [{"offset": o, "position": p} for o, p in info["index_entries"]],
            "matches_rebuild": True})
        self.indexes.append({
            "path": stem + ".timeindex", "kind": "time", "log": log_rel, "base_offset": base_offset,
            "size": len(tidx), "entry_count": len(info["time_entries"]),
            "zero_tail_bytes": len(tidx) - len(info["timeindex"]),
            "entries": [{"timestamp": t, "offset": o} for t, o in info["time_entries"]],
            "matches_rebuild": True})


# ---------------------------------------------------------------------------
# 1. single segments

def gen_segments(g):
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        items = [B2(recs[0].offset, recs, codec=codec) for recs in showcase_v2()]
        g.log("segments/v2-%s/%s" % (codec, seg_name(0, "log")), 0, items, "v2-" + codec,
              "magic 2, codec %s (as kafka-python writes it), 4 batches: null key, tombstone, "
              "headers incl. null value, empty key/value, binary value" % codec, detail=True)

    items = [B2(recs[0].offset, recs, codec="snappy", raw_snappy=True) for recs in showcase_v2()]
    g.log("segments/v2-snappy-raw/" + seg_name(0, "log"), 0, items, "v2-snappy-raw",
          "magic 2, snappy codec with raw (unframed) snappy payloads, as librdkafka writes",
          detail=True)

    for magic in (1, 0):
        for codec in ("none", "gzip", "snappy", "lz4"):
            recs = showcase_legacy()
            if codec == "none":
                items = [BL(magic, "none", recs)]
            else:
                items = [BL(magic, codec, recs[0:4]), BL(magic, codec, recs[4:7]),
                         BL(magic, codec, recs[7:10])]
            desc = "magic %d, codec %s" % (magic, codec)
            if codec != "none":
                desc += (", 3 wrappers; inner offsets %s, wrapper offset = last inner offset"
                         % ("relative 0..n-1" if magic == 1 else "absolute"))
            if magic == 0 and codec == "lz4":
                desc += "; LZ4 frame with the pre-KIP-57 broken header checksum"
            g.log("segments/v%d-%s/%s" % (magic, codec, seg_name(0, "log")), 0, items,
                  "v%d-%s" % (magic, codec), desc, detail=True)

    # mixed magics in one file
    r = lambda o, n=4: Rec(o, T0 + o * 10, b"k-%03d" % o, filler(o, n))   # noqa: E731
    items = [
        BL(0, "none", [r(0), r(1)]),
        BL(0, "gzip", [r(2), r(3), r(4)]),
        BL(1, "none", [r(5), r(6)]),
        BL(1, "snappy", [r(7), r(8), r(9)]),
        BL(1, "lz4", [r(10), r(11), r(12)], log_append_time=T0 + 60000),
        B2(13, [r(o) for o in range(13, 18)], codec="zstd"),
        B2(18, [r(o) for o in range(18, 21)], codec="none", leader_epoch=1),
    ]
    g.log("segments/mixed/" + seg_name(0, "log"), 0, items, "mixed",
          "v0 none, v0 gzip, v1 none, v1 snappy, v1 lz4 LogAppendTime wrapper, v2 zstd, v2 none; "
          "offsets 0..20 increasing", detail=True)

    # transactions, markers, log-append time, empty batch, leader epochs
    def tr(o, tag):
        return Rec(o, T0 + 1000 + o * 7, b"%s-%02d" % (tag, o), filler(o, 3))
    items = [
        B2(0, [tr(o, b"idem") for o in range(0, 3)], codec="lz4", producer_id=3001,
           producer_epoch=0, base_sequence=0, leader_epoch=4),
        B2(3, [tr(o, b"txnA") for o in range(3, 5)], producer_id=3002, producer_epoch=1,
           base_sequence=0, transactional=True, leader_epoch=4),
        B2(5, [tr(o, b"idem") for o in range(5, 7)], producer_id=3001, producer_epoch=0,
           base_sequence=3, leader_epoch=4),
        B2(7, [tr(o, b"txnA") for o in range(7, 9)], codec="snappy", producer_id=3002,
           producer_epoch=1, base_sequence=2, transactional=True, leader_epoch=4),
        BC(9, "COMMIT", 3002, 1, 7, T0 + 1100, leader_epoch=5),
        B2(10, [tr(o, b"txnB") for o in range(10, 13)], codec="gzip", producer_id=3003,
           producer_epoch=0, base_sequence=0, transactional=True, leader_epoch=5),
        BC(13, "ABORT", 3003, 0, 7, T0 + 1200, leader_epoch=5),
        B2(14, [tr(o, b"lat") for o in range(14, 17)], log_append_time=T0 + 5000, leader_epoch=5),
        BE(17, 19, T0 + 1150, 3001, 0, 5, leader_epoch=5),
        B2(20, [tr(o, b"idem") for o in range(20, 22)], producer_id=3001, producer_epoch=0,
           base_sequence=8, leader_epoch=5),
    ]
    g.log("segments/txn/" + seg_name(0, "log"), 0, items, "txn",
          "idempotent and transactional batches, COMMIT at 9 and ABORT at 13 (coordinatorEpoch 7), "
          "LogAppendTime batch at 14, cleaner's empty 61-byte batch covering 17..19, "
          "partitionLeaderEpoch 4 then 5", detail=True)

    # compacted-looking segment
    def cr(o, v=True):
        return Rec(o, T0 + 2000 + o * 5, b"key-%d" % (o % 7), filler(o, 3) if v else None)
    items = [
        B2(103, [cr(103), cr(105)], last_offset=107),
        B2(110, [cr(o) for o in range(110, 114)], codec="gzip"),
        B2(120, [cr(121), cr(125), cr(126)], codec="snappy", last_offset=127),
        B2(130, [cr(130, False), cr(133, False)]),
        BE(135, 139, T0 + 2000 + 139 * 5, 5001, 2, 40),
        B2(150, [cr(o) for o in range(150, 155)], codec="zstd"),
    ]
    g.log("segments/compacted/" + seg_name(100, "log"), 100, items, "compacted",
          "as left by the log cleaner: file base 100, first batch 103, gaps between batches, "
          "offset gaps inside batches, lastOffsetDelta > count-1, tombstones, an empty batch",
          detail=True)

    # the multi-batch v2 segment the damaged cases are copied from
    rng = random.Random(20231114)
    stream = batch_stream(rng, lambda rng, o: b"sku-%05d" % rng.randrange(3000), order_value,
                          ["none", "gzip", "none", "snappy", "lz4", "none", "zstd"],
                          Producer(4001, 0), Producer(), lambda i: 1, min_recs=2, max_recs=9)
    items = split_segments(stream, [32 * 1024])[0]
    data, fact, info = g.log("segments/v2-multi/" + seg_name(0, "log"), 0, items, "v2-multi",
                             "healthy multi-batch v2 segment (~32 KB, mixed codecs) with "
                             "its .index/.timeindex; source of the damaged/ cases", indexes=True)
    return data, fact, info


# ---------------------------------------------------------------------------
# 2. the multi-segment partition, and the datadir partitions

def leader_epochs(items):
    out = []
    for it in items:
        le = struct.unpack_from(">i", it.data, 12)[0]
        if le >= 0 and (not out or le > out[-1][0]):
            out.append((le, it.meta["base_offset"]))
    return out


def offsets_checkpoint(entries):
    entries = sorted(entries)
    return "0\n%d\n" % len(entries) + "".join("%s %d %d\n" % e for e in entries)


def producer_snapshot(entries):
    """ProducerStateManager snapshot v1: version, CRC-32C of [6, EOF), count,
    46-byte entries (pid, epoch, lastSeq, lastOffset, offsetDelta, timestamp,
    coordinatorEpoch, currentTxnFirstOffset)."""
    body = struct.pack(">i", len(entries)) + b"".join(
        struct.pack(">qhiqiqiq", e["producer_id"], e["producer_epoch"], e["last_sequence"],
                    e["last_offset"], e["offset_delta"], e["timestamp"], e["coordinator_epoch"],
                    e["current_txn_first_offset"]) for e in sorted(entries, key=lambda e: e["producer_id"]))
    return struct.pack(">hI", 1, calc_crc32c(body)) + body


def producer_state(items):
    """Producer entries as the broker's ProducerStateManager keeps them after
    appending `items` (last data batch metadata; markers update epoch,
    coordinatorEpoch and lastTimestamp and end the transaction)."""
    st = {}
    for it in items:
        m = it.meta
        if not m or m["producer_id"] < 0:
            continue
        e = st.setdefault(m["producer_id"], {
            "producer_id": m["producer_id"], "producer_epoch": m["producer_epoch"],
            "last_sequence": -1, "last_offset": -1, "offset_delta": 0, "timestamp": -1,
            "coordinator_epoch": -1, "current_txn_first_offset": -1})
        e["producer_epoch"] = m["producer_epoch"]
        if m["control"]:
            e["coordinator_epoch"] = m["coordinator_epoch"]
            e["timestamp"] = m["max_timestamp"]
            e["current_txn_first_offset"] = -1
        elif m["count"] > 0:
            e["last_sequence"] = m["base_sequence"] + (m["last_offset"] - m["base_offset"])
            e["last_offset"] = m["last_offset"]
            e["offset_delta"] = m["last_offset"] - m["base_offset"]
            e["timestamp"] = m["max_timestamp"]
            if m["transactional"] and e["current_txn_first_offset"] < 0:
                e["current_txn_first_offset"] = m["base_offset"]
    return list(st.values())


def emit_partition(g, pdir, topic_id, segments, case, desc, snapshot=True, txn_entries=(),
                   active_prealloc=None):
    """Write a partition directory from segments [(base, items)]; the last
    segment is the active one (prealloc: live zero-padded indexes, no
    closing time-index entry). Returns the partition facts."""
    all_items = [it for _, items in segments for it in items]
    facts = {"path": pdir, "case": case, "description": desc, "topic_id": topic_id,
             "segments": []}
    for k, (base, items) in enumerate(segments):
        active = k == len(segments) - 1
        rel = "%s/%s" % (pdir, seg_name(base, "log"))
        prealloc = active_prealloc if active else None
        _, fact, _ = g.log(rel, base, items, case, desc + " (segment %d of %d)" % (k + 1, len(segments)),
                           indexes=True, final_time_entry=prealloc is None, index_prealloc=prealloc)
        facts["segments"].append(rel)
    epochs = leader_epochs(all_items)
    g.write(pdir + "/leader-epoch-checkpoint", epoch_checkpoint(epochs))
    g.write(pdir + "/partition.metadata", partition_metadata(topic_id))
    leo = all_items[-1].meta["last_offset"] + 1
    facts.update({"log_start_offset": segments[0][1][0].meta["base_offset"],
                  "log_end_offset": leo,
                  "leader_epochs": [{"epoch": e, "start_offset": s} for e, s in epochs]})
    if snapshot:
        entries = producer_state(all_items)
        rel = "%s/%s" % (pdir, seg_name(leo, "snapshot"))
        g.write(rel, producer_snapshot(entries))
        facts["snapshot"] = {"path": rel, "end_offset": leo, "entries": entries}
    facts["txnindex"] = []
    for base, _ in segments:
        # an aborted txn belongs to the segment holding its ABORT marker
        mine = [t for t in txn_entries if base <= t["last_offset"] and
                all(t["last_offset"] < b for b, _ in segments if b > base)]
        if mine:
            rel = "%s/%s" % (pdir, seg_name(base, "txnindex"))
            g.write(rel, b"".join(struct.pack(">hqqqq", 0, t["producer_id"], t["first_offset"],
                                              t["last_offset"], t["last_stable_offset"])
                                  for t in mine))
            facts["txnindex"].append({"path": rel, "entries": mine})
    g.partitions.append(facts)
    return facts


def orders0_segments():
    rng = random.Random(424242)
    stream = batch_stream(rng, lambda rng, o: b"order-%07d" % o, order_value,
                          ["none", "gzip", "snappy", "lz4", "zstd", "none"],
                          Producer(1001, 0), Producer(),
                          lambda i: 0 if i < 40 else (1 if i < 90 else 3), max_recs=20)
    segs = split_segments(stream, [62000, 57000, 48000])
    return [(items[0].meta["base_offset"], items) for items in segs]


def orders1_segments():
    rng = random.Random(77)
    stream = batch_stream(rng, lambda rng, o: b"order-%07d" % (o + 5000000), order_value,
                          ["zstd", "none", "lz4"], Producer(1002, 0), Producer(1002, 0),
                          lambda i: 2, max_recs=6, late_every=0)
    items = split_segments(stream, [3000])[0]
    return [(0, items)]


def payments0_segments():
    rng = random.Random(9)
    A, B = 2001, 2002

    def recs(lo, hi):
        return [Rec(o, T0 + 3000 + o * 13, b"pay-%04d" % o, payment_value(rng, o)) for o in range(lo, hi)]
    items = [
        B2(0, recs(0, 3), producer_id=A, producer_epoch=0, base_sequence=0, transactional=True),
        BC(3, "COMMIT", A, 0, 3, T0 + 3000 + 3 * 13),
        B2(4, recs(4, 7), codec="gzip", producer_id=A, producer_epoch=0, base_sequence=3,
           transactional=True),
        B2(7, recs(7, 9), producer_id=B, producer_epoch=0, base_sequence=0, transactional=True),
        BC(9, "ABORT", A, 0, 3, T0 + 3000 + 9 * 13),
        B2(10, recs(10, 12), producer_id=B, producer_epoch=0, base_sequence=2, transactional=True),
        BC(12, "COMMIT", B, 0, 3, T0 + 3000 + 12 * 13),
        B2(13, recs(13, 16), producer_id=A, producer_epoch=0,
           base_sequence=6, transactional=True),
        BC(16, "COMMIT", A, 0, 3, T0 + 3000 + 16 * 13),
    ]
    # The ABORT at 9 ends A's transaction that began at 4 while B's (begun
    # at 7) is still open: lastStableOffset = 7 (ProducerStateManager
    # .lastStableOffset: first offset of the earliest other ongoing txn).
    txn = [{"producer_id": A, "first_offset": 4, "last_offset": 9, "last_stable_offset": 7}]
    return [(0, items)], txn


def clicks0_segments():
    rng = random.Random(31337)
    stream = batch_stream(rng, lambda rng, o: None, click_value, ["snappy", "none", "lz4"],
                          Producer(), Producer(), lambda i: 2, max_recs=14, late_every=4)
    return [(0, split_segments(stream, [30000])[0])]


def gen_partition(g):
    segs = orders0_segments()
    rng = random.Random(1)
    topic_ids = {t: kafka_uuid(rng) for t in ("orders", "payments", "clicks")}
    cluster_id = kafka_uuid(rng)
    emit_partition(g, "partition/orders-0", topic_ids["orders"], segs, "orders-0",
                   "indexed 3-segment partition, idempotent producer 1001 plus a late "
                   "non-idempotent producer, leader epochs 0, 1, 3")
    return segs, topic_ids, cluster_id


# ---------------------------------------------------------------------------
# 3. the broker data dir

def gen_datadir(g, orders_segs, topic_ids, cluster_id):
    dd = "datadir"
    parts = {}
    parts["orders-0"] = emit_partition(g, dd + "/orders-0", topic_ids["orders"], orders_segs,
                                       "datadir/orders-0", "copy of partition/orders-0")
    parts["orders-1"] = emit_partition(g, dd + "/orders-1", topic_ids["orders"], orders1_segments(),
                                       "datadir/orders-1", "small healthy partition, one segment")
    psegs, txn = payments0_segments()
    parts["payments-0"] = emit_partition(g, dd + "/payments-0", topic_ids["payments"], psegs,
                                         "datadir/payments-0",
                                         "transactional producers 2001/2002, txn 4..9 aborted",
                                         txn_entries=txn)
    csegs = clicks0_segments()
    parts["clicks-0"] = emit_partition(g, dd + "/clicks-0", topic_ids["clicks"], csegs,
                                       "datadir/clicks-0",
                                       "active segment of a running broker (preallocated index "
                                       "tails), one bit flipped in a middle batch",
                                       snapshot=False, active_prealloc=(10 * 4096, 10 * 4096 // 12 * 12))
    # damage clicks-0 after its (live) indexes were written
    rel = dd + "/clicks-0/" + seg_name(0, "log")
    fact = next(f for f in g.logs if f["path"] == rel)
    with open(g.path(rel), "rb") as f:
        healthy = f.read()
    data = bytearray(healthy)
    victim = fact["batches"][len(fact["batches"]) // 2]
    byte_pos = victim["position"] + victim["size"] - 20
    data[byte_pos] ^= 0x10
    g.write(rel, bytes(data))
    apply_damage_facts(fact, bytes(data), healthy, [
        problem(rel, "crc_mismatch", "error", victim["position"], victim["base_offset"])],
        {"kind": "bitflip", "byte_position": byte_pos, "bit": 4}, victim["position"])

    # checkpoints (sorted by topic, partition); the broker was not shut down
    # cleanly: clicks-0 never flushed, orders-0 flushed up to its active segment
    leo = {p: f["log_end_offset"] for p, f in parts.items()}
    tp = lambda p: (p.rsplit("-", 1)[0], int(p.rsplit("-", 1)[1]))   # noqa: E731
    recovery = {"orders-0": orders_segs[-1][0], "orders-1": leo["orders-1"],
                "payments-0": leo["payments-0"], "clicks-0": 0}
    cleaner = {"orders-1": leo["orders-1"] - 4}
    cps = {
        "recovery-point-offset-checkpoint": recovery,
        "replication-offset-checkpoint": leo,
        "log-start-offset-checkpoint": {p: 0 for p in parts},
        "cleaner-offset-checkpoint": cleaner,
    }
    for name, vals in cps.items():
        g.write(dd + "/" + name, offsets_checkpoint([tp(p) + (v,) for p, v in vals.items()]))
    g.write(dd + "/meta.properties",
            "#\n#Tue Nov 14 22:13:20 UTC 2023\ncluster.id=%s\nversion=0\nbroker.id=1\n" % cluster_id)
    g.datadir = {
        "path": dd, "cluster_id": cluster_id, "broker_id": 1, "meta_version": 0,
        "clean_shutdown": False,
        "checkpoints": {name: [{"topic": tp(p)[0], "partition": tp(p)[1], "offset": v}
                               for p, v in sorted(vals.items(), key=lambda kv: tp(kv[0]))]
                        for name, vals in cps.items()},
        "partitions": sorted(parts),
        "expected_problems": fact["problems"],
    }


# ---------------------------------------------------------------------------
# 4. damaged copies of segments/v2-multi

def problem(file, code, severity, position, offset, **extra):
    d = {"file": file, "code": code, "severity": severity, "position": position, "offset": offset}
    d.update(extra)
    return d


def apply_damage_facts(fact, data, src, problems, damage, expected_valid):
    """Turn a healthy log fact into the damaged one: the batches of the
    original layout, each flagged intact (bytes unchanged) or not, and
    valid_bytes from the recovery walk, checked against the case's own
    expectation."""
    _, valid, stop = kafka_index.recover_scan(data)
    assert valid == expected_valid, (fact["path"], valid, expected_valid)
    batches = [dict(b, intact=data[b["position"]:b["position"] + b["size"]] ==
                    src[b["position"]:b["position"] + b["size"]]) for b in fact["batches"]]
    fact.update({"size": len(data), "valid_bytes": valid, "recovery_stop": stop,
                 "batches": batches, "problems": problems, "damage": damage,
                 "intact_batches": sum(b["intact"] for b in batches),
                 "records_intact": sum(b["count"] for b in batches if b["intact"]),
                 "records_valid": sum(b["count"] for b in batches
                                      if b["position"] + b["size"] <= valid)})


def gen_damaged(g, src, src_fact, src_info):
    layout = src_fact["batches"]
    n = len(layout)
    mid = layout[n // 2]
    v2 = lambda b: b["magic"] == 2   # noqa: E731
    assert all(v2(b) for b in layout)
    idx_entries = src_info["index_entries"]
    time_entries = src_info["time_entries"]

    def bitflip():
        b = next(x for x in layout[n // 2:] if x["codec"] == "none")
        pos = b["position"] + b["size"] - 10           # inside the last record's value
        d = bytearray(src)
        d[pos] ^= 0x04
        return {"log": d, "valid": b["position"],
                "damage": {"kind": "bitflip", "byte_position": pos, "bit": 2,
                           "note": "a value byte of an uncompressed batch: only the CRC shows it"},
                "problems": [("log", "crc_mismatch", "error", b["position"], b["base_offset"], {})]}

    def torn_tail():
        b = layout[-1]
        cut = b["position"] + b["size"] // 2
        assert cut - b["position"] > 61
        return {"log": bytearray(src[:cut]), "valid": b["position"],
                "damage": {"kind": "torn_tail", "cut_at": cut, "batch_position": b["position"]},
                "problems": [("log", "truncated", "error", b["position"], b["base_offset"], {})]}

    def zeroed_page():
        # a page that starts inside batch B's records (B keeps its header, so:
        # crc_mismatch at B), ends after B (the rest of the page is a zero run
        # that starts at B's end and stops exactly at the page end)
        for k in range(1, len(src) // 4096):
            P = k * 4096
            B = next(x for x in layout if x["position"] <= P < x["position"] + x["size"])
            bend = B["position"] + B["size"]
            if P - B["position"] >= 61 and bend < P + 4096 and src[P + 4096] != 0 and \
                    P + 4096 < len(src) - 4096:
                d = bytearray(src)
                d[P:P + 4096] = bytes(4096)
                resync = next(x["position"] for x in layout if x["position"] >= P + 4096)
                lost = [x["base_offset"] for x in layout
                        if x["position"] < P + 4096 and x["position"] + x["size"] > P]
                return {"log": d, "valid": B["position"],
                        "damage": {"kind": "zeroed_page", "page_position": P, "page_length": 4096,
                                   "zero_run_position": bend, "zero_run_length": P + 4096 - bend,
                                   "resync_position": resync, "lost_batch_base_offsets": lost,
                                   "note": "bytes from the page end up to resync_position are the "
                                           "tail of a batch whose header was zeroed"},
                        "problems": [("log", "crc_mismatch", "error", B["position"], B["base_offset"], {}),
                                     # kfsck names the zero run itself, page-aligned
                                     ("log", "zero_fill", "error", P, None, {"length": 4096})]}
        raise AssertionError("no suitable page in the source segment")

    def zero_tail():
        return {"log": bytearray(src) + bytes(8192), "valid": len(src),
                "damage": {"kind": "zero_tail", "position": len(src), "length": 8192,
                           "note": "preallocated segment: not data loss"},
                "problems": [("log", "zero_fill", "warning", len(src), None, {"length": 8192})]}

    def bad_magic():
        d = bytearray(src)
        d[mid["position"] + 16] = 7
        return {"log": d, "valid": len(src),
                "damage": {"kind": "bad_magic", "byte_position": mid["position"] + 16, "magic": 7,
                           "note": "magic is not covered by the v2 CRC: broker recovery parses "
                                   "magic >= 2 as v2, the CRC still matches, nothing is truncated"},
                "problems": [("log", "bad_magic", "error", mid["position"], mid["base_offset"], {})]}

    def absurd_length():
        d = bytearray(src)
        struct.pack_into(">i", d, mid["position"] + 8, 0x7FFFFFF0)
        return {"log": d, "valid": mid["position"],
                "damage": {"kind": "absurd_length", "byte_position": mid["position"] + 8,
                           "length_field": 0x7FFFFFF0,
                           "note": "the entry seems to run past EOF, so broker recovery stops "
                                   "there silently; later batches are intact"},
                "problems": [("log", "bad_length", "error", mid["position"], mid["base_offset"], {})]}

    def index_past_log():
        i = len(idx_entries) - 1
        ents = list(idx_entries)
        ents[i] = (ents[i][0], len(src) + 4096)
        return {"log": bytearray(src), "valid": len(src), "index_entries": ents,
                "damage": {"kind": "index_past_log", "entry": i, "index_position": 8 * i,
                           "position_field": len(src) + 4096},
                "problems": [("index", "index_beyond_log", "error", 8 * i, ents[i][0], {})]}

    def index_not_monotonic():
        i = len(idx_entries) // 2 + 1
        ents = list(idx_entries)
        ents[i - 1], ents[i] = ents[i], ents[i - 1]
        return {"log": bytearray(src), "valid": len(src), "index_entries": ents,
                "damage": {"kind": "index_swapped", "entries": [i - 1, i], "index_position": 8 * i,
                           "note": "entries i-1 and i swapped; each still names a real batch"},
                "problems": [("index", "index_not_monotonic", "error", 8 * i, ents[i][0], {})]}

    def timeindex_not_monotonic():
        i = len(time_entries) // 2 + 1
        ents = list(time_entries)
        ents[i - 1], ents[i] = ents[i], ents[i - 1]
        return {"log": bytearray(src), "valid": len(src), "time_entries": ents,
                "damage": {"kind": "timeindex_swapped", "entries": [i - 1, i],
                           "index_position": 12 * i,
                           "note": "entries i-1 and i swapped; timestamps and offsets go back"},
                "problems": [("timeindex", "timeindex_not_monotonic", "error", 12 * i, ents[i][1], {})]}

    cases = [("bitflip", bitflip), ("torn-tail", torn_tail), ("zeroed-page", zeroed_page),
             ("zero-tail", zero_tail), ("index-past-log", index_past_log),
             ("index-not-monotonic", index_not_monotonic), ("bad-magic", bad_magic),
             ("absurd-length", absurd_length), ("timeindex-not-monotonic", timeindex_not_monotonic)]
    for name, fn in cases:
        c = fn()
        d = "damaged/" + name
        files = {"log": "%s/%s" % (d, seg_name(0, "log")),
                 "index": "%s/%s" % (d, seg_name(0, "index")),
                 "timeindex": "%s/%s" % (d, seg_name(0, "timeindex"))}
        data = bytes(c["log"])
        g.write(files["log"], data)
        with_index = "index_entries" in c or "time_entries" in c
        if with_index:
            ie = c.get("index_entries", idx_entries)
            te = c.get("time_entries", time_entries)
            g.write(files["index"], b"".join(struct.pack(">ii", o, p) for o, p in ie))
            g.write(files["timeindex"], b"".join(struct.pack(">qi", t, o) for t, o in te))
            for kind, ents, fmt in (("offset", ie, "index"), ("time", te, "timeindex")):
                g.indexes.append({
                    "path": files[fmt], "kind": kind, "log": files["log"], "base_offset": 0,
                    "size": len(ents) * (8 if kind == "offset" else 12), "entry_count": len(ents),
                    "zero_tail_bytes": 0,
                    "entries": ([{"offset": o, "position": p} for o, p in ents] if kind == "offset"
                                else [{"timestamp": t, "offset": o} for t, o in ents]),
                    "matches_rebuild": list(ents) == list(idx_entries if kind == "offset" else time_entries)})
        fact = dict(src_fact)
        fact.update({"path": files["log"], "case": "damaged/" + name,
                     "description": "copy of segments/v2-multi with damage: " + c["damage"]["kind"],
                     "source": src_fact["path"]})
        probs = [problem(files[f], code, sev, pos, off, **ex) for f, code, sev, pos, off, ex in c["problems"]]
        apply_damage_facts(fact, data, src, probs, c["damage"], c["valid"])
        g.logs.append(fact)


# ---------------------------------------------------------------------------
# 5. three damaged replicas of orders-0, for `kfsck merge`

def gen_replicas(g, topic_id):
    """replicas/broker-{1,2,3}/orders-0: the batches of partition/orders-0,
    each copy damaged elsewhere. broker-1: a bit flip in segment 0 and one in
    batch 12 of segment 398; broker-2: another bit flip in that batch and a
    torn last batch; broker-3: a zeroed page over that batch and, in segment
    812, one batch whose partition leader epoch was raised (outside the CRC:
    still valid, other bytes: a conflict). broker-1 and broker-3 lag by the
    last batch. So batch 12 of segment 398 and the last batch are holes; every
    other batch is intact in some copy. replicas/MANIFEST.json has the facts."""
    segs = orders0_segments()
    names = ["broker-1", "broker-2", "broker-3"]
    last_seg = len(segs) - 1
    hole_batch = (1, 12)
    conflict_batch = (2, 5)
    # per copy: segment k -> list of batch bytes (None = left out)
    copies = []
    for c in range(3):
        copy = []
        for k, (base, items) in enumerate(segs):
            datas = [bytearray(it.data) for it in items]
            if c in (0, 2) and k == last_seg:
                datas = datas[:-1]                      # a follower one batch behind
            copy.append(datas)
        copies.append(copy)
    damage = []

    def flip(c, k, i, back, bit):
        b = copies[c][k][i]
        b[len(b) - back] ^= 1 << bit
        damage.append({"copy": names[c], "kind": "bitflip", "segment": segs[k][0],
                       "batch_base_offset": segs[k][1][i].meta["base_offset"]})

    flip(0, 0, 10, 30, 3)
    flip(0, 1, hole_batch[1], 40, 1)
    flip(1, 1, hole_batch[1], 25, 6)
    # broker-3: epoch patch (bytes 12..15 are not covered by the v2 CRC)
    k, i = conflict_batch
    cb = copies[2][k][i]
    old_epoch = struct.unpack_from(">i", cb, 12)[0]
    struct.pack_into(">i", cb, 12, old_epoch + 1)
    damage.append({"copy": names[2], "kind": "leader_epoch", "segment": segs[k][0],
                   "batch_base_offset": segs[k][1][i].meta["base_offset"],
                   "leader_epoch": old_epoch + 1})

    files = {}
    for c in range(3):
        pdir = "replicas/%s/orders-0" % names[c]
        all_items = []
        for k, (base, items) in enumerate(segs):
            healthy = b"".join(bytes(d) for d in copies[c][k])
            data = bytearray(healthy)
            if c == 1 and k == last_seg:                # torn tail: half the last batch
                data = data[:len(data) - len(copies[c][k][-1]) // 2]
                damage.append({"copy": names[c], "kind": "torn_tail", "segment": base,
                               "batch_base_offset": items[-1].meta["base_offset"]})
            if c == 2 and k == hole_batch[0]:           # a zeroed page over the hole batch
                pos = sum(len(d) for d in copies[c][k][:hole_batch[1]])
                page = (pos + len(copies[c][k][hole_batch[1]]) // 2) // 4096 * 4096
                data[page:page + 4096] = bytes(min(4096, len(data) - page))
                damage.append({"copy": names[c], "kind": "zeroed_page", "segment": base,
                               "position": page, "length": 4096})
            # indexes as the broker wrote them before the damage
            info = kafka_index.build_indexes(healthy, base, INDEX_INTERVAL, True)
            g.write("%s/%s" % (pdir, seg_name(base, "log")), bytes(data))
            g.write("%s/%s" % (pdir, seg_name(base, "index")), info["index"])
            g.write("%s/%s" % (pdir, seg_name(base, "timeindex")), info["timeindex"])
            files[(c, k)] = bytes(data)
            all_items += [Item(bytes(d), [], base_offset=items[j].meta["base_offset"])
                          for j, d in enumerate(copies[c][k])]
        g.write(pdir + "/leader-epoch-checkpoint", epoch_checkpoint(leader_epochs(all_items)))
        g.write(pdir + "/partition.metadata", partition_metadata(topic_id))

    # facts: for each batch of the full stream, which copies hold it intact
    batches = []
    for k, (base, items) in enumerate(segs):
        for i, it in enumerate(items):
            orig = it.data
            intact, epochs, crcs = [], [], []
            for c in range(3):
                data = files[(c, k)]
                pos = sum(len(d) for d in copies[c][k][:i]) if i < len(copies[c][k]) else None
                held = pos is not None and data[pos:pos + len(orig)] == bytes(copies[c][k][i])
                same = held and bytes(copies[c][k][i]) == orig
                ok = held and (same or (k, i) == conflict_batch and c == 2)
                intact.append(ok)
                epochs.append(struct.unpack_from(">i", copies[c][k][i], 12)[0] if ok else None)
            batches.append({"segment": base, "base_offset": it.meta["base_offset"],
                            "last_offset": it.meta["last_offset"],
                            "crc": struct.unpack_from(">I", orig, 17)[0],
                            "intact": intact, "leader_epochs": epochs})

    # broker-4: the leader of epoch 1, never truncated: the batches of the
    # last segment up to the start of epoch 3 (retention deleted the older
    # segments), then its own epoch-1 batches from there (other records, other
    # batch boundaries) past the others' log end
    epoch3 = min(it.meta["base_offset"] for _, items in segs for it in items
                 if struct.unpack_from(">i", it.data, 12)[0] == 3)
    rng = random.Random(4040)
    off, clock, div = epoch3, T0 + 900000, []
    while off <= 1150:
        n = rng.choice([5, 7, 9, 11, 13])
        recs = []
        for j in range(n):
            clock += rng.randint(1, 40)
            recs.append(Rec(off + j, clock, b"zombie-%07d" % (off + j), order_value(rng, off + j)))
        div.append(B2(off, recs, codec=["none", "gzip", "lz4"][len(div) % 3], leader_epoch=1))
        off += n
    pdir4 = "replicas/broker-4/orders-0"
    seg4 = []
    for k, (base, items) in enumerate(segs):
        if k != last_seg:
            continue
        keep = [it for it in items if it.meta["last_offset"] < epoch3] + div
        seg4.append((base, keep))
        data = b"".join(it.data for it in keep)
        info = kafka_index.build_indexes(data, base, INDEX_INTERVAL, True)
        g.write("%s/%s" % (pdir4, seg_name(base, "log")), data)
        g.write("%s/%s" % (pdir4, seg_name(base, "index")), info["index"])
        g.write("%s/%s" % (pdir4, seg_name(base, "timeindex")), info["timeindex"])
    items4 = [it for _, items in seg4 for it in items]
    g.write(pdir4 + "/leader-epoch-checkpoint", epoch_checkpoint(leader_epochs(items4)))
    g.write(pdir4 + "/partition.metadata", partition_metadata(topic_id))

    # each copy as the merge model takes it: intact batches, damaged ranges
    def model_copy(c):
        if c == 3:
            present = [(it.data, True) for it in items4]
            ckpt = leader_epochs(items4)
        else:
            present = []
            for k in range(len(segs)):
                data = files[(c, k)]
                pos = 0
                for i, d in enumerate(copies[c][k]):
                    held = data[pos:pos + len(d)] == bytes(d)
                    valid = bytes(d) == segs[k][1][i].data or ((k, i) == conflict_batch and c == 2)
                    present.append((bytes(d), held and valid))
                    pos += len(d)
            ckpt = leader_epochs([Item(bytes(d), [], base_offset=struct.unpack_from(">q", d, 0)[0])
                                  for k in range(len(segs)) for d in copies[c][k]])
        out, windows, prev, lo = [], [], None, None
        for d, ok in present:
            first = struct.unpack_from(">q", d, 0)[0]
            last = first + struct.unpack_from(">i", d, 23)[0]
            if not ok:
                if lo is None:
                    lo = prev + 1 if prev is not None else segs[0][0]
                hi = last                               # a torn entry's header still names it
                continue
            if lo is not None:
                windows.append((lo, first - 1))
                lo = None
            out.append({"first": first, "last": last, "epoch": struct.unpack_from(">i", d, 12)[0], "data": d})
            prev = last
        if lo is not None:
            windows.append((lo, hi))
        return {"batches": out, "windows": windows, "checkpoint": ckpt,
                "bases": [b for b, _ in (seg4 if c == 3 else segs)]}

    labels = ["%s/orders-0" % n for n in names + ["broker-4"]]
    model = [model_copy(c) for c in range(4)]

    def expect(which):
        m = merge_model.merge([model[c] for c in which])
        for cf in m["conflicts"]:
            cf["chosen"] = labels[which[cf["chosen"]]]
        for b in m["batches"]:
            src = model[which[b.pop("copy")]]["batches"]
            b["crc"] = struct.unpack_from(">I", [x for x in src if x["first"] == b["base_offset"]][0]["data"], 17)[0]
        return {"copies": [labels[c] for c in which], "conflicts": m["conflicts"], "holes": m["holes"],
                "batches": m["batches"]}

    main = expect([0, 1, 2])
    # the epoch-2 batch of broker-3 is taken, and every epoch-1 batch past its
    # start is a history the cluster discarded: one conflict over all of them
    assert [c["start_offset"] for c in main["conflicts"]] == [856], main["conflicts"]
    diverged = [expect([1, 3]), expect([0, 1, 2, 3])]
    assert diverged[0]["conflicts"][0]["start_offset"] == epoch3 and \
        diverged[0]["conflicts"][0]["end_offset"] == div[-1].meta["last_offset"], diverged[0]
    manifest = {
        # the generator's path before tools/ was split by role, kept so that the
        # committed fixtures stay byte-identical
        "generator": "tools/gen/gen_fixtures.py (gen_replicas)",
        "partition": "orders-0", "topic_id": topic_id,
        "copies": ["%s/orders-0" % n for n in names],
        "segment_bases": [base for base, _ in segs],
        "notes": ["Paths are relative to fixtures/replicas.",
                  "batches: every batch of the undamaged partition in offset order; intact[i]: copy i "
                  "holds it with valid bytes (the leader-epoch-patched batch counts as intact: it "
                  "is valid, only its epoch differs); leader_epochs[i]: its epoch in copy i.",
                  # (the model's path before tools/ was split by role: tools/model/merge_model.py)
                  "conflicts, holes, merged: what merging the three copies gives "
                  "(tools/model/merge_model.py): broker-3's epoch-2 batch at 856 is taken, and the "
                  "epoch-1 batches past it in every copy are a discarded history (left out: one "
                  "conflict; offsets only they hold: a hole).",
                  "two_copies: merging broker-1 and broker-2 alone.",
                  "diverged: broker-4 was the leader of epoch 1 and was never truncated: it holds "
                  "the batches up to the start of epoch 3, then its own epoch-1 batches with other "
                  "boundaries past the others' log end; merges with it and what they give."],
        "damage": damage, "batches": batches, "holes": main["holes"], "conflicts": main["conflicts"],
        "merged": main["batches"], "two_copies": expect([0, 1]), "diverged_copy": labels[3],
        "diverged": diverged,
    }
    g.write("replicas/MANIFEST.json", json.dumps(manifest, indent=1) + "\n")


# ---------------------------------------------------------------------------

def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: %s OUTDIR\n" % argv[0])
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for name in OWNED:
        p = os.path.join(out, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    g = Gen(out)
    src, src_fact, src_info = gen_segments(g)
    orders_segs, topic_ids, cluster_id = gen_partition(g)
    gen_datadir(g, orders_segs, topic_ids, cluster_id)
    gen_damaged(g, src, src_fact, src_info)
    gen_replicas(g, topic_ids["orders"])
    gen_offsets.generate(out)
    gen_sink.generate(out)
    gen_txns.generate(out)
    gen_kraft.generate(out)
    manifest = {
        # the generator's path before tools/ was split by role, kept so that the
        # committed fixtures stay byte-identical
        "generator": "tools/gen/gen_fixtures.py",
        "kafka_python": kafka.__version__,
        "notes": [
            "Paths are relative to the fixtures directory.",
            "valid_bytes: where broker recovery (LogSegment.recover) truncates: start of the first "
            "entry with size < 14, v2 size < 61, or a CRC mismatch; a torn entry or <= 17 bytes "
            "left also end it. recovery_stop names the reason (end, short_tail, torn, bad_size, "
            "too_small, crc).",
            "records counts every record of every batch incl. control records; data_records "
            "leaves out control batches. Damaged logs: batches is the original layout, each with "
            "intact = its bytes are unchanged.",
            "Legacy (v0/v1) batches: offset is the wrapper offset (= last_offset); base_offset "
            "is the first inner absolute offset; producer fields, leader_epoch null; v0 "
            "timestamps null.",
            "Index entries use absolute offsets; index problem positions are byte offsets "
            "in the index file.",
            "problems lists the damage each case was built to show (code, position, offset); "
            "a reader may report more (e.g. what it finds after resynchronising), so assert "
            "that these are present rather than that they are the only ones.",
        ],
        "logs": g.logs, "indexes": g.indexes, "partitions": g.partitions, "datadir": g.datadir,
    }
    with open(os.path.join(out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
