#!/usr/bin/python3
"""End-to-end tests of `kfsck offsets`, `kfsck groups` and `kfsck dump --decode`.

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
from kfsck_e2e import FIX, jsonl, run, subset  # noqa: E402

with open(os.path.join(FIX, "offsets", "MANIFEST.json"), "rb") as _f:
    M = json.load(_f)
DATADIR = M["datadir"]


class Offsets(unittest.TestCase):
    def test_final_table(self):
        code, out, err = run("offsets", "--json", DATADIR)
        rows = jsonl(out, "offset")
        self.assertEqual(len(rows), len(M["offsets"]))
        for g, w in zip(rows, M["offsets"]):
            subset(g, w)
        # the unknown future value version (a known type) is skipped and reported:
        # the table may miss what it held, so exit 1; the unknown type alone would not
        self.assertEqual(code, 1, err)
        codes = sorted(p["code"] for p in jsonl(out, "problem"))
        self.assertEqual(codes, ["open_transaction", "undecoded_record", "unknown_record_type"])

    def test_history_in_the_order_changes_took_effect(self):
        _, out, _ = run("offsets", "--json", "--history", DATADIR)
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
        _, out, _ = run("offsets", "--json", "--as-of", str(M["as_of"]["ms"]), DATADIR)
        rows = jsonl(out, "offset")
        self.assertEqual(len(rows), len(M["as_of"]["offsets"]))
        for g, w in zip(rows, M["as_of"]["offsets"]):
            subset(g, w)
        self.assertNotEqual(len(rows), len(M["offsets"]) + 1)

    def test_reset_csv_for_kafka_consumer_groups(self):
        g = M["reset_csv"]["group"]
        code, out, err = run("offsets", "--format", "reset-csv", "--group", g, DATADIR)
        self.assertEqual(out, M["reset_csv"]["text"])
        part = next(x["partition"] for x in M["group_partitions"] if x["group"] == g)
        self.assertIn(f"__consumer_offsets-{part}", err)

    def test_reset_csv_for_several_groups_has_the_group_column(self):
        # kafka-consumer-groups.sh --reset-offsets --from-file reads group,topic,partition,offset
        # with several --group or --all-groups; topic,partition,offset only with exactly one --group
        sg = M["reset_csv"]["several_groups"]
        args = [a for g in sg["groups"] for a in ("--group", g)]
        _, out, _ = run("offsets", "--format", "reset-csv", *args, DATADIR)
        self.assertEqual(out, sg["text"])
        self.assertEqual({l.split(",")[0] for l in out.splitlines()}, set(sg["groups"]))
        _, out, _ = run("offsets", "--format", "reset-csv", DATADIR)
        self.assertEqual(out, M["reset_csv"]["all_groups_text"])
        self.assertEqual(len(out.splitlines()), len(M["offsets"]))

    def test_filters_and_formats(self):
        _, out, _ = run("offsets", "--json", "--group", "my-group", "--topic", "orders", DATADIR)
        rows = jsonl(out, "offset")
        want = [r for r in M["offsets"] if r["group"] == "my-group" and r["topic"] == "orders"]
        self.assertEqual([(r["partition"], r["offset"]) for r in rows], [(r["partition"], r["offset"]) for r in want])
        _, out, _ = run("offsets", "--format", "csv", DATADIR)
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("group,topic,partition,offset,"))
        self.assertEqual(len(lines) - 1, len(M["offsets"]))
        _, out, _ = run("offsets", DATADIR)
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

    def test_groups_names_the_partition(self):
        _, _, err = run("groups", "--group", "my-group", DATADIR)
        self.assertIn("__consumer_offsets-12", err)

    def test_usage_errors(self):
        self.assertEqual(run("offsets", "--format", "reset-csv", "--history", DATADIR)[0], 2)
        self.assertEqual(run("offsets", "--json", "--format", "csv", DATADIR)[0], 2)
        self.assertEqual(run("offsets", "--as-of", "yesterday", DATADIR)[0], 2)
        self.assertEqual(run("offsets", "/nonexistent")[0], 3)


def history_rows(path, *extra):
    _, out, _ = run("offsets", "--json", "--history", *extra, path)
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
    commit timestamps, so --history's change times go backwards; --as-of must stay a
    prefix of --history (cli.md), whatever MS."""

    T = M["txn_asof"]

    def test_history(self):
        rows = history_rows(self.T["path"])
        self.assertEqual(len(rows), len(self.T["history"]))
        for g, w in zip(rows, self.T["history"]):
            subset(g, {k: v for k, v in w.items() if k != "previous"})

    def test_final_table(self):
        _, out, _ = run("offsets", "--json", self.T["path"])
        rows = jsonl(out, "offset")
        self.assertEqual([[r[f] for f in ROW] for r in rows], [[r[f] for f in ROW] for r in self.T["offsets"]])

    def test_as_of_every_time(self):
        # the generator's own replay: the history up to its last change with change_time <= ms
        for t in self.T["tables"]:
            with self.subTest(ms=t["ms"]):
                _, out, _ = run("offsets", "--json", "--as-of", str(t["ms"]), self.T["path"])
                rows = jsonl(out, "offset")
                self.assertEqual([[r[f] for f in ROW] for r in rows], [[r[f] for f in ROW] for r in t["offsets"]])

    def test_as_of_is_the_replay_of_history_up_to_each_change(self):
        hist = history_rows(self.T["path"])
        times = [h["change_time"] for h in hist]
        self.assertTrue(any(b < a for a, b in zip(times, times[1:])), "fixture has no backward change time")
        for ms in sorted(set(times)):
            with self.subTest(ms=ms):
                last = max(i for i, t in enumerate(times) if t <= ms)
                want = replay_history(hist[:last + 1])
                _, out, _ = run("offsets", "--json", "--as-of", str(ms), self.T["path"])
                rows = jsonl(out, "offset")
                self.assertEqual([[r[f] for f in ROW] for r in rows], [[r[f] for f in ROW] for r in want])

    def test_history_with_as_of_is_that_prefix(self):
        for t in self.T["tables"]:
            with self.subTest(ms=t["ms"]):
                rows = history_rows(self.T["path"], "--as-of", str(t["ms"]))
                want = self.T["history"][:t["changes"]]
                self.assertEqual([(r["source_partition"], r["effective_offset"], r["group"], r["topic"],
                                   r["partition"], r["deleted"]) for r in rows],
                                 [(w["source_partition"], w["effective_offset"], w["group"], w["topic"],
                                   w["partition"], w["deleted"]) for w in want])


