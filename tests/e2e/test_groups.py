#!/usr/bin/python3
"""End-to-end tests of `kfsck groups`: the consumer groups of
fixtures/offsets/ against fixtures/offsets/MANIFEST.json (replayed by
tools/gen/gen_offsets.py with the coordinator's rules), and KIP-848 topic
ids named from the KRaft metadata log of fixtures/kraft/ (kraft_e2e.py).
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, manifest, run, subset  # noqa: E402
from kraft_e2e import KRAFT, run_lossy  # noqa: E402

sys.path[:0] = [os.path.join(ROOT, "tools", "gen")]
import coordfmt as cf  # noqa: E402
import gen_offsets as go  # noqa: E402

OFFSETS = manifest("offsets")
OFFSETS_DATADIR = OFFSETS["datadir"]


class Groups(unittest.TestCase):
    def test_every_group(self):
        code, out, err = run("groups", "--json", OFFSETS_DATADIR)
        self.assertEqual(code, 1, err)
        rows = jsonl(out, "group")
        self.assertEqual([r["group"] for r in rows], [g["group"] for g in OFFSETS["groups"]])
        for g, w in zip(rows, OFFSETS["groups"]):
            subset(g, w, g["group"])

    def test_text_mode_is_readable(self):
        code, out, err = run("groups", "--group", "my-group", OFFSETS_DATADIR)
        self.assertEqual(code, 1, err)
        lines = out.splitlines()
        self.assertEqual(lines[:3], ["group: my-group", "kind: classic", "state: stable"])
        self.assertIn("    subscription:", lines)
        self.assertFalse(any(l.startswith("{") for l in lines))

    def test_text_problem_without_a_file_names_none(self):
        # the open transaction is about a partition, not a file: its text line
        # ends with the message (no "[(null)]"); JSON says "file": null
        for cmd in ("offsets", "groups"):
            code, _, err = run(cmd, OFFSETS_DATADIR)
            self.assertEqual(code, 1, err)
            line = [l for l in err.splitlines() if "open_transaction" in l]
            self.assertEqual(len(line), 1, err)
            self.assertTrue(line[0].endswith("they are not applied"), line[0])
            self.assertNotIn("(null)", err)
            code, out, stderr = run(cmd, "--json", OFFSETS_DATADIR)
            self.assertEqual(code, 1, stderr)
            p = [p for p in jsonl(out, "problem") if p["code"] == "open_transaction"]
            self.assertEqual([x["file"] for x in p], [None])

    def test_deleted_groups_are_listed_dead(self):
        code, out, err = run("groups", "--json", OFFSETS_DATADIR)
        self.assertEqual(code, 1, err)
        got = {r["group"]: r for r in jsonl(out, "group")}
        want = {g["group"]: g for g in OFFSETS["groups"]}
        with_offsets = {r["group"] for r in OFFSETS["offsets"]}
        # deleted with all their offsets (DeleteGroups of a classic and of a consumer group,
        # expiry of a simple group): listed with their kind, state dead
        for name, kind in (("old-app-4", "classic"), ("retired-848-1", "consumer"),
                           ("expired-simple-7", "classic")):
            with self.subTest(group=name):
                self.assertNotIn(name, with_offsets)
                self.assertEqual((want[name]["kind"], want[name]["state"]), (kind, "dead"))
                subset(got[name], want[name], name)
        # known only from offsets, all of them deleted: still listed, empty, as
        # Kafka's coordinator keeps the group its commits created (the broker
        # suite saw it) until its cleanup tombstones it
        self.assertIn("adhoc-reader-7", {s["group"] for s in OFFSETS["scenarios"]})
        self.assertNotIn("adhoc-reader-7", with_offsets)
        self.assertEqual((want["adhoc-reader-7"]["kind"], want["adhoc-reader-7"]["state"]), ("classic", "empty"))
        subset(got["adhoc-reader-7"], want["adhoc-reader-7"], "adhoc-reader-7")

    def test_group_filter(self):
        code, out, err = run("groups", "--json", "--group", "legacy-app", OFFSETS_DATADIR)
        self.assertEqual(code, 1, err)
        rows = jsonl(out, "group")
        self.assertEqual([(r["group"], r["state"]) for r in rows], [("legacy-app", "dead")])

    def test_groups_names_the_partition(self):
        code, _, err = run("groups", "--group", "my-group", OFFSETS_DATADIR)
        self.assertEqual(code, 1, err)
        self.assertIn("__consumer_offsets-12", err)


class KraftTopicNames(unittest.TestCase):
    """KIP-848 assignments name topic ids; the metadata log names the topics."""

    def test_kip848_topics_named_from_the_metadata_log(self):
        g = KRAFT["groups"]
        code, out, err = run_lossy("groups", "--json", g["path"])
        self.assertEqual(code, 0, err)
        rows = jsonl(out, "group")
        self.assertEqual([r["group"] for r in rows], [x["group"] for x in g["with_metadata"]])
        for r, w in zip(rows, g["with_metadata"]):
            subset(r, w, r["group"])
        names = [a["topic"] for a in rows[0]["members"][0]["assignment"]]
        self.assertEqual(names, ["clicks", "orders", "payments", None])

    def test_without_the_metadata_log_ids_stay_unnamed(self):
        g = KRAFT["groups"]
        code, out, err = run_lossy("groups", "--json", g["offsets_dir"])
        self.assertEqual(code, 0, err)
        rows = jsonl(out, "group")
        for r, w in zip(rows, g["offsets_dir_alone"]):
            subset(r, w, r["group"])
        self.assertEqual([a["topic"] for a in rows[0]["members"][0]["assignment"]], [None] * 4)


class TextOfAName(TempDirTest):
    """The text of `groups` is its JSON line read back (with Jansson) and
    laid out: a name's control characters as the JSON escapes them, but a
    newline, carriage return or tab as a space, so the layout holds."""

    def test_control_characters_of_a_group_name(self):
        log = go.PartLog("__consumer_offsets", 0)
        log.data([go.OC("a\rb\tc\nd\x01e", "t", 0, 3, 10, 1700000000000)], 1700000000000)
        go.Writer(self.tmp).partition("dd", log, cf.uuid_str(bytes(range(16))))
        code, out, err = run("groups", os.path.join(self.tmp, "dd"))
        self.assertEqual(code, 0, err)
        self.assertEqual(out.splitlines()[0], "group: a b c d\\x01e")
        code, out, err = run("groups", "--json", os.path.join(self.tmp, "dd"))
        self.assertEqual(jsonl(out, "group")[0]["group"], "a\rb\tc\nd\x01e")


if __name__ == "__main__":
    unittest.main()
