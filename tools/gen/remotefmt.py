"""remotefmt: tiered-storage (KIP-405) fixtures for `kfsck remote`, written
independently of kfsck's C code.

What a broker with remote storage leaves behind, in the shapes the tests
need:
  * `__remote_log_metadata-N` partitions: each record is the KRaft envelope
    (uvarint frame version 1, apiKey, version 0) around a flexible body, the
    bodies described in kraftfmt.REMOTE (this project's own description of
    Kafka's storage/src/main/resources/message/Remote*.json: apiKey 0 segment
    metadata, 1 its update, 2 partition delete, 3 the 3.6-3.7 snapshot
    record), encoded by coordfmt's generic flexible-version encoder; batches
    by kafka-python's DefaultRecordBatchBuilder (kafkafmt.v2_batch);
  * which metadata partition a user partition's records go to: Kafka's
    RemoteLogMetadataTopicPartitioner (murmur2 over the 4 big-endian bytes of
    Objects.hash(lsb, msb, partition), made positive, modulo the count),
    written here from its description, not from kfsck;
  * a broker's data dir: meta.properties, log-start-offset-checkpoint, user
    partition dirs (segments of plain records, leader-epoch-checkpoint,
    partition.metadata);
  * the remote storage as Kafka's LocalTieredStorage lays it out
    (kafka-tiered-storage/<topic>-<partition>-<topic id>/<20-digit start
    offset>-<segment id>.<suffix>), the keys Aiven's plugin gives the same
    objects in a bucket ([prefix]<topic>-<topic id>/<partition>/<20-digit
    start offset>-<segment id>.<suffix>), and listings of them;
  * remote-log-index-cache entries (<start offset>_<segment id>.index,
    .timeindex, .txnindex: 8-, 12- and 34-byte entries).

Nothing is random: ids come from labels, so two runs give the same bytes.

Usage: /usr/bin/python3 tools/gen/remotefmt.py            the self test
       /usr/bin/python3 tools/gen/remotefmt.py seeds DIR  the seed corpus of
                                                          tests/fuzz/fuzz_remote.c
"""

import hashlib
import os
import struct

import coordfmt as cf
import kraftfmt as kf
from kafkafmt import Rec, epoch_checkpoint, partition_metadata, seg_name, v2_batch

T0 = 1767225600000            # 2026-01-01T00:00:00Z
COPY_STARTED, COPY_FINISHED, DELETE_STARTED, DELETE_FINISHED = 0, 1, 2, 3
PART_MARKED, PART_STARTED, PART_FINISHED = 0, 1, 2
STATE_NAMES = ["copy_segment_started", "copy_segment_finished", "delete_segment_started",
               "delete_segment_finished"]
METADATA_PARTITIONS = 50      # remote.log.metadata.topic.num.partitions
LTS_KINDS = ["log", "index", "timeindex", "txnindex", "leader_epoch_checkpoint", "snapshot"]
AIVEN_KINDS = ["log", "indexes", "rsm-manifest"]


def uid(label):
    """A fixed 16-byte uuid from a label (never one printed with a leading '-')."""
    raw = bytearray(hashlib.sha256(label.encode()).digest()[:16])
    raw[0] &= 0x7F
    raw[0] |= 0x10
    return bytes(raw)


def b64(raw):
    """Kafka's Uuid text: 22 characters of URL-safe base64."""
    return cf.uuid_str(raw)


# ---------------------------------------------------------------------------
# the metadata partition of a user partition