class Copies(unittest.TestCase):
    def test_each_damaged_copy_alone_is_incomplete(self):
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
        # exit 1 only for the deliberately unreadable (future-version) record the partition holds
        self.assertEqual([p["code"] for p in probs if p["severity"] == "error"], ["crc_mismatch", "truncated"])
        self.assertEqual(code, 1, err)


class Groups(unittest.TestCase):
    def test_every_group(self):
        code, out, err = run("groups", "--json", DATADIR)
        rows = jsonl(out, "group")
        self.assertEqual([r["group"] for r in rows], [g["group"] for g in M["groups"]])
        for g, w in zip(rows, M["groups"]):
            subset(g, w, g["group"])

    def test_text_mode_is_readable(self):
        code, out, _ = run("groups", "--group", "my-group", DATADIR)
        lines = out.splitlines()
        self.assertEqual(lines[:3], ["group: my-group", "kind: classic", "state: stable"])
        self.assertIn("    subscription:", lines)
        self.assertFalse(any(l.startswith("{") for l in lines))

    def test_text_problem_without_a_file_names_none(self):
        # the open transaction is about a partition, not a file: its text line
        # ends with the message (no "[(null)]"); JSON says "file": null
        for cmd in ("offsets", "groups"):
            _, _, err = run(cmd, DATADIR)
            line = [l for l in err.splitlines() if "open_transaction" in l]
            self.assertEqual(len(line), 1, err)
            self.assertTrue(line[0].endswith("they are not applied"), line[0])
            self.assertNotIn("(null)", err)
            _, out, _ = run(cmd, "--json", DATADIR)
            p = [p for p in jsonl(out, "problem") if p["code"] == "open_transaction"]
            self.assertEqual([x["file"] for x in p], [None])

    def test_deleted_groups_are_listed_dead(self):
        code, out, err = run("groups", "--json", DATADIR)
        got = {r["group"]: r for r in jsonl(out, "group")}
        want = {g["group"]: g for g in M["groups"]}
        with_offsets = {r["group"] for r in M["offsets"]}
        # deleted with all their offsets (DeleteGroups of a classic and of a consumer group,
        # expiry of a simple group): listed with their kind, state dead
        for name, kind in (("old-app-4", "classic"), ("retired-848-1", "consumer"),
                           ("expired-simple-7", "classic")):
            with self.subTest(group=name):
                self.assertNotIn(name, with_offsets)
                self.assertEqual((want[name]["kind"], want[name]["state"]), (kind, "dead"))
                subset(got[name], want[name], name)
        # known only from offsets, all of them deleted: not listed
        self.assertIn("adhoc-reader-7", {s["group"] for s in M["scenarios"]})
        self.assertNotIn("adhoc-reader-7", want)
        self.assertNotIn("adhoc-reader-7", got)

    def test_group_filter(self):
        _, out, _ = run("groups", "--json", "--group", "legacy-app", DATADIR)
        rows = jsonl(out, "group")
        self.assertEqual([(r["group"], r["state"]) for r in rows], [("legacy-app", "dead")])


