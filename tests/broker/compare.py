"""compare: reading Kafka's tools' text output, and holding kfsck's JSON
against it. Each function here takes the tool's text and kfsck's rows and
raises AssertionError naming the first field that differs (with its file and
offset), so one comparison is one pass or one failure.

Tools read: DumpLogSegments (`kafka-dump-log.sh --deep-iteration
--print-data-log`: batches, records, offset index, time index, txn index,
producer snapshots), ConsumerGroupCommand (`kafka-consumer-groups.sh
--describe --offsets / --state / --members`), TransactionsCommand
(`kafka-transactions.sh list / describe / describe-producers /
find-hanging`), and the real consumer's read-back of a topic (the driver's
`readback`: exact key, value and header bytes).
"""
import base64
import re

# ---- DumpLogSegments -------------------------------------------------------

BATCH = re.compile(
    r"^baseOffset: (?P<base_offset>-?\d+) lastOffset: (?P<last_offset>-?\d+) count: (?P<count>\S+) "
    r"baseSequence: (?P<base_sequence>-?\d+) lastSequence: (?P<last_sequence>-?\d+) "
    r"producerId: (?P<producer_id>-?\d+) producerEpoch: (?P<producer_epoch>-?\d+) "
    r"partitionLeaderEpoch: (?P<leader_epoch>-?\d+) isTransactional: (?P<transactional>\w+) "
    r"isControl: (?P<control>\w+) deleteHorizonMs: (?P<delete_horizon>\S+) "
    r"position: (?P<position>\d+) (?P<ts_type>\w+): (?P<max_timestamp>-?\d+) size: (?P<size>\d+) "
    r"magic: (?P<magic>\d+) compresscodec: (?P<codec>\w+) crc: (?P<crc>\d+) isvalid: (?P<valid>\w+)$")
LEGACY_BATCH = re.compile(
    r"^offset: (?P<last_offset>-?\d+) position: (?P<position>\d+) (?P<ts_type>\w+): (?P<max_timestamp>-?\d+) "
    r"size: (?P<size>\d+) magic: (?P<magic>\d+) compresscodec: (?P<codec>\w+) crc: (?P<crc>\d+) "
    r"isvalid: (?P<valid>\w+)$")
RECORD = re.compile(
    r"^\| offset: (?P<offset>-?\d+) (?P<ts_type>\w+): (?P<timestamp>-?\d+) keySize: (?P<key_size>-?\d+) "
    r"valueSize: (?P<value_size>-?\d+)(?: sequence: (?P<sequence>-?\d+) headerKeys: \[(?P<header_keys>[^\]]*)\])?"
    r"(?: isValid: (?P<rec_valid>\w+) crc: (?P<rec_crc>\d+)\}?)?"
    r"(?: endTxnMarker: (?P<marker>\w+) coordinatorEpoch: (?P<coordinator_epoch>-?\d+))?"
    r"(?: (?:SnapshotHeader|SnapshotFooter|KRaftVersion|KRaftVoters|LeaderChange):? (?P<kraft>\{.*\}))?"
    r"(?: controlType: (?P<control_type>\w+)\((?P<control_type_id>-?\d+)\))?"
    r"(?P<rest>.*)$", re.S)
# How every line DumpLogSegments starts (others continue a record's line).
LINE_START = re.compile(r"^(Dumping |Log starting offset: |baseOffset: |offset: \d|\| offset: |Found \d+ invalid |"
                        r"timestamp: |producerId: |version: \d|Snapshot end offset|KRaft bootstrap|\S+ is empty\.|"
                        r"\S+ passed sanity check)")
TS_TYPE = {"CreateTime": "create", "LogAppendTime": "log_append", "NoTimestampType": None}


def split_dump(text):
    """DumpLogSegments' output for several files: {file path as given: [lines]}.
    Lines are split on "\\n" only (payloads may hold other line breaks)."""
    files, cur = {}, None
    for line in text.split("\n"):
        if line.startswith("Dumping "):
            cur = line[len("Dumping "):]
            files[cur] = []
        elif cur is not None and files[cur] and files[cur][-1].startswith("| ") and not LINE_START.match(line):
            # a key or payload holding a "\n" byte: the rest of the record's line
            files[cur][-1] += "\n" + line
        elif cur is not None and line != "":
            files[cur].append(line)
    for lines in files.values():
        if lines and lines[-1].startswith("| ") and lines[-1].endswith("\n"):
            lines[-1] = lines[-1][:-1]
    return files


