"""bench_kafka.py: `make bench`'s rows against Apache Kafka itself (issue 35
item 6): what a user would run instead of kfsck verify.

  - `kafka-dump-log.sh --deep-iteration` (DumpLogSegments) on the same
    uncompressed segments as verify, the whole process (JVM start included)
    as the script runs it: kafka-run-class.sh's JVM options for tools
    (-Xmx256M, G1), output to /dev/null; on the 256 MiB segment of the
    kafka-python row and on the 1 GiB one, alternately with kfsck verify;
  - the broker's own recovery of the same 1 GiB: a KRaft node (the broker
    suite's harness, tests/broker/harness.py) whose partition holds a copy
    of the segment starts with no clean-shutdown file and no recovery point,
    so LogLoader recovers the segment (every batch framed and CRC-checked,
    its indexes rebuilt); the time is the one the broker logs for loading
    that log ("Completed load of Log(...) in N ms"), against kfsck verify of
    the copy, each from the page cache.

Kafka comes from the broker suite's pinned release (tests/broker/pom.xml,
fetched by Maven into tests/broker/.m2repo). Where Java, Maven or Kafka
cannot be had, each row says so instead of a figure.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# kafka-run-class.sh's defaults for a tool (KAFKA_HEAP_OPTS unset: -Xmx256M;
# KAFKA_JVM_PERFORMANCE_OPTS)
TOOL_JVM = ["-Xmx256M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true"]
DUMP = "org.apache.kafka.tools.DumpLogSegments"
TOPICS = "org.apache.kafka.tools.TopicCommand"
LOADED = re.compile(r"Completed load of Log\(dir=(?P<dir>[^,]+),.* in (?P<ms>\d+)ms")
ROUNDS = 3        # DumpLogSegments against verify, each
BROKER_ROUNDS = 2  # unclean starts of the node holding the copy


def harness():
    sys.path.insert(0, os.path.join(ROOT, "tests", "broker"))
    import harness as h  # noqa: E402 (the broker suite's; it needs tests/e2e)
    return h


def kafka_classpath():
    """(harness module, classpath) or (None, why not)."""
    try:
        h = harness()
        return h, h.classpath()
    except Exception as e:  # noqa: BLE001 (Unavailable, or no Java at all)
        return None, str(e) or type(e).__name__


def dump_cmd(cp, path):
    return [os.environ.get("JAVA", "java"), *TOOL_JVM, "-cp", cp, DUMP, "--deep-iteration", "--files", path]


def dump_counts(cp, path, tmp):
    """Batches and records DumpLogSegments prints for path (read as it
    streams, never whole), and whether it found invalid bytes."""
    out = os.path.join(tmp, "dump.txt")
    with open(out, "wb") as f:
        subprocess.run(dump_cmd(cp, path), stdout=f, stderr=subprocess.DEVNULL, check=False)
    nb = nr = 0
    invalid = False
    with open(out, "rb") as f:
        for line in f:
            if line.startswith(b"baseOffset: "):
                nb += 1
            elif line.startswith(b"| offset: "):
                nr += 1
            elif line.startswith(b"Found ") and b"invalid bytes" in line:
                invalid = True
    os.unlink(out)
    return nb, nr, invalid


def bench_kafka(R, T, items, P, verify_cmd, ok_all, check_verify, best, mib, gib_or_mib, top):
    """Adds the rows to the table T (figures measured with the Runner R)."""
    segs = [items["plain"]["segment"]["prefix"], items["plain"]["segment"]]
    figs = ["kafka-dump-log.sh --deep-iteration ÷ verify, whole process, JVM start included, 1 KiB records (%s)"
            % gib_or_mib(s["size"]) for s in segs]
    figs.append("the broker's recovery of the same %s (LogLoader, from the page cache) ÷ verify"
                % gib_or_mib(segs[1]["size"]))
    h, cp = kafka_classpath()
    if h is None:
        print("bench: the rows against Kafka are not measured: %s" % cp, flush=True)
        for f in figs:
            T.add(f, "not measured: %s" % cp.split(" (")[0][:60], "(no goal)", None)
        return

    for seg, fig in zip(segs, figs[:2]):
        path = P(seg["file"])
        R.warm(path)
        nb, nr, invalid = dump_counts(cp, path, R.tmp)
        if (nb, nr, invalid) != (seg["batches"], seg["records"], False):
            R.fail(dump_cmd(cp, path), "expected %d batches, %d records; DumpLogSegments printed %d, %d%s"
                   % (seg["batches"], seg["records"], nb, nr, ", invalid bytes" if invalid else ""))
        kf, dl = [], []
        for _ in range(ROUNDS):
            kf.append(R.run(verify_cmd(path), capture=True))
            dl.append(R.run(dump_cmd(cp, path)))
        check_verify(R, kf, seg)
        a, b = best(dl), best(kf)
        print("kafka-dump-log.sh --deep-iteration, %s: %.2f s (%.1f CPU-seconds, %.0f MB/s); verify %.3f s"
              % (mib(seg["size"]), a, min(r.cpu for r in dl), seg["size"] / 1e6 / a, b), flush=True)
        if ok_all(kf, dl):
            T.add(fig, "%.1fx" % (a / b), "(no goal)", None)
        else:
            T.failed(fig, "(no goal)")

    seg = segs[1]
    work = tempfile.mkdtemp(prefix="broker-", dir=R.tmp)
    node = None
    try:
        node = h.Node(cp, work, extra={"num.recovery.threads.per.data.dir": 1})
        node.format()
        node.start()
        r = subprocess.run([h.JAVA, *TOOL_JVM, "-cp", cp, TOPICS, "--bootstrap-server", node.bootstrap, "--create",
                            "--topic", "bench", "--partitions", "1", "--replication-factor", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("kafka-topics --create: " + r.stdout.decode(errors="replace")[-300:])
        node.stop()
        pdir = os.path.join(node.data, "bench-0")
        for f in os.listdir(pdir):
            if f.endswith((".log", ".index", ".timeindex", ".snapshot")):
                os.unlink(os.path.join(pdir, f))
        copy = os.path.join(pdir, "00000000000000000000.log")
        shutil.copyfile(P(seg["file"]), copy)
        loads, kf = [], []
        for _ in range(BROKER_ROUNDS):
            # a crash: no clean-shutdown file, every recovery point 0
            for f in (".kafka_cleanshutdown", "recovery-point-offset-checkpoint"):
                if os.path.exists(os.path.join(node.data, f)):
                    os.unlink(os.path.join(node.data, f))
            R.warm(copy)
            kf.append(R.run(verify_cmd(copy), capture=True))
            node.start(timeout=600)
            lines = node.lines()
            node.stop()
            ms = [int(m.group("ms")) for l in lines for m in [LOADED.search(l["msg"])]
                  if m and os.path.basename(m.group("dir")) == "bench-0"]
            recovered = any("partition=bench-0," in l["msg"] and "Recovering unflushed segment 0" in l["msg"]
                            for l in lines)
            cut = [l["msg"][:200] for l in lines if "partition=bench-0," in l["msg"] and "Corruption found" in l["msg"]]
            if not ms or not recovered or cut:
                raise RuntimeError("the broker did not recover bench-0 whole (load %s, recovered %s, %s)"
                                   % (ms, recovered, cut))
            loads.append(ms[0] / 1000)
        check_verify(R, kf, seg)
        a, b = min(loads), best(kf)
        print("the broker's recovery of %s (LogLoader, one thread, page cache): %s s; verify of the copy %.3f s"
              % (mib(seg["size"]), ", ".join("%.2f" % x for x in loads), b), flush=True)
        T.add(figs[2], "%.1fx" % (a / b), "(no goal)", None) if ok_all(kf) else T.failed(figs[2], "(no goal)")
    except Exception as e:  # noqa: BLE001 (a node that does not start is one failed row)
        R.fail(["kafka broker recovery"], "%s: %s" % (type(e).__name__, e))
        T.failed(figs[2], "(no goal)")
    finally:
        if node is not None and node.running():
            node.kill()
        shutil.rmtree(work, ignore_errors=True)
