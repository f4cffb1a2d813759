#!/usr/bin/python3
"""gen_offsets: build kfsck's offsets fixtures (fixtures/offsets/) and their expectations.

Called by tools/gen/gen_fixtures.py (its main calls `generate(OUTDIR)`); can also
be run alone: /usr/bin/python3 tools/gen/gen_offsets.py OUTDIR  (writes OUTDIR/offsets).

Writes, below OUTDIR/offsets/ (replacing that directory):
  datadir/                    a broker data dir: __consumer_offsets-{3,5,6,8,12,22,33}
                              (each group in its hash partition, 50 partitions),
                              __transaction_state-30, orders-0, orders-1, payments-0
                              (topic partitions for lag), meta.properties
  connect/connect-offsets-0/  a Kafka Connect source offsets topic partition
  copies/{bitflip,torn}/__consumer_offsets-12/
                              two damaged copies of datadir/__consumer_offsets-12
  txn-asof/__consumer_offsets-{3,12}/
                              transactions whose change times go backwards (--as-of
                              holds the changes up to MS, never a later one)
  MANIFEST.json               every record decoded, the replayed tables
                              (offsets, --history, --as-of, groups, reset CSV, open
                              transactions, Connect offsets, transaction-log state)

Record bytes come from tools/gen/coordfmt.py (this project's own Python description
of Kafka's coordinator schemas); batches from kafka-python's builders via
tools/gen/kafkafmt.py; indexes from tools/model/kafka_index.py. The expectations are
computed by reading the written segments back (kafka-python's reader +
coordfmt's decoder) and replaying them with the rules of
docs/formats.md §11.6 in this file, then cross-checked
against what the script meant to write. Timestamps are fixed (from
1700000000000 ms, one minute per coordinator write) and nothing is random, so
two runs give identical bytes.
"""

import base64
import json
import os
import shutil
import struct
import sys

# this folder (the encoders) and tools/model/ (the models the expectations come from)
_TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(_TOOLS, "gen"), os.path.join(_TOOLS, "model")]

import coordfmt as cf                                   # noqa: E402
import kafka_index                                      # noqa: E402
from kafkafmt import (Rec, describe_segment, partition_metadata, read_records,  # noqa: E402
                      seg_name, v2_batch, v2_control_batch, v2_empty_batch)

T0 = 1700000000000
STEP = 60000                  # one coordinator write per minute
NPART = 50                    # offsets.topic.num.partitions / transaction.state.log.num.partitions
INDEX_INTERVAL = 4096
ROOT = "offsets"
DD = ROOT + "/datadir"
DAY = 86400000

# fixed ids (22-char Kafka base64url uuids)
def _uuid(hexs):
    return cf.uuid_str(bytes.fromhex(hexs))


TOPIC_IDS = {
    "orders": _uuid("3f1c9a2e5b7d4c6e8a0b1c2d3e4f5a6b"),
    "payments": _uuid("7a8b9c0d1e2f4a3b8c5d6e7f8091a2b3"),
    "clicks": _uuid("1b2c3d4e5f60718293a4b5c6d7e8f901"),
    "words": _uuid("55aa55aa11224488a1b2c3d4e5f60718"),
    "tasks": _uuid("2e4d6c8b0a1f4e3d9c5b7a6f8e0d1c2b"),
    "__consumer_offsets": _uuid("0c0ffee0c0ffee0c8000000000000001"),
    "__transaction_state": _uuid("0c0ffee0c0ffee0c8000000000000002"),
    "connect-offsets": _uuid("0c0ffee0c0ffee0c8000000000000003"),
}
GHOST_TOPIC_ID = _uuid("6d6d6d6d6d6d4d6d8d6d6d6d6d6d6d6d")   # named by no input
CLUSTER_ID = _uuid("4b6166636b2d6f66667365747321aa01")
DIRECTORY_ID = _uuid("4b6166636b2d6469726563746f72aa02")
TOPIC_LEO = {("orders", 0): 150, ("orders", 1): 90, ("payments", 0): 40}


# ---------------------------------------------------------------------------
# Java String.hashCode and the coordinator partition (formats §1.3)