def parse_log_dump(lines):
    """Batches of one .log (or KRaft .checkpoint) dump: a list of dicts, each
    with its records; plus the trailing invalid-bytes count (0 if none)."""
    batches, trailing = [], 0
    for line in lines:
        m = BATCH.match(line) or LEGACY_BATCH.match(line)
        if m:
            b = {k: v for k, v in m.groupdict().items()}
            b["records"] = []
            batches.append(b)
            continue
        if line.startswith("| "):
            m = RECORD.match(line)
            if not m:
                raise AssertionError(f"cannot read DumpLogSegments record line: {line[:200]!r}")
            r = m.groupdict()
            rest = r.pop("rest")
            # " key: K payload: P", " key: K", " payload: P" (no key printed for a null key)
            key = payload = None
            km = re.match(r"^ key: (.*?)(?: payload: (.*))?$", rest, re.S)
            if km:
                key, payload = km.group(1), km.group(2)
            else:
                pm = re.match(r"^ payload: (.*)$", rest, re.S)
                if pm:
                    payload = pm.group(1)
                elif rest:
                    raise AssertionError(f"unread tail of a record line: {rest[:200]!r}")
            r["key_text"], r["payload_text"] = key, payload
            batches[-1]["records"].append(r)
            continue
        m = re.match(r"^Found (\d+) invalid bytes at the end of ", line)
        if m:
            trailing = int(m.group(1))
    return batches, trailing


