"""cleaner: kfsck compaction against the broker's own log cleaner (scenario
'compaction' of tests/broker/run.py).

One KRaft node started with the cleaner off. Two compacted topics, every
record its own uncompressed batch (so bytes can be counted exactly):
`compact` (keys written over and over, tombstones among them) and
`compact-pinned` (the same, with a transaction left open in its second
segment). A record with a new key after segment.ms makes a new active
segment of one record. After a clean stop `kfsck compaction` forecasts each
cleaning; the node is started again with the cleaner on, it cleans both,
and is stopped: the cleaner's "dirty section" and the
`cleaner-offset-checkpoint` against kfsck's first dirty and first
uncleanable offsets (the open transaction's first offset for the pinned
topic), the records left (DumpLogSegments) against kfsck's keys and live
records, the sizes of the batches the cleaning removed against kfsck's
reclaimable bytes plus their 61-byte headers, and every cleaned file
against DumpLogSegments (delete horizons set on the tombstones' batches).
"""
import os
import re
import time

import compare as c
import harness as h
import scenarios as sc

# cleaner off for the forecast, on (fast) for the cleaning
EXTRA = {"log.cleaner.enable": "false", "log.cleaner.backoff.ms": 300}
TOPIC_CFG = "cleanup.policy:compact,segment.bytes:1048576,segment.ms:3000,min.cleanable.dirty.ratio:0.1"
DIRTY = re.compile(r"cleaned log (?P<part>\S+) \(dirty section = \[(?P<first>\d+), (?P<end>\d+)\]\)")


def cleaner_checkpoint(data, part):
    return sc.checkpoint_value(os.path.join(data, "cleaner-offset-checkpoint"), part)


def log_bytes(pdir):
    return sum(os.path.getsize(f) for f in sc.segments(pdir))


def records_left(dumped, pdir):
    """(data records, distinct keys, batches, empty batches) of a partition
    as DumpLogSegments reads it."""
    recs, keys, nb, empty = 0, set(), 0, 0
    for path, lines in dumped.items():
        if os.path.dirname(path) != pdir or not path.endswith(".log"):
            continue
        batches, _ = c.parse_log_dump(lines)
        for b in batches:
            nb += 1
            if not b["records"]:
                empty += 1
            if b["control"] == "true":
                continue
            for r in b["records"]:
                recs += 1
                keys.add(r["key_text"])
    return recs, len(keys), nb, empty


def batch_sizes(dumped, pdir):
    """{base offset: size} of every batch of a partition (DumpLogSegments)."""
    out = {}
    for path, lines in dumped.items():
        if os.path.dirname(path) == pdir and path.endswith(".log"):
            for b in c.parse_log_dump(lines)[0]:
                out[int(b["base_offset"])] = int(b["size"])
    return out


