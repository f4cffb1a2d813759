"""elections: kfsck replicas against real leader elections (scenario
'elections' of tests/broker/run.py).

A dedicated KRaft controller and three brokers (2, 3, 4), two topics of
three replicas with min.insync.replicas=2, each led by broker 2. Records
are written with acks=all while all three are in sync; broker 4 is stopped
cleanly and more records are written with acks=all (brokers 2 and 3 in
sync); broker 3 is killed and a few records are written with acks=1 (only
the leader has them); then the leader, broker 2, is killed and a batch in
its log damaged. No replica in sync is left. kfsck replicas forecasts, on
the three brokers' files, each follower's truncation if broker 4 is elected
and what that election loses. Then broker 4 is started and elected
uncleanly, one topic with `kafka-leader-election --election-type unclean`,
the other by setting its `unclean.leader.election.enable` with
`kafka-configs`; brokers 3 and 2 are started and follow it. The forecast is
held against the log end GetOffsetShell gives on the new leader, what each
follower logged as its truncation, the log ends each broker holds after a
clean stop (read back with kfsck scan), and the high watermark ListOffsets
gave before the crash (what acks=all producers had been told).
"""
import json
import os
import re

import compare as c
import harness as h
import scenarios as sc

TOPICS = {"elect-tool": "kafka-leader-election --election-type unclean",
          "elect-config": "unclean.leader.election.enable=true (kafka-configs)"}
LEADER, FOLLOWER, STOPPED = 2, 3, 4
ELECTION = "org.apache.kafka.tools.LeaderElectionCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"
OFFSETS = "org.apache.kafka.tools.GetOffsetShell"

BROKER_EXTRA = {"broker.heartbeat.interval.ms": 500, "replica.lag.time.max.ms": 5000,
                "replica.high.watermark.checkpoint.interval.ms": 1000,
                "log.flush.offset.checkpoint.interval.ms": 1000}
CONTROLLER_EXTRA = {"broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500,
                    "unclean.leader.election.interval.ms": 1000}

TRUNC = re.compile(r"Truncating partition (?P<part>\S+) with TruncationState\(offset=(?P<offset>\d+), "
                   r"completed=(?P<done>\w+)\)")


def partinfo(d, s, topic):
    out = s.path(f"partinfo-{topic}.jsonl")
    d.cmd("partinfo", topic=topic, out=out)
    return h.read_jsonl(out)[0]


def wait_part(d, s, topic, what, pred, timeout=60):
    return h.wait_for(lambda: (lambda p: p if pred(p) else None)(partinfo(d, s, topic)), timeout,
                      f"{topic}-0: {what}", step=0.5)


def hw_checkpoint(data, part):
    return sc.checkpoint_value(os.path.join(data, "replication-offset-checkpoint"), part)


def get_offsets(d, s, bootstrap, topic, tag):
    """GetOffsetShell's (kafka-get-offsets.sh) latest offset of topic-0, or
    None with the tool's error when the partition gives none (a new leader
    whose high watermark is below its epoch's start answers
    OFFSET_NOT_AVAILABLE; the tool gives up after 5 s)."""
    cfg = s.path("get-offsets.properties")
    with open(cfg, "w") as f:
        f.write("default.api.timeout.ms=5000\nrequest.timeout.ms=4000\n")
    code, text, err = d.tool(s.path(f"get-offsets-{topic}-{tag}.txt"), OFFSETS, "--bootstrap-server", bootstrap,
                             "--command-config", cfg, "--topic", topic, "--time", "-1")
    m = re.search(rf"^{re.escape(topic)}:0:(\d+)$", text, re.M)
    if code == 0 and m:
        return int(m.group(1)), None
    return None, (text.strip() or err.strip()).splitlines()[-1][:300] if (text.strip() or err.strip()) else f"exit {code}"


LEADS = re.compile(r"Leader (?P<part>\S+) with topic id \S+ starts at leader epoch (?P<epoch>\d+) from offset "
                   r"(?P<offset>\d+) with partition epoch \d+, high watermark (?P<hw>\d+)")


def leader_start(node, part):
    """(log end, high watermark) a broker logged becoming part's leader."""
    out = None
    for l in node.lines():
        m = LEADS.search(l["msg"])
        if m and m.group("part") == part:
            out = (int(m.group("offset")), int(m.group("hw")))
    return out


def metadata_size(node):
    return sum(os.path.getsize(f) for f in sc.segments(os.path.join(node.data, "__cluster_metadata-0")))


