"""repair_load: kfsck repair's output loaded by a real broker, and
predict's recovery time against the broker's (scenario 'repair' of
tests/broker/run.py).

One KRaft node; two topics of three 1 MiB segments and one of 100 MB in a
single segment. After a clean stop a batch in the middle segment of each
of the first two fails its CRC; `kfsck repair` (and `repair --salvage` for
the second) writes repaired partition dirs, which replace the damaged ones.
The clean-shutdown file and the recovery points are removed, so the broker
recovers every segment of every log as it starts, CRC by CRC:
  - it cuts nothing of the repaired partitions (no "Found invalid
    messages", no "Corruption found"), and their log ends are repair's;
  - a consumer reads back exactly the records repair kept (offsets, keys,
    values, headers, timestamps);
  - the indexes the broker rebuilds as it recovers equal the ones repair
    wrote (DumpLogSegments on both, after a clean stop);
  - predict (`--config` the node's server.properties) names every segment
    the broker recovers, each partition's bytes to recover are the sizes of
    those segments, and its `estimated_recovery_seconds` bounds the time
    the broker logged loading the logs ("Loaded N logs in X ms"): the
    estimate assumes a cold disk read at 64 MiB/s a thread, the broker
    reads the page cache, so the bound is loose: the broker's time must
    not exceed twice the estimate plus one second (on a shared 2-core
    machine), and its rate is reported.
"""
import json
import os
import re
import shutil

import compare as c
import harness as h
import scenarios as sc

TOPIC_CFG = "segment.bytes:1048576"
LOADED_ALL = re.compile(r"Loaded (\d+) logs in (\d+)ms")
RECOVERING = re.compile(r"^\[LogLoader partition=(\S+), dir=[^\]]+\] Recovering unflushed segment (\d+)")


