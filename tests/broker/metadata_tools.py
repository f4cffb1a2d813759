"""metadata_tools: kfsck metadata against Kafka's admin tools, and a
damaged KRaft snapshot against a node's start-up (scenario 'metadata' of
tests/broker/run.py).

One KRaft node that writes metadata snapshots every few seconds. Topics
are created with configs, one gets more partitions, one is deleted, a
config is deleted, cluster-wide and per-broker dynamic configs are set.
`kfsck metadata` on the live node's files (the newest snapshot, then the
log) is held against `kafka-topics --describe`, `kafka-configs --describe`
(topics, the brokers' default, broker 1), `kafka-features describe`,
`kafka-cluster cluster-id` and `kafka-metadata-quorum describe --status`
(`kafka-metadata-shell` has no Maven artifact for 4.4.0). Then the node is
stopped and its newest snapshot damaged twice, each time on a copy of the
stopped files: one byte of a data batch flipped (a CRC failure), and the
snapshot cut short inside its last data batch. `kfsck predict` says
whether the node starts (and, when its metadata loader fails on a record,
which one); the node is started to see, and when it starts,
what it then describes is held against `kfsck metadata` of the damaged
files.
"""
import glob
import os
import re
import shutil

import compare as c
import harness as h
import scenarios as sc

TOPICS = "org.apache.kafka.tools.TopicCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"
FEATURES = "org.apache.kafka.tools.FeatureCommand"
CLUSTER = "org.apache.kafka.tools.ClusterTool"
QUORUM = "org.apache.kafka.tools.MetadataQuorumCommand"

NODE_EXTRA = {"metadata.log.max.snapshot.interval.ms": 3000}


def tool(d, s, name, cls, *args):
    code, text, err = d.tool(s.path(f"{name}.txt"), cls, *args)
    if code != 0:
        raise AssertionError(f"{name} exited {code}: {text[-200:]} {err[-400:]}")
    return text


def parse_topics(text):
    """kafka-topics --describe: {topic: {"id", "partitions", "configs",
    "parts": {p: {"leader", "replicas", "isr", "elr", "last_known_elr"}}}}."""
    out = {}

    def ids(v):
        return [int(x) for x in v.split(",") if x.strip()]
    for line in text.split("\n"):
        f = dict(re.findall(r"(\w+): ([^\t]*)", line))
        if "TopicId" in f:
            cfg = {}
            for kv in f.get("Configs", "").split(","):
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    cfg[k.strip()] = v.strip()
            out[f["Topic"]] = {"id": f["TopicId"].strip(), "partitions": int(f["PartitionCount"]), "configs": cfg,
                               "parts": {}}
        elif "Partition" in f and f.get("Topic") in out:
            out[f["Topic"]]["parts"][int(f["Partition"])] = {
                "leader": -1 if f["Leader"].strip() == "none" else int(f["Leader"]),
                "replicas": ids(f["Replicas"]), "isr": ids(f["Isr"]), "elr": ids(f.get("Elr", "")),
                "last_known_elr": ids(f.get("LastKnownElr", ""))}
    return out


def parse_configs(text):
    """kafka-configs --describe: {entity name: {key: value}} for each
    "Dynamic configs for topic T are:" / "Default configs for brokers in
    the cluster are:" (entity "") / "Dynamic configs for broker N are:"
    block; a sensitive value is None."""
    out, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^(?:Dynamic configs for (?:topic|broker) (\S+)|Default configs for brokers in the cluster) are:",
                     line)
        if m:
            cur = m.group(1) or ""
            out.setdefault(cur, {})
            continue
        m = re.match(r"^\s+(\S+?)=(.*) sensitive=(true|false) synonyms=", line)
        if m and cur is not None:
            out[cur][m.group(1)] = None if m.group(3) == "true" else m.group(2)
    return out


def parse_features(text):
    """kafka-features describe: {feature: finalized level (text)}."""
    out = {}
    for line in text.split("\n"):
        f = dict(re.findall(r"(\w+):\s+(\S+)", line))
        if "Feature" in f:
            out[f["Feature"]] = f.get("FinalizedVersionLevel", "")
    return out


def metadata_rows(*paths):
    rc, rows, err = h.kfsck_json("metadata", *paths)
    if rc not in (0, 1):
        raise AssertionError(f"kfsck metadata exit {rc}: {err[:300]}")
    return rc, rows


def compare_topics(described, rows, skip=(), fields=("leader", "replicas", "isr", "elr", "last_known_elr")):
    """kfsck metadata's topic and partition lines against kafka-topics
    --describe (whose "Configs:" are the effective non-default values,
    cluster-wide dynamic ones included: topic configs are compared with
    kafka-configs instead)."""
    topics = {r["topic"]: r for r in rows if r["type"] == "topic"}
    parts = {(r["topic"], r["partition"]): r for r in rows if r["type"] == "partition"}
    c._eq("topics", sorted(t for t in topics if t not in skip), sorted(t for t in described if t not in skip))
    n = 0
    for t, w in sorted(described.items()):
        if t in skip:
            continue
        k = topics[t]
        c._eq(f"{t} topic_id", k["topic_id"], w["id"])
        c._eq(f"{t} partitions", k["partitions"], w["partitions"])
        for p, wp in sorted(w["parts"].items()):
            kp = parts[(t, p)]
            for f in fields:
                c._eq(f"{t}-{p} {f}", kp[f], wp[f])
            n += 1
    return n