class Decode(unittest.TestCase):
    def test_dump_decode_offsets_matches_encoder(self):
        got = []
        for part in M["partitions"]:
            if part["topic"] != "__consumer_offsets":
                continue
            for seg in part["segments"]:
                _, out, _ = run("dump", "--json", "--decode", "offsets", seg["path"])
                got += [r for r in jsonl(out, "record") if "key_decoded" in r]
        self.assertEqual(len(got), len(M["records"]))
        for g, w in zip(got, M["records"]):
            self.assertEqual((g["offset"], g["key_type"], g["record_type"]), (w["offset"], w["key_type"], w["record_type"]))
            if w["key_decoded"] is None:
                self.assertIsNone(g["key_decoded"])
            else:
                subset(g["key_decoded"], w["key_decoded"])
            if w["expect"] == "decoded":
                self.assertEqual(g["value_version"], w["value_version"])
                if w["value_decoded"] is None:
                    self.assertIsNone(g["value_decoded"])
                else:
                    subset(g["value_decoded"], w["value_decoded"], f"p{w['partition']}/{w['offset']}")
                    self.assertEqual(sorted(g["value_decoded"]), sorted(w["value_decoded"]))

    def test_dump_and_offsets_give_the_same_problem_codes(self):
        # cli.md: an unknown record type is unknown_record_type (warning) in
        # dump --decode as in offsets; a known type's unknown value version
        # is undecoded_record in both
        want = {"unknown_record_type": "unknown_record_type", "unknown_value_version": "undecoded_record"}
        odd = [r for r in M["records"] if r["expect"] != "decoded"]
        self.assertEqual(sorted({r["expect"] for r in odd}), sorted(want))
        _, out, _ = run("offsets", "--json", DATADIR)
        from_offsets = {(p["file"], p["offset"]): (p["code"], p["severity"]) for p in jsonl(out, "problem")}
        for r in odd:
            part = [p for p in M["partitions"] if p["topic"] == "__consumer_offsets" and p["partition"] == r["partition"]]
            seg = [s for s in part[0]["segments"] if s["base_offset"] <= r["offset"]][-1]["path"]
            _, out, _ = run("dump", "--json", "--records", "--decode", "offsets", seg)
            got = [(p["code"], p["severity"]) for p in jsonl(out, "problem") if p["offset"] == r["offset"]]
            self.assertEqual(got, [(want[r["expect"]], "warning")], (seg, r["offset"]))
            self.assertEqual(from_offsets[(seg, r["offset"])], got[0], (seg, r["offset"]))

    def test_auto_decode_by_directory_name(self):
        seg = M["partitions"][0]["segments"][0]["path"]
        _, out, _ = run("dump", "--json", "--records", seg)
        self.assertTrue(all("key_decoded" in r for r in jsonl(out, "record")))

    def test_dump_decode_txn(self):
        ts = M["transaction_state"]
        got = []
        for f in sorted(os.listdir(os.path.join(FIX, ts["path"]))):
            if f.endswith(".log"):
                _, out, _ = run("dump", "--json", "--decode", "txn", os.path.join(ts["path"], f))
                got += jsonl(out, "record")
        self.assertEqual(len(got), len(ts["records"]))
        for g, w in zip(got, ts["records"]):
            self.assertEqual(g["record_type"], "transaction_log")
            subset(g["key_decoded"], w["key_decoded"])
            if w["value_decoded"] is None:
                self.assertIsNone(g["value_decoded"])
            else:
                subset(g["value_decoded"], w["value_decoded"])


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
