"""offsets_tools: kfsck offsets against kafka-consumer-groups over time and
as the reset tool reads it (scenario 'offsets-tools' of tests/broker/run.py).

One KRaft node. Groups commit, move on, are deleted and commit inside a
transaction; `kafka-consumer-groups --describe --offsets` is captured at
several moments T along the way. After a clean stop, `kfsck offsets --as-of
T` is held against what the tool said at each T. Then the broker is started
again, the groups' offsets moved elsewhere, and kfsck's `--format reset-csv`
files applied for real with `kafka-consumer-groups --reset-offsets
--from-file` (one group and every group; dry run, then execute on the
stopped groups): the tool's NEW-OFFSETs and the offsets it then describes
against the file, an offset past the log end clamped by the tool to the log
end kfsck gives.
"""
import time

import compare as c
import harness as h
import scenarios as sc

GROUPS = sc.GROUPS
ODD = 'g,comma"quote'  # a group name the CSV must quote


def now_ms():
    return int(time.time() * 1000)


def describe_offsets(d, s, bootstrap, tag):
    code, text, err = d.tool(s.path(f"describe-{tag}.txt"), GROUPS, "--bootstrap-server", bootstrap, "--describe",
                             "--all-groups", "--offsets")
    if code != 0:
        raise AssertionError(f"kafka-consumer-groups --describe exited {code}: {err[-300:]}")
    return {k: int(r["CURRENT-OFFSET"]) for k, r in sc.parse_offsets(text).items() if r["CURRENT-OFFSET"] != "-"}


def kfsck_offsets(data, *extra):
    rc, rows, err = h.kfsck_json("offsets", *extra, data)
    if rc not in (0, 1):
        raise AssertionError(f"kfsck offsets exit {rc}: {err[:300]}")
    return rows


def parse_reset(text):
    """--reset-offsets output: {(group, topic, partition): NEW-OFFSET}."""
    out = {}
    for r in c.parse_table(text):
        if "NEW-OFFSET" in r and r.get("TOPIC") not in (None, "-"):
            out[(r["GROUP"], r["TOPIC"], int(r["PARTITION"]))] = int(r["NEW-OFFSET"])
    return out


def read_csv(text):
    """kfsck's reset-csv lines, 3 or 4 fields, with CSV quoting."""
    import csv
    import io
    return [row for row in csv.reader(io.StringIO(text)) if row]


