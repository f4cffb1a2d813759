#!/usr/bin/python3
"""Problem codes: every code kfsck emits is one a public header declares
(KF_P_* in any include/kfsck/*.h or sys/*.h), so a program linking libkfsck can know them
all; every declared code is emitted by some command over the fixtures or is
in NOT_EMITTED_BY_FIXTURES with the reason; and the library names its codes
through those macros, not loose strings.

Every command runs with --json over every fixture directory it takes, one at
a time (a copy alone shows damage that the other copies of its partition
would cover), and the codes of its "problem" lines (for repair and merge
also the "reason" of their "dropped" lines) are collected; each run must
exit 0 or 1, except a directory that is no Kafka directory at all (exit 3,
named on stderr)."""
import glob
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, ROOT, jsonl, run  # noqa: E402

# Declared codes that no command emits over the committed fixtures, and why.
NOT_EMITTED_BY_FIXTURES = {
    "bad_attributes": "an unknown codec id needs a batch no encoder writes; no fixture or test has one yet",
    "bad_connect_record": "no Connect offsets fixture holds a malformed record yet",
    "bad_marker": "a control batch with an unreadable marker: tests/unit/test_txns.c builds it",
    "bad_scan_line": "replicas' scan files are no fixtures: test_replicas.py writes bad lines into one",
    "base_offset_mismatch": "a segment named after another offset: test_verify.py builds it in a temporary copy",
    "batch_too_large": "a batch past --max-batch-bytes' cap is refused before it is read; no test gives one yet",
    "checkpoint_ahead_of_log": "built by test_scan.py in temporary copies of fixtures/datadir",
    "checkpoint_missing_entry": "built by test_scan.py in temporary copies of fixtures/datadir",
    "checkpoint_orphan_entry": "built by test_scan.py in temporary copies of fixtures/datadir",
    "cleaner_offset_out_of_range": "no fixture's cleaner-offset-checkpoint is out of range yet",
    "duplicate_replica": "two log dirs of one broker holding one partition: built by test_replicas.py",
    "committed_offset_damaged": "no fixture commits inside a damaged batch of its partition: test_offsets_view.py builds one",
    "count_mismatch": "a batch whose record count disagrees with its records: tests/unit/test_batch.c",
    "index_corrupt": "an index whose size is no multiple of its entry: tests/unit/test_index.c",
    "last_offset_overflow": "a batch whose next offset is past 2^63-1: built by test_hostile_offsets.py",
    "problems_not_listed": "a file with more than 1000 problems: built by test_hostile_memory.py",
    "file_name_invalid": "a .log or index named by no offset: built by test_verify.py",
    "invalid_transition": "remote only: test_remote.py writes __remote_log_metadata events the broker drops",
    "leader_epoch_ahead_of_log": "built by test_scan.py in temporary copies of fixtures/datadir",
    "metadata_invalid": "a partition.metadata that does not parse under verify; no fixture has one yet",
    "offset_expired": "the fixtures' commits are minutes apart, never a retention: test_offsets_view.py builds them",
    "offset_out_of_range": "no fixture commits outside its partition's log: test_offsets_view.py builds them",
    "offset_not_found": "dump --offset/--from-offset only: tests/e2e/test_dump_offset.py (every reason)",
    "offset_overflow": "offsets past what a segment's index can hold: tests/unit (test_partwriter.c, test_repair.c)",
    "offset_regression": "built by test_dump.py (a sparse 3 GB segment) and by tests/unit",
    "open_metadata_transaction": "a KRaft log ending inside a metadata transaction: tests/unit/test_metadata.c",
    "schema_framing": "verify --schema-ids only: tests/e2e/test_schema_ids.py",
    "segment_gap": "built by test_verify.py in a temporary partition with a segment left out",
    "segment_overlap": "built by test_verify.py in a temporary partition with a segment copied under another name",
    "snapshot_invalid": "built by test_verify.py (a flipped byte) and tests/unit/test_txns.c",
    "txnindex_invalid": "built by test_txns.py (a garbage .txnindex) and tests/unit/test_index.c",
    "unreadable": "built by test_verify.py and test_hostile.py (a FIFO, a directory named like a segment)",
}

NOT_KAFKA = "neither a partition directory nor a broker data directory"
# the "reason" of a dropped range that is not a problem code: a segment
# after the one broker recovery cuts (cli.md, repair)
NOT_A_PROBLEM = {"after_truncation"}


def header_codes():
    """{macro: code} of every KF_P_* that a public header defines."""
    codes = {}
    headers = sorted(glob.glob(os.path.join(ROOT, "include", "kfsck", "**", "*.h"), recursive=True))
    assert headers, "no public headers"
    for h in headers:
        with open(h) as f:
            codes.update(re.findall(r'#define (KF_P_[A-Z0-9_]+) "([a-z0-9_]+)"', f.read()))
    return codes


