"""scenarios: what the broker suite does with a real broker, one function
per scenario (tests/broker/run.py runs them in ALL's order). Each starts its
own node(s) in a fresh temporary dir, ends every process it started and
removes the dir, whatever happens.
"""
import glob
import json
import os
import re
import shutil
import time

import compare as c
import harness as h
import share_groups

DUMP = "org.apache.kafka.tools.DumpLogSegments"
GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
TXNS = "org.apache.kafka.tools.TransactionsCommand"

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


class Scenario:
    """The node(s), driver and work dir of one scenario, ended on exit."""

    def __init__(self, cp):
        self.cp = cp
        self.work = h.Workdir()
        self.nodes = []
        self.drivers = []

    def node(self, **kw):
        n = h.Node(self.cp, self.work.path, node_id=kw.pop("node_id", 1), **kw)
        self.nodes.append(n)
        return n

    def driver(self, bootstrap=None):
        d = h.Driver(self.cp, self.work.path, bootstrap)
        self.drivers.append(d)
        return d

    def path(self, *p):
        return os.path.join(self.work.path, *p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for d in self.drivers:
            try:
                d.kill()
            except Exception:  # noqa: BLE001
                pass
        for n in self.nodes:
            if n.running():
                n.kill()
        self.work.close()


def files_of(datadir, suffixes=(".log", ".index", ".timeindex", ".txnindex", ".snapshot", ".checkpoint")):
    """Every file the broker wrote with one of these suffixes, sorted."""
    out = []
    for p in sorted(glob.glob(os.path.join(datadir, "*", "*"))):
        if os.path.isfile(p) and p.endswith(suffixes):
            out.append(p)
    return out


def dump_all(d, out, files):
    """DumpLogSegments --deep-iteration --print-data-log on files, in the
    driver's JVM; {path: [lines]}."""
    code, text, err = d.tool(out, DUMP, "--deep-iteration", "--print-data-log", "--files", ",".join(files),
                             timeout=300)
    if code != 0:
        raise AssertionError(f"DumpLogSegments exited {code}: {err[-500:]}")
    return c.split_dump(text)


def compare_files(suite, tag, datadir, dumped, readbacks=None):
    """One check per file the broker wrote: kfsck dump against
    DumpLogSegments (and, for a topic read back by the consumer, against the
    exact bytes it read)."""
    readbacks = readbacks or {}
    for path in sorted(dumped):
        rel = os.path.relpath(path, datadir)
        lines = dumped[path]
        name = f"{tag}: dump {rel}"
        if path.endswith((".log", ".checkpoint")):
            def one(path=path, rel=rel, lines=lines):
                rc, rows, err = h.kfsck_json("dump", "--records", "--payload", "--decode", "none", path)
                batches, trailing = c.parse_log_dump(lines)
                if rc != (1 if trailing else 0):
                    raise AssertionError(f"kfsck exit {rc} ({err.strip()[:200]}), Kafka read "
                                         f"{'invalid bytes' if trailing else 'the whole file'}")
                nb, nr = c.compare_log(rel, batches, trailing, rows)
                note = f"{nb} batches, {nr} records"
                part = os.path.basename(os.path.dirname(path))
                if part in readbacks and path.endswith(".log"):
                    n = c.compare_readback(rel, readbacks[part], rows)
                    note += f"; {n} records byte-equal to the consumer's"
                return note
            suite.check(name, one)
        else:
            kind = {".index": c.compare_index, ".timeindex": c.compare_timeindex,
                    ".txnindex": c.compare_txnindex, ".snapshot": c.compare_snapshot}[os.path.splitext(path)[1]]

            def one(path=path, rel=rel, lines=lines, kind=kind):
                rc, rows, err = h.kfsck_json("dump", path)
                if rc != 0:
                    raise AssertionError(f"kfsck exit {rc}: {err.strip()[:200]}")
                return f"{kind(rel, lines, rows)} entries"
            suite.check(name, one)


def verify_clean(suite, tag, datadir, dumped):
    """kfsck verify on the whole data dir: no error, and each segment's
    batch count and last offset as DumpLogSegments read them."""
    def one():
        rc, rows, err = h.kfsck_json("verify", datadir)
        errors = [r for r in rows if r["type"] == "problem" and r["severity"] == "error"]
        if errors or rc != 0:
            raise AssertionError(f"exit {rc}; {len(errors)} errors: {errors[:2]}")
        segs = {os.path.relpath(r["file"], datadir): r for r in rows if r["type"] == "segment"}
        n = 0
        for path, lines in dumped.items():
            if not path.endswith(".log"):
                continue
            rel = os.path.relpath(path, datadir)
            batches, _ = c.parse_log_dump(lines)
            s = segs.get(rel)
            if s is None:
                raise AssertionError(f"verify has no segment line for {rel}")
            c._eq(f"{rel} batches", s["batches"], len(batches))
            c._eq(f"{rel} records", s["records"], sum(len(b["records"]) for b in batches))
            c._eq(f"{rel} last_offset", s["last_offset"], int(batches[-1]["last_offset"]) if batches else None)
            c._eq(f"{rel} valid_bytes", s["valid_bytes"], os.path.getsize(path))
            n += 1
        return f"{n} segments"
    suite.check(f"{tag}: verify data dir", one)


# ---- kafka-consumer-groups ---------------------------------------------------

def describe_ways(d, out, cls, args, ways):
    """A group tool's --describe run once per way ({name: extra args}) in
    the driver's JVM: {name: its output}."""
    res = {}
    for what, extra in ways.items():
        code, text, err = d.tool(f"{out}-{what}.txt", cls, *args, *extra)
        if code != 0:
            raise AssertionError(f"{cls.rsplit('.', 1)[-1]} {' '.join(extra)} exited {code}: {err[-300:]}")
        res[what] = text
    return res


def describe_groups(d, out, bootstrap):
    """kafka-consumer-groups --describe --all-groups, three ways: offsets,
    state, members --verbose."""
    return describe_ways(d, out, GROUPS, ["--bootstrap-server", bootstrap, "--describe", "--all-groups"],
                         {"offsets": ["--offsets"], "state": ["--state"], "members": ["--members", "--verbose"]})


def parse_offsets(text):
    rows = {}
    for r in c.parse_table(text):
        if r.get("TOPIC") in (None, "-"):
            continue
        rows[(r["GROUP"], r["TOPIC"], int(r["PARTITION"]))] = r
    return rows


def parse_state(text):
    """--state: {group: (strategy, state, members)}."""
    out = {}
    for line in text.split("\n"):
        m = re.match(r"^(\S+)\s+(\S+\s+\(\d+\))\s+(\S*?)\s+(\S+)\s+(\d+)\s*$", line)
        if m and m.group(1) != "GROUP":
            out[m.group(1)] = (m.group(3), m.group(4), int(m.group(5)))
    return out


def parse_members(text):
    """--members --verbose: {group: [dict per member]}."""
    out = {}
    header = None
    for line in text.split("\n"):
        if not line.strip():
            header = None
            continue
        if line.startswith("GROUP "):
            header = line.split()
            continue
        if header:
            cols = line.split()
            # ASSIGNMENT is last and may hold spaces? (topic(p,q),topic2(r)) holds none.
            row = dict(zip(header, cols))
            out.setdefault(row["GROUP"], []).append(row)
    return out


def parse_assignment(s):
    """An assignment as the tool prints it, `topic:0,1;other:2` (4.x) or
    `topic(0,1), other(2)` (older): {topic: [partitions]}."""
    out = {}
    if s in (None, "-", ""):
        return out
    for m in re.finditer(r"([^\s:;,()]+)[:(]([\d,]+)\)?", s):
        out.setdefault(m.group(1), []).extend(int(x) for x in m.group(2).split(",") if x)
    return {t: sorted(p) for t, p in out.items()}


def compare_offsets(tag, datadir, described, kfsck_rows, moving=()):
    """kfsck offsets (committed offset, log end, lag) against
    --describe --offsets: the same (group, topic, partition) keys, the same
    committed offsets; log end and lag where kfsck has the topic's dir. The
    groups in `moving` had members consuming after the describe: their
    commits may only have moved on, up to the log end."""
    want = parse_offsets(described)
    got = {(r["group"], r["topic"], r["partition"]): r for r in kfsck_rows if r["type"] == "offset"}
    wk = {k for k, r in want.items() if r["CURRENT-OFFSET"] != "-"}
    c._eq(f"{tag} (group, topic, partition) with a committed offset", sorted(got), sorted(wk))
    for k in sorted(wk):
        g, w = got[k], want[k]
        if k[0] in moving:
            end = g.get("log_end_offset")
            if not (int(w["CURRENT-OFFSET"]) <= g["offset"] and (end is None or g["offset"] <= end)):
                raise AssertionError(f"{tag} {k} offset: kfsck {g['offset']}, Kafka {w['CURRENT-OFFSET']} at "
                                     f"its describe, log end {end}: a live group's commit went back")
            continue
        c._eq(f"{tag} {k} offset", g["offset"], int(w["CURRENT-OFFSET"]))
        if w["LOG-END-OFFSET"] != "-":
            c._eq(f"{tag} {k} log end", g.get("log_end_offset"), int(w["LOG-END-OFFSET"]))
            c._eq(f"{tag} {k} lag", g.get("lag"), int(w["LAG"]))
    return f"{len(wk)} committed offsets"


STATE = {"Stable": "stable", "Empty": "empty", "Dead": "dead", "PreparingRebalance": "preparing_rebalance",
         "CompletingRebalance": "completing_rebalance", "Assigning": "assigning", "Reconciling": "reconciling"}


def compare_groups(tag, described_state, described_members, kfsck_rows, live=True, rejoining=()):
    """kfsck groups against --describe --state and --members --verbose:
    every group Kafka lists with its state and member count; each member's
    id, client id, host and assignment. The groups in `rejoining` have live
    members coming back to a restarted broker: the coordinator loaded them
    as kfsck reads them (stable), and may already be rebalancing; their
    state is only checked to be stable or a rebalance, their members not."""
    state = parse_state(described_state)
    members = parse_members(described_members)
    got = {r["group"]: r for r in kfsck_rows if r["type"] == "group"}
    for g, (strategy, st, n) in sorted(state.items()):
        r = got.get(g)
        if r is None:
            raise AssertionError(f"{tag}: Kafka describes group {g} ({st}), kfsck has none")
        if g in rejoining:
            c._eq(f"{tag} {g} state (kfsck)", r["state"], "stable")
            if STATE.get(st, st) not in ("stable", "preparing_rebalance", "completing_rebalance", "assigning",
                                         "reconciling"):
                raise AssertionError(f"{tag} {g}: Kafka says {st} for a group whose members are rejoining")
            continue
        c._eq(f"{tag} {g} state", r["state"], STATE.get(st, st))
        c._eq(f"{tag} {g} members", len(r.get("members") or []), n)
        if r["kind"] == "classic" and n:
            c._eq(f"{tag} {g} protocol", r.get("protocol"), strategy)
        km = {m["member_id"]: m for m in r.get("members") or []}
        for m in members.get(g, []):
            if m.get("CONSUMER-ID") in (None, "-"):
                continue
            mid = m["CONSUMER-ID"]
            x = km.get(mid)
            if x is None:
                raise AssertionError(f"{tag} {g}: member {mid} described by Kafka, not by kfsck ({sorted(km)})")
            c._eq(f"{tag} {g} {mid} client_id", x.get("client_id"), m["CLIENT-ID"])
            c._eq(f"{tag} {g} {mid} host", x.get("client_host"), m["HOST"])
            ka = {}
            for a in (x.get("assignment") or {}).get("partitions", []) if isinstance(x.get("assignment"), dict) \
                    else (x.get("assignment") or []):
                ka[a["topic"]] = sorted(a["partitions"])
            c._eq(f"{tag} {g} {mid} assignment", ka,
                  parse_assignment(m.get("ASSIGNMENT", m.get("CURRENT-ASSIGNMENT"))))
            if m.get("CURRENT-EPOCH") not in (None, "-"):
                c._eq(f"{tag} {g} {mid} member epoch", x.get("member_epoch"), int(m["CURRENT-EPOCH"]))
    extra = [g for g, r in got.items() if g not in state and r["state"] != "dead" and r["kind"] != "share"]
    if extra:
        raise AssertionError(f"{tag}: kfsck lists groups Kafka does not describe: {extra}")
    return f"{len(state)} groups, {sum(len(v) for v in members.values())} members"


# ---- kafka-transactions --------------------------------------------------------

def describe_txns(d, out, bootstrap, ids, partitions):
    res = {}
    code, res["list"], err = d.tool(f"{out}-list.txt", TXNS, "--bootstrap-server", bootstrap, "list")
    if code != 0:
        raise AssertionError(f"kafka-transactions list exited {code}: {err[-300:]}")
    for i in ids:
        code, res[f"describe {i}"], err = d.tool(f"{out}-describe-{i}.txt", TXNS, "--bootstrap-server", bootstrap,
                                                 "describe", "--transactional-id", i)
    for t, p in partitions:
        code, res[f"producers {t}-{p}"], err = d.tool(f"{out}-producers-{t}-{p}.txt", TXNS, "--bootstrap-server",
                                                      bootstrap, "describe-producers", "--topic", t,
                                                      "--partition", str(p))
    code, res["hanging"], err = d.tool(f"{out}-hanging.txt", TXNS, "--bootstrap-server", bootstrap,
                                       "find-hanging", "--broker-id", "1")
    if code != 0:
        raise AssertionError(f"kafka-transactions find-hanging exited {code}: {err[-300:]}")
    return res


def tab_rows(text):
    """kafka-transactions' tab-separated tables: a list of dicts."""
    lines = [l for l in text.split("\n") if l.strip()]
    if not lines:
        return []
    header = [x.strip() for x in lines[0].split("\t") if x.strip()]
    out = []
    for l in lines[1:]:
        cols = [x.strip() for x in l.split("\t")]
        out.append(dict(zip(header, cols)))
    return out


# ---- the scenarios ---------------------------------------------------------------

def workload(d):
    """Topics of every codec, timestamp type and producer kind, compaction,
    transactions and consumer groups of both protocols."""
    for codec in CODECS:
        t = f"codec-{codec}"
        d.cmd("topic", name=t, partitions=2)
        d.cmd("produce", topic=t, n=120, per=15, codec=codec, headers=3, keys=11, binary="true", size=40)
    d.cmd("topic", name="logappend", partitions=1, config="message.timestamp.type:LogAppendTime")
    d.cmd("produce", topic="logappend", n=40, per=8, codec="lz4", headers=1)
    d.cmd("topic", name="plain", partitions=1)
    d.cmd("produce", topic="plain", n=30, per=7, idempotent="false", nullkey="true", codec="snappy")
    d.cmd("topic", name="framed", partitions=1)
    d.cmd("produce", topic="framed", n=20, per=5, sr=42)
    d.cmd("topic", name="compact", partitions=1, config="cleanup.policy:compact")
    d.cmd("produce", topic="compact", n=60, per=10, keys=8, tombstones=5, codec="zstd")
    d.cmd("topic", name="tx", partitions=2)
    d.cmd("txn", id="tx-commit", topic="tx", n=12, end="commit", partitions="0,1", group="g-txn")
    d.cmd("txn", id="tx-abort", topic="tx", n=9, end="abort", partitions="0,1", group="g-txn-aborted")
    d.cmd("txn", id="tx-gzip", topic="tx", n=10, end="commit", partitions="0", codec="gzip")
    d.cmd("txn", id="tx-open", topic="tx", n=5, end="open", partitions="1")
    d.cmd("consume", group="g-classic", topic="codec-none", max=97)
    d.cmd("consume", group="g-848", topic="codec-gzip", protocol="consumer", max=131)
    d.cmd("consume", group="g-deleted", topic="codec-lz4", max=50)
    d.cmd("groupdel", group="g-deleted")
    d.cmd("consume", group="g-offdel", topic="codec-zstd", max=200)
    d.cmd("offsetdel", group="g-offdel", topic="codec-zstd", partition=1)
    d.cmd("commit", group="g-admin", topic="plain", partition=0, offset=17, metadata="by-admin")
    d.cmd("members", name="live", group="g-live", topic="codec-snappy", count=2)
    d.cmd("members", name="live848", group="g-live848", topic="logappend", protocol="consumer", count=1)
    # a Kafka Connect sink task's consumer: group connect-<connector>, client id connector-consumer-<task>
    d.cmd("consume", group="connect-files-sink", topic="codec-zstd", max=80, client="connector-consumer-files-sink-0")
    # a share group (KIP-932) that starts from the earliest offset, then leaves
    code, text, err = d.tool(d.log + "-share-config.txt", "org.apache.kafka.tools.ConfigCommand", "--bootstrap-server",
                             d.servers, "--alter", "--entity-type", "groups", "--entity-name", "sg-clean",
                             "--add-config", "share.auto.offset.reset=earliest")
    if code != 0:
        raise AssertionError(f"kafka-configs --alter (share group): {text[-200:]} {err[-300:]}")
    d.cmd("share", group="sg-clean", topic="codec-snappy", max=60)
    # records whose producer's clock is off: one an hour back, one 30 min ahead
    d.cmd("topic", name="skewed", partitions=1)
    d.cmd("produce", topic="skewed", n=40, per=8, ts=-3600000, skew="17:1800000")
    d.cmd("produce", topic="skewed", n=16, per=8, prefix="now-")


USER_TOPICS = [f"codec-{x}" for x in CODECS] + ["logappend", "plain", "framed", "compact", "tx", "skewed"]


def scenario_clean(suite, cp):
    """A broker after a workload and a clean shutdown: every file it wrote
    against DumpLogSegments and the consumer's bytes; offsets, groups and
    transactions against kafka-consumer-groups and kafka-transactions run on
    the live broker just before the stop."""
    with Scenario(cp) as s:
        n = s.node()
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        workload(d)
        readbacks = {}
        for t in USER_TOPICS:
            out = s.path(f"readback-{t}.jsonl")
            d.cmd("readback", topic=t, out=out)
            for r in h.read_jsonl(out):
                readbacks.setdefault(f"{t}-{r['partition']}", []).append(r)
        ends = {}
        for t in USER_TOPICS:
            out = s.path(f"ends-{t}.jsonl")
            d.cmd("ends", topic=t, out=out)
            for r in h.read_jsonl(out):
                ends[(t, r["partition"])] = r
        groups = describe_groups(d, s.path("groups"), n.bootstrap)
        shared = share_groups.describe(d, s.path("share"), n.bootstrap, "sg-clean")
        txns = describe_txns(d, s.path("txns"), n.bootstrap, ["tx-commit", "tx-abort", "tx-open"],
                             [("tx", 0), ("tx", 1)])
        n.stop()
        suite.check("clean: broker stopped cleanly", lambda: (
            os.path.exists(os.path.join(n.data, ".kafka_cleanshutdown"))
            or (_ for _ in ()).throw(AssertionError("no .kafka_cleanshutdown"))) and None)
        dumped = dump_all(d, s.path("dump.txt"), files_of(n.data))
        compare_files(suite, "clean", n.data, dumped, readbacks)
        verify_clean(suite, "clean", n.data, dumped)

        def offsets():
            rc, rows, err = h.kfsck_json("offsets", n.data)
            return compare_offsets("clean", n.data, groups["offsets"], rows)
        suite.check("clean: offsets vs kafka-consumer-groups --describe --offsets", offsets)

        def loads():
            # the coordinator loaded every __consumer_offsets partition: kfsck
            # may name no record that would fail its load
            for cmd in ("offsets", "groups"):
                rc, rows, err = h.kfsck_json(cmd, n.data)
                bad = [r for r in rows if r["type"] == "problem" and r["severity"] == "error"]
                if bad or rc != 0:
                    raise AssertionError(f"kfsck {cmd} exit {rc}: {bad[0]['code'] if bad else ''} "
                                         f"{bad[0].get('message', '')[:300] if bad else err[:200]}")
            return "every record of __consumer_offsets decodes"
        suite.check("clean: offsets and groups decode every record the group coordinator loaded", loads)

        def grp():
            rc, rows, err = h.kfsck_json("groups", n.data)
            return compare_groups("clean", groups["state"], groups["members"], rows)
        suite.check("clean: groups vs kafka-consumer-groups --describe --state --members", grp)

        def share():
            rc, rows, err = h.kfsck_json("groups", n.data)
            return share_groups.compare("clean", n.data, shared, rows, "sg-clean")
        suite.check("clean: share group (groups, __share_group_state) vs kafka-share-groups --describe", share)

        def reset_csv():
            rc, out, err = h.kfsck("offsets", "--format", "reset-csv", "--group", "g-classic", n.data)
            want = parse_offsets(groups["offsets"])
            rows = sorted(tuple(l.split(",")) for l in out.split("\n") if l)
            exp = sorted((t, str(p), w["CURRENT-OFFSET"]) for (g, t, p), w in want.items()
                         if g == "g-classic" and w["CURRENT-OFFSET"] != "-")
            c._eq("reset-csv lines for g-classic", rows, exp)
            return f"{len(rows)} lines"
        suite.check("clean: offsets --format reset-csv vs --describe --offsets", reset_csv)
        compare_txns(suite, "clean", n.data, txns, ends)

        # What the group coordinator loads from these files: the same broker
        # restarted on them, described again before any session expires.
        # (The live members leave only after that: a LeaveGroup changes the
        # state the load gave, Stable to PreparingRebalance or Empty.)
        rc, before, err = h.kfsck_json("groups", n.data)
        n.start()
        # ListGroups is empty until the coordinator has loaded its partitions
        deadline = time.monotonic() + 60
        while True:
            again = describe_groups(d, s.path("groups-restarted"), n.bootstrap)
            if parse_state(again["state"]) or time.monotonic() > deadline:
                break
            time.sleep(1)
        d.cmd("leave", name="live")
        d.cmd("leave", name="live848")
        n.stop()
        suite.check("clean: groups vs kafka-consumer-groups after a restart on the same files",
                    lambda: compare_groups("restart", again["state"], again["members"], before,
                                           rejoining=("g-live", "g-live848")))


def compare_txns(suite, tag, datadir, txns, ends):
    rc, rows, err = h.kfsck_json("txns", datadir)
    opens = [r for r in rows if r["type"] == "open_transaction"]
    parts = {(r["topic"], r["partition"]): r for r in rows if r["type"] == "partition"}

    def listed():
        lst = {r["TransactionalId"]: r for r in tab_rows(txns["list"])}
        n = 0
        for o in opens:
            w = lst.get(o.get("transactional_id"))
            if w is None:
                raise AssertionError(f"open transaction of producer {o['producer_id']} "
                                     f"({o.get('transactional_id')}) is not in kafka-transactions list")
            c._eq(f"{o['transactional_id']} producer id", o["producer_id"], int(w["ProducerId"]))
            c._eq(f"{o['transactional_id']} state", o.get("coordinator_state"), w["TransactionState"])
            n += 1
        ongoing = sorted(i for i, w in lst.items() if w["TransactionState"] == "Ongoing")
        c._eq("transactions Ongoing", sorted(o.get("transactional_id") for o in opens), ongoing)
        return f"{len(lst)} transactional ids, {n} open"
    suite.check(f"{tag}: txns vs kafka-transactions list", listed)

    def described():
        n = 0
        for key, text in txns.items():
            if not key.startswith("describe "):
                continue
            tid = key.split(" ", 1)[1]
            rs = tab_rows(text)
            if not rs:
                raise AssertionError(f"describe {tid}: no output")
            w = rs[0]
            o = [x for x in opens if x.get("transactional_id") == tid]
            if w.get("TransactionState") == "Ongoing":
                if len(o) != 1:
                    raise AssertionError(f"{tid} is Ongoing for Kafka, kfsck has {len(o)} open transactions")
                c._eq(f"{tid} producer epoch", o[0]["producer_epoch"], int(w["ProducerEpoch"]))
                c._eq(f"{tid} producer id", o[0]["producer_id"], int(w["ProducerId"]))
                # TopicPartitions: tx-1
                tps = sorted(x.strip() for x in w.get("TopicPartitions", "").split(",") if x.strip())
                c._eq(f"{tid} partitions", sorted(f"{x['topic']}-{x['partition']}" for x in o), tps)
            elif o:
                raise AssertionError(f"{tid} is {w.get('TransactionState')} for Kafka, open for kfsck")
            n += 1
        return f"{n} transactional ids"
    suite.check(f"{tag}: txns vs kafka-transactions describe", described)

    def producers():
        n = 0
        for key, text in txns.items():
            if not key.startswith("producers "):
                continue
            tp = key.split(" ", 1)[1]
            topic, part = tp.rsplit("-", 1)
            for w in tab_rows(text):
                start = w.get("CurrentTransactionStartOffset")
                o = [x for x in opens if x["topic"] == topic and x["partition"] == int(part)
                     and x["producer_id"] == int(w["ProducerId"])]
                if start in (None, "None", "-1", ""):
                    if o:
                        raise AssertionError(f"{tp} producer {w['ProducerId']}: no transaction for Kafka, "
                                             f"open for kfsck at {o[0]['first_offset']}")
                else:
                    if not o:
                        raise AssertionError(f"{tp} producer {w['ProducerId']}: transaction from {start} "
                                             f"for Kafka, none open for kfsck")
                    c._eq(f"{tp} producer {w['ProducerId']} first offset", o[0]["first_offset"], int(start))
                    c._eq(f"{tp} producer {w['ProducerId']} epoch", o[0]["producer_epoch"], int(w["ProducerEpoch"]))
                n += 1
        return f"{n} producers"
    suite.check(f"{tag}: txns vs kafka-transactions describe-producers", producers)

    def hanging():
        hang = tab_rows(txns["hanging"])
        got = sorted((o["topic"], o["partition"], o["producer_id"]) for o in opens if o["hanging"])
        want = sorted((w["Topic"], int(w["Partition"]), int(w["ProducerId"])) for w in hang if "Topic" in w)
        c._eq("hanging transactions", got, want)
        c._eq("txns exit", rc, 1 if got else 0)
        return f"{len(want)} hanging"
    suite.check(f"{tag}: txns vs kafka-transactions find-hanging", hanging)

    def lso():
        n = 0
        for (t, p), w in sorted(ends.items()):
            r = parts.get((t, p))
            if r is None:
                raise AssertionError(f"txns has no partition line for {t}-{p}")
            c._eq(f"{t}-{p} last stable offset", r["last_stable_offset"], w["last_stable_offset"])
            c._eq(f"{t}-{p} log end", r["log_end_offset"], w["log_end_offset"])
            n += 1
        return f"{n} partitions"
    suite.check(f"{tag}: txns last stable offset vs ListOffsets(read_committed)", lso)


ALL = [
    ("clean", scenario_clean),
]


# ---- start-up: predict against the broker ------------------------------------------

LOADED = re.compile(r"Completed load of Log\(dir=(?P<dir>[^,]+), topicId=[^,]*, topic=(?P<topic>[^,]+), "
                    r"partition=(?P<partition>\d+), highWatermark=(?P<hw>-?\d+), lastStableOffset=-?\d+, "
                    r"logStartOffset=(?P<log_start>-?\d+), logEndOffset=(?P<log_end>-?\d+)\) with (?P<segments>\d+) "
                    r"segments, local-log-start-offset -?\d+ and log-end-offset -?\d+ in (?P<ms>\d+)ms")
LOADER = re.compile(r"^\[LogLoader partition=(?P<part>[^,]+), dir=[^\]]+\] (?P<msg>.*)$", re.S)


def broker_startup(lines):
    """What the broker logged while loading its logs: {partition dir name:
    {"load": {...} (the Completed load line), "events": [(kind, value)]}}.
    kinds: recover (base offset), invalid (file name, byte position),
    truncate (base offset, offset), no_index (file), bad_index (file),
    delete_segments (text), delete_all (text)."""
    out = {}

    def part(p):
        return out.setdefault(p, {"load": None, "events": []})
    for l in lines:
        msg = l["msg"]
        m = LOADED.search(msg)
        if m:
            part(os.path.basename(m.group("dir")))["load"] = {k: (int(v) if k not in ("dir", "topic") else v)
                                                             for k, v in m.groupdict().items()}
            continue
        m = re.match(r"^Found invalid messages in log segment (\S+) at byte offset (\d+)", msg)
        if m:
            f = m.group(1)
            part(os.path.basename(os.path.dirname(f)))["events"].append(("invalid", (os.path.basename(f),
                                                                                        int(m.group(2)))))
            continue
        m = LOADER.match(msg)
        if not m:
            continue
        p, msg = m.group("part"), m.group("msg")
        ev = part(p)["events"]
        if (x := re.match(r"^Recovering unflushed segment (\d+)", msg)):
            ev.append(("recover", int(x.group(1))))
        elif (x := re.match(r"^Corruption found in segment (\d+), truncating to offset (\d+)", msg)):
            ev.append(("truncate", (int(x.group(1)), int(x.group(2)))))
        elif (x := re.match(r"^Could not find offset index file corresponding to log file (\S+),", msg)):
            ev.append(("no_index", os.path.basename(x.group(1).rstrip(","))))
        elif (x := re.match(r"^Found a corrupted index file corresponding to log file (\S+) due to", msg)):
            ev.append(("bad_index", os.path.basename(x.group(1))))
        elif msg.startswith("Deleting segments as part of log recovery"):
            ev.append(("delete_segments", msg))
        elif msg.startswith("Deleting all segments because logEndOffset"):
            ev.append(("delete_all", msg))
        elif msg.startswith("Found invalid offset during recovery"):
            ev.append(("invalid_offset", msg))
    return out


def batches_of(path):
    """(position, base offset, size) of each whole batch of a segment, read
    from the 12-byte framing alone (independent of kfsck)."""
    out, pos = [], 0
    data = open(path, "rb").read()
    while pos + 12 <= len(data):
        base = int.from_bytes(data[pos:pos + 8], "big", signed=True)
        size = 12 + int.from_bytes(data[pos + 8:pos + 12], "big", signed=True)
        if size < 12 + 49 or pos + size > len(data):
            break
        out.append((pos, base, size))
        pos += size
    return out


def segments(pdir):
    return sorted(glob.glob(os.path.join(pdir, "*.log")))


def tear_tail(pdir, cut=7):
    """Cuts the last batch of the active segment short by `cut` bytes less
    than its size (keeps its first bytes: a torn write)."""
    seg = segments(pdir)[-1]
    pos, base, size = batches_of(seg)[-1]
    os.truncate(seg, pos + size - cut)
    return seg, pos, base


def flip_crc(seg, which=-2):
    """Flips one byte in the records of the batch `which` of seg (a CRC
    failure, the framing intact)."""
    b = batches_of(seg)
    pos, base, size = b[which]
    with open(seg, "r+b") as f:
        f.seek(pos + size - 3)
        x = f.read(1)
        f.seek(pos + size - 3)
        f.write(bytes([x[0] ^ 0x5A]))
    return pos, base


def predict_rows(datadir, *extra):
    rc, rows, err = h.kfsck_json("predict", *extra, datadir)
    if rc not in (0, 1):
        raise AssertionError(f"predict exit {rc}: {err[:300]}")
    parts = {r["dir"] if "dir" in r else f"{r['topic']}-{r['partition']}": r for r in rows if r["type"] == "partition"}
    acts = {}
    for r in rows:
        if r["type"] == "action" and r.get("topic") is not None:
            acts.setdefault(f"{r['topic']}-{r['partition']}", []).append(r)
    return rc, rows, {os.path.basename(k): v for k, v in parts.items()}, acts


def base_of(name):
    return int(os.path.basename(name).split(".")[0])


def compare_startup(tag, pname, pred_part, pred_acts, started, after_end=None, sizes_after=None):
    """One partition: kfsck predict's actions and log end against what the
    broker logged while loading it (and the log end it then holds)."""
    try:
        return _compare_startup(tag, pname, pred_part, pred_acts, started, after_end, sizes_after)
    except AssertionError as e:
        said = "; ".join(f"{a['action']} {os.path.basename(a['file'])}" for a in pred_acts) or "no action"
        logged = "; ".join(f"{k} {v}" for k, v in started.get(pname, {}).get("events", [])) or "nothing"
        raise AssertionError(f"{e} [predict: {said}] [broker logged: {logged}]")


def _compare_startup(tag, pname, pred_part, pred_acts, started, after_end=None, sizes_after=None):
    ev = started.get(pname, {"load": None, "events": []})
    load = ev["load"]
    if load is None:
        raise AssertionError(f"{pname}: the broker logged no 'Completed load' line")
    if pred_part is None:
        raise AssertionError(f"{pname}: predict has no partition line")
    c._eq(f"{pname} log end after start-up", pred_part["log_end_offset_after"], load["log_end"])
    c._eq(f"{pname} log start", pred_part["log_start_offset"], load["log_start"])
    if after_end is not None:
        c._eq(f"{pname} log end read back after a clean stop", pred_part["log_end_offset_after"], after_end)
    recovered = sorted(v for k, v in ev["events"] if k == "recover")
    # segments recovered for a missing or corrupt index log no "Recovering unflushed" line
    for k, v in ev["events"]:
        if k in ("no_index", "bad_index"):
            recovered.append(base_of(v))
    recovered = sorted(set(recovered))
    p_rec = sorted({base_of(a["file"]) for a in pred_acts if a["action"] == "recover_segment"})
    c._eq(f"{pname} segments recovered", p_rec, recovered)
    cuts = sorted(v for k, v in ev["events"] if k == "invalid")
    # A torn last batch ends recovery's read without "Found invalid
    # messages" (the batch iterator stops at a batch longer than the file);
    # the broker logs only "Corruption found ..., truncating": the cut is
    # then where the segment ends after start-up (nothing appended since).
    for k, v in ev["events"]:
        if k == "truncate" and not any(x[0] == f"{v[0]:020d}.log" for x in cuts) and sizes_after:
            f = f"{v[0]:020d}.log"
            cuts.append((f, sizes_after.get(f)))
    cuts.sort()
    p_cut = sorted((os.path.basename(a["file"]), a["position"]) for a in pred_acts if a["action"] == "truncate_segment")
    c._eq(f"{pname} cuts (segment, byte)", p_cut, cuts)
    trunc = sorted(v[1] for k, v in ev["events"] if k == "truncate")
    p_tr = sorted(a["offset"] for a in pred_acts if a["action"] == "truncate_segment")
    c._eq(f"{pname} truncated to offset", p_tr, trunc)
    return (f"log end {load['log_end']}, recovered {recovered or 'none'}, cut {cuts or 'nothing'}; "
            f"predict offsets_lost {pred_part.get('offsets_lost')}")


def scan_ends(datadir):
    rc, rows, err = h.kfsck_json("scan", datadir)
    return {os.path.basename(r["dir"]): r for r in rows if r["type"] == "partition"}


STARTUP_EXTRA = {"log.flush.offset.checkpoint.interval.ms": 1000,
                 "log.flush.start.offset.checkpoint.interval.ms": 1000}


def scenario_crash(suite, cp):
    """A broker killed (SIGKILL) while a producer writes, its files then
    damaged in several partitions (a torn tail, a CRC failure in the active
    segment, a missing .index, a corrupt .index, a bad .txnindex, a CRC
    failure below the recovery point): offsets and groups on a copy taken
    right after the crash against kafka-consumer-groups on the live broker;
    then kfsck predict against the broker's real start-up on the damaged
    files, partition by partition."""
    with Scenario(cp) as s:
        n = s.node(extra=STARTUP_EXTRA)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        for t in ("torn", "crc", "noindex", "badindex", "pump"):
            d.cmd("topic", name=t)
            # size=3000: past 4096 bytes between index entries, so .index files have entries
            d.cmd("produce", topic=t, n=90, per=9, size=3000, codec="none" if t != "crc" else "lz4")
        d.cmd("topic", name="badtxn")
        d.cmd("txn", id="bt-1", topic="badtxn", n=8, end="abort")
        d.cmd("txn", id="bt-2", topic="badtxn", n=8, end="commit")
        d.cmd("txn", id="bt-3", topic="badtxn", n=8, end="abort")
        d.cmd("topic", name="below", config="segment.bytes:1048576")
        d.cmd("produce", topic="below", n=700, per=50, size=2500)
        # A clean stop writes every recovery point at the log end (the broker's
        # own checkpointing starts 30 s after start-up); what follows the
        # restart is above the recovery points.
        n.stop()
        c._eq("recovery point of below-0 written at the clean stop", _checkpointed(n.data, "below-0"), True)
        n.start()
        for t in ("torn", "crc", "noindex", "badindex", "pump"):
            d.cmd("produce", topic=t, n=30, per=10, size=3000, prefix="2-")
        d.cmd("txn", id="bt-4", topic="badtxn", n=8, end="abort")
        d.cmd("produce", topic="below", n=60, per=20, size=2500, prefix="2-")
        d.cmd("consume", group="g-crash", topic="torn", max=45)
        d.cmd("members", name="m1", group="g-crash-live", topic="crc", count=1)
        d.cmd("members", name="m2", group="g-crash-848", topic="noindex", protocol="consumer", count=1)
        groups = describe_groups(d, s.path("groups"), n.bootstrap)
        d.cmd("pump", topic="pump")
        h.time.sleep(1.5)
        n.kill()
        acked = int(d.cmd("stop", timeout=30))
        crashed = h.copy_tree(n.data, s.path("crashed"))

        def offsets():
            rc, rows, err = h.kfsck_json("offsets", crashed)
            c._eq("offsets exit", rc, 0)
            # the members m1 and m2 go on committing between the describe and the kill
            return compare_offsets("crash", crashed, groups["offsets"], rows, moving=("g-crash-live", "g-crash-848"))
        suite.check("crash: offsets after SIGKILL vs kafka-consumer-groups --describe --offsets", offsets)

        def grp():
            rc, rows, err = h.kfsck_json("groups", crashed)
            return compare_groups("crash", groups["state"], groups["members"], rows)
        suite.check("crash: groups after SIGKILL vs kafka-consumer-groups --describe --state --members", grp)

        # damage
        data = n.data
        torn_seg, torn_pos, _ = tear_tail(os.path.join(data, "torn-0"))
        crc_pos, crc_base = flip_crc(segments(os.path.join(data, "crc-0"))[-1])
        os.unlink(os.path.join(data, "noindex-0", "00000000000000000000.index"))
        with open(os.path.join(data, "badindex-0", "00000000000000000000.index"), "r+b") as f:
            f.write(b"\x00\x00\x00\x05\x00\x00\x00\x10" + b"\x00\x00\x00\x02\x00\x00\x00\x20")  # offsets go back
        with open(os.path.join(data, "badtxn-0", "00000000000000000000.txnindex"), "ab") as f:
            f.write(b"\x00" * 5)  # not a whole entry
        below_segs = segments(os.path.join(data, "below-0"))
        below_pos, below_base = flip_crc(below_segs[0], which=3)
        pred_rc, pred, parts, acts = predict_rows(data)
        n.start(timeout=180)
        started = broker_startup(n.lines())
        for t in ("torn", "crc", "noindex", "badindex", "badtxn", "pump", "below"):
            d.cmd("ends", topic=t, out=s.path(f"ends-after-{t}.jsonl"))
        n.stop()
        after = scan_ends(data)
        sizes = {os.path.basename(pd): {os.path.basename(f): os.path.getsize(f) for f in segments(pd)}
                 for pd in glob.glob(os.path.join(data, "*-*"))}
        names = {"torn": "torn tail (unclean)", "crc": "CRC failure in the active segment (unclean)",
                 "noindex": "missing .index (unclean)", "badindex": "corrupt .index (unclean)",
                 "badtxn": "bad .txnindex (unclean)", "pump": "crash mid-write",
                 "below": "CRC failure below the recovery point (unclean)"}
        for t, what in names.items():
            p = f"{t}-0"
            suite.check(f"crash: predict {what}: {p} vs the broker's start-up",
                        lambda p=p: compare_startup("crash", p, parts.get(p), acts.get(p, []), started,
                                                    after.get(p, {}).get("log_end_offset"), sizes[p]))

            def listed(p=p, t=t):
                e = h.read_jsonl(s.path(f"ends-after-{t}.jsonl"))[0]
                c._eq(f"{p} log end (ListOffsets on the restarted broker)", parts[p]["log_end_offset_after"],
                      e["log_end_offset"])
                return f"{e['log_end_offset']}"
            suite.check(f"crash: predict {what}: {p} log end vs ListOffsets after start-up", listed)

        def kept():
            # The broker still holds the damaged batch after its start-up ...
            rc, rows, err = h.kfsck_json("verify", os.path.join(data, "below-0"))
            held = [(os.path.basename(r["file"]), r["position"]) for r in rows
                    if r["type"] == "problem" and r["code"] == "crc_mismatch"]
            seg0 = os.path.basename(below_segs[0])
            c._eq("below-0: the damaged batch is still there after the broker started", held, [(seg0, below_pos)])
            # ... and predict must have said so
            dk = parts["below-0"].get("damage_kept")
            if dk is None:
                raise AssertionError("predict's partition line has no damage_kept field (cli.md: damage the broker "
                                     f"does not look at); the broker kept the CRC failure at byte {below_pos} of {seg0}")
            c._eq("below-0 damage_kept", sorted((os.path.basename(x["file"]), x["position"]) for x in dk),
                  [(seg0, below_pos)])
            return f"damage at byte {below_pos} kept by the broker and by predict"
        suite.check("crash: predict damage_kept below the recovery point vs the broker's start-up", kept)

        def pump():
            c._eq("pump log end covers every acknowledged record", after["pump-0"]["log_end_offset"] >= 120 + acked,
                  True)
            return f"{acked} acknowledged before the kill"
        suite.check("crash: every record acknowledged (acks=1) before SIGKILL survives the restart", pump)


def checkpoint_value(path, part):
    """part's entry in a text offset checkpoint (version, count, entries),
    or None."""
    try:
        with open(path) as f:
            for line in f.read().split("\n")[2:]:
                x = line.split()
                if len(x) == 3 and f"{x[0]}-{x[1]}" == part:
                    return int(x[2])
    except OSError:
        pass
    return None


def _checkpointed(data, part):
    return (checkpoint_value(os.path.join(data, "recovery-point-offset-checkpoint"), part) or 0) > 0


def scenario_clean_torn(suite, cp):
    """A torn tail and a CRC failure in the active segment after a CLEAN
    shutdown (.kafka_cleanshutdown present): the broker recovers nothing.
    predict's log end and damage_kept against what the broker loads, what
    ListOffsets then says, and where the broker appends the next batch."""
    with Scenario(cp) as s:
        n = s.node(extra=STARTUP_EXTRA)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        for t in ("ctorn", "ccrc", "cnoindex", "cbadindex"):
            d.cmd("topic", name=t)
            d.cmd("produce", topic=t, n=60, per=6, size=500)
        d.cmd("topic", name="cbadtxn")
        d.cmd("txn", id="cbt-1", topic="cbadtxn", n=8, end="abort")
        d.cmd("txn", id="cbt-2", topic="cbadtxn", n=8, end="commit")
        n.stop()
        data = n.data
        seg, pos, base = tear_tail(os.path.join(data, "ctorn-0"))
        crc_pos, crc_base = flip_crc(segments(os.path.join(data, "ccrc-0"))[-1], which=-1)
        os.unlink(os.path.join(data, "cnoindex-0", "00000000000000000000.index"))
        with open(os.path.join(data, "cbadindex-0", "00000000000000000000.index"), "r+b") as f:
            f.write(b"\x00\x00\x00\x05\x00\x00\x00\x10" + b"\x00\x00\x00\x02\x00\x00\x00\x20")
        with open(os.path.join(data, "cbadtxn-0", "00000000000000000000.txnindex"), "ab") as f:
            f.write(b"\x00" * 5)
        pred_rc, pred, parts, acts = predict_rows(data)
        n.start()
        started = broker_startup(n.lines())
        for t, what in (("cnoindex", "missing .index"), ("cbadindex", "corrupt .index"),
                        ("cbadtxn", "bad .txnindex")):
            p = f"{t}-0"
            suite.check(f"clean-torn: predict {what} after a clean shutdown: {p} vs the broker's start-up",
                        lambda p=p: compare_startup("clean-torn", p, parts.get(p), acts.get(p, []), started))
        for t in ("ctorn", "ccrc"):
            d.cmd("ends", topic=t, out=s.path(f"ends-{t}.jsonl"))
            d.cmd("produce", topic=t, n=3, per=3, prefix="after-")
        n.stop()
        after = scan_ends(data)
        for t, what in (("ctorn", "torn tail"), ("ccrc", "CRC failure in the last batch")):
            p = f"{t}-0"
            suite.check(f"clean-torn: predict {what} after a clean shutdown: {p} vs the broker's start-up",
                        lambda p=p: compare_startup("clean-torn", p, parts.get(p), acts.get(p, []), started))

            def listed(p=p, t=t):
                e = h.read_jsonl(s.path(f"ends-{t}.jsonl"))[0]
                c._eq(f"{p} log end (ListOffsets)", parts[p]["log_end_offset_after"], e["log_end_offset"])
                return str(e["log_end_offset"])
            suite.check(f"clean-torn: predict {what} after a clean shutdown: {p} log end vs ListOffsets", listed)

            def kept(p=p):
                # the broker kept the damaged bytes and appended behind them
                rc, rows, err = h.kfsck_json("verify", os.path.join(data, p))
                probs = [r for r in rows if r["type"] == "problem" and r["severity"] == "error"
                         and r["file"].endswith(".log")]
                if not probs:
                    raise AssertionError(f"{p}: after the restart and 3 more records the damage is gone")
                dk = parts[p].get("damage_kept")
                if not dk:
                    raise AssertionError(f"predict keeps no damage ({'no damage_kept field' if dk is None else '[]'})"
                                         f"; the broker kept it and appended behind it: after the restart verify "
                                         f"finds {probs[0]['code']} at byte {probs[0]['position']}, the new batch "
                                         f"follows (log end {after[p]['log_end_offset']})")
                c._eq(f"{p} damage_kept position", dk[0]["position"], probs[0]["position"])
                return f"predict: {dk[0]['error']} at {dk[0]['position']}; after the restart verify finds " \
                       f"{probs[0]['code']} at {probs[0]['position']} (log end {after[p]['log_end_offset']})"
            suite.check(f"clean-torn: predict damage_kept {what} vs the files after the broker appended", kept)


ALL += [
    ("crash", scenario_crash),
    ("clean-torn", scenario_clean_torn),
]


def _rewrite_checkpoint(path, part, value):
    """Sets part's entry of a text checkpoint (version, count, entries)."""
    with open(path) as f:
        lines = f.read().split("\n")
    out = []
    for line in lines[2:]:
        x = line.split()
        if len(x) == 3 and f"{x[0]}-{x[1]}" == part:
            continue
        if line:
            out.append(line)
    t, _, p = part.rpartition("-")
    out.append(f"{t} {p} {value}")  # the broker writes only entries it needs: add it
    with open(path, "w") as f:
        f.write(f"{lines[0]}\n{len(out)}\n" + "".join(l + "\n" for l in out))


def scenario_leftovers(suite, cp):
    """What start-up does with the broker's leftovers and checkpoints, after a
    clean shutdown: .swap, .cleaned and .deleted files, a stray partition dir
    and a -delete dir, a log-start checkpoint past the log end, a replication
    checkpoint (high watermark) ahead of the log; then a truncated
    quorum-state. predict against the broker's log and the files it leaves."""
    with Scenario(cp) as s:
        n = s.node(extra=STARTUP_EXTRA)
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        topics = ("swapped", "cleaned", "deleted", "lsopast", "hwahead", "plainpart")
        for t in topics:
            d.cmd("topic", name=t)
            d.cmd("produce", topic=t, n=40, per=8, size=300)
        n.stop()
        data = n.data
        seg = lambda t: os.path.join(data, f"{t}-0", "00000000000000000000.log")  # noqa: E731
        shutil.copy(seg("swapped"), seg("swapped") + ".swap")
        shutil.copy(seg("cleaned"), os.path.join(data, "cleaned-0", "00000000000000000000.log.cleaned"))
        shutil.copy(seg("deleted"), os.path.join(data, "deleted-0", "00000000000000000000.log.deleted"))
        stray = os.path.join(data, "ghost-0")
        shutil.copytree(os.path.join(data, "plainpart-0"), stray)
        os.unlink(os.path.join(stray, "partition.metadata"))
        gone = os.path.join(data, "gone-0." + "0123456789abcdef0123456789abcdef" + "-delete")
        shutil.copytree(os.path.join(data, "plainpart-0"), gone)
        os.unlink(os.path.join(gone, "partition.metadata"))
        _rewrite_checkpoint(os.path.join(data, "log-start-offset-checkpoint"), "lsopast-0", 55)
        _rewrite_checkpoint(os.path.join(data, "replication-offset-checkpoint"), "hwahead-0", 90)
        pred_rc, pred, parts, acts = predict_rows(data)
        n.start()
        started = broker_startup(n.lines())
        lines = n.lines()
        for t in ("lsopast", "hwahead", "swapped", "cleaned", "deleted"):
            d.cmd("ends", topic=t, out=s.path(f"ends-{t}.jsonl"))
        n.stop()
        after = scan_ends(data)

        def files_done(p, kinds):
            """Each predicted file action in p done as predicted on disk."""
            n_ = 0
            for a in acts.get(p, []):
                if a["action"] not in kinds:
                    continue
                f = os.path.join(data, os.path.relpath(a["file"], data)) if os.path.isabs(a["file"]) else a["file"]
                if a["action"] == "delete_file" and os.path.exists(f):
                    raise AssertionError(f"predict: delete {a['file']}; the broker left it")
                if a["action"] == "replace_with_swap" and os.path.exists(f):
                    raise AssertionError(f"predict: replace with {a['file']}; the .swap is still there")
                n_ += 1
            return n_

        def swap():
            ws = [a for a in acts.get("swapped-0", []) if a["action"] == "replace_with_swap"]
            logged = [l["msg"] for l in lines if "swapped-0" in l["msg"] and ".swap" in l["msg"]]
            c._eq("swapped-0: predict replace_with_swap count", len(ws), 1)
            if not logged:
                raise AssertionError("the broker logged nothing about the .swap file")
            files_done("swapped-0", ("replace_with_swap",))
            c._eq("swapped-0 .swap gone", os.path.exists(seg("swapped") + ".swap"), False)
            return logged[0].split("] ", 1)[-1][:120]
        suite.check("leftovers: predict .swap file vs the broker's start-up", swap)

        for t, suffix in (("cleaned", ".cleaned"), ("deleted", ".deleted")):
            def left(t=t, suffix=suffix):
                p = f"{t}-0"
                want = [a for a in acts.get(p, []) if a["action"] == "delete_file" and a["file"].endswith(suffix)]
                exists = os.path.exists(os.path.join(data, p, "00000000000000000000.log" + suffix))
                c._eq(f"{p}: {suffix} file deleted: predict", bool(want), True)
                c._eq(f"{p}: {suffix} file deleted: broker", not exists, True)
                c._eq(f"{p}: log end after", parts[p]["log_end_offset_after"], started[p]["load"]["log_end"])
                return f"{suffix} deleted, log end {started[p]['load']['log_end']}"
            suite.check(f"leftovers: predict {suffix} file vs the broker's start-up", left)

        def lso():
            p = "lsopast-0"
            ev = started[p]["events"]
            c._eq(f"{p}: broker deleted all segments", any(k == "delete_all" for k, _ in ev), True)
            c._eq(f"{p}: log end after", parts[p]["log_end_offset_after"], started[p]["load"]["log_end"])
            c._eq(f"{p}: log start after", parts[p]["log_start_offset"], started[p]["load"]["log_start"])
            e = h.read_jsonl(s.path("ends-lsopast.jsonl"))[0]
            c._eq(f"{p}: log end (ListOffsets)", parts[p]["log_end_offset_after"], e["log_end_offset"])
            return f"log start {e['log_start_offset']}, log end {e['log_end_offset']}"
        suite.check("leftovers: predict log-start checkpoint past the log end vs the broker's start-up", lso)

        def hw():
            p = "hwahead-0"
            m = [re.search(r"initial high watermark (\d+)", l["msg"]) for l in lines
                 if f"partition {p} " in l["msg"] and "initial high watermark" in l["msg"]]
            m = [x for x in m if x]
            if not m:
                raise AssertionError("no 'Log loaded for partition ... initial high watermark' line")
            broker_hw = int(m[0].group(1))
            c._eq(f"{p}: log end after", parts[p]["log_end_offset_after"], started[p]["load"]["log_end"])
            c._eq(f"{p}: predict high_watermark (the checkpoint)", parts[p]["high_watermark"], 90)
            miss = parts[p].get("acknowledged_missing")
            c._eq(f"{p}: acknowledged_missing", miss, 90 - started[p]["load"]["log_end"])
            return f"broker's initial high watermark {broker_hw} (checkpoint 90, log end {started[p]['load']['log_end']})"
        suite.check("leftovers: predict replication checkpoint ahead of the log vs the broker's start-up", hw)

        def stray_dir():
            st = [a for a in pred if a["type"] == "action" and a["action"] == "stray_partition"]
            dl = [a for a in pred if a["type"] == "action" and a["action"] == "delete_partition"]
            ghost_now = sorted(os.path.basename(x) for x in glob.glob(os.path.join(data, "ghost-0*")))
            # the broker loads a -delete dir and deletes it file.delete.delay.ms (60 s) later
            loaded = [l for l in lines if "Completed load of Log(dir=" + gone in l["msg"]]
            c._eq("-delete dir loaded by the broker (to be deleted)", len(loaded), 1)
            c._eq("predict delete_partition for the -delete dir", [os.path.basename(a["file"]) for a in dl],
                  [os.path.basename(gone)])
            c._eq("predict stray_partition for ghost-0", [os.path.basename(a["file"].rstrip("/")) for a in st],
                  ["ghost-0"])
            return f"ghost-0 is now {ghost_now}"
        suite.check("leftovers: predict stray and -delete dirs vs the broker's start-up", stray_dir)

        # a truncated quorum-state: does the node start at all?
        qs = os.path.join(data, "__cluster_metadata-0", "quorum-state")
        size = os.path.getsize(qs)
        os.truncate(qs, size // 2)
        q_rc, q_pred, q_parts, q_acts = predict_rows(data)
        n.start(wait=False)
        rc = n.wait_exit(60)
        came_up = rc is None and any("Kafka Server started" in l["msg"] for l in n.lines())
        if rc is None:
            n.stop()
        why = next((l["msg"].splitlines()[0] for l in n.lines() if l["level"] == "ERROR"), "")

        def quorum():
            fatal = [a for a in q_pred if a["type"] == "action" and a["action"] == "fatal"]
            c._eq("truncated quorum-state: predict says the node does not start", bool(fatal), not came_up)
            return f"broker {'started' if came_up else 'did not start'} ({why[:160]})"
        suite.check("leftovers: predict truncated quorum-state vs whether the node starts", quorum)


ALL += [("leftovers", scenario_leftovers)]


def scenario_replicas(suite, cp):
    """Three combined KRaft nodes, a topic with three replicas written with
    acks=all, one follower stopped while the others go on, then all stopped
    cleanly: kfsck replicas' per-replica log ends and high watermarks
    against each broker's own load of its copy (the 'Completed load' line
    on the restart) and ListOffsets; the election forecast for the
    lagging replica against the log end the partition would then have."""
    with Scenario(cp) as s:
        cl = h.Cluster(cp, s.work.path, 3, extra={"num.recovery.threads.per.data.dir": 1})
        s.nodes.extend(cl.nodes)
        cl.format()
        cl.start()
        d = s.driver(cl.bootstrap)
        d.cmd("topic", name="rep", partitions=1, rf=3, config="min.insync.replicas:2")
        d.cmd("produce", topic="rep", n=100, per=10, size=200)
        lagging = cl.nodes[2]
        lagging.stop()
        d.cmd("produce", topic="rep", n=50, per=10, size=200, prefix="late-")
        d.cmd("ends", topic="rep", out=s.path("ends-live.jsonl"))
        # The last controller of a quorum cannot shut down cleanly alone (it
        # waits out its timeout): the cluster is killed, all at once.
        for x in cl.nodes:
            x.kill()
        dirs = [x.data for x in cl.nodes]
        rc, rows, err = h.kfsck_json("replicas", *dirs)
        reps = {r["broker"]: r for r in rows if r["type"] == "replica" and r["topic"] == "rep"}
        elect = {r["candidate"]: r for r in rows if r["type"] == "election" and r["topic"] == "rep"}
        live_end = h.read_jsonl(s.path("ends-live.jsonl"))[0]["log_end_offset"]
        # each node's own load of its copy
        for x in cl.nodes:
            x.start(wait=False)
        for x in cl.nodes:
            x.wait_started(180)
        loads = {x.node_id: broker_startup(x.lines()).get("rep-0", {}).get("load") for x in cl.nodes}
        for x in cl.nodes:
            x.kill()

        def ends():
            for b, load in sorted(loads.items()):
                if load is None:
                    raise AssertionError(f"broker {b} logged no load of rep-0")
                c._eq(f"broker {b} replica log end", reps[b]["log_end_offset"], load["log_end"])
            c._eq("the in-sync replicas' log end vs ListOffsets on the live cluster",
                  max(r["log_end_offset"] for r in reps.values()), live_end)
            return ", ".join(f"broker {b}: {load['log_end']}" for b, load in sorted(loads.items()))
        suite.check("replicas: each replica's log end vs the broker's own load of it", ends)

        def election():
            e = elect.get(lagging.node_id)
            if e is None:
                raise AssertionError(f"no election line for candidate {lagging.node_id}")
            lag_end = loads[lagging.node_id]["log_end"]
            c._eq("electing the lagging replica: its log end", reps[lagging.node_id]["log_end_offset"], lag_end)
            for f in e["followers"]:
                c._eq(f"follower {f['broker']} truncate_to", f["truncate_to"], lag_end)
                c._eq(f"follower {f['broker']} offsets_lost", f["offsets_lost"], live_end - lag_end)
            return f"electing broker {lagging.node_id} (log end {lag_end}) loses {live_end - lag_end} offsets"
        suite.check("replicas: election of the lagging replica vs the log ends the brokers loaded", election)


ALL += [("replicas", scenario_replicas)]
