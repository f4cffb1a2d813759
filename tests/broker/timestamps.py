"""timestamps: records whose producer's clock is off, and the retention
they hold back (scenario 'timestamps' of tests/broker/run.py).

One KRaft node; a topic with retention.ms and segment.ms of an hour and
1 MiB segments. Batches carry create timestamps two hours old (a new
segment starts when a batch's largest timestamp is more than segment.ms
after the segment's first: LogSegment.shouldRoll), so: segment A old,
segment B old but for one record 30 minutes in the future, segment C old
(rolled by size), then D, a batch of now. kfsck predict forecasts the first retention pass
(`retention_deletes`, `future_timestamps`) on the stopped node's files; the
node is started again with retention checked every half second, and the
segments it deletes and the log start it then has (ListOffsets earliest)
are compared: A goes; B's future timestamp holds B back, and C with it,
however old C is.
"""
import os
import re

import compare as c
import harness as h
import scenarios as sc

HOUR = 3600000
DELETING = re.compile(r"Deleting segment LogSegment\(baseOffset=(\d+)")
FIRST = {"log.initial.task.delay.ms": 600000, "log.retention.check.interval.ms": 600000}
THEN = {"log.initial.task.delay.ms": 500, "log.retention.check.interval.ms": 500}


def scenario_timestamps(suite, cp):
    with sc.Scenario(cp) as s:
        n = s.node(extra=FIRST)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        d.cmd("topic", name="skew", config=f"retention.ms:{HOUR},segment.ms:{HOUR},segment.bytes:1048576")
        # A: old; B (rolled by time: 2.5 h after A's first timestamp): one record
        # 30 min ahead; C: old, rolled by size (B and C pass 1 MiB); D: now,
        # rolled by time (2 h after C's first timestamp), the active segment
        d.cmd("produce", topic="skew", n=5, per=5, ts=-2 * HOUR)
        d.cmd("produce", topic="skew", n=5, per=5, ts=-2 * HOUR, skew=f"2:{HOUR // 2}", prefix="b-", size=150000)
        d.cmd("produce", topic="skew", n=5, per=5, ts=-2 * HOUR, prefix="c-", size=150000)
        d.cmd("produce", topic="skew", n=5, per=5, prefix="now-")
        n.stop()
        bases = [sc.base_of(f) for f in sc.segments(os.path.join(n.data, "skew-0"))]
        rc, pred, parts, acts = sc.predict_rows(n.data)
        part = parts["skew-0"]
        n.extra.update(THEN)
        n.write_config()
        n.start()
        h.wait_for(lambda: any("partition=skew-0," in l["msg"] and DELETING.search(l["msg"]) for l in n.lines()),
                   30, "the retention pass to delete a segment of skew-0")
        h.time.sleep(1.5)  # more passes: nothing else goes
        d.cmd("ends", topic="skew", out=s.path("ends.jsonl"))
        deleted = sorted({int(m.group(1)) for l in n.lines() if "partition=skew-0," in l["msg"]
                          for m in [DELETING.search(l["msg"])] if m})
        n.stop()
        e = h.read_jsonl(s.path("ends.jsonl"))[0]

        def retention():
            c._eq("segments written (A, B, C, D)", len(bases), 4)
            fc = sorted(x["base_offset"] for x in part.get("retention_deletes") or [])
            c._eq("skew-0 retention_deletes vs the segments the broker deleted", fc, deleted)
            c._eq("skew-0 log start after the pass (ListOffsets earliest)", e["log_start_offset"], bases[1])
            c._eq("skew-0 future_timestamps (segments with a timestamp after now)", part.get("future_timestamps"), 1)
            return (f"segments {bases}: the broker deleted {deleted}, log start {e['log_start_offset']}; "
                    f"predict: {fc}, {part.get('future_timestamps')} segment with a future timestamp")
        suite.check("timestamps: predict's first retention pass vs the broker's, a future timestamp holding it "
                    "back", retention)

        def indexes():
            # the time index keeps the largest timestamp so far: the skewed record's
            dumped = sc.dump_all(d, s.path("dump.txt"), sc.files_of(n.data, (".log", ".timeindex")))
            sc.compare_files(suite, "timestamps", n.data, {k: v for k, v in dumped.items() if "/skew-0/" in k})
            return f"{len(dumped)} files"
        indexes()


ALL = [("timestamps", scenario_timestamps)]
