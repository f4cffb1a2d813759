#!/usr/bin/python3
"""gen_txns: build kfsck's transactions fixtures (fixtures/txns/) and their expectations.

Called by tools/gen/gen_fixtures.py (its main calls `generate(OUTDIR)`); can also
be run alone: /usr/bin/python3 tools/gen/gen_txns.py OUTDIR  (writes OUTDIR/txns).

Writes, below OUTDIR/txns/ (replacing that directory):
  datadir/orders-0/      3 segments: interleaved transactional producers, a
                         committed and an aborted transaction across segments,
                         fencing (ABORT with the bumped epoch, then a new
                         epoch), a newer-epoch batch with no marker between,
                         transaction-version-2 markers with bumped epochs, an
                         ABORT with no data, idempotent and plain batches, a
                         hanging transaction and a recent open one; correct
                         .txnindex files
  datadir/payments-0/    a .txnindex with a missing entry and an extra one
                         (plus a kept entry for an ABORT whose data is gone)
  datadir/inventory-0/   clean: committed, aborted, one recent open transaction
  datadir/shipments-0/   open transactions the coordinator completed
                         (marker_missing), still runs, or never knew
  datadir/retained-0/    a log starting at offset 100 with the producer
                         snapshot there: a transaction begun at offset 80
  datadir/__transaction_state-N/  the coordinator's records for the
                         transactional ids above, each in its hash partition
  damaged/events-0/      a COMMIT marker with a flipped bit (skipped)
  MANIFEST.json          what `kfsck txns` must answer, computed here

Batches come from kafka-python's DefaultRecordBatchBuilder (transactional
batches) and tools/gen/kafkafmt.py's v2_control_batch (COMMIT/ABORT markers: the
builder's batch with the control bit set and the CRC-32C recomputed in
Python); __transaction_state records from tools/gen/coordfmt.py; offset/time
indexes from tools/model/kafka_index.py; .txnindex entries and the producer
snapshot from tools/model/kafka_producer_state.py (Kafka's ProducerStateManager
rules).

The expectations are computed by reading the written files back (framing
and CRC-32C checked here, producer state replayed with
kafka_producer_state.State, .txnindex entries and the snapshot parsed with
struct, coordinator records decoded with coordfmt) and applying the rules of
kfsck(1) `txns` and docs/formats.md §10, §12, then cross-checked against what the script
meant to build. Timestamps are fixed (from 1700000000000 ms) and nothing is
random, so two runs give identical bytes.
"""

import json
import os
import shutil
import struct
import sys

# this folder (the encoders) and tools/model/ (the models the expectations come from)
_TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(_TOOLS, "gen"), os.path.join(_TOOLS, "model")]

import coordfmt as cf                                   # noqa: E402
import gen_offsets                                      # noqa: E402
import kafka_index                                      # noqa: E402
from kafka.record.util import calc_crc32c               # noqa: E402
from kafka_producer_state import Entry, State           # noqa: E402
from kafkafmt import (Rec, partition_metadata, read_records, seg_name,  # noqa: E402
                      v2_batch, v2_control_batch)

T0 = 1700000000000
MIN = 60000
ROOT = "txns"
DD = ROOT + "/datadir"
NPART = 50                       # transaction.state.log.num.partitions
HANGING_DEFAULT = 15 * MIN       # transaction.max.timeout.ms
HANGING_CASES = (MIN, HANGING_DEFAULT, 60 * MIN)
STATES = {0: "Empty", 1: "Ongoing", 2: "PrepareCommit", 3: "PrepareAbort", 4: "CompleteCommit",
          5: "CompleteAbort", 6: "Dead", 7: "PrepareEpochFence"}
TOPIC_IDS = {t: cf.uuid_str(bytes.fromhex(h)) for t, h in (
    ("orders", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a01"), ("payments", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a02"),
    ("inventory", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a03"), ("shipments", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a04"),
    ("retained", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a05"), ("events", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a06"),
    ("__transaction_state", "a1c9a2e5b7d44c6e8a0b1c2d3e4f5a07"))}


