#!/usr/bin/python3
"""bench_gen.py: the data of `make bench` (tools/bench/bench.sh), written once.
Uses Debian's python3 with kafka-python (batches), python3-zstandard and
python3-lz4 (through kafka-python's codecs), and the zstd and lz4 programs
(to check the codec payloads).

  bench_gen.py gen DATA SCALE
      Writes into DIR = DATA/scale-SCALE (bench-data/scale-1) what tools/bench/bench_run.py
      measures, sizes times SCALE (1 is the full size), and DIR/bench.json,
      the manifest: for every item its files, sizes, batch and record counts.
      An item already there with the current GEN_VERSION and its files at
      the sizes the manifest gives is kept, so this is quick after the first
      time. Items (full size):

      plain    bench-plain-0/: 1 GiB segment (the broker's segment.bytes),
               uncompressed, ~1 KiB records, 16 a batch.
      small    bench-small-0/: 512 MiB segment, uncompressed, 100-byte
               records, 128 a batch.
      zstd     bench-zstd-0/:  zstd batches of 64 ~1 KiB records, 1 GiB of
      lz4      bench-lz4-0/:   record bytes in all; lz4 the same in LZ4 frames.
      payload  payload/zstd.zst, payload/lz4.lz4: the compressed payload (the
               records section) of every batch of the zstd and lz4 segments,
               in the same order, concatenated: zstd frames and LZ4 frames
               concatenate, so `zstd -d` / `lz4 -d` decompress exactly what
               kfsck decompresses. Checked here: the programs' output length
               equals the segment's record bytes.
      kp       kp-plain/bench-plain-0/, kp-small/bench-small-0/: the first
               256 MiB (whole batches) of plain and small, for the
               kafka-python comparison (kafka-python is slow).
      merge    merge/copy-{a,b,c}/bench-merge-0/: three damaged copies of a
               1 GiB partition of 8 segments (~1 KiB records), for `merge`:
               copy a has a flipped byte in segment 2, copy b has segment 5
               cut in the middle, copy c has 1 MiB of zeros in segment 2
               (past copy a's damage), so together they hold every batch.
               Undamaged segments are hard links to one pool (merge/pool/).
      datadir  datadir/events-0 .. events-63/: a broker data directory of 64
               partitions of 8 to 16 MiB, one in four zstd, one in four lz4,
               for `scan --jobs 1` against `--jobs 2`.
      checkpoints checkpoints/: a data dir of two small partitions
               (events-0, events-1, 1 MiB each) whose
               replication-offset-checkpoint has 10 million lines: the
               two partitions' entries after 9,999,998 entries for
               partitions it does not hold (a checkpoint of another broker,
               or a hostile one), for scan's peak memory (issue 20: it
               follows the partitions, not the file).
      offsets  offsets/__consumer_offsets-0/: 10 million offset commits (key
               type 1, value v3) over 100,000 distinct (group, topic,
               partition) keys; offsets-quarter/: the first quarter of it
               (2.5 million commits, the same keys), to show that replay
               memory follows the keys, not the commits.
      compaction compaction/__consumer_offsets-0/: 10 million offset
               commits over 1 million distinct keys in 10 segments of a
               million commits, for `kfsck compaction` (issue 16): records
               a second, and peak memory against 24 bytes a distinct key.
      smallparts smallparts/events-0 .. events-9999/: a data dir of 10,000
               small partitions (one segment of one 128-record batch, about
               13 KiB, with its indexes; a recovery-point checkpoint; no
               .kafka_cleanshutdown: every active segment is recovered), for `predict` against `scan`
               (issue 21: predict reads only what recovery reads).
      metadata kraft-bench/__cluster_metadata-0/: a KRaft metadata log of
               1 million records for `kfsck metadata`: a setup part (leader
               change, kraft.version and voters, metadata.version, three
               brokers, 2,000 topics of 8 partitions with configs), then
               2,000 distinct batches of 32 partition changes (ISR
               shrink/expand, leader moves), config changes, broker
               heartbeats and no-ops, written over and over (every
               repetition replays cleanly: the changes only touch partitions
               and configs the setup created). Records come from
               tools/gen/kraftfmt.py, batches from kafka-python.
      replicas replicas/full/broker-N.json, replicas/quarter/broker-N.json:
               the `kfsck scan --json` output of 20 brokers holding 5,000
               partitions each (quarter: the first 1,250), every partition
               on three brokers with histories that agree, lag or diverge,
               for `kfsck replicas` over scan files (its time, and peak
               memory that follows one partition, not the partition count).
      kpbatches bench-kpbatches-0/: a 128 MiB segment of batches as
               kafka-python's producer makes them with its defaults (16 KiB
               batches of ~150 records of ~100 bytes, keys of varied length,
               one or two headers, timestamps a few ms apart), for the whole
               process's record rate (issue 19 item 2).
      tinybatches bench-tinybatches-0/: a 128 MiB segment of batches of 1 to
               8 records of ~100 bytes each, as a producer with linger.ms=0
               sends them, for the whole process's record rate when the
               per-batch costs dominate (issue 19 item 2).
      remote   remote-bench/__remote_log_metadata-0/: 10 million
               __remote_log_metadata records (about 0.9 GiB) for `kfsck remote`
               (issue 38): cycles of 40,000 segments of 1,000 partitions,
               each copied (COPY_SEGMENT_STARTED, FINISHED) and deleted
               (DELETE_SEGMENT_STARTED, FINISHED) 20,000 segments later, so
               at most 20,000 are live at once, in batches of 32 records
               (tools/gen/remotefmt.py, kafka-python's builder).
      seek     bench-seek-0/: plain's 1 GiB segment (a hard link) with the
               .index the broker writes for it (an entry after every 4096
               bytes: index.interval.bytes), for `dump --offset` deep in it
               against dumping the whole segment.

  bench_gen.py gen-metadata DIR [RECORDS]
      Only the metadata log, into DIR/kraft-bench/ (RECORDS, default
      1,000,000; smaller for a check).

  bench_gen.py gen-remote DIR [RECORDS]
      Only the remote log metadata, into DIR/remote-bench/ (RECORDS,
      default 10,000,000).

      Everything is built from a few thousand distinct batches made with
      kafka-python's DefaultRecordBatchBuilder, written over and over with
      each copy's base offset (bytes 0-7) rewritten so offsets keep
      increasing, and its partitionLeaderEpoch (bytes 12-15) set: the v2
      CRC-32C covers neither, so every copy stays a valid batch.
"""

