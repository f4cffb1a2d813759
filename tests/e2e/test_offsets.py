#!/usr/bin/python3
"""End-to-end tests of `kfsck offsets` (and `offsets --connect`); `groups` is in
test_groups.py, `dump --decode offsets|txn` in test_dump.py.

The fixtures under fixtures/offsets/ were written by tools/gen/gen_offsets.py with
its own encoder of Kafka's message format (tools/gen/coordfmt.py) and
kafka-python's batch builders; fixtures/offsets/MANIFEST.json holds what that
generator computed, independently of the C code, by replaying the records with
the coordinator's rules: decoded records, final tables, history, as-of table,
groups, reset CSV, the union of damaged copies and Connect offsets, and the
history and as-of tables of a fixture whose transactions make change times go
backwards (offsets/txn-asof).
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, jsonl, manifest, run, subset  # noqa: E402

M = manifest("offsets")
DATADIR = M["datadir"]


class Offsets(unittest.TestCase):
    def test_final_table(self):
        code, out, err = run("offsets", "--json", DATADIR)
        rows = jsonl(out, "offset")
        self.assertEqual(len(rows), len(M["offsets"]))
        for g, w in zip(rows, M["offsets"]):
            subset(g, w)
        # the unknown future value version (a known type) fails the coordinator's
        # load of the partition (coordinator_load_error, an error: exit 1); the
        # unknown type alone would not: the coordinator skips it
        self.assertEqual(code, 1, err)
        codes = sorted(p["code"] for p in jsonl(out, "problem"))
        self.assertEqual(codes, ["coordinator_load_error", "open_transaction", "unknown_record_type"])

    def test_history_in_the_order_changes_took_effect(self):
        code, out, err = run("offsets", "--json", "--history", DATADIR)
        self.assertEqual(code, 1, err)
        rows = jsonl(out, "offset")
        self.assertEqual(len(rows), len(M["history"]))
        for g, w in zip(rows, M["history"]):
            fields = ("group", "topic", "partition", "deleted", "offset", "source_partition", "source_offset")
            self.assertEqual([g[f] for f in fields], [w[f] for f in fields])
            if not w["deleted"]:
                subset(g, {k: v for k, v in w.items() if k not in ("effective_time", "previous")})
            else:
                self.assertEqual(g["previous"]["offset"], w["previous"]["offset"])

    def test_as_of(self):
        code, out, err = run("offsets", "--json", "--as-of", str(M["as_of"]["ms"]), DATADIR)
        self.assertEqual(code, 1, err)
        rows = jsonl(out, "offset")
        self.assertEqual(len(rows), len(M["as_of"]["offsets"]))
        for g, w in zip(rows, M["as_of"]["offsets"]):
            subset(g, w)
        self.assertNotEqual(len(rows), len(M["offsets"]) + 1)

    def test_reset_csv_for_kafka_consumer_groups(self):
        g = M["reset_csv"]["group"]
        code, out, err = run("offsets", "--format", "reset-csv", "--group", g, DATADIR)
        self.assertEqual(code, 1, err)
        self.assertEqual(out, M["reset_csv"]["text"])
        part = next(x["partition"] for x in M["group_partitions"] if x["group"] == g)
        self.assertIn(f"__consumer_offsets-{part}", err)

    def test_reset_csv_for_several_groups_has_the_group_column(self):
        # kafka-consumer-groups.sh --reset-offsets --from-file reads group,topic,partition,offset
        # with several --group or --all-groups; topic,partition,offset only with exactly one --group
        sg = M["reset_csv"]["several_groups"]
        args = [a for g in sg["groups"] for a in ("--group", g)]
        code, out, err = run("offsets", "--format", "reset-csv", *args, DATADIR)
        self.assertEqual(code, 1, err)
        self.assertEqual(out, sg["text"])
        self.assertEqual({l.split(",")[0] for l in out.splitlines()}, set(sg["groups"]))
        code, out, err = run("offsets", "--format", "reset-csv", DATADIR)
        self.assertEqual(code, 1, err)
        self.assertEqual(out, M["reset_csv"]["all_groups_text"])
        self.assertEqual(len(out.splitlines()), len(M["offsets"]))

    def test_filters_and_formats(self):
        code, out, err = run("offsets", "--json", "--group", "my-group", "--topic", "orders", DATADIR)
        self.assertEqual(code, 1, err)
        rows = jsonl(out, "offset")
        want = [r for r in M["offsets"] if r["group"] == "my-group" and r["topic"] == "orders"]
        self.assertEqual([(r["partition"], r["offset"]) for r in rows], [(r["partition"], r["offset"]) for r in want])
        code, out, err = run("offsets", "--format", "csv", DATADIR)
        self.assertEqual(code, 1, err)
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("group,topic,partition,offset,"))
        self.assertEqual(len(lines) - 1, len(M["offsets"]))
        code, out, err = run("offsets", DATADIR)
        self.assertEqual(code, 1, err)
        self.assertTrue(out.splitlines()[0].split()[:4] == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET"])

    def test_missing_group_partition_is_named(self):
        with tempfile.TemporaryDirectory() as t:
            shutil.copytree(os.path.join(FIX, DATADIR, "__consumer_offsets-3"), os.path.join(t, "__consumer_offsets-3"))
            code, out, err = run("offsets", "--group", "my-group", t)
            self.assertIn("__consumer_offsets-12: not among the inputs", err)
            self.assertEqual(code, 0)

    def test_unreadable_segment_is_exit_3(self):
        with tempfile.TemporaryDirectory() as t:
            os.makedirs(os.path.join(t, "__consumer_offsets-1", "00000000000000000000.log"))
            code, out, err = run("offsets", "--json", t)
            self.assertEqual(code, 3)
            self.assertIn("cannot read", err)
            self.assertIn("offsets_lost", [p["code"] for p in jsonl(out, "problem")])

    def test_as_of_iso_8601(self):
        """--as-of in ISO 8601 (UTC, another zone, with milliseconds) is the
        same instant as the epoch milliseconds, so the same table."""
        import datetime
        ms = M["as_of"]["ms"]
        utc = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
        east = utc.astimezone(datetime.timezone(datetime.timedelta(hours=5, minutes=30)))
        want = run("offsets", "--json", "--as-of", str(ms), DATADIR)
        for iso in (utc.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000),
                    east.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d+05:30" % (ms % 1000)):
            with self.subTest(iso=iso):
                self.assertEqual(run("offsets", "--json", "--as-of", iso, DATADIR), want)
        code, out, err = run("offsets", "--as-of", "2024-02-12T01:11:26", DATADIR)
        self.assertEqual(code, 2)
        self.assertIn("needs a time zone", err)

    def test_usage_errors(self):
        self.assertEqual(run("offsets", "--format", "reset-csv", "--history", DATADIR)[0], 2)
        self.assertEqual(run("offsets", "--json", "--format", "csv", DATADIR)[0], 2)
        self.assertEqual(run("offsets", "--as-of", "yesterday", DATADIR)[0], 2)
        self.assertEqual(run("offsets", "/nonexistent")[0], 3)


def history_rows(path, *extra):
    code, out, err = run("offsets", "--json", "--history", *extra, path)
    assert code == 0, err
    return jsonl(out, "offset")


def replay_history(rows):
    """The table a list of --history rows leaves (the test's own replay)."""
    table = {}
    for h in rows:
        slot = (h["group"], h["topic"], h["partition"])
        if h["deleted"]:
            del table[slot]
        else:
            table[slot] = h
    return [table[k] for k in sorted(table)]


ROW = ("group", "topic", "partition", "offset", "commit_timestamp", "source_partition", "source_offset",
       "transactional")


class AsOfWithTransactions(unittest.TestCase):
    """offsets/txn-asof: transactional commits take effect at their marker but keep their
    commit timestamps, so --history's change times go backwards; --as-of must still hold
    every change up to MS and none after it, in --history's order, whatever MS."""

    T = M["txn_asof"]

    def test_history(self):
        rows = history_rows(self.T["path"])
        self.assertEqual(len(rows), len(self.T["history"]))
        for g, w in zip(rows, self.T["history"]):
            subset(g, {k: v for k, v in w.items() if k != "previous"})

    def test_final_table(self):
        code, out, err = run("offsets", "--json", self.T["path"])
        self.assertEqual(code, 0, err)
        rows = jsonl(out, "offset")
        self.assertEqual([[r[f] for f in ROW] for r in rows], [[r[f] for f in ROW] for r in self.T["offsets"]])

    def test_as_of_every_time(self):
        # the generator's own replay: the changes of the history whose change_time is <= ms
        self.assertTrue(self.T["tables"])
        for t in self.T["tables"]:
            with self.subTest(ms=t["ms"]):
                code, out, err = run("offsets", "--json", "--as-of", str(t["ms"]), self.T["path"])
                self.assertEqual(code, 0, err)
                rows = jsonl(out, "offset")
                self.assertEqual([[r[f] for f in ROW] for r in rows], [[r[f] for f in ROW] for r in t["offsets"]])

    def test_as_of_is_the_replay_of_history_up_to_each_change(self):
        hist = history_rows(self.T["path"])
        times = [h["change_time"] for h in hist]
        self.assertTrue(any(b < a for a, b in zip(times, times[1:])), "fixture has no backward change time")
        for ms in sorted(set(times)):
            with self.subTest(ms=ms):
                want = replay_history([h for h in hist if h["change_time"] <= ms])
                code, out, err = run("offsets", "--json", "--as-of", str(ms), self.T["path"])
                self.assertEqual(code, 0, err)
                rows = jsonl(out, "offset")
                self.assertEqual([[r[f] for f in ROW] for r in rows], [[r[f] for f in ROW] for r in want])
                self.assertEqual([r for r in rows if r["commit_timestamp"] > ms], [])

    def test_history_with_as_of_is_those_changes(self):
        self.assertTrue(self.T["tables"])
        for t in self.T["tables"]:
            with self.subTest(ms=t["ms"]):
                rows = history_rows(self.T["path"], "--as-of", str(t["ms"]))
                want = [h for h in self.T["history"] if h["change_time"] <= t["ms"]]
                self.assertEqual(len(want), t["changes"])
                self.assertEqual([(r["source_partition"], r["effective_offset"], r["group"], r["topic"],
                                   r["partition"], r["deleted"]) for r in rows],
                                 [(w["source_partition"], w["effective_offset"], w["group"], w["topic"],
                                   w["partition"], w["deleted"]) for w in want])


class Copies(unittest.TestCase):
    def test_each_damaged_copy_alone_is_incomplete(self):
        self.assertTrue(M["copies"])
        for c in M["copies"]:
            with self.subTest(copy=c["kind"]):
                code, out, _ = run("offsets", "--json", c["path"])
                self.assertEqual(code, 1)
                rows = jsonl(out, "offset")
                self.assertEqual(len(rows), len(c["offsets_alone"]))
                for g, w in zip(rows, c["offsets_alone"]):
                    subset(g, w)
                p = c["expected_problem"]
                probs = jsonl(out, "problem")
                self.assertTrue([x for x in probs
                                 if (x["file"], x["code"], x["position"]) == (p["file"], p["code"], p["position"])])
                self.assertIn("offsets_lost", [x["code"] for x in probs])

    def test_union_of_copies_covers_the_damage(self):
        code, out, err = run("offsets", "--json", *[c["path"] for c in M["copies"]])
        rows = jsonl(out, "offset")
        self.assertEqual(len(rows), len(M["offsets_union"]))
        for g, w in zip(rows, M["offsets_union"]):
            subset(g, w)
        probs = jsonl(out, "problem")
        # each copy's damage is still named, but another copy covers it
        self.assertEqual(sorted(p["code"] for p in probs if p["code"] in ("crc_mismatch", "truncated")),
                         ["crc_mismatch", "truncated"])
        self.assertNotIn("offsets_lost", [p["code"] for p in probs])
        # errors: each copy's damage, and the deliberately unreadable (future-version)
        # record the partition holds, which the coordinator's load fails on
        self.assertEqual(sorted(p["code"] for p in probs if p["severity"] == "error"),
                         ["coordinator_load_error", "crc_mismatch", "truncated"])
        self.assertEqual(code, 1, err)


class Connect(unittest.TestCase):
    def test_source_offsets(self):
        c = M["connect"]
        code, out, err = run("offsets", "--connect", "--json", os.path.dirname(c["path"]))
        rows = jsonl(out, "connect_offset")
        self.assertEqual(code, 0, err)
        want = sorted(c["offsets"], key=lambda r: r["key_b64"])
        got = sorted(rows, key=lambda r: (r["connector"], json.dumps(r["partition"], sort_keys=True)))
        want = sorted(want, key=lambda r: (r["connector"], json.dumps(r["partition"], sort_keys=True)))
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            subset(g, {k: w[k] for k in ("connector", "partition", "offset", "source_partition", "source_offset")})


if __name__ == "__main__":
    unittest.main()
