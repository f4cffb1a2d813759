"""sink_model: the storage-sink catch-up simulation of kfsck's contract
(docs/kfsck.1, stats, the sink catch-up simulation), written
from the contract's words and independent of the C code, for the tests'
expected figures (tests/e2e/test_stats_sink*.py) and the guide's worked
example.

Reading: segments are framed here and their records decoded by
kafka-python (MemoryRecords); a batch whose CRC does not match or whose
records do not decode is skipped.

The rules:
  * records in offset order per topic partition; control records are not
    records a sink sees; a record with no timestamp (magic 0, or -1) cannot
    be placed by a time-based partitioner and is left out;
  * where the connector resumes: --from-offset N: the records at offsets
    >= N; --from-time MS: Kafka's offsetsForTimes, the first batch (control
    batches included) whose max timestamp is >= MS and in it the first
    record whose timestamp is >= MS; --from-group G: the group's committed
    offset as `offsets` rebuilds it, or the log start without a commit;
  * bucket = floor(timestamp / duration); a bucket with no open file opens
    one; all open files are committed together after flush.size records
    written since the last commit, with --rotate-interval also before a
    record whose bucket differs from the previous record's or whose
    timestamp is at least the interval past the first record written since
    the last commit, and with --rotate-schedule-interval each time interval
    (seconds) x catch-up rate records have been written since the previous
    scheduled commit (the first counted from the first record); files
    still open at the end are not committed;
  * peak_at_offset: the record that first brought the open files to the
    peak; peak_buffer_bytes = peak x part size; per topic the sum of the
    partitions' peaks (an upper bound: reached only if every partition
    peaks at once);
  * --tasks N: partitions round-robin over N tasks in (topic, partition)
    order, the first to task 0; the verdict: the sum of every peak buffer
    (the tasks of one worker share its heap) against --heap: "fits" when it
    is at most the heap (the JSON rule), though buffers that fill the heap
    exactly leave nothing for the worker itself;
  * the levers that choose a value against the heap (s3.part.size,
    tasks.max) choose one whose buffers stay below it, and tasks.max is
    always more than the tasks configured.
"""
import glob
import os
import struct

from kafka.record.memory_records import MemoryRecords

MIB = 1 << 20
MIN_PART_SIZE = 5 * MIB      # s3.part.size's minimum
TINY_FILE_RECORDS = 1000     # files of fewer records flood object storage


# ---- reading segments with kafka-python --------------------------------------

class Batch:
    def __init__(self, control, max_ts, records):
        self.control, self.max_ts, self.records = control, max_ts, records


def read_segment(path):
    """The intact batches of a segment: (control, max timestamp, [(offset,
    timestamp)]) with -1 for no timestamp; returns (batches, damaged count)."""
    with open(path, "rb") as f:
        data = f.read()
    out, damaged, pos = [], 0, 0
    while pos + 17 <= len(data):
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if size < 14 or pos + 12 + size > len(data):
            break
        entry = data[pos:pos + 12 + size]
        pos += 12 + size
        magic = entry[16]
        b = MemoryRecords(entry).next_batch()
        if not b.validate_crc():
            damaged += 1
            continue
        try:
            recs = [(r.offset, -1 if r.timestamp is None else r.timestamp) for r in b]
        except Exception:   # noqa: BLE001 (a batch that does not decode is skipped)
            damaged += 1
            continue
        if magic == 2:
            attrs = struct.unpack_from(">h", entry, 21)[0]
            max_ts = struct.unpack_from(">q", entry, 35)[0]
            control = bool(attrs & 0x20)
        else:
            max_ts = struct.unpack_from(">q", entry, 18)[0] if magic == 1 else -1
            control = False
        out.append(Batch(control, max_ts, recs))
    return out, damaged


def read_partition(path):
    """Every segment of the partition directory `path`, in file name order."""
    batches, damaged = [], 0
    for seg in sorted(glob.glob(os.path.join(path, "*.log"))):
        b, d = read_segment(seg)
        batches += b
        damaged += d
    return batches, damaged


# ---- where the connector resumes ---------------------------------------------

def resume(batches, from_offset=None, from_time=None):
    """(resume offset or None, [(offset, ts)] the connector reads, control records)."""
    start = None
    if from_offset is not None:
        start = from_offset
    elif from_time is not None:
        for b in batches:
            if b.max_ts >= from_time:
                hit = [o for o, ts in b.records if ts >= from_time]
                if hit:
                    start = hit[0]
                    break
        if start is None:
            return None, [], 0
    recs = [r for b in batches if not b.control for r in b.records if start is None or r[0] >= start]
    ctl = sum(1 for b in batches if b.control for r in b.records if start is None or r[0] >= start)
    if start is None and batches:
        start = min(r[0] for b in batches for r in b.records)
    return start, recs, ctl


# ---- the simulation ----------------------------------------------------------

