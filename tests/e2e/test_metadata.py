#!/usr/bin/python3
"""End-to-end tests of KRaft support: `kfsck dump --decode metadata|share|remote`,
`kfsck metadata`, the KRaft checks of `verify`/`scan`/`metadata`, and `groups`
naming KIP-848 topics from the metadata log.

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
import base64
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import FIX, jsonl, subset, run as _run  # noqa: E402

with open(os.path.join(FIX, "kraft", "MANIFEST.json"), "rb") as _f:
    M = json.load(_f)
NODE = M["node"]
MDIR = M["metadata_dir"]
CASES = M["cases"]
ORDER = ("cluster", "feature", "broker", "controller", "topic", "partition", "config", "producer_ids")
PROTOCOLS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
RESOURCE_TYPES = {"topic": 2, "broker": 4, "broker_logger": 8, "client_metrics": 16, "group": 32}
KRAFT_CONTROL = {"leader_change", "snapshot_header", "snapshot_footer", "kraft_version", "kraft_voters"}
SECRETS = {s["name"]: base64.b64decode(s["b64"]) for s in M["secrets"]}


def run(*args):
    """kfsck_e2e.run; bytes of the output that are not UTF-8 read as U+FFFD."""
    return _run(*args, errors="replace")


def bytes_names(got, want):
    """The manifest names bytes fields <name>_b64; a CLI may name them <name>
    (cli.md does not fix it): rename got's keys to want's spelling."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = {}
        for k, v in got.items():
            key = k
            if k not in want and k + "_b64" in want:
                key = k + "_b64"
            elif k.endswith("_b64") and k not in want and k[:-4] in want:
                key = k[:-4]
            out[key] = bytes_names(v, want.get(key))
        return out
    if isinstance(want, list) and isinstance(got, list):
        return [bytes_names(g, w) for g, w in zip(got, want)] + got[len(want):]
    return got


def same_fields(got, want, path):
    """Decoded record fields: exactly want's keys (tagged fields only when
    present), same values."""
    got = bytes_names(got, want)
    assert isinstance(got, dict), f"{path}: {got!r}"
    assert sorted(got) == sorted(want), f"{path}: fields {sorted(got)} != {sorted(want)}"
    subset(got, want, path)


def rows_of(out, t="record"):
    return jsonl(out, t)


# ---------------------------------------------------------------------------
# secrets: every encoding a CLI might print bytes in


