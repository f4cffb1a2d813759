#!/usr/bin/python3
"""kafka_producer_state: rebuild a partition's producer-state snapshot and
transaction indexes from its logs, the way broker recovery does.

This is the project's independent reference for the `.snapshot` and
`.txnindex` files that `kfsck repair` and `kfsck merge` write. Batches are
framed as broker recovery reads them (tools/model/kafka_index.py recover_scan: a
segment ends at its first torn or CRC-failing entry) and decoded with
kafka-python's DefaultRecordBatch. For every v2 batch with producerId >= 0,
following LogSegment.updateProducerState / ProducerAppendInfo.append /
ProducerStateManager (docs/formats.md §5.4, §6, §10):

  * data batch: a producer epoch other than the entry's clears its batch
    metadata; then lastSequence = baseSequence + lastOffsetDelta (wrapping
    past INT32_MAX to 0; -1 when baseSequence is -1), lastOffset,
    offsetDelta = lastOffsetDelta, timestamp = batch maxTimestamp; a
    transactional batch with no transaction open starts one at its base
    offset;
  * control batch: its first record is the COMMIT/ABORT marker. If the
    producer has a transaction open it completes; an ABORT then appends
    (producerId, firstOffset, markerOffset, lastStableOffset) to the
    .txnindex of the segment holding the marker, lastStableOffset being the
    first offset of the earliest open transaction of another producer, or
    markerOffset + 1 when there is none. Then the epoch is set (clearing
    batch metadata when it changes), currentTxnFirstOffset = -1,
    coordinatorEpoch = the marker's, timestamp = the marker record's.

A producer seen only in an empty control batch still gets an entry (epoch -1).
Snapshot entries are written sorted by producer id (version 1, CRC-32C of
bytes [6, EOF) by kafka.record.util.calc_crc32c).

Usage: /usr/bin/python3 tools/model/kafka_producer_state.py PARTITION_DIR_OR_LOGS... OUTDIR
writes OUTDIR/<log end offset>.snapshot and OUTDIR/<base>.txnindex for each
segment with aborted transactions, and prints a JSON summary on stdout.
"""

import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kafka.record.default_records import DefaultRecordBatch  # noqa: E402
from kafka.record.util import calc_crc32c  # noqa: E402
from kafka_index import recover_scan  # noqa: E402

INT32_MAX = 0x7FFFFFFF
CONTROL_ABORT, CONTROL_COMMIT = 0, 1


def last_sequence(base_seq, delta):
    """DefaultRecordBatch.lastSequence (incrementSequence wraps to 0)."""
    if base_seq == -1:
        return -1
    if base_seq > INT32_MAX - delta:
        return delta - (INT32_MAX - base_seq) - 1
    return base_seq + delta


class Entry(object):
    def __init__(self, pid):
        self.pid = pid
        self.epoch = -1
        self.batch = None            # (lastSeq, lastOffset, offsetDelta) or None
        self.timestamp = -1
        self.coordinator_epoch = -1
        self.txn_first = -1

    def set_epoch(self, epoch):
        if epoch != self.epoch:
            self.batch = None
            self.epoch = epoch

    def pack(self):
        seq, off, delta = self.batch if self.batch else (-1, -1, 0)
        return struct.pack(">qhiqiqiq", self.pid, self.epoch, seq, off, delta, self.timestamp,
                           self.coordinator_epoch, self.txn_first)


class State(object):
    def __init__(self):
        self.producers = {}
        self.ongoing = {}            # first offset -> pid

    def entry(self, pid):
        if pid not in self.producers:
            self.producers[pid] = Entry(pid)
        return self.producers[pid]

    def append(self, raw):
        """One batch; returns an aborted-txn tuple or None."""
        batch = DefaultRecordBatch(raw)
        h = batch._header_data
        base, delta, max_ts, pid, epoch, base_seq = h[0], h[6], h[8], h[9], h[10], h[11]
        if pid < 0:
            return None
        e = self.entry(pid)
        if not batch.is_control_batch:
            e.set_epoch(epoch)
            e.batch = (last_sequence(base_seq, delta), base + delta, delta)
            e.timestamp = max_ts
            if batch.is_transactional and e.txn_first < 0:
                e.txn_first = base
                self.ongoing[base] = pid
            return None
        record = next(iter(batch), None)
        if record is None or record.key is None or len(record.key) < 4 or record.value is None \
                or len(record.value) < 6:
            return None
        ctype = struct.unpack_from(">h", record.key, 2)[0]
        if ctype not in (CONTROL_ABORT, CONTROL_COMMIT):
            return None
        coordinator_epoch = struct.unpack_from(">i", record.value, 2)[0]
        aborted = None
        if e.txn_first >= 0:
            if ctype == CONTROL_ABORT:
                others = sorted(f for f, p in self.ongoing.items() if p != pid)
                lso = others[0] if others else base + 1
                aborted = (pid, e.txn_first, base, lso)
            self.ongoing.pop(e.txn_first, None)
        e.set_epoch(epoch)
        e.txn_first = -1
        e.coordinator_epoch = coordinator_epoch
        e.timestamp = record.timestamp
        return aborted

    def snapshot(self):
        body = struct.pack(">i", len(self.producers)) + b"".join(
            self.producers[p].pack() for p in sorted(self.producers))
        return struct.pack(">hI", 1, calc_crc32c(body)) + body


def segment_logs(args):
    logs = []
    for a in args:
        if os.path.isdir(a):
            names = [n for n in os.listdir(a) if re.fullmatch(r"\d+\.log", n)]
            logs += [os.path.join(a, n) for n in names]
        else:
            logs.append(a)
    return sorted(logs, key=lambda p: int(os.path.basename(p).split(".")[0]))


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    logs, outdir = segment_logs(argv[1:-1]), argv[-1]
    os.makedirs(outdir, exist_ok=True)
    st = State()
    leo = None
    summary = {"segments": [], "txnindex": []}
    for path in logs:
        base = int(os.path.basename(path).split(".")[0])
        with open(path, "rb") as f:
            data = f.read()
        batches, valid, stop = recover_scan(data)
        aborted = []
        for b in batches:
            if b["magic"] >= 2:
                t = st.append(data[b["position"]:b["position"] + b["size"]])
                if t:
                    aborted.append(t)
            leo = b["last_offset"] + 1
        if leo is None or leo < base:
            leo = base
        summary["segments"].append({"log": path, "batches": len(batches), "aborted": len(aborted)})
        if aborted:
            name = "%020d.txnindex" % base
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(b"".join(struct.pack(">hqqqq", 0, *t) for t in aborted))
            summary["txnindex"].append(name)
    if leo is None:
        leo = 0
    name = "%020d.snapshot" % leo
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(st.snapshot())
    summary.update({"snapshot": name, "log_end_offset": leo, "producers": len(st.producers)})
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