import functools
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time

from kafka.codec import lz4_decode, zstd_decode
from kafka.record.default_records import DefaultRecordBatchBuilder

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gen"))
import kraftfmt as kf  # noqa: E402  (KRaft records, for the metadata log: tools/gen/)
import remotefmt as rf  # noqa: E402  (__remote_log_metadata records: tools/gen/)

GEN_VERSION = 2
MANIFEST = "bench.json"
MIB = 1 << 20
GIB = 1 << 30
V2_HEADER = 61          # bytes before the records section of a v2 batch
LEADER_EPOCH = 7
NONE = DefaultRecordBatchBuilder.CODEC_NONE
ZSTD = DefaultRecordBatchBuilder.CODEC_ZSTD
LZ4 = DefaultRecordBatchBuilder.CODEC_LZ4
CODEC_NAMES = {NONE: "none", ZSTD: "zstd", LZ4: "lz4"}
TS0 = 1700000000000

WORDS = (b"kafka broker topic partition offset consumer producer record batch "
         b"segment index leader replica commit fetch produce cluster group "
         b"member session timeout order user event click view cart checkout "
         b"payment shipped delivered cancelled region eu us ap price amount "
         b"currency EUR USD status ok error retry latency ms bytes").split()


def seg_name(base_offset):
    return "%020d.log" % base_offset


# ---- batches ----------------------------------------------------------------

def value_pool(rng, n, size):
    """n distinct size-byte JSON-ish values (the 1 KiB ones compress about
    3-4x with zstd)."""
    pool = []
    for i in range(n):
        words = []
        length = 0
        while length < size - 120:
            w = rng.choice(WORDS)
            words.append(w)
            length += len(w) + 1
        body = b" ".join(words)
        v = (b'{"id":%d,"user":"user-%05d","amount":%d.%02d,"text":"%s"}'
             % (i, rng.randrange(100000), rng.randrange(10000), rng.randrange(100), body))
        pool.append(v[:size] if len(v) > size else v + b" " * (size - len(v)))
    return pool


def records_section_len(data, codec):
    """Bytes of the records section once decompressed (what kfsck and the
    codec programs produce from this batch)."""
    payload = data[V2_HEADER:]
    if codec == ZSTD:
        return len(zstd_decode(payload))
    if codec == LZ4:
        return len(lz4_decode(payload))
    return len(payload)


def build_batches(seed, value_size, nbatches, per_batch, codec):
    """Distinct batches as (bytes, record_count, record_bytes): record keys
    key-NNNNNNNN, values from a pool of value_size-byte values, one header.
    per_batch: the records of each batch, or a function of the random
    generator that says how many."""
    rng = random.Random(seed)
    pool = value_pool(rng, 4096, value_size)
    out = []
    k = 0
    for _ in range(nbatches):
        builder = DefaultRecordBatchBuilder(
            magic=2, compression_type=codec, is_transactional=False,
            producer_id=-1, producer_epoch=-1, base_sequence=-1,
            batch_size=1 << 30)
        n = per_batch(rng) if callable(per_batch) else per_batch
        for r in range(n):
            builder.append(r, timestamp=TS0 + k, key=b"key-%08d" % k,
                           value=pool[rng.randrange(len(pool))],
                           headers=[("source", b"bench")])
            k += 1
        data = bytes(builder.build())
        out.append((data, n, records_section_len(data, codec)))
    return out


@functools.lru_cache(maxsize=None)
def plain_batches():
    return build_batches(20240611, 1000, 3000, 16, NONE)


@functools.lru_cache(maxsize=None)
def small_batches():
    # key 12 + value 64 + header 13 + framing ~11: ~100 bytes a record
    return build_batches(20240612, 64, 1000, 128, NONE)


@functools.lru_cache(maxsize=None)
def zstd_batches():
    return build_batches(20240613, 1000, 1000, 64, ZSTD)


@functools.lru_cache(maxsize=None)
def lz4_batches():
    return build_batches(20240614, 1000, 1000, 64, LZ4)


# ---- kafka-python-like batches (issue 19 item 2) ----------------------------

def producer_batches(seed, nbatches):
    """Batches as kafka-python's producer makes them with its defaults:
    batch.size 16 KiB, so each holds as many ~100-byte records as fit (about
    150); keys user-N of varied length, values of 30 to 70 bytes, one or two
    headers, timestamps a few milliseconds apart. (bytes, record_count,
    record_bytes) as build_batches gives."""
    rng = random.Random(seed)
    pool = value_pool(rng, 4096, 100)
    out = []
    ts = TS0
    k = 0
    for _ in range(nbatches):
        builder = DefaultRecordBatchBuilder(
            magic=2, compression_type=NONE, is_transactional=False,
            producer_id=-1, producer_epoch=-1, base_sequence=-1,
            batch_size=16384)
        n = 0
        while True:
            ts += rng.randrange(4)
            headers = [("trace-id", b"%08x" % rng.getrandbits(32))]
            if rng.random() < 0.5:
                headers.append(("content-type", b"application/json"))
            value = pool[rng.randrange(len(pool))][:rng.randrange(30, 71)]
            if builder.append(n, timestamp=ts, key=b"user-%d" % rng.randrange(10 ** rng.randrange(1, 8)),
                              value=value, headers=headers) is None:
                break
            n += 1
            k += 1
        data = bytes(builder.build())
        out.append((data, n, len(data) - V2_HEADER))
    return out


@functools.lru_cache(maxsize=None)
def kp_batches():
    return producer_batches(20261202, 1000)