def latest_snapshot(data):
    snaps = [p for p in glob.glob(os.path.join(data, "__cluster_metadata-0", "*.checkpoint"))
             if not os.path.basename(p).startswith("00000000000000000000-")]
    return max(snaps) if snaps else None


def scenario_metadata(suite, cp):
    with sc.Scenario(cp) as s:
        n = s.node(extra=NODE_EXTRA)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        b = n.bootstrap
        d.cmd("topic", name="meta-a", partitions=3, config="retention.ms:3600000,max.message.bytes:200000")
        d.cmd("topic", name="meta-b", partitions=1, config="cleanup.policy:compact,segment.ms:600000")
        d.cmd("topic", name="meta-grow", partitions=1)
        d.cmd("topic", name="meta-gone", partitions=2)
        tool(d, s, "topics-alter", TOPICS, "--bootstrap-server", b, "--alter", "--topic", "meta-grow",
             "--partitions", "4")
        tool(d, s, "topics-delete", TOPICS, "--bootstrap-server", b, "--delete", "--topic", "meta-gone")
        tool(d, s, "configs-topic", CONFIGS, "--bootstrap-server", b, "--alter", "--entity-type", "topics",
             "--entity-name", "meta-a", "--add-config", "retention.bytes=1048576", "--delete-config",
             "max.message.bytes")
        tool(d, s, "configs-default", CONFIGS, "--bootstrap-server", b, "--alter", "--entity-type", "brokers",
             "--entity-default", "--add-config", "log.retention.ms=86400000")
        tool(d, s, "configs-broker", CONFIGS, "--bootstrap-server", b, "--alter", "--entity-type", "brokers",
             "--entity-name", "1", "--add-config", "log.cleaner.backoff.ms=2000")
        d.cmd("produce", topic="meta-a", n=30, per=10)
        # the node writes a snapshot within a few seconds of these changes
        h.wait_for(lambda: latest_snapshot(n.data), 30, "a metadata snapshot")

        def described():
            return {"topics": parse_topics(tool(d, s, "topics", TOPICS, "--bootstrap-server", b, "--describe")),
                    "topic-configs": parse_configs(tool(d, s, "configs-topics", CONFIGS, "--bootstrap-server", b,
                                                        "--describe", "--entity-type", "topics")),
                    "default": parse_configs(tool(d, s, "configs-default-d", CONFIGS, "--bootstrap-server", b,
                                                  "--describe", "--entity-type", "brokers", "--entity-default")),
                    "broker": parse_configs(tool(d, s, "configs-broker-d", CONFIGS, "--bootstrap-server", b,
                                                 "--describe", "--entity-type", "brokers", "--entity-name", "1")),
                    "features": parse_features(tool(d, s, "features", FEATURES, "--bootstrap-server", b,
                                                    "describe")),
                    "cluster": tool(d, s, "cluster-id", CLUSTER, "cluster-id", "--bootstrap-server", b),
                    "quorum": tool(d, s, "quorum", QUORUM, "--bootstrap-server", b, "describe", "--status")}
        live = described()
        rc, rows = metadata_rows(n.data)  # the live node's files, right after the tools

        def topics():
            k = compare_topics(live["topics"], rows)
            cl = next(r for r in rows if r["type"] == "cluster")
            return f"{len(live['topics'])} topics, {k} partitions (snapshot {os.path.basename(cl['snapshot'] or '-')})"
        suite.check("metadata: topics and partitions vs kafka-topics --describe", topics)

        def configs():
            got = {}
            for r in rows:
                if r["type"] == "config":
                    got.setdefault((r["resource_type"], r["resource_name"]), {})[r["name"]] = r["value"]
            n_ = 0
            for t, kv in sorted(live["topic-configs"].items()):
                c._eq(f"topic {t} configs", got.get(("topic", t), {}), kv)
                n_ += len(kv)
            c._eq("the brokers' default configs", got.get(("broker", ""), {}), live["default"].get("", {}))
            c._eq("broker 1's dynamic configs", got.get(("broker", "1"), {}), live["broker"].get("1", {}))
            return (f"{n_} topic configs, {len(live['default'].get('', {}))} cluster-wide, "
                    f"{len(live['broker'].get('1', {}))} of broker 1")
        suite.check("metadata: configs vs kafka-configs --describe (topics, --entity-default, broker 1)", configs)

        def features():
            got = {r["name"]: r["level"] for r in rows if r["type"] == "feature"}
            cl = next(r for r in rows if r["type"] == "cluster")
            want = dict(live["features"])
            mv = want.pop("metadata.version")
            c._eq("metadata.version (its level by Kafka's MetadataVersion)", cl["metadata_version"],
                  int(d.cmd("mvlevel", name=mv)))
            # kraft.version is the raft layer's (§14.7: its feature record is ignored)
            want.pop("kraft.version", None)
            c._eq("features", {k: v for k, v in got.items() if v != 0},
                  {k: int(v) for k, v in want.items() if v not in ("", "0")})
            return f"metadata.version {mv} = {cl['metadata_version']}, {len(want)} more"
        suite.check("metadata: features vs kafka-features describe", features)

        def cluster():
            cl = next(r for r in rows if r["type"] == "cluster")
            c._eq("cluster_id", cl["cluster_id"], re.search(r"Cluster ID: (\S+)", live["cluster"]).group(1))
            q = dict(re.findall(r"^(\w+):\s+(.*)$", live["quorum"], re.M))
            c._eq("voters", cl["voters"], sorted(int(x) for x in re.findall(r'"id": (\d+)', q["CurrentVoters"])))
            c._eq("leader epoch", cl["leader_epoch"], int(q["LeaderEpoch"]))
            return f"cluster {cl['cluster_id']}, voters {cl['voters']}, epoch {cl['leader_epoch']}"
        suite.check("metadata: cluster id, voters and epoch vs kafka-cluster and kafka-metadata-quorum", cluster)

        # the newest snapshot damaged, on copies of the stopped node's files
        n.stop()
        rc, stopped_rows = metadata_rows(n.data)
        pristine = s.path("pristine")
        shutil.copytree(n.data, pristine)
        snap = latest_snapshot(n.data)
        rel = os.path.relpath(snap, n.data)
        frames = sc.batches_of(snap)

        def damaged(kind):
            shutil.rmtree(n.data)
            shutil.copytree(pristine, n.data)
            if kind == "crc":
                sc.flip_crc(os.path.join(n.data, rel), which=1)  # the first data batch
            elif kind == "cut":
                pos, base, size = frames[-2]  # the last data batch, cut short; no footer
                os.truncate(os.path.join(n.data, rel), pos + size // 2)
            else:
                os.truncate(os.path.join(n.data, rel), frames[-1][0])  # the footer's batch gone
            q_rc, pred, parts, acts = sc.predict_rows(n.data)
            fatal = [a for a in pred if a["type"] == "action" and a["action"] == "fatal"]
            shutil.copytree(n.data, s.path(f"damaged-{kind}"))  # for kfsck metadata, as the node found them
            n.start(wait=False)
            h.wait_for(lambda: n.proc.poll() is not None or any("Kafka Server started" in l["msg"] for l in n.lines()),
                       90, "the node to start or stop")
            up = n.running()
            # the first ERROR's line, then the exception's (a fault's cause comes on the next line)
            why = next((l["msg"].splitlines()[:2] for l in n.lines() if l["level"] == "ERROR"), [""])
            seen = None
            if up:
                d.cmd("bootstrap", servers=n.bootstrap)
                seen = parse_topics(tool(d, s, f"topics-{kind}", TOPICS, "--bootstrap-server", n.bootstrap,
                                         "--describe"))
                n.stop()
            return fatal, up, why, seen

        for kind, what in (("crc", "a CRC failure in a data batch"), ("cut", "cut short in its last data batch"),
                           ("nofooter", "without its footer")):
            fatal, up, why, seen = damaged(kind)

            def starts(kind=kind, fatal=fatal, up=up, why=why):
                said = "; ".join(a["reason"][:200] for a in fatal) or "starts"
                c._eq(f"{kind}: predict says the node stops (fatal)", bool(fatal), not up)
                # the metadata loader's fault: predict's names the same record and the same exception
                m = re.search(r"Error loading metadata log record from offset \d+", why[0])
                if m and len(why) > 1:
                    c._eq(f"{kind}: the record the loader fails on and its exception",
                          [m.group(0) + ": " + why[1] in a["reason"] for a in fatal], [True])
                return f"the node {'started' if up else 'did not start'} ({' '.join(why)[:200]}); predict: {said}"
            suite.check(f"metadata: predict on the newest snapshot with {what} vs whether the node starts", starts)
            if up:
                def state(kind=kind, seen=seen):
                    rc_, rows_ = metadata_rows(s.path(f"damaged-{kind}"))
                    # leaders and ISRs change as the node starts again: what persists
                    k = compare_topics(seen, rows_, fields=("replicas",))
                    return f"{len(seen)} topics, {k} partitions as the node loaded them"
                suite.check(f"metadata: kfsck metadata on the newest snapshot {what} vs what the node then "
                            "describes (kafka-topics --describe)", state)
            shutil.rmtree(s.path(f"damaged-{kind}"))


ALL = [("metadata", scenario_metadata)]
