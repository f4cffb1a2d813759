"""kafkafmt: Kafka on-disk encoding helpers for the fixture generator.

Every batch is encoded by kafka-python's own builders
(DefaultRecordBatchBuilder for magic 2, LegacyRecordBatchBuilder for magic
0/1). What those builders cannot express (base offset, partition leader
epoch, control and log-append-time attributes, lastOffsetDelta beyond the
last record, raw unframed snappy, the cleaner's 61-byte empty batch, legacy
wrapper offset/timestamp) is patched into the built bytes afterwards with
struct, and the checksum is recomputed with kafka-python's calc_crc32c
(v2, bytes [21, end)) or calc_crc32 (v0/v1, bytes [16, end)).

gzip: kafka.codec.gzip_encode writes the current time into the gzip header
(MTIME, bytes 4..7), which would make fixtures differ on every run. The
builders' module-level `gzip_encode` is replaced by a wrapper that calls the
original and zeroes MTIME; the builders then compute the batch CRC over the
patched stream themselves.

Also here: `describe_segment`, an independent parser (spec
segment-format.md §1/§2) that turns segment bytes into the per-batch facts
written to fixtures/MANIFEST.json, `read_records`, which decodes records
with kafka-python's MemoryRecords for cross-checking, and the names and
contents of a partition directory's small files (`seg_name`,
`epoch_checkpoint`, `partition_metadata`) that every generator writes.
"""

import base64
import struct
from dataclasses import dataclass, field

import kafka.codec as kcodec
import kafka.record.default_records as _default_records
import kafka.record.legacy_records as _legacy_records
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords
from kafka.record.util import calc_crc32, calc_crc32c

CODEC_ID = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
CODEC_NAME = {v: k for k, v in CODEC_ID.items()}
CONTROL_TYPES = {0: "ABORT", 1: "COMMIT"}
ATTR_LOG_APPEND_TIME = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
BIG = 1 << 30   # builder batch_size: never refuse an append


def _gzip_encode_fixed_mtime(payload, compresslevel=None):
    out = bytearray(kcodec.gzip_encode(payload, compresslevel))
    # ID1 ID2 CM FLG MTIME(4) XFL OS; no FHCRC, so nothing else to fix.
    assert out[:3] == b"\x1f\x8b\x08" and not out[3] & 0x02
    out[4:8] = b"\x00\x00\x00\x00"
    return bytes(out)


_default_records.gzip_encode = _gzip_encode_fixed_mtime
_legacy_records.gzip_encode = _gzip_encode_fixed_mtime


@dataclass
class Rec:
    """One record as written: absolute offset, timestamp (ms), key, value,
    headers [(str, bytes|None)] (v2 only)."""
    offset: int
    timestamp: int
    key: bytes = None
    value: bytes = None
    headers: list = field(default_factory=list)


# --------------------------------------------------------------------------
# v2 batches

def _fix_v2_crc(buf):
    struct.pack_into(">I", buf, 17, calc_crc32c(bytes(buf[21:])))


