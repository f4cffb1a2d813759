"""run: the broker suite (`make check-broker`): kfsck held against a real
Apache Kafka (the release pinned in tests/broker/pom.xml).

Each scenario starts its own broker(s) in a fresh temporary directory, drives
a workload with the real client (Driver.java), captures what Kafka's own tools
say, stops or crashes the broker, and compares kfsck's answers on the files
with them. Every comparison is one named check: `ok`, `FAIL` (with the first
difference) or `known` (a disagreement listed in KNOWN below, reported, not
passed). The last line is `broker: N passed, M failed` (known ones are
counted as neither, and the line before says how many). Exit 1 on any failure or if
Kafka cannot be had.

Usage: python3 tests/broker/run.py [SCENARIO...]   (default: all)
Env: KFSCK (the binary, default ./kfsck), KFSCK_BROKER_KEEP=1 keeps the
temporary dirs, KFSCK_BROKER_DEADLINE (seconds for the whole run, default 840).
"""
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
import scenarios  # noqa: E402
import elections  # noqa: E402
import offsets_tools  # noqa: E402
import metadata_tools  # noqa: E402
import cleaner  # noqa: E402
import repair_load  # noqa: E402
import timestamps  # noqa: E402
import zookeeper  # noqa: E402

# Every scenario in the order the suite runs them.
ALL = scenarios.ALL + elections.ALL + offsets_tools.ALL + metadata_tools.ALL + cleaner.ALL + repair_load.ALL + timestamps.ALL + zookeeper.ALL

# Disagreements found between kfsck and the broker, kept in the suite until
# kfsck is fixed (the lead deletes an entry with the fix). Key: a check name
# (or the start of one, ending in "*"); value: what differs and why
# (details: /work/notes/broker-findings.md in the lead's notes).
KNOWN = {
    "clean: groups vs kafka-consumer-groups --describe --state --members":
        "a group whose only offset commit was transactional and aborted (g-txn-aborted): the coordinator "
        "creates the classic group when it replays the commit, keeps it Empty after the ABORT, and "
        "`describe` lists it (the broker log: 'Loaded classic group g-txn-aborted with 0 members'); "
        "kfsck groups does not list it",
    "clean: offsets and groups decode every record the group coordinator loaded":
        "Kafka 4.4.0 writes ShareGroupStatePartitionMetadataValue (record type 15) as InitializingTopics, "
        "InitializedTopics (topic id, name, partitions), DeletingTopics; kfsck knows the 4.0 layout (no "
        "InitializingTopics) and a later one with a create timestamp, neither decodes, and it reports a "
        "coordinator_load_error (exit 1) for a partition the coordinator loads",
    "clean: groups vs kafka-consumer-groups after a restart on the same files":
        "same as above, after a restart: the group is loaded from the log",
    "crash: predict damage_kept below the recovery point vs the broker's start-up":
        "predict has no damage_kept: a CRC failure in a segment below the recovery point is not "
        "recovered (no LogLoader line for that segment) and is still in the file after start-up",
    "clean-torn: predict damage_kept torn tail vs the files after the broker appended":
        "after a clean shutdown the broker does not recover: it keeps a torn last batch and appends "
        "the next batch behind the torn bytes; predict reports no damage_kept",
    "clean-torn: predict damage_kept CRC failure in the last batch vs the files after the broker appended":
        "after a clean shutdown a batch failing its CRC is kept and served, and the next batch is "
        "appended behind it; predict reports no damage_kept",
    "clean-torn: predict CRC failure in the last batch after a clean shutdown: ccrc-0 vs the broker's start-up":
        "after a clean shutdown the log end is the end of the last batch that frames, CRC unchecked "
        "(LogSegment.readNextOffset); predict's log_end_offset_after stops before the CRC failure",
    "clean-torn: predict CRC failure in the last batch after a clean shutdown: ccrc-0 log end vs ListOffsets":
        "same as above: ListOffsets on the restarted broker gives the end of the damaged batch",
    "clean-torn: predict missing .index after a clean shutdown: cnoindex-0 vs the broker's start-up":
        "a missing .index makes the broker run recoverSegment on that segment even after a clean "
        "shutdown ('Could not find offset index file ..., recovering segment and rebuilding index "
        "files'): every batch read and CRC-checked, a cut possible; predict says rebuild_index only",
    "leftovers: predict replication checkpoint ahead of the log vs the broker's start-up":
        "predict has no acknowledged_missing (cli.md): the checkpoint says high watermark 90, the log "
        "ends at 40; the broker silently starts the partition with high watermark 40",
    "leftovers: predict truncated quorum-state vs whether the node starts":
        "a quorum-state cut in half stops the node (SharedServer: 'Error while reading the Quorum "
        "status from the file', JsonEOFException, fatal fault); predict has no fatal action",
    "offsets-tools: offsets --as-of T vs kafka-consumer-groups --describe at T (t2)":
        "a transactional offset commit whose COMMIT marker came after T: --as-of takes it at its record's "
        "commit_timestamp (before T); the coordinator shows it only once the marker is replayed, so "
        "kafka-consumer-groups at T did not list it",
    "metadata: predict on the newest snapshot with a CRC failure in a data batch vs whether the node starts":
        "a CRC failure in a data batch of the newest KRaft snapshot stops the node (SharedServer: "
        "CorruptRecordException 'Record is corrupt (stored crc = ..., computed crc = ...)', fatal fault); "
        "predict has no fatal action",
    "metadata: predict on the newest snapshot with cut short in its last data batch vs whether the node starts":
        "the newest snapshot cut inside its (only) data batch: the node loads what is left (no data records) "
        "and then dies replaying the log after it ('Error loading metadata log record from offset N: Tried "
        "to change broker 1, but that broker was not registered', fatal fault); predict says it starts",
    "elections: elect-tool: acknowledged_missing vs ListOffsets' high watermark before the crash":
        "replicas' election lines have no acknowledged_missing (cli.md): the lone replica elected uncleanly "
        "ends at 100 while ListOffsets had acknowledged up to 150",
    "elections: elect-config: acknowledged_missing vs ListOffsets' high watermark before the crash":
        "same as above, the election made by unclean.leader.election.enable",
    "elections: elect-tool: salvage vs the replicas' files before the election":
        "replicas' election lines have no salvage (cli.md): the follower that was in sync still held "
        "every acknowledged offset the election loses",
    "elections: elect-config: salvage vs the replicas' files before the election":
        "same as above, the election made by unclean.leader.election.enable",
}


