#!/usr/bin/python3
"""gen_sink: build the fixtures of kfsck's storage-sink catch-up simulation
(`kfsck stats --sink-partition-duration`), fixtures/sink/.

Called by tools/gen/gen_fixtures.py (its main calls `generate(OUTDIR)`); can also
be run alone: /usr/bin/python3 tools/gen/gen_sink.py OUTDIR  (writes OUTDIR/sink).

Writes, below OUTDIR/sink/ (replacing that directory):
  datadir/events-0/   ordered timestamps (30 s apart), two segments
  datadir/events-1/   disordered: the same clock with up to +-45 min of jitter,
                      so records of neighbouring hours interleave
  datadir/events-2/   mostly ordered with very late records (1 to 7 days
                      behind), two segments, a committed transaction (control
                      batch) and a log-append-time batch
  datadir/legacy-0/   a partition whose message format moved on: magic 0
                      messages (no timestamp), magic 1 (plain and a gzip
                      wrapper), then magic 2 with two records whose
                      timestamp is -1
  damaged/events-1/   events-1 with one batch bit-flipped (CRC mismatch) and
                      one gzip batch whose payload is garbage under a
                      recomputed CRC (does not decompress)
  MANIFEST.json       what was written: per partition its segments, record
                      counts, control and log-append-time batches, codecs,
                      and, for damaged/, the damage

`gen_sink.py --seed-example OUTDIR` writes instead the scaled seed example of
the sink playbook (docs/guide.md; seed_example below), not a committed fixture.

Batches come from kafka-python's builders via tools/gen/kafkafmt.py, indexes from
tools/model/kafka_index.py. Timestamps start at 1700000000000 ms
(2023-11-14T22:13:20Z); randomness is seeded, so two runs give identical
bytes. The tests compute their expected figures by reading these segments
back with kafka-python, not from this file's intentions.
"""

import json
import os
import random
import shutil
import struct
import sys

# this folder (the encoders) and tools/model/ (the models the expectations come from)
_TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(_TOOLS, "gen"), os.path.join(_TOOLS, "model")]

import kafka_index                                          # noqa: E402
from kafkafmt import (Rec, describe_segment, legacy_entries,  # noqa: E402
                      seg_name, v2_batch, v2_control_batch)
from kafka.record.util import calc_crc32c                   # noqa: E402

ROOT = "sink"
T0 = 1700000000000
STEP = 30000                 # 30 s between records of the producer's clock
MIN = 60000
HOUR = 3600000
DAY = 86400000
RECORDS = 400                # per events partition
CODECS = ("none", "gzip", "lz4", "zstd", "snappy")


def value(rng, i):
    """A small JSON-ish value that compresses (so kafka-python keeps the codec)."""
    return (b'{"event":"click","user":"user-%03d","seq":%d,"page":"/catalog/items/%d","ok":true}'
            % (rng.randrange(50), i, rng.randrange(20)))


def batches_of(rng, recs, first_codec=0):
    """Cut recs into batches of 1..12 records; batches of 4 or more records
    take the next codec in turn, smaller ones are left uncompressed."""
    out, i, k = [], 0, first_codec
    while i < len(recs):
        n = rng.randint(1, 12)
        chunk = recs[i:i + n]
        codec = "none"
        if len(chunk) >= 4:
            codec = CODECS[k % len(CODECS)]
            k += 1
        out.append({"recs": chunk, "codec": codec})
        i += n
    return out