def m(x):
    """A time x minutes after T0."""
    return T0 + int(x * MIN)


# ---------------------------------------------------------------------------
# writing partitions

class Log:
    """A partition being written: segments of batches with absolute offsets,
    and what the script meant at each offset (for the cross-checks)."""

    def __init__(self, topic, partition, first=0):
        self.topic, self.partition = topic, partition
        self.name = "%s-%d" % (topic, partition)
        self.next = first
        self.segments = [(first, [])]
        self.seq = {}              # (pid, epoch) -> next sequence
        self.intent = []           # (kind, pid, epoch, base, last, ts)

    def roll(self):
        self.segments.append((self.next, []))

    def data(self, ts, n=1, pid=-1, epoch=-1, txn=False, codec="none"):
        base = self.next
        recs = [Rec(base + i, ts + i, b"k%d" % ((base + i) % 7),
                    (b"%s record %d of producer %d; " % (self.name.encode(), base + i, pid)) * 4)
                for i in range(n)]
        seq = -1
        if pid >= 0:
            seq = self.seq.get((pid, epoch), 0)
            self.seq[(pid, epoch)] = seq + n
        self.segments[-1][1].append(v2_batch(base, recs, codec=codec, producer_id=pid, producer_epoch=epoch,
                                             base_sequence=seq, transactional=txn))
        self.next += n
        self.intent.append(("txn" if txn else "data", pid, epoch, base, base + n - 1, ts + n - 1))
        return base

    def marker(self, kind, pid, epoch, ts, coord_epoch=0):
        off = self.next
        self.next += 1
        self.segments[-1][1].append(v2_control_batch(off, kind, pid, epoch, coord_epoch, ts))
        self.intent.append((kind, pid, epoch, off, off, ts))
        return off


class Writer:
    def __init__(self, out):
        self.out = out

    def write(self, rel, data):
        p = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)

    def partition(self, parent, log, skip_before=None, txnindex=None):
        """Write log's segments (those at or past skip_before), their offset
        and time indexes, and partition.metadata. txnindex: {segment base:
        [(pid, first, last, lso)]}, written as that segment's .txnindex;
        None: the entries kafka_producer_state.State gives."""
        pdir = "%s/%s" % (parent, log.name)
        st = State()
        built = {}
        for base, batches in log.segments:
            entries = []
            for raw in batches:
                a = st.append(raw)
                if a:
                    entries.append(a)
            built[base] = entries
            if skip_before is not None and base < skip_before:
                continue
            data = b"".join(batches)
            rel = "%s/%s" % (pdir, seg_name(base, "log"))
            self.write(rel, data)
            info = kafka_index.build_indexes(data, base, 4096, True)
            assert info["valid_bytes"] == len(data)
            self.write(rel[:-4] + ".index", info["index"])
            self.write(rel[:-4] + ".timeindex", info["timeindex"])
            ents = built[base] if txnindex is None else txnindex.get(base, [])
            if ents:
                self.write(rel[:-4] + ".txnindex", b"".join(struct.pack(">hqqqq", 0, *e) for e in ents))
        self.write(pdir + "/partition.metadata", partition_metadata(TOPIC_IDS[log.topic]))
        return pdir, built, st


# ---------------------------------------------------------------------------
# the partitions

TIDS = {1000: "orders-app-0", 1001: "orders-app-1", 1002: "orders-app-2", 1003: "orders-app-3",
        1004: "orders-app-4", 4000: "shipments-tx", 4001: "shipments-tx-2", 4002: "shipments-old",
        4003: "shipments-tx-3", 6000: "inventory-tx"}


