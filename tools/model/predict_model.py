#!/usr/bin/python3
"""predict_model: what a Kafka 4.x broker does with its log dirs at start-up.

The project's independent reference for `kfsck predict`, written from
Kafka's own code (LogManager.loadLogs / loadLog, LogLoader.load and
recoverLog, LogSegment.recover and sanityCheck, UnifiedLog.rebuildProducerState,
ProducerStateManager.truncateAndReload / removeStraySnapshots,
UnifiedLog.deletableSegments and the three retention rules), not from kfsck's
C. It simulates the broker on an in-memory copy of the directory listing:
every pass deletes or renames names in that copy, in the broker's order.
Segments are read with kafka_index.recover_scan (LogSegment.recover's walk).
What the broker keeps without looking (the damage of the segments it does
not recover), the acknowledged offsets missing after start-up, and, for a
__consumer_offsets partition that start-up cuts, the committed offsets the
coordinator then loads differently (a last-write-wins replay of the offset
commits decoded with tools/gen/coordfmt, of every intact batch and of the
batches start-up keeps) are worked out here too.

Usage: /usr/bin/python3 tools/model/predict_model.py [--now MS]
       [--assume-unclean] [--threads N] [--rate BYTES] DATADIR...
prints JSON lines with the fields of `kfsck predict --json` (action,
partition, datadir, summary; reasons are not modelled, only which action).
"""

import argparse
import json
import os
import re
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_index import recover_scan  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gen"))
import coordfmt  # noqa: E402

from kafka.record.memory_records import MemoryRecords  # noqa: E402
from kafka.record.util import calc_crc32c  # noqa: E402

# Kafka's internal topics, created with cleanup.policy=compact
INTERNAL_COMPACTED = ("__consumer_offsets", "__transaction_state", "__share_group_state")

DEFAULT_RATE = 64 << 20
DEFAULT_THREADS = 2
WEEK_MS = 7 * 24 * 3600 * 1000


def java_long(s):
    """Long.parseLong, or None."""
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        return None
    v = int(s)
    return v if -(1 << 63) <= v < (1 << 63) else None


def offset_from_name(name):
    """LogFileUtils.offsetFromFileName: the text before the first '.'."""
    if "." not in name:
        return None
    return java_long(name[:name.index(".")])


def fname(offset, ext):
    return "%020d%s" % (offset, ext)


def parse_dir_name(name):
    """LocalLog.parseTopicPartitionName: (topic, partition, kind) or None."""
    if not name or "-" not in name:
        return None
    kind = "plain"
    for suffix in ("-delete", "-future", "-stray"):
        if name.endswith(suffix):
            if not re.fullmatch(r"(\S+)-(\S+)\.(\S+)" + re.escape(suffix), name):
                return None
            kind = suffix[1:]
            break
    base = name[:name.rindex(".")] if kind != "plain" else name
    i = base.rindex("-")
    topic, part = base[:i], base[i + 1:]
    if not topic or not part:
        return None
    p = java_long(part)
    if p is None or not -(1 << 31) <= p < (1 << 31):
        return None
    return topic, p, kind