class EmittedCodes(unittest.TestCase):
    """The codes every command emits over the fixtures, collected once."""

    @classmethod
    def setUpClass(cls):
        cls.by_command = {}
        cls.bad_runs = []
        dirs = sorted(d for d in glob.glob(os.path.join(FIX, "**"), recursive=True) if os.path.isdir(d))
        # the directories verify takes: partition dirs and data dirs
        cls.inputs = [d for d in dirs if cls.collect("verify", d, not_kafka_ok=True)]
        cls.datadirs = datadirs = [d for d in cls.inputs if glob.glob(os.path.join(d, "*-[0-9]*"))
                                   and not glob.glob(os.path.join(d, "*.log"))]
        with tempfile.TemporaryDirectory() as out:
            for i, d in enumerate(cls.inputs):
                cls.collect("dump", d, "--records")
                cls.collect("offsets", d)
                cls.collect("offsets --connect", d, "--connect")
                cls.collect("groups", d)
                cls.collect("stats", d)
                cls.collect("stats --sink-partition-duration", d, "--sink-partition-duration", "1h",
                            "--flush-size", "100")
                cls.collect("txns", d)
                cls.collect("metadata", d)
                if d not in datadirs:  # repair takes one partition
                    cls.collect("repair", d, "-o", os.path.join(out, "repair-%d" % i))
            for d in datadirs:
                cls.collect("scan", d)
                cls.collect("remote", d)
            for i, part in enumerate(sorted({os.path.basename(p) for p in
                                             glob.glob(os.path.join(FIX, "replicas", "*", "*-[0-9]*"))})):
                copies = sorted(glob.glob(os.path.join(FIX, "replicas", "*", part)))
                cls.collect("merge", copies[0], "-o", os.path.join(out, "merge-%d" % i), *copies[1:])

    @classmethod
    def collect(cls, command, path, *args, not_kafka_ok=False):
        """Runs `kfsck COMMAND --json ARGS PATH`, adds its codes to
        by_command[command]; False (and nothing added) when PATH is no Kafka
        directory and not_kafka_ok, True otherwise. A run that exits other
        than 0 or 1 is noted in bad_runs."""
        argv = command.split()[:1] + ["--json", *args, path]
        code, out, err = run(*argv, cwd=None)
        if code == 3 and not_kafka_ok and err == "kfsck: %s: %s\n" % (path, NOT_KAFKA):
            return False
        if code not in (0, 1):
            cls.bad_runs.append((argv, code, err))
        rows = jsonl(out)
        codes = {r["code"] for r in rows if r["type"] == "problem"}
        codes |= {r["reason"] for r in rows if r["type"] == "dropped"} - NOT_A_PROBLEM
        cls.by_command.setdefault(command, set()).update(codes)
        return True

    def emitted(self):
        return set().union(*self.by_command.values())

    def test_every_run_exits_0_or_1(self):
        self.assertGreater(len(self.inputs), 50)
        self.assertGreater(len(self.datadirs), 3)
        self.assertEqual(self.bad_runs, [])

    def test_every_code_emitted_is_declared(self):
        known = set(header_codes().values())
        for command, codes in sorted(self.by_command.items()):
            with self.subTest(command=command):
                self.assertEqual(sorted(codes - known), [])

    def test_the_damaged_fixtures_show_damage_to_every_reading_command(self):
        for command in ("verify", "dump", "offsets", "groups", "stats", "txns", "metadata", "scan", "repair",
                        "merge"):
            with self.subTest(command=command):
                self.assertTrue(self.by_command.get(command), command)

    def test_every_declared_code_is_emitted_or_listed(self):
        declared = set(header_codes().values())
        emitted = self.emitted()
        self.assertEqual(sorted(declared - emitted - set(NOT_EMITTED_BY_FIXTURES)), [],
                         "declared, never emitted over the fixtures, not in NOT_EMITTED_BY_FIXTURES")
        # the list stays current: a code a fixture now shows leaves it, an undeclared one was never there
        self.assertEqual(sorted(set(NOT_EMITTED_BY_FIXTURES) & emitted), [])
        self.assertEqual(sorted(set(NOT_EMITTED_BY_FIXTURES) - declared), [])


class Declarations(unittest.TestCase):
    def test_library_uses_the_macros(self):
        loose = []
        sources = glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True)
        self.assertGreater(len(sources), 20)
        for path in sources:
            with open(path) as f:
                text = f.read()
            for m in re.finditer(r'(?:\.code\s*=|kf_report\([^;]*?,[^;]*?,)\s*"([a-z][a-z0-9_]*)"', text):
                loose.append((os.path.relpath(path, ROOT), m.group(1)))
        self.assertEqual(loose, [])

    def test_every_code_is_in_common_h(self):
        """One list a caller reads: no header or source file but common.h defines a KF_P_*."""
        elsewhere = []
        files = glob.glob(os.path.join(ROOT, "include", "**", "*.h"), recursive=True)
        files += glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]"), recursive=True)
        for path in files:
            if os.path.relpath(path, ROOT) == os.path.join("include", "kfsck", "common.h"):
                continue
            with open(path) as f:
                elsewhere += [(os.path.relpath(path, ROOT), m) for m in re.findall(r"#define (KF_P_\w+)", f.read())]
        self.assertEqual(elsewhere, [])
        with open(os.path.join(ROOT, "include", "kfsck", "common.h")) as f:
            self.assertEqual(len(re.findall(r"#define KF_P_", f.read())), len(header_codes()))

    def test_codes_are_unique(self):
        values = list(header_codes().values())
        self.assertGreater(len(values), 40)
        self.assertEqual(len(values), len(set(values)))


if __name__ == "__main__":
    unittest.main()