def orders0():
    L = Log("orders", 0)
    A, B, C, D, E, F, I = 1000, 1001, 1002, 1003, 1004, 1005, 2000
    L.data(m(0), 2)                                         # plain, no producer id
    L.data(m(1), 3, A, 0, True)                             # A: transaction 1 begins
    L.data(m(1.5), 2, C, 0, True)                           # C: will be fenced
    L.data(m(2), 2, B, 0, True, codec="gzip")               # B: transaction 1 (aborted later)
    L.data(m(2.5), 2, I, 0)                                 # idempotent, not transactional
    L.data(m(3), 2, A, 0, True)
    L.roll()
    L.marker("COMMIT", A, 0, m(4))                          # A's transaction spans two segments
    L.data(m(4.5), 1, B, 0, True)
    c_abort = L.marker("ABORT", C, 1, m(5))                 # C fenced: the coordinator's ABORT, bumped epoch
    L.data(m(5.5), 2, C, 2, True)                           # C's new instance, epoch 2
    L.data(m(6), 1, D, 4, True)
    b_abort = L.marker("ABORT", B, 0, m(6.5))               # B's transaction across segments aborted
    L.data(m(7), 2, D, 5, True)                             # a newer epoch alone does not end D's
    L.marker("COMMIT", C, 2, m(7.5))
    L.marker("ABORT", F, 0, m(8))                           # an ABORT with no data: no .txnindex entry
    L.marker("COMMIT", D, 5, m(8.5))                        # D: one transaction of two batches
    L.data(m(10), 2, A, 0, True)                            # A: transaction 2 - hangs
    L.roll()
    L.data(m(12), 1, E, 7, True)
    L.marker("COMMIT", E, 8, m(13))                         # transaction version 2: marker epoch + 1
    L.data(m(14), 2, E, 8, True, codec="gzip")
    L.data(m(20), 1, I, 0)
    e_abort = L.marker("ABORT", E, 9, m(21))
    L.data(m(30), 1)
    L.data(m(38), 2, B, 0, True)                            # B: transaction 2, recent
    L.data(m(40), 2)
    return L, [c_abort, b_abort, e_abort]                   # the ABORTs that end a transaction with data


def payments0():
    L = Log("payments", 0)
    G, H, J, K = 3000, 3001, 3002, 3003
    L.data(m(0), 2, G, 0, True)
    L.data(m(1), 1, H, 0, True)
    g_abort = L.marker("ABORT", G, 0, m(2))                 # its entry is left out
    h_commit = L.marker("COMMIT", H, 0, m(3))               # an entry names this COMMIT
    L.data(m(4), 1, J, 0, True)
    j_abort = L.marker("ABORT", J, 0, m(5))
    k_abort = L.marker("ABORT", K, 0, m(6))                 # data gone (cleaner); entry kept
    L.data(m(7), 1)
    entries = {0: [(H, h_commit, h_commit, h_commit + 1), (J, j_abort - 1, j_abort, j_abort + 1),
                   (K, k_abort, k_abort, k_abort + 1)]}
    return L, entries, {"missing": [g_abort], "extra": [h_commit]}


def inventory0():
    L = Log("inventory", 0)
    P, Q = 6000, 6001
    L.data(m(0), 2, P, 0, True)
    L.marker("COMMIT", P, 0, m(1))
    L.data(m(2), 3, P, 0, True, codec="gzip")
    L.roll()
    L.marker("ABORT", P, 0, m(3))
    L.data(m(4), 1)
    L.data(m(5), 1, Q, 0, True)                             # open, not hanging
    L.data(m(6), 1)
    return L


def shipments0():
    L = Log("shipments", 0)
    L.data(m(0), 2, 4000, 0, True)                          # the coordinator completed it
    L.data(m(1), 1)
    L.data(m(1.5), 1, 4001, 0, True)                        # the coordinator: Ongoing
    L.data(m(2), 1, 4002, 1, True)                          # its transactional id expired
    L.data(m(2.2), 1, 4003, 3, True)                        # the coordinator's record is older (epoch 2)
    L.data(m(3), 1)
    return L


