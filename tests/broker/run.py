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
import scenario_tiered  # noqa: E402

# Every scenario in the order the suite runs them.
ALL = scenarios.ALL + elections.ALL + offsets_tools.ALL + metadata_tools.ALL + cleaner.ALL + repair_load.ALL + timestamps.ALL + scenario_tiered.ALL + zookeeper.ALL

# Disagreements found between kfsck and the broker, kept in the suite until
# kfsck is fixed (the lead deletes an entry with the fix). Key: a check name
# (or the start of one, ending in "*"); value: what differs and why
# (details: /work/notes/broker-findings.md in the lead's notes).
KNOWN = {
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