def v2_batch(base_offset, records, codec="none", leader_epoch=0, producer_id=-1,
             producer_epoch=-1, base_sequence=-1, transactional=False, control=False,
             log_append_time=None, last_offset=None, raw_snappy=False):
    """Encode one magic-2 batch. `records` carry absolute offsets; their
    deltas from base_offset go to the builder (which writes base 0).
    log_append_time: set the LogAppendTime bit and maxTimestamp to it.
    last_offset: override lastOffsetDelta (compaction keeps the old one).
    raw_snappy: replace the xerial-framed payload by one raw snappy block."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=CODEC_ID[codec],
                                  is_transactional=transactional, producer_id=producer_id,
                                  producer_epoch=producer_epoch, base_sequence=base_sequence,
                                  batch_size=BIG)
    for r in records:
        if b.append(r.offset - base_offset, r.timestamp, r.key, r.value, list(r.headers)) is None:
            raise RuntimeError("builder refused a record")
    buf = bytearray(b.build())
    attrs = struct.unpack_from(">h", buf, 21)[0]
    if attrs & 0x07 != CODEC_ID[codec]:
        raise RuntimeError("kafka-python stored the batch uncompressed (no gain from %s); "
                           "make its records more compressible" % codec)
    dirty = False
    if raw_snappy:
        assert codec == "snappy" and buf[61:69] == b"\x82SNAPPY\x00"
        plain = kcodec.snappy_decode(bytes(buf[61:]))
        buf[61:] = kcodec.snappy_encode(plain, xerial_compatible=False)
        struct.pack_into(">i", buf, 8, len(buf) - 12)
        dirty = True
    if control:
        attrs |= ATTR_CONTROL
        dirty = True
    if log_append_time is not None:
        attrs |= ATTR_LOG_APPEND_TIME
        struct.pack_into(">q", buf, 35, log_append_time)
        dirty = True
    if last_offset is not None:
        struct.pack_into(">i", buf, 23, last_offset - base_offset)
        dirty = True
    struct.pack_into(">h", buf, 21, attrs)
    # Not covered by the CRC: base offset and partition leader epoch.
    struct.pack_into(">q", buf, 0, base_offset)
    struct.pack_into(">i", buf, 12, leader_epoch)
    if dirty:
        _fix_v2_crc(buf)
    return bytes(buf)


def v2_control_batch(offset, kind, producer_id, producer_epoch, coordinator_epoch,
                     timestamp, leader_epoch=0):
    """A transaction marker (MemoryRecords.writeEndTransactionalMarker):
    transactional|control, codec none, baseSequence -1, one record with
    key = int16 version 0 + int16 type, value = int16 0 + int32 coordinatorEpoch."""
    ctype = {"ABORT": 0, "COMMIT": 1}[kind]
    rec = Rec(offset, timestamp, struct.pack(">hh", 0, ctype), struct.pack(">hi", 0, coordinator_epoch))
    return v2_batch(offset, [rec], producer_id=producer_id, producer_epoch=producer_epoch,
                    base_sequence=-1, transactional=True, control=True, leader_epoch=leader_epoch)


def v2_empty_batch(base_offset, last_offset, max_timestamp, producer_id, producer_epoch,
                   base_sequence, transactional=False, leader_epoch=0):
    """The cleaner's empty batch (DefaultRecordBatch.writeEmptyHeader): 61
    bytes, batchLength 49, count 0, codec none, baseTimestamp -1, the old
    maxTimestamp, lastOffsetDelta and producer fields kept."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=transactional,
                                  producer_id=producer_id, producer_epoch=producer_epoch,
                                  base_sequence=base_sequence, batch_size=BIG)
    b.append(0, max_timestamp, None, b"", [])   # built normally, then emptied
    buf = bytearray(b.build())[:61]
    struct.pack_into(">i", buf, 8, 49)
    struct.pack_into(">i", buf, 23, last_offset - base_offset)
    struct.pack_into(">q", buf, 27, -1)
    struct.pack_into(">q", buf, 35, max_timestamp)
    struct.pack_into(">i", buf, 57, 0)
    struct.pack_into(">q", buf, 0, base_offset)
    struct.pack_into(">i", buf, 12, leader_epoch)
    _fix_v2_crc(buf)
    return bytes(buf)


# --------------------------------------------------------------------------
# magic 0/1 message sets

