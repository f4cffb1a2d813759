#!/usr/bin/python3
"""kafka_index: rebuild a segment's .index and .timeindex the way broker recovery does.

This is the project's independent reference for index building (used to
generate the committed fixtures and to check indexes that kfsck repair
writes). It follows LogSegment.recover as described in
docs/formats.md §9.2-§9.3:

  * batches are framed like FileLogInputStream: stop silently when 17 bytes
    or fewer are left or when an entry runs past EOF; a size field < 14
    raises (CorruptRecordException);
  * every batch must pass ensureValid(): v2 size >= 61 and CRC-32C over
    [21, end); v0/v1 CRC-32 over [16, end);
  * before a batch's size is added: if validBytes - lastIndexEntry >
    index.interval.bytes (4096, strictly greater), append the offset-index
    entry (batch.lastOffset, batch start position) and time-index
    maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar), the running
    max being over batch maxTimestamps (updated by the current batch first)
    and its offset being that batch's lastOffset;
  * at the end one last time-index entry for the segment max (if it is
    greater than the last entry written); both indexes trimmed.

Usage: /usr/bin/python3 tools/model/kafka_index.py SEGMENT.log OUTDIR
       [--interval N] [--no-final-time-entry]
writes OUTDIR/<base>.index and OUTDIR/<base>.timeindex and prints a JSON
summary (valid_bytes, entries) on stdout.
"""

import argparse
import json
import os
import re
import struct
import sys

from kafka.record.util import calc_crc32, calc_crc32c

HEADER_SIZE_UP_TO_MAGIC = 17   # offset + size + 4 bytes + magic
LOG_OVERHEAD = 12              # offset int64 + size int32
MIN_RECORD_OVERHEAD = 14       # LegacyRecord.RECORD_OVERHEAD_V0
V2_OVERHEAD = 61               # DefaultRecordBatch.RECORD_BATCH_OVERHEAD
NO_TIMESTAMP = -1
INT32_MAX = 0x7FFFFFFF


def recover_scan(data):
    """Walk `data` (a whole .log) as LogSegment.recover does.

    Returns (batches, valid_bytes, stop) where batches is a list of dicts
    {position, size, magic, last_offset, max_timestamp} for every batch the
    broker accepts, valid_bytes is where it would truncate the file, and stop
    names why the walk ended: "end" (nothing left), "short_tail" (<= 17 bytes
    left), "torn" (entry past EOF), "bad_size" (size < 14), "too_small"
    (v2 size < 61), "crc" (checksum mismatch).
    """
    batches = []
    pos = 0
    end = len(data)
    stop = "end"
    while True:
        if pos >= end - HEADER_SIZE_UP_TO_MAGIC:
            stop = "end" if pos == end else "short_tail"
            break
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if size < MIN_RECORD_OVERHEAD:
            stop = "bad_size"
            break
        if pos > end - LOG_OVERHEAD - size:
            stop = "torn"
            break
        total = LOG_OVERHEAD + size
        magic = struct.unpack_from(">b", data, pos + 16)[0]
        entry = data[pos:pos + total]
        if magic >= 2:
            if total < V2_OVERHEAD:
                stop = "too_small"
                break
            stored = struct.unpack_from(">I", entry, 17)[0]
            if stored != calc_crc32c(bytes(entry[21:])):
                stop = "crc"
                break
            base = struct.unpack_from(">q", entry, 0)[0]
            last = base + struct.unpack_from(">i", entry, 23)[0]
            max_ts = struct.unpack_from(">q", entry, 35)[0]
        else:
            stored = struct.unpack_from(">I", entry, 12)[0]
            if stored != calc_crc32(bytes(entry[16:])):
                stop = "crc"
                break
            last = struct.unpack_from(">q", entry, 0)[0]
            # LegacyRecord.timestamp(): v0 has none; v1 stores it at byte 18
            # (a LogAppendTime wrapper holds the append time there too).
            if magic == 1 and total >= 26:
                max_ts = struct.unpack_from(">q", entry, 18)[0]
            else:
                max_ts = NO_TIMESTAMP
        batches.append({"position": pos, "size": total, "magic": magic,
                        "last_offset": last, "max_timestamp": max_ts})
        pos += total
    return batches, pos, stop


