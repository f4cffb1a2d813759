#!/usr/bin/python3
"""compaction_model.py: a reference model of Kafka's log-cleaner rules, for
the tests of `kfsck compaction`. Written from Kafka's sources, not from
kfsck's C:

- LogCleanerManager.cleanableOffsets (core/src/main/scala/kafka/log/
  LogCleanerManager.scala): the first dirty offset (the checkpoint entry,
  the log start when there is none, reset to the log start when it is below
  it or past the log end) and the first uncleanable offset (the smallest of
  the last stable offset, the active segment's base and the first dirty
  non-active segment younger than min.compaction.lag.ms, raised to the
  first dirty offset);
- LogToClean and calculateCleanableBytes (LogCleaner.scala): clean bytes
  are the segments below the first dirty offset, cleanable bytes the
  segments from the one holding min(first dirty, first uncleanable segment)
  up to the segment holding the uncleanable offset, ratio = cleanable /
  (clean + cleanable);
- grabFilthiestCompactedLog / maxCompactionDelay: picked when the log is
  not empty and the ratio is above min.cleanable.dirty.ratio, or a
  compaction is due by max.compaction.lag.ms and there are cleanable bytes;
- UnifiedLog.lastStableOffset: the first offset of the oldest ongoing
  transaction when below the high watermark, else the high watermark;
- Cleaner.shouldRetainRecord: a full cleaning keeps the latest record of
  each key (tombstones until their delete horizon passes) and drops keyless
  records; control batches are not records of the count;
- CleanedTransactionMetadata with UnifiedLog.collectAbortedTransactions: the
  aborted transactions listed in the .txnindex files begin when the log
  reaches their first offset; a transactional batch of a producer inside
  one is dropped (and not indexed); its ABORT marker ends it.
- The pinning transaction, named (docs/kfsck.1, compaction): the
  coordinator's state (TransactionStateManager's load of
  __transaction_state: the last TransactionLogValue of each transactional
  id wins, a null value deletes it) gives the transactional id whose latest
  value names the producer id, and its TransactionTimeoutMs; without one,
  transaction.max.timeout.ms's default (900000). The coordinator aborts a
  transaction once its timeout has passed since it began
  (TransactionStateManager.timedOutTransactions), so one still open here
  and older than it (--now minus its first batch's timestamp) hangs.

Usage: compaction_model.py --now MS [--min-cleanable-ratio R]
       [--min-compaction-lag-ms MS] [--max-compaction-lag-ms MS]
       [--txn-state DIR]... PARTDIR...
prints one JSON object per partition directory (its data dir is the
directory above it), with the fields of the "compaction" record in docs/kfsck.1;
--txn-state names the __transaction_state partition directories to replay.
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
from kafka import codec as kcodec  # noqa: E402
import coordfmt  # noqa: E402

LONG_MAX = (1 << 63) - 1
MAX_TIMEOUT_MS = 900000       # transaction.max.timeout.ms's default
TXN_STATES = ["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead",
              "PrepareEpochFence"]


def zigzag(buf, p):
    """A zigzag varint at p: (value, next position)."""
    shift = raw = 0
    while True:
        b = buf[p]
        p += 1
        raw |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return (raw >> 1) ^ -(raw & 1), p


def records_section(e, codec):
    body = e[61:]
    if codec == 0:
        return body
    return {1: kcodec.gzip_decode, 2: kcodec.snappy_decode, 3: kcodec.lz4_decode,
            4: kcodec.zstd_decode}[codec](body)


def v2_records(e, count, codec):
    """(size with its length varint, key, value) of each record."""
    sec = records_section(e, codec)
    p, out = 0, []
    for _ in range(count):
        start = p
        length, p = zigzag(sec, p)
        end = p + length
        q = p + 1
        _, q = zigzag(sec, q)          # timestamp delta
        _, q = zigzag(sec, q)          # offset delta
        klen, q = zigzag(sec, q)
        key = None if klen < 0 else bytes(sec[q:q + klen])
        q += max(klen, 0)
        vlen, q = zigzag(sec, q)
        value = None if vlen < 0 else bytes(sec[q:q + vlen])
        out.append((end - start, key, value))
        p = end
    return out


def read_batches(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos + 17 <= len(data):
        size = 12 + struct.unpack_from(">i", data, pos + 8)[0]
        e = data[pos:pos + size]
        magic = e[16]
        if magic != 2:
            raise NotImplementedError("the model reads magic 2 batches only")
        (base, _l, _ple, _m, _crc, attrs, lod, _bts, max_ts, pid, pepoch, _bseq,
         count) = struct.unpack_from(">qiibIhiqqqhii", e, 0)
        b = {"base": base, "last": base + lod, "max_ts": max_ts, "pid": pid, "epoch": pepoch,
             "txn": bool(attrs & 0x10), "control": bool(attrs & 0x20), "codec": attrs & 7}
        b["records"] = v2_records(e, count, b["codec"])
        if b["control"]:
            key = b["records"][0][1]
            b["control_type"] = struct.unpack_from(">h", key, 2)[0]   # 0 ABORT, 1 COMMIT
        out.append(b)
        pos += size
    return out


def txnindex_entries(path):
    """(producer id, first offset) of each whole 34-byte .txnindex entry."""
    if not os.path.exists(path):
        return []
    data = open(path, "rb").read()
    return [struct.unpack_from(">hqqqq", data, i)[1:3] for i in range(0, len(data) - 33, 34)]


def aborted_batches(segs, pdir):
    """The ids of the data batches the cleaner drops as aborted."""
    listed = sorted((e for s in segs for e in txnindex_entries(os.path.join(pdir, "%020d.txnindex" % s["base"]))),
                    key=lambda e: e[1])
    ongoing, out, i = set(), set(), 0
    for s in segs:
        for b in s["batches"]:
            while i < len(listed) and listed[i][1] <= b["last"]:
                ongoing.add(listed[i][0])
                i += 1
            if b["control"]:
                if b["control_type"] == 0:
                    ongoing.discard(b["pid"])
            elif b["txn"] and b["pid"] in ongoing:
                out.add(id(b))
    return out


def coordinator_state(dirs):
    """The coordinator's state: {transactional id: (write order, value dict)}
    after every __transaction_state partition directory of dirs (in
    partition order, each in offset order) is replayed."""
    state, order = {}, 0
    for d in sorted(dirs, key=lambda x: int(os.path.basename(os.path.normpath(x)).rpartition("-")[2])):
        for f in sorted(os.listdir(d)):
            if not f.endswith(".log"):
                continue
            for b in read_batches(os.path.join(d, f)):
                if b["control"]:
                    continue
                for _size, key, value in b["records"]:
                    tid = coordfmt.decode_key(key, txn=True)[1]["TransactionalId"]
                    order += 1
                    if value is None:
                        state.pop(tid, None)
                    else:
                        state[tid] = (order, coordfmt.decode_value(0, value, txn=True)[1])
    return state


def pinning(pinned, state, now):
    """The fields that name the pinning transaction and say whether it hangs."""
    pid = pinned["producer_id"]
    named = sorted((order, tid) for tid, (order, v) in (state or {}).items() if v["ProducerId"] == pid)
    tid = named[-1][1] if named else None       # several: the one written last
    v = state[tid][1] if tid is not None else None
    timeout = v["TransactionTimeoutMs"] if v else 0
    status = v["TransactionStatus"] if v else None
    source = "coordinator" if timeout > 0 else "default"
    timeout = timeout if timeout > 0 else MAX_TIMEOUT_MS
    age = None if pinned["first_timestamp"] is None else now - pinned["first_timestamp"]
    return {"transactional_id": tid,
            "coordinator_state": None if status is None else (TXN_STATES[status] if 0 <= status < 8 else status),
            "age_ms": age, "timeout_ms": timeout, "timeout_source": source,
            "hanging": None if age is None else age > timeout}


def checkpoint_entry(datadir, name, topic, partition):
    path = os.path.join(datadir, name)
    if not os.path.exists(path):
        return None
    lines = open(path).read().split("\n")
    for ln in lines[2:]:
        parts = ln.split()
        if len(parts) == 3 and parts[0] == topic and int(parts[1]) == partition:
            return int(parts[2])
    return None


def segments_between(segs, lo, hi):
    """LogSegments.values(lo, hi): from the segment holding lo (the first
    when none does) to the last one whose base is below hi."""
    if lo == hi:
        return []
    floor = [s for s in segs if s["base"] <= lo]
    start = floor[-1]["base"] if floor else None
    return [s for s in segs if (start is None or s["base"] >= start) and s["base"] < hi]


def non_active_from(segs, offset):
    active = segs[-1]
    if offset > active["base"]:
        return []
    return segments_between(segs, offset, active["base"])


def model_partition(pdir, now, ratio=0.5, min_lag=0, max_lag=LONG_MAX, state=None):
    pdir = os.path.normpath(pdir)
    name = os.path.basename(pdir)
    topic, _, part = name.rpartition("-")
    partition = int(part)
    datadir = os.path.dirname(pdir) or "."
    segs = []
    for f in sorted(os.listdir(pdir)):
        if f.endswith(".log"):
            path = os.path.join(pdir, f)
            batches = read_batches(path)
            segs.append({"base": int(f[:-4]), "size": os.path.getsize(path), "batches": batches,
                         "largest_ts": max((b["max_ts"] for b in batches), default=-1),
                         "first_ts": batches[0]["max_ts"] if batches else None})
    every = [b for s in segs for b in s["batches"]]
    leo = every[-1]["last"] + 1 if every else segs[-1]["base"]
    log_start = segs[0]["base"]
    ls = checkpoint_entry(datadir, "log-start-offset-checkpoint", topic, partition)
    if ls is not None and ls > log_start:
        log_start = ls
    log_start = min(log_start, leo)
    hw = checkpoint_entry(datadir, "replication-offset-checkpoint", topic, partition)
    if hw is not None:
        hw = max(min(hw, leo), log_start)

    # the producer state: ongoing transactions, ended only by a marker
    ongoing, epochs = {}, {}
    for b in every:
        if b["pid"] >= 0:
            epochs[b["pid"]] = b["epoch"]
        if b["control"]:
            if b["control_type"] in (0, 1):
                ongoing.pop(b["pid"], None)
        elif b["txn"] and b["pid"] not in ongoing:
            ongoing[b["pid"]] = b
    oldest = min(ongoing.items(), key=lambda kv: kv[1]["base"]) if ongoing else None
    stable_bound = leo if hw is None else hw
    lso = stable_bound
    if oldest and oldest[1]["base"] < stable_bound:
        lso = oldest[1]["base"]

    # cleanableOffsets
    ckpt = checkpoint_entry(datadir, "cleaner-offset-checkpoint", topic, partition)
    first_dirty = log_start if ckpt is None else ckpt
    if ckpt is not None and (ckpt < log_start or ckpt > leo):
        first_dirty = log_start
    bounds = [("last_stable_offset", lso), ("active_segment", segs[-1]["base"])]
    if min_lag > 0:
        young = [s for s in non_active_from(segs, first_dirty) if s["largest_ts"] > now - min_lag]
        if young:
            bounds.append(("min_compaction_lag", young[0]["base"]))
    reason, bound = min(bounds, key=lambda rb: rb[1])   # the first of the smallest
    uncleanable = max(first_dirty, bound)

    # LogToClean
    stop = non_active_from(segs, uncleanable)
    stop_base = stop[0]["base"] if stop else segs[-1]["base"]
    cleanable = sum(s["size"] for s in segments_between(segs, min(first_dirty, stop_base), stop_base))
    clean = sum(s["size"] for s in segs if s["base"] < first_dirty)
    total = clean + cleanable
    dirty_ratio = cleanable / total if total else None
    firsts = [s["first_ts"] for s in non_active_from(segs, first_dirty)
              if s["first_ts"] is not None and s["first_ts"] > 0]
    until = now - max(max_lag, 0)
    delay = until - min(firsts) if firsts and min(firsts) < until else 0
    would = total > 0 and ((delay > 0 and cleanable > 0) or dirty_ratio > ratio)

    # a full cleaning
    latest, records, reclaim, keyless, aborted_records = {}, 0, 0, 0, 0
    aborted = aborted_batches(segs, pdir)
    for b in every:
        if b["control"]:
            continue
        for size, key, value in b["records"]:
            records += 1
            if id(b) in aborted:
                aborted_records += 1
                reclaim += size
                continue
            if key is None:
                keyless += 1
                reclaim += size
                continue
            if key in latest:
                reclaim += latest[key][0]
            latest[key] = (size, value is None)
    pinned = None
    if reason == "last_stable_offset" and oldest and oldest[1]["base"] == lso:
        pid, b = oldest
        pinned = {"producer_id": pid, "producer_epoch": epochs[pid], "first_offset": b["base"],
                  "first_timestamp": b["max_ts"]}
        pinned.update(pinning(pinned, state, now))
    return {"topic": topic, "partition": partition, "bytes": sum(s["size"] for s in segs),
            "cleaner_offset": ckpt, "first_dirty_offset": first_dirty,
            "first_uncleanable_offset": uncleanable, "uncleanable_reason": reason, "pinned_by": pinned,
            "cleanable_bytes": cleanable, "dirty_ratio": dirty_ratio, "would_clean": would,
            "keys": len(latest), "records": records, "live_records": len(latest),
            "reclaimable_bytes": reclaim, "tombstones": sum(1 for v in latest.values() if v[1]),
            "keyless_records": keyless, "aborted_records": aborted_records, "log_start_offset": log_start, "log_end_offset": leo,
            "high_watermark": hw, "last_stable_offset": lso, "clean_bytes": clean, "total_bytes": total,
            "compaction_delay_ms": delay}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--now", type=int, required=True)
    ap.add_argument("--min-cleanable-ratio", type=float, default=0.5)
    ap.add_argument("--min-compaction-lag-ms", type=int, default=0)
    ap.add_argument("--max-compaction-lag-ms", type=int, default=LONG_MAX)
    ap.add_argument("--txn-state", action="append", default=[])
    ap.add_argument("partdirs", nargs="+")
    a = ap.parse_args(argv)
    state = coordinator_state(a.txn_state)
    for d in a.partdirs:
        print(json.dumps(model_partition(d, a.now, a.min_cleanable_ratio, a.min_compaction_lag_ms,
                                         a.max_compaction_lag_ms, state), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