class Suite:
    def __init__(self, deadline):
        self.results = []  # (status, name, detail)
        self.deadline = deadline

    def known(self, name):
        for k, why in KNOWN.items():
            if name == k or (k.endswith("*") and name.startswith(k[:-1])):
                return why
        return None

    def check(self, name, fn, *args):
        """Runs one comparison; fn raises AssertionError (or anything) on a
        disagreement. Its return value (a short note) is printed."""
        t = time.monotonic()
        try:
            note = fn(*args)
            status, detail = "ok", note
        except AssertionError as e:
            status, detail = "FAIL", str(e)
        except Exception as e:  # noqa: BLE001 (a comparison that cannot run fails)
            status, detail = "FAIL", f"{type(e).__name__}: {e}"
        why = self.known(name)
        if why is not None:
            if status == "FAIL":
                status, detail = "known", f"{detail}  [known: {why}]"
            else:
                status, detail = "FAIL", f"listed in KNOWN but now agrees (delete the entry): {why}"
        self.results.append((status, name, detail))
        took = time.monotonic() - t
        line = f"{status:<5} {name}"
        if detail:
            line += f": {str(detail)[:600]}"
        if took > 5:
            line += f" ({took:.0f}s)"
        print(line, flush=True)
        return status == "ok"

    def fail(self, name, detail):
        self.results.append(("FAIL", name, detail))
        print(f"FAIL  {name}: {detail}", flush=True)

    def left(self):
        return self.deadline - time.monotonic()


def main(argv):
    deadline = time.monotonic() + float(os.environ.get("KFSCK_BROKER_DEADLINE", "840"))
    os.environ.setdefault("KFSCK", os.path.join(h.ROOT, "kfsck"))
    try:
        cp = h.classpath()
    except h.Unavailable as e:
        print(f"broker: cannot run: {e}")
        return 1
    print(f"broker: Apache Kafka {h.kafka_version()}, kfsck {os.environ['KFSCK']}", flush=True)
    suite = Suite(deadline)
    names = argv or [n for n, _ in ALL]
    for name in names:
        fn = dict(ALL).get(name)
        if fn is None:
            print(f"broker: no scenario {name} (have: {', '.join(n for n, _ in ALL)})")
            return 2
        if suite.left() < 30:
            suite.fail(f"{name}", "not run: the suite's deadline passed")
            continue
        t = time.monotonic()
        print(f"== {name}", flush=True)
        try:
            fn(suite, cp)
        except Exception as e:  # noqa: BLE001 (a scenario that breaks is one failure)
            suite.fail(f"{name}: scenario", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        print(f"   ({name}: {time.monotonic() - t:.0f}s)", flush=True)
    passed = sum(1 for s, _, _ in suite.results if s == "ok")
    failed = sum(1 for s, _, _ in suite.results if s == "FAIL")
    known = sum(1 for s, _, _ in suite.results if s == "known")
    if known:
        print(f"known disagreements ({known}), listed in tests/broker/run.py KNOWN:")
        for s, n, d in suite.results:
            if s == "known":
                print(f"  {n}: {d[:300]}")
    print(f"broker: {passed + failed + known} comparisons, {known} known disagreements")
    print(f"broker: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