def schedule_records(interval_ms, rate):
    """rotate.schedule.interval.ms in records written: interval (seconds) x
    records per second, at least one."""
    return max(1, interval_ms * rate // 1000)


def simulate(records, duration, flush, rotate=None, schedule=None):
    """One partition's [(offset, ts)] (placeable records, offset order)."""
    open_files = set()
    since = since_scheduled = 0
    first_ts = prev_bucket = None
    committed = peak = written = 0
    peak_at = None

    def commit():
        nonlocal committed, open_files, since
        committed += len(open_files)
        open_files = set()
        since = 0

    for off, ts in records:
        bucket = ts // duration
        if rotate and since > 0 and (bucket != prev_bucket or ts - first_ts >= rotate):
            commit()
        if since == 0:
            first_ts = ts
        open_files.add(bucket)
        since += 1
        written += 1
        prev_bucket = bucket
        if len(open_files) > peak:
            peak, peak_at = len(open_files), off
        scheduled = False
        if schedule:
            since_scheduled += 1
            if since_scheduled == schedule:
                since_scheduled = 0
                scheduled = True
        if scheduled or since >= flush:
            commit()
    return {"written": written, "committed": committed, "peak": peak, "peak_at": peak_at,
            "open": len(open_files)}


def expect_dir(path, duration, flush, rotate=None, from_offset=None, from_time=None, schedule=None):
    """The figures of the partition directory `path`, with the alternatives
    the suggestion compares with (rotate.interval.ms = the duration, and
    flush.size / 10) when no rotate interval is given."""
    batches, damaged = read_partition(path)
    start, recs, ctl = resume(batches, from_offset, from_time)
    placed = [(o, ts) for o, ts in recs if ts >= 0]
    e = {"resume": start, "records": len(recs), "no_ts": len(recs) - len(placed), "control": ctl,
         "damaged": damaged, "sim": simulate(placed, duration, flush, rotate, schedule)}
    if not rotate:
        e["alt_rotate"] = simulate(placed, duration, flush, duration, schedule)
        e["alt_flush"] = simulate(placed, duration, max(flush // 10, 1), None, schedule) if flush > 1 else None
    return e


# ---- tasks, the heap, the levers ---------------------------------------------

def assign_tasks(keys, tasks):
    """{(topic, partition): task}: round-robin in (topic, partition) order."""
    return {k: i % tasks for i, k in enumerate(sorted(keys))}


def task_table(peaks, assignment, topic, tasks, part_size):
    """sink_summary.tasks of one topic: every task 0..N-1 with the count and
    the peaks of this topic's partitions it holds."""
    rows = []
    for t in range(tasks):
        mine = [p for k, p in peaks.items() if k[0] == topic and assignment[k] == t]
        rows.append({"task": t, "partitions": len(mine), "peak_open_files": sum(mine),
                     "peak_buffer_bytes": sum(mine) * part_size})
    return rows


def verdict(total_peak_files, part_size, heap):
    total = total_peak_files * part_size
    return {"peak_buffer_bytes": total, "heap": heap,
            "verdict": None if heap is None else ("fits" if total <= heap else "exceeds")}


def largest_task(partition_peaks, tasks):
    """The largest sum of the peaks that one of `tasks` tasks holds, the
    partitions (in partition order) dealt round-robin."""
    sums = [0] * tasks
    for i, p in enumerate(partition_peaks):
        sums[i % tasks] += p
    return max(sums) if sums else 0


def levers(topic_sim, alt_rotate, alt_flush, flush, duration, rotate, part_size, heap, partition_peaks, tasks=1):
    """The suggestion's levers of one topic, each alone (the man page's
    words): [(setting, value, peak open files, peak buffer bytes, files
    committed, records per file, tiny, verdict)] for those that apply.
    topic_sim/alt_*: the topic's sums {"peak", "committed", "written",
    "open"} (alt_flush None when flush.size is 1); tasks: --tasks."""
    out = []

    def lever(setting, value, peak, ps, sim):
        files = sim["committed"] + sim["open"]
        per_file = sim["written"] // files if files else 0
        buffers = peak * ps
        out.append({"setting": setting, "value": value, "peak_open_files": peak, "peak_buffer_bytes": buffers,
                    "files_committed": sim["committed"], "records_per_file": per_file,
                    "tiny_files": sim["committed"] > 0 and per_file < TINY_FILE_RECORDS,
                    "verdict": None if heap is None else ("fits" if buffers <= heap else "exceeds")})

    if not rotate:
        # rotate.interval.ms = partition.duration.ms; flush.size / 10
        lever("rotate.interval.ms", duration, alt_rotate["peak"], part_size, alt_rotate)
        if alt_flush is not None:
            lever("flush.size", max(flush // 10, 1), alt_flush["peak"], part_size, alt_flush)
    peak = topic_sim["peak"]
    if part_size > MIN_PART_SIZE and peak:
        # the largest whole MiB whose buffers stay below the heap (room for
        # the worker itself), at least 5 MiB
        ps = MIN_PART_SIZE
        if heap is not None:
            ps = MIN_PART_SIZE
            while (ps + MIB) * peak < heap:
                ps += MIB
        if ps < part_size:
            lever("s3.part.size", ps, peak, ps, topic_sim)
    n = len(partition_peaks)
    if n > tasks:
        # tasks.max = K on K workers, K more than --tasks (and at least 2):
        # the fewest whose largest task stays below the heap, else (and
        # without a heap) one partition per task
        k, big = n, largest_task(partition_peaks, n)
        if heap is not None:
            for cand in range(max(2, tasks + 1), n + 1):
                if largest_task(partition_peaks, cand) * part_size < heap:
                    k, big = cand, largest_task(partition_peaks, cand)
                    break
        lever("tasks.max", k, big, part_size, topic_sim)
    return out


def topic_sums(exps):
    """The topic's sums of expect_dir results: (sim, alt_rotate, alt_flush)."""
    def add(key):
        if any(e.get(key) is None for e in exps):
            return None
        return {f: sum(e[key][f] for e in exps) for f in ("peak", "committed", "written", "open")}
    return add("sim"), add("alt_rotate"), add("alt_flush")