class IndexOverflow(Exception):
    """An append the broker would refuse (InvalidOffsetException): recovery
    then truncates the whole segment to 0 bytes."""


def build_indexes(data, base_offset, interval=4096, final_time_entry=True):
    """Rebuild the offset and time index for segment bytes `data`.

    Returns a dict with 'index' and 'timeindex' (file bytes),
    'index_entries' [(abs offset, position)], 'time_entries'
    [(timestamp, abs offset)], 'valid_bytes', 'stop' and 'batches'.
    `final_time_entry=False` leaves out the closing time-index entry, as in
    the live index of an active segment that was never closed.
    Raises IndexOverflow where the broker would throw InvalidOffsetException.
    """
    batches, valid_bytes, stop = recover_scan(data)
    index_entries = []
    time_entries = []
    max_ts_so_far, offset_of_max_ts = NO_TIMESTAMP, -1
    last_index_entry = 0
    valid = 0

    def time_maybe_append(ts, off):
        last_ts = time_entries[-1][0] if time_entries else NO_TIMESTAMP
        if time_entries and off < time_entries[-1][1]:
            raise IndexOverflow("time index offset %d < %d" % (off, time_entries[-1][1]))
        if ts > last_ts:
            time_entries.append((ts, off))

    for b in batches:
        rel = b["last_offset"] - base_offset
        if rel < 0 or rel > INT32_MAX:
            raise IndexOverflow("offset %d out of range for base %d" % (b["last_offset"], base_offset))
        if b["max_timestamp"] > max_ts_so_far:
            max_ts_so_far, offset_of_max_ts = b["max_timestamp"], b["last_offset"]
        if valid - last_index_entry > interval:
            if index_entries and b["last_offset"] <= index_entries[-1][0]:
                raise IndexOverflow("index offset %d <= %d" % (b["last_offset"], index_entries[-1][0]))
            index_entries.append((b["last_offset"], valid))
            time_maybe_append(max_ts_so_far, offset_of_max_ts)
            last_index_entry = valid
        valid += b["size"]
    assert valid == valid_bytes
    if final_time_entry:
        time_maybe_append(max_ts_so_far, offset_of_max_ts)

    index = b"".join(struct.pack(">ii", off - base_offset, pos) for off, pos in index_entries)
    timeindex = b"".join(struct.pack(">qi", ts, off - base_offset) for ts, off in time_entries)
    return {"index": index, "timeindex": timeindex, "index_entries": index_entries,
            "time_entries": time_entries, "valid_bytes": valid_bytes, "stop": stop,
            "batches": batches}


def base_offset_from_name(path):
    """Base offset from a broker file name: the digits before the first '.'."""
    m = re.match(r"(\d+)\.", os.path.basename(path))
    if not m:
        raise ValueError("%s: not a segment file name (NNNNNNNNNNNNNNNNNNNN.log)" % path)
    return int(m.group(1))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Rebuild .index/.timeindex of a Kafka segment "
                                 "as broker recovery does.")
    ap.add_argument("segment")
    ap.add_argument("outdir")
    ap.add_argument("--interval", type=int, default=4096, help="index.interval.bytes")
    ap.add_argument("--no-final-time-entry", action="store_true",
                    help="omit the closing time-index entry (live active segment)")
    args = ap.parse_args(argv)
    base = base_offset_from_name(args.segment)
    with open(args.segment, "rb") as f:
        data = f.read()
    res = build_indexes(data, base, args.interval, not args.no_final_time_entry)
    os.makedirs(args.outdir, exist_ok=True)
    stem = "%020d" % base
    with open(os.path.join(args.outdir, stem + ".index"), "wb") as f:
        f.write(res["index"])
    with open(os.path.join(args.outdir, stem + ".timeindex"), "wb") as f:
        f.write(res["timeindex"])
    json.dump({"segment": args.segment, "base_offset": base, "valid_bytes": res["valid_bytes"],
               "stop": res["stop"], "index_entries": res["index_entries"],
               "time_entries": res["time_entries"]}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
