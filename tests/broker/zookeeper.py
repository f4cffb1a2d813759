"""zookeeper: a ZooKeeper-era data dir, written by a real ZooKeeper-mode
broker (scenario 'zookeeper' of tests/broker/run.py).

Most data dirs met in the field come from ZooKeeper-mode brokers: a
`meta.properties` of version 0 with `broker.id`, no `__cluster_metadata`,
and on clusters still at an old inter.broker.protocol.version, message
format v0 and v1 data. Kafka 4.x has no ZooKeeper mode, so this scenario
runs the ZooKeeper server and a Kafka 3.9 broker of tests/broker/zk/pom.xml
(inter.broker.protocol.version 2.8, which still honours a topic's
message.format.version), written to by the 4.4 client of our driver:
  - every file it wrote against DumpLogSegments (4.4's, which reads every
    magic) and each record's bytes against what the consumer read back:
    magic 0 (0.9.0) and magic 1 (0.10.2) topics converted by the broker at
    append, uncompressed and gzip/snappy/lz4 wrappers, and magic 2
    (idempotent and transactional); verify on the whole data dir;
  - offsets and groups against kafka-consumer-groups on the live broker
    (the old offset-commit and group-metadata value versions);
  - the broker id kfsck scan takes from meta.properties v0;
  - a crash (SIGKILL) and a torn tail in a magic-1 segment: predict
    against the 3.9 broker's own start-up and ListOffsets.
The scenario is skipped, with one line saying why, when Maven cannot
resolve the 3.9 release.
"""
import os

import compare as c
import harness as h
import scenarios as sc

# ZooKeeper keeps a killed broker's registration until its session expires
# (the server's minimum, 2 ticks of 3 s, is what a 4 s request gets): short
# sessions, and a pause after the kill
IBP = {"inter.broker.protocol.version": "2.8", "zookeeper.session.timeout.ms": 4000}
SESSION_GONE = 7.5
TOPICS = {  # topic: (message.format.version or None, codec)
    "zk-v0-none": ("0.9.0", "none"), "zk-v0-snappy": ("0.9.0", "snappy"),
    "zk-v1-none": ("0.10.2", "none"), "zk-v1-gzip": ("0.10.2", "gzip"), "zk-v1-lz4": ("0.10.2", "lz4"),
    "zk-v2-zstd": (None, "zstd"),
}