def read_checkpoint(path):
    """CheckpointFile: {(topic, partition): offset}, or {} when unreadable."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            return {}
        if int(lines[0]) != 0:
            return {}
        n = int(lines[1])
        out = {}
        if len(lines) != n + 2:
            return {}
        for line in lines[2:]:
            t, p, o = line.split()
            out[(t, int(p))] = int(o)
        return out
    except (OSError, ValueError, IndexError):
        return {}


def intact_batches(data):
    """Every batch of a segment that passes recovery's checks, reading on
    past damage (the next position where a batch frames and its CRC holds),
    and where each damaged stretch starts: ([(position, size)], [position])."""
    good, damage, pos = [], [], 0
    while pos < len(data):
        batches, valid, stop = recover_scan(data[pos:])
        good += [(pos + b["position"], b["size"]) for b in batches]
        pos += valid
        if stop == "end":
            break
        damage.append(pos)
        nxt = pos + 1
        while nxt < len(data):
            b2, _, _ = recover_scan(data[nxt:])
            if b2:
                break
            nxt += 1
        pos = nxt
    return good, damage


def frames_next_offset(data, base):
    """LogSegment.readNextOffset: the last batch that frames (lengths only:
    FileLogInputStream.nextBatch checks no CRC, so a batch that fails its CRC
    after a clean shutdown is in the log end; the broker confirms it)."""
    pos, last = 0, None
    while len(data) - pos > 17:
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if size < 14 or pos + 12 + size > len(data):
            break
        e = data[pos:pos + 12 + size]
        magic = e[16]
        if magic >= 2:
            if len(e) < 27:
                break
            last = struct.unpack_from(">q", e, 0)[0] + struct.unpack_from(">i", e, 23)[0]
        else:
            last = struct.unpack_from(">q", e, 0)[0]
        pos += 12 + size
    return base if last is None else last + 1


class Segment:
    def __init__(self, dirpath, base, name):
        self.base = base
        self.name = name
        self.path = os.path.join(dirpath, name)
        with open(self.path, "rb") as f:
            self.data = f.read()
        self.mtime = int(os.stat(self.path).st_mtime * 1000)
        self.size = len(self.data)
        self.orig_size = self.size
        self.recovered = False
        self.max_ts = None     # set by recover

    def next_offset(self):
        return frames_next_offset(self.data, self.base)

    def recover(self):
        """LogSegment.recover: (bytes truncated)."""
        batches, valid, _stop = recover_scan(self.data)
        self.max_ts = max([b["max_timestamp"] for b in batches], default=-1)
        cut = len(self.data) - valid
        self.data = self.data[:valid]
        self.size = valid
        return cut


class Partition:
    def __init__(self, logdir, name, topic, part, kind, clean, rp, lso, hw, now, settings):
        self.logdir, self.name, self.topic, self.part, self.kind = logdir, name, topic, part, kind
        self.dir = os.path.join(logdir, name)
        self.clean, self.rp, self.lso, self.hw, self.now = clean, rp, lso, hw, now
        self.settings = settings
        self.actions = []
        self.files = {}
        for n in sorted(os.listdir(self.dir)):
            p = os.path.join(self.dir, n)
            if os.path.isfile(p):
                self.files[n] = os.path.getsize(p)
        self.cuts = []         # [from, to) offsets recovery cuts out
        self.snaps = {}        # offset -> valid
        self.first_rebuild = None
        self.recovered = set()
        self.bytes_to_recover = 0

    def act(self, action, name, nbytes, **kw):
        d = {"action": action, "file": os.path.join(self.dir, name), "bytes": nbytes}
        d.update(kw)
        self.actions.append(d)

    def delete(self, name):
        self.act("delete_file", name, self.files.pop(name))

    # ---- LogLoader.load's first passes
    def temp_and_swap_files(self):
        swaps, cleaned, min_cleaned = [], [], None
        for n in sorted(self.files):
            if n.endswith(".deleted") and not n.endswith(".checkpoint.deleted"):
                self.delete(n)
            elif n.endswith(".cleaned"):
                o = offset_from_name(n)
                min_cleaned = o if min_cleaned is None else min(o, min_cleaned)
                cleaned.append(n)
            elif n.endswith(".swap"):
                swaps.append(n)
        for n in swaps:
            if min_cleaned is not None and offset_from_name(n) >= min_cleaned:
                self.delete(n)
        for n in cleaned:
            self.delete(n)
        lo = hi = None
        for n in sorted(self.files):
            if n.endswith(".log.swap"):
                b = offset_from_name(n)
                with open(os.path.join(self.dir, n), "rb") as f:
                    nxt = frames_next_offset(f.read(), b)
                lo = b if lo is None else min(lo, b)
                hi = nxt if hi is None else max(hi, nxt)
        if lo is not None:
            for n in sorted(self.files):
                o = offset_from_name(n)
                if not n.endswith(".swap") and o is not None and lo <= o < hi:
                    self.delete(n)
        self.renamed = {}
        for n in sorted(self.files):
            if n.endswith(".swap"):
                self.act("replace_with_swap", n, self.files[n])
                to = n[:-len(".swap")]
                self.files[to] = self.files.pop(n)
                self.renamed[to] = n

    def read_snapshots(self):
        for n in self.files:
            if n.endswith(".snapshot") and java_long(n[:-len(".snapshot")]) is not None:
                with open(os.path.join(self.dir, n), "rb") as f:
                    d = f.read()
                ok = (len(d) >= 10 and struct.unpack_from(">h", d, 0)[0] == 1
                      and struct.unpack_from(">I", d, 2)[0] == calc_crc32c(d[6:])
                      and (len(d) - 10) == 46 * struct.unpack_from(">i", d, 6)[0])
                self.snaps[int(n[:-len(".snapshot")])] = ok

    # ---- producer state on the snapshot files
    def truncate_and_reload(self, log_start, end):
        for o in list(self.snaps):
            if o > end or o <= log_start:
                del self.snaps[o]
        while self.snaps:
            o = max(self.snaps)
            if self.snaps[o]:
                return o
            del self.snaps[o]
        return None

    def recover_segment(self, i, action):
        seg = self.segments[i]
        self.act(action, seg.name, seg.size)
        loaded = self.truncate_and_reload(self.lso, seg.base)
        if self.first_rebuild is None:
            self.first_rebuild = ("snapshot", loaded) if loaded is not None else ("start", None)
        if i not in self.recovered:
            self.recovered.add(i)
            self.bytes_to_recover += seg.size
        before = seg.next_offset()
        cut = seg.recover()
        after = seg.next_offset()
        if cut > 0:
            self.act("truncate_segment", seg.name, cut, position=seg.size, offset=after,
                     offsets_lost=max(0, before - after))
            if before > after:
                self.cuts.append((after, before))
        self.snaps[after] = True
        return cut

    def load_segments(self):
        self.segments = []
        for n in sorted(self.files):
            if n not in self.files:
                continue
            if n.endswith((".index", ".timeindex", ".txnindex")):
                if fname(offset_from_name(n), ".log") not in self.files:
                    self.act("delete_file", n, self.files.pop(n))
            elif n.endswith(".log"):
                b = offset_from_name(n)
                self.segments.append(Segment(self.dir, b, n))
                if fname(b, ".index") not in self.files:
                    self.recover_segment(len(self.segments) - 1, "recover_segment")
                elif self.txn_index_bad(b):
                    self.recover_segment(len(self.segments) - 1, "recover_segment")

    def txn_index_bad(self, base):
        n = fname(base, ".txnindex")
        if n not in self.files:
            return False
        with open(os.path.join(self.dir, n), "rb") as f:
            d = f.read()
        for i in range(len(d) // 34):
            if struct.unpack_from(">q", d, i * 34 + 18)[0] < base:
                return True
        return False

    # ---- LogLoader.recoverLog and what follows
    def recover_log(self):
        segs = self.segments
        before = segs[-1].next_offset() if segs else self.lso
        self.end_before = before
        if self.kind == "delete":
            self.end_after, self.lost = before, 0
            self.producer = ("empty", None)
            self.log_start = max(self.lso, segs[0].base) if segs else self.lso
            return
        if not self.clean and segs:
            start = 0
            for i, s in enumerate(segs):
                if s.base <= self.rp:
                    start = i
            for i in range(start, len(segs)):
                if self.recover_segment(i, "recover_segment") > 0:
                    for s in segs[i + 1:]:
                        self.act("delete_segment", s.name, s.size)
                        self.snaps.pop(s.base, None)
                    del segs[i + 1:]
                    break
        all_deleted = False
        if segs and segs[-1].next_offset() < self.lso:
            for s in segs:
                self.act("delete_segment", s.name, s.size)
            segs.clear()
            self.snaps.clear()
            all_deleted = True
        end = segs[-1].next_offset() if segs else self.lso
        self.end_after = end
        self.log_start = max(self.lso, segs[0].base) if segs else self.lso
        self.lost = 0 if all_deleted else max(0, before - end)
        for a in self.actions:
            if a["action"] == "truncate_segment" and any(b["action"] == "delete_segment" for b in self.actions):
                a["offsets_lost"] = self.lost
        # removeStraySnapshots
        bases = {s.base for s in segs}
        strays = sorted(o for o in self.snaps if o not in bases)
        for o in strays[:-1]:
            del self.snaps[o]
        if strays and segs and strays[-1] < max(bases):
            del self.snaps[strays[-1]]
        if all_deleted:
            self.producer = ("empty", None)
        elif self.first_rebuild is not None:
            kind, off = self.first_rebuild
            if kind == "start":
                self.producer = ("rebuild_from_start", None)
            elif off == end:
                self.producer = ("snapshot", off)
            else:
                self.producer = ("rebuild_from_snapshot", off)
        elif self.clean and not self.snaps:
            self.producer = ("empty", None)
        else:
            off = self.truncate_and_reload(self.log_start, end)
            if off is None:
                self.producer = ("rebuild_from_start", None)
            elif off == end:
                self.producer = ("snapshot", off)
            else:
                self.producer = ("rebuild_from_snapshot", off)

    # ---- what the broker keeps, misses, and does to the groups
    def harm(self):
        self.damage_kept = []
        self.missing = 0
        self.lost_inside = 0
        self.groups = []
        if self.kind == "delete":
            return
        for i, seg in enumerate(self.segments):
            if i not in self.recovered and self.kind in ("plain", "future"):
                self.damage_kept += [{"file": seg.path, "position": p} for p in intact_batches(seg.data)[1]]
        if self.kind == "plain" and self.hw is not None and self.hw > self.end_after:
            self.missing = self.hw - self.end_after
        for a, b in self.cuts:
            lo, hi = max(a, self.log_start), min(b, self.end_after)
            self.lost_inside += max(0, hi - lo)
        cut = self.lost or any(a["action"] == "truncate_segment" and a["offsets_lost"] for a in self.actions)
        if self.topic == "__consumer_offsets" and self.kind == "plain" and cut:
            self.groups = self.groups_affected()

    def groups_affected(self):
        """Offset commits replayed last-write-wins (tombstones delete) from
        every intact batch of the files as they are, and from those start-up
        keeps; the keys whose offsets differ."""
        now, kept = {}, {}
        for n in sorted(self.files):
            if not n.endswith(".log"):
                continue
            with open(os.path.join(self.dir, n), "rb") as f:
                data = f.read()
            for pos, size in intact_batches(data)[0]:
                batch = MemoryRecords(bytes(data[pos:pos + size])).next_batch()
                if batch.is_control_batch:
                    continue
                recs = list(batch)
                if not recs:
                    continue
                last = max(r.offset for r in recs)
                if last < self.log_start:
                    continue
                keep = last < self.end_after and not any(last >= a and recs[0].offset < b for a, b in self.cuts)
                for r in recs:
                    rtype, key = coordfmt.decode_key(r.key)
                    if rtype not in (0, 1):
                        continue
                    k = (key["group"], key["topic"], key["partition"])
                    v = None if r.value is None else coordfmt.decode_value(rtype, r.value)[1]["offset"]
                    for table in (now, kept) if keep else (now,):
                        if v is None:
                            table.pop(k, None)
                        else:
                            table[k] = v
        out = []
        for k in sorted(set(now) | set(kept)):
            if now.get(k) != kept.get(k):
                out.append({"group": k[0], "topic": k[1], "partition": k[2],
                            "offset_now": now.get(k), "offset_after": kept.get(k)})
        return out

    # ---- the first retention pass
    def largest_timestamp(self, seg, i):
        if i in self.recovered:
            ts = seg.max_ts
        else:
            p = os.path.join(self.dir, fname(seg.base, ".timeindex"))
            ts = -1
            if os.path.exists(p):
                with open(p, "rb") as f:
                    d = f.read()
                n = len(d) // 12
                if n:
                    ts = struct.unpack_from(">q", d, (n - 1) * 12)[0]
        return ts if ts >= 0 else seg.mtime

    def retention(self):
        segs = [[s.base, s.size, self.largest_timestamp(s, i), s.path] for i, s in enumerate(self.segments)]
        self.future = sum(1 for s in segs if s[2] > self.now)
        self.deletes = []
        ms, nbytes, policy = self.settings
        if self.topic in INTERNAL_COMPACTED:
            policy = "compact"
        policies = [x.strip() for x in policy.split(",")]
        if self.kind in ("delete", "stray") or ("compact" in policies and "delete" not in policies):
            return
        leo, ls = self.end_after, self.log_start
        hw = min(max(self.hw if self.hw is not None else 0, ls), leo)
        if not segs:
            segs.append([leo, 0, self.now, None])
        state = {"ls": ls}

        def delete_old(pred, reason):
            i = 0
            while i < len(segs):
                nxt = segs[i + 1] if i + 1 < len(segs) else None
                upper = nxt[0] if nxt else leo
                if not (hw >= upper and pred(segs[i], nxt)) or (nxt is None and segs[i][1] == 0):
                    break
                i += 1
            if i == 0:
                return
            if i == len(segs):
                segs.append([leo, 0, self.now, None])
            for s in segs[:i]:
                self.deletes.append({"file": s[3], "base_offset": s[0], "reason": reason})
            del segs[:i]
            state["ls"] = max(state["ls"], segs[0][0])

        delete_old(lambda s, n: n is not None and n[0] <= state["ls"], "log_start_offset")
        total = sum(s[1] for s in segs)
        if nbytes >= 0 and total >= nbytes:
            diff = [total - nbytes]

            def size_pred(s, n):
                if diff[0] - s[1] < 0:
                    return False
                diff[0] -= s[1]
                return True
            delete_old(size_pred, "retention_bytes")
        if ms >= 0:
            delete_old(lambda s, n: self.now - s[2] > ms, "retention_ms")

    def row(self):
        state = {"plain": "online", "future": "future", "delete": "deleting", "stray": "stray"}[self.kind]
        ack = 0
        if self.lost and self.hw is not None:
            ack = max(0, min(self.hw, self.end_before) - self.end_after)
        return {"type": "partition", "datadir": self.logdir, "topic": self.topic, "partition": self.part,
                "dir": self.dir, "state": state, "recovery_point": self.rp,
                "log_start_offset": self.log_start, "log_end_offset_before": self.end_before,
                "log_end_offset_after": self.end_after, "high_watermark": self.hw,
                "offsets_lost": self.lost, "acknowledged_lost": ack,
                "segments_to_recover": len(self.recovered), "bytes_to_recover": self.bytes_to_recover,
                "producer_state": self.producer[0],
                "producer_snapshot_offset": self.producer[1],
                "retention_deletes": self.deletes, "future_timestamps": self.future,
                "acknowledged_missing": self.missing, "offsets_lost_inside": self.lost_inside,
                "damage_kept": self.damage_kept, "groups_affected": self.groups,
                "retention_source": "internal_topic" if self.topic in INTERNAL_COMPACTED else None}


def estimate(sizes, threads, rate):
    """Largest first, each to the thread that frees up first."""
    busy = [0] * max(1, min(threads, len(sizes) or 1))
    for b in sorted(sizes, reverse=True):
        i = busy.index(min(busy))
        busy[i] += b
    return max(busy) / rate if sizes else 0.0


def predict(logdirs, now, assume_unclean=False, threads=DEFAULT_THREADS, rate=DEFAULT_RATE,
            settings=(WEEK_MS, -1, "delete")):
    rows, summary = [], {"type": "summary", "datadirs": 0, "partitions": 0, "offsets_lost": 0,
                         "acknowledged_lost": 0, "estimated_recovery_seconds": 0.0, "fatal": 0}
    seen = {}
    for logdir in logdirs:
        fatal = []
        marker = os.path.exists(os.path.join(logdir, ".kafka_cleanshutdown"))
        epoch = None
        if marker:
            try:
                with open(os.path.join(logdir, ".kafka_cleanshutdown"), "rb") as f:
                    e = json.loads(f.read().decode())["brokerEpoch"]
                epoch = e if isinstance(e, int) else None
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                epoch = None
        clean = marker and not assume_unclean
        rps = read_checkpoint(os.path.join(logdir, "recovery-point-offset-checkpoint"))
        lsos = read_checkpoint(os.path.join(logdir, "log-start-offset-checkpoint"))
        hws = read_checkpoint(os.path.join(logdir, "replication-offset-checkpoint"))
        parts = []
        for n in sorted(os.listdir(logdir)):
            p = os.path.join(logdir, n)
            if not os.path.isdir(p) or n == "remote-log-index-cache":
                continue
            tp = parse_dir_name(n)
            if tp is None:
                fatal.append({"action": "fatal", "file": p, "topic": None})
                continue
            topic, part, kind = tp
            if topic == "__cluster_metadata":
                continue
            if kind in ("plain", "future"):
                key = (topic, part, kind)
                if key in seen:
                    fatal.append({"action": "fatal", "file": p, "topic": topic})
                seen[key] = p
            parts.append(Partition(logdir, n, topic, part, kind, clean, rps.get((topic, part), 0),
                                   lsos.get((topic, part), 0), hws.get((topic, part)), now, settings))
        parts.sort(key=lambda x: (x.topic, x.part, x.name))
        d_rows = []
        if marker:
            d_rows.append({"type": "action", "action": "delete_file", "topic": None,
                           "file": os.path.join(logdir, ".kafka_cleanshutdown")})
        for f in fatal:
            d_rows.append(dict(f, type="action"))
        sizes, tot = [], {"partitions": 0, "partitions_to_recover": 0, "bytes_to_recover": 0}
        for p in parts:
            p.temp_and_swap_files()
            p.read_snapshots()
            p.load_segments()
            p.recover_log()
            p.harm()
            p.retention()
            if p.kind == "delete":
                p.act("delete_partition", "", 0)
                p.actions[-1]["file"] = p.dir
            elif p.kind == "stray":
                p.act("stray_partition", "", 0)
                p.actions[-1]["file"] = p.dir
            for a in p.actions:
                d_rows.append(dict(a, type="action", topic=p.topic, partition=p.part))
            d_rows.append(p.row())
            sizes.append(p.bytes_to_recover)
            tot["partitions"] += 1
            tot["partitions_to_recover"] += 1 if p.recovered else 0
            tot["bytes_to_recover"] += p.bytes_to_recover
            summary["offsets_lost"] += p.lost
            summary["acknowledged_lost"] += p.row()["acknowledged_lost"]
        secs = estimate(sizes, threads, rate)
        rows.append(dict({"type": "datadir", "datadir": logdir, "clean_shutdown": clean, "broker_epoch": epoch,
                          "recovery_threads": threads, "recovery_rate": rate,
                          "estimated_recovery_seconds": secs, "fatal": len(fatal)}, **tot))
        rows.extend(d_rows)
        summary["datadirs"] += 1
        summary["partitions"] += tot["partitions"]
        summary["fatal"] += len(fatal)
        summary["estimated_recovery_seconds"] = max(summary["estimated_recovery_seconds"], secs)
    rows.append(summary)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--now", type=int, default=None)
    ap.add_argument("--assume-unclean", action="store_true")
    ap.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    ap.add_argument("--rate", type=int, default=DEFAULT_RATE)
    ap.add_argument("--retention-ms", type=int, default=WEEK_MS)
    ap.add_argument("--retention-bytes", type=int, default=-1)
    ap.add_argument("--cleanup-policy", default="delete")
    ap.add_argument("datadirs", nargs="+")
    a = ap.parse_args(argv)
    now = a.now if a.now is not None else int(time.time() * 1000)
    for r in predict(a.datadirs, now, a.assume_unclean, a.threads, a.rate,
                     (a.retention_ms, a.retention_bytes, a.cleanup_policy)):
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