def java_hash(s):
    b = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(b), 2):
        h = (31 * h + int.from_bytes(b[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(s, n=NPART):
    h = java_hash(s)
    return (0 if h == -(1 << 31) else abs(h)) % n


def _check_hash_table():
    """Known groups and their partitions of 50 (formats §1.3)."""
    for g, h, p in (("my-group", -1906497762, 12), ("connect-my-sink", 2031120433, 33),
                    ("console-consumer-12345", 158455506, 6), ("test", 3556498, 48),
                    ("polygenelubricants", -2147483648, 0), ("gr\u00fc\u00dfe", 98768023, 23),
                    ("group\u00e9\U0001F600", 508263725, 25)):
        assert java_hash(g) == h and partition_for(g) == p, g


# ---------------------------------------------------------------------------
# writing partitions

class Clock:
    def __init__(self):
        self.t = T0

    def __call__(self):
        self.t += STEP
        return self.t


class PartLog:
    """A partition being written: segments of batches with absolute offsets."""

    def __init__(self, topic, partition, leader_epoch=0):
        self.topic, self.partition = topic, partition
        self.name = "%s-%d" % (topic, partition)
        self.next = 0
        self.segments = [(0, [])]
        self.leader_epoch = leader_epoch
        self.intents = {}          # offset -> what the script meant (for cross-checks)

    def roll(self, leader_epoch=None):
        self.segments.append((self.next, []))
        if leader_epoch is not None:
            self.leader_epoch = leader_epoch

    def _add(self, data):
        self.segments[-1][1].append(data)

    def data(self, recs, ts, codec="none", pid=-1, epoch=-1, txn=False):
        """recs: [(key bytes, value bytes|None, intent)] all with timestamp ts."""
        base = self.next
        rs = []
        for i, (k, v, intent) in enumerate(recs):
            rs.append(Rec(base + i, ts, k, v))
            self.intents[base + i] = intent
        self.next += len(recs)
        self._add(v2_batch(base, rs, codec=codec, producer_id=pid, producer_epoch=epoch,
                           base_sequence=0 if txn else -1, transactional=txn,
                           leader_epoch=self.leader_epoch))
        return base

    def marker(self, kind, pid, epoch, ts, coord_epoch=3):
        off = self.next
        self.next += 1
        self._add(v2_control_batch(off, kind, pid, epoch, coord_epoch, ts, self.leader_epoch))
        return off

    def empty(self, n, ts, pid, epoch, txn=True):
        """The cleaner's empty batch for offsets [next, next+n-1]."""
        base = self.next
        self.next += n
        self._add(v2_empty_batch(base, base + n - 1, ts, pid, epoch, 0, txn, self.leader_epoch))


class Writer:
    def __init__(self, out):
        self.out = out

    def path(self, rel):
        p = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def write(self, rel, data):
        if isinstance(data, str):
            data = data.encode()
        with open(self.path(rel), "wb") as f:
            f.write(data)

    def partition(self, parent, log, topic_id):
        """Write a partition dir (segments, indexes, partition.metadata);
        returns its facts."""
        pdir = "%s/%s" % (parent, log.name)
        segs = []
        for base, batches in log.segments:
            data = b"".join(batches)
            rel = "%s/%s" % (pdir, seg_name(base, "log"))
            self.write(rel, data)
            segs.append(self.segment_facts(rel, base, data))
        self.write(pdir + "/partition.metadata", partition_metadata(topic_id))
        return {"path": pdir, "topic": log.topic, "partition": log.partition, "topic_id": topic_id,
                "log_end_offset": log.next, "segments": segs}

    def segment_facts(self, rel, base, data, indexes=True):
        info = kafka_index.build_indexes(data, base, INDEX_INTERVAL, True)
        if indexes:
            stem = rel[:-len(".log")]
            self.write(stem + ".index", info["index"])
            self.write(stem + ".timeindex", info["timeindex"])
        batches = describe_segment(data, info["valid_bytes"]) if info["valid_bytes"] else []
        return {"path": rel, "base_offset": base, "size": len(data),
                "valid_bytes": info["valid_bytes"], "recovery_stop": info["stop"],
                "batches": [{k: b[k] for k in ("position", "size", "base_offset", "last_offset",
                                               "count", "codec", "crc_ok", "max_timestamp",
                                               "producer_id", "producer_epoch", "transactional",
                                               "control", "leader_epoch") if k in b}
                            for b in batches],
                "index_entries": [{"offset": o, "position": p} for o, p in info["index_entries"]],
                "time_entries": [{"timestamp": t, "offset": o} for t, o in info["time_entries"]]}


# ---------------------------------------------------------------------------
# coordinator record builders: (key, value, intent)

def R(rtype, keyd, version=None, valued=None, txn_log=False):
    """A coordinator record; valued None => tombstone."""
    key = cf.encode_key(rtype, keyd, txn=txn_log)
    value = None if valued is None else cf.encode_value(rtype, version, valued, txn=txn_log)
    return (key, value, {"rtype": rtype, "key": keyd, "version": version, "value": valued,
                         "txn_log": txn_log})


def OC(group, topic, part, version, offset, ts, md="", epoch=None, expire=None, topic_id=None,
       key_type=1, unknown_tags=None):
    v = {"offset": offset, "metadata": md, "commitTimestamp": ts}
    if version >= 3:
        v["leaderEpoch"] = -1 if epoch is None else epoch
    if version == 1:
        v["expireTimestamp"] = -1 if expire is None else expire
    if topic_id is not None:
        v["topicId"] = topic_id
    if unknown_tags:
        v["_unknown_tags"] = unknown_tags
    return R(key_type, {"group": group, "topic": topic, "partition": part}, version, v)


def OT(group, topic, part, key_type=1):
    return R(key_type, {"group": group, "topic": topic, "partition": part})


def RAW(key, value, what):
    return (key, value, {"raw": what})


def sub(version, topics, user_data=None, owned=None, gen=None, rack=None):
    d = {"Topics": topics, "UserData": user_data}
    if version >= 1:
        d["OwnedPartitions"] = [{"Topic": t, "Partitions": p} for t, p in (owned or [])]
    if version >= 2:
        d["GenerationId"] = -1 if gen is None else gen
    if version >= 3:
        d["RackId"] = rack
    return cf.encode_subscription(version, d)


def asg(version, parts, user_data=None):
    return cf.encode_assignment(version, {"AssignedPartitions": [{"Topic": t, "Partitions": p}
                                                                for t, p in parts],
                                          "UserData": user_data})


def member(mid, client, host, session, subscription, assignment, rebalance=None, instance=None):
    d = {"memberId": mid, "clientId": client, "clientHost": host, "sessionTimeout": session,
         "subscription": subscription, "assignment": assignment}
    if rebalance is not None:
        d["rebalanceTimeout"] = rebalance
    if instance is not None:
        d["groupInstanceId"] = instance
    return d


def GM(group, version, ptype, gen, protocol, leader, members, state_ts=None):
    v = {"protocolType": ptype, "generation": gen, "protocol": protocol, "leader": leader,
         "members": members}
    if version >= 2:
        v["currentStateTimestamp"] = -1 if state_ts is None else state_ts
    return R(2, {"group": group}, version, v)


def TP(topic_id, parts, epochs=None):
    d = {"TopicId": topic_id, "Partitions": parts}
    if epochs is not None:
        d["AssignmentEpochs"] = epochs
    return d


def K(group, mid=None, **extra):
    d = {"GroupId": group}
    if mid is not None:
        d["MemberId"] = mid
    d.update(extra)
    return d


def TXV(pid, epoch, status, parts, last_ts, start_ts, timeout=60000, **tags):
    d = {"ProducerId": pid, "ProducerEpoch": epoch, "TransactionTimeoutMs": timeout,
         "TransactionStatus": status,
         "TransactionPartitions": None if parts is None else
         [{"Topic": t, "PartitionIds": p} for t, p in parts],
         "TransactionLastUpdateTimestampMs": last_ts, "TransactionStartTimestampMs": start_ts}
    d.update(tags)
    return d


# ---------------------------------------------------------------------------
# the scenario script

G_MY = "my-group"                      # 12
G_TXN = "payments-txn-23"              # 12
G_OLD = "old-app-4"                    # 12 (DeleteGroups)
G_SINK = "connect-my-sink"             # 33
G_WORKERS = "connect-cluster-9"        # 33
G_848 = "orders-848-17"                # 33
G_SHARE = "share-workers-23"           # 33
G_STREAMS = "streams-wordcount-14"     # 33
G_CONSOLE = "console-consumer-12345"   # 6
G_LEGACY = "legacy-app"                # 5
G_EMPTY = "batch-job"                  # 8
G_FLEX = "flex-group"                  # 3
G_ANCIENT = "ancient-group"            # 22
G_RETIRED = "retired-848-1"            # 8 (a deleted KIP-848 group)
G_ADHOC = "adhoc-reader-7"             # 33 (offsets only, all deleted)
G_EXPIRED = "expired-simple-7"         # 12 (simple group, expired)
TXN_IDS = {5000: "payments-processor-7", 5001: "payments-processor-50",
           5002: "payments-processor-87", 5003: "payments-processor-106"}

SCENARIOS = [
    ("plain_commits_over_time", G_MY, "v3 commits of orders-0..2, payments-0, clicks-0..1 over "
     "time (last write wins), a gzip batch of six commits, a v4 commit with topic id"),
    ("legacy_key_type0_vs_type1", G_ANCIENT, "orders-0: type-0 key v0 then type-1 key v1 (type 1 "
     "wins); orders-1: type-1 key v1 then type-0 key v0 (type 0 wins); an empty cleaner batch"),
    ("value_v0", G_ANCIENT, "LegacyOffsetCommitValue / OffsetCommitValue v0 under key type 0"),
    ("value_v1_expire", G_CONSOLE, "v1 values: expireTimestamp set (orders-0) and -1 (orders-1, "
     "printed null); a simple group with no metadata"),
    ("value_v2", G_LEGACY, "v2 values (orders-0..2); v2 also for console-consumer-12345 orders-2"),
    ("value_v3", G_MY, "v3 values (leader epoch) throughout"),
    ("value_v4_flexible", G_FLEX, "v4 values: with tagged topicId (orders-0, orders-2 with an "
     "extra unknown tag 5 that decoders must skip), without (orders-1); my-group payments-0 v4 too"),
    ("tombstone_then_recommit", G_MY, "clicks-0: commit, tombstone, re-commit"),
    ("tombstone_never_committed", G_MY, "tombstone of inventory-5, never committed: no change, "
     "not in --history"),
    ("txn_commit", G_TXN, "producer 5000: txn commit of orders-0=100, orders-1=50, COMMIT marker "
     "(applies at the marker, transactional=true)"),
    ("txn_abort", G_TXN, "producer 5000 again: orders-0=120 then ABORT (dropped)"),
    ("txn_superseded", G_TXN, "producer 5001: payments-0=30 staged, plain commit payments-0=35, "
     "then COMMIT: the plain commit is newer in the log and stays"),
    ("txn_tombstone_drops_pending", G_TXN, "producer 5002: orders-1=60, orders-2=70 staged; plain "
     "tombstone of orders-1 deletes 50 and drops the staged 60; COMMIT applies only orders-2=70"),
    ("txn_open_at_end", G_TXN, "producer 5003: orders-0=130 staged, no marker: open transaction, "
     "not visible"),
    ("group_metadata_v0", G_ANCIENT, "GroupMetadataValue v0, subscription/assignment v0"),
    ("group_metadata_v1", G_LEGACY, "GroupMetadataValue v1, subscription/assignment v1, later a "
     "metadata-only tombstone: group dead, its offsets remain"),
    ("group_metadata_v2", G_MY, "GroupMetadataValue v2 generation 1, replaced by v3 generation 2"),
    ("group_metadata_v2_empty", G_EMPTY, "GroupMetadataValue v2 of an Empty group (no members); "
     "its commits include offset -1"),
    ("group_metadata_v3", G_MY, "GroupMetadataValue v3, subscription v3 (rack, user data) and v2 "
     "(static member)"),
    ("group_metadata_v4_flexible", G_FLEX, "GroupMetadataValue v4 (compact encodings, tagged "
     "sections), subscription v2"),
    ("connect_worker_group", G_WORKERS, "protocol_type connect: opaque subscription/assignment"),
    ("delete_groups", G_OLD, "full DeleteGroups: offset tombstones + group tombstone in one batch: "
     "gone from offsets, listed in groups as state dead"),
    ("metadata_only_tombstone", G_LEGACY, "type-2 tombstone only: groups shows dead, offsets stay"),
    ("consumer_group_kip848", G_848, "types 3,4,5,6,7,8,16: two members join, one (a classic-"
     "protocol member with tagged ClassicMemberMetadata) leaves; assignment by topic id: orders/"
     "clicks named by type 4, payments only by payments-0/partition.metadata, one id named nowhere"),
    ("share_group", G_SHARE, "types 9-15, best effort"),
    ("streams_group", G_STREAMS, "types 17-23, best effort; plus a v3 commit"),
    ("unknown_value_version", G_MY, "OffsetCommitValue version 9 for orders-1: report, skip "
     "(previous value stays)"),
    ("unknown_record_type", G_MY, "record type 99 in the mixed batch: report, skip"),
    ("sink_connector", G_SINK, "connect-my-sink: consumer group of a sink connector, metadata \"\", "
     "a zstd batch"),
    ("mixed_batch", G_MY, "one batch: offset commit v3, unknown type 99, offset commit v9, "
     "offset commit v4 (payments-0, topic id), group metadata v3 of payments-txn-23"),
    ("compression", G_MY, "gzip batch in __consumer_offsets-12, zstd batch in __consumer_offsets-33"),
    ("deleted_consumer_group", G_RETIRED, "KIP-848 group: member joins, commits, leaves; then "
     "DeleteGroups: offset tombstones and tombstones of types 6, 4, 3: listed as kind consumer, "
     "state dead"),
    ("offsets_only_group_deleted", G_ADHOC, "a group with offsets and no metadata ever; "
     "OffsetDelete tombstones all of them: listed classic, empty (the coordinator keeps the group "
     "its commits created)"),
    ("expired_simple_group", G_EXPIRED, "a group with offsets and no metadata; expiry writes its "
     "offset tombstone and a type-2 tombstone: listed as classic, state dead"),
]


def build(clk):
    """Write every partition's batches in global time order. Returns the
    PartLogs and the __transaction_state log."""
    P = {p: PartLog("__consumer_offsets", p) for p in (3, 5, 6, 8, 12, 22, 33)}
    TS = PartLog("__transaction_state", partition_for(TXN_IDS[5000]))
    for g, p in ((G_MY, 12), (G_TXN, 12), (G_OLD, 12), (G_SINK, 33), (G_WORKERS, 33), (G_848, 33),
                 (G_SHARE, 33), (G_STREAMS, 33), (G_CONSOLE, 6), (G_LEGACY, 5), (G_EMPTY, 8),
                 (G_FLEX, 3), (G_ANCIENT, 22), (G_RETIRED, 8), (G_ADHOC, 33), (G_EXPIRED, 12)):
        assert partition_for(g) == p, (g, partition_for(g), p)
    assert all(partition_for(t) == TS.partition for t in TXN_IDS.values())
    marks = {}

    def txs(pid, epoch, status, parts, start, version=0, **tags):
        t = clk()
        TS.data([R(0, {"TransactionalId": TXN_IDS[pid]}, version,
                   TXV(pid, epoch, status, parts, t, start, **tags), txn_log=True)], t)
        return t

    # -- the 0.8/0.9 era group (partition 22)
    t = clk()
    P[22].data([OC(G_ANCIENT, "orders", 0, 0, 10, t, key_type=0),
                OC(G_ANCIENT, "orders", 1, 1, 6, t, expire=t + DAY)], t)
    t = clk()
    m_anc = "consumer-1-0b5e0a7c-4a44-4f3c-9d61-0d1c6b7a2e01"
    P[22].data([GM(G_ANCIENT, 0, "consumer", 1, "range", m_anc, [
        member(m_anc, "consumer-1", "/10.0.0.9", 30000, sub(0, ["orders"]),
               asg(0, [("orders", [0, 1])]))])], t)
    t = clk()
    P[6].data([OC(G_CONSOLE, "orders", 0, 1, 15, t, expire=t + 7 * DAY),
               OC(G_CONSOLE, "orders", 1, 1, 25, t, expire=-1)], t)
    t = clk()
    P[22].data([OC(G_ANCIENT, "orders", 0, 1, 20, t, expire=t + DAY)], t)
    t = clk()
    P[22].data([OC(G_ANCIENT, "orders", 1, 0, 8, t, md="legacy", key_type=0)], t)
    P[22].empty(2, clk(), pid=4000, epoch=3)

    # -- legacy-app (5), console (6), my-group (12) ...
    t = clk()
    ml1 = "consumer-legacy-1-8a1d7b4e-51b2-4e0a-a1f3-5b7f0c2d9e11"
    ml2 = "consumer-legacy-2-2c6f9e3a-7d18-4b55-8e2c-c4a1b9d0f722"
    P[5].data([GM(G_LEGACY, 1, "consumer", 3, "roundrobin", ml1, [
        member(ml1, "consumer-legacy-1", "/10.0.1.11", 10000,
               sub(1, ["orders"], owned=[("orders", [0, 2])]), asg(1, [("orders", [0, 2])]),
               rebalance=60000),
        member(ml2, "consumer-legacy-2", "/10.0.1.12", 10000,
               sub(1, ["orders"], user_data=b"\x00\x01\x02", owned=[("orders", [1])]),
               asg(1, [("orders", [1])], user_data=b"\x09"), rebalance=60000)])], t)
    t = clk()
    P[5].data([OC(G_LEGACY, "orders", 0, 2, 30, t), OC(G_LEGACY, "orders", 1, 2, 31, t),
               OC(G_LEGACY, "orders", 2, 2, 32, t, md="legacy-app checkpoint")], t)
    t = clk()
    P[6].data([OC(G_CONSOLE, "orders", 2, 2, 12, t)], t)
    t = clk()
    m1 = "consumer-my-group-1-6c1f2b7e-2d4e-4b7a-9d0f-3a1c5e7f9b2d"
    P[12].data([GM(G_MY, 2, "consumer", 1, "range", m1, [
        member(m1, "consumer-my-group-1", "/10.0.0.5", 45000,
               sub(1, ["orders", "payments"]),
               asg(1, [("orders", [0, 1, 2]), ("payments", [0])]), rebalance=300000)],
        state_ts=t)], t)
    t = clk()
    P[12].data([OC(G_MY, "orders", 0, 3, 40, t, epoch=3), OC(G_MY, "orders", 1, 3, 41, t, epoch=3),
                OC(G_MY, "orders", 2, 3, 42, t, epoch=3), OC(G_MY, "payments", 0, 3, 5, t, epoch=1)], t)
    t = clk()
    P[8].data([GM(G_EMPTY, 2, "consumer", 7, None, None, [], state_ts=t)], t)
    t = clk()
    P[8].data([OC(G_EMPTY, "clicks", 0, 3, 1000, t, md="nightly 2023-11-14", epoch=0),
               OC(G_EMPTY, "clicks", 1, 3, -1, t, epoch=-1)], t)
    t = clk()
    mo = "consumer-old-1-f00dfeed-0000-4000-8000-000000000001"
    P[12].data([GM(G_OLD, 3, "consumer", 2, "range", mo, [
        member(mo, "consumer-old-1", "/10.0.2.1", 45000, sub(1, ["orders", "payments"]),
               asg(1, [("orders", [0]), ("payments", [0])]), rebalance=300000)], state_ts=t)], t)
    t = clk()
    P[12].data([OC(G_OLD, "orders", 0, 3, 77, t, epoch=2), OC(G_OLD, "payments", 0, 3, 3, t, epoch=1)], t)
    t = clk()
    mf1 = "flex-instance-1-7e3b2a10-9c4d-4f5e-8a6b-1c2d3e4f5a60"
    mf2 = "consumer-flex-2-0a9b8c7d-6e5f-4a3b-9c2d-1e0f2a3b4c5d"
    P[3].data([GM(G_FLEX, 4, "consumer", 5, "cooperative-sticky", mf1, [
        member(mf1, "flex-client-1", "/10.0.3.1", 45000,
               sub(2, ["orders"], owned=[("orders", [0, 1])], gen=4),
               asg(2, [("orders", [0, 1])]), rebalance=300000, instance="flex-instance-1"),
        member(mf2, "flex-client-2", "/10.0.3.2", 45000,
               sub(2, ["orders"], owned=[], gen=-1), asg(2, [("orders", [2])]), rebalance=300000)],
        state_ts=t)], t)
    t = clk()
    P[3].data([OC(G_FLEX, "orders", 0, 4, 60, t, epoch=4, topic_id=TOPIC_IDS["orders"]),
               OC(G_FLEX, "orders", 1, 4, 61, t, epoch=4),
               OC(G_FLEX, "orders", 2, 4, 62, t, epoch=-1, md="flex",
                  topic_id=TOPIC_IDS["orders"], unknown_tags=[(5, b"\x01\x02\x03")])], t)
    t = clk()
    P[12].data([OC(G_MY, "orders", 0, 3, 50, t, epoch=3), OC(G_MY, "orders", 1, 3, 51, t, epoch=3),
                OC(G_MY, "orders", 2, 3, 52, t, epoch=3), OC(G_MY, "payments", 0, 3, 7, t, epoch=1),
                OC(G_MY, "clicks", 0, 3, 300, t, epoch=0), OC(G_MY, "clicks", 1, 3, 301, t, epoch=0)],
               t, codec="gzip")
    marks["gzip_batch"] = (12, P[12].next - 6)

    # -- partition 33: connect, KIP-848, share, streams
    t = clk()
    w1 = "connect-1-3d2c1b0a-9f8e-4d7c-b6a5-948372615001"
    w2 = "connect-2-3d2c1b0a-9f8e-4d7c-b6a5-948372615002"

    def connect_meta(url, offset):
        s = url.encode()
        return struct.pack(">hh", 2, len(s)) + s + struct.pack(">q", offset) + b"\x00\x00\x00\x00"

    P[33].data([GM(G_WORKERS, 3, "connect", 12, "sessioned", w1, [
        member(w1, "connect-1", "/10.0.4.1", 10000, connect_meta("http://worker-1:8083/", 41),
               b"\x00\x01\x00\x00" + b"leader-assignment", rebalance=60000),
        member(w2, "connect-2", "/10.0.4.2", 10000, connect_meta("http://worker-2:8083/", 41),
               b"\x00\x01\x00\x00", rebalance=60000)], state_ts=t)], t)
    t = clk()
    ms = "connector-consumer-my-sink-0-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
    P[33].data([GM(G_SINK, 3, "consumer", 1, "range", ms, [
        member(ms, "connector-consumer-my-sink-0", "/10.0.4.1", 45000,
               sub(3, ["orders"], owned=[], gen=-1, rack=None),
               asg(3, [("orders", [0, 1])]), rebalance=300000)], state_ts=t)], t)
    t = clk()
    P[33].data([OC(G_SINK, "orders", 0, 3, 100, t, epoch=3), OC(G_SINK, "orders", 1, 3, 80, t, epoch=3),
                OC(G_SINK, "orders", 2, 3, 9, t, epoch=3), OC(G_SINK, "orders", 0, 3, 101, t, epoch=3),
                OC(G_SINK, "orders", 1, 3, 90, t, epoch=3)], t, codec="zstd")
    t = clk()
    P[33].data([
        R(3, K(G_848), 0, {"Epoch": 1, "MetadataHash": 0x1234567890ABCDEF}),
        R(4, K(G_848), 0, {"Topics": [
            {"TopicId": TOPIC_IDS["orders"], "TopicName": "orders", "NumPartitions": 3,
             "PartitionMetadata": [{"Partition": 0, "Racks": ["use1-az1", "use1-az2"]},
                                   {"Partition": 1, "Racks": []}]},
            {"TopicId": TOPIC_IDS["clicks"], "TopicName": "clicks", "NumPartitions": 1,
             "PartitionMetadata": []}]})], t)
    A = "Zmx1ZmZ5LW1lbWJlci1B"      # KIP-848 member ids are client-chosen uuids/strings
    B = "Y2xhc3NpYy1tZW1iZXItQg"
    t = clk()
    P[33].data([
        R(5, K(G_848, A), 0, {"InstanceId": None, "RackId": "use1-az1", "ClientId": "app-a",
                              "ClientHost": "/10.0.5.1", "SubscribedTopicNames": ["orders", "clicks"],
                              "SubscribedTopicRegex": "pay.*", "RebalanceTimeoutMs": 300000,
                              "ServerAssignor": "uniform"}),
        R(3, K(G_848), 0, {"Epoch": 2, "MetadataHash": 0x1234567890ABCDEF, "CreationTimeMs": T0}),
        R(7, K(G_848, A), 0, {"TopicPartitions": [TP(TOPIC_IDS["orders"], [0, 1, 2])]}),
        R(6, K(G_848), 0, {"AssignmentEpoch": 2}),
        R(8, K(G_848, A), 0, {"MemberEpoch": 2, "PreviousMemberEpoch": 0, "State": 0,
                              "AssignedPartitions": [TP(TOPIC_IDS["orders"], [0, 1, 2])],
                              "PartitionsPendingRevocation": []})], t)

    # -- transactions of payments-txn-23 (12) with their __transaction_state records
    start = txs(5000, 0, 1, [("__consumer_offsets", [12]), ("payments", [0])], clk.t + STEP)
    t = clk()
    P[12].data([OC(G_TXN, "orders", 0, 3, 100, t, epoch=3), OC(G_TXN, "orders", 1, 3, 50, t, epoch=3)],
               t, pid=5000, epoch=0, txn=True)
    txs(5000, 0, 2, [("__consumer_offsets", [12]), ("payments", [0])], start)
    marks["commit_5000"] = P[12].marker("COMMIT", 5000, 0, clk())
    txs(5000, 0, 4, [], start)

    t = clk()
    P[33].data([
        R(5, K(G_848, B), 0, {"InstanceId": "static-b", "RackId": None, "ClientId": "app-b",
                              "ClientHost": "/10.0.5.2", "SubscribedTopicNames": ["orders", "clicks"],
                              "SubscribedTopicRegex": None, "RebalanceTimeoutMs": 60000,
                              "ServerAssignor": None,
                              "ClassicMemberMetadata": {"SessionTimeoutMs": 45000, "SupportedProtocols": [
                                  {"Name": "range", "Metadata": sub(3, ["orders", "clicks"], owned=[],
                                                                    gen=-1, rack=None)}]}}),
        R(3, K(G_848), 0, {"Epoch": 3, "MetadataHash": 0x1234567890ABCDEF, "CreationTimeMs": T0}),
        R(7, K(G_848, A), 0, {"TopicPartitions": [TP(TOPIC_IDS["orders"], [0, 1])]}),
        R(7, K(G_848, B), 0, {"TopicPartitions": [TP(TOPIC_IDS["orders"], [2]),
                                                  TP(TOPIC_IDS["clicks"], [0])]}),
        R(6, K(G_848), 0, {"AssignmentEpoch": 3, "AssignmentTimestamp": t}),
        R(8, K(G_848, A), 0, {"MemberEpoch": 3, "PreviousMemberEpoch": 2, "State": 0,
                              "AssignedPartitions": [TP(TOPIC_IDS["orders"], [0, 1], epochs=[2, 2])],
                              "PartitionsPendingRevocation": []}),
        R(8, K(G_848, B), 0, {"MemberEpoch": 3, "PreviousMemberEpoch": 0, "State": 2,
                              "AssignedPartitions": [TP(TOPIC_IDS["clicks"], [0])],
                              "PartitionsPendingRevocation": []})], t)

    t = clk()
    m2 = "instance-2-b7d4c1e8-3f2a-4c6b-9e5d-8a7f6b5c4d3e"
    P[12].data([GM(G_MY, 3, "consumer", 2, "cooperative-sticky", m1, [
        member(m1, "consumer-my-group-1", "/10.0.0.5", 45000,
               sub(3, ["orders", "payments"], user_data=b"\x00\x00\x00\x01sticky",
                   owned=[("orders", [0, 1])], gen=1, rack="use1-az1"),
               asg(3, [("orders", [0, 1])]), rebalance=300000),
        member(m2, "consumer-my-group-2", "/10.0.0.6", 45000,
               sub(2, ["orders", "payments"], owned=[("orders", [2])], gen=1),
               asg(2, [("orders", [2]), ("payments", [0])], user_data=b"\xca\xfe"),
               rebalance=300000, instance="instance-2")], state_ts=t)], t)
    t = clk()
    P[12].data([OT(G_MY, "clicks", 0)], t)
    marks["clicks_tombstone_time"] = t

    start = txs(5000, 0, 1, [("__consumer_offsets", [12]), ("payments", [0])], clk.t + STEP)
    t = clk()
    P[12].data([OC(G_TXN, "orders", 0, 3, 120, t, epoch=3)], t, pid=5000, epoch=0, txn=True)
    txs(5000, 0, 3, [("__consumer_offsets", [12]), ("payments", [0])], start)
    marks["abort_5000"] = P[12].marker("ABORT", 5000, 0, clk())
    txs(5000, 0, 5, [], start)

    t = clk()
    P[12].data([OT(G_MY, "inventory", 5)], t)

    start = txs(5001, 0, 1, [("__consumer_offsets", [12])], clk.t + STEP)
    t = clk()
    P[12].data([OC(G_TXN, "payments", 0, 3, 30, t, epoch=1)], t, pid=5001, epoch=0, txn=True)
    t = clk()
    P[12].data([OC(G_TXN, "payments", 0, 3, 35, t, epoch=1)], t)
    txs(5001, 0, 2, [("__consumer_offsets", [12])], start)
    marks["commit_5001"] = P[12].marker("COMMIT", 5001, 0, clk())
    txs(5001, 0, 4, [], start)
    marks["as_of"] = clk.t + STEP // 2

    t = clk()
    P[12].data([OT(G_OLD, "orders", 0), OT(G_OLD, "payments", 0), R(2, {"group": G_OLD})], t)
    t = clk()
    P[5].data([R(2, {"group": G_LEGACY})], t)

    # second segment of partition 12 (new leader epoch)
    P[12].roll(leader_epoch=1)
    t = clk()
    mt = "consumer-txn-1-4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8"
    v9 = struct.pack(">hqi", 9, 999, 7) + b"\x01" + struct.pack(">q", t) + b"\x00" + b"future"
    P[12].data([
        OC(G_MY, "orders", 0, 3, 55, t, epoch=4),
        RAW(struct.pack(">h", 99) + b"\x00\x08my-group\x00\x00\x00\x2a", b"\x00\x00future-record",
            "unknown_record_type"),
        RAW(cf.encode_key(1, {"group": G_MY, "topic": "orders", "partition": 1}), v9,
            "unknown_value_version"),
        OC(G_MY, "payments", 0, 4, 8, t, epoch=1, topic_id=TOPIC_IDS["payments"]),
        GM(G_TXN, 3, "consumer", 4, "range", mt, [
            member(mt, "consumer-txn-1", "/10.0.6.1", 45000,
                   sub(3, ["orders", "payments"], owned=[("orders", [0, 1, 2]), ("payments", [0])],
                       gen=3, rack=None),
                   asg(3, [("orders", [0, 1, 2]), ("payments", [0])]), rebalance=300000,
                   instance=None)], state_ts=t)], t)

    start = txs(5002, 1, 1, [("__consumer_offsets", [12])], clk.t + STEP, version=1,
                PreviousProducerId=4990, ClientTransactionVersion=2)
    t = clk()
    P[12].data([OC(G_TXN, "orders", 1, 3, 60, t, epoch=3), OC(G_TXN, "orders", 2, 3, 70, t, epoch=3)],
               t, pid=5002, epoch=1, txn=True)
    t = clk()
    P[12].data([OT(G_TXN, "orders", 1)], t)
    t = clk()
    P[12].data([OC(G_MY, "clicks", 0, 3, 310, t, epoch=0)], t)
    txs(5002, 1, 2, [("__consumer_offsets", [12])], start, version=1,
        PreviousProducerId=4990, ClientTransactionVersion=2)
    marks["commit_5002"] = P[12].marker("COMMIT", 5002, 1, clk())
    txs(5002, 2, 4, [], start, version=1, PreviousProducerId=4990, ClientTransactionVersion=2)

    t = clk()
    P[33].data([
        R(8, K(G_848, B)), R(7, K(G_848, B)), R(5, K(G_848, B)),
        R(3, K(G_848), 0, {"Epoch": 4, "MetadataHash": 0x0FEDCBA987654321, "CreationTimeMs": T0}),
        R(7, K(G_848, A), 0, {"TopicPartitions": [
            TP(TOPIC_IDS["orders"], [0, 1, 2]), TP(TOPIC_IDS["clicks"], [0]),
            TP(TOPIC_IDS["payments"], [0]), TP(GHOST_TOPIC_ID, [3])]}),
        R(6, K(G_848), 0, {"AssignmentEpoch": 4}),
        R(8, K(G_848, A), 0, {"MemberEpoch": 4, "PreviousMemberEpoch": 3, "State": 0,
                              "AssignedPartitions": [
                                  TP(TOPIC_IDS["orders"], [0, 1, 2]), TP(TOPIC_IDS["clicks"], [0]),
                                  TP(TOPIC_IDS["payments"], [0]), TP(GHOST_TOPIC_ID, [3])],
                              "PartitionsPendingRevocation": []})], t)
    t = clk()
    P[33].data([R(16, K(G_848, RegularExpression="pay.*"), 0,
                  {"Topics": ["payments"], "Version": 7, "Timestamp": t})], t)
    t = clk()
    P[33].data([OC(G_848, "orders", 0, 3, 11, t, epoch=3), OC(G_848, "orders", 1, 3, 12, t, epoch=3)], t)

    S1 = "c2hhcmUtbWVtYmVyLTE"
    t = clk()
    P[33].data([
        R(11, K(G_SHARE), 0, {"Epoch": 1}),
        R(9, K(G_SHARE), 0, {"Topics": [{"TopicId": TOPIC_IDS["tasks"], "TopicName": "tasks",
                                         "NumPartitions": 1, "PartitionMetadata": []}]}),
        R(10, K(G_SHARE, S1), 0, {"RackId": None, "ClientId": "share-client-1",
                                  "ClientHost": "/10.0.7.1", "SubscribedTopicNames": ["tasks"]}),
        R(12, K(G_SHARE), 0, {"AssignmentEpoch": 1}),
        R(13, K(G_SHARE, S1), 0, {"TopicPartitions": [TP(TOPIC_IDS["tasks"], [0])]}),
        R(14, K(G_SHARE, S1), 0, {"MemberEpoch": 1, "PreviousMemberEpoch": 0, "State": 0,
                                  "AssignedPartitions": [TP(TOPIC_IDS["tasks"], [0])]}),
        R(15, K(G_SHARE), 0, {"InitializedTopics": [{"TopicId": TOPIC_IDS["tasks"],
                                                     "TopicName": "tasks", "Partitions": [0]}],
                              "DeletingTopics": []})], t)

    ST = "c3RyZWFtcy1tZW1iZXItMQ"
    t = clk()
    P[33].data([
        R(17, K(G_STREAMS), 0, {"Epoch": 1}),
        R(23, K(G_STREAMS), 0, {"Epoch": 1, "Subtopologies": [{
            "SubtopologyId": "0", "SourceTopics": ["words"], "SourceTopicRegex": [],
            "StateChangelogTopics": [{"Name": "streams-wordcount-14-counts-changelog",
                                      "Partitions": 0, "ReplicationFactor": 0,
                                      "TopicConfigs": [{"key": "cleanup.policy", "value": "compact"}]}],
            "RepartitionSinkTopics": [], "RepartitionSourceTopics": [],
            "CopartitionGroups": []}]}),
        R(18, K(G_STREAMS), 0, {"Topics": [{"TopicId": TOPIC_IDS["words"], "TopicName": "words",
                                            "NumPartitions": 2, "PartitionMetadata": []}]}),
        R(19, K(G_STREAMS, ST), 0, {"InstanceId": None, "RackId": None, "ClientId": "wordcount-1",
                                    "ClientHost": "/10.0.8.1", "RebalanceTimeoutMs": 300000,
                                    "TopologyEpoch": 1, "ProcessId": "process-0001",
                                    "UserEndpoint": {"Host": "wordcount-1.local", "Port": 8080},
                                    "ClientTags": [{"Key": "zone", "Value": "use1-az1"}]}),
        R(20, K(G_STREAMS), 0, {"AssignmentEpoch": 1}),
        R(21, K(G_STREAMS, ST), 0, {"ActiveTasks": [{"SubtopologyId": "0", "Partitions": [0, 1]}],
                                    "StandbyTasks": [], "WarmupTasks": []}),
        R(22, K(G_STREAMS, ST), 0, {"MemberEpoch": 1, "PreviousMemberEpoch": 0, "State": 0,
                                    "ActiveTasks": [{"SubtopologyId": "0", "Partitions": [0, 1]}],
                                    "StandbyTasks": [], "WarmupTasks": [],
                                    "ActiveTasksPendingRevocation": [],
                                    "StandbyTasksPendingRevocation": [],
                                    "WarmupTasksPendingRevocation": []})], t)
    t = clk()
    P[33].data([OC(G_STREAMS, "words", 0, 3, 500, t, epoch=0)], t)
    t = clk()
    P[3].data([OC(G_FLEX, "orders", 0, 4, 65, t, epoch=5, topic_id=TOPIC_IDS["orders"])], t)
    t = clk()
    P[33].data([OC(G_SINK, "orders", 0, 3, 120, t, epoch=3)], t)
    t = clk()
    TS.data([R(0, {"TransactionalId": TXN_IDS[5001]}, txn_log=True)], t)   # expired
    txs(5003, 0, 0, None, -1, version=1, PreviousProducerId=4999, ClientTransactionVersion=2)
    start = txs(5003, 0, 1, [("__consumer_offsets", [12])], clk.t + STEP, version=1,
                PreviousProducerId=4999, ClientTransactionVersion=2)
    t = clk()
    P[12].data([OC(G_TXN, "orders", 0, 3, 130, t, epoch=3)], t, pid=5003, epoch=0, txn=True)
    t = clk()
    P[12].data([OC(G_MY, "orders", 1, 3, 57, t, epoch=4)], t)

    # -- deleted groups: a KIP-848 group whose member left, then DeleteGroups
    # (offset tombstones, then the group's tombstones in ConsumerGroup's order)
    R1 = "cmV0aXJlZC1tZW1iZXItMQ"
    t = clk()
    P[8].data([
        R(5, K(G_RETIRED, R1), 0, {"InstanceId": None, "RackId": None, "ClientId": "retired-1",
                                   "ClientHost": "/10.0.9.1", "SubscribedTopicNames": ["orders"],
                                   "SubscribedTopicRegex": None, "RebalanceTimeoutMs": 300000,
                                   "ServerAssignor": "uniform"}),
        R(3, K(G_RETIRED), 0, {"Epoch": 1, "CreationTimeMs": t}),
        R(4, K(G_RETIRED), 0, {"Topics": [
            {"TopicId": TOPIC_IDS["orders"], "TopicName": "orders", "NumPartitions": 2,
             "PartitionMetadata": []}]}),
        R(7, K(G_RETIRED, R1), 0, {"TopicPartitions": [TP(TOPIC_IDS["orders"], [0, 1])]}),
        R(6, K(G_RETIRED), 0, {"AssignmentEpoch": 1}),
        R(8, K(G_RETIRED, R1), 0, {"MemberEpoch": 1, "PreviousMemberEpoch": 0, "State": 0,
                                   "AssignedPartitions": [TP(TOPIC_IDS["orders"], [0, 1])],
                                   "PartitionsPendingRevocation": []})], t)
    t = clk()
    P[8].data([OC(G_RETIRED, "orders", 0, 3, 140, t, epoch=0),
               OC(G_RETIRED, "orders", 1, 3, 85, t, epoch=0)], t)
    t = clk()
    P[8].data([R(8, K(G_RETIRED, R1)), R(7, K(G_RETIRED, R1)), R(5, K(G_RETIRED, R1)),
               R(3, K(G_RETIRED), 0, {"Epoch": 2, "CreationTimeMs": t - STEP * 2}),
               R(6, K(G_RETIRED), 0, {"AssignmentEpoch": 2})], t)
    t = clk()
    P[8].data([OT(G_RETIRED, "orders", 0), OT(G_RETIRED, "orders", 1),
               R(6, K(G_RETIRED)), R(4, K(G_RETIRED)), R(3, K(G_RETIRED))], t)

    # -- a group known only from offsets (assign()), all of them removed by
    # OffsetDelete: no trace left, not listed
    t = clk()
    P[33].data([OC(G_ADHOC, "orders", 0, 3, 3, t, epoch=3),
                OC(G_ADHOC, "payments", 0, 3, 4, t, epoch=1)], t)
    t = clk()
    P[33].data([OT(G_ADHOC, "orders", 0), OT(G_ADHOC, "payments", 0)], t)

    # -- a simple group expired by the coordinator (formats §11.10): its offset
    # tombstone and a group tombstone, though it never had a group record
    t = clk()
    P[12].data([OC(G_EXPIRED, "clicks", 0, 3, 9, t, epoch=0)], t)
    t = clk()
    P[12].data([OT(G_EXPIRED, "clicks", 0), R(2, {"group": G_EXPIRED})], t)
    return P, TS, marks


# ---------------------------------------------------------------------------
# reading segments back (independent of the script above)

def b64(x):
    return None if x is None else base64.b64encode(x).decode("ascii")


def parse_batches(data, partition=None):
    """Every complete, CRC-valid batch of segment bytes, normalised (with its
    position and size in the segment and its partition leader epoch); stops
    at a torn tail. Returns (batches, damaged [(position, base_offset, why)]),
    why "truncated" or "crc_mismatch"."""
    out, bad, pos = [], [], 0
    while pos + 12 <= len(data):
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if pos + 12 + size > len(data):
            bad.append((pos, struct.unpack_from(">q", data, pos)[0], "truncated"))
            break
        entry = data[pos:pos + 12 + size]
        pos += 12 + size
        try:
            decoded = read_records(entry)
        except AssertionError:
            bad.append((pos - len(entry), struct.unpack_from(">q", entry, 0)[0], "crc_mismatch"))
            continue
        (batch, recs), = decoded
        attrs = struct.unpack_from(">h", entry, 21)[0]
        out.append({
            "partition": partition, "position": pos - len(entry), "size": len(entry),
            "base_offset": batch.base_offset,
            "last_offset": batch.base_offset + batch.last_offset_delta, "count": len(recs),
            "control": bool(attrs & 0x20), "transactional": bool(attrs & 0x10),
            "codec": ["none", "gzip", "snappy", "lz4", "zstd"][attrs & 7],
            "pid": struct.unpack_from(">q", entry, 43)[0],
            "epoch": struct.unpack_from(">h", entry, 51)[0],
            "leader_epoch": struct.unpack_from(">i", entry, 12)[0],
            "max_ts": batch.max_timestamp,
            "records": [(r.offset, r.timestamp, r.key, r.value) for r in recs]})
    return out, bad


def read_partition_dir(root, pdir, partition):
    batches = []
    for name in sorted(os.listdir(os.path.join(root, pdir))):
        if name.endswith(".log"):
            with open(os.path.join(root, pdir, name), "rb") as f:
                bs, bad = parse_batches(f.read(), partition)
            assert not bad, (pdir, name, bad)
            batches += bs
    return batches


# ---------------------------------------------------------------------------
# decoding records as `kfsck dump --decode` prints them

def render_subscription(raw):
    version, d = cf.decode_subscription(raw)
    return {"version": version, "topics": d["Topics"],
            "owned_partitions": None if "OwnedPartitions" not in d else
            [{"topic": e["Topic"], "partitions": e["Partitions"]} for e in d["OwnedPartitions"]],
            "generation_id": d.get("GenerationId"), "rack_id": d.get("RackId"),
            "user_data_b64": b64(d["UserData"])}


def render_assignment(raw):
    version, d = cf.decode_assignment(raw)
    return {"version": version,
            "partitions": [{"topic": e["Topic"], "partitions": e["Partitions"]}
                           for e in d["AssignedPartitions"]],
            "user_data_b64": b64(d["UserData"])}


def render_value(rtype, version, d):
    out = cf.to_cli(cf.RECORDS[rtype][1], version, d)
    if rtype == 2 and d["protocolType"] == "consumer":
        for m, raw in zip(out["members"], d["members"]):
            del m["subscription_b64"], m["assignment_b64"]
            m["subscription"] = render_subscription(raw["subscription"])
            m["assignment"] = render_assignment(raw["assignment"])
    return out


def decode_record(partition, batch, rec, txn_log=False):
    off, ts, key, value = rec
    r = {"partition": partition, "offset": off, "timestamp": ts,
         "batch_base_offset": batch["base_offset"], "codec": batch["codec"],
         "transactional": batch["transactional"], "producer_id": batch["pid"],
         "key_b64": b64(key), "value_b64": b64(value), "tombstone": value is None}
    rtype = struct.unpack_from(">h", key, 0)[0]
    r["key_type"] = rtype
    try:
        rtype, kd = cf.decode_key(key, txn=txn_log)
    except cf.DecodeError as e:
        r.update(record_type=None, key_decoded=None, value_version=None, value_decoded=None,
                 expect="unknown_record_type", reason=str(e))
        return r, None
    ks = cf.TXN_KEY if txn_log else cf.RECORDS[rtype][0]
    r["record_type"] = "transaction_log" if txn_log else cf.record_type_name(rtype)
    r["key_decoded"] = cf.to_cli(ks, 0, kd)
    if value is None:
        r.update(value_version=None, value_decoded=None, expect="decoded")
        return r, (rtype, kd, None, None)
    version = struct.unpack_from(">h", value, 0)[0]
    r["value_version"] = version
    try:
        version, vd, info = cf.decode_value(rtype, value, txn=txn_log)
    except cf.DecodeError as e:
        vs = cf.TXN_VALUE if txn_log else cf.RECORDS[rtype][1]
        assert version not in vs.valid, e
        r.update(value_decoded=None, expect="unknown_value_version", reason=str(e))
        return r, None
    if txn_log:
        r["value_decoded"] = cf.to_cli(cf.TXN_VALUE, version, vd)
    else:
        r["value_decoded"] = render_value(rtype, version, vd)
    r["tagged_fields_present"] = [cf.snake(n) for n in info["tags_present"]]
    r["unknown_tags"] = [{"tag": t, "size": len(p)} for t, p in info["unknown_tags"]]
    r["expect"] = "decoded"
    return r, (rtype, kd, version, vd)


def cross_check(r, intent):
    """What the decoder read must be what the script meant to write."""
    if "raw" in intent:
        assert r["expect"] == intent["raw"], (r, intent)
        return
    assert r["expect"] == "decoded" and r["key_type"] == intent["rtype"], r
    txn_log = intent["txn_log"]
    ks = cf.TXN_KEY if txn_log else cf.RECORDS[intent["rtype"]][0]
    assert r["key_decoded"] == cf.to_cli(ks, 0, intent["key"]), r
    if intent["value"] is None:
        assert r["tombstone"]
        return
    vs = cf.TXN_VALUE if txn_log else cf.RECORDS[intent["rtype"]][1]
    v = intent["version"]
    filled = cf.fill_defaults(vs.fields, intent["value"], v, v in vs.flexible)
    want = cf.to_cli(vs, v, filled) if txn_log else render_value(intent["rtype"], v, filled)
    assert r["value_version"] == v and r["value_decoded"] == want, (r["value_decoded"], want)


# ---------------------------------------------------------------------------
# replay (formats §11.6)

def none_if_neg1(x):
    return None if x is None or x == -1 else x


def offset_entry(partition, off, kd, version, vd, transactional):
    return {"group": kd["group"], "topic": kd["topic"], "partition": kd["partition"],
            "offset": vd["offset"], "leader_epoch": none_if_neg1(vd.get("leaderEpoch")),
            "metadata": vd["metadata"], "commit_timestamp": vd["commitTimestamp"],
            "expire_timestamp": none_if_neg1(vd.get("expireTimestamp")),
            "source_partition": partition, "source_offset": off, "transactional": transactional}


GROUP_METADATA_TYPES = (2, 3, 11, 17)   # classic, consumer, share, streams group metadata


class Replay:
    """The coordinator's replay (formats §11.6). Changes to the offsets table are
    recorded in `history` in the order they take effect: batches of one
    partition in offset order, partitions interleaved on one time line
    (`replay_partitions`)."""

    def __init__(self):
        self.offsets = {}      # slot -> entry
        self.pending = {}      # (partition, pid) -> {slot: entry}
        self.kv = {}           # (rtype, key tuple) -> (version, value dict, partition, offset)
        self.last_meta = {}    # group -> (metadata record type, "value" | "tombstone")
        self.created = set()   # groups an offset commit's value created (Kafka's "simple" groups)
        self.history = []
        self.records = []
        self.controls = []
        self.problems = []

    def change(self, entry, deleted, eff_off, change_time, partition, slot=None, previous=None):
        """change_time is what --as-of compares: the commit timestamp of a
        plain commit; for a transactional one the max timestamp of its COMMIT
        marker's batch (or its own commit timestamp when later), as it takes
        effect there; the tombstone batch's max timestamp for a deletion."""
        if deleted:
            g, t, p = slot
            h = {"group": g, "topic": t, "partition": p, "deleted": True, "offset": None,
                 "leader_epoch": None, "metadata": None, "commit_timestamp": None,
                 "expire_timestamp": None, "source_partition": partition,
                 "source_offset": eff_off, "transactional": False, "previous": previous}
        else:
            h = dict(entry, deleted=False)
        h["change_time"] = change_time
        h["effective_offset"] = eff_off
        self.history.append(h)

    def partition(self, partition, batches, intents=None, txn_log=False):
        """One partition alone, in offset order."""
        for b in sorted(batches, key=lambda b: b["base_offset"]):
            self.batch(partition, b, intents, txn_log)

    def replay_partitions(self, parts, intents=None):
        """Several partitions {partition: batches} on one time line: each in
        offset order; of the partitions' next batches, the one with the
        smallest max timestamp goes first (ties: the lower partition)."""
        queues = {p: sorted(bs, key=lambda b: b["base_offset"]) for p, bs in parts.items()}
        heads = {p: 0 for p in queues}
        while True:
            ready = [(queues[p][i]["max_ts"], p) for p, i in heads.items() if i < len(queues[p])]
            if not ready:
                break
            _, p = min(ready)
            self.batch(p, queues[p][heads[p]], None if intents is None else intents[p])
            heads[p] += 1

    def batch(self, partition, b, intents=None, txn_log=False):
        if b["count"] == 0:
            return
        if b["control"]:
            (off, ts, key, value), = b["records"]
            ctype = struct.unpack(">hh", key)[1]
            kind = {0: "ABORT", 1: "COMMIT"}[ctype]
            self.controls.append({"partition": partition, "offset": off, "timestamp": ts,
                                  "control_type": kind, "producer_id": b["pid"],
                                  "producer_epoch": b["epoch"],
                                  "coordinator_epoch": struct.unpack(">hi", value)[1]})
            stage = self.pending.pop((partition, b["pid"]), {})
            if kind == "COMMIT":
                for slot, e in sorted(stage.items(), key=lambda kv: kv[1]["source_offset"]):
                    cur = self.offsets.get(slot)
                    if cur is None or e["source_offset"] > cur["source_offset"]:
                        self.offsets[slot] = e
                        # dated by its COMMIT marker, when it took effect (Kafka 4.4's
                        # coordinator showed it only then: the broker suite)
                        self.change(e, False, off, max(e["commit_timestamp"], b["max_ts"]), partition)
            return
        for rec in b["records"]:
            r, dec = decode_record(partition, b, rec, txn_log)
            self.records.append(r)
            if intents is not None:
                cross_check(r, intents[rec[0]])
            if dec is None:
                self.problems.append({"partition": partition, "offset": rec[0],
                                      "kind": r["expect"], "key_type": r["key_type"],
                                      "value_version": r.get("value_version")})
                continue
            rtype, kd, version, vd = dec
            if txn_log:
                k = ("txn", kd["TransactionalId"])
                if vd is None:
                    self.kv.pop(k, None)
                else:
                    self.kv[k] = (version, vd, partition, rec[0])
                continue
            if rtype in (0, 1):
                slot = (kd["group"], kd["topic"], kd["partition"])
                if vd is not None:
                    # OffsetMetadataManager.replay: a commit's value creates its group
                    # (an empty classic one) when there is none, staged or not, and
                    # after a metadata tombstone too
                    self.created.add(kd["group"])
                    if self.last_meta.get(kd["group"], (None, None))[1] == "tombstone":
                        self.last_meta[kd["group"]] = (None, "commit")
                if b["transactional"]:
                    assert vd is not None
                    self.pending.setdefault((partition, b["pid"]), {})[slot] = \
                        offset_entry(partition, rec[0], kd, version, vd, True)
                elif vd is None:
                    if slot in self.offsets:
                        prev = self.offsets.pop(slot)
                        self.change(None, True, rec[0], b["max_ts"], partition, slot, prev)
                    for (part, _), stage in self.pending.items():
                        if part == partition:
                            stage.pop(slot, None)
                else:
                    e = offset_entry(partition, rec[0], kd, version, vd, False)
                    self.offsets[slot] = e
                    self.change(e, False, rec[0], vd["commitTimestamp"], partition)
                continue
            k = (rtype, tuple(kd.values()))
            if rtype in GROUP_METADATA_TYPES:
                g = kd["group"] if rtype == 2 else kd["GroupId"]
                self.last_meta[g] = (rtype, "tombstone" if vd is None else "value")
            if vd is None:
                self.kv.pop(k, None)
            else:
                self.kv[k] = (version, vd, partition, rec[0])

    def finish(self):
        self.records.sort(key=lambda r: (r["partition"], r["offset"]))
        self.controls.sort(key=lambda c: (c["partition"], c["offset"]))
        # per partition, changes take effect in offset order
        last = {}
        for h in self.history:
            p = h["source_partition"]
            assert last.get(p, -1) <= h["effective_offset"], h
            last[p] = h["effective_offset"]


def with_lag(row, leo):
    row = dict(row)
    k = (row["topic"], row["partition"])
    if k in leo:
        row["log_end_offset"] = leo[k]
        row["lag"] = leo[k] - row["offset"]
    return row


def offsets_table(entries, leo):
    return [with_lag(e, leo) for e in sorted(entries, key=lambda e: (e["group"], e["topic"],
                                                                        e["partition"]))]


def as_of_changes(history, ms):
    """--as-of (issue 33 item 1): the changes whose change_time is <= ms, in
    the order they took effect; a change after ms is left out wherever it
    falls in the history."""
    return [h for h in history if h["change_time"] <= ms]


def fold_changes(changes):
    """The table a list of history changes leaves, in their order: slot -> row."""
    table = {}
    for h in changes:
        slot = (h["group"], h["topic"], h["partition"])
        if h["deleted"]:
            table.pop(slot, None)
        else:
            table[slot] = {k: v for k, v in h.items()
                           if k not in ("deleted", "effective_offset", "change_time", "previous")}
    return table


def as_of_table(history, ms, leo):
    return offsets_table(fold_changes(as_of_changes(history, ms)).values(), leo)


# ---------------------------------------------------------------------------
# groups view (cli.md `groups`)

CONSUMER_TYPES = {3, 4, 5, 6, 7, 8, 16}
SHARE_TYPES = set(range(9, 16))
STREAMS_TYPES = set(range(17, 25))


def classic_view(group, version, d):
    members = []
    for m in d["members"]:
        e = {"member_id": m["memberId"], "group_instance_id": m.get("groupInstanceId"),
             "client_id": m["clientId"], "client_host": m["clientHost"],
             "session_timeout": m["sessionTimeout"], "rebalance_timeout": m.get("rebalanceTimeout")}
        if d["protocolType"] == "consumer":
            e["subscription"] = render_subscription(m["subscription"])
            e["assignment"] = render_assignment(m["assignment"])
        else:
            e["subscription_b64"] = b64(m["subscription"])
            e["assignment_b64"] = b64(m["assignment"])
        members.append(e)
    return {"group": group, "kind": "classic", "state": "stable" if members else "empty",
            "protocol_type": d["protocolType"], "generation": d["generation"],
            "protocol": d["protocol"], "leader": d["leader"],
            "current_state_timestamp": d.get("currentStateTimestamp"), "members": members,
            "value_version": version}


def tp_list(tps, names):
    return [{"topic": names.get(cf.uuid_str(tp["TopicId"])), "topic_id": cf.uuid_str(tp["TopicId"]),
             "partitions": tp["Partitions"]} for tp in tps]


def modern_view(group, kind, kv, names):
    def get(rtype, *key):
        v = kv.get((rtype, (group,) + key))
        return None if v is None else v[1]

    def members_of(rtype):
        return sorted(k[1][1] for k in kv if k[0] == rtype and k[1][0] == group)

    g = {"group": group, "kind": kind}
    members = []
    if kind == "consumer":
        md, tmd = get(3), get(6)
        g["group_epoch"] = md["Epoch"] if md else None
        g["assignment_epoch"] = tmd["AssignmentEpoch"] if tmd else None
        pm = get(4)
        g["subscription_metadata"] = None if pm is None else \
            cf.to_cli(cf.RECORDS[4][1], 0, pm)["topics"]
        g["regular_expressions"] = [
            {"regular_expression": k[1][1], "topics": v[1]["Topics"]}
            for k, v in sorted(kv.items()) if k[0] == 16 and k[1][0] == group]
        for mid in members_of(5):
            meta, cur, tgt = get(5, mid), get(8, mid), get(7, mid)
            e = {"member_id": mid,
                 "member_epoch": cur["MemberEpoch"] if cur else -1,
                 "previous_member_epoch": cur["PreviousMemberEpoch"] if cur else -1,
                 "state": cur["State"] if cur else None,
                 "assignment": tp_list(cur["AssignedPartitions"], names) if cur else [],
                 "partitions_pending_revocation":
                     tp_list(cur["PartitionsPendingRevocation"], names) if cur else [],
                 "target_assignment": tp_list(tgt["TopicPartitions"], names) if tgt else None}
            e.update(cf.to_cli(cf.RECORDS[5][1], 0, meta))
            members.append(e)
    elif kind == "share":
        md, tmd = get(11), get(12)
        g["group_epoch"] = md["Epoch"] if md else None
        g["assignment_epoch"] = tmd["AssignmentEpoch"] if tmd else None
        for mid in members_of(10):
            meta, cur, tgt = get(10, mid), get(14, mid), get(13, mid)
            e = {"member_id": mid,
                 "member_epoch": cur["MemberEpoch"] if cur else -1,
                 "previous_member_epoch": cur["PreviousMemberEpoch"] if cur else -1,
                 "state": cur["State"] if cur else None,
                 "assignment": tp_list(cur["AssignedPartitions"], names) if cur else [],
                 "target_assignment": tp_list(tgt["TopicPartitions"], names) if tgt else None}
            e.update(cf.to_cli(cf.RECORDS[10][1], 0, meta))
            members.append(e)
    else:
        md, tmd = get(17), get(20)
        g["group_epoch"] = md["Epoch"] if md else None
        g["assignment_epoch"] = tmd["AssignmentEpoch"] if tmd else None
        topo = get(23)
        g["topology"] = None if topo is None else cf.to_cli(cf.RECORDS[23][1], 0, topo)
        for mid in members_of(19):
            meta, cur = get(19, mid), get(22, mid)
            e = {"member_id": mid,
                 "member_epoch": cur["MemberEpoch"] if cur else -1}
            if cur:
                c = cf.to_cli(cf.RECORDS[22][1], 0, cur)
                c.pop("member_epoch")
                e.update(c)
            e.update(cf.to_cli(cf.RECORDS[19][1], 0, meta))
            members.append(e)
    g["state"] = "stable" if members else "empty"
    g["members"] = members
    return g


def groups_view(rp, names):
    """cli.md `groups`, with what Kafka 4.4's coordinator showed (the broker
    suite's clean scenario): a group whose last metadata record (types 2, 3,
    11, 17) is a tombstone and that has no live metadata record is deleted:
    listed with its kind and state dead, whether offsets remain or not. A
    group an offset commit created (its value replayed, committed, staged or
    aborted) and that has no metadata is listed classic and empty, even when
    its offsets were all deleted since: the coordinator keeps it until its
    cleanup writes a tombstone."""
    groups = set(rp.last_meta) | rp.created
    groups |= {k[1][0] for k in rp.kv if k[0] != "txn"}
    groups |= {e["group"] for e in rp.offsets.values()}
    out = []
    for g in sorted(groups):
        has_offsets = any(e["group"] == g for e in rp.offsets.values())
        live = {k[0] for k in rp.kv if k[0] != "txn" and k[1][0] == g}
        last = rp.last_meta.get(g)
        dead = last is not None and last[1] == "tombstone" and not live & set(GROUP_METADATA_TYPES)
        if dead and last[0] != 2:
            kind = {3: "consumer", 11: "share", 17: "streams"}[last[0]]
            out.append({"group": g, "kind": kind, "state": "dead", "group_epoch": None,
                        "assignment_epoch": None, "members": []})
        elif dead:
            out.append({"group": g, "kind": "classic", "state": "dead",
                        "protocol_type": None, "generation": None, "protocol": None,
                        "leader": None, "current_state_timestamp": None, "members": []})
        elif 2 in live:
            version, d, _, _ = rp.kv[(2, (g,))]
            out.append(classic_view(g, version, d))
        elif live & CONSUMER_TYPES:
            out.append(modern_view(g, "consumer", rp.kv, names))
        elif live & SHARE_TYPES:
            out.append(modern_view(g, "share", rp.kv, names))
        elif live & STREAMS_TYPES:
            out.append(modern_view(g, "streams", rp.kv, names))
        elif has_offsets or g in rp.created:
            out.append({"group": g, "kind": "classic", "state": "empty",
                        "protocol_type": None, "generation": None, "protocol": None,
                        "leader": None, "current_state_timestamp": None, "members": []})
    return out


def topic_names(rp, dir_topic_ids):
    names = {}
    for k, (version, d, _, _) in rp.kv.items():
        if k[0] in (4, 9, 18):
            for t in d["Topics"]:
                u = cf.uuid_str(t["TopicId"])
                assert names.get(u, t["TopicName"]) == t["TopicName"]
                names[u] = t["TopicName"]
    for topic, u in dir_topic_ids.items():
        assert names.get(u, topic) == topic
        names[u] = topic
    return names


# ---------------------------------------------------------------------------
# topic partitions (for lag), Connect offsets topic

def topic_log(topic, part, leo, clk_base):
    log = PartLog(topic, part)
    per = 25
    for base in range(0, leo, per):
        n = min(per, leo - base)
        recs = [(b"%s-%05d" % (topic.encode(), base + i),
                 b'{"id":%d,"amount":%d,"currency":"EUR"}' % (base + i, (base + i) * 7 % 1000), None)
                for i in range(n)]
        ts = clk_base + base * 1000
        log.data(recs, ts)
    return log


CONNECT_RECORDS = [
    # (key JSON bytes, value JSON bytes or None); see connect_log for the batches
    (b'["local-file-source",{"filename":"/data/in.txt"}]', b'{"position":1234}'),
    (b'["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]', b'{"offset":42}'),
    (b'["jdbc-source",{"table":"customers"}]', b'{"incrementing":77}'),
    (b'["local-file-source",{"filename":"/data/in.txt"}]', b'{"position":2048}'),
    (b'["jdbc-source",{"table":"customers"}]', None),
    (b'["MirrorSourceConnector",{"cluster":"A","partition":1,"topic":"orders"}]', b'{"offset":17}'),
    (b'["local-file-source", {"filename": "/data/in.txt"}]', b'{"position":99}'),
]


def connect_log(clk):
    log = PartLog("connect-offsets", 0)
    for i in range(0, 4):
        k, v = CONNECT_RECORDS[i]
        log.data([(k, v, None)], clk())
    t = clk()
    log.data([(CONNECT_RECORDS[4][0], None, None), (CONNECT_RECORDS[5][0], CONNECT_RECORDS[5][1], None)], t)
    # exactly-once source (KIP-618): a committed and an aborted transaction
    t = clk()
    log.data([(b'["eos-source",{"shard":"s1"}]', b'{"seq":10}', None)], t, pid=9000, epoch=0, txn=True)
    log.marker("COMMIT", 9000, 0, clk())
    t = clk()
    log.data([(b'["eos-source",{"shard":"s1"}]', b'{"seq":11}', None)], t, pid=9000, epoch=0, txn=True)
    log.marker("ABORT", 9000, 0, clk())
    log.data([(CONNECT_RECORDS[6][0], CONNECT_RECORDS[6][1], None)], clk())
    return log


def replay_connect(batches, partition):
    table, pending = {}, {}
    for b in sorted(batches, key=lambda b: b["base_offset"]):
        if b["control"]:
            (off, ts, key, value), = b["records"]
            stage = pending.pop(b["pid"], {})
            if struct.unpack(">hh", key)[1] == 1:
                for k, e in stage.items():
                    if e is None:
                        table.pop(k, None)
                    else:
                        table[k] = e
            continue
        for off, ts, key, value in b["records"]:
            e = None if value is None else (off, value)
            if b["transactional"]:
                pending.setdefault(b["pid"], {})[key] = e
            elif e is None:
                table.pop(key, None)
            else:
                table[key] = e
    rows = []
    for key, (off, value) in sorted(table.items(), key=lambda kv: kv[1][0]):
        connector, pmap = json.loads(key)
        rows.append({"connector": connector, "partition": pmap, "offset": json.loads(value),
                     "source_partition": partition, "source_offset": off,
                     "key_b64": b64(key)})
    return rows


TXN_STATES = {0: "Empty", 1: "Ongoing", 2: "PrepareCommit", 3: "PrepareAbort", 4: "CompleteCommit",
              5: "CompleteAbort", 6: "Dead", 7: "PrepareEpochFence"}


# ---------------------------------------------------------------------------
# damaged copies of __consumer_offsets-12

def make_copies(w, src_facts, marks):
    """copies/bitflip: one bit flipped in the gzip batch (segment 1);
    copies/torn: the last batch of segment 2 cut in half."""
    out = []
    segs = src_facts["segments"]
    for kind in ("bitflip", "torn"):
        pdir = "%s/copies/%s/__consumer_offsets-12" % (ROOT, kind)
        fact = {"path": pdir, "kind": kind, "source": src_facts["path"]}
        for seg in segs:
            with open(w.path(seg["path"]), "rb") as f:
                data = bytearray(f.read())
            rel = "%s/%s" % (pdir, os.path.basename(seg["path"]))
            if kind == "bitflip" and seg is segs[0]:
                victim = next(b for b in seg["batches"] if b["base_offset"] == marks["gzip_batch"][1])
                assert victim["codec"] == "gzip"
                byte_pos = victim["position"] + victim["size"] - 20
                data[byte_pos] ^= 0x10
                fact["damage"] = {"file": rel, "byte_position": byte_pos, "bit": 4,
                                  "batch_position": victim["position"],
                                  "batch_base_offset": victim["base_offset"],
                                  "lost_offsets": [victim["base_offset"], victim["last_offset"]]}
                fact["expected_problem"] = {"file": rel, "code": "crc_mismatch", "severity": "error",
                                            "position": victim["position"],
                                            "offset": victim["base_offset"]}
            if kind == "torn" and seg is segs[-1]:
                victim = seg["batches"][-1]
                cut = victim["position"] + victim["size"] // 2
                del data[cut:]
                fact["damage"] = {"file": rel, "cut_at": cut, "batch_position": victim["position"],
                                  "batch_base_offset": victim["base_offset"],
                                  "lost_offsets": [victim["base_offset"], victim["last_offset"]]}
                fact["expected_problem"] = {"file": rel, "code": "truncated", "severity": "error",
                                            "position": victim["position"],
                                            "offset": victim["base_offset"]}
            w.write(rel, bytes(data))
            # indexes as broker recovery would rebuild them for these bytes
            w.segment_facts(rel, seg["base_offset"], bytes(data))
        with open(w.path(src_facts["path"] + "/partition.metadata"), "rb") as f:
            w.write(pdir + "/partition.metadata", f.read())
        out.append(fact)
    return out


# ---------------------------------------------------------------------------
# offsets/txn-asof: transactions whose change times go backwards

TXN_ASOF = ROOT + "/txn-asof"
T0_ASOF = T0 + 10 * DAY


def build_txn_asof():
    """__consumer_offsets-12 (my-group, payments-txn-23) and -3 (flex-group).
    A transactional offset takes effect at its marker and is dated by it; the
    last batch of -3 comes from a clock stepped back ten minutes, so
    --history's change times go backwards there; --as-of must still hold
    every change up to MS and none after it."""
    clk = Clock()
    clk.t = T0_ASOF
    P12, P3 = PartLog("__consumer_offsets", 12), PartLog("__consumer_offsets", 3)
    t = clk()
    P12.data([OC(G_MY, "orders", 0, 3, 10, t, epoch=1)], t)
    t = clk()
    P3.data([OC(G_FLEX, "orders", 0, 3, 60, t, epoch=1)], t)
    # producer 7000 stages orders-0=20 and orders-1=30; a plain commit of
    # orders-0=25 follows before the marker: at COMMIT it is newer in the log,
    # so 20 never becomes the committed value; orders-1=30 takes effect at the
    # marker with its earlier commit timestamp
    t = clk()
    P12.data([OC(G_TXN, "orders", 0, 3, 20, t, epoch=1), OC(G_TXN, "orders", 1, 3, 30, t, epoch=1)],
             t, pid=7000, epoch=0, txn=True)
    t = clk()
    P12.data([OC(G_TXN, "orders", 0, 3, 25, t, epoch=1)], t)
    t = clk()
    P3.data([OC(G_FLEX, "orders", 1, 3, 61, t, epoch=1)], t)
    P12.marker("COMMIT", 7000, 0, clk())
    # producer 7001 stages payments-0=110 and clicks-0=1; an offset tombstone
    # of payments-0 deletes 100 and drops the staged 110 before the marker
    t = clk()
    P12.data([OC(G_TXN, "payments", 0, 3, 100, t, epoch=1)], t)
    t = clk()
    P12.data([OC(G_TXN, "payments", 0, 3, 110, t, epoch=1), OC(G_TXN, "clicks", 0, 3, 1, t, epoch=1)],
             t, pid=7001, epoch=0, txn=True)
    t = clk()
    P12.data([OT(G_TXN, "payments", 0)], t)
    t = clk()
    P3.data([OC(G_FLEX, "orders", 0, 3, 62, t, epoch=1)], t)
    t = clk()
    P12.data([OC(G_MY, "orders", 0, 3, 11, t, epoch=1)], t)
    P12.marker("COMMIT", 7001, 0, clk())
    # producer 7002: aborted, no change
    t = clk()
    P12.data([OC(G_MY, "orders", 1, 3, 5, t, epoch=1)], t, pid=7002, epoch=0, txn=True)
    P12.marker("ABORT", 7002, 0, clk())
    # producer 7003 on partition 3, with a tombstone of another key before its
    # marker (it drops nothing of the transaction)
    t = clk()
    P3.data([OC(G_FLEX, "orders", 2, 3, 70, t, epoch=1)], t, pid=7003, epoch=0, txn=True)
    t = clk()
    P3.data([OT(G_FLEX, "orders", 0)], t)
    P3.marker("COMMIT", 7003, 0, clk())
    # producer 7004 stages payments-0=1, clicks-0=2, then payments-0=3: at the
    # marker they take effect in the order written (clicks-0, then payments-0)
    for topic, value in (("payments", 1), ("clicks", 2), ("payments", 3)):
        t = clk()
        P12.data([OC(G_MY, topic, 0, 3, value, t, epoch=1)], t, pid=7004, epoch=0, txn=True)
    t = clk()
    P3.data([OC(G_FLEX, "orders", 1, 3, 63, t, epoch=1)], t)
    P12.marker("COMMIT", 7004, 0, clk())
    # the coordinator of -3 with its clock stepped back: its next commit is
    # dated before the changes just made
    t = clk() - 600000
    P3.data([OC(G_FLEX, "orders", 0, 3, 64, t, epoch=1)], t)
    return {12: P12, 3: P3}


def txn_asof_fixture(w, out):
    logs = build_txn_asof()
    facts = {p: w.partition(TXN_ASOF, log, TOPIC_IDS["__consumer_offsets"])
             for p, log in logs.items()}
    parts = {p: read_partition_dir(out, facts[p]["path"], p) for p in logs}
    rp = Replay()
    rp.replay_partitions(parts, {p: logs[p].intents for p in logs})
    rp.finish()
    times = [h["change_time"] for h in rp.history]
    # the point of this fixture: change times go backwards somewhere
    assert any(b < a for a, b in zip(times, times[1:])), times
    stamps = {ts for bs in parts.values() for b in bs for (_, ts, _, _) in b["records"]}
    mss = sorted(set(times) | stamps | {x - 1 for x in set(times) | stamps} | {T0_ASOF})
    tables = [{"ms": ms, "changes": len(as_of_changes(rp.history, ms)),
               "offsets": as_of_table(rp.history, ms, {})} for ms in mss]
    # the fixture tells the rule from the prefix rule kfsck once had (the
    # history up to its last change <= ms), which shows later commits here
    assert any(t["offsets"] != offsets_table(
        _prefix_table(rp.history, t["ms"]).values(), {}) for t in tables)
    return {"path": TXN_ASOF, "partitions": [facts[p]["path"] for p in sorted(facts)],
            "history": rp.history, "tables": tables,
            "offsets": offsets_table(rp.offsets.values(), {})}


def _prefix_table(history, ms):
    """The wrong rule (the history up to its last change whose time is <= ms,
    earlier changes of later times included), only to check that the fixture
    tells the two apart."""
    n = max((i + 1 for i, h in enumerate(history) if h["change_time"] <= ms), default=0)
    return fold_changes(history[:n])


# ---------------------------------------------------------------------------
# main

NOTES = [
    "Paths are relative to the fixtures directory. Inputs meant for kfsck: offsets/datadir (a "
    "broker data dir), offsets/connect (for --connect), offsets/copies/*/__consumer_offsets-12.",
    "Groups live in partition Utils.abs(String.hashCode(group)) % 50 (docs/formats.md §1.3); group_partitions "
    "lists them with their hashCode.",
    "records: every data record of every __consumer_offsets partition in (partition, offset) "
    "order, decoded as `kfsck dump --decode offsets` should print it: key_decoded/value_decoded "
    "use the snake_case schema field names and hold only the fields the value version has; a "
    "tagged field is shown only when it holds a non-default value, i.e. was in the bytes (as "
    "Kafka's JsonConverter does: a v4 offset commit without the topicId tag has no topic_id); "
    "tagged_fields_present lists the top-level tags found; unknown_tags are tags the schema does "
    "not know, which a decoder must skip by size; -1 sentinels are as stored; uuids are 22-char "
    "base64url; bytes fields are standard base64 under <snake_name>_b64 (subscription_b64, "
    "assignment_b64, metadata_b64), except that group_metadata members of protocol_type "
    "consumer have subscription/assignment decoded instead (objects as in `groups`: "
    "subscription {version, topics, owned_partitions, generation_id, rack_id, user_data_b64}, "
    "assignment {version, partitions, user_data_b64}, fields the embedded version lacks are null).",
    "record_type, key_type and value_version are given beside key_decoded/value_decoded, which "
    "hold only schema fields; a CLI may also carry them inside those objects.",
    "expect: decoded | unknown_record_type (report the record, skip it) | unknown_value_version "
    "(key decoded, value skipped and reported; the slot keeps its previous value).",
    "controls: the COMMIT/ABORT markers in the coordinator partitions.",
    "offsets: the final `kfsck offsets --json offsets/datadir` rows (\"type\":\"offset\" "
    "left out), sorted by (group, topic, partition); leader_epoch and expire_timestamp are null "
    "when absent or -1; source_offset is the log offset of the record holding the value (for a "
    "transactional commit: the data record, not its marker); log_end_offset/lag only for the "
    "topic partitions that have a directory in the data dir (orders-0, orders-1, payments-0).",
    "history: the --history list in the order the changes took effect: each partition in "
    "offset order, partitions on one time line (of the partitions' next batches, the one with "
    "the smallest max timestamp first; ties: the lower partition); plain commits at their "
    "record, transactional commits at their COMMIT marker (effective_offset is the marker's "
    "offset; a transaction's offsets in the order they were written), deletions with "
    "deleted=true, null value fields and source_offset = the tombstone's offset. change_time is "
    "the time --as-of compares: the commit_timestamp of a plain commit, the max timestamp of the "
    "COMMIT marker's batch for a transactional one (or its commit_timestamp when later), the "
    "tombstone batch's max timestamp for a deletion. A deletion's previous (the row it "
    "removed) is a generator extra. Tombstones of absent keys, aborted and superseded "
    "transactional commits and skipped records are not changes.",
    "as_of: the table for --as-of ms: the changes of the history whose change_time is <= ms, "
    "replayed in their order; a change after ms is left out wherever it falls (change times can "
    "go back in the history's order across partitions, or with a clock stepped back: the table "
    "never holds a commit_timestamp after ms, nor a transactional commit whose marker came after ms).",
    "groups: `kfsck groups --json offsets/datadir` rows sorted by group. For classic groups every "
    "field of cli.md is given (null when the value version lacks it); value_version is an extra. "
    "For consumer/share/streams groups the cli.md fields are group, kind, state, group_epoch, "
    "assignment_epoch, members[].member_id, members[].member_epoch and (consumer, share) "
    "members[].assignment [{topic, topic_id, partitions}], topic null when no input names the "
    "id; every other field is 'whatever else the records hold' as this generator renders it "
    "(streams members carry their task lists, not topic partitions). The topic-name map uses "
    "the groups' partition-metadata records (types 4, 9, 18) and the partition.metadata files "
    "of the data dir; with only __consumer_offsets-33 as input, payments would be null.",
    "A group whose last group-metadata record (types 2, 3, 11, 17) is a tombstone, with no live "
    "metadata record, is deleted: listed with its kind and state dead, with or without offsets "
    "left (legacy-app keeps offsets; old-app-4 and retired-848-1 were deleted with all their "
    "offsets; expired-simple-7 had only offsets, removed by expiry with a type-2 tombstone). "
    "Classic dead groups carry null protocol fields; consumer/share/streams dead groups null "
    "group_epoch and assignment_epoch; members are empty. A group known only from offsets is "
    "listed classic/empty with null protocol fields and no members, also when its offsets were "
    "all deleted (adhoc-reader-7) or its only commit was aborted: Kafka's coordinator creates "
    "the group when it replays a commit and keeps it until its cleanup tombstones it.",
    "reset_csv: `kfsck offsets --format reset-csv --group my-group offsets/datadir` (text: "
    "topic,partition,offset lines sorted by (topic, partition)); several_groups.text for "
    "--group G... with several groups and all_groups_text for no --group: "
    "group,topic,partition,offset lines sorted by (group, topic, partition), the form "
    "kafka-consumer-groups.sh --reset-offsets --from-file takes with several groups or "
    "--all-groups. Each line ends in \\n.",
    "txn_asof: a second data dir (offsets/txn-asof) of two __consumer_offsets partitions whose "
    "transactions make change times go backwards in the history: a pending transactional "
    "offset that loses to a newer plain commit, an offset tombstone before the marker that "
    "drops a pending offset, an abort, a transaction staging one key twice. history as above; "
    "tables: the --as-of table for every ms in the list (every change time, every record "
    "timestamp, each minus 1, and one before everything); changes: how many changes of the "
    "history each table holds (those whose change_time is <= ms).",
    "open_transactions: transactional offset commits staged and never completed at the end of "
    "the log (not visible in offsets).",
    "copies: each copy alone loses the batch named in damage.lost_offsets; offsets_alone is the "
    "table replayed from that copy's intact batches; given both copies, the union of intact "
    "batches by offset is the whole partition and the table is offsets_union (= the data dir's "
    "rows with source_partition 12, without lag fields).",
    "connect: `kfsck offsets --connect --json offsets/connect` rows sorted by source_offset; "
    "slots are exact key bytes, so the two byte-different keys for local-file-source (one with "
    "spaces) are two rows; the transactional batch of producer 9000 counts after its COMMIT, "
    "the one before ABORT does not. key_b64 is a generator extra.",
    "transaction_state: records of __transaction_state-30 decoded (dump --decode txn) and the "
    "final state per transactional id (last write wins, tombstone deletes).",
]


def generate(out):
    root = os.path.join(out, ROOT)
    if os.path.isdir(root):
        shutil.rmtree(root)
    _check_hash_table()
    cf.selftest()
    w = Writer(out)
    clk = Clock()
    P, TS, marks = build(clk)

    # topic partitions for lag
    tlogs = {k: topic_log(k[0], k[1], leo, T0 - 3600000) for k, leo in sorted(TOPIC_LEO.items())}
    facts = {}
    for p, log in sorted(P.items()):
        facts[p] = w.partition(DD, log, TOPIC_IDS["__consumer_offsets"])
    ts_fact = w.partition(DD, TS, TOPIC_IDS["__transaction_state"])
    topic_facts = [w.partition(DD, log, TOPIC_IDS[k[0]]) for k, log in sorted(tlogs.items())]
    for f, (k, leo) in zip(topic_facts, sorted(TOPIC_LEO.items())):
        assert f["log_end_offset"] == leo
    w.write(DD + "/meta.properties",
            "#\n#Tue Nov 14 22:13:20 UTC 2023\ncluster.id=%s\ndirectory.id=%s\nnode.id=1\n"
            "version=1\n" % (CLUSTER_ID, DIRECTORY_ID))
    clog = connect_log(clk)
    c_fact = w.partition(ROOT + "/connect", clog, TOPIC_IDS["connect-offsets"])

    # read back and replay
    rp = Replay()
    rp.replay_partitions({p: read_partition_dir(out, facts[p]["path"], p) for p in P},
                         {p: P[p].intents for p in P})
    rp.finish()
    leo = dict(TOPIC_LEO)
    names = topic_names(rp, {t: TOPIC_IDS[t] for t, _ in TOPIC_LEO})
    final = offsets_table(rp.offsets.values(), leo)
    ms = marks["as_of"]

    # transaction log
    trp = Replay()
    trp.partition(TS.partition, read_partition_dir(out, ts_fact["path"], TS.partition),
                  TS.intents, txn_log=True)
    txn_final = []
    for (_, tid), (version, d, part, off) in sorted(trp.kv.items()):
        row = {"transactional_id": tid, "value_version": version, "source_partition": part,
               "source_offset": off, "state": TXN_STATES[d["TransactionStatus"]]}
        row.update(cf.to_cli(cf.TXN_VALUE, version, d))
        txn_final.append(row)

    # copies
    copies = make_copies(w, facts[12], marks)
    src12 = read_partition_dir(out, facts[12]["path"], 12)
    union = {}
    for c in copies:
        bs = []
        for name in sorted(os.listdir(os.path.join(out, c["path"]))):
            if name.endswith(".log"):
                with open(os.path.join(out, c["path"], name), "rb") as f:
                    got, bad = parse_batches(f.read(), 12)
                assert [(x[1], x[2]) for x in bad] == [(c["damage"]["batch_base_offset"],
                                                        c["expected_problem"]["code"])] or not bad
                bs += got
        lost = c["damage"]["lost_offsets"]
        assert sorted(b["base_offset"] for b in bs) == sorted(
            b["base_offset"] for b in src12 if not lost[0] <= b["base_offset"] <= lost[1])
        crp = Replay()
        crp.partition(12, bs)
        crp.finish()
        c["offsets_alone"] = offsets_table(crp.offsets.values(), {})
        for b in bs:
            union[b["base_offset"]] = b
    assert sorted(union) == sorted(b["base_offset"] for b in src12)
    urp = Replay()
    urp.partition(12, list(union.values()))
    offsets_union = offsets_table(urp.offsets.values(), {})
    assert offsets_union == [{k: v for k, v in r.items() if k not in ("log_end_offset", "lag")}
                             for r in final if r["source_partition"] == 12]

    reset = "".join("%s,%d,%d\n" % (r["topic"], r["partition"], r["offset"])
                    for r in sorted((r for r in final if r["group"] == G_MY),
                                    key=lambda r: (r["topic"], r["partition"])))

    def reset_with_group(groups):
        return "".join("%s,%s,%d,%d\n" % (r["group"], r["topic"], r["partition"], r["offset"])
                       for r in sorted((r for r in final if groups is None or r["group"] in groups),
                                       key=lambda r: (r["group"], r["topic"], r["partition"])))
    open_txns = [dict(e, producer_id=pid) for (part, pid), stage in sorted(rp.pending.items())
                 for _, e in sorted(stage.items())]

    groups_used = sorted({(g, java_hash(g), partition_for(g)) for _, g, _ in SCENARIOS} |
                         {(G_TXN, java_hash(G_TXN), partition_for(G_TXN))})
    manifest = {
        # the generator's path before tools/ was split by role, kept so that the
        # committed fixtures stay byte-identical
        "generator": "tools/gen/gen_offsets.py",
        "notes": NOTES,
        "offsets_topic_partitions": NPART,
        "time_base_ms": T0,
        "datadir": DD,
        "group_partitions": [{"group": g, "hash_code": h, "partition": p} for g, h, p in groups_used],
        "transactional_id_partitions": [{"transactional_id": t, "producer_id": pid,
                                         "hash_code": java_hash(t), "partition": partition_for(t)}
                                        for pid, t in sorted(TXN_IDS.items())],
        "scenarios": [{"name": n, "group": g, "partition": partition_for(g), "description": d}
                      for n, g, d in SCENARIOS],
        "topic_ids": TOPIC_IDS,
        "topic_partitions": [{"path": f["path"], "topic": f["topic"], "partition": f["partition"],
                              "topic_id": f["topic_id"], "log_end_offset": f["log_end_offset"]}
                             for f in topic_facts],
        "partitions": [facts[p] for p in sorted(facts)] + [ts_fact] + topic_facts + [c_fact],
        "records": rp.records,
        "controls": rp.controls,
        "problems": rp.problems,
        "offsets": final,
        "history": rp.history,
        "as_of": {"ms": ms, "offsets": as_of_table(rp.history, ms, leo)},
        "groups": groups_view(rp, names),
        "topic_names": names,
        "reset_csv": {"group": G_MY, "text": reset,
                      "several_groups": {"groups": [G_MY, G_TXN],
                                         "text": reset_with_group({G_MY, G_TXN})},
                      "all_groups_text": reset_with_group(None)},
        "txn_asof": txn_asof_fixture(w, out),
        "open_transactions": open_txns,
        "copies": copies,
        "offsets_union": offsets_union,
        "connect": {"path": c_fact["path"], "topic": "connect-offsets",
                    "offsets": replay_connect(read_partition_dir(out, c_fact["path"], 0), 0)},
        "transaction_state": {"path": ts_fact["path"], "partition": TS.partition,
                              "records": trp.records, "final": txn_final},
    }
    with open(os.path.join(root, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return manifest


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: %s OUTDIR   (writes OUTDIR/offsets)\n" % argv[0])
        return 2
    generate(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
