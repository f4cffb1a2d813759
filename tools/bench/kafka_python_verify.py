#!/usr/bin/python3
"""kafka_python_verify.py: the kafka-python peer of `kfsck verify` for
`make bench` (tools/bench/bench_run.py). Reads one segment file the way a careful
Python tool would with kafka-python (Debian's python3-kafka): frames every
batch (base offset, length), checks its CRC with kafka-python's own
DefaultRecordBatch.validate_crc (LegacyRecordBatch.validate_crc for magic
0/1), and iterates every record, touching its key, value and headers (which
decompresses the batch first when it is compressed). Reads the file a batch
at a time, so memory stays at about one batch whatever the file size.

  kafka_python_verify.py FILE
      Prints one JSON line: batches, records, crc_errors, record_errors,
      key_bytes, value_bytes, headers, tail_bytes (bytes left after the last
      whole batch), crc (which CRC-32C kafka-python used: "c" for the crc32c
      module, "python" for its pure-Python fallback). Exit 0 when every batch
      and record was good, 1 otherwise.
"""

import json
import struct
import sys

from kafka.errors import CorruptRecordException
from kafka.record import util as kafka_util
from kafka.record.default_records import DefaultRecordBatch
from kafka.record.legacy_records import LegacyRecordBatch

LOG_OVERHEAD = 12  # base offset (int64) + length (int32)
MAGIC_AT = 16      # offset of the magic byte from the start of the entry
READ_SIZE = 1 << 20


def batches(f):
    """Yields each whole entry (header included) of the segment, in order,
    then the count of bytes left over after the last whole one."""
    head = struct.Struct(">qi")
    while True:
        hdr = f.read(LOG_OVERHEAD)
        if len(hdr) < LOG_OVERHEAD:
            yield len(hdr)
            return
        _, length = head.unpack(hdr)
        if length < 0:
            raise CorruptRecordException("negative batch length %d" % length)
        body = f.read(length)
        if len(body) < length:
            yield LOG_OVERHEAD + len(body)
            return
        yield hdr + body


def verify(path):
    out = {"batches": 0, "records": 0, "crc_errors": 0, "record_errors": 0,
           "key_bytes": 0, "value_bytes": 0, "headers": 0, "tail_bytes": 0,
           "crc": "c" if kafka_util.crc32c_c is not None else "python"}
    with open(path, "rb", buffering=READ_SIZE) as f:
        for entry in batches(f):
            if isinstance(entry, int):
                out["tail_bytes"] = entry
                break
            out["batches"] += 1
            magic = entry[MAGIC_AT]
            batch = DefaultRecordBatch(entry) if magic >= 2 else LegacyRecordBatch(entry, magic)
            if not batch.validate_crc():
                out["crc_errors"] += 1
                continue
            try:
                for rec in batch:
                    key, value = rec.key, rec.value
                    if key is not None:
                        out["key_bytes"] += len(key)
                    if value is not None:
                        out["value_bytes"] += len(value)
                    out["headers"] += len(rec.headers)
                    out["records"] += 1
            except CorruptRecordException:
                out["record_errors"] += 1
    return out


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: kafka_python_verify.py FILE\n")
        return 2
    out = verify(argv[1])
    print(json.dumps(out))
    bad = out["crc_errors"] or out["record_errors"] or out["tail_bytes"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