def legacy_entries(magic, codec, records, log_append_time=None):
    """Encode records as magic 0/1 log entries.

    codec none: one plain message per record (absolute offsets).
    compressed: one wrapper whose value is the compressed inner message set.
    v1 inner offsets are relative (0..n-1), v0 inner offsets absolute; the
    wrapper offset (written 0 by kafka-python) is patched to the absolute
    offset of the last inner message. kafka-python also writes wrapper
    timestamp 0; Java writes the max inner timestamp (or the log-append
    time), so v1 wrappers are patched to that.
    log_append_time (v1): set attribute 0x08 and the timestamp on the
    wrapper (or on each plain message), as the broker does.
    """
    cid = CODEC_ID[codec]
    assert magic in (0, 1) and cid in (0, 1, 2, 3)
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=cid, batch_size=BIG)
    first = records[0].offset
    for r in records:
        inner_offset = r.offset if (cid == 0 or magic == 0) else r.offset - first
        if b.append(inner_offset, r.timestamp, r.key, r.value) is None:
            raise RuntimeError("builder refused a record")
    buf = bytearray(b.build())
    if cid == 0:
        if log_append_time is not None:
            assert magic == 1
            pos = 0
            while pos < len(buf):
                size = struct.unpack_from(">i", buf, pos + 8)[0]
                buf[pos + 17] |= ATTR_LOG_APPEND_TIME
                struct.pack_into(">q", buf, pos + 18, log_append_time)
                struct.pack_into(">I", buf, pos + 12, calc_crc32(bytes(buf[pos + 16:pos + 12 + size])))
                pos += 12 + size
        return bytes(buf)
    assert struct.unpack_from(">i", buf, 8)[0] == len(buf) - 12
    struct.pack_into(">q", buf, 0, records[-1].offset)   # outside the CRC
    if magic == 1:
        if log_append_time is not None:
            buf[17] |= ATTR_LOG_APPEND_TIME
            ts = log_append_time
        else:
            ts = max(r.timestamp for r in records)
        struct.pack_into(">q", buf, 18, ts)
        struct.pack_into(">I", buf, 12, calc_crc32(bytes(buf[16:])))
    return bytes(buf)


# --------------------------------------------------------------------------
# independent description of segment bytes

def _legacy_decompress(magic, cid, payload):
    if cid == 1:
        return kcodec.gzip_decode(payload)
    if cid == 2:
        return kcodec.snappy_decode(payload)
    if cid == 3:
        return kcodec.lz4_decode_old_kafka(payload) if magic == 0 else kcodec.lz4_decode(payload)
    raise ValueError("legacy codec %d" % cid)