def truncations(node, part):
    """The offsets a follower logged truncating part to (ReplicaFetcher's
    'Truncating partition P with TruncationState(offset=N, ...)')."""
    out = []
    for l in node.lines():
        m = TRUNC.search(l["msg"])
        if m and m.group("part") == part:
            out.append(int(m.group("offset")))
    return out


def scenario_elections(suite, cp):
    with sc.Scenario(cp) as s:
        cl = h.ControllerCluster(cp, s.work.path, 3, extra=BROKER_EXTRA, controller_extra=CONTROLLER_EXTRA)
        s.nodes.extend(cl.nodes)
        cl.format()
        cl.start()
        node = {n.node_id: n for n in cl.nodes}
        d = s.driver(cl.bootstrap)
        for t in TOPICS:
            d.cmd("topic", name=t, assign=f"{LEADER}:{FOLLOWER}:{STOPPED}", config="min.insync.replicas:2")
            d.cmd("produce", topic=t, n=100, per=10, size=200)
        node[STOPPED].stop()
        for t in TOPICS:
            wait_part(d, s, t, f"broker {STOPPED} out of the ISR", lambda p: STOPPED not in p["isr"])
            d.cmd("produce", topic=t, n=50, per=10, size=200, prefix="isr2-")
        # both in-sync replicas' high-watermark checkpoints reach the end
        for b in (LEADER, FOLLOWER):
            h.wait_for(lambda b=b: all(hw_checkpoint(node[b].data, f"{t}-0") == 150 for t in TOPICS), 20,
                       f"broker {b}'s replication-offset-checkpoint at 150")
        node[FOLLOWER].kill()
        for t in TOPICS:
            wait_part(d, s, t, f"broker {FOLLOWER} out of the ISR", lambda p: FOLLOWER not in p["isr"])
            d.cmd("produce", topic=t, n=30, per=10, size=200, prefix="alone-", idempotent="false", acks="1")
            d.cmd("ends", topic=t, out=s.path(f"ends-before-{t}.jsonl"))
        before = {t: h.read_jsonl(s.path(f"ends-before-{t}.jsonl"))[0] for t in TOPICS}
        h.time.sleep(1.5)  # one more high-watermark checkpoint on the leader
        node[LEADER].kill()
        # no broker left to ask: the controller's log says when it fenced the leader
        h.wait_for(lambda: any(f"Fencing broker {LEADER} " in l["msg"] for l in cl.controller.lines()), 30,
                   f"the controller to fence broker {LEADER}")
        # ... and wrote the partition changes: two more batches (NoOps every 500 ms) follow them
        size = metadata_size(cl.controller)
        for _ in range(2):
            h.wait_for(lambda: metadata_size(cl.controller) > size, 10, "the controller's metadata log to grow")
            size = metadata_size(cl.controller)
        # damage: one batch of the leader's log fails its CRC (recovery cuts there)
        cut_at = {"elect-tool": -6, "elect-config": -9}
        damaged = {}
        for t in TOPICS:
            seg = sc.segments(os.path.join(node[LEADER].data, f"{t}-0"))[-1]
            pos, base = sc.flip_crc(seg, which=cut_at[t])
            damaged[t] = (os.path.basename(seg), pos, base)
        dirs = [n.data for n in cl.brokers]
        rc, rows, err = h.kfsck_json("replicas", cl.controller.data, *dirs)
        with open(s.path("replicas.jsonl"), "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows))
        reps = {(r["topic"], r["broker"]): r for r in rows if r["type"] == "replica"}
        elect = {(r["topic"], r["candidate"]): r for r in rows if r["type"] == "election"}
        parts = {r["topic"]: r for r in rows if r["type"] == "partition"}

        # broker 4 back; elected uncleanly, each topic its own way
        node[STOPPED].start()
        code, text, errt = d.tool(s.path("leader-election.txt"), ELECTION, "--bootstrap-server",
                                  node[STOPPED].bootstrap, "--election-type", "unclean", "--topic", "elect-tool",
                                  "--partition", "0")
        elected_tool = (code, text.strip(), errt.strip())
        code, text, errt = d.tool(s.path("configs.txt"), CONFIGS, "--bootstrap-server", node[STOPPED].bootstrap,
                                  "--alter", "--entity-type", "topics", "--entity-name", "elect-config",
                                  "--add-config", "unclean.leader.election.enable=true")
        altered = (code, text.strip(), errt.strip())
        led = {t: wait_part(d, s, t, f"broker {STOPPED} leads", lambda p: p["leader"] == STOPPED) for t in TOPICS}
        starts = {t: h.wait_for(lambda t=t: leader_start(node[STOPPED], f"{t}-0"), 30,
                                f"broker {STOPPED} to lead {t}-0") for t in TOPICS}
        listed = {t: get_offsets(d, s, node[STOPPED].bootstrap, t, "elected") for t in TOPICS}
        # the others follow it
        node[FOLLOWER].start()
        node[LEADER].start()
        for t in TOPICS:
            wait_part(d, s, t, "all three in the ISR", lambda p: sorted(p["isr"]) == [LEADER, FOLLOWER, STOPPED], 90)
        after_follow = {t: get_offsets(d, s, cl.bootstrap, t, "followed")[0] for t in TOPICS}
        loads = {b: sc.broker_startup(node[b].lines()) for b in (LEADER, FOLLOWER)}
        trunc = {(t, b): truncations(node[b], f"{t}-0") for t in TOPICS for b in (LEADER, FOLLOWER)}
        cl.stop()
        held = {b: sc.scan_ends(node[b].data) for b in (LEADER, FOLLOWER, STOPPED)}

        for t, how in TOPICS.items():
            def elected(t=t, how=how):
                e = elect.get((t, STOPPED))
                if e is None:
                    raise AssertionError(f"no election line for candidate {STOPPED}")
                r = reps[(t, STOPPED)]
                end, hw = starts[t]
                c._eq(f"{t}: broker {STOPPED}'s log end vs the offset it started leading from", r["log_end_offset"], end)
                if "leader_log_end" in e:
                    c._eq(f"{t}: election leader_log_end vs the offset the new leader started from",
                          e["leader_log_end"], end)
                c._eq(f"{t}: broker {STOPPED}'s high watermark vs the one it started leading with",
                      r["high_watermark"], hw)
                # ListOffsets answers only once the high watermark reaches the epoch's start
                offset, why = listed[t]
                c._eq(f"{t}: GetOffsetShell right after the election answers (high watermark {hw} >= "
                      f"log end {end}; {why})", offset is not None, hw >= end)
                if offset is not None:
                    c._eq(f"{t}: GetOffsetShell right after the election", offset, end)
                c._eq(f"{t}: GetOffsetShell once the others follow", after_follow[t], end)
                return (f"{how}: broker {STOPPED} leads from {end}, high watermark {hw}; GetOffsetShell "
                        f"{offset if offset is not None else 'none (' + why[:80] + ')'}, then {after_follow[t]}")
            suite.check(f"elections: {t}: unclean election of broker {STOPPED} vs its start as leader and "
                        f"GetOffsetShell", elected)

            for b in (LEADER, FOLLOWER):
                def follow(t=t, b=b):
                    e = elect[(t, STOPPED)]
                    f = next((x for x in e["followers"] if x["broker"] == b), None)
                    if f is None:
                        raise AssertionError(f"the election of {STOPPED} has no follower {b}")
                    loaded = loads[b].get(f"{t}-0", {}).get("load")
                    c._eq(f"{t}: broker {b} log end before following (its own load after the crash)",
                          reps[(t, b)]["log_end_offset"], loaded["log_end"])
                    # where it truncated: its fetcher's last TruncationState line; a
                    # follower whose log ends below the leader's logs none (it
                    # fetches on from its own end)
                    logged = trunc[(t, b)]
                    to = logged[-1] if logged else loaded["log_end"]
                    c._eq(f"{t}: broker {b} truncate_to vs its ReplicaFetcher's truncation "
                          f"({'logged' if logged else 'none logged: its own log end'})", f["truncate_to"], to)
                    c._eq(f"{t}: broker {b} offsets_lost", f["offsets_lost"], loaded["log_end"] - to)
                    acked = max(0, min(loaded["log_end"], before[t]["log_end_offset"]) - to)
                    c._eq(f"{t}: broker {b} acknowledged_lost (below ListOffsets' high watermark "
                          f"{before[t]['log_end_offset']} before the crash)", f["acknowledged_lost"], acked)
                    # then it fetched what the new leader has: its log ends where the leader's does
                    c._eq(f"{t}: broker {b}'s log end after following (read back after a clean stop)",
                          held[b][f"{t}-0"]["log_end_offset"], starts[t][0])
                    return (f"loaded {loaded['log_end']}, truncated to {to} (forecast {f['truncate_to']}), "
                            f"lost {f['offsets_lost']}, {f['acknowledged_lost']} acknowledged")
                suite.check(f"elections: {t}: broker {b}'s truncation following broker {STOPPED} vs the broker", follow)

            def lost(t=t):
                e = elect[(t, STOPPED)]
                hw = before[t]["log_end_offset"]
                new_end = starts[t][0]
                ends = {b: loads[b][f"{t}-0"]["load"]["log_end"] for b in (LEADER, FOLLOWER)}
                c._eq(f"{t}: election offsets_lost", e["offsets_lost"], max(max(0, x - new_end) for x in ends.values()))
                c._eq(f"{t}: election acknowledged_lost", e["acknowledged_lost"],
                      max(max(0, min(x, hw) - new_end) for x in ends.values()))
                return f"the followers lose {e['offsets_lost']} offsets, {e['acknowledged_lost']} of them acknowledged"
            suite.check(f"elections: {t}: what the election loses vs the followers' truncations and ListOffsets' "
                        f"high watermark before the crash", lost)

            def missing(t=t):
                e = elect[(t, STOPPED)]
                hw = before[t]["log_end_offset"]
                new_end = starts[t][0]
                if "acknowledged_missing" not in e:
                    raise AssertionError(f"no acknowledged_missing on the election line (cli.md); the election lost "
                                         f"{hw - new_end} offsets ListOffsets had acknowledged ({new_end}..{hw - 1})")
                c._eq(f"{t}: election acknowledged_missing", e["acknowledged_missing"], hw - new_end)
                return f"{hw - new_end} acknowledged offsets missing ({new_end}..{hw - 1})"
            suite.check(f"elections: {t}: acknowledged_missing vs ListOffsets' high watermark before the crash",
                        missing)

            def image(t=t):
                # the state the controller changed: "isr: [] -> [4], leader: -1 -> 4, ..."
                line = next((l["msg"] for l in cl.controller.lines()
                             if f"UNCLEAN partition change for {t}-0 " in l["msg"]), None)
                if line is None:
                    raise AssertionError(f"the controller logged no unclean partition change for {t}-0")
                was = {k: v for k, v, _ in re.findall(r"(\w+): (\[[^\]]*\]|-?\d+|\w+) -> (\[[^\]]*\]|-?\d+|\w+)",
                                                     line.split(": ", 1)[1])}
                p = parts[t]
                c._eq(f"{t}: leader", p["leader"], int(was["leader"]))
                c._eq(f"{t}: isr", p["isr"], json.loads(was["isr"]))
                c._eq(f"{t}: elr", p["elr"], json.loads(was.get("elr", json.dumps(p["elr"]))))
                c._eq(f"{t}: leader_epoch", p["leader_epoch"], int(was["leaderEpoch"]))
                c._eq(f"{t}: electing broker {STOPPED} is unclean (in neither ISR nor ELR)",
                      STOPPED not in p["isr"] + p["elr"], True)
                return f"leader {p['leader']}, isr {p['isr']}, elr {p['elr']}, epoch {p['leader_epoch']}"
            suite.check(f"elections: {t}: replicas' KRaft partition state vs the controller's unclean partition change",
                        image)

            def salvage(t=t):
                e = elect[(t, STOPPED)]
                if "salvage" not in e:
                    raise AssertionError("no salvage on the election line (cli.md)")
                # The follower that was in sync held every acknowledged offset
                # (its own load, before it truncated): the salvage covers them.
                hw, new_end = before[t]["log_end_offset"], starts[t][0]
                got = sorted((x["from_offset"], x["to_offset"], x["broker"]) for x in e["salvage"] or [])
                covered = []
                for lo, hi, b in got:
                    if b not in (LEADER, FOLLOWER):
                        raise AssertionError(f"{t}: salvage {lo}..{hi} from broker {b}")
                    if covered and covered[-1][1] == lo:
                        covered[-1][1] = hi
                    else:
                        covered.append([lo, hi])
                c._eq(f"{t}: the acknowledged offsets salvage covers", covered, [[new_end, hw]])
                return f"salvage {got}"
            suite.check(f"elections: {t}: salvage vs the replicas' files before the election", salvage)

        print(f"  (elections: the leader's damage: {damaged}; replicas exit {rc}; {elected_tool[1]}; {altered[1]})",
              flush=True)

ALL = [("elections", scenario_elections)]