class Part:
    """One partition being built: batches in offset order, cut into segments."""

    def __init__(self, topic, partition, case):
        self.topic, self.partition, self.case = topic, partition, case
        self.entries = []   # (bytes, facts)
        self.next = 0

    def v2(self, recs, codec="none", **kw):
        data = v2_batch(recs[0].offset, recs, codec=codec, **kw)
        self.entries.append((data, {"magic": 2, "codec": codec, "control": False,
                                    "log_append_time": kw.get("log_append_time"),
                                    "transactional": kw.get("transactional", False)}))
        self.next = recs[-1].offset + 1

    def control(self, kind, pid, ts):
        self.entries.append((v2_control_batch(self.next, kind, pid, 0, 3, ts),
                             {"magic": 2, "codec": "none", "control": True, "log_append_time": None,
                              "transactional": True}))
        self.next += 1

    def legacy(self, magic, codec, recs):
        self.entries.append((legacy_entries(magic, codec, recs),
                             {"magic": magic, "codec": codec, "control": False, "log_append_time": None,
                              "transactional": False}))
        self.next = recs[-1].offset + 1

    def recs(self, stamps, rng):
        out = []
        for ts in stamps:
            out.append(Rec(self.next + len(out), ts, b"user-%03d" % rng.randrange(50),
                           value(rng, self.next + len(out))))
        return out


def ordered(rng):
    p = Part("events", 0, "ordered")
    stamps = [T0 + i * STEP for i in range(RECORDS)]
    for b in batches_of(rng, p.recs(stamps, rng), 0):
        p.v2(b["recs"], b["codec"])
    return p


def disordered(rng):
    p = Part("events", 1, "disordered")
    stamps = [T0 + i * STEP + rng.randrange(-45 * MIN, 45 * MIN + 1) for i in range(RECORDS)]
    for b in batches_of(rng, p.recs(stamps, rng), 1):
        p.v2(b["recs"], b["codec"])
    return p


def very_late(rng):
    p = Part("events", 2, "very_late")
    stamps = []
    for i in range(RECORDS):
        ts = T0 + i * STEP
        if rng.random() < 0.08:
            ts -= rng.choice((1, 2, 3, 5, 7)) * DAY + rng.randrange(DAY)
        stamps.append(ts)
    recs = p.recs(stamps, rng)
    done = 0
    for n, b in enumerate(batches_of(rng, recs, 2)):
        chunk = b["recs"]
        if n == 6:
            # a transaction: its records, then the coordinator's COMMIT marker
            p.v2(chunk, "none", producer_id=4242, producer_epoch=0, base_sequence=0, transactional=True)
            marker_ts = max(r.timestamp for r in chunk) + 5
            p.control("COMMIT", 4242, marker_ts)
            for r in recs[done + len(chunk):]:   # what follows moves past the marker
                r.offset += 1
        elif n == 11:
            # the broker stamped this batch (message.timestamp.type=LogAppendTime)
            p.v2(chunk, b["codec"], log_append_time=max(r.timestamp for r in chunk) + 250)
        else:
            p.v2(chunk, b["codec"])
        done += len(chunk)
    return p


def legacy(rng):
    p = Part("legacy", 0, "legacy_formats")
    # magic 0: no timestamps at all
    for i in range(6):
        p.legacy(0, "none", [Rec(p.next, 0, b"k%d" % i, value(rng, p.next))])
    p.legacy(0, "gzip", [Rec(p.next + i, 0, b"k", value(rng, p.next + i)) for i in range(4)])
    # magic 1: create time, plain messages then a gzip wrapper
    t = T0 - 2 * HOUR
    for i in range(6):
        p.legacy(1, "none", [Rec(p.next, t + i * 7 * MIN, b"k%d" % i, value(rng, p.next))])
    p.legacy(1, "gzip", [Rec(p.next + i, t + HOUR + i * 11 * MIN, b"k", value(rng, p.next + i))
                         for i in range(6)])
    # magic 2, two records with timestamp -1 (no timestamp)
    stamps = [T0 + i * 4 * MIN for i in range(20)]
    stamps[3] = -1
    stamps[12] = -1
    recs = p.recs(stamps, rng)
    p.v2(recs[:8])
    p.v2(recs[8:], "zstd")
    return p