def scenario_offsets_tools(suite, cp):
    with sc.Scenario(cp) as s:
        n = s.node()
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        d.cmd("topic", name="asof", partitions=2)
        d.cmd("produce", topic="asof", n=400, per=20, size=100)
        d.cmd("topic", name="asof2", partitions=1)
        d.cmd("produce", topic="asof2", n=100, per=10)
        said, at = {}, {}

        def moment(tag):
            time.sleep(0.02)  # every commit so far has an earlier timestamp than T
            at[tag] = now_ms()
            time.sleep(0.02)
            said[tag] = describe_offsets(d, s, n.bootstrap, tag)

        d.cmd("consume", group="g-a", topic="asof", max=60)
        d.cmd("consume", group="g-b", topic="asof", protocol="consumer", max=90)
        d.cmd("commit", group=ODD, topic="asof2", partition=0, offset=33, metadata="odd")
        moment("t1")
        d.cmd("consume", group="g-a", topic="asof", max=50)
        d.cmd("commit", group="g-c", topic="asof2", partition=0, offset=40)
        d.cmd("txn", id="tx-asof", topic="asof2", n=6, end="open", group="g-t")
        moment("t2")
        d.cmd("txnend", id="tx-asof", end="commit")
        d.cmd("offsetdel", group="g-b", topic="asof", partition=1)
        d.cmd("groupdel", group="g-c")
        moment("t3")
        d.cmd("consume", group="g-a", topic="asof", max=70)
        d.cmd("commit", group="g-far", topic="asof", partition=0, offset=100000)
        d.cmd("commit", group="g-far", topic="asof", partition=1, offset=7)
        moment("t4")
        n.stop()
        data = n.data
        rows_now = kfsck_offsets(data)

        for tag in ("t1", "t2", "t3", "t4"):
            def asof(tag=tag):
                rows = kfsck_offsets(data, "--as-of", str(at[tag]))
                got = {(r["group"], r["topic"], r["partition"]): r["offset"] for r in rows if r["type"] == "offset"}
                c._eq(f"offsets --as-of {at[tag]} ({tag})", got, said[tag])
                return f"{len(got)} committed offsets as of {tag}"
            suite.check(f"offsets-tools: offsets --as-of T vs kafka-consumer-groups --describe at T ({tag})", asof)

        # the reset files, made on the stopped broker's files
        rc, one_csv, err = h.kfsck("offsets", "--group", "g-a", "--format", "reset-csv", data)
        rc, all_csv, err = h.kfsck("offsets", "--format", "reset-csv", data)
        with open(s.path("g-a.csv"), "w") as f:
            f.write(one_csv)
        with open(s.path("all.csv"), "w") as f:
            f.write(all_csv)
        table = {(r["group"], r["topic"], r["partition"]): r for r in rows_now if r["type"] == "offset"}
        n.start()
        # the groups move on: every committed offset changed
        for (g, t, p), r in sorted(table.items()):
            d.cmd("commit", group=g, topic=t, partition=p, offset=1 + p)

        def reset(what, args, csv_path, lines):
            moved = describe_offsets(d, s, n.bootstrap, f"before-{what}")
            code, text, err = d.tool(s.path(f"reset-{what}-dry.txt"), GROUPS, "--bootstrap-server", n.bootstrap,
                                     *args, "--reset-offsets", "--from-file", csv_path, "--dry-run")
            if code != 0:
                raise AssertionError(f"--reset-offsets --dry-run exited {code}: {text[-300:]} {err[-300:]}")
            dry = parse_reset(text)
            still = describe_offsets(d, s, n.bootstrap, f"after-dry-{what}")
            c._eq(f"{what}: offsets after the dry run", still, moved)
            code, text, err = d.tool(s.path(f"reset-{what}-exec.txt"), GROUPS, "--bootstrap-server", n.bootstrap,
                                     *args, "--reset-offsets", "--from-file", csv_path, "--execute")
            if code != 0:
                raise AssertionError(f"--reset-offsets --execute exited {code}: {text[-300:]} {err[-300:]}")
            done = parse_reset(text)
            after = describe_offsets(d, s, n.bootstrap, f"after-exec-{what}")
            want = {}
            for k in lines:
                r = table[k]
                # the tool clamps an offset past the log end to the log end
                want[k] = min(r["offset"], r["log_end_offset"])
            c._eq(f"{what}: the dry run's NEW-OFFSET", {k: v for k, v in dry.items() if k in want}, want)
            c._eq(f"{what}: the execute's NEW-OFFSET", {k: v for k, v in done.items() if k in want}, want)
            c._eq(f"{what}: offsets described after the reset", {k: v for k, v in after.items() if k in want}, want)
            return dry, want

        def one():
            lines = [("g-a", t, int(p), int(o)) for t, p, o in read_csv(one_csv)]
            c._eq("g-a.csv lines vs kfsck's table", sorted((t, p, o) for _, t, p, o in lines),
                  sorted((t, p, r["offset"]) for (g, t, p), r in table.items() if g == "g-a"))
            dry, want = reset("one", ["--group", "g-a"], s.path("g-a.csv"), [(g, t, p) for g, t, p, _ in lines])
            return f"{len(want)} partitions of g-a restored as the file says"
        suite.check("offsets-tools: reset-csv of one group applied by --reset-offsets --from-file", one)

        def every():
            lines = [(g, t, int(p), int(o)) for g, t, p, o in read_csv(all_csv)]
            c._eq("all.csv lines vs kfsck's table", sorted(lines),
                  sorted((g, t, p, r["offset"]) for (g, t, p), r in table.items()))
            if not any(g == ODD for g, _, _, _ in lines):
                raise AssertionError(f"no line for the group {ODD!r}")
            keys = [(g, t, p) for g, t, p, _ in lines]
            dry, want = reset("all", ["--all-groups"], s.path("all.csv"), keys)
            far = ("g-far", "asof", 0)
            c._eq("g-far asof-0: kfsck says above_log_end", table[far].get("out_of_range"), "above_log_end")
            return (f"{len(want)} offsets of {len({k[0] for k in keys})} groups restored; g-far's 100000 clamped to "
                    f"the log end {want[far]} kfsck gives")
        suite.check("offsets-tools: reset-csv of every group applied by --all-groups --reset-offsets --from-file "
                    "(an offset past the log end clamped)", every)
        n.stop()


ALL = [("offsets-tools", scenario_offsets_tools)]
