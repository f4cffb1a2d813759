#!/usr/bin/python3
"""End-to-end tests of `kfsck metadata` and the KRaft checks of
`verify`/`scan`/`metadata` on a node's data (`dump --decode
metadata|share|remote` is in test_dump.py, the KRaft checks of a whole data
dir under scan in test_scan.py, `groups` naming KIP-848 topics in
test_groups.py; what they share is kraft_e2e.py).

The fixtures under fixtures/kraft/ were written by tools/gen/gen_kraft.py with the
project's own Python encoder of the KRaft records (tools/gen/kraftfmt.py) and
kafka-python's batch builder; fixtures/kraft/MANIFEST.json holds what that
generator computed, independently of the C code, with tools/model/kraft_image.py (a
Python model of the metadata image built from the spec's replay rules):
every decoded record, the `metadata` objects at the end of the log and at
several --as-of-offset values, and the problems of each damaged case.
Where cli.md leaves a detail open (text layout, the order of objects of one
type, how bytes fields are named, whether a security protocol prints as a
number or a name) these tests accept any of the reasonable forms.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kraft_e2e import CASES, KRAFT, MDIR, NODE, check_objects, codes, leaked, problems, run_lossy  # noqa: E402


class Metadata(unittest.TestCase):
    def test_end_of_log_from_the_data_dir(self):
        code, out, err = run_lossy("metadata", "--json", NODE)
        self.assertEqual(code, 0, err)
        self.assertEqual([p for p in problems(out) if p["severity"] == "error"], [])
        check_objects(self, out, KRAFT["metadata"]["end"], "end")

    def test_end_of_log_from_the_partition_dir(self):
        code, out, err = run_lossy("metadata", "--json", MDIR)
        self.assertEqual(code, 0, err)
        check_objects(self, out, KRAFT["metadata"]["end"], "end (partition dir)", cluster_id_known=False)

    def test_as_of_offset(self):
        self.assertTrue(KRAFT["metadata"]["as_of"])
        for a in KRAFT["metadata"]["as_of"]:
            with self.subTest(name=a["name"], offset=a["offset"]):
                code, out, err = run_lossy("metadata", "--json", "--as-of-offset", str(a["offset"]), NODE)
                self.assertEqual(code, 0, err)
                check_objects(self, out, a["objects"], "as-of %s (%d)" % (a["name"], a["offset"]))

    def test_a_snapshot_alone(self):
        self.assertTrue(KRAFT["metadata"]["snapshot_only"])
        for s in KRAFT["metadata"]["snapshot_only"]:
            with self.subTest(file=s["file"]):
                code, out, err = run_lossy("metadata", "--json", s["file"])
                self.assertEqual(code, 0, err)
                check_objects(self, out, s["objects"], s["file"], cluster_id_known=False)

    def test_show_secrets(self):
        code, out, err = run_lossy("metadata", "--json", "--show-secrets", NODE)
        self.assertEqual(code, 0, err)
        check_objects(self, out, KRAFT["metadata"]["end_show_secrets"], "end --show-secrets")
        self.assertLessEqual({"delegation_token_secret_key", "jaas_password", "ssl_keystore_password"},
                             set(leaked(out)))

    def test_text_output(self):
        code, out, err = run_lossy("metadata", NODE)
        self.assertEqual(code, 0, err)
        self.assertTrue(out.strip())
        self.assertFalse(any(l.startswith("{") for l in out.splitlines()))
        for word in ("orders", "payments", "clicks"):
            self.assertIn(word, out)

    def test_retention_trimmed_log(self):
        c = CASES["trimmed"]
        code, out, err = run_lossy("metadata", "--json", c["path"])
        self.assertEqual(code, 0, err)
        check_objects(self, out, c["metadata"], "trimmed")
        code, out, err = run_lossy("verify", "--json", c["metadata_dir"])
        self.assertEqual(code, 0, err)
        self.assertNotIn("snapshot_missing", codes(out))

    def test_usage(self):
        self.assertEqual(run_lossy("metadata", "--as-of-offset", "soon", NODE)[0], 2)
        self.assertEqual(run_lossy("metadata", "--bogus", NODE)[0], 2)
        self.assertEqual(run_lossy("metadata", "/nonexistent/__cluster_metadata-0")[0], 3)


class Damaged(unittest.TestCase):
    def assert_problem(self, out, want, where):
        got = [p for p in problems(out) if p["code"] == want["code"]]
        self.assertTrue(got, f"{where}: no {want['code']} in {codes(out)}")
        self.assertEqual(got[0]["severity"], want["severity"], where)
        for k in ("file", "position", "offset"):
            if k in want:
                self.assertIn(want[k], [p.get(k) for p in got], f"{where}: {k}")

    def test_snapshot_incomplete(self):
        c = CASES["snapshot_incomplete"]
        p = c["problems"][0]
        for args in (("verify", "--json", c["metadata_dir"]), ("scan", "--json", c["path"]),
                     ("metadata", "--json", c["path"])):
            with self.subTest(cmd=args[0]):
                code, out, err = run_lossy(*args)
                self.assertEqual(code, 1, err)
                self.assert_problem(out, {"code": p["code"], "severity": "error"}, args[0])
                named = [x for x in problems(out) if x["code"] == p["code"]]
                self.assertTrue(named)
                self.assertTrue(all(x["file"].endswith(os.path.basename(p["file"])) for x in named))
        code, out, err = run_lossy("verify", "--json", p["file"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "verify the checkpoint")
        # metadata falls back to the older intact snapshot and the log
        rc, out, stderr = run_lossy("metadata", "--json", c["path"])
        self.assertEqual(rc, 1, stderr)
        check_objects(self, out, c["metadata"], "snapshot_incomplete")

    def test_crc_mismatch_is_skipped_and_reported(self):
        c = CASES["crc"]
        p = c["problems"][0]
        code, out, err = run_lossy("metadata", "--json", c["path"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "metadata")
        check_objects(self, out, c["metadata"], "crc")
        code, out, err = run_lossy("verify", "--json", c["metadata_dir"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "verify")
        code, out, err = run_lossy("dump", "--json", "--decode", "metadata", p["file"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "dump")

    def test_snapshot_missing(self):
        c = CASES["snapshot_missing"]
        for args in (("verify", "--json", c["metadata_dir"]), ("scan", "--json", c["path"]),
                     ("metadata", "--json", c["path"])):
            with self.subTest(cmd=args[0]):
                code, out, err = run_lossy(*args)
                self.assertEqual(code, 1, err)
                self.assert_problem(out, c["problems"][0], args[0])

    def test_bad_quorum_state(self):
        for name in ("quorum_state_json", "quorum_state_version"):
            c = CASES[name]
            for args in (("verify", "--json", c["metadata_dir"]), ("scan", "--json", c["path"]),
                         ("metadata", "--json", c["path"])):
                with self.subTest(case=name, cmd=args[0]):
                    code, out, err = run_lossy(*args)
                    self.assertEqual(code, 1, err)
                    self.assert_problem(out, {"code": "checkpoint_invalid", "severity": "error"}, name)
                    named = [x for x in problems(out) if x["code"] == "checkpoint_invalid"]
                    self.assertTrue(named)
                    self.assertTrue(all(x["file"].endswith("quorum-state") for x in named), named)

    def test_unknown_records_are_not_applied(self):
        c = CASES["unknown_records"]
        code, out, err = run_lossy("metadata", "--json", c["path"])
        self.assertIn(code, (0, 1), err)
        check_objects(self, out, c["metadata"], "unknown_records")
        self.assertEqual(sorted(p["offset"] for p in problems(out) if p["code"] == "unknown_record_type"),
                         sorted(p["offset"] for p in c["problems"]))

    def test_healthy_node_has_no_kraft_problem(self):
        code, out, err = run_lossy("verify", "--json", MDIR)
        self.assertEqual(code, 0, err)
        self.assertEqual(problems(out), [])


class Copies(unittest.TestCase):
    def test_each_copy_alone_misses_its_damaged_batch(self):
        for c in CASES["copies"]["copies"]:
            with self.subTest(copy=c["path"]):
                code, out, err = run_lossy("metadata", "--json", c["path"])
                self.assertEqual(code, 1, err)
                b = c["damaged_batch"]
                got = [p for p in problems(out) if p["code"] == "crc_mismatch"]
                self.assertEqual([(p["file"], p["position"], p["offset"]) for p in got],
                                 [(b["file"], b["position"], b["base_offset"])])
                check_objects(self, out, c["metadata_alone"], c["path"], cluster_id_known=False)

    def test_the_copies_together_give_the_whole_log(self):
        cs = CASES["copies"]
        code, out, err = run_lossy("metadata", "--json", *[c["path"] for c in cs["copies"]])
        self.assertIn(code, (0, 1), err)
        check_objects(self, out, cs["metadata"], "copies", cluster_id_known=False)
        # the damage is still named
        self.assertEqual(sorted((p["file"], p["position"]) for p in problems(out) if p["code"] == "crc_mismatch"),
                         sorted((c["damaged_batch"]["file"], c["damaged_batch"]["position"]) for c in cs["copies"]))


if __name__ == "__main__":
    unittest.main()