def retained0():
    """A log whose first 100 offsets were deleted by retention; the broker's
    producer snapshot at offset 100 remembers the transaction begun at 80."""
    L = Log("retained", 0)
    P, Q = 5000, 5001
    for i in range(8):
        L.data(m(0.1 * i), 10)                              # 0..79
    L.data(m(1), 2, P, 0, True)                             # 80..81: begins before the log start
    L.data(m(1.5), 8)                                       # 82..89
    L.data(m(2), 2, Q, 0, True)                             # 90..91
    L.data(m(2.5), 8)                                       # 92..99
    assert L.next == 100
    L.roll()
    L.data(m(3), 2, P, 0, True)                             # 100..101
    q_abort = L.marker("ABORT", Q, 0, m(4))                 # ends the transaction begun at 90
    L.data(m(5), 1)
    return L, 100, q_abort


def events0():
    L = Log("events", 0)
    L.data(m(0), 2, 7000, 0, True)
    commit = L.marker("COMMIT", 7000, 0, m(1))              # damaged below
    L.data(m(2), 1, 7001, 0, True)
    L.marker("COMMIT", 7001, 0, m(3))
    L.data(m(4), 1)
    return L, commit


def transaction_state(w):
    """The coordinator's records, each transactional id in its hash partition."""
    def V(pid, epoch, status, parts, last, start, version=0, **tags):
        return gen_offsets.TXV(pid, epoch, status, parts, last, start, **tags), version

    writes = [  # (transactional id, value or None, version, time)
        ("orders-app-0",) + V(1000, 0, 1, [("orders", [0])], m(10), m(10)) + (m(10),),
        ("orders-app-1",) + V(1001, 0, 1, [("orders", [0])], m(38), m(38)) + (m(38),),
        ("orders-app-2",) + V(1002, 2, 4, [], m(7.5), m(5.5)) + (m(7.5),),
        ("orders-app-3",) + V(1003, 5, 4, [], m(8.5), m(6)) + (m(8.5),),
        ("orders-app-4",) + V(1004, 9, 5, [], m(21), m(14), version=1, ClientTransactionVersion=2) + (m(21),),
        ("shipments-tx",) + V(4000, 0, 1, [("shipments", [0])], m(0), m(0)) + (m(0),),
        ("shipments-tx",) + V(4000, 0, 2, [("shipments", [0])], m(2.5), m(0)) + (m(2.5),),
        ("shipments-tx",) + V(4000, 0, 4, [], m(2.6), m(0)) + (m(2.6),),
        ("shipments-tx-2",) + V(4001, 0, 1, [("shipments", [0])], m(1.5), m(1.5)) + (m(1.5),),
        ("shipments-old",) + V(4002, 1, 1, [("shipments", [0])], m(2), m(2)) + (m(2),),
        ("shipments-old", None, None, m(2.8)),             # expired: tombstone
        ("shipments-tx-3",) + V(4003, 2, 4, [], m(1), m(0.5)) + (m(1),),
        ("inventory-tx",) + V(6000, 0, 5, [], m(3), m(2)) + (m(3),),
    ]
    logs = {}
    for tid, value, version, ts in sorted(writes, key=lambda x: x[3]):
        p = gen_offsets.partition_for(tid, NPART)
        if p not in logs:
            logs[p] = Log("__transaction_state", p)
        key = cf.encode_key(0, {"TransactionalId": tid}, txn=True)
        val = None if value is None else cf.encode_value(0, version, value, txn=True)
        L = logs[p]
        L.segments[-1][1].append(v2_batch(L.next, [Rec(L.next, ts, key, val)]))
        L.intent.append(("coord", tid, value, L.next, L.next, ts))
        L.next += 1
    dirs = []
    for p in sorted(logs):
        pdir, _, _ = w.partition(DD, logs[p])
        dirs.append(pdir)
    return dirs, writes