def scenario_zookeeper(suite, cp):
    try:
        zk_cp = h.zk_classpath()
    except h.Unavailable as e:
        print(f"  (zookeeper: skipped: Kafka {h.kafka_version(h.ZK_POM)} in ZooKeeper mode cannot be had: {e})",
              flush=True)
        return
    with sc.Scenario(cp) as s:
        zk = h.ZooKeeper(zk_cp, s.work.path)
        try:
            n = h.ZkBroker(zk_cp, s.work.path, zk, extra=dict(IBP, **sc.STARTUP_EXTRA))
            s.nodes.append(n)
            n.start()
            d = s.driver(n.bootstrap)
            for t, (fmt, codec) in TOPICS.items():
                d.cmd("topic", name=t, partitions=1, config=f"message.format.version:{fmt}" if fmt else "")
                legacy = fmt is not None
                d.cmd("produce", topic=t, n=60, per=6, codec=codec, keys=7, size=80, binary="true",
                      headers=0 if legacy else 2, idempotent="false" if legacy else "true", acks="1")
            d.cmd("topic", name="zk-tx", partitions=1)
            d.cmd("txn", id="zk-commit", topic="zk-tx", n=8, end="commit", group="g-zk-txn")
            d.cmd("txn", id="zk-abort", topic="zk-tx", n=6, end="abort")
            d.cmd("consume", group="g-zk", topic="zk-v1-gzip", max=33)
            d.cmd("consume", group="g-zk2", topic="zk-v0-none", max=21)
            readbacks = {}
            for t in list(TOPICS) + ["zk-tx"]:
                out = s.path(f"readback-{t}.jsonl")
                d.cmd("readback", topic=t, out=out)
                for r in h.read_jsonl(out):
                    readbacks.setdefault(f"{t}-{r['partition']}", []).append(r)
            groups = sc.describe_groups(d, s.path("groups"), n.bootstrap)
            n.stop()
            dumped = sc.dump_all(d, s.path("dump.txt"), sc.files_of(n.data))
            sc.compare_files(suite, "zookeeper", n.data, dumped, readbacks)
            sc.verify_clean(suite, "zookeeper", n.data, dumped)

            def magics():
                seen = {}
                for path, lines in dumped.items():
                    if path.endswith(".log"):
                        t = os.path.basename(os.path.dirname(path)).rsplit("-", 1)[0]
                        seen.setdefault(t, set()).update(int(b["magic"]) for b in c.parse_log_dump(lines)[0])
                want = {t: {0 if fmt == "0.9.0" else 1 if fmt else 2} for t, (fmt, _) in TOPICS.items()}
                c._eq("magic of each topic's batches as the broker wrote them", {t: seen.get(t) for t in want}, want)
                return ", ".join(f"{t}: v{min(v)}" for t, v in sorted(want.items()))
            suite.check("zookeeper: the broker wrote message formats v0, v1 and v2", magics)

            def offsets():
                rc, rows, err = h.kfsck_json("offsets", n.data)
                return sc.compare_offsets("zookeeper", n.data, groups["offsets"], rows)
            suite.check("zookeeper: offsets vs kafka-consumer-groups --describe --offsets", offsets)

            def grp():
                rc, rows, err = h.kfsck_json("groups", n.data)
                return sc.compare_groups("zookeeper", groups["state"], groups["members"], rows)
            suite.check("zookeeper: groups vs kafka-consumer-groups --describe --state --members", grp)

            def meta():
                with open(os.path.join(n.data, "meta.properties")) as f:
                    text = f.read()
                c._eq("meta.properties is version 0 with broker.id", ("version=0" in text, "broker.id=1" in text),
                      (True, True))
                rc, rows, err = h.kfsck_json("scan", n.data)
                brokers = {r["broker"] for r in rows if r["type"] == "partition"}
                c._eq("scan's broker (from broker.id)", brokers, {1})
                return "meta.properties v0, broker 1"
            suite.check("zookeeper: scan's broker id vs meta.properties v0", meta)

            # a crash while the broker holds magic-1 data, then a torn tail
            n.start()
            d.cmd("produce", topic="zk-v1-gzip", n=24, per=6, codec="gzip", size=80, idempotent="false", acks="1",
                  prefix="2-")
            n.kill()
            killed = h.time.monotonic()
            torn = os.path.join(n.data, "zk-v1-gzip-0")
            sc.tear_tail(torn)
            pred_rc, pred, parts, acts = sc.predict_rows(n.data, "--config", n.config)
            h.time.sleep(max(0, SESSION_GONE - (h.time.monotonic() - killed)))  # its ZooKeeper session expires
            n.start()
            started = sc.broker_startup(n.lines())
            # a ZooKeeper-mode broker serves its partitions once its controller
            # has sent it their metadata, a moment after "started"
            def ends():
                try:
                    return d.cmd("ends", topic="zk-v1-gzip", out=s.path("ends-after.jsonl"))
                except h.DriverError:
                    return None
            h.wait_for(ends, 60, "ListOffsets on the restarted ZooKeeper-mode broker", step=1)
            n.stop()
            after = sc.scan_ends(n.data)
            sizes = {os.path.basename(f): os.path.getsize(f) for f in sc.segments(torn)}
            p = "zk-v1-gzip-0"
            suite.check(f"zookeeper: predict torn magic-1 tail after SIGKILL: {p} vs the 3.9 broker's start-up",
                        lambda: sc.compare_startup("zookeeper", p, parts.get(p), acts.get(p, []), started,
                                                   after.get(p, {}).get("log_end_offset"), sizes))

            def listed():
                e = h.read_jsonl(s.path("ends-after.jsonl"))[0]
                c._eq(f"{p} log end (ListOffsets)", parts[p]["log_end_offset_after"], e["log_end_offset"])
                return str(e["log_end_offset"])
            suite.check(f"zookeeper: predict torn magic-1 tail after SIGKILL: {p} log end vs ListOffsets", listed)
        finally:
            for x in s.nodes:
                if x.running():
                    x.kill()
            zk.stop()


ALL = [("zookeeper", scenario_zookeeper)]