def describe_entry(data, pos):
    """Facts about the complete entry starting at `pos` (names as in cli.md's
    batch lines; fields the format does not have are None)."""
    size = struct.unpack_from(">i", data, pos + 8)[0]
    e = bytes(data[pos:pos + 12 + size])
    magic = struct.unpack_from(">b", e, 16)[0]
    d = {"position": pos, "size": len(e), "magic": magic}
    if magic >= 2:
        (base, _len, ple, _m, crc, attrs, lod, base_ts, max_ts, pid, pepoch, bseq,
         count) = struct.unpack_from(">qiibIhiqqqhii", e, 0)
        cid = attrs & 0x07
        d.update({
            "base_offset": base, "last_offset": base + lod, "last_offset_delta": lod,
            "count": count, "codec": CODEC_NAME.get(cid, "unknown(%d)" % cid),
            "attributes": attrs & 0xFFFF, "crc": crc, "crc_ok": crc == calc_crc32c(e[21:]),
            "timestamp_type": "log_append" if attrs & ATTR_LOG_APPEND_TIME else "create",
            "base_timestamp": base_ts, "max_timestamp": max_ts,
            "producer_id": pid, "producer_epoch": pepoch, "base_sequence": bseq,
            "transactional": bool(attrs & ATTR_TRANSACTIONAL),
            "control": bool(attrs & ATTR_CONTROL), "leader_epoch": ple,
        })
        if d["control"] and cid == 0 and count == 1:
            # one uncompressed record: length, attrs, tsDelta, offDelta, keyLen, key...
            from kafka.record.util import decode_varint
            p = 61
            _, p = decode_varint(e, p)
            p += 1
            _, p = decode_varint(e, p)
            _, p = decode_varint(e, p)
            klen, p = decode_varint(e, p)
            ver, ctype = struct.unpack_from(">hh", e, p)
            d["control_type"] = CONTROL_TYPES.get(ctype, "UNKNOWN(%d)" % ctype)
        return d
    offset, _size, crc, _m, attrs = struct.unpack_from(">qiIbB", e, 0)
    cid = attrs & 0x07
    ts = struct.unpack_from(">q", e, 18)[0] if magic == 1 else None
    d.update({
        "offset": offset, "codec": CODEC_NAME.get(cid, "unknown(%d)" % cid),
        "attributes": attrs, "crc": crc, "crc_ok": crc == calc_crc32(e[16:]),
        "timestamp_type": (None if magic == 0 else
                           "log_append" if attrs & ATTR_LOG_APPEND_TIME else "create"),
        "max_timestamp": ts, "base_timestamp": None,
        "producer_id": None, "producer_epoch": None, "base_sequence": None,
        "transactional": False, "control": False, "leader_epoch": None,
    })
    if cid == 0:
        d.update({"base_offset": offset, "last_offset": offset, "count": 1})
        return d
    kpos = 26 if magic == 1 else 18
    klen = struct.unpack_from(">i", e, kpos)[0]
    vpos = kpos + 4 + max(klen, 0)
    vlen = struct.unpack_from(">i", e, vpos)[0]
    inner = _legacy_decompress(magic, cid, e[vpos + 4:vpos + 4 + vlen])
    offsets, p = [], 0
    while p + 12 <= len(inner):
        o, s = struct.unpack_from(">qi", inner, p)
        offsets.append(o)
        p += 12 + s
    assert p == len(inner), "inner message set does not end cleanly"
    base = offsets[0] if magic == 0 else offset - offsets[-1] + offsets[0]
    d.update({"base_offset": base, "last_offset": offset, "count": len(offsets),
              "inner_offsets": offsets})
    return d


def describe_segment(data, valid_bytes):
    """Describe every entry in data[:valid_bytes] (all of them CRC-valid)."""
    out, pos = [], 0
    while pos < valid_bytes:
        d = describe_entry(data, pos)
        out.append(d)
        pos += d["size"]
    assert pos == valid_bytes
    return out


def b64(x):
    return None if x is None else base64.b64encode(x).decode("ascii")


def read_records(data):
    """Decode every record with kafka-python's MemoryRecords; returns a list
    of (batch_object, [record, ...]) with CRCs validated."""
    mr = MemoryRecords(bytes(data))
    out = []
    while True:
        batch = mr.next_batch()
        if batch is None:
            break
        if not batch.validate_crc():
            raise AssertionError("kafka-python: CRC check failed")
        out.append((batch, list(batch)))
    return out


def record_fact(r):
    """A kafka-python record as a MANIFEST dict."""
    return {"offset": r.offset, "timestamp": r.timestamp,
            "key_size": -1 if r.key is None else len(r.key),
            "value_size": -1 if r.value is None else len(r.value),
            "key_b64": b64(r.key), "value_b64": b64(r.value),
            "headers": [{"key": k, "value_b64": b64(v)} for k, v in r.headers]}


# --------------------------------------------------------------------------
# a partition directory's file names and small files

def seg_name(base, ext):
    """A segment file's name: base offset in 20 digits, then .ext (log,
    index, timeindex, txnindex, snapshot)."""
    return "%020d.%s" % (base, ext)


def epoch_checkpoint(entries):
    """leader-epoch-checkpoint: version 0, count, one "epoch start_offset" line each."""
    return "0\n%d\n" % len(entries) + "".join("%d %d\n" % e for e in entries)


def partition_metadata(topic_id):
    """partition.metadata: version 0 and the topic id (no newline at the end)."""
    return "version: 0\ntopic_id: %s" % topic_id