# ---------------------------------------------------------------------------
# reading back: the expectations (independent of the script above)

def read_log(path):
    """Every complete batch with a good CRC-32C, as (position, raw bytes);
    and (position, base offset) of the ones whose CRC fails
    (gen_offsets.parse_batches; the files hold whole magic-2 batches only)."""
    with open(path, "rb") as f:
        data = f.read()
    batches, damage = gen_offsets.parse_batches(data)
    assert all(why == "crc_mismatch" for _, _, why in damage), (path, damage)
    good = [(b["position"], data[b["position"]:b["position"] + b["size"]]) for b in batches]
    assert all(raw[16] == 2 for _, raw in good), path
    return good, [(pos, base) for pos, base, _ in damage]


def header(raw):
    base, = struct.unpack_from(">q", raw, 0)
    attrs, delta = struct.unpack_from(">hi", raw, 21)
    max_ts, pid, epoch = struct.unpack_from(">qqh", raw, 35)
    count, = struct.unpack_from(">i", raw, 57)
    return {"base": base, "last": base + delta, "max_ts": max_ts, "pid": pid, "epoch": epoch, "count": count,
            "txn": bool(attrs & 0x10), "control": bool(attrs & 0x20)}


def control_type(raw):
    """COMMIT/ABORT of a marker batch: the type in its one record's key
    (int16 version + int16 type), read with kafka-python."""
    (_, recs), = read_records(raw)
    return {0: "ABORT", 1: "COMMIT"}[struct.unpack_from(">h", recs[0].key, 2)[0]]


def read_snapshot(path):
    with open(path, "rb") as f:
        d = f.read()
    version, crc, n = struct.unpack_from(">hIi", d, 0)
    assert version == 1 and crc == calc_crc32c(d[6:]) and len(d) == 10 + 46 * n
    return [struct.unpack_from(">qhiqiqiq", d, 10 + 46 * i) for i in range(n)]


def read_txnindex(path):
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        d = f.read()
    assert len(d) % 34 == 0
    return [struct.unpack_from(">hqqqq", d, i) for i in range(0, len(d), 34)]


def coordinator_view(root, dirs):
    """pid -> (transactional id, state, epoch): last write per transactional
    id wins, a tombstone deletes; partitions in order."""
    by_tid, seq = {}, 0
    for pdir in dirs:
        for name in sorted(os.listdir(os.path.join(root, pdir))):
            if not name.endswith(".log"):
                continue
            good, bad = read_log(os.path.join(root, pdir, name))
            assert not bad
            for _, raw in good:
                (_, recs), = read_records(raw)
                for r in recs:
                    _, k = cf.decode_key(r.key, txn=True)
                    tid = k["TransactionalId"]
                    if r.value is None:
                        by_tid.pop(tid, None)
                        continue
                    _, v, _ = cf.decode_value(0, r.value, txn=True)
                    seq += 1
                    by_tid[tid] = (seq, v["ProducerId"], v["ProducerEpoch"], v["TransactionStatus"])
    by_pid = {}
    for tid, (s, pid, epoch, status) in by_tid.items():
        if pid not in by_pid or by_pid[pid][0] < s:
            by_pid[pid] = (s, tid, STATES[status], epoch, status)
    return len(by_tid), {pid: v[1:] for pid, v in by_pid.items()}