def _i32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def murmur2(data):
    """Kafka's Utils.murmur2 (seed 0x9747b28c, m 0x5bd1e995, r 24), as int32."""
    m, length = 0x5BD1E995, len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(length // 4):
        k = data[4 * i] | data[4 * i + 1] << 8 | data[4 * i + 2] << 16 | data[4 * i + 3] << 24
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    rest = length % 4
    tail = length & ~3
    if rest == 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return _i32(h)


def metadata_partition(topic_id, partition, n=METADATA_PARTITIONS):
    """RemoteLogMetadataTopicPartitioner.metadataPartition."""
    msb, lsb = struct.unpack(">qq", topic_id)

    def long_hash(v):
        v &= 0xFFFFFFFFFFFFFFFF
        return _i32(v ^ (v >> 32))
    h = 1
    for x in (long_hash(lsb), long_hash(msb), partition):
        h = _i32(31 * h + x)
    return (murmur2(struct.pack(">i", h)) & 0x7FFFFFFF) % n


# ---------------------------------------------------------------------------
# records


class TP:
    """A user topic partition with its topic id."""

    def __init__(self, topic, partition, topic_id=None):
        self.topic = topic
        self.partition = partition
        self.topic_id = topic_id or uid("topic:" + topic)

    def entry(self):
        return {"Name": self.topic, "Id": self.topic_id, "Partition": self.partition}

    def mpart(self, n=METADATA_PARTITIONS):
        return metadata_partition(self.topic_id, self.partition, n)


def segment_metadata(tp, seg_id, start, end, epochs, state=COPY_STARTED, broker=1, ts=T0, size=1024,
                     max_ts=None):
    """RemoteLogSegmentMetadataRecord: epochs [(epoch, start_offset)]."""
    d = {"RemoteLogSegmentId": {"TopicIdPartition": tp.entry(), "Id": seg_id},
         "StartOffset": start, "EndOffset": end, "BrokerId": broker,
         "MaxTimestampMs": ts - 1 if max_ts is None else max_ts, "EventTimestampMs": ts,
         "SegmentLeaderEpochs": [{"LeaderEpoch": e, "Offset": o} for e, o in epochs],
         "SegmentSizeInBytes": size, "CustomMetadata": None, "RemoteLogSegmentState": state}
    return kf.encode_metadata(0, 0, d, schemas=kf.REMOTE)


def segment_update(tp, seg_id, state, broker=1, ts=T0):
    """RemoteLogSegmentMetadataUpdateRecord."""
    d = {"RemoteLogSegmentId": {"TopicIdPartition": tp.entry(), "Id": seg_id}, "BrokerId": broker,
         "EventTimestampMs": ts, "CustomMetadata": None, "RemoteLogSegmentState": state}
    return kf.encode_metadata(1, 0, d, schemas=kf.REMOTE)


def partition_delete(tp, state, broker=1, ts=T0):
    """RemotePartitionDeleteMetadataRecord."""
    d = {"TopicIdPartition": tp.entry(), "BrokerId": broker, "EventTimestampMs": ts,
         "RemotePartitionDeleteState": state}
    return kf.encode_metadata(2, 0, d, schemas=kf.REMOTE)


def snapshot_record(seg_id, start, end, epochs, state=COPY_FINISHED, ts=T0):
    """RemoteLogSegmentMetadataSnapshotRecord (never in the topic: a broker's
    metadata consumer has no handler for it)."""
    d = {"SegmentId": seg_id, "StartOffset": start, "EndOffset": end, "BrokerId": 1,
         "MaxTimestampMs": ts, "EventTimestampMs": ts,
         "SegmentLeaderEpochs": [{"LeaderEpoch": e, "Offset": o} for e, o in epochs],
         "SegmentSizeInBytes": 1, "CustomMetadata": None, "RemoteLogSegmentState": state}
    return kf.encode_metadata(3, 0, d, schemas=kf.REMOTE)


def lifecycle(tp, seg_id, start, end, epochs, upto, broker=1, ts=T0, size=1024):
    """The records one segment's copy and deletion write, up to state upto
    (COPY_STARTED .. DELETE_FINISHED), a second apart."""
    out = [segment_metadata(tp, seg_id, start, end, epochs, broker=broker, ts=ts, size=size)]
    for i, state in enumerate((COPY_FINISHED, DELETE_STARTED, DELETE_FINISHED)):
        if state > upto:
            break
        out.append(segment_update(tp, seg_id, state, broker=broker, ts=ts + 1000 * (i + 1)))
    return out


# ---------------------------------------------------------------------------
# files


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def metadata_log(datadir, mpart, values, t0=T0, per_batch=1, epoch=0):
    """__remote_log_metadata-<mpart> in datadir: the record values in order,
    per_batch records a batch, timestamps a second apart. Its directory."""
    d = os.path.join(datadir, "__remote_log_metadata-%d" % mpart)
    data = []
    for b in range(0, len(values), per_batch):
        recs = [Rec(b + i, t0 + 1000 * (b + i), None, v) for i, v in enumerate(values[b:b + per_batch])]
        data.append(v2_batch(b, recs, leader_epoch=epoch))
    _write(os.path.join(d, seg_name(0, "log")), b"".join(data))
    _write(os.path.join(d, "partition.metadata"), partition_metadata(b64(uid("topic:__remote_log_metadata"))))
    return d


def broker_dir(datadir, broker, log_starts=()):
    """A KRaft broker's data dir: meta.properties and a
    log-start-offset-checkpoint of [(TP, offset)]."""
    _write(os.path.join(datadir, "meta.properties"),
           "version=1\nnode.id=%d\ncluster.id=remote-test-cluster\n" % broker)
    lines = "".join("%s %d %d\n" % (tp.topic, tp.partition, off) for tp, off in log_starts)
    _write(os.path.join(datadir, "log-start-offset-checkpoint"), "0\n%d\n%s" % (len(log_starts), lines))
    return datadir


def user_partition(datadir, tp, segments, epochs=None, topic_id=None):
    """A user partition dir: segments [(base, count, leader_epoch)] of plain
    records (one batch each), its leader-epoch-checkpoint (epochs [(epoch,
    start)], None: none) and partition.metadata."""
    d = os.path.join(datadir, "%s-%d" % (tp.topic, tp.partition))
    os.makedirs(d, exist_ok=True)
    for base, count, epoch in segments:
        recs = [Rec(base + i, T0 + base + i, None, b"v%d" % (base + i)) for i in range(count)]
        _write(os.path.join(d, seg_name(base, "log")), v2_batch(base, recs, leader_epoch=epoch) if count else b"")
    if epochs is not None:
        _write(os.path.join(d, "leader-epoch-checkpoint"), epoch_checkpoint(epochs))
    _write(os.path.join(d, "partition.metadata"), partition_metadata(b64(topic_id or tp.topic_id)))
    return d


def object_stem(start, seg_id):
    """The name both layouts give a segment's objects, before the suffix."""
    return "%020d-%s" % (start, b64(seg_id))


def lts_dir(storage, tp):
    """LocalTieredStorage's directory of a partition under storage."""
    return os.path.join(storage, "kafka-tiered-storage", "%s-%d-%s" % (tp.topic, tp.partition, b64(tp.topic_id)))


def lts_objects(storage, tp, start, seg_id, kinds=LTS_KINDS, size=100):
    """A segment's objects as LocalTieredStorage writes them; their paths."""
    d = lts_dir(storage, tp)
    return [_write(os.path.join(d, "%s.%s" % (object_stem(start, seg_id), k)), b"x" * size) for k in kinds]


def aiven_key(tp, start, seg_id, suffix, prefix=""):
    """The key Aiven's tiered-storage plugin gives an object."""
    return "%s%s-%s/%d/%s.%s" % (prefix, tp.topic, b64(tp.topic_id), tp.partition, object_stem(start, seg_id),
                                 suffix)


def index_cache_entry(cachedir, start, seg_id, offsets=(), times=(), txns=(), files=("index", "timeindex",
                                                                                      "txnindex")):
    """A remote-log-index-cache entry: offsets [(offset, position)],
    times [(timestamp, offset)], txns [(version, producer_id, first, last,
    lso)], absolute offsets made relative to start. files: which of the
    three to write. Their paths."""
    stem = "%d_%s" % (start, b64(seg_id))
    body = {
        "index": b"".join(struct.pack(">ii", o - start, p) for o, p in offsets),
        "timeindex": b"".join(struct.pack(">qi", t, o - start) for t, o in times),
        "txnindex": b"".join(struct.pack(">hqqqq", *t) for t in txns),
    }
    return [_write(os.path.join(cachedir, "%s.%s" % (stem, f)), body[f]) for f in files]


# ---------------------------------------------------------------------------
# the fuzz target's seeds (tests/fuzz/fuzz_remote.c)


def _metadata_bytes(values, per_batch=1):
    out = []
    for b in range(0, len(values), per_batch):
        recs = [Rec(b + i, T0 + 1000 * (b + i), None, v) for i, v in enumerate(values[b:b + per_batch])]
        out.append(v2_batch(b, recs))
    return b"".join(out)


def fuzz_input(flags, values, epochs=b"", listing=b"", index=b"", per_batch=1):
    """One input of fuzz_remote in its layout: flags, the metadata segment,
    the leader-epoch-checkpoint and the listing (u16 lengths), the index."""
    meta = _metadata_bytes(values, per_batch)
    parts = [bytes([flags])]
    for piece in (meta, epochs, listing):
        assert len(piece) < 65536
        parts += [struct.pack(">H", len(piece)), piece]
    return b"".join(parts) + index


def seeds(out):
    """Writes the seed corpus of fuzz_remote into out."""
    os.makedirs(out, exist_ok=True)
    tp = TP("orders", 0)
    a, b, c = uid("seed-a"), uid("seed-b"), uid("seed-c")
    life = (lifecycle(tp, a, 0, 49, [(0, 0)], DELETE_FINISHED) +
            lifecycle(tp, b, 50, 99, [(0, 50), (1, 80)], COPY_FINISHED, ts=T0 + 5000) +
            lifecycle(tp, c, 100, 149, [(1, 100)], COPY_STARTED, ts=T0 + 9000))
    keys = "".join("kafka-tiered-storage/orders-0-%s/%s.%s %d\n" % (b64(tp.topic_id), object_stem(s, i), k, 10)
                   for s, i in ((50, b), (0, a)) for k in LTS_KINDS)
    aws = "".join("2026-01-01 00:00:00 %10d %s\n" % (7, aiven_key(tp, 100, c, k, "p/")) for k in AIVEN_KINDS)
    index = struct.pack(">iiii", 1, 0, 9, 40)
    cases = {
        "lifecycle": fuzz_input(7, life, epoch_checkpoint([(0, 0), (1, 80)]).encode(), keys.encode(), index),
        "batched": fuzz_input(3, life, epoch_checkpoint([(0, 0)]).encode(), aws.encode(), per_batch=4),
        "transitions": fuzz_input(2, [segment_metadata(tp, a, 0, 9, [(0, 0)]),
                                      segment_update(tp, a, DELETE_FINISHED),
                                      segment_update(tp, b, COPY_FINISHED),
                                      segment_update(tp, a, COPY_STARTED),
                                      partition_delete(tp, PART_MARKED),
                                      partition_delete(tp, PART_FINISHED),
                                      segment_metadata(tp, b, 0, 9, [(0, 0)])],
                                  epoch_checkpoint([(0, 0)]).encode()),
        "fatal": fuzz_input(0, [snapshot_record(a, 0, 9, [(0, 0)]),
                                segment_metadata(tp, a, 9, 0, [(0, 0)]),
                                segment_metadata(tp, b, 0, 9, [(0, 0)], state=COPY_FINISHED),
                                segment_metadata(tp, c, 0, 9, [])]),
        "duplicate": fuzz_input(2, [segment_metadata(tp, a, 0, 49, [(0, 0)]), segment_update(tp, a, COPY_FINISHED),
                                    segment_metadata(tp, b, 0, 99, [(0, 0), (2, 60)]),
                                    segment_update(tp, b, COPY_FINISHED),
                                    segment_update(tp, b, DELETE_STARTED)],
                                epoch_checkpoint([(0, 0), (2, 60)]).encode()),
    }
    for name, data in cases.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return sorted(cases)


# ---------------------------------------------------------------------------
# self test


def selftest():
    # Kafka's own test vectors of Utils.murmur2 (UtilsTest.testMurmur2)
    assert murmur2(b"21") == -973932308
    assert murmur2(b"abc") == 479470107
    assert murmur2(b"foobar") == -790332482
    assert murmur2(b"a-little-bit-long-string") == -985981536
    assert murmur2(b"a-little-bit-longer-string") == -1486304829
    assert murmur2(b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8") == -58897971
    for n in (1, 7, 50):
        for p in range(5):
            assert 0 <= metadata_partition(uid("t"), p, n) < n
    tp = TP("orders", 0)
    v = segment_metadata(tp, uid("s"), 0, 9, [(0, 0)])
    api_key, version, got = kf.decode_metadata(v, schemas=kf.REMOTE)
    assert (api_key, version, got["StartOffset"], got["EndOffset"]) == (0, 0, 0, 9)
    return True


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["seeds"] and len(sys.argv) == 3:
        print(" ".join(seeds(sys.argv[2])))
    else:
        print("ok" if selftest() else "failed")