def scenario_compaction(suite, cp):
    with sc.Scenario(cp) as s:
        n = s.node(extra=EXTRA)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        for t in ("compact", "compact-pinned"):
            d.cmd("topic", name=t, config=TOPIC_CFG)
        common = dict(per=1, idempotent="false", acks="1")
        d.cmd("produce", topic="compact", n=1300, keys=40, tombstones=9, size=2000, **common)
        d.cmd("produce", topic="compact-pinned", n=300, keys=30, size=4000, **common)
        d.cmd("txn", id="pin", topic="compact-pinned", n=5, per=5, end="open")
        d.cmd("produce", topic="compact-pinned", n=300, keys=30, size=4000, prefix="2-", **common)
        time.sleep(3.2)  # segment.ms: the next record starts a new segment
        for t in ("compact", "compact-pinned"):
            d.cmd("produce", topic=t, n=1, prefix="roll-", **common)
            d.cmd("ends", topic=t, out=s.path(f"ends-{t}.jsonl"))
        ends = {t: h.read_jsonl(s.path(f"ends-{t}.jsonl"))[0] for t in ("compact", "compact-pinned")}
        n.stop()
        data = n.data
        rc, rows, err = h.kfsck_json("compaction", data)
        fc = {f"{r['topic']}-{r['partition']}": r for r in rows if r["type"] == "compaction"}
        before_files = sc.files_of(data, (".log",))
        before = sc.dump_all(d, s.path("dump-before.txt"), [f for f in before_files if "/compact" in f])
        sizes = {p: log_bytes(os.path.join(data, p)) for p in ("compact-0", "compact-pinned-0")}

        n.extra["log.cleaner.enable"] = "true"
        n.write_config()
        n.start()
        h.wait_for(lambda: {m.group("part") for l in n.lines() for m in [DIRTY.search(l["msg"])] if m}
                   >= {"compact-0", "compact-pinned-0"}, 90, "the cleaner to clean both logs")
        cleaned = {}
        for l in n.lines():
            m = DIRTY.search(l["msg"])
            if m:
                cleaned.setdefault(m.group("part"), (int(m.group("first")), int(m.group("end"))))
        n.stop()
        after_files = sc.files_of(data)
        after = sc.dump_all(d, s.path("dump-after.txt"), [f for f in after_files if "/compact" in f])

        for p in ("compact-0", "compact-pinned-0"):
            def section(p=p):
                f = fc.get(p)
                if f is None:
                    raise AssertionError(f"kfsck compaction has no line for {p}")
                c._eq(f"{p} would_clean", f["would_clean"], True)
                first, end = cleaned[p]
                c._eq(f"{p} first dirty offset vs the cleaner's dirty section", f["first_dirty_offset"], first)
                # the cleaning ends before the segment holding the first uncleanable offset
                c._eq(f"{p} first_uncleanable_segment vs the cleaner's dirty section end",
                      f["first_uncleanable_segment"], end)
                c._eq(f"{p} first_uncleanable_segment vs cleaner-offset-checkpoint after the cleaning",
                      f["first_uncleanable_segment"], cleaner_checkpoint(data, p))
                return (f"dirty section [{first}, {end}], checkpoint {cleaner_checkpoint(data, p)}; kfsck: first "
                        f"uncleanable {f['first_uncleanable_offset']} ({f['uncleanable_reason']}) in the segment at "
                        f"{f['first_uncleanable_segment']}, ratio {f['dirty_ratio']}")
            suite.check(f"compaction: {p}: first dirty and uncleanable offsets vs the cleaner's dirty section and "
                        "checkpoint", section)

        def pinned():
            f = fc["compact-pinned-0"]
            c._eq("uncleanable_reason", f["uncleanable_reason"], "last_stable_offset")
            c._eq("pinned_by first_offset vs ListOffsets(read_committed)", (f["pinned_by"] or {}).get("first_offset"),
                  ends["compact-pinned"]["last_stable_offset"])
            return f"pinned by producer {f['pinned_by']['producer_id']} at {f['pinned_by']['first_offset']}"
        suite.check("compaction: compact-pinned-0: the open transaction pinning the cleaning vs ListOffsets "
                    "(read_committed)", pinned)

        def kept():
            p = "compact-0"
            f = fc[p]
            pdir = os.path.join(data, p)
            recs, keys, nb_after, empty = records_left(after, pdir)
            c._eq(f"{p} keys vs the distinct keys left", f["keys"], keys)
            c._eq(f"{p} live_records vs the records left", f["live_records"], recs)
            # every record its own batch: the batches the cleaner removed are
            # kfsck's superseded records, each with its 61-byte header
            b0, b1 = batch_sizes(before, pdir), batch_sizes(after, pdir)
            removed = [o for o in b0 if o not in b1]
            c._eq(f"{p} reclaimable_bytes + 61 x {len(removed)} vs the sizes of the batches the cleaner removed",
                  f["reclaimable_bytes"] + 61 * len(removed), sum(b0[o] for o in removed))
            grown = sum(b1[o] - b0[o] for o in b1 if o in b0)
            freed = sizes[p] - log_bytes(pdir)
            c._eq(f"{p} bytes freed", freed, sum(b0[o] for o in removed) - grown)
            return (f"{recs} records of {keys} keys left ({empty} empty batches), {len(removed)} batches removed, "
                    f"{freed} bytes freed (reclaimable {f['reclaimable_bytes']}; kept batches grew {grown} bytes: "
                    f"the tombstones' delete horizons)")
        suite.check("compaction: compact-0: keys, records and bytes a full cleaning leaves vs the cleaner's", kept)
        sc.compare_files(suite, "compaction: cleaned", data, {k: v for k, v in after.items() if "/compact-0/" in k})


ALL = [("compaction", scenario_compaction)]