def expect_partition(root, pdir, topic, partition, coord, use_snapshot=True):
    """What `kfsck txns` must say about one partition directory (use_snapshot
    False: as if its producer snapshot were not there)."""
    logs = sorted(n for n in os.listdir(os.path.join(root, pdir)) if n.endswith(".log"))
    bases = [int(n[:20]) for n in logs]
    st = State()
    open_ = {}                       # pid -> the open transaction's facts
    snapshot = None
    if bases[0] > 0:
        sp = "%s/%s" % (pdir, seg_name(bases[0], "snapshot"))
        if use_snapshot and os.path.exists(os.path.join(root, sp)):
            snapshot = sp
            for pid, epoch, seq, last, delta, ts, coord_epoch, txn_first in read_snapshot(os.path.join(root, sp)):
                e = st.entry(pid)
                e.epoch, e.timestamp, e.coordinator_epoch, e.txn_first = epoch, ts, coord_epoch, txn_first
                e.batch = (seq, last, delta) if last >= 0 else None
                if txn_first >= 0:
                    st.ongoing[txn_first] = pid
                    open_[pid] = {"first_offset": txn_first, "first_timestamp": None, "batches": 0,
                                  "records": 0, "last_offset": last if last >= 0 else None, "last_timestamp": ts}
    committed = aborted = 0
    newest = None
    last_offset = None
    problems, damaged, entries = [], [], []
    for base, name in zip(bases, logs):
        good, bad = read_log(os.path.join(root, pdir, name))
        for pos, off in bad:
            damaged.append({"file": "%s/%s" % (pdir, name), "code": "crc_mismatch", "position": pos, "offset": off})
        ix_path = "%s/%s" % (pdir, seg_name(base, "txnindex"))
        want, abort_markers = set(), set()
        for _, raw in good:
            h = header(raw)
            newest = h["max_ts"] if newest is None else max(newest, h["max_ts"])
            last_offset = h["last"]
            if h["pid"] < 0:
                continue
            had = h["pid"] in st.producers and st.producers[h["pid"]].txn_first >= 0
            a = st.append(raw)
            e = st.producers[h["pid"]]
            if h["control"]:
                kind = control_type(raw)
                if kind == "ABORT":
                    aborted += 1
                    abort_markers.add((h["pid"], h["base"]))
                    if a:
                        want.add((a[0], a[2]))
                else:
                    committed += 1
                assert e.txn_first < 0
                open_.pop(h["pid"], None)
            elif h["txn"]:
                if not had:
                    open_[h["pid"]] = {"first_offset": h["base"], "first_timestamp": h["max_ts"], "batches": 0,
                                       "records": 0}
                o = open_[h["pid"]]
                o["batches"] += 1
                o["records"] += h["count"]
                o["last_offset"], o["last_timestamp"] = h["last"], h["max_ts"]
        entries += [{"file": ix_path, "producer_id": pid, "last_offset": last}
                    for pid, last in sorted(want, key=lambda x: x[1])]
        have = read_txnindex(os.path.join(root, ix_path))
        have_keys = {(e[1], e[3]) for e in have}
        for pid, last in sorted(want - have_keys, key=lambda x: x[1]):
            problems.append({"file": ix_path, "code": "txnindex_missing", "offset": last})
        for e in have:
            if (e[1], e[3]) not in abort_markers:
                problems.append({"file": ix_path, "code": "txnindex_extra", "offset": e[3]})
    rows = []
    for pid, o in sorted(open_.items(), key=lambda kv: kv[1]["first_offset"]):
        assert st.producers[pid].txn_first == o["first_offset"]
        row = {"topic": topic, "partition": partition, "producer_id": pid,
               "producer_epoch": st.producers[pid].epoch, "first_offset": o["first_offset"],
               "last_offset": o["last_offset"], "batches": o["batches"], "records": o["records"],
               "first_timestamp": o["first_timestamp"],
               "age_ms": None if o["first_timestamp"] is None else newest - o["first_timestamp"],
               "last_timestamp": o["last_timestamp"], "idle_ms": newest - o["last_timestamp"]}
        row["hanging"] = row["idle_ms"] > HANGING_DEFAULT
        c = coord.get(pid)
        row["transactional_id"] = c[0] if c else None
        row["coordinator_state"] = c[1] if c else None
        row["marker_missing"] = bool(c and c[3] in (4, 5) and c[2] >= row["producer_epoch"])
        rows.append(row)
        if row["marker_missing"]:
            problems.append({"file": pdir, "code": "marker_missing", "offset": o["first_offset"]})
    leo = last_offset + 1
    return {
        "path": pdir, "topic": topic, "partition": partition, "log_end_offset": leo,
        "last_stable_offset": rows[0]["first_offset"] if rows else leo,
        "open_transactions": len(rows), "aborted_transactions": aborted, "committed_transactions": committed,
        "hanging_transactions": sum(r["hanging"] for r in rows),
        "hanging_by_threshold": {str(t): sum(r["idle_ms"] > t for r in rows) for t in HANGING_CASES},
        "newest_timestamp": newest, "start_offset": bases[0], "snapshot": snapshot,
        "incomplete": bool(damaged), "open": rows, "problems": problems, "damage": damaged,
        "txnindex_entries": entries,
    }


