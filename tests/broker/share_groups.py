"""share_groups: a share group (KIP-932) as kfsck reads it, against
`kafka-share-groups --describe` (used by scenario 'clean' of
tests/broker/scenarios.py).

kfsck `groups` gives the group's kind, state and members from
`__consumer_offsets`; `kfsck dump --decode share` gives the records of
`__share_group_state` (snapshots and updates keyed by group, topic id and
partition). The share coordinator's replay of those (a snapshot replaces
the state, an update's start offset other than -1 moves it) gives each
partition's start offset, which the tool prints as START-OFFSET (a
partition whose state is still -1, not initialized, it does not print).
"""
import glob
import os

import compare as c
import harness as h

SHARE = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"


def describe(d, out, bootstrap, group):
    import scenarios as sc  # (it imports this module)
    return sc.describe_ways(d, out, SHARE, ["--bootstrap-server", bootstrap, "--describe", "--group", group],
                            {"state": ["--state"], "offsets": ["--offsets"], "members": ["--members"]})


def topic_ids(datadir):
    """{topic id: topic} from the partition.metadata files of a data dir."""
    out = {}
    for f in glob.glob(os.path.join(datadir, "*", "partition.metadata")):
        with open(f) as fh:
            for line in fh:
                if line.startswith("topic_id:"):
                    out[line.split(":", 1)[1].strip()] = os.path.basename(os.path.dirname(f)).rsplit("-", 1)[0]
    return out


def start_offsets(datadir):
    """{(group, topic, partition): start offset} by the share coordinator's
    replay of kfsck's decoded __share_group_state records."""
    names = topic_ids(datadir)
    state = {}
    for pdir in sorted(glob.glob(os.path.join(datadir, "__share_group_state-*"))):
        rc, rows, err = h.kfsck_json("dump", "--records", "--decode", "share", pdir)
        if rc != 0:
            raise AssertionError(f"kfsck dump --decode share exit {rc}: {err[:200]}")
        for r in rows:
            if r["type"] != "record" or not isinstance(r.get("key_decoded"), dict):
                continue
            k = r["key_decoded"]
            key = (k["group_id"], names.get(k["topic_id"], k["topic_id"]), k["partition"])
            v = r.get("value_decoded")
            if v is None:
                state.pop(key, None)
            elif r.get("record_type") == "share_snapshot" or key not in state:
                state[key] = v["start_offset"]
            elif v["start_offset"] != -1:
                state[key] = v["start_offset"]
    return state


def compare(tag, datadir, described, group_rows, group):
    got = {r["group"]: r for r in group_rows if r["type"] == "group"}
    k = got.get(group)
    if k is None:
        raise AssertionError(f"{tag}: kfsck groups has no share group {group}")
    c._eq(f"{tag} {group} kind", k["kind"], "share")
    st = [r for r in c.parse_table(described["state"]) if r.get("GROUP") == group]
    if len(st) != 1:
        raise AssertionError(f"{tag}: cannot read kafka-share-groups --state: {described['state'][:300]!r}")
    c._eq(f"{tag} {group} state", k["state"], st[0]["STATE"].lower())
    c._eq(f"{tag} {group} members", len(k.get("members") or []), int(st[0]["#MEMBERS"]))
    want = {(r["GROUP"], r["TOPIC"], int(r["PARTITION"])): int(r["START-OFFSET"])
            for r in c.parse_table(described["offsets"]) if r.get("GROUP") == group and r.get("START-OFFSET") not in
            (None, "-")}
    have = {key: v for key, v in start_offsets(datadir).items() if key[0] == group and v != -1}
    c._eq(f"{tag} {group} start offsets (__share_group_state)", have, want)
    return f"{group}: {k['state']}, {len(want)} partitions' start offsets {sorted(want.values())}"
