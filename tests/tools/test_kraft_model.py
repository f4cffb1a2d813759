#!/usr/bin/python3
"""Unit tests of the Python side of the KRaft fixtures (no kfsck binary, so
tests/run.sh runs them once, with the normal build).

tests/e2e/test_metadata.py trusts fixtures/kraft/MANIFEST.json, which
tools/gen/gen_kraft.py computes with tools/gen/kraftfmt.py (the record encoder and
decoder) and tools/model/kraft_image.py (the model of the metadata image). These
tests check that Python side on its own: the spec's byte examples, the replay
rules of kraft-metadata.md §4.6/§5 on small hand-made logs, and that the
committed fixture files still read back to what the manifest says.
"""
import json
import os
import sys
import unittest

ROOT = os.environ.get("KFSCK_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path[:0] = [os.path.join(ROOT, "tools", "gen"), os.path.join(ROOT, "tools", "model")]

import coordfmt as cf      # noqa: E402
import gen_kraft           # noqa: E402
import kraft_image as ki   # noqa: E402
import kraftfmt as kf      # noqa: E402

FIX = os.path.join(ROOT, "fixtures")
T = bytes(range(1, 17))
T2 = bytes(range(2, 18))
DIRS = [bytes([0x40 + i] * 16) for i in range(4)]


def md(offset, api_key, version, d, epoch=1):
    return {"offset": offset, "epoch": epoch, "kind": "metadata", "api_key": api_key, "version": version, "d": d}


def reg(bid, epoch, version=0, **kw):
    d = {"BrokerId": bid, "IncarnationId": bytes([bid] * 16), "BrokerEpoch": epoch, "EndPoints": [],
         "Features": [], "Rack": None, "Fenced": True}
    d.update(kw)
    return md(epoch, 0, version, d)


def part(pid=0, replicas=(1, 2), leader=1, version=0, **kw):
    d = {"PartitionId": pid, "TopicId": T, "Replicas": list(replicas), "Isr": list(replicas),
         "RemovingReplicas": [], "AddingReplicas": [], "Leader": leader, "LeaderEpoch": 0, "PartitionEpoch": 0}
    d.update(kw)
    return (3, version, d)


def log_of(*recs):
    return [md(i, *r) if isinstance(r, tuple) else dict(r, offset=i) for i, r in enumerate(recs)]


BASE = [(12, 0, {"Name": "metadata.version", "FeatureLevel": 7}), (2, 0, {"Name": "t", "TopicId": T}), part()]


def p0(ld):
    return ld.img.topics[T]["partitions"][0]


class Encoding(unittest.TestCase):
    def test_selftests(self):
        self.assertTrue(kf.selftest())
        self.assertTrue(ki.selftest())

    def test_snake_case_is_kafkas(self):
        for name, want in (("KRaftVersionFeature", "kraft_version_feature"), ("IsMigratingZkBroker",
                           "is_migrating_zk_broker"), ("TxnIndexEmpty", "txn_index_empty"),
                           ("EligibleLeaderReplicas", "eligible_leader_replicas"), ("Isr", "isr")):
            self.assertEqual(kf.kafka_snake(name), want)

    def test_tags_out_of_declaration_order(self):
        # PartitionChangeRecord: Directories is tag 8, declared before tags 6 and 7
        b = kf.encode_metadata(5, 2, {"PartitionId": 0, "TopicId": T, "Directories": [DIRS[0]],
                                      "EligibleLeaderReplicas": [1], "LastKnownElr": []})
        tail = b[3 + 4 + 16:]
        self.assertEqual(tail[0], 3)
        self.assertEqual([tail[1], tail[1 + 2 + tail[2]]], [6, 7])
        self.assertEqual(kf.decode_metadata(b)[2]["Directories"], [DIRS[0]])

    def test_empty_tagged_array_is_not_absent(self):
        absent = kf.decode_metadata(kf.encode_metadata(5, 2, {"PartitionId": 0, "TopicId": T}))[2]
        empty = kf.decode_metadata(kf.encode_metadata(5, 2, {"PartitionId": 0, "TopicId": T,
                                                             "EligibleLeaderReplicas": []}))[2]
        self.assertIsNone(absent["EligibleLeaderReplicas"])
        self.assertEqual(empty["EligibleLeaderReplicas"], [])
        self.assertNotIn("eligible_leader_replicas", kf.render_metadata(5, 2, absent))
        self.assertEqual(kf.render_metadata(5, 2, empty)["eligible_leader_replicas"], [])

    def test_register_broker_v2_moves_fields(self):
        d = {"BrokerId": 1, "IncarnationId": T, "BrokerEpoch": 5, "EndPoints": [], "Features": [],
             "Rack": None, "Fenced": False, "InControlledShutdown": False, "IsMigratingZkBroker": True}
        v2 = kf.encode_metadata(0, 2, d)
        v1 = kf.encode_metadata(0, 1, {k: v for k, v in d.items() if k != "IsMigratingZkBroker"})
        self.assertEqual(v2[3 + 4], 1)                       # IsMigratingZkBroker right after BrokerId
        self.assertEqual(v1[3 + 4:3 + 4 + 16], T)            # v1: IncarnationId there
        self.assertEqual(len(v2), len(v1) + 1)

    def test_share_layouts(self):
        key = kf.encode_share_key(0, {"GroupId": "g", "TopicId": T, "Partition": 0})
        old = kf.encode_share_value(0, {"SnapshotEpoch": 1, "StateEpoch": 2, "LeaderEpoch": 3, "StartOffset": 4,
                                        "StateBatches": []}, "4.0")
        self.assertEqual(kf.decode_share(key, old)[4], "4.0")
        new = kf.encode_share_value(0, {"SnapshotEpoch": 1, "StateEpoch": 2, "LeaderEpoch": 3, "StartOffset": 4,
                                        "CreateTimestamp": 5, "WriteTimestamp": 6, "StateBatches": []}, "4.1")
        self.assertEqual(kf.decode_share(key, new)[4], "4.1")
        self.assertEqual(kf.decode_share(key, None)[3], None)


class Replay(unittest.TestCase):
    def test_partition_change_sets_only_what_it_carries(self):
        ld = ki.build(None, log_of(*BASE, (5, 0, {"PartitionId": 0, "TopicId": T, "Isr": [1]})))
        p = p0(ld)
        self.assertEqual((p["isr"], p["replicas"], p["leader"], p["leader_epoch"], p["partition_epoch"]),
                         ([1], [1, 2], 1, 0, 1))

    def test_leader_minus_one_is_none_and_bumps_the_epoch(self):
        ld = ki.build(None, log_of(*BASE, (5, 0, {"PartitionId": 0, "TopicId": T, "Leader": -1})))
        self.assertEqual((p0(ld)["leader"], p0(ld)["leader_epoch"], p0(ld)["partition_epoch"]), (-1, 1, 1))
        objs = ki.cli_objects(ld)
        self.assertEqual([o["leader"] for o in objs if o["type"] == "partition"], [-1])

    def test_same_leader_rewritten_bumps_the_epoch(self):
        ld = ki.build(None, log_of(*BASE, (5, 0, {"PartitionId": 0, "TopicId": T, "Leader": 1})))
        self.assertEqual((p0(ld)["leader"], p0(ld)["leader_epoch"]), (1, 1))

    def test_directories_null_until_set(self):
        ld = ki.build(None, log_of(*BASE))
        self.assertIsNone(ki.cli_objects(ld)[-1]["directories"])
        ld = ki.build(None, log_of(*BASE, (5, 1, {"PartitionId": 0, "TopicId": T, "Directories": DIRS[:2]})))
        self.assertEqual(ki.cli_objects(ld)[-1]["directories"], [cf.uuid_str(x) for x in DIRS[:2]])

    def test_change_of_an_unknown_partition_is_an_error(self):
        with self.assertRaises(ki.ReplayError):
            ki.build(None, log_of(*BASE, (5, 0, {"PartitionId": 7, "TopicId": T, "Isr": [1]})))

    def test_removed_topic_drops_partitions_and_its_configs(self):
        log = log_of(*BASE, (4, 0, {"ResourceType": 2, "ResourceName": "t", "Name": "a", "Value": "1"}),
                     (4, 0, {"ResourceType": 4, "ResourceName": "t", "Name": "a", "Value": "1"}),
                     (9, 0, {"TopicId": T}))
        img = ki.build(None, log).img
        self.assertEqual(img.topics, {})
        self.assertEqual(img.configs, {(4, "t"): {"a": "1"}})

    def test_null_config_value_deletes(self):
        log = log_of((4, 0, {"ResourceType": 4, "ResourceName": "", "Name": "a", "Value": "1"}),
                     (4, 0, {"ResourceType": 4, "ResourceName": "", "Name": "b", "Value": "2"}),
                     (4, 0, {"ResourceType": 4, "ResourceName": "", "Name": "a", "Value": None}))
        self.assertEqual(ki.build(None, log).img.configs, {(4, ""): {"b": "2"}})
        self.assertEqual(ki.build(None, log + [md(3, 4, 0, {"ResourceType": 4, "ResourceName": "", "Name": "b",
                                                            "Value": None})]).img.configs, {})

    def test_fence_unfence_unregister_change_only_that_broker(self):
        log = [reg(1, 0), reg(2, 1), md(2, 8, 0, {"Id": 1, "Epoch": 0}), md(3, 8, 0, {"Id": 2, "Epoch": 1}),
               md(4, 7, 0, {"Id": 2, "Epoch": 1})]
        img = ki.build(None, log).img
        self.assertEqual((img.brokers[1]["fenced"], img.brokers[2]["fenced"]), (False, True))
        img = ki.build(None, log + [md(5, 1, 0, {"BrokerId": 2, "BrokerEpoch": 1})]).img
        self.assertEqual(sorted(img.brokers), [1])
        self.assertFalse(img.brokers[1]["fenced"])
        with self.assertRaises(ki.ReplayError):       # wrong epoch
            ki.build(None, log + [md(5, 7, 0, {"Id": 1, "Epoch": 9})])

    def test_broker_registration_change_fields(self):
        log = [reg(1, 0, version=1, InControlledShutdown=False),
               md(1, 17, 0, {"BrokerId": 1, "BrokerEpoch": 0, "Fenced": -1}),
               md(2, 17, 1, {"BrokerId": 1, "BrokerEpoch": 0, "InControlledShutdown": 1}),
               md(3, 17, 2, {"BrokerId": 1, "BrokerEpoch": 0, "LogDirs": [DIRS[0]]}),
               md(4, 17, 2, {"BrokerId": 1, "BrokerEpoch": 0, "LogDirs": []}),       # empty = no change
               md(5, 17, 1, {"BrokerId": 1, "BrokerEpoch": 0, "InControlledShutdown": 0})]  # 0 = no change
        b = ki.build(None, log).img.brokers[1]
        self.assertEqual((b["fenced"], b["in_controlled_shutdown"], b["log_dirs"]), (False, True, [DIRS[0]]))
        o = [o for o in ki.cli_objects(ki.build(None, log[:3])) if o["type"] == "broker"][0]
        self.assertTrue(o["_log_dirs_unset"])
        o = [o for o in ki.cli_objects(ki.build(None, log)) if o["type"] == "broker"][0]
        self.assertNotIn("_log_dirs_unset", o)

    def test_features(self):
        log = log_of((12, 0, {"Name": "metadata.version", "FeatureLevel": 23}),
                     (12, 0, {"Name": "kraft.version", "FeatureLevel": 1}),
                     (12, 0, {"Name": "group.version", "FeatureLevel": 1}),
                     (12, 0, {"Name": "streams.version", "FeatureLevel": 1}),
                     (12, 0, {"Name": "streams.version", "FeatureLevel": 0}))
        img = ki.build(None, log).img
        self.assertEqual((img.mv, img.features), (23, {"group.version": 1}))

    def test_producer_ids_must_increase(self):
        log = log_of((15, 0, {"BrokerId": 1, "BrokerEpoch": 4, "NextProducerId": 2000}))
        self.assertEqual(ki.cli_objects(ki.build(None, log))[-1],
                         {"type": "producer_ids", "next_producer_id": 2000, "broker_id": 1, "broker_epoch": 4})
        with self.assertRaises(ki.ReplayError):
            ki.build(None, log + [md(1, 15, 0, {"BrokerId": 1, "BrokerEpoch": 4, "NextProducerId": 1000})])

    def test_metadata_transactions(self):
        log = log_of(*BASE, (23, 0, {"Name": "x"}), (2, 0, {"Name": "u", "TopicId": T2}), (24, 0, {}),
                     (23, 0, {}), (9, 0, {"TopicId": T2}), (25, 0, {"Reason": "r"}), (23, 0, {}),
                     (9, 0, {"TopicId": T}))
        self.assertNotIn(T2, ki.build(None, log, 4).img.topics)         # open: not visible
        self.assertIn(T2, ki.build(None, log, 5).img.topics)            # committed at End
        self.assertIn(T2, ki.build(None, log, 8).img.topics)            # aborted removal
        self.assertIn(T, ki.build(None, log).img.topics)                # open at the end
        with self.assertRaises(ki.ReplayError):
            ki.build(None, log_of((24, 0, {})))

    def test_clear_elr(self):
        log = log_of(*BASE, (5, 2, {"PartitionId": 0, "TopicId": T, "EligibleLeaderReplicas": [2],
                                    "LastKnownElr": [1]}), (28, 0, {"TopicName": "t"}),
                     (28, 0, {"TopicName": "t"}))
        self.assertEqual((p0(ki.build(None, log, 3))["elr"], p0(ki.build(None, log, 3))["partition_epoch"]), ([2], 1))
        p = p0(ki.build(None, log))
        self.assertEqual((p["elr"], p["last_known_elr"], p["partition_epoch"], p["leader_epoch"]), ([], [], 2, 0))
        with self.assertRaises(ki.ReplayError):
            ki.build(None, log + [md(6, 28, 0, {"TopicName": "nope"})])

    def test_snapshot_replaces_the_image(self):
        log = log_of(*BASE, (4, 0, {"ResourceType": 2, "ResourceName": "t", "Name": "a", "Value": "1"}))
        snap = [md(1, 2, 0, {"Name": "s", "TopicId": T2})]
        ld = ki.build(("00000000000000000003-0000000001.checkpoint", 3, 1, snap), log)
        self.assertEqual(list(ld.img.topics), [T2])                      # t from before 3 is gone
        self.assertEqual(ld.img.configs, {(2, "t"): {"a": "1"}})         # offset 3 applied
        self.assertEqual((ld.records, ld.last_offset, ld.snapshot["end_offset"]), (2, 3, 3))

    def test_snapshot_writer_round_trips(self):
        log = log_of(*BASE, (5, 2, {"PartitionId": 0, "TopicId": T, "Directories": DIRS[:2],
                                    "EligibleLeaderReplicas": [2]}),
                     (11, 0, {"Name": "u", "Mechanism": 1, "Salt": b"s", "StoredKey": b"k", "ServerKey": b"v",
                              "Iterations": 4096}),
                     (12, 0, {"Name": "metadata.version", "FeatureLevel": 23}))
        full = ki.build(None, log)
        snap = [md(i, k, v, d) for i, (k, v, d) in enumerate(ki.snapshot_records(full.img))]
        again = ki.build(("x", 6, 1, snap), [])
        self.assertEqual(gen_kraft.strip_cluster(ki.cli_objects(again)), gen_kraft.strip_cluster(ki.cli_objects(full)))
        self.assertEqual(again.img.scram, full.img.scram)

    def test_snapshot_choice(self):
        def snap(end, intact=True):
            return ("%020d-%010d.checkpoint" % (end, 1), end, 1, [], intact)
        entries = log_of(BASE[0], *[(20, 0, {})] * 6)
        snaps = [snap(0), snap(2), snap(5), snap(6, intact=False)]
        self.assertEqual(gen_kraft.view(snaps, entries)[0][0]["snapshot"], snap(5)[0])
        self.assertEqual(gen_kraft.view(snaps, entries, 4)[0][0]["snapshot"], snap(5)[0])   # 5 - 1 <= 4
        self.assertEqual(gen_kraft.view(snaps, entries, 3)[0][0]["snapshot"], snap(2)[0])
        self.assertIsNone(gen_kraft.view(snaps, entries, 0)[0][0]["snapshot"])     # never 0-0


class Fixtures(unittest.TestCase):
    """The committed files read back to what MANIFEST.json says."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(FIX, "kraft", "MANIFEST.json")) as f:
            cls.M = json.load(f)
        cls.w = gen_kraft.Writer(FIX)

    def test_dump_facts(self):
        for d in self.M["dump"]:
            self.assertEqual(gen_kraft.file_dump(self.w, d["file"]), d)

    def test_metadata_views(self):
        M = self.M
        segs = [s["file"] for s in M["segments"]]
        entries, dmg = gen_kraft.log_entries(self.w, segs)
        self.assertEqual(dmg, [])
        snaps = [gen_kraft.snapshot_input(self.w, os.path.join(M["metadata_dir"], n))
                 for n in sorted(os.listdir(os.path.join(FIX, M["metadata_dir"]))) if n.endswith(".checkpoint")]
        self.assertEqual(gen_kraft.view(snaps, entries, None, M["cluster_id"])[0], M["metadata"]["end"])
        for a in M["metadata"]["as_of"]:
            self.assertEqual(gen_kraft.view(snaps, entries, a["offset"], M["cluster_id"])[0], a["objects"], a["name"])

    def test_secrets_are_in_the_files(self):
        import base64
        blob = b""
        for d in self.M["dump"]:
            with open(os.path.join(FIX, d["file"]), "rb") as f:
                blob += f.read()
        for s in self.M["secrets"]:
            self.assertIn(base64.b64decode(s["b64"]), blob, s["name"])


if __name__ == "__main__":
    unittest.main()