def encodings(secret):
    """Raw text, hex, and the base64 characters that any base64 (standard or
    URL-safe) of data holding `secret` at any alignment must contain."""
    h = secret.hex()
    out = {secret.decode("latin-1"), h, h.upper(), " ".join(h[i:i + 2] for i in range(0, len(h), 2))}
    for k in range(3):
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            e = enc(b"\0" * k + secret).decode()
            core = e[4 if k else 0:4 * ((k + len(secret)) // 3)]
            assert len(core) >= 16
            out.add(core)
    return out


def leaked(text):
    """Names of the secrets found in text."""
    return sorted(name for name, s in SECRETS.items() if any(e in text for e in encodings(s)))


# ---------------------------------------------------------------------------
# comparing `kfsck metadata` objects


def sort_key(o):
    t = o["type"]
    if t == "feature":
        return (o["name"],)
    if t == "broker":
        return (o["broker_id"],)
    if t == "controller":
        return (o["controller_id"],)
    if t == "topic":
        return (o["topic"],)
    if t == "partition":
        return (o["topic"], o["partition"])
    if t == "config":
        rt = o["resource_type"]
        return (RESOURCE_TYPES.get(rt, rt), o["resource_name"], o["name"])
    return ()


def normalize(o):
    o = dict(o)
    if "listeners" in o and isinstance(o["listeners"], list):
        ls = []
        for l in o["listeners"]:
            l = dict(l)
            if isinstance(l.get("security_protocol"), str):
                l["security_protocol"] = PROTOCOLS.get(l["security_protocol"], l["security_protocol"])
            ls.append(l)
        o["listeners"] = ls
    return o


def check_objects(tc, out, want, where, cluster_id_known=True):
    lines = jsonl(out)
    got = [normalize(l) for l in lines if l["type"] in ORDER]
    kinds = [ORDER.index(l["type"]) for l in got]
    tc.assertEqual(kinds, sorted(kinds), f"{where}: object types out of cli.md's order: "
                   f"{[l['type'] for l in got]}")
    tc.assertEqual(kinds.count(0), 1, f"{where}: one cluster line")
    wc = want[0]
    gc = got[0]
    for f in wc["_exact"]:
        if f == "snapshot":
            if wc["snapshot"] is None:
                tc.assertIsNone(gc["snapshot"], where)
            else:
                tc.assertIsNotNone(gc["snapshot"], where)
                tc.assertEqual(os.path.basename(gc["snapshot"]), wc["snapshot"], where)
        elif f == "voters":
            tc.assertEqual(None if gc["voters"] is None else sorted(gc["voters"]), wc["voters"], where)
        else:
            tc.assertEqual(gc[f], wc[f], f"{where}: cluster.{f}")
    for f in ("last_offset", "records"):
        tc.assertIn(f, gc, where)
    if cluster_id_known:
        tc.assertEqual(gc["cluster_id"], wc["cluster_id"], where)
    else:
        tc.assertIn(gc["cluster_id"], (None, wc["cluster_id"]), where)
    mv = wc["metadata_version"]
    by_type = {}
    for o in got[1:]:
        if o["type"] == "feature" and o["name"] == "metadata.version":
            tc.assertEqual(o["level"], mv, f"{where}: a metadata.version feature line")
            continue
        if o["type"] == "feature" and o["name"] == "kraft.version":
            # FeatureLevelRecords for kraft.version are ignored (KAFKA-18979); the
            # finalized level comes from the KRaftVersionRecord (1 here)
            tc.assertEqual(o["level"], 1, f"{where}: kraft.version from the KRaftVersionRecord")
            continue
        by_type.setdefault(o["type"], []).append(o)
    for t in ORDER[1:]:
        w = sorted((o for o in want if o["type"] == t), key=sort_key)
        g = sorted(by_type.get(t, []), key=sort_key)
        tc.assertEqual([sort_key(o) for o in g], [sort_key(o) for o in w], f"{where}: {t} lines")
        for go, wo in zip(g, w):
            if wo.get("_log_dirs_unset"):
                # a registration that never carried LogDirs: [] or null
                tc.assertIn(go.get("log_dirs"), ([], None), f"{where}: broker {wo['broker_id']} log_dirs")
                wo = {k: v for k, v in wo.items() if k != "log_dirs"}
            wo = {k: v for k, v in wo.items() if not k.startswith("_")}
            subset(go, wo, f"{where}/{t}/{sort_key(wo)}")


def problems(out):
    return jsonl(out, "problem")


def codes(out):
    return sorted({p["code"] for p in problems(out)})


# ---------------------------------------------------------------------------


class DumpMetadata(unittest.TestCase):
    def check_file(self, d, *extra):
        code, out, err = run("dump", "--json", "--decode", d["decode"], *extra, d["file"])
        self.assertEqual(code, 0, err)
        self.assertEqual(problems(out), [], d["file"])
        batches = jsonl(out, "batch")
        self.assertEqual(len(batches), d["batches"], d["file"])
        self.assertEqual(sum(1 for b in batches if b["control"]), d["control_batches"], d["file"])
        got = rows_of(out)
        self.assertEqual([r["offset"] for r in got], [r["offset"] for r in d["records"]], d["file"])
        return got

    def test_every_record_of_the_log_and_snapshots(self):
        for d in M["dump"]:
            with self.subTest(file=d["file"]):
                got = self.check_file(d)
                for g, w in zip(got, d["records"]):
                    where = f"{d['file']}@{w['offset']}"
                    self.assertEqual(g["record_type"], w["record_type"], where)
                    self.assertEqual(g["record_version"], w["record_version"], where)
                    same_fields(g["value_decoded"], w["value_decoded"], where)

    def test_show_secrets(self):
        for d in M["dump"]:
            shown = [w for w in d["records"] if "value_decoded_shown" in w]
            if not shown:
                continue
            with self.subTest(file=d["file"]):
                got = {r["offset"]: r for r in self.check_file(d, "--show-secrets")}
                for w in shown:
                    same_fields(got[w["offset"]]["value_decoded"], w["value_decoded_shown"],
                                f"{d['file']}@{w['offset']}")

    def test_every_record_type_at_lowest_and_highest_version(self):
        """The fixtures hold what the contract needs: checked here on kfsck's output."""
        seen = {}
        for d in M["dump"]:
            _, out, _ = run("dump", "--json", "--decode", "metadata", d["file"])
            for r in rows_of(out):
                seen.setdefault(r.get("record_type"), set()).add(r.get("record_version"))
        for rt, versions in M["record_versions"].items():
            self.assertIn(rt, seen)
            self.assertTrue({min(versions), max(versions)} <= seen[rt], (rt, seen[rt]))

    def test_control_records_in_every_log(self):
        for d in M["dump"]:
            want = [w for w in d["records"] if w["control"]]
            with self.subTest(file=d["file"]):
                _, out, _ = run("dump", "--json", "--decode", "metadata", d["file"])
                got = {r["offset"]: r for r in rows_of(out)}
                for w in want:
                    self.assertIn(w["record_type"], KRAFT_CONTROL)
                    g = got[w["offset"]]
                    self.assertEqual((g["record_type"], g["record_version"]), (w["record_type"], 0))
                    same_fields(g["value_decoded"], w["value_decoded"], f"{d['file']}@{w['offset']}")
        # snapshots start with a header and end with a footer
        for s in M["snapshots"]:
            _, out, _ = run("dump", "--json", "--decode", "metadata", s["file"])
            rows = rows_of(out)
            self.assertEqual(rows[0]["record_type"], "snapshot_header")
            self.assertEqual(rows[-1]["record_type"], "snapshot_footer")

    def test_auto_decode_by_directory_and_snapshot_name(self):
        for f in (M["segments"][0]["file"], M["snapshots"][0]["file"]):
            want = next(d for d in M["dump"] if d["file"] == f)
            _, out, _ = run("dump", "--json", "--records", f)
            got = rows_of(out)
            self.assertEqual([r.get("record_type") for r in got], [w["record_type"] for w in want["records"]], f)
        for d in (M["share"], M["remote"]):
            _, out, _ = run("dump", "--json", "--records", d["file"])
            got = rows_of(out)
            self.assertEqual([r.get("record_type") for r in got if r["offset"] != d["records"][-1]["offset"]],
                             [w["record_type"] for w in d["records"][:-1]], d["file"])

    def test_bootstrap_checkpoint(self):
        d = next(d for d in M["dump"] if d["file"] == M["bootstrap_checkpoint"])
        self.assertEqual([w["record_type"] for w in d["records"]],
                         ["snapshot_header", "feature_level", "snapshot_footer"])
        got = self.check_file(d)
        self.assertEqual([g["record_type"] for g in got], [w["record_type"] for w in d["records"]])

    def test_share_group_state(self):
        d = M["share"]
        code, out, err = run("dump", "--json", "--decode", "share", d["file"])
        got = {r["offset"]: r for r in rows_of(out)}
        self.assertEqual(sorted(got), [w["offset"] for w in d["records"]])
        for w in d["records"]:
            g = got[w["offset"]]
            where = f"share@{w['offset']}"
            if w.get("expect") == "unknown_record_type":
                self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual(g["record_type"], w["record_type"], where)
            if "key_decoded" in g and g["key_decoded"] is not None:
                subset(g["key_decoded"], w["key_decoded"], where)
            if w.get("tombstone"):
                self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual(g["record_version"], w["record_version"], where)
            same_fields(g["value_decoded"], w["value_decoded"], f"{where} ({w['layout']} layout)")
        unknown = [p for p in problems(out) if p["code"] == "unknown_record_type"]
        self.assertEqual([(p["offset"], p["severity"]) for p in unknown],
                         [(w["offset"], "warning") for w in d["records"] if w.get("expect")])
        self.assertIn(code, (0, 1), err)

    def test_remote_log_metadata(self):
        d = M["remote"]
        code, out, err = run("dump", "--json", "--decode", "remote", d["file"])
        got = {r["offset"]: r for r in rows_of(out)}
        self.assertEqual(sorted(got), [w["offset"] for w in d["records"]])
        for w in d["records"]:
            g = got[w["offset"]]
            where = f"remote@{w['offset']}"
            if w.get("expect") == "unknown_record_type":
                self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual((g["record_type"], g["record_version"]), (w["record_type"], 0), where)
            same_fields(g["value_decoded"], w["value_decoded"], where)
        unknown = [p for p in problems(out) if p["code"] == "unknown_record_type"]
        self.assertEqual([(p["offset"], p["severity"]) for p in unknown],
                         [(w["offset"], "warning") for w in d["records"] if w.get("expect")])
        self.assertIn(code, (0, 1), err)

    def test_unknown_record_types_and_versions(self):
        c = CASES["unknown_records"]
        d = c["dump"]
        code, out, err = run("dump", "--json", "--decode", "metadata", d["file"])
        got = {r["offset"]: r for r in rows_of(out)}
        self.assertEqual(sorted(got), [w["offset"] for w in d["records"]], "every record listed")
        for w in d["records"]:
            g = got[w["offset"]]
            where = f"unknown@{w['offset']} ({w.get('why', '')})"
            if w.get("expect") == "unknown_record_type":
                if not w.get("best_effort_decode_allowed"):
                    self.assertIsNone(g.get("value_decoded"), where)
                continue
            self.assertEqual((g["record_type"], g["record_version"]), (w["record_type"], w["record_version"]))
            same_fields(g["value_decoded"], w["value_decoded"], where)
        unknown = [p for p in problems(out) if p["code"] == "unknown_record_type"]
        self.assertEqual(sorted((p["offset"], p["severity"]) for p in unknown),
                         sorted((p["offset"], "warning") for p in c["problems"]))
        self.assertNotIn("error", [p["severity"] for p in problems(out)])
        self.assertIn(code, (0, 1), err)

    def test_text_output(self):
        code, out, err = run("dump", "--decode", "metadata", M["segments"][0]["file"])
        self.assertEqual(code, 0, err)
        self.assertTrue(out.strip())
        self.assertFalse(any(l.startswith("{") for l in out.splitlines()))


class Secrets(unittest.TestCase):
    """cli.md: SCRAM salts and keys, delegation-token ids and the values of
    configs named *password, *jaas.config*, *secret* are never printed
    unless --show-secrets is given: not in JSON, not in text, not on stderr,
    in no encoding."""

    FILES = [d["file"] for d in M["dump"]]

    def assert_clean(self, *args):
        code, out, err = run(*args)
        self.assertIn(code, (0, 1), "%s: %s" % (" ".join(args), err))
        self.assertEqual(leaked(out + err), [], " ".join(args))
        return out

    def test_the_secrets_are_in_the_data(self):
        raw = b""
        for f in self.FILES:
            with open(os.path.join(FIX, f), "rb") as fh:
                raw += fh.read()
        for name, s in SECRETS.items():
            self.assertIn(s, raw, name)

    def test_dump_never_prints_them(self):
        for f in self.FILES:
            with self.subTest(file=f):
                self.assert_clean("dump", "--json", "--decode", "metadata", f)
                self.assert_clean("dump", "--decode", "metadata", f)
                self.assert_clean("dump", "--json", "--payload", "--decode", "metadata", f)
                self.assert_clean("dump", "--payload", f)
                self.assert_clean("dump", "--json", "--payload", f)
        self.assert_clean("dump", "--json", "--decode", "metadata", MDIR)

    def test_other_commands_never_print_them(self):
        for args in (("metadata", "--json", NODE), ("metadata", NODE), ("metadata", "--json", MDIR),
                     ("metadata", "--json", "--as-of-offset", str(M["marks"]["snapshot_a"]), NODE),
                     ("verify", "--json", MDIR), ("verify", MDIR), ("scan", "--json", NODE),
                     ("groups", "--json", NODE), ("stats", "--json", MDIR)):
            with self.subTest(args=args):
                self.assert_clean(*args)

    def test_show_secrets_prints_them(self):
        found = set()
        for f in self.FILES:
            _, out, _ = run("dump", "--json", "--decode", "metadata", "--show-secrets", f)
            found |= set(leaked(out))
        self.assertEqual(sorted(found), sorted(SECRETS))
        found = set()
        for f in self.FILES:
            _, out, _ = run("dump", "--decode", "metadata", "--show-secrets", f)
            found |= set(leaked(out))
        self.assertEqual(sorted(found), sorted(SECRETS), "text output with --show-secrets")

    def test_redacted_marker(self):
        _, out, _ = run("dump", "--json", "--decode", "metadata", M["segments"][0]["file"])
        cfg = [r["value_decoded"] for r in rows_of(out) if r.get("record_type") == "config"
               and r["value_decoded"]["name"].endswith("password")]
        self.assertEqual([c["value"] for c in cfg], ["<redacted>"])


class Metadata(unittest.TestCase):
    def test_end_of_log_from_the_data_dir(self):
        code, out, err = run("metadata", "--json", NODE)
        self.assertEqual(code, 0, err)
        self.assertEqual([p for p in problems(out) if p["severity"] == "error"], [])
        check_objects(self, out, M["metadata"]["end"], "end")

    def test_end_of_log_from_the_partition_dir(self):
        code, out, err = run("metadata", "--json", MDIR)
        self.assertEqual(code, 0, err)
        check_objects(self, out, M["metadata"]["end"], "end (partition dir)", cluster_id_known=False)

    def test_as_of_offset(self):
        for a in M["metadata"]["as_of"]:
            with self.subTest(name=a["name"], offset=a["offset"]):
                code, out, err = run("metadata", "--json", "--as-of-offset", str(a["offset"]), NODE)
                self.assertEqual(code, 0, err)
                check_objects(self, out, a["objects"], "as-of %s (%d)" % (a["name"], a["offset"]))

    def test_a_snapshot_alone(self):
        for s in M["metadata"]["snapshot_only"]:
            with self.subTest(file=s["file"]):
                code, out, err = run("metadata", "--json", s["file"])
                self.assertEqual(code, 0, err)
                check_objects(self, out, s["objects"], s["file"], cluster_id_known=False)

    def test_show_secrets(self):
        code, out, err = run("metadata", "--json", "--show-secrets", NODE)
        self.assertEqual(code, 0, err)
        check_objects(self, out, M["metadata"]["end_show_secrets"], "end --show-secrets")
        self.assertLessEqual({"delegation_token_secret_key", "jaas_password", "ssl_keystore_password"},
                             set(leaked(out)))

    def test_text_output(self):
        code, out, err = run("metadata", NODE)
        self.assertEqual(code, 0, err)
        self.assertFalse(any(l.startswith("{") for l in out.splitlines()))
        for word in ("orders", "payments", "clicks"):
            self.assertIn(word, out)

    def test_retention_trimmed_log(self):
        c = CASES["trimmed"]
        code, out, err = run("metadata", "--json", c["path"])
        self.assertEqual(code, 0, err)
        check_objects(self, out, c["metadata"], "trimmed")
        code, out, err = run("verify", "--json", c["metadata_dir"])
        self.assertEqual(code, 0, err)
        self.assertNotIn("snapshot_missing", codes(out))

    def test_usage(self):
        self.assertEqual(run("metadata", "--as-of-offset", "soon", NODE)[0], 2)
        self.assertEqual(run("metadata", "--bogus", NODE)[0], 2)
        self.assertEqual(run("metadata", "/nonexistent/__cluster_metadata-0")[0], 3)


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
                code, out, err = run(*args)
                self.assertEqual(code, 1, err)
                self.assert_problem(out, {"code": p["code"], "severity": "error"}, args[0])
                named = [x for x in problems(out) if x["code"] == p["code"]]
                self.assertTrue(all(x["file"].endswith(os.path.basename(p["file"])) for x in named))
        code, out, err = run("verify", "--json", p["file"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "verify the checkpoint")
        # metadata falls back to the older intact snapshot and the log
        _, out, _ = run("metadata", "--json", c["path"])
        check_objects(self, out, c["metadata"], "snapshot_incomplete")

    def test_crc_mismatch_is_skipped_and_reported(self):
        c = CASES["crc"]
        p = c["problems"][0]
        code, out, err = run("metadata", "--json", c["path"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "metadata")
        check_objects(self, out, c["metadata"], "crc")
        code, out, err = run("verify", "--json", c["metadata_dir"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "verify")
        code, out, err = run("dump", "--json", "--decode", "metadata", p["file"])
        self.assertEqual(code, 1, err)
        self.assert_problem(out, p, "dump")

    def test_snapshot_missing(self):
        c = CASES["snapshot_missing"]
        for args in (("verify", "--json", c["metadata_dir"]), ("scan", "--json", c["path"]),
                     ("metadata", "--json", c["path"])):
            with self.subTest(cmd=args[0]):
                code, out, err = run(*args)
                self.assertEqual(code, 1, err)
                self.assert_problem(out, c["problems"][0], args[0])

    def test_bad_quorum_state(self):
        for name in ("quorum_state_json", "quorum_state_version"):
            c = CASES[name]
            for args in (("verify", "--json", c["metadata_dir"]), ("scan", "--json", c["path"]),
                         ("metadata", "--json", c["path"])):
                with self.subTest(case=name, cmd=args[0]):
                    code, out, err = run(*args)
                    self.assertEqual(code, 1, err)
                    self.assert_problem(out, {"code": "checkpoint_invalid", "severity": "error"}, name)
                    named = [x for x in problems(out) if x["code"] == "checkpoint_invalid"]
                    self.assertTrue(all(x["file"].endswith("quorum-state") for x in named), named)

    def test_unknown_records_are_not_applied(self):
        c = CASES["unknown_records"]
        code, out, err = run("metadata", "--json", c["path"])
        self.assertIn(code, (0, 1), err)
        check_objects(self, out, c["metadata"], "unknown_records")
        self.assertEqual(sorted(p["offset"] for p in problems(out) if p["code"] == "unknown_record_type"),
                         sorted(p["offset"] for p in c["problems"]))

    def test_healthy_node_has_no_kraft_problem(self):
        code, out, err = run("verify", "--json", MDIR)
        self.assertEqual(code, 0, err)
        self.assertEqual(problems(out), [])


class Copies(unittest.TestCase):
    def test_each_copy_alone_misses_its_damaged_batch(self):
        for c in CASES["copies"]["copies"]:
            with self.subTest(copy=c["path"]):
                code, out, err = run("metadata", "--json", c["path"])
                self.assertEqual(code, 1, err)
                b = c["damaged_batch"]
                got = [p for p in problems(out) if p["code"] == "crc_mismatch"]
                self.assertEqual([(p["file"], p["position"], p["offset"]) for p in got],
                                 [(b["file"], b["position"], b["base_offset"])])
                check_objects(self, out, c["metadata_alone"], c["path"], cluster_id_known=False)

    def test_the_copies_together_give_the_whole_log(self):
        cs = CASES["copies"]
        code, out, err = run("metadata", "--json", *[c["path"] for c in cs["copies"]])
        self.assertIn(code, (0, 1), err)
        check_objects(self, out, cs["metadata"], "copies", cluster_id_known=False)
        # the damage is still named
        self.assertEqual(sorted((p["file"], p["position"]) for p in problems(out) if p["code"] == "crc_mismatch"),
                         sorted((c["damaged_batch"]["file"], c["damaged_batch"]["position"]) for c in cs["copies"]))


class Scan(unittest.TestCase):
    def test_node_partitions_checked_against_the_metadata_log(self):
        """payments-0's partition.metadata names another id than the log
        (topic_id_mismatch, error); ghost-0's id is unknown to the log
        (stray_partition, warning). __cluster_metadata-0 (its reserved id) and
        the partitions that match are not problems."""
        s = M["scan"]
        code, out, err = run("scan", "--json", s["path"])
        self.assertEqual(code, 1, err)
        parts = jsonl(out, "partition")
        self.assertEqual(sorted("%s-%d" % (p["topic"], p["partition"]) for p in parts), s["partitions"])
        # the share-group-state and remote-log-metadata partitions each hold a record of
        # an unknown type on purpose: a scan that decodes them may warn about it
        got = [p for p in problems(out) if not (p["code"] == "unknown_record_type" and p["severity"] == "warning"
                                               and ("/__share_group_state-0/" in p["file"]
                                                    or "/__remote_log_metadata-0/" in p["file"]))]
        self.assertEqual(sorted((p["code"], p["severity"]) for p in got),
                         sorted((p["code"], p["severity"]) for p in s["problems"]), got)
        for w in s["problems"]:
            p = next(p for p in got if p["code"] == w["code"])
            self.assertIn("/" + os.path.basename(w["dir"]), p["file"], p)
        summary = jsonl(out, "summary")[0]
        self.assertEqual(summary["errors"], 1)
        self.assertGreaterEqual(summary["warnings"], 1)

    def test_trimmed_and_healthy_have_no_kraft_problem(self):
        for path in (CASES["trimmed"]["path"],):
            code, out, err = run("scan", "--json", path)
            self.assertEqual(code, 0, err)
            self.assertEqual(problems(out), [])


class Groups(unittest.TestCase):
    def test_kip848_topics_named_from_the_metadata_log(self):
        g = M["groups"]
        code, out, err = run("groups", "--json", g["path"])
        rows = jsonl(out, "group")
        self.assertEqual([r["group"] for r in rows], [x["group"] for x in g["with_metadata"]])
        for r, w in zip(rows, g["with_metadata"]):
            subset(r, w, r["group"])
        names = [a["topic"] for a in rows[0]["members"][0]["assignment"]]
        self.assertEqual(names, ["clicks", "orders", "payments", None])

    def test_without_the_metadata_log_ids_stay_unnamed(self):
        g = M["groups"]
        code, out, err = run("groups", "--json", g["offsets_dir"])
        rows = jsonl(out, "group")
        for r, w in zip(rows, g["offsets_dir_alone"]):
            subset(r, w, r["group"])
        self.assertEqual([a["topic"] for a in rows[0]["members"][0]["assignment"]], [None] * 4)


if __name__ == "__main__":
    unittest.main()
