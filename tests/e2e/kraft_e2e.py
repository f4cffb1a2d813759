"""kraft_e2e: what the end-to-end tests of KRaft support share (test_dump's
`dump --decode metadata|share|remote`, test_metadata, the KRaft checks of
test_scan, test_groups naming KIP-848 topics): fixtures/kraft/MANIFEST.json,
which tools/gen/gen_kraft.py computed with tools/model/kraft_image.py, and
the comparisons cli.md leaves room in (bytes fields named <name> or
<name>_b64, a security protocol as a number or a name, the order of objects
of one type), and the secrets no command may print. Not a test file itself.
"""
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import jsonl, manifest, run, subset  # noqa: E402

KRAFT = manifest("kraft")
NODE = KRAFT["node"]
MDIR = KRAFT["metadata_dir"]
CASES = KRAFT["cases"]
ORDER = ("cluster", "feature", "broker", "controller", "topic", "partition", "config", "producer_ids")
PROTOCOLS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
RESOURCE_TYPES = {"topic": 2, "broker": 4, "broker_logger": 8, "client_metrics": 16, "group": 32}
KRAFT_CONTROL = {"leader_change", "snapshot_header", "snapshot_footer", "kraft_version", "kraft_voters"}
SECRETS = {s["name"]: base64.b64decode(s["b64"]) for s in KRAFT["secrets"]}


def run_lossy(*args):
    """kfsck_e2e.run; bytes of the output that are not UTF-8 read as U+FFFD
    (a record's bytes may be printed raw where a test looks for leaks)."""
    return run(*args, errors="replace")


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