# ---------------------------------------------------------------------------

NOTES = [
    "Paths are relative to the fixtures directory (run kfsck with it as the working directory).",
    "partitions[*] is what `kfsck txns --json` prints for that partition when given the data dir "
    "(the coordinator view from its __transaction_state partitions included); open lists the "
    "open_transaction lines in order (oldest first) with generator extras last_timestamp and "
    "idle_ms (the partition's newest batch max timestamp minus the producer's last batch's).",
    "first_timestamp is the max timestamp of the transaction's first batch; null when the "
    "transaction began before the log's first segment (known from the producer snapshot), and "
    "then batches/records count only the batches in the log.",
    "hanging: idle_ms > --hanging-ms (default 900000); hanging_by_threshold gives the count for "
    "other values.",
    "transactional_id / coordinator_state / marker_missing hold only when __transaction_state is "
    "among the inputs; given a partition dir alone they are absent and no marker_missing is reported.",
    "problems: the codes, files and offsets kfsck must report (txnindex_missing: an ABORT that ended "
    "a transaction with data and has no entry in its segment's .txnindex; txnindex_extra: an entry "
    "naming no ABORT marker of its producer in that segment; marker_missing).",
    "txnindex_entries: the entries each segment's .txnindex must hold (the ABORT markers that ended "
    "a transaction with data), by file.",
    "retained_without_snapshot: the answer for datadir/retained-0 with its producer snapshot removed "
    "(the transaction begun at 80 is then seen from its batch at 100).",
    "damaged/events-0: the COMMIT marker at damage.offset has a flipped bit: it is skipped (a "
    "crc_mismatch problem) and the transaction it ended shows as open; the partition is incomplete.",
]