def _eq(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: kfsck {got!r}, Kafka {want!r}")


def _b64(s):
    return None if s is None else base64.b64decode(s)


def java_text(raw):
    """How DumpLogSegments prints bytes with its default decoder (new
    String(bytes, UTF_8)): exact for valid UTF-8; None when the bytes are
    not valid UTF-8 (Java's and Python's replacement rules differ)."""
    if raw is None:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def timestamp(ts_type, text):
    """A timestamp as DumpLogSegments prints it, as kfsck gives it: magic 0
    has none ("NoTimestampType: -1"), which kfsck's JSON says with null."""
    return None if ts_type == "NoTimestampType" else int(text)


def compare_log(name, tool_batches, trailing, rows):
    """kfsck `dump --records --payload --json` rows of one segment against
    DumpLogSegments' batches of it. Returns (batches, records) compared."""
    kb = [r for r in rows if r["type"] == "batch"]
    kr = [r for r in rows if r["type"] == "record"]
    problems = [r for r in rows if r["type"] == "problem"]
    _eq(f"{name}: number of batches", len(kb), len(tool_batches))
    nrec = 0
    ri = 0
    for b, t in zip(kb, tool_batches):
        where = f"{name} batch at {t['position']}"
        _eq(f"{where} position", b["position"], int(t["position"]))
        _eq(f"{where} last_offset", b["last_offset"], int(t["last_offset"]))
        _eq(f"{where} size", b["size"], int(t["size"]))
        _eq(f"{where} magic", b["magic"], int(t["magic"]))
        _eq(f"{where} codec", b["codec"], t["codec"])
        _eq(f"{where} crc", b["crc"], int(t["crc"]))
        _eq(f"{where} crc_ok", b["crc_ok"], t["valid"] == "true")
        _eq(f"{where} timestamp_type", b["timestamp_type"], TS_TYPE[t["ts_type"]])
        _eq(f"{where} max_timestamp", b["max_timestamp"], timestamp(t["ts_type"], t["max_timestamp"]))
        if t.get("base_offset") is not None:
            _eq(f"{where} base_offset", b["base_offset"], int(t["base_offset"]))
            _eq(f"{where} count", b["count"], None if t["count"] == "null" else int(t["count"]))
            _eq(f"{where} base_sequence", b["base_sequence"], int(t["base_sequence"]))
            _eq(f"{where} producer_id", b["producer_id"], int(t["producer_id"]))
            _eq(f"{where} producer_epoch", b["producer_epoch"], int(t["producer_epoch"]))
            _eq(f"{where} leader_epoch", b["leader_epoch"], int(t["leader_epoch"]))
            _eq(f"{where} transactional", b["transactional"], t["transactional"] == "true")
            _eq(f"{where} control", b["control"], t["control"] == "true")
            dh = t["delete_horizon"]
            want = None if dh == "OptionalLong.empty" else int(re.search(r"-?\d+", dh).group(0))
            if "delete_horizon_ms" in b:
                _eq(f"{where} delete_horizon_ms", b["delete_horizon_ms"], want)
        # the records of this batch
        recs = kr[ri:ri + len(t["records"])]
        ri += len(t["records"])
        _eq(f"{where}: number of records", len(recs), len(t["records"]))
        for r, tr in zip(recs, t["records"]):
            w = f"{name} offset {tr['offset']}"
            _eq(f"{w} offset", r["offset"], int(tr["offset"]))
            _eq(f"{w} timestamp", r["timestamp"], timestamp(tr["ts_type"], tr["timestamp"]))
            if tr["rec_crc"] is not None:
                # a magic 0/1 message inside its wrapper has its own CRC-32
                _eq(f"{w} crc (the message's own)", r.get("crc"), int(tr["rec_crc"]))
                _eq(f"{w} crc_ok (the message's own)", r.get("crc_ok"), tr["rec_valid"] == "true")
            _eq(f"{w} key_size", r["key_size"], int(tr["key_size"]))
            _eq(f"{w} value_size", r["value_size"], int(tr["value_size"]))
            if tr["sequence"] is not None:
                _eq(f"{w} sequence", r.get("sequence"), int(tr["sequence"]))
                _eq(f"{w} header keys", [h["key"] for h in r["headers"]],
                    [] if tr["header_keys"] == "" else tr["header_keys"].split(","))
            if tr["marker"] is not None:
                c = r.get("control") or {}
                _eq(f"{w} marker", c.get("type"), tr["marker"])
                _eq(f"{w} coordinator_epoch", c.get("coordinator_epoch"), int(tr["coordinator_epoch"]))
            if tr["control_type"] is not None:
                c = r.get("control") or {}
                _eq(f"{w} control type id", c.get("type_id"), int(tr["control_type_id"]))
            if not b["control"]:
                kt = java_text(_b64(r.get("key_b64")))
                vt = java_text(_b64(r.get("value_b64")))
                if kt is not None:
                    _eq(f"{w} key", kt, tr["key_text"])
                elif r.get("key_b64") is None:
                    _eq(f"{w} key (null)", None, tr["key_text"])
                if vt is not None:
                    _eq(f"{w} value", vt, tr["payload_text"])
                elif r.get("value_b64") is None:
                    _eq(f"{w} value (null)", None, tr["payload_text"])
            nrec += 1
    _eq(f"{name}: records after the last batch", len(kr), ri)
    torn = [p for p in problems if p.get("code") in ("truncated", "bad_length")]
    if trailing:
        if not problems:
            raise AssertionError(f"{name}: Kafka found {trailing} invalid bytes at the end; kfsck no problem")
    elif torn:
        raise AssertionError(f"{name}: kfsck {torn[0]['code']} at {torn[0].get('position')}; Kafka reads to the end")
    return len(kb), nrec


def compare_index(name, lines, rows):
    """.index: `offset: O position: P` lines against index_entry rows."""
    want = []
    for l in lines:
        m = re.match(r"^offset: (\d+) position: (\d+)$", l)
        if m:
            want.append((int(m.group(1)), int(m.group(2))))
    got = [(r["offset"], r["position"]) for r in rows if r["type"] == "index_entry"]
    _eq(f"{name} entries", got, want)
    return len(want)


def compare_timeindex(name, lines, rows):
    want = []
    for l in lines:
        m = re.match(r"^timestamp: (-?\d+) offset: (\d+)$", l)
        if m:
            want.append((int(m.group(1)), int(m.group(2))))
    got = [(r["timestamp"], r["offset"]) for r in rows if r["type"] == "index_entry"]
    _eq(f"{name} entries", got, want)
    return len(want)


def compare_txnindex(name, lines, rows):
    want = []
    for l in lines:
        m = re.match(r"^version: (\d+) producerId: (-?\d+) firstOffset: (-?\d+) lastOffset: (-?\d+) "
                     r"lastStableOffset: (-?\d+)$", l)
        if m:
            want.append(tuple(int(x) for x in m.groups()))
    got = [(r["version"], r["producer_id"], r["first_offset"], r["last_offset"], r["last_stable_offset"])
           for r in rows if r["type"] == "txn_entry"]
    _eq(f"{name} entries", got, want)
    return len(want)


def compare_snapshot(name, lines, rows):
    """Producer snapshot: each producer's id, epoch, coordinator epoch,
    current transaction's first offset, last timestamp and (when the entry
    has batch metadata) sequences, last offset, offset delta, timestamp."""
    want = []
    for l in lines:
        m = re.match(r"^producerId: (-?\d+) producerEpoch: (-?\d+) coordinatorEpoch: (-?\d+) "
                     r"currentTxnFirstOffset: OptionalLong(?:\[(-?\d+)\]|\.empty) lastTimestamp: (-?\d+)"
                     r"(?: firstSequence: (-?\d+) lastSequence: (-?\d+) lastOffset: (-?\d+) offsetDelta: (-?\d+) "
                     r"timestamp: (-?\d+))?\s*$", l)
        if m:
            g = m.groups()
            want.append(dict(producer_id=int(g[0]), producer_epoch=int(g[1]), coordinator_epoch=int(g[2]),
                             current_txn_first_offset=int(g[3]) if g[3] is not None else -1,
                             last_timestamp=int(g[4]),
                             batch=None if g[5] is None else dict(first_sequence=int(g[5]), last_sequence=int(g[6]),
                                                                  last_offset=int(g[7]), offset_delta=int(g[8]),
                                                                  timestamp=int(g[9]))))
    got = [r for r in rows if r["type"] == "producer"]
    _eq(f"{name} producers", [r["producer_id"] for r in got], [w["producer_id"] for w in want])
    for r, w in zip(got, want):
        p = f"{name} producer {w['producer_id']}"
        _eq(f"{p} producer_epoch", r["producer_epoch"], w["producer_epoch"])
        _eq(f"{p} coordinator_epoch", r["coordinator_epoch"], w["coordinator_epoch"])
        _eq(f"{p} current_txn_first_offset", r["current_txn_first_offset"], w["current_txn_first_offset"])
        _eq(f"{p} timestamp", r["timestamp"], w["last_timestamp"])
        if w["batch"] is None:
            # Kafka reads no batch metadata when the entry's last offset is negative
            if r["last_offset"] >= 0:
                raise AssertionError(f"{p}: kfsck last_offset {r['last_offset']}, Kafka has no batch metadata")
        else:
            bm = w["batch"]
            _eq(f"{p} last_sequence", r["last_sequence"], bm["last_sequence"])
            _eq(f"{p} last_offset", r["last_offset"], bm["last_offset"])
            _eq(f"{p} offset_delta", r["offset_delta"], bm["offset_delta"])
            _eq(f"{p} first_sequence", r["last_sequence"] - r["offset_delta"], bm["first_sequence"])
    return len(want)


def compare_readback(name, readback, rows):
    """The real consumer's records (exact bytes) against kfsck's records of
    the same partition: key, value, header keys and values, timestamp."""
    kr = {r["offset"]: r for r in rows if r["type"] == "record"}
    n = 0
    for c in readback:
        r = kr.get(c["offset"])
        w = f"{name} offset {c['offset']}"
        if r is None:
            raise AssertionError(f"{w}: the consumer read it, kfsck has no such record")
        _eq(f"{w} key", r.get("key_b64"), c["key_b64"])
        _eq(f"{w} value", r.get("value_b64"), c["value_b64"])
        # magic 0 has no timestamp (null; the consumer's -1) and magic 0/1 no headers (null; the consumer's none)
        _eq(f"{w} timestamp", r["timestamp"], None if c["timestamp"] == -1 and r["timestamp"] is None else c["timestamp"])
        _eq(f"{w} headers", [[h["key"], h["value_b64"]] for h in r["headers"] or []], c["headers"])
        n += 1
    return n


# ---- ConsumerGroupCommand ----------------------------------------------------

def parse_table(text):
    """The tables kafka-consumer-groups.sh prints: a list of dicts keyed by
    the header row's column names (one table after another)."""
    rows, header = [], None
    for line in text.split("\n"):
        if not line.strip():
            header = None
            continue
        cols = line.split()
        if header is None:
            if cols and cols[0] in ("GROUP", "TransactionalId", "Topic", "TOPIC"):
                header = cols
            continue
        if len(cols) == len(header):
            rows.append(dict(zip(header, cols)))
        else:  # a short row (a '-' column is never empty, so this is a wrapped line)
            rows.append(dict(zip(header, cols)))
    return rows