def split(entries, cut):
    """Two segments: the batches before offset `cut`, and the rest."""
    first = [e for e in entries if e[2] < cut]
    rest = [e for e in entries if e[2] >= cut]
    return [first, rest] if first and rest else [entries]


def layout(p, cut=None):
    """[(base_offset, [bytes...], [facts...])] segments of p."""
    items = []
    for data, facts in p.entries:
        d = describe_segment(data, len(data))
        base = min(x["base_offset"] for x in d)
        items.append((data, facts, base, d))
    groups = split(items, cut) if cut else [items]
    return [(g[0][2], g) for g in groups]


class Writer:
    def __init__(self, out):
        self.out = out

    def write(self, rel, data):
        path = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def partition(self, parent, p, cut=None, damage=None):
        """Write p's segments (with indexes) under parent; returns its facts.
        damage(segment_index, bytearray, batch_facts) may change the bytes."""
        pdir = "%s/%s/%s-%d" % (ROOT, parent, p.topic, p.partition)
        segs, allb, damages = [], [], []
        for si, (base, group) in enumerate(layout(p, cut)):
            data = bytearray(b"".join(g[0] for g in group))
            batches, pos = [], 0
            for raw, facts, _, desc in group:
                for d in desc:
                    batches.append(dict(facts, position=pos, size=d["size"],
                                        base_offset=d["base_offset"], last_offset=d["last_offset"],
                                        count=d["count"], max_timestamp=d["max_timestamp"]))
                    pos += d["size"]
            if damage:
                damages += damage(si, data, batches)
            rel = "%s/%s" % (pdir, seg_name(base, "log"))
            self.write(rel, bytes(data))
            info = kafka_index.build_indexes(bytes(data), base, 4096, True)
            stem = rel[:-len(".log")]
            self.write(stem + ".index", info["index"])
            self.write(stem + ".timeindex", info["timeindex"])
            segs.append({"path": rel, "base_offset": base, "size": len(data), "batches": len(batches)})
            allb += batches
        fact = {"path": pdir, "topic": p.topic, "partition": p.partition, "case": p.case,
                "segments": segs,
                "data_records": sum(b["count"] for b in allb if not b["control"]),
                "control_offsets": [b["base_offset"] for b in allb if b["control"]],
                "log_append_time_batches": [{"base_offset": b["base_offset"], "last_offset": b["last_offset"],
                                             "timestamp": b["log_append_time"]}
                                            for b in allb if b["log_append_time"] is not None],
                "codecs": sorted({b["codec"] for b in allb}),
                "magics": sorted({b["magic"] for b in allb})}
        if damage:
            fact["damage"] = damages
        return fact