def generate(out):
    root = os.path.join(out, ROOT)
    if os.path.isdir(root):
        shutil.rmtree(root)
    w = Writer(out)

    L, order_aborts = orders0()
    w.partition(DD, L)
    L, entries, ix_intent = payments0()
    pdir, built, _ = w.partition(DD, L, txnindex=entries)
    # the script's intent: the entry of the first ABORT left out, one naming a COMMIT
    assert [e[2] for e in built[0]] == sorted(ix_intent["missing"] + [entries[0][1][2]])
    payments_dir = pdir
    for f in (inventory0, shipments0):
        L = f()
        w.partition(DD, L)
    L, start, q_abort = retained0()
    pdir, built, st = w.partition(DD, L, skip_before=start)
    # the broker's snapshot at the log start: the state after every batch before it
    st0 = State()
    for raw in L.segments[0][1]:
        st0.append(raw)
    w.write("%s/%s" % (pdir, seg_name(start, "snapshot")), st0.snapshot())
    assert st0.producers[5000].txn_first == 80 and st0.producers[5001].txn_first == 90
    assert built[start] == [(5001, 90, q_abort, 80)]
    coord_dirs, writes = transaction_state(w)

    E, commit = events0()
    edir, _, _ = w.partition(ROOT + "/damaged", E)
    elog = os.path.join(out, edir, seg_name(0, "log"))
    with open(elog, "rb") as f:
        data = bytearray(f.read())
    pos = sum(len(b) for b in E.segments[0][1][:1])        # the COMMIT marker is the second batch
    assert struct.unpack_from(">q", data, pos)[0] == commit
    data[pos + 61 + 3] ^= 0x10                               # inside its record: the CRC no longer matches
    with open(elog, "wb") as f:
        f.write(data)

    # read back
    n_ids, coord = coordinator_view(out, coord_dirs)
    assert n_ids == len({x[0] for x in writes}) - 1          # shipments-old tombstoned
    parts = []
    for name in sorted(os.listdir(os.path.join(out, DD))):
        if name.startswith("__transaction_state-"):
            continue
        topic, p = name.rsplit("-", 1)
        parts.append(expect_partition(out, "%s/%s" % (DD, name), topic, int(p), coord))
    damaged = expect_partition(out, edir, "events", 0, {})
    retained_alone = expect_partition(out, DD + "/retained-0", "retained", 0, {}, use_snapshot=False)

    # cross-checks against the script
    by = {x["topic"]: x for x in parts}
    o = by["orders"]
    assert [(r["producer_id"], r["hanging"]) for r in o["open"]] == [(1000, True), (1001, False)]
    assert o["committed_transactions"] == 4 and o["aborted_transactions"] == 4
    assert o["hanging_by_threshold"] == {str(MIN): 2, str(HANGING_DEFAULT): 1, str(60 * MIN): 0}
    assert not o["problems"]
    assert [x for x in by["payments"]["problems"]] == [
        {"file": payments_dir + "/00000000000000000000.txnindex", "code": "txnindex_missing",
         "offset": ix_intent["missing"][0]},
        {"file": payments_dir + "/00000000000000000000.txnindex", "code": "txnindex_extra",
         "offset": ix_intent["extra"][0]}]
    assert [(r["producer_id"], r["marker_missing"], r["coordinator_state"]) for r in by["shipments"]["open"]] == [
        (4000, True, "CompleteCommit"), (4001, False, "Ongoing"), (4002, False, None),
        (4003, False, "CompleteCommit")]
    r = by["retained"]["open"]
    assert [(x["producer_id"], x["first_offset"], x["first_timestamp"], x["batches"]) for x in r] == [
        (5000, 80, None, 1)]
    assert by["retained"]["snapshot"] and not by["retained"]["problems"]
    assert not by["inventory"]["problems"] and by["inventory"]["hanging_transactions"] == 0
    assert damaged["incomplete"] and damaged["damage"][0]["offset"] == commit
    assert [x["producer_id"] for x in damaged["open"]] == [7000]
    assert [(x["producer_id"], x["first_offset"]) for x in retained_alone["open"]] == [(5000, 100)]
    assert [x["last_offset"] for x in by["orders"]["txnindex_entries"]] == order_aborts

    manifest = {
        # the generator's path before tools/ was split by role, kept so that the
        # committed fixtures stay byte-identical
        "generator": "tools/gen/gen_txns.py",
        "notes": NOTES,
        "time_base_ms": T0,
        "hanging_ms_default": HANGING_DEFAULT,
        "datadir": DD,
        "transaction_state": {"paths": coord_dirs, "transactional_ids": n_ids,
                              "by_producer": [{"producer_id": pid, "transactional_id": v[0], "state": v[1],
                                               "producer_epoch": v[2]} for pid, v in sorted(coord.items())],
                              "transactional_id_partitions": [
                                  {"transactional_id": t, "partition": gen_offsets.partition_for(t, NPART)}
                                  for t in sorted({x[0] for x in writes})]},
        "partitions": parts,
        "damaged": damaged,
        "retained_without_snapshot": retained_alone,
    }
    with open(os.path.join(root, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return manifest


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: %s OUTDIR   (writes OUTDIR/txns)\n" % argv[0])
        return 2
    generate(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