# ---- tiny batches, 1-8 records (issue 19 item 2) ----------------------------

@functools.lru_cache(maxsize=None)
def tiny_batches():
    """Batches of 1 to 8 records of ~100 bytes (key 12, value 64, one
    header), as a producer with linger.ms=0 sends them: the per-batch costs
    (header, CRC call, iterator set-up) weigh as much as the records."""
    return build_batches(20261203, 64, 4000, lambda rng: rng.randrange(1, 9), NONE)


def commit_batches(nbatches, per_batch, nkeys):
    """Offset-commit batches (record key type 1, value version 3). Commit k
    goes to key (k * 7919) % nkeys: 7919 is prime and does not divide nkeys
    here, so every run of nkeys consecutive commits touches every key once."""
    out = []
    k = 0
    for _ in range(nbatches):
        builder = DefaultRecordBatchBuilder(
            magic=2, compression_type=NONE, is_transactional=False,
            producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 30)
        for r in range(per_batch):
            slot = (k * 7919) % nkeys
            group = b"group-%04d" % (slot // 100)
            topic = b"topic-%d" % (slot // 10 % 10)
            key = (struct.pack(">hh", 1, len(group)) + group + struct.pack(">h", len(topic)) + topic
                   + struct.pack(">i", slot % 10))
            value = struct.pack(">hqih", 3, k, 5, 0) + struct.pack(">q", TS0 + k)
            builder.append(r, timestamp=TS0 + k, key=key, value=value, headers=[])
            k += 1
        data = bytes(builder.build())
        out.append((data, per_batch, len(data) - V2_HEADER))
    return out


# ---- writing ----------------------------------------------------------------

class Writer:
    """Writes batches round-robin from a list, base offsets increasing."""

    def __init__(self, batches, start=0, offset=0):
        self.batches = batches
        self.i = start
        self.offset = offset

    def segment(self, path, stop, payload=None, cut=None):
        """Writes batches to path until stop(file_bytes, record_bytes,
        records, next_batch_size) is true. payload: a file that also gets
        each batch's records section. cut: also note the largest whole-batch
        prefix of at most cut bytes. Returns the segment's manifest entry."""
        pack = struct.Struct(">q").pack_into
        pack_epoch = struct.Struct(">i").pack_into
        tmp = path + ".tmp"
        first = self.offset
        size = rec_bytes = nrec = nb = 0
        prefix = None
        with open(tmp, "wb", buffering=8 * MIB) as f:
            while True:
                data, count, rbytes = self.batches[self.i % len(self.batches)]
                if stop(size, rec_bytes, nrec, len(data)):
                    break
                if cut is not None and prefix is None and size + len(data) > cut:
                    prefix = {"size": size, "batches": nb, "records": nrec, "record_bytes": rec_bytes}
                b = bytearray(data)
                pack(b, 0, self.offset)
                pack_epoch(b, 12, LEADER_EPOCH)
                f.write(b)
                if payload is not None:
                    payload.write(data[V2_HEADER:])
                self.offset += count
                nrec += count
                nb += 1
                size += len(b)
                rec_bytes += rbytes
                self.i += 1
        os.rename(tmp, path)
        seg = {"file": path, "size": size, "batches": nb, "records": nrec,
               "record_bytes": rec_bytes, "first_offset": first, "last_offset": self.offset - 1}
        if cut is not None:
            seg["prefix"] = prefix or {"size": size, "batches": nb, "records": nrec,
                                       "record_bytes": rec_bytes}
        return seg


def copy_prefix(src, dst, nbytes):
    tmp = dst + ".tmp"
    with open(src, "rb") as fi, open(tmp, "wb") as fo:
        left = nbytes
        while left:
            n = os.copy_file_range(fi.fileno(), fo.fileno(), min(left, 64 * MIB))
            if n <= 0:
                raise OSError("short copy of %s" % src)
            left -= n
    os.rename(tmp, dst)


def fresh_dir(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def rel(top, item):
    """Manifest paths are relative to the data dir."""
    if isinstance(item, dict):
        return {k: rel(top, v) for k, v in item.items()}
    if isinstance(item, list):
        return [rel(top, v) for v in item]
    if isinstance(item, str) and item.startswith(top + os.sep):
        return item[len(top) + 1:]
    return item


# ---- items --------------------------------------------------------------------

def gen_plain(top, scale):
    d = os.path.join(top, "bench-plain-0")
    fresh_dir(d)
    cut = int(256 * MIB * scale)
    seg = Writer(plain_batches()).segment(
        os.path.join(d, seg_name(0)), lambda fb, rb, nr, n: fb + n > GIB * scale, cut=cut)
    kp = os.path.join(top, "kp-plain", "bench-plain-0")
    fresh_dir(kp)
    copy_prefix(seg["file"], os.path.join(kp, seg_name(0)), seg["prefix"]["size"])
    seg["prefix"]["file"] = os.path.join(kp, seg_name(0))
    return {"segment": seg, "record_size": "1 KiB", "files": [seg["file"], seg["prefix"]["file"]]}


def gen_small(top, scale):
    d = os.path.join(top, "bench-small-0")
    fresh_dir(d)
    cut = int(256 * MIB * scale)
    seg = Writer(small_batches()).segment(
        os.path.join(d, seg_name(0)), lambda fb, rb, nr, n: fb + n > 512 * MIB * scale, cut=cut)
    kp = os.path.join(top, "kp-small", "bench-small-0")
    fresh_dir(kp)
    copy_prefix(seg["file"], os.path.join(kp, seg_name(0)), seg["prefix"]["size"])
    seg["prefix"]["file"] = os.path.join(kp, seg_name(0))
    return {"segment": seg, "record_size": "100 B", "files": [seg["file"], seg["prefix"]["file"]]}


def one_segment_item(top, scale, dirname, batches):
    """An item of one 128 MiB segment (less below scale 0.25) of batches."""
    d = os.path.join(top, dirname)
    fresh_dir(d)
    size = min(128 * MIB, int(512 * MIB * scale))
    seg = Writer(batches).segment(os.path.join(d, seg_name(0)), lambda fb, rb, nr, n: fb + n > size)
    return {"segment": seg, "record_size": "~100 B", "files": [seg["file"]]}


def gen_kpbatches(top, scale):
    """issue 19 item 2: 128 MiB (less below scale 0.25) of kafka-python-like batches."""
    return one_segment_item(top, scale, "bench-kpbatches-0", kp_batches())


def gen_tinybatches(top, scale):
    """issue 19 item 2: 128 MiB (less below scale 0.25) of batches of 1-8 records."""
    return one_segment_item(top, scale, "bench-tinybatches-0", tiny_batches())


def gen_seek(top, scale):
    """plain's segment again (a hard link: no more disk) beside its .index,
    written as LogSegment.append writes one, batch by batch (docs/formats.md
    §5.6): an entry (last offset, position) once more than 4096 bytes were
    appended since the last one."""
    src = os.path.join(top, "bench-plain-0", seg_name(0))
    d = os.path.join(top, "bench-seek-0")
    fresh_dir(d)
    log = os.path.join(d, seg_name(0))
    os.link(src, log)
    entries = []
    pos = since = 0
    last = None
    with open(log, "rb", buffering=0) as f:
        size = os.fstat(f.fileno()).st_size
        while pos + V2_HEADER <= size:
            f.seek(pos)
            head = f.read(V2_HEADER)
            base, length = struct.unpack_from(">qi", head, 0)
            last = base + struct.unpack_from(">i", head, 23)[0]
            if since > 4096:
                entries.append((last, pos))
                since = 0
            since += 12 + length
            pos += 12 + length
    index = os.path.join(d, seg_name(0)[:-4] + ".index")
    with open(index, "wb") as f:
        f.write(b"".join(struct.pack(">ii", off, p) for off, p in entries))
    # the offset looked for: the first record of the batch nine tenths into the file
    target = next(off for off, p in entries if p >= size * 9 // 10)
    return {"dir": d, "segment": {"file": log, "size": size, "last_offset": last},
            "index": {"file": index, "entries": len(entries)}, "target": target, "files": [log, index]}


def count_output(cmd):
    """Bytes a command writes to stdout (streamed, not kept)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    n = 0
    while True:
        chunk = p.stdout.read(4 * MIB)
        if not chunk:
            break
        n += len(chunk)
    if p.wait() != 0:
        raise RuntimeError("%s exited %d" % (" ".join(cmd), p.returncode))
    return n


def gen_codec(top, scale, name, batches, program, ext):
    d = os.path.join(top, "bench-%s-0" % name)
    fresh_dir(d)
    os.makedirs(os.path.join(top, "payload"), exist_ok=True)
    payload = os.path.join(top, "payload", "%s.%s" % (name, ext))
    with open(payload + ".tmp", "wb", buffering=8 * MIB) as pf:
        seg = Writer(batches).segment(os.path.join(d, seg_name(0)),
                                      lambda fb, rb, nr, n: rb >= GIB * scale, payload=pf)
    os.rename(payload + ".tmp", payload)
    out = count_output([program, "-dcq", payload])
    if out != seg["record_bytes"]:
        raise RuntimeError("%s -dc %s gives %d bytes, the segment holds %d record bytes"
                           % (program, payload, out, seg["record_bytes"]))
    return {"segment": seg, "payload": payload, "payload_size": os.path.getsize(payload),
            "program": program, "record_size": "1 KiB", "files": [seg["file"], payload]}


def gen_zstd(top, scale):
    return gen_codec(top, scale, "zstd", zstd_batches(), "zstd", "zst")


def gen_lz4(top, scale):
    return gen_codec(top, scale, "lz4", lz4_batches(), "lz4", "lz4")


MERGE_SEGMENTS = 8
MERGE_PART = "bench-merge-0"


def damaged_copy(src, dst, how, scale):
    """A real copy of segment src with damage: 'flip' one byte a quarter of
    the way in, 'cut' at half its size, 'zero' 1 MiB at three quarters."""
    size = os.path.getsize(src)
    if how == "cut":
        copy_prefix(src, dst, size // 2)
        return {"how": "cut", "at": size // 2}
    copy_prefix(src, dst, size)
    with open(dst, "r+b") as f:
        if how == "flip":
            at = size // 4
            f.seek(at)
            b = f.read(1)
            f.seek(at)
            f.write(bytes([b[0] ^ 0xFF]))
            return {"how": "flip", "at": at}
        at = size * 3 // 4
        n = min(MIB, size - at)
        f.seek(at)
        f.write(bytes(n))
        return {"how": "zero", "at": at, "length": n}


def gen_merge(top, scale):
    root = os.path.join(top, "merge")
    fresh_dir(root)
    pool = os.path.join(root, "pool")
    os.makedirs(pool)
    w = Writer(plain_batches())
    segs = []
    for _ in range(MERGE_SEGMENTS):
        segs.append(w.segment(os.path.join(pool, seg_name(w.offset)),
                              lambda fb, rb, nr, n: fb + n > GIB * scale / MERGE_SEGMENTS))
    damage = {"a": (2, "flip"), "b": (5, "cut"), "c": (2, "zero")}
    copies, files, notes = [], [], {}
    for label, (which, how) in sorted(damage.items()):
        d = os.path.join(root, "copy-" + label, MERGE_PART)
        os.makedirs(d)
        for i, s in enumerate(segs):
            dst = os.path.join(d, os.path.basename(s["file"]))
            if i == which:
                notes[label] = dict(damaged_copy(s["file"], dst, how, scale), segment=i)
            else:
                os.link(s["file"], dst)
            files.append(dst)
        copies.append(d)
    return {"copies": copies, "segments": segs, "damage": notes,
            "size": sum(s["size"] for s in segs), "records": sum(s["records"] for s in segs),
            "files": files}


DATADIR_PARTITIONS = 64


def gen_datadir(top, scale):
    root = os.path.join(top, "datadir")
    fresh_dir(root)
    lists = {NONE: plain_batches(), ZSTD: zstd_batches(), LZ4: lz4_batches()}
    parts, files = [], []
    for p in range(DATADIR_PARTITIONS):
        codec = ZSTD if p % 4 == 1 else LZ4 if p % 4 == 3 else NONE
        target = int((8 + 8 * p / (DATADIR_PARTITIONS - 1)) * MIB * scale)
        d = os.path.join(root, "events-%d" % p)
        os.makedirs(d)
        batches = lists[codec]
        w = Writer(batches, start=(p * 37) % len(batches))
        seg = w.segment(os.path.join(d, seg_name(0)), lambda fb, rb, nr, n: fb + n > target)
        parts.append({"dir": d, "codec": CODEC_NAMES[codec], "size": seg["size"],
                      "records": seg["records"]})
        files.append(seg["file"])
    return {"dir": root, "partitions": parts, "size": sum(p["size"] for p in parts),
            "records": sum(p["records"] for p in parts), "files": files}


CHECKPOINT_LINES = 10_000_000


def gen_checkpoints(top, scale):
    root = os.path.join(top, "checkpoints")
    fresh_dir(root)
    parts, files, real = [], [], []
    for p in range(2):
        d = os.path.join(root, "events-%d" % p)
        os.makedirs(d)
        seg = Writer(plain_batches(), start=p * 11).segment(os.path.join(d, seg_name(0)),
                                                            lambda fb, rb, nr, n: fb + n > MIB)
        parts.append({"dir": d, "size": seg["size"], "records": seg["records"]})
        files.append(seg["file"])
        real.append("events %d %d\n" % (p, seg["last_offset"] + 1))
    lines = max(int(CHECKPOINT_LINES * scale), 100_000)
    orphans = lines - len(real)
    path = os.path.join(root, "replication-offset-checkpoint")
    with open(path + ".tmp", "w", buffering=8 * MIB) as f:
        f.write("0\n%d\n" % lines)
        step = 100_000
        for start in range(0, orphans, step):
            f.write("".join("gone-%d %d %d\n" % (i // 1000, i % 1000, i)
                            for i in range(start, min(start + step, orphans))))
        f.writelines(real)
    os.rename(path + ".tmp", path)
    files.append(path)
    return {"dir": root, "partitions": parts, "lines": lines, "orphans": orphans,
            "checkpoint": path, "checkpoint_size": os.path.getsize(path), "files": files}


OFFSET_KEYS = 100_000
OFFSET_COMMITS = 10_000_000
COMMITS_PER_BATCH = 100


def gen_offsets(top, scale):
    commits = int(OFFSET_COMMITS * scale) // COMMITS_PER_BATCH * COMMITS_PER_BATCH
    quarter = commits // 4 // COMMITS_PER_BATCH * COMMITS_PER_BATCH
    keys = min(OFFSET_KEYS, quarter) // COMMITS_PER_BATCH * COMMITS_PER_BATCH
    batches = commit_batches(keys // COMMITS_PER_BATCH, COMMITS_PER_BATCH, keys)
    out = {"keys": keys, "files": []}
    for name, n in (("full", commits), ("quarter", quarter)):
        d = os.path.join(top, "offsets" if name == "full" else "offsets-quarter", "__consumer_offsets-0")
        fresh_dir(d)
        seg = Writer(batches).segment(os.path.join(d, seg_name(0)),
                                      lambda fb, rb, nr, nx, n=n: nr >= n)
        out[name] = {"dir": d, "segment": seg, "commits": seg["records"]}
        out["files"].append(seg["file"])
    return out


COMPACTION_KEYS = 1_000_000
COMPACTION_COMMITS = 10_000_000
COMPACTION_SEGMENTS = 10


def gen_compaction(top, scale):
    """10 M commits over 1 M keys (times scale) in 10 segments; the batches
    are the offsets item's kind, one pass over the keys written ten times."""
    keys = int(COMPACTION_KEYS * scale) // COMMITS_PER_BATCH * COMMITS_PER_BATCH
    per_seg = int(COMPACTION_COMMITS * scale) // COMPACTION_SEGMENTS // COMMITS_PER_BATCH * COMMITS_PER_BATCH
    batches = commit_batches(keys // COMMITS_PER_BATCH, COMMITS_PER_BATCH, keys)
    d = os.path.join(top, "compaction", "__consumer_offsets-0")
    fresh_dir(d)
    w = Writer(batches)
    segs = [w.segment(os.path.join(d, seg_name(w.offset)), lambda fb, rb, nr, nx: nr >= per_seg)
            for _ in range(COMPACTION_SEGMENTS)]
    return {"dir": d, "keys": keys, "records": sum(s["records"] for s in segs),
            "bytes": sum(s["size"] for s in segs), "files": [s["file"] for s in segs]}


METADATA_RECORDS = 1_000_000
META_TOPICS, META_PARTITIONS = 2000, 8


def _meta_uuid(kind, n):
    return struct.pack(">4sIq", kind, 0x4b667363, n)      # fixed, never all-zero


def metadata_setup(t0):
    """The setup part of the bench metadata log: [(batch bytes, count)]."""
    out, off = [], 0

    def add(recs, control=False):
        nonlocal off
        if control:
            data = kf.control_batch(off, [kf.encode_control(c, d) for c, d in recs], t0 + off, 1)
        else:
            data = kf.data_batch(off, [kf.encode_metadata(*r) for r in recs], t0 + off, 1)
        out.append((data, len(recs)))
        off += len(recs)

    add([(kf.LEADER_CHANGE, {"LeaderId": 1, "Voters": [{"VoterId": 1}], "GrantingVoters": [{"VoterId": 1}]})],
        control=True)
    add([(kf.KRAFT_VERSION, {"KRaftVersion": 1}),
         (kf.KRAFT_VOTERS, {"Voters": [{"VoterId": 1, "VoterDirectoryId": _meta_uuid(b"dir-", 1),
                                        "Endpoints": [{"Name": "CONTROLLER", "Host": "c1", "Port": 9093}],
                                        "KRaftVersionFeature": {"MinSupportedVersion": 0,
                                                                "MaxSupportedVersion": 1}}]})],
        control=True)
    add([(12, 0, {"Name": "metadata.version", "FeatureLevel": 23})])
    epochs = {}
    for b in (1, 2, 3):
        epochs[b] = off
        add([(0, 3, {"BrokerId": b, "IncarnationId": _meta_uuid(b"inc-", b), "BrokerEpoch": off,
                     "EndPoints": [{"Name": "PLAINTEXT", "Host": "b%d" % b, "Port": 9092, "SecurityProtocol": 0}],
                     "Features": [{"Name": "metadata.version", "MinSupportedVersion": 7,
                                   "MaxSupportedVersion": 23}],
                     "Rack": None, "Fenced": True, "InControlledShutdown": False,
                     "IsMigratingZkBroker": False, "LogDirs": [_meta_uuid(b"dir-", b)]})])
        add([(17, 2, {"BrokerId": b, "BrokerEpoch": epochs[b], "Fenced": -1})])
    for t in range(META_TOPICS):
        tid = _meta_uuid(b"top-", t)
        recs = [(2, 0, {"Name": "bench-topic-%05d" % t, "TopicId": tid})]
        for p in range(META_PARTITIONS):
            reps = [1 + (t + p + i) % 3 for i in range(3)]
            recs.append((3, 2, {"PartitionId": p, "TopicId": tid, "Replicas": reps, "Isr": reps,
                                "RemovingReplicas": [], "AddingReplicas": [], "Leader": reps[0],
                                "LeaderEpoch": 0, "PartitionEpoch": 0,
                                "Directories": [_meta_uuid(b"dir-", r) for r in reps]}))
        recs.append((4, 0, {"ResourceType": 2, "ResourceName": "bench-topic-%05d" % t,
                            "Name": "retention.ms", "Value": "604800000"}))
        add(recs)
    return out, off, epochs


def metadata_changes(rng, nbatches, per_batch, epochs, t0):
    """Distinct batches of changes that replay cleanly in any repetition."""
    out = []
    for n in range(nbatches):
        recs = []
        for _ in range(per_batch):
            t, p = rng.randrange(META_TOPICS), rng.randrange(META_PARTITIONS)
            tid = _meta_uuid(b"top-", t)
            reps = [1 + (t + p + i) % 3 for i in range(3)]
            k = rng.random()
            if k < 0.6:
                recs.append((5, 2, {"PartitionId": p, "TopicId": tid,
                                    "Isr": reps[:rng.choice((1, 2, 3))]}))
            elif k < 0.8:
                recs.append((5, 2, {"PartitionId": p, "TopicId": tid, "Leader": rng.choice(reps),
                                    "Isr": reps}))
            elif k < 0.9:
                recs.append((4, 0, {"ResourceType": 2, "ResourceName": "bench-topic-%05d" % t,
                                    "Name": rng.choice(("retention.ms", "segment.bytes", "max.message.bytes")),
                                    "Value": str(rng.randrange(1, 1 << 30))}))
            elif k < 0.95:
                b = rng.choice((1, 2, 3))
                recs.append((17, 0, {"BrokerId": b, "BrokerEpoch": epochs[b], "Fenced": 0}))
            else:
                recs.append((20, 0, {}))
        data = kf.data_batch(0, [kf.encode_metadata(*r) for r in recs], t0 + n, 1)
        out.append((data, len(recs), 0))
    return out


def gen_metadata(top, scale, total=None):
    """A KRaft metadata log: the setup batches once, then the change batches
    round-robin until `total` records (1 million times scale) are written."""
    if total is None:
        total = max(int(METADATA_RECORDS * scale), 1)
    d = os.path.join(top, "kraft-bench", "__cluster_metadata-0")
    fresh_dir(d)
    t0 = 1767225600000
    setup, nsetup, epochs = metadata_setup(t0)
    changes = metadata_changes(random.Random(20260101), 2000, 32, epochs, t0 + nsetup)
    first = [(data, count, len(data) - V2_HEADER) for data, count in setup]

    class Stream:
        """The setup batches, then the changes round-robin (the Writer asks
        for item i % len: len is huge, so i itself)."""
        def __getitem__(self, i):
            return first[i] if i < len(first) else changes[(i - len(first)) % len(changes)]

        def __len__(self):
            return 1 << 62

    seg = Writer(Stream()).segment(os.path.join(d, seg_name(0)), lambda fb, rb, nr, n: nr >= total)
    with open(os.path.join(d, "partition.metadata"), "w") as f:
        f.write("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ")
    with open(os.path.join(d, "leader-epoch-checkpoint"), "w") as f:
        f.write("0\n1\n%d 0\n" % LEADER_EPOCH)  # the Writer stamps this epoch on every batch
    with open(os.path.join(d, "quorum-state"), "w") as f:
        f.write('{"leaderId":1,"leaderEpoch":%d,"votedId":1,"votedDirectoryId":"%s","data_version":1}'
                % (LEADER_EPOCH, kf.cf.uuid_str(_meta_uuid(b"dir-", 1))))
    return {"dir": d, "segment": seg, "records": seg["records"], "files": [seg["file"]]}


REMOTE_RECORDS = 10_000_000
REMOTE_PARTITIONS = 1000       # user partitions the segments belong to
REMOTE_WINDOW = 20_000         # segments live at once (copied, not yet deleted)
REMOTE_CYCLE = 40_000          # segments of one cycle (4 records each)


def remote_cycle(t0):
    """One cycle of __remote_log_metadata batches: REMOTE_CYCLE segments of
    REMOTE_PARTITIONS partitions, each copied (COPY_SEGMENT_STARTED then
    FINISHED) and, REMOTE_WINDOW segments later, deleted (DELETE_SEGMENT_
    STARTED then FINISHED), in batches of 32 records; at its end every
    segment is deleted, so the cycle replays cleanly over and over and the
    live segments never pass REMOTE_WINDOW. Records from tools/gen/remotefmt.py."""
    tps = [rf.TP("bench-tiered-%03d" % (p // 10), p % 10) for p in range(REMOTE_PARTITIONS)]
    nxt = [0] * REMOTE_PARTITIONS
    segs = []
    for i in range(REMOTE_CYCLE):
        p = i % REMOTE_PARTITIONS
        start = nxt[p]
        nxt[p] += 1000
        segs.append((tps[p], rf.uid("bench-seg-%d" % i), start, start + 999, [(i // 5000, start)]))
    values = []

    def copy(j):
        tp, sid, a, b, ep = segs[j]
        values.append(rf.segment_metadata(tp, sid, a, b, ep, ts=t0 + j, size=1 << 20))
        values.append(rf.segment_update(tp, sid, rf.COPY_FINISHED, ts=t0 + j))

    def delete(j):
        tp, sid = segs[j][0], segs[j][1]
        values.append(rf.segment_update(tp, sid, rf.DELETE_STARTED, ts=t0 + j + REMOTE_WINDOW))
        values.append(rf.segment_update(tp, sid, rf.DELETE_FINISHED, ts=t0 + j + REMOTE_WINDOW))
    for j in range(REMOTE_CYCLE):
        copy(j)
        if j >= REMOTE_WINDOW:
            delete(j - REMOTE_WINDOW)
    for j in range(REMOTE_CYCLE - REMOTE_WINDOW, REMOTE_CYCLE):
        delete(j)
    out = []
    for b in range(0, len(values), 32):
        chunk = values[b:b + 32]
        data = kf.data_batch(0, chunk, t0 + b, 0)
        out.append((data, len(chunk), len(data) - V2_HEADER))
    return out


def gen_remote(top, scale, total=None):
    """remote-bench/__remote_log_metadata-0/: REMOTE_RECORDS (times scale)
    records of segment copies and deletes, the cycles of remote_cycle
    written over and over, for `kfsck remote` (issue 38: >= 3 M records a
    second, and memory that follows the live segments)."""
    if total is None:
        total = max(int(REMOTE_RECORDS * scale), 1)
    d = os.path.join(top, "remote-bench", "__remote_log_metadata-0")
    fresh_dir(d)
    seg = Writer(remote_cycle(1767225600000)).segment(os.path.join(d, seg_name(0)),
                                                      lambda fb, rb, nr, n: nr >= total)
    with open(os.path.join(d, "partition.metadata"), "w") as f:
        f.write("version: 0\ntopic_id: %s" % rf.b64(rf.uid("topic:__remote_log_metadata")))
    return {"dir": os.path.dirname(d), "segment": seg, "records": seg["records"],
            "live": REMOTE_WINDOW, "files": [seg["file"]]}


REPLICA_BROKERS = 20
REPLICA_PARTITIONS = 5000        # per broker
REPLICATION = 3


def replica_line(broker, topic, part, end, hw, epochs):
    """One scan --json partition line of a broker's copy."""
    return json.dumps({
        "type": "partition", "datadir": "/var/lib/kafka/data-%d" % broker, "topic": topic, "partition": part,
        "dir": "/var/lib/kafka/data-%d/%s-%d" % (broker, topic, part), "topic_id": None, "segments": 1,
        "bytes": end * 100, "first_offset": 0, "log_end_offset": end, "recovery_point": end,
        "high_watermark": hw, "log_start_offset": 0, "cleaner_offset": None,
        "leader_epochs": [{"epoch": e, "start_offset": s} for e, s in epochs], "broker": broker,
        "cluster_id": "bench-cluster", "recovery_end_offset": end, "errors": 0, "warnings": 0,
    }, separators=(",", ":")) + "\n"


def gen_replica_set(root, partitions):
    """scan files of REPLICA_BROKERS brokers with `partitions` partitions each."""
    os.makedirs(root)
    rng = random.Random(15)
    nparts = REPLICA_BROKERS * partitions // REPLICATION
    per_broker = [[] for _ in range(REPLICA_BROKERS)]
    for i in range(nparts):
        topic, part = "topic-%03d" % (i // 100), i % 100
        base = 1000 + rng.randrange(100000)
        for k in range(REPLICATION):
            b = (i + k * 7) % REPLICA_BROKERS
            kind = rng.randrange(4)  # 0, 1 in sync; 2 behind; 3 a diverged epoch
            end = base if kind < 2 else base - rng.randrange(1, 500) if kind == 2 else base + rng.randrange(1, 300)
            epochs = [(0, 0), (3, base // 3), (5, base // 2)] + ([(6 + k, base - 50)] if kind == 3 else [])
            per_broker[b].append((topic, part, end, min(end, base - 100), epochs))
    files = []
    for b, rows in enumerate(per_broker):
        rows.sort(key=lambda r: (r[0], r[1]))
        path = os.path.join(root, "broker-%d.json" % b)
        with open(path, "w", buffering=4 * MIB) as f:
            for topic, part, end, hw, epochs in rows:
                f.write(replica_line(b, topic, part, end, hw, epochs))
            f.write(json.dumps({"type": "summary", "datadirs": 1, "partitions": len(rows)}) + "\n")
        files.append(path)
    return files, nparts


def gen_replicas(top, scale):
    root = os.path.join(top, "replicas")
    fresh_dir(root)
    n = max(int(REPLICA_PARTITIONS * scale), 200)
    full, full_parts = gen_replica_set(os.path.join(root, "full"), n)
    quarter, quarter_parts = gen_replica_set(os.path.join(root, "quarter"), n // 4)
    return {"dir": root, "brokers": REPLICA_BROKERS, "per_broker": n, "full": full, "quarter": quarter,
            "partitions": full_parts, "quarter_partitions": quarter_parts, "files": full + quarter}
SMALL_PARTITIONS = 10_000


def gen_smallparts(top, scale):
    """10,000 partitions (fewer below scale 1) of one small segment each,
    as a broker killed while running leaves them."""
    root = os.path.join(top, "smallparts")
    fresh_dir(root)
    n = max(100, int(SMALL_PARTITIONS * min(scale, 1)))
    seg_path = os.path.join(root, "seg.tmp")
    seg = Writer(small_batches()).segment(seg_path, lambda fb, rb, nr, n_: fb > 0)  # one batch
    with open(seg_path, "rb") as f:
        data = f.read()
    os.unlink(seg_path)
    files, lines = [], []
    for p in range(n):
        d = os.path.join(root, "events-%d" % p)
        os.makedirs(d)
        for ext, body in ((".log", data), (".index", b""), (".timeindex", b"")):
            path = os.path.join(d, "%020d%s" % (0, ext))
            with open(path, "wb") as f:
                f.write(body)
            files.append(path)
        lines.append("events %d 0\n" % p)
    path = os.path.join(root, "recovery-point-offset-checkpoint")
    with open(path, "w") as f:
        f.write("0\n%d\n" % n + "".join(lines))
    files.append(path)
    return {"dir": root, "partitions": n, "segment_size": seg["size"],
            "size": n * seg["size"], "files": files}


ITEMS = (("plain", gen_plain), ("small", gen_small), ("zstd", gen_zstd), ("lz4", gen_lz4),
         ("merge", gen_merge), ("datadir", gen_datadir), ("checkpoints", gen_checkpoints), ("offsets", gen_offsets),
         ("metadata", gen_metadata), ("compaction", gen_compaction), ("replicas", gen_replicas),
         ("seek", gen_seek), ("smallparts", gen_smallparts),
         ("kpbatches", gen_kpbatches),
         ("tinybatches", gen_tinybatches), ("remote", gen_remote))

# What one full-size data set takes on disk, in GiB (checked by bench.sh).
FULL_SIZE_GIB = 8.5  # 7.4, tinybatches (128 MiB) and remote (0.9 GiB)


# ---- manifest -------------------------------------------------------------------

def load_manifest(top, scale):
    """The manifest of the data in top; when it was written by another
    version of this generator, the data is removed (it is regenerated)."""
    try:
        with open(os.path.join(top, MANIFEST)) as f:
            m = json.load(f)
        if m.get("version") == GEN_VERSION and m.get("scale") == scale:
            return m
        print("bench: %s was generated by another version; generating it again" % top)
        shutil.rmtree(top)
        os.makedirs(top)
    except (OSError, ValueError):
        pass
    return {"version": GEN_VERSION, "scale": scale, "items": {}}


def item_ok(top, item):
    """The item's files are all there, at the sizes they were written."""
    try:
        return all(os.path.getsize(os.path.join(top, f)) == n for f, n in item["files"].items())
    except (OSError, KeyError, TypeError, AttributeError):
        return False


def save_manifest(top, m):
    tmp = os.path.join(top, MANIFEST + ".tmp")
    with open(tmp, "w") as f:
        json.dump(m, f, indent=1)
    os.rename(tmp, os.path.join(top, MANIFEST))


def gen(top, scale):
    os.makedirs(top, exist_ok=True)
    m = load_manifest(top, scale)
    t0 = time.time()
    made = []
    for name, fn in ITEMS:
        if item_ok(top, m["items"].get(name)):
            continue
        t = time.time()
        m["items"].pop(name, None)
        save_manifest(top, m)
        item = fn(top, scale)
        item["files"] = {os.path.relpath(f, top): os.path.getsize(f) for f in item["files"]}
        m["items"][name] = rel(top, item)
        save_manifest(top, m)
        made.append(name)
        print("bench: generated %s (%.0f s)" % (name, time.time() - t), flush=True)
    if made:
        print("bench: data ready in %s (%.0f s)" % (top, time.time() - t0))
    else:
        print("bench: using existing data in %s" % top)


def remove_v1(parent):
    """Version 1 kept its files directly in bench-data/: remove them."""
    try:
        with open(os.path.join(parent, MANIFEST)) as f:
            if json.load(f).get("version") != 1:
                return
    except (OSError, ValueError):
        return
    for name in ("bench-plain-0", "bench-zstd-0", "__consumer_offsets-0", "kraft-bench"):
        shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
    os.unlink(os.path.join(parent, MANIFEST))
    print("bench: removed the old (version 1) data from %s" % parent)


def parse_scale(text):
    """BENCH_SCALE: a number from 0.01 to 4 (1: the full size)."""
    try:
        scale = float(text)
    except ValueError:
        return None
    return scale if 0.01 <= scale <= 4 else None


def data_dir(parent, scale):
    """Where the data of one scale lives: bench-data/scale-1, scale-0.1, ..."""
    return os.path.join(parent, "scale-%g" % scale)


def main(argv):
    if argv[1:2] == ["gen-metadata"] and len(argv) in (3, 4):
        os.makedirs(argv[2], exist_ok=True)
        m = gen_metadata(argv[2], 1, int(argv[3]) if len(argv) == 4 else METADATA_RECORDS)
        print("bench: %d metadata records, %d bytes" % (m["records"], m["segment"]["size"]))
        return 0
    if argv[1:2] == ["gen-remote"] and len(argv) in (3, 4):
        os.makedirs(argv[2], exist_ok=True)
        m = gen_remote(argv[2], 1, int(argv[3]) if len(argv) == 4 else REMOTE_RECORDS)
        print("bench: %d remote log metadata records, %d bytes" % (m["records"], m["segment"]["size"]))
        return 0
    scale = parse_scale(argv[3]) if len(argv) == 4 else None
    if argv[1:2] == ["gen"] and scale is not None:
        remove_v1(argv[2])
        gen(data_dir(argv[2], scale), scale)
        return 0
    sys.stderr.write("usage: bench_gen.py gen DATA SCALE (SCALE from 0.01 to 4) | gen-metadata DIR [RECORDS] | "
                     "gen-remote DIR [RECORDS]\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