def damage_events1(si, data, batches):
    """Bit-flip one uncompressed batch; garble one gzip batch's payload and
    recompute its CRC, so it frames and checks but does not decompress."""
    out = []
    plain = [b for b in batches if b["codec"] == "none" and b["count"] >= 2]
    flip = plain[len(plain) // 2]
    data[flip["position"] + 70] ^= 0x10
    out.append({"kind": "crc_mismatch", "segment": si, "position": flip["position"],
                "base_offset": flip["base_offset"], "last_offset": flip["last_offset"]})
    gz = [b for b in batches if b["codec"] == "gzip" and b["position"] > flip["position"]]
    g = gz[0]
    pos, size = g["position"], g["size"]
    for i in range(pos + 61, pos + size):
        data[i] = 0x41
    struct.pack_into(">I", data, pos + 17, calc_crc32c(bytes(data[pos + 21:pos + size])))
    out.append({"kind": "decompress_error", "segment": si, "position": pos,
                "base_offset": g["base_offset"], "last_offset": g["last_offset"]})
    return out


# ---- the seed example, scaled (not a committed fixture) ----------------------
#
# The out-of-memory report of issue 17 (docs/guide.md, the sink playbook): 32
# partitions of ~1 KiB records, 10-minute buckets, flush.size 100000,
# rotate.schedule.interval.ms 600000, a 24 GB heap, hours of late data. Scaled
# down SEED_SCALE times in records (flush.size 1000, a catch-up rate of 10
# records/s instead of 1000), not in the buckets the records span.

SEED_SCALE = 100
SEED_LIVE_STEP = 333         # ms between live records of a partition: ~3 records/s (300/s at full scale)
SEED_LATE_SHARE = 0.1        # records a replaying producer sends from the past ...
SEED_LATE_SPAN = 4 * HOUR    # ... up to four hours behind the live clock


def seed_value(rng, i, size):
    """~size bytes of a JSON-ish event that lz4 compresses."""
    head = b'{"event":"page_view","user":"user-%05d","seq":%d,"payload":"' % (rng.randrange(100000), i)
    return head + b"x" * max(0, size - len(head) - 2) + b'"}'


def seed_example(out, partitions=32, records=4000, value_size=1000, seed=17):
    """Write out/events-<p>/ for p in 0..partitions-1 (one segment each, with
    indexes): `records` records of ~value_size bytes, in batches of 100
    (lz4), a live clock SEED_LIVE_STEP apart with SEED_LATE_SHARE of the
    records up to SEED_LATE_SPAN late. Returns the partition dirs."""
    rng = random.Random(seed)
    dirs = []
    for part in range(partitions):
        p = Part("events", part, "seed_example")
        t0 = T0 + part * 7000
        stamps = []
        for i in range(records):
            ts = t0 + i * SEED_LIVE_STEP
            if rng.random() < SEED_LATE_SHARE:
                ts -= rng.randrange(SEED_LATE_SPAN)
            stamps.append(ts)
        recs = [Rec(i, ts, b"user-%05d" % rng.randrange(100000), seed_value(rng, i, value_size))
                for i, ts in enumerate(stamps)]
        for i in range(0, len(recs), 100):
            p.v2(recs[i:i + 100], "lz4")
        data = b"".join(e[0] for e in p.entries)
        pdir = os.path.join(out, "events-%d" % part)
        os.makedirs(pdir, exist_ok=True)
        with open(os.path.join(pdir, seg_name(0, "log")), "wb") as f:
            f.write(data)
        info = kafka_index.build_indexes(data, 0, 4096, True)
        for ext in ("index", "timeindex"):
            with open(os.path.join(pdir, seg_name(0, ext)), "wb") as f:
                f.write(info[ext])
        dirs.append(pdir)
    return dirs


def generate(out):
    root = os.path.join(out, ROOT)
    if os.path.isdir(root):
        shutil.rmtree(root)
    rng = random.Random(20231114)
    w = Writer(out)
    e0, e1, e2, lg = ordered(rng), disordered(rng), very_late(rng), legacy(rng)
    parts = [w.partition("datadir", e0, cut=200), w.partition("datadir", e1),
             w.partition("datadir", e2, cut=220), w.partition("datadir", lg)]
    damaged = [w.partition("damaged", e1, damage=damage_events1)]
    manifest = {
        # the generator's path before tools/ was split by role, kept so that the
        # committed fixtures stay byte-identical
        "generator": "tools/gen/gen_sink.py",
        "notes": [
            "Paths are relative to the fixtures directory.",
            "control_offsets: the transaction markers; log_append_time_batches: batches the "
            "broker stamped (every record's timestamp is `timestamp`).",
            "damage: what was done to damaged/ copies (the batch at position in segment index "
            "`segment` of that partition).",
        ],
        "partitions": parts,
        "damaged": damaged,
    }
    with open(os.path.join(root, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--seed-example":
        seed_example(sys.argv[2])
    elif len(sys.argv) == 2:
        generate(sys.argv[1])
    else:
        sys.stderr.write("usage: %s OUTDIR | --seed-example OUTDIR\n" % sys.argv[0])
        sys.exit(2)