def damage_middle(pdir):
    """One batch in the middle of the second segment fails its CRC."""
    seg = sc.segments(pdir)[1]
    nb = len(sc.batches_of(seg))
    return (os.path.basename(seg),) + sc.flip_crc(seg, which=nb // 2)


def replace_with(pdir, repaired):
    shutil.rmtree(pdir)
    shutil.copytree(repaired, pdir)


def scenario_repair(suite, cp):
    with sc.Scenario(cp) as s:
        n = s.node(extra=sc.STARTUP_EXTRA)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        for t in ("rep-default", "rep-salvage"):
            d.cmd("topic", name=t, config=TOPIC_CFG)
            d.cmd("produce", topic=t, n=900, per=9, size=3000, headers=2, keys=50)
        d.cmd("topic", name="bulk")
        d.cmd("produce", topic="bulk", n=200, per=1, size=500000)
        n.stop()
        data = n.data
        damaged = {t: damage_middle(os.path.join(data, f"{t}-0")) for t in ("rep-default", "rep-salvage")}
        reports, kept = {}, {}
        for t, extra in (("rep-default", ()), ("rep-salvage", ("--salvage",))):
            out = s.path(f"repaired-{t}")
            rc, rows, err = h.kfsck_json("repair", *extra, "-o", out, os.path.join(data, f"{t}-0"))
            if rc not in (0, 1):
                raise AssertionError(f"kfsck repair exit {rc}: {err[:300]}")
            reports[t] = rows
            rc, recs, err = h.kfsck_json("dump", "--records", "--payload", "--decode", "none",
                                         os.path.join(out, f"{t}-0"))
            kept[t] = [r for r in recs if r["type"] == "record"]
            replace_with(os.path.join(data, f"{t}-0"), os.path.join(out, f"{t}-0"))
        # an unclean start from offset 0: every segment of every log is recovered
        os.unlink(os.path.join(data, ".kafka_cleanshutdown"))
        os.unlink(os.path.join(data, "recovery-point-offset-checkpoint"))
        seg_sizes = {os.path.basename(pd): {sc.base_of(f): os.path.getsize(f) for f in sc.segments(pd)}
                     for pd in sc.glob.glob(os.path.join(data, "*-*"))}
        pred_rc, pred, parts, acts = sc.predict_rows(data, "--config", n.config)
        ddir = next(r for r in pred if r["type"] == "datadir")
        n.start()
        lines = n.lines()
        started = sc.broker_startup(lines)
        recovered = {}
        for l in lines:
            m = RECOVERING.match(l["msg"])
            if m:
                recovered.setdefault(m.group(1), set()).add(int(m.group(2)))
        loaded = next((LOADED_ALL.search(l["msg"]) for l in lines if LOADED_ALL.search(l["msg"])), None)
        for t in ("rep-default", "rep-salvage"):
            d.cmd("readback", topic=t, out=s.path(f"readback-{t}.jsonl"))
            d.cmd("ends", topic=t, out=s.path(f"ends-{t}.jsonl"))
        n.stop()
        dumped = sc.dump_all(d, s.path("dump-after.txt"),
                             [f for f in sc.files_of(data, (".index", ".timeindex")) if "/rep-" in f] +
                             [f for t in ("rep-default", "rep-salvage")
                              for f in sc.files_of(s.path(f"repaired-{t}"), (".index", ".timeindex"))])

        for t, how in (("rep-default", "repair"), ("rep-salvage", "repair --salvage")):
            p = f"{t}-0"

            def loads(t=t, p=p, how=how):
                ev = started.get(p, {"events": [], "load": None})
                cut = [(k, v) for k, v in ev["events"] if k in ("invalid", "truncate", "invalid_offset")]
                if cut:
                    raise AssertionError(f"the broker cut the repaired partition: {cut}")
                summary = next(r for r in reports[t] if r["type"] == "summary")
                end = kept[t][-1]["offset"] + 1
                c._eq(f"{p} log end as loaded vs the repaired log's", ev["load"]["log_end"], end)
                e = h.read_jsonl(s.path(f"ends-{t}.jsonl"))[0]
                c._eq(f"{p} log end (ListOffsets)", e["log_end_offset"], end)
                c._eq(f"{p} every segment recovered", sorted(recovered.get(p, ())), sorted(seg_sizes[p]))
                seg, pos, base = damaged[t]
                return (f"{how} of a CRC failure at {seg}:{pos} (offset {base}): loaded with nothing cut, log end "
                        f"{end}; {json.dumps({k: summary[k] for k in summary if k != 'type'})[:200]}")
            suite.check(f"repair: {how}: the repaired partition recovered by the broker with nothing cut", loads)

            def reads(t=t, p=p):
                back = h.read_jsonl(s.path(f"readback-{t}.jsonl"))
                c._eq(f"{p} the consumer's offsets vs the records repair kept", [r["offset"] for r in back],
                      [r["offset"] for r in kept[t]])
                n_ = c.compare_readback(p, back, kept[t])
                return f"{n_} records read back, byte for byte those repair kept"
            suite.check(f"repair: {how}: a consumer reads back exactly the records repair kept", reads)

            def indexes(t=t, p=p):
                n_ = 0
                for f in sorted(os.listdir(os.path.join(data, p))):
                    if not f.endswith((".index", ".timeindex")):
                        continue
                    mine = os.path.join(s.path(f"repaired-{t}"), p, f)
                    kind = c.compare_index if f.endswith(".index") else c.compare_timeindex
                    want = dumped[os.path.join(data, p, f)]
                    rows = [dict(type="index_entry", **x) for x in index_rows(dumped[mine], f)]
                    n_ += kind(f"{p}/{f}", want, rows)
                return f"{n_} entries equal"
            suite.check(f"repair: {how}: the .index/.timeindex repair wrote vs the broker's own rebuild", indexes)

        def recovery():
            rows = []
            for p, bases in sorted(recovered.items()):
                if p == "__cluster_metadata-0":
                    continue  # the raft layer's, before LogManager: not in "Loaded N logs"
                part = parts.get(p)
                if part is None:
                    raise AssertionError(f"predict has no partition line for {p}")
                c._eq(f"{p} bytes_to_recover vs the segments the broker recovered", part["bytes_to_recover"],
                      sum(seg_sizes[p][b] for b in bases))
                rows.append(part["bytes_to_recover"])
            c._eq("datadir bytes_to_recover", ddir["bytes_to_recover"], sum(rows))
            if loaded is None:
                raise AssertionError("no 'Loaded N logs in X ms' line")
            secs = int(loaded.group(2)) / 1000
            est = ddir["estimated_recovery_seconds"]
            rate = ddir["bytes_to_recover"] / max(secs, 0.001) / 2**20
            if secs > 2 * est + 1:
                raise AssertionError(f"the broker took {secs:.2f} s to load {loaded.group(1)} logs, predict estimated "
                                     f"{est:.2f} s ({ddir['bytes_to_recover']} bytes, {ddir['recovery_threads']} "
                                     f"thread(s) at {ddir['recovery_rate']} B/s)")
            return (f"{ddir['bytes_to_recover']} bytes in {len(rows)} logs: the broker took {secs:.2f} s "
                    f"({rate:.0f} MiB/s), predict estimated {est:.2f} s at {ddir['recovery_rate'] / 2**20:.0f} MiB/s "
                    f"x {ddir['recovery_threads']} thread(s)")
        suite.check("repair: predict's bytes_to_recover and estimated_recovery_seconds vs the broker's recovery "
                    "(loose bound)", recovery)


def index_rows(lines, name):
    """DumpLogSegments' index lines as kfsck's index_entry fields."""
    out = []
    for l in lines:
        m = re.match(r"^offset: (\d+) position: (\d+)$", l)
        if m and name.endswith(".index"):
            out.append({"offset": int(m.group(1)), "position": int(m.group(2))})
        m = re.match(r"^timestamp: (-?\d+) offset: (\d+)$", l)
        if m and name.endswith(".timeindex"):
            out.append({"timestamp": int(m.group(1)), "offset": int(m.group(2))})
    return out


ALL = [("repair", scenario_repair)]
