#!/usr/bin/python3
"""gen_kraft: build kfsck's KRaft fixtures (fixtures/kraft/) and their expectations.

Called by tools/gen/gen_fixtures.py (its main calls `generate(OUTDIR)`); can also
be run alone: /usr/bin/python3 tools/gen/gen_kraft.py OUTDIR  (writes OUTDIR/kraft).

Writes, below OUTDIR/kraft/ (replacing that directory):
  node1/                        the data dir of a combined broker+controller KRaft
                                node (node.id 1): meta.properties, bootstrap.checkpoint,
    __cluster_metadata-0/       three log segments (+ .index/.timeindex), the 0-0
                                bootstrap snapshot and two snapshots with header and
                                footer, quorum-state, leader-epoch-checkpoint,
                                partition.metadata
    orders-0/, orders-1/        topic partitions whose partition.metadata matches the log
    payments-0/                 partition.metadata with another topic id (topic_id_mismatch)
    ghost-0/                    a topic id the metadata log does not know (stray_partition)
    __consumer_offsets-0/       a KIP-848 consumer group assigned by topic id only
    __share_group_state-0/      share-group state snapshots/updates (4.1+ and 4.0 layouts)
    __remote_log_metadata-0/    tiered-storage segment metadata
  trimmed/                      node1's metadata partition after retention: first segment
                                gone, a snapshot covers it (healthy)
  damaged/<case>/               data dirs with one KRaft problem each: snapshot-incomplete,
                                crc, snapshot-missing, quorum-state-json,
                                quorum-state-version, unknown-records
  copies/broker-{a,b}/          two copies of the metadata partition damaged in different
                                places; together they hold the whole log
  MANIFEST.json                 what kfsck must print, computed here

Record bytes come from tools/gen/kraftfmt.py (this project's Python description of
the KRaft records, from docs/formats.md §14); batches from
kafka-python's DefaultRecordBatchBuilder (kafkafmt.v2_batch, control batches
with the control bit set and the CRC-32C recomputed); indexes from
tools/model/kafka_index.py; the consumer-offsets records from tools/gen/coordfmt.py
via tools/gen/gen_offsets.py. The expectations are computed by reading the
written files back (kafka-python's reader + kraftfmt's decoder) and replaying
them with tools/model/kraft_image.py, the project's independent model of the
metadata image. Nothing is random and timestamps are fixed, so two runs give
identical bytes.
"""

import base64
import json
import os
import shutil
import struct
import sys

# this folder (the encoders) and tools/model/ (the models the expectations come from)
_TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(_TOOLS, "gen"), os.path.join(_TOOLS, "model")]

import coordfmt as cf                                    # noqa: E402
import gen_offsets as go                                 # noqa: E402
import kafka_index                                       # noqa: E402
import kraft_image as ki                                 # noqa: E402
import kraftfmt as kf                                    # noqa: E402
from kafkafmt import (Rec, epoch_checkpoint, partition_metadata, seg_name,  # noqa: E402
                     v2_batch)

ROOT = "kraft"
NODE = ROOT + "/node1"
MDIR = NODE + "/__cluster_metadata-0"
T0 = 1767225600000            # 2026-01-01T00:00:00Z
STEP = 1000                   # one controller write a second
INDEX_INTERVAL = 4096
METADATA_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"


def U(hexs):
    raw = bytes.fromhex(hexs)
    assert len(raw) == 16 and raw[0] < 0xF8      # never printed with a leading '-'
    return raw


def A(label):
    """A fixed uuid spelled from an ASCII label (padded with '.')."""
    assert len(label) <= 16
    return U((label.encode() + b"." * 16)[:16].hex())


S = cf.uuid_str
CLUSTER_ID = U("4b726166744b6673636b436c75737465")
D1 = U("6469722d6e6f6465312d6d6574610001")              # node1's log dir (also the metadata dir)
D2A, D2B = U("6469722d62726f6b6572322d61000002"), U("6469722d62726f6b6572322d62000002")
D3A, D3B = U("6469722d62726f6b6572332d61000003"), U("6469722d62726f6b6572332d62000003")
D4 = U("6469722d636f6e74726f6c6c65720004")
INC = {k: A("inc-" + k) for k in ("b1", "b1b", "b2", "b2b", "b3", "b3b", "c1", "c4")}
TOPIC = {
    "orders": U("3a1f0c9e5b7d4c6e8a0b1c2d3e4f5a60"),
    "payments": U("5c8e2a1b3d4f4e6a9b0c1d2e3f405162"),
    "clicks": U("1e2d3c4b5a6948378f6e5d4c3b2a1900"),
    "audit": U("2b4d6f8a0c1e4a3b9c5d7e6f8a9b0c1d"),
    "tmp": U("7f0e1d2c3b4a49588a7b6c5d4e3f2a10"),
    "events": U("6e5d4c3b2a1948378f6e5d4c3b2a1911"),
    "__consumer_offsets": U("0c0ffee0c0ffee0c8000000000000101"),
    "__share_group_state": U("0c0ffee0c0ffee0c8000000000000102"),
    "__remote_log_metadata": U("0c0ffee0c0ffee0c8000000000000103"),
}
PAYMENTS_WRONG_ID = U("5c8e2a1b3d4f4e6a9b0c1d2e3f40ffff")    # payments-0/partition.metadata
GHOST_ID = U("47686f7374546f7069634e6f6e65aa01")             # ghost-0: known nowhere
UNNAMED_ID = U("4e6f4e616d65496e416e79496e707574")           # in the group's assignment only
ACL = {k: A("acl-" + k) for k in ("a1", "a2", "a3")}

# Secrets: distinctive ASCII so that any encoding of them can be searched for.
SECRETS = {
    "scram_alice_salt": b"kfsck-SALT-alice-7f3a9c1e2b",
    "scram_alice_stored_key": b"kfsck-STOREDKEY-alice-0b5d2e8f91",
    "scram_alice_server_key": b"kfsck-SERVERKEY-alice-6a4c8e0d13",
    "scram_bob_salt": b"kfsck-SALT-bob-3e8d1c5a7f9b20",
    "scram_bob_stored_key": b"kfsck-STOREDKEY-bob-9c2e4a6b8d01",
    "scram_bob_server_key": b"kfsck-SERVERKEY-bob-1f3b5d7e9a24",
    "token_alice": b"kfsck-TOKENID-alice-4f9e2b7c6a13",
    "token_bob": b"kfsck-TOKENID-bob-8d1a5c3e7b902",
    "ssl_keystore_password": b"kfsck-KEYSTORE-PASSWORD-93c1a7e5",
    "jaas_password": b"kfsck-JAAS-PASSWORD-5e2a9b4c71",
    "delegation_token_secret_key": b"kfsck-DT-SECRET-KEY-0d6b8f2a4c",
}
JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" '
        'password="%s";' % SECRETS["jaas_password"].decode())


# ---------------------------------------------------------------------------
# the metadata log being written

class MetaLog:
    def __init__(self):
        self.next = 0
        self.epoch = 0
        self.ts = T0
        self.batches = []
        self.segments = [0]
        self.marks = {}

    def _batch(self, control, data_fn, values, intents):
        base = self.next
        self.ts += STEP
        self.batches.append({"base": base, "last": base + len(values) - 1, "epoch": self.epoch,
                             "ts": self.ts, "control": control,
                             "data": data_fn(base, values, self.ts, self.epoch),
                             "intents": intents})
        self.next += len(values)
        return base

    def data(self, *recs):
        """recs: (api_key, version, fields) or ("raw", value bytes, expectation)."""
        values, intents = [], []
        for r in recs:
            if r[0] == "raw":
                values.append(r[1])
                intents.append({"raw": r[2]})
            else:
                values.append(kf.encode_metadata(*r))
                intents.append({"api_key": r[0], "version": r[1], "d": r[2]})
        return self._batch(False, kf.data_batch, values, intents)

    def control(self, *recs):
        """recs: (ctype, fields) or ("raw", key, value, expectation)."""
        values, intents = [], []
        for r in recs:
            if r[0] == "raw":
                values.append((r[1], r[2]))
                intents.append({"raw": r[3]})
            else:
                values.append(kf.encode_control(*r))
                intents.append({"ctype": r[0], "d": dict(r[1], Version=0)})
        return self._batch(True, kf.control_batch, values, intents)

    def leader(self, epoch, voters=(1,)):
        self.epoch = epoch
        vs = [{"VoterId": v} for v in voters]
        return self.control((kf.LEADER_CHANGE, {"LeaderId": 1, "Voters": vs, "GrantingVoters": vs}))

    def roll(self):
        self.segments.append(self.next)

    def mark(self, name):
        self.marks[name] = self.next - 1


# record builders -----------------------------------------------------------

def listeners(bid, port, secure=True):
    eps = [{"Name": "PLAINTEXT", "Host": "broker%d.kfsck.test" % bid, "Port": port,
            "SecurityProtocol": 0}]
    if secure:
        eps.append({"Name": "SASL_SSL", "Host": "broker%d.kfsck.test" % bid, "Port": port + 1,
                    "SecurityProtocol": 3})
    return eps


def reg_broker(log, bid, version, inc, rack, max_mv, log_dirs=None, cordoned=None, fenced=True):
    """RegisterBrokerRecord; its epoch is the offset it is written at (§2.2)."""
    d = {"BrokerId": bid, "IncarnationId": INC[inc], "BrokerEpoch": log.next,
         "EndPoints": listeners(bid, 9092), "Rack": rack, "Fenced": fenced,
         "Features": [{"Name": "metadata.version", "MinSupportedVersion": 1,
                       "MaxSupportedVersion": max_mv}]}
    if version >= 1:
        d["InControlledShutdown"] = False
    if version >= 2:
        d["IsMigratingZkBroker"] = False
        d["Features"].append({"Name": "group.version", "MinSupportedVersion": 0,
                              "MaxSupportedVersion": 1})
    if version >= 3:
        d["LogDirs"] = log_dirs
    if version >= 4:
        d["CordonedLogDirs"] = cordoned
    return (0, version, d)


def topic(name):
    return (2, 0, {"Name": name, "TopicId": TOPIC[name]})


def partition(version, name, pid, replicas, leader, dirs=None, isr=None, elr=None, lke=None,
              leader_epoch=0, partition_epoch=0, lrs=0):
    d = {"PartitionId": pid, "TopicId": TOPIC[name], "Replicas": replicas,
         "Isr": replicas if isr is None else isr, "RemovingReplicas": [], "AddingReplicas": [],
         "Leader": leader, "LeaderEpoch": leader_epoch, "PartitionEpoch": partition_epoch,
         "LeaderRecoveryState": lrs}
    if version >= 1:
        d["Directories"] = dirs
    if version >= 2:
        if elr is not None:
            d["EligibleLeaderReplicas"] = elr
        if lke is not None:
            d["LastKnownElr"] = lke
    return (3, version, d)


def change(version, name, pid, **kw):
    d = {"PartitionId": pid, "TopicId": TOPIC[name]}
    names = {"isr": "Isr", "leader": "Leader", "replicas": "Replicas", "removing": "RemovingReplicas",
             "adding": "AddingReplicas", "lrs": "LeaderRecoveryState", "dirs": "Directories",
             "elr": "EligibleLeaderReplicas", "lke": "LastKnownElr"}
    for k, v in kw.items():
        d[names[k]] = v
    return (5, version, d)


def config(rtype, rname, name, value):
    return (4, 0, {"ResourceType": {"topic": 2, "broker": 4}[rtype], "ResourceName": rname,
                   "Name": name, "Value": value})


def feature(name, level):
    return (12, 0, {"Name": name, "FeatureLevel": level})


def brc(version, bid, epoch, **kw):
    d = {"BrokerId": bid, "BrokerEpoch": epoch}
    for k, v in kw.items():
        d[{"fenced": "Fenced", "ics": "InControlledShutdown", "dirs": "LogDirs",
           "cordoned": "CordonedLogDirs"}[k]] = v
    return (17, version, d)


def quota(entity, key, value, remove=False):
    return (14, 0, {"Entity": [{"EntityType": t, "EntityName": n} for t, n in entity], "Key": key,
                    "Value": value, "Remove": remove})


def acl(aid, rtype, rname, pattern, principal, op, perm, host="*"):
    return (18, 0, {"Id": ACL[aid], "ResourceType": rtype, "ResourceName": rname,
                    "PatternType": pattern, "Principal": principal, "Host": host, "Operation": op,
                    "PermissionType": perm})


def scram(name, mech, who, iterations):
    return (11, 0, {"Name": name, "Mechanism": mech, "Salt": SECRETS["scram_%s_salt" % who],
                    "StoredKey": SECRETS["scram_%s_stored_key" % who],
                    "ServerKey": SECRETS["scram_%s_server_key" % who], "Iterations": iterations})


def token(owner, renewers, who, issue):
    return (10, 0, {"Owner": owner, "Requester": owner, "Renewers": renewers,
                    "IssueTimestamp": issue, "MaxTimestamp": issue + 7 * 86400000,
                    "ExpirationTimestamp": issue + 86400000,
                    "TokenId": SECRETS["token_%s" % who].decode()})


def voters_record(ids):
    return (kf.KRAFT_VOTERS, {"Voters": [
        {"VoterId": v, "VoterDirectoryId": {1: D1, 4: D4}[v],
         "Endpoints": [{"Name": "CONTROLLER", "Host": "controller%d.kfsck.test" % v, "Port": 9093}],
         "KRaftVersionFeature": {"MinSupportedVersion": 0, "MaxSupportedVersion": 1}} for v in ids]})


def controller(cid, inc):
    return (27, 0, {"ControllerId": cid, "IncarnationId": INC[inc], "ZkMigrationReady": False,
                    "EndPoints": [{"Name": "CONTROLLER", "Host": "controller%d.kfsck.test" % cid,
                                   "Port": 9093, "SecurityProtocol": 0}],
                    "Features": [{"Name": "metadata.version", "MinSupportedVersion": 7,
                                  "MaxSupportedVersion": 33},
                                 {"Name": "kraft.version", "MinSupportedVersion": 0,
                                  "MaxSupportedVersion": 1}]})


# ---------------------------------------------------------------------------
# the scenario: a cluster born at MV 3.3-IV1 (level 5) and upgraded to 4.4-IV2 (33)

SCENARIO = [
    "epoch 1 (segment 0): leader change; kraft.version 1 and voters [1] (one control batch); "
    "MV 5; brokers 1 and 2 registered (RegisterBroker v0) and unfenced (UnfenceBrokerRecord); "
    "producer ids; topics orders (3 partitions, PartitionRecord v0) and __consumer_offsets, "
    "__share_group_state, __remote_log_metadata; no-op; broker 2 fenced (FenceBrokerRecord), "
    "its leadership moved (PartitionChangeRecord v0, leader and ISR), unfenced again; client "
    "quotas; MV 7; broker 3 (RegisterBroker v1) unfenced by BrokerRegistrationChange v0; ACLs; "
    "broker configs incl. a cluster default and two secrets (a password, a jaas.config); a "
    "no-op carrying a tag NoOpRecord does not know (skipped by size, not printed)",
    "epoch 2 (segment 1): broker 2 controlled shutdown (BRC v1), leader moves, fenced (BRC v0), "
    "re-registers (RegisterBroker v2) and is unfenced; MV 8 with ZkMigrationState NONE; MV 11; "
    "SCRAM credentials of alice and bob; an ACL removed; MV 14; producer ids; a committed "
    "metadata transaction creating topic audit; delegation tokens of alice and bob, bob's "
    "removed; snapshot A; a topic config; an aborted transaction (Begin, topic events, then a "
    "new leader epoch and AbortTransaction 'Controller failover')",
    "epoch 3 (segment 2): MV 15 and controller 1 registered; MV 17; broker 1 re-registers "
    "(RegisterBroker v3 with log dirs) and is unfenced; brokers 2 and 3 report log dirs (BRC v2); "
    "orders partitions get directories (PartitionChangeRecord v1); topic payments "
    "(PartitionRecord v1); topic tmp with a config, then removed (RemoveTopicRecord); a topic "
    "config deleted (null value); bob's SCRAM credential removed; group.version, "
    "transaction.version; MV 23 and eligible.leader.replicas.version; a kraft.version "
    "FeatureLevelRecord (KAFKA-18979: ignored); topic clicks (PartitionRecord v2 with ELR, one "
    "partition recovering: LeaderRecoveryState tag 1); ELR "
    "changes (PartitionChangeRecord v2), leader none (-1) then back; ClearElr of one topic and "
    "of all topics; snapshot B",
    "epoch 3 after snapshot B: MV 30; broker 3 re-registers (RegisterBroker v4, cordoned dirs) "
    "and is unfenced (BRC v0) and uncordoned (BRC v3, an empty list); broker configs (a *secret* key, and "
    "password.encoder.cipher.algorithm which is not a secret by cli.md's rule); a topic config; "
    "producer ids; MV 33, streams.version set then removed; voters [1, 4] with controller 4 "
    "registered",
    "epoch 5: leader change; broker 2 unregistered; controller 4 unregistered and voters back "
    "to [1]; a final no-op",
]


def build_log():
    log = MetaLog()
    # -- epoch 1, MV 3.3-IV1 ----------------------------------------------------
    log.leader(1)
    log.control((kf.KRAFT_VERSION, {"KRaftVersion": 1}), voters_record([1]))
    log.data(feature("metadata.version", 5))
    b1 = log.next
    log.data(reg_broker(log, 1, 0, "b1", None, 5))
    log.data((8, 0, {"Id": 1, "Epoch": b1}))
    b2 = log.next
    log.data(reg_broker(log, 2, 0, "b2", "rack-b", 5))
    log.data((8, 0, {"Id": 2, "Epoch": b2}))
    log.data((15, 0, {"BrokerId": 1, "BrokerEpoch": b1, "NextProducerId": 1000}))
    log.data(topic("orders"),
             partition(0, "orders", 0, [1, 2], 1), partition(0, "orders", 1, [2, 1], 2),
             partition(0, "orders", 2, [1, 2], 1),
             config("topic", "orders", "cleanup.policy", "delete"),
             config("topic", "orders", "retention.ms", "604800000"))
    log.data(topic("__consumer_offsets"), partition(0, "__consumer_offsets", 0, [1], 1),
             config("topic", "__consumer_offsets", "cleanup.policy", "compact"),
             config("topic", "__consumer_offsets", "compression.type", "producer"))
    log.data(topic("__share_group_state"), partition(0, "__share_group_state", 0, [1], 1),
             topic("__remote_log_metadata"), partition(0, "__remote_log_metadata", 0, [1], 1),
             config("topic", "__remote_log_metadata", "retention.ms", "-1"))
    log.mark("orders_created")
    log.data((20, 0, {}))
    log.data((7, 0, {"Id": 2, "Epoch": b2}))
    log.data(change(0, "orders", 1, leader=1, isr=[1]), change(0, "orders", 0, isr=[1]),
             change(0, "orders", 2, isr=[1]))
    log.data((8, 0, {"Id": 2, "Epoch": b2}))
    log.data(change(0, "orders", 0, isr=[1, 2]), change(0, "orders", 2, isr=[1, 2]),
             change(0, "orders", 1, isr=[1, 2]))
    log.data(quota([("user", "alice")], "producer_byte_rate", 1048576.0),
             quota([("user", None)], "consumer_byte_rate", 2097152.0))
    log.data(quota([("user", "alice"), ("client-id", "app1")], "request_percentage", 50.0))
    log.data(feature("metadata.version", 7))
    b3 = log.next
    log.data(reg_broker(log, 3, 1, "b3", "rack-c", 7))
    log.data(brc(0, 3, b3, fenced=-1))
    log.data(acl("a1", 2, "orders", 3, "User:alice", 3, 3),
             acl("a2", 3, "app-", 4, "User:alice", 3, 3, host="10.0.0.1"))
    log.data(acl("a3", 4, "kafka-cluster", 3, "User:admin", 2, 3))
    log.data(config("broker", "", "log.retention.ms", "86400000"))
    log.data(config("broker", "1", "ssl.keystore.password",
                    SECRETS["ssl_keystore_password"].decode()),
             config("broker", "1", "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", JAAS))
    log.data(config("broker", "1", "num.io.threads", "16"))
    log.mark("copy_a_victim")                      # the batch broker-a's copy loses
    # a tag this schema does not know (a newer writer's): decoders skip it by its size
    log.data((20, 0, {"_unknown_tags": [(5, b"\x01\x02\x03")]}))
    # -- epoch 2 ------------------------------------------------------------------
    log.roll()
    log.leader(2)
    log.data(brc(1, 2, b2, ics=1))
    log.data(change(0, "orders", 1, leader=1, isr=[1]), change(0, "orders", 0, isr=[1]),
             change(0, "orders", 2, isr=[1]))
    log.data(brc(0, 2, b2, fenced=1))
    b2 = log.next
    log.data(reg_broker(log, 2, 2, "b2b", "rack-b", 8, fenced=True))
    log.data(brc(0, 2, b2, fenced=-1))
    log.data(change(0, "orders", 0, isr=[1, 2]), change(0, "orders", 1, isr=[1, 2]),
             change(0, "orders", 2, isr=[1, 2], leader=2))
    log.data(feature("metadata.version", 8), (21, 0, {"ZkMigrationState": 0}))
    log.data(feature("metadata.version", 11))
    log.data(scram("alice", 1, "alice", 8192))
    log.data(scram("bob", 2, "bob", 4096))
    log.data((19, 0, {"Id": ACL["a2"]}))
    log.data(feature("metadata.version", 14))
    log.data((15, 0, {"BrokerId": 2, "BrokerEpoch": b2, "NextProducerId": 2000}))
    log.data((23, 0, {"Name": "Bulk topic creation"}))
    log.data(topic("audit"), partition(0, "audit", 0, [1], 1))
    log.mark("in_committed_txn")
    log.data(config("topic", "audit", "retention.ms", "-1"))
    log.data((24, 0, {}))
    log.data(token("User:alice", ["User:bob"], "alice", T0 + 3600000))
    log.data(token("User:bob", [], "bob", T0 + 3700000))
    log.data((26, 0, {"TokenId": SECRETS["token_bob"].decode()}))
    log.data((20, 0, {}))
    log.mark("snapshot_a")
    log.data(config("topic", "orders", "retention.ms", "172800000"))
    log.data((23, 0, {}))
    log.data(topic("events"), partition(0, "events", 0, [1, 2], 1))
    log.mark("in_aborted_txn")
    log.data(config("topic", "events", "retention.ms", "3600000"))
    # -- epoch 3: the new leader aborts the open transaction --------------------
    log.roll()
    log.leader(3)
    log.data((25, 0, {"Reason": "Controller failover"}))
    log.data(feature("metadata.version", 15))
    log.data(controller(1, "c1"))
    log.data(feature("metadata.version", 17))
    b1 = log.next
    log.data(reg_broker(log, 1, 3, "b1b", None, 17, log_dirs=[D1]))
    log.data(brc(0, 1, b1, fenced=-1))
    log.data(brc(2, 2, b2, dirs=[D2A, D2B]))
    log.data(brc(2, 3, b3, dirs=[D3A, D3B]))
    log.data(change(1, "orders", 0, dirs=[D1, D2A]), change(1, "orders", 1, dirs=[D2A, D1]),
             change(1, "orders", 2, dirs=[D1, D2B]))
    log.data(topic("payments"), partition(1, "payments", 0, [1, 3], 1, dirs=[D1, D3A]),
             partition(1, "payments", 1, [3, 1], 3, dirs=[D3A, D1]),
             config("topic", "payments", "min.insync.replicas", "2"))
    log.data(change(1, "payments", 1, dirs=[D3B, D1]))
    log.data(topic("tmp"), partition(1, "tmp", 0, [1], 1, dirs=[D1]),
             config("topic", "tmp", "cleanup.policy", "compact"))
    log.data((9, 0, {"TopicId": TOPIC["tmp"]}))
    log.data(config("topic", "orders", "retention.ms", None))
    log.data((22, 0, {"Name": "bob", "Mechanism": 2}))
    log.data(feature("group.version", 1), feature("transaction.version", 2))
    log.data(feature("metadata.version", 23), feature("eligible.leader.replicas.version", 1))
    log.data(feature("kraft.version", 0))
    log.data(topic("clicks"),
             partition(2, "clicks", 0, [2, 3], 2, dirs=[D2A, D3A]),
             partition(2, "clicks", 1, [3, 2], 3, dirs=[D3B, D2B], isr=[3], elr=[2], lke=[], lrs=1),
             config("topic", "clicks", "min.insync.replicas", "2"))
    log.data(change(2, "clicks", 0, isr=[2], elr=[3], lke=[]))
    log.data(change(2, "clicks", 0, leader=-1, isr=[], elr=[2, 3], lke=[2]))
    log.mark("clicks_leaderless")
    log.data(change(2, "clicks", 0, leader=3, isr=[3], elr=[2], lke=[], lrs=0))
    log.data(config("topic", "clicks", "min.insync.replicas", "1"), (28, 0, {"TopicName": "clicks"}))
    log.data(change(2, "payments", 0, isr=[1], elr=[3]))
    log.data(change(2, "clicks", 0, isr=[3, 2]))
    log.data(config("broker", "", "min.insync.replicas", "1"), (28, 0, {"TopicName": ""}))
    log.data((20, 0, {}))
    log.mark("snapshot_b")
    # -- after snapshot B ---------------------------------------------------------------
    log.data(feature("metadata.version", 30))
    b3 = log.next
    log.data(reg_broker(log, 3, 4, "b3b", "rack-c", 30, log_dirs=[D3A, D3B], cordoned=[D3B]))
    log.data(brc(0, 3, b3, fenced=-1))
    log.data(brc(3, 3, b3, cordoned=[]))
    log.data(config("broker", "2", "delegation.token.secret.key",
                    SECRETS["delegation_token_secret_key"].decode()))
    log.data(config("broker", "2", "password.encoder.cipher.algorithm", "AES/CBC/PKCS5Padding"))
    log.mark("crc_victim")                         # the batch the `crc` case flips a bit in
    log.data(config("topic", "orders", "retention.ms", "259200000"))
    log.mark("copy_b_victim")
    log.data((15, 0, {"BrokerId": 3, "BrokerEpoch": b3, "NextProducerId": 3000}))
    log.data(feature("metadata.version", 33), feature("streams.version", 1))
    log.data(feature("streams.version", 0))
    log.control(voters_record([1, 4]))
    log.data(controller(4, "c4"))
    log.mark("voters_1_4")
    # -- epoch 5 ----------------------------------------------------------------------
    log.leader(5)
    log.data((1, 0, {"BrokerId": 2, "BrokerEpoch": b2}))
    log.data((29, 0, {"ControllerId": 4}))
    log.control(voters_record([1]))
    log.data((20, 0, {}))
    return log


# ---------------------------------------------------------------------------
# reading segments back (independent of the builder: kafka-python + kraftfmt)

def parse_batches(data):
    """Every batch of segment bytes (gen_offsets.parse_batches): (batches,
    damage). A batch whose CRC does not match is skipped and listed in
    damage; a torn tail ends the walk."""
    batches, bad = go.parse_batches(data)
    return batches, [{"position": pos, "base_offset": base, "code": why} for pos, base, why in bad]


def decode_entries(batch):
    """The batch's records as the model's entries."""
    out = []
    for off, _ts, key, value in batch["records"]:
        e = {"offset": off, "epoch": batch["leader_epoch"], "control": batch["control"]}
        try:
            if batch["control"]:
                ctype, d = kf.decode_control(key, value)
                e.update(kind="control", ctype=ctype, d=d)
            else:
                api_key, version, d = kf.decode_metadata(value)
                e.update(kind="metadata", api_key=api_key, version=version, d=d)
        except kf.UnknownRecord as why:
            e.update(kind="unknown", why=str(why))
        out.append(e)
    return out


def dump_fact(e):
    """What `kfsck dump --decode metadata --json` prints for one record."""
    r = {"offset": e["offset"], "control": e["control"]}
    if e["kind"] == "unknown":
        r.update(expect="unknown_record_type", why=e["why"])
        if e["why"].startswith("unknown version"):
            r["best_effort_decode_allowed"] = True        # formats §14.2
        return r
    if e["kind"] == "control":
        r.update(record_type=kf.CONTROL_TYPE[e["ctype"]], record_version=0,
                 value_decoded=kf.render_control(e["ctype"], e["d"]))
        return r
    k, v, d = e["api_key"], e["version"], e["d"]
    r.update(record_type=kf.record_type_of(kf.METADATA[k].name), record_version=v,
             value_decoded=kf.render_metadata(k, v, d))
    shown = kf.render_metadata(k, v, d, show_secrets=True)
    if shown != r["value_decoded"]:
        r["value_decoded_shown"] = shown
    return r


def cross_check(entries, intents):
    for e, want in zip(entries, intents):
        if "raw" in want:
            assert e["kind"] == "unknown" and want["raw"] == "unknown_record_type", (e, want)
        elif "ctype" in want:
            assert e["kind"] == "control" and e["ctype"] == want["ctype"], (e, want)
            assert e["d"] == cf.fill_defaults(kf.CONTROL[want["ctype"]].fields, want["d"], 0, True)
        else:
            sch = kf.METADATA[want["api_key"]]
            assert (e["kind"], e["api_key"], e["version"]) == ("metadata", want["api_key"],
                                                               want["version"]), (e, want)
            want_d = cf.fill_defaults(sch.fields, want["d"], want["version"], True)
            assert e["d"] == want_d, (e["d"], want_d)


# ---------------------------------------------------------------------------
# files

class Writer(go.Writer):
    """gen_offsets' Writer (path, write) that also reads files back and
    writes KRaft segments with their indexes."""

    def read(self, rel):
        with open(os.path.join(self.out, rel), "rb") as f:
            return f.read()

    def segment(self, rel, base, data, index_from=None):
        """Write a .log and the .index/.timeindex broker recovery would build
        (from index_from's bytes when given: the index of the healthy file)."""
        self.write(rel, data)
        info = kafka_index.build_indexes(index_from if index_from is not None else data, base,
                                         INDEX_INTERVAL, True)
        stem = rel[:-len(".log")]
        self.write(stem + ".index", info["index"])
        self.write(stem + ".timeindex", info["timeindex"])


def snap_name(end_offset, epoch):
    return "%020d-%010d.checkpoint" % (end_offset, epoch)


def meta_properties(node_id=1, directory_id=D1):
    return ("#\n#Thu Jan 01 00:00:00 UTC 2026\nnode.id=%d\ndirectory.id=%s\nversion=1\n"
            "cluster.id=%s\n" % (node_id, S(directory_id), S(CLUSTER_ID)))


def quorum_state(leader_epoch):
    return ('{"leaderId":1,"leaderEpoch":%d,"votedId":1,"votedDirectoryId":"%s","data_version":1}'
            % (leader_epoch, S(D1)))


def snapshot_bytes(records, ts, epoch, last_ts, voters=None, kraft_version=None, batch_size=8,
                   footer=True):
    """A snapshot file (§4.3): header (+ kraft version + voters) control batch at
    offset 0, data batches, footer control batch; every batch with the
    snapshot epoch; offsets restart at 0."""
    head = [kf.encode_control(kf.SNAPSHOT_HEADER, {"LastContainedLogTimestamp": last_ts})]
    if kraft_version is not None:
        head.append(kf.encode_control(kf.KRAFT_VERSION, {"KRaftVersion": kraft_version}))
        if voters is not None:
            head.append(kf.encode_control(*voters))
    out = [kf.control_batch(0, head, ts, epoch)]
    off = len(head)
    values = [kf.encode_metadata(*r) for r in records]
    for i in range(0, len(values), batch_size):
        chunk = values[i:i + batch_size]
        out.append(kf.data_batch(off, chunk, ts, epoch))
        off += len(chunk)
    if footer:
        out.append(kf.control_batch(off, [kf.encode_control(kf.SNAPSHOT_FOOTER, {})], ts, epoch))
    return out


# ---------------------------------------------------------------------------
# expectations

def file_dump(w, rel):
    """dump facts of one metadata log or snapshot file."""
    batches, damage = parse_batches(w.read(rel))
    recs = []
    for b in batches:
        recs += [dump_fact(e) for e in decode_entries(b)]
    return {"file": rel, "decode": "metadata", "batches": len(batches),
            "control_batches": sum(b["control"] for b in batches), "records": recs,
            "problems": [dict(d, file=rel) for d in damage]}


def log_entries(w, seg_rels):
    """(entries, damage) of a metadata log's segments, in offset order."""
    entries, damage = [], []
    for rel in seg_rels:
        batches, dmg = parse_batches(w.read(rel))
        for b in batches:
            entries += decode_entries(b)
        damage += [dict(d, file=rel) for d in dmg]
    return entries, damage


def snapshot_input(w, rel):
    """(name, end offset, epoch, entries, intact) of a .checkpoint file."""
    name = os.path.basename(rel)
    end, epoch = int(name[:20]), int(name[21:31])
    batches, damage = parse_batches(w.read(rel))
    entries = [e for b in batches for e in decode_entries(b)]
    intact = (not damage and entries and entries[0]["kind"] == "control" and
              entries[0]["ctype"] == kf.SNAPSHOT_HEADER and entries[-1]["kind"] == "control" and
              entries[-1]["ctype"] == kf.SNAPSHOT_FOOTER)
    return name, end, epoch, entries, bool(intact)


def view(snapshots, entries, target=None, cluster_id=None, show_secrets=False):
    """`kfsck metadata` at a target: the newest intact snapshot with
    endOffset - 1 <= target (never 0-0), then the log. Returns objects."""
    best = None
    for name, end, epoch, sentries, intact in snapshots:
        if not intact or end == 0 or (target is not None and end - 1 > target):
            continue
        if best is None or end > best[1]:
            best = (name, end, epoch, sentries)
    ld = ki.build(best, entries, target)
    objs = ki.cli_objects(ld, cluster_id, show_secrets)
    exact = ["snapshot", "snapshot_offset", "leader_epoch", "voters", "metadata_version"]
    if ld.txn_markers == 0 and ld.pending is None:
        exact += ["last_offset", "records"]
    objs[0]["_exact"] = exact
    return objs, ld


def strip_cluster(objs):
    """Objects that must not depend on the load path (snapshot or log)."""
    out = []
    for o in objs:
        if o["type"] == "cluster":
            continue
        if o["type"] == "producer_ids":
            o = dict(o, broker_id=None, broker_epoch=None)
        out.append(o)
    return out


# ---------------------------------------------------------------------------
# topic partitions, __consumer_offsets, share and remote partitions of node1

def small_topic_log(w, rel_dir, topic_id, n, ts):
    recs = [Rec(i, ts + i, b"key-%d" % i, b"value-%d" % i) for i in range(n)]
    w.segment(rel_dir + "/" + seg_name(0, "log"), 0, v2_batch(0, recs, leader_epoch=0))
    w.write(rel_dir + "/partition.metadata", partition_metadata(topic_id))


G848 = "kraft-848-app"
MEMBER = "bWVtYmVyLWtyYWZ0LUE"


def consumer_offsets(w):
    """__consumer_offsets-0 of node1: one KIP-848 group whose assignment
    names topics only by id (no ConsumerGroupPartitionMetadata record)."""
    log = go.PartLog("__consumer_offsets", 0, leader_epoch=1)
    t = T0 + 600000
    K, R, TP = go.K, go.R, go.TP
    log.data([R(3, K(G848), 0, {"Epoch": 2}),
              R(5, K(G848, MEMBER), 0, {"InstanceId": None, "RackId": "rack-b", "ClientId": "kraft-app",
                                        "ClientHost": "/10.0.9.1",
                                        "SubscribedTopicNames": ["clicks", "orders", "payments"],
                                        "SubscribedTopicRegex": None, "RebalanceTimeoutMs": 300000,
                                        "ServerAssignor": "uniform"}),
              R(7, K(G848, MEMBER), 0, {"TopicPartitions": [
                  TP(S(TOPIC["clicks"]), [0, 1]), TP(S(TOPIC["orders"]), [0, 1, 2]),
                  TP(S(TOPIC["payments"]), [0]), TP(S(UNNAMED_ID), [0])]}),
              R(6, K(G848), 0, {"AssignmentEpoch": 2})], t)
    t += 1000
    log.data([R(8, K(G848, MEMBER), 0, {
        "MemberEpoch": 2, "PreviousMemberEpoch": 1, "State": 0,
        "AssignedPartitions": [TP(S(TOPIC["clicks"]), [0, 1]), TP(S(TOPIC["orders"]), [0, 1, 2]),
                               TP(S(TOPIC["payments"]), [0]), TP(S(UNNAMED_ID), [0])],
        "PartitionsPendingRevocation": []})], t)
    gw = go.Writer(w.out)
    fact = gw.partition(NODE, log, S(TOPIC["__consumer_offsets"]))
    rp = go.Replay()
    rp.partition(0, go.read_partition_dir(w.out, fact["path"], 0), log.intents)
    rp.finish()
    return fact["path"], rp


def share_partition(w):
    """__share_group_state-0: snapshots and updates in the 4.1+ layout (with and
    without the DeliveryCompleteCount tag), one snapshot and one update in the
    4.0 layout, a tombstone, an unknown record type."""
    ts = T0 + 700000
    G = "kraft-share-group"
    key = lambda rtype, pid: kf.encode_share_key(rtype, {"GroupId": G, "TopicId": TOPIC["orders"],  # noqa: E731
                                                         "Partition": pid})
    b = lambda s, e, st, n: {"FirstOffset": s, "LastOffset": e, "DeliveryState": st,  # noqa: E731
                             "DeliveryCount": n}
    recs = [
        ("share", 0, key(0, 0), {"SnapshotEpoch": 0, "StateEpoch": 0, "LeaderEpoch": 1, "StartOffset": 0,
                                 "CreateTimestamp": ts, "WriteTimestamp": ts,
                                 "StateBatches": [b(0, 9, 2, 1)]}, "4.1"),
        ("share", 1, key(1, 0), {"SnapshotEpoch": 0, "LeaderEpoch": -1, "StartOffset": -1,
                                 "DeliveryCompleteCount": 10,
                                 "StateBatches": [b(10, 14, 0, 1), b(15, 15, 4, 5)]}, "4.1"),
        ("share", 1, key(1, 0), {"SnapshotEpoch": 0, "LeaderEpoch": 2, "StartOffset": 12,
                                 "StateBatches": []}, "4.1"),
        ("share", 0, key(0, 1), {"SnapshotEpoch": 3, "StateEpoch": 1, "LeaderEpoch": 1, "StartOffset": 40,
                                 "StateBatches": [b(40, 44, 2, 2)]}, "4.0"),
        ("share", 1, key(1, 1), {"SnapshotEpoch": 3, "LeaderEpoch": -1, "StartOffset": 45,
                                 "StateBatches": [b(45, 49, 0, 1)]}, "4.0"),
        ("share", 0, key(0, 0), {"SnapshotEpoch": 1, "StateEpoch": 0, "LeaderEpoch": 2, "StartOffset": 16,
                                 "DeliveryCompleteCount": 0, "CreateTimestamp": ts,
                                 "WriteTimestamp": ts + 5000, "StateBatches": [b(16, 16, 3, 2)]}, "4.1"),
        ("tomb", 0, key(0, 1)),
        ("raw", struct.pack(">h", 7) + b"\x00\x01g", struct.pack(">h", 0) + b"\x00"),
    ]
    data, facts, off = [], [], 0
    for r in recs:
        if r[0] == "share":
            _, rtype, k, d, layout = r
            v = kf.encode_share_value(rtype, d, layout)
            got = kf.decode_share(k, v)
            assert got[4] == layout and got[3] == cf.fill_defaults(kf.SHARE[rtype][layout].fields, d, 0, True)
            if layout == "4.0":      # the 4.1+ layout must not read these bytes
                try:
                    cf.decode_message(kf.SHARE[rtype]["4.1"], 0, v[2:])
                    raise AssertionError("4.0 value readable as 4.1")
                except cf.DecodeError:
                    pass
            facts.append({"offset": off, "record_type": kf.SHARE_TYPE[rtype], "record_version": 0,
                          "layout": layout, "key_decoded": kf.render_share_key(rtype, got[1]),
                          "value_decoded": kf.render_share_value(rtype, got[3], layout)})
        elif r[0] == "tomb":
            _, rtype, k = r
            v = None
            facts.append({"offset": off, "record_type": kf.SHARE_TYPE[rtype], "tombstone": True,
                          "key_decoded": kf.render_share_key(rtype, kf.decode_share(k, None)[1]),
                          "value_decoded": None})
        else:
            _, k, v = r
            facts.append({"offset": off, "expect": "unknown_record_type"})
        data.append(kf.keyed_batch(off, [(k, v)], ts + off * 1000, 1))
        off += 1
    rel = NODE + "/__share_group_state-0"
    w.segment(rel + "/" + seg_name(0, "log"), 0, b"".join(data))
    w.write(rel + "/partition.metadata", partition_metadata(S(TOPIC["__share_group_state"])))
    return {"file": rel + "/" + seg_name(0, "log"), "decode": "share", "records": facts}


def remote_partition(w):
    """__remote_log_metadata-0: segment metadata (with and without
    CustomMetadata and the TxnIndexEmpty tag), its updates through the
    states, a partition delete marker, an unknown api key."""
    ts = T0 + 800000
    tip = lambda name, p: {"Name": name, "Id": TOPIC[name], "Partition": p}  # noqa: E731
    s1 = {"TopicIdPartition": tip("orders", 0), "Id": U("5365676d656e744f6e652d2d2d2d0001")}
    s2 = {"TopicIdPartition": tip("orders", 0), "Id": U("5365676d656e7454776f2d2d2d2d0002")}
    recs = [
        (0, {"RemoteLogSegmentId": s1, "StartOffset": 0, "EndOffset": 99, "BrokerId": 1,
             "MaxTimestampMs": ts - 5000, "EventTimestampMs": ts,
             "SegmentLeaderEpochs": [{"LeaderEpoch": 0, "Offset": 0}, {"LeaderEpoch": 1, "Offset": 50}],
             "SegmentSizeInBytes": 10240, "CustomMetadata": None, "RemoteLogSegmentState": 0}),
        (1, {"RemoteLogSegmentId": s1, "BrokerId": 1, "EventTimestampMs": ts + 1000,
             "CustomMetadata": b"\x01\x02rsm-blob", "RemoteLogSegmentState": 1}),
        (0, {"RemoteLogSegmentId": s2, "StartOffset": 100, "EndOffset": 149, "BrokerId": 1,
             "MaxTimestampMs": ts + 2000, "EventTimestampMs": ts + 3000,
             "SegmentLeaderEpochs": [{"LeaderEpoch": 1, "Offset": 100}],
             "SegmentSizeInBytes": 4096, "CustomMetadata": b"meta", "RemoteLogSegmentState": 0,
             "TxnIndexEmpty": True}),
        (1, {"RemoteLogSegmentId": s2, "BrokerId": 1, "EventTimestampMs": ts + 4000,
             "CustomMetadata": None, "RemoteLogSegmentState": 1}),
        (1, {"RemoteLogSegmentId": s2, "BrokerId": 1, "EventTimestampMs": ts + 5000,
             "CustomMetadata": None, "RemoteLogSegmentState": 2}),
        (1, {"RemoteLogSegmentId": s2, "BrokerId": 1, "EventTimestampMs": ts + 6000,
             "CustomMetadata": None, "RemoteLogSegmentState": 3}),
        (2, {"TopicIdPartition": tip("orders", 1), "BrokerId": 1, "EventTimestampMs": ts + 7000,
             "RemotePartitionDeleteState": 0}),
        ("raw", kf.encode_raw_envelope(1, 9, 0, b"\x00")),
    ]
    data, facts = [], []
    for off, r in enumerate(recs):
        if r[0] == "raw":
            v = r[1]
            facts.append({"offset": off, "expect": "unknown_record_type"})
        else:
            k, d = r
            v = kf.encode_metadata(k, 0, d, schemas=kf.REMOTE)
            api_key, version, got = kf.decode_metadata(v, schemas=kf.REMOTE)
            facts.append({"offset": off, "record_type": kf.record_type_of(kf.REMOTE[k].name),
                          "record_version": 0,
                          "value_decoded": kf.render_metadata(k, 0, got, schemas=kf.REMOTE)})
        data.append(kf.data_batch(off, [v], ts + off * 1000, 2))
    rel = NODE + "/__remote_log_metadata-0"
    w.segment(rel + "/" + seg_name(0, "log"), 0, b"".join(data))
    w.write(rel + "/partition.metadata", partition_metadata(S(TOPIC["__remote_log_metadata"])))
    return {"file": rel + "/" + seg_name(0, "log"), "decode": "remote", "records": facts}


# ---------------------------------------------------------------------------
# the metadata partition directories

class Written:
    """A metadata partition as written: its segment and snapshot files."""

    def __init__(self, mdir):
        self.mdir = mdir
        self.segments = []      # (rel, base)
        self.snapshots = []     # rel

    def snapshot_inputs(self, w):
        return [snapshot_input(w, rel) for rel in self.snapshots]

    def entries(self, w):
        return log_entries(w, [rel for rel, _ in self.segments])


def segment_bytes(log):
    """{segment base: bytes} of the log."""
    out = {}
    for k, base in enumerate(log.segments):
        end = log.segments[k + 1] if k + 1 < len(log.segments) else log.next
        out[base] = b"".join(b["data"] for b in log.batches if base <= b["base"] < end)
    return out


def epochs_of(log, start=0):
    """leader-epoch-checkpoint entries for a log starting at `start`."""
    out = []
    for b in log.batches:
        if b["last"] < start:
            continue
        s = max(b["base"], start)
        if not out or b["epoch"] > out[-1][0]:
            out.append((b["epoch"], s))
    return out


def write_metadata_dir(w, mdir, log, segs, snapshots, quorum=None, epochs=None, corrupt=None):
    """segs: {base: bytes}; snapshots {name: bytes}; corrupt: {base: healthy bytes}
    to build that segment's indexes from."""
    wr = Written(mdir)
    for base in sorted(segs):
        rel = "%s/%s" % (mdir, seg_name(base, "log"))
        w.segment(rel, base, segs[base], index_from=(corrupt or {}).get(base))
        wr.segments.append((rel, base))
    for name in sorted(snapshots):
        rel = "%s/%s" % (mdir, name)
        w.write(rel, snapshots[name])
        wr.snapshots.append(rel)
    w.write(mdir + "/partition.metadata", partition_metadata(METADATA_TOPIC_ID))
    w.write(mdir + "/leader-epoch-checkpoint",
            epoch_checkpoint(epochs if epochs is not None else epochs_of(log)))
    w.write(mdir + "/quorum-state", quorum if quorum is not None else quorum_state(log.epoch))
    return wr


def flip(data, position, size):
    """Flip one bit inside a batch's record bytes (the CRC no longer matches)."""
    b = bytearray(data)
    b[position + size - 3] ^= 0x08
    return bytes(b)


def batch_at(log, last_offset):
    return next(b for b in log.batches if b["last"] == last_offset)


def position_in_segment(log, batch):
    seg = max(s for s in log.segments if s <= batch["base"])
    pos = sum(len(b["data"]) for b in log.batches if seg <= b["base"] < batch["base"])
    return seg, pos


# ---------------------------------------------------------------------------

def kf_voters(ld):
    """The VotersRecord of a snapshot header batch, from the loader's voter set."""
    return None if ld.voters is None else voters_record(ld.voters)


NOTES = [
    "Paths are relative to the fixtures directory. Inputs: kraft/node1 (a KRaft node's data dir), "
    "kraft/trimmed, kraft/damaged/<case> (data dirs holding __cluster_metadata-0), "
    "kraft/copies/broker-{a,b}/__cluster_metadata-0.",
    "dump: per file, every record `kfsck dump --decode <decode> --json FILE` lists, in order. "
    "record_type/record_version as cli.md names them; value_decoded holds the schema fields of "
    "that version in Kafka's snake_case (MessageGenerator.toSnakeCase), tagged fields only when "
    "present in the bytes, uuids as 22-char base64url, nullable values null, bytes fields as "
    "standard base64 under <name>_b64 (a CLI may name them <name>: cli.md does not fix it), "
    "secrets as \"<redacted>\"; value_decoded_shown is the record with --show-secrets (only "
    "given where it differs). Control records (leader_change, snapshot_header, snapshot_footer, "
    "kraft_version, kraft_voters) carry record_version 0 and their schema's own Version field. "
    "expect=unknown_record_type: the record is listed undecoded and a problem line "
    "unknown_record_type (warning) names it; why says what is unknown.",
    "metadata: the `kfsck metadata --json` lines, in cli.md's type order; within one type they "
    "are sorted here by natural key (the contract does not fix that order). Feature lines "
    "hold the finalized features other than metadata.version (reported as "
    "cluster.metadata_version); a FeatureLevelRecord for kraft.version is ignored (KAFKA-18979). "
    "security_protocol is the stored int16 (a CLI may print the name). Broker lines with "
    "_log_dirs_unset come from a registration that never carried LogDirs (v0-v2, no "
    "BrokerRegistrationChange with dirs): log_dirs [] or null. cluster._exact lists the "
    "cluster fields the contract pins down for that target: last_offset and records are left "
    "out where a metadata transaction lies in the applied log range (whether its markers and "
    "buffered records count as applied is not fixed).",
    "Replay: kraft_image.py (docs/formats.md §14.6-§14.7). as_of[].offset is the --as-of-offset "
    "value; in_committed_txn/in_aborted_txn lie inside a metadata transaction, whose records "
    "are not visible there.",
    "Snapshots are written from the model's image at their end offset - 1, in "
    "MetadataImage.write order; PartitionRecords of partitions that never had directories "
    "are written at v0 so that `directories: null` is the same from a snapshot and from the "
    "log (Kafka would write MIGRATING ids).",
    "secrets: the distinctive secret byte strings (base64 here). Without --show-secrets none "
    "may appear in any output, in any encoding (raw, base64, hex); with it they do.",
]


def generate(out):
    root = os.path.join(out, ROOT)
    if os.path.isdir(root):
        shutil.rmtree(root)
    kf.selftest()
    ki.selftest()
    w = Writer(out)
    log = build_log()
    segs = segment_bytes(log)
    marks = log.marks

    # -- snapshots, from the model's image of the log as read back -----------------------
    all_entries = []
    for base, data in sorted(segs.items()):
        batches, dmg = parse_batches(data)
        assert not dmg
        all_entries += [e for b in batches for e in decode_entries(b)]
    intents = [i for b in log.batches for i in b["intents"]]
    assert len(all_entries) == len(intents) == log.next
    cross_check(all_entries, intents)

    snaps, snap_meta = {}, {}
    for label in ("snapshot_a", "snapshot_b"):
        end = marks[label] + 1
        ld = ki.build(None, all_entries, end - 1)
        assert ld.pending is None
        last = batch_at(log, end - 1)
        recs = ki.snapshot_records(ld.img)
        name = snap_name(end, last["epoch"])
        snaps[name] = b"".join(snapshot_bytes(recs, last["ts"] + 30000, last["epoch"], last["ts"],
                                              voters=kf_voters(ld), kraft_version=ld.kraft_version))
        snap_meta[label] = {"name": name, "end_offset": end, "epoch": last["epoch"],
                            "data_records": len(recs)}
    bootstrap00 = b"".join(snapshot_bytes([], T0 - 60000, 0, 0, voters=voters_record([1]),
                                          kraft_version=1))
    snaps[snap_name(0, 0)] = bootstrap00

    # -- node1 ------------------------------------------------------------------------
    w.write(NODE + "/meta.properties", meta_properties())
    w.write(NODE + "/bootstrap.checkpoint",
            b"".join(snapshot_bytes([(12, 0, {"Name": "metadata.version", "FeatureLevel": 5})],
                                    T0 - 60000, 0, 0)))
    node = write_metadata_dir(w, MDIR, log, segs, snaps)
    small_topic_log(w, NODE + "/orders-0", S(TOPIC["orders"]), 3, T0)
    small_topic_log(w, NODE + "/orders-1", S(TOPIC["orders"]), 2, T0)
    small_topic_log(w, NODE + "/payments-0", S(PAYMENTS_WRONG_ID), 2, T0)
    small_topic_log(w, NODE + "/ghost-0", S(GHOST_ID), 1, T0)
    co_path, rp = consumer_offsets(w)
    share = share_partition(w)
    remote = remote_partition(w)

    entries, dmg = node.entries(w)
    assert not dmg and len(entries) == log.next
    snapshots = node.snapshot_inputs(w)
    assert all(s[4] for s in snapshots)
    cid = S(CLUSTER_ID)
    end_objs, end_ld = view(snapshots, entries, None, cid)
    log_only, _ = view([], entries, None, cid)
    assert strip_cluster(end_objs) == strip_cluster(log_only)
    assert end_objs[0]["snapshot"] == snap_meta["snapshot_b"]["name"]
    # every snapshot replays to the log's state at its end offset
    for label, sm in snap_meta.items():
        a, _ = view(snapshots, entries, sm["end_offset"] - 1, cid)
        b, _ = view([], entries, sm["end_offset"] - 1, cid)
        assert a[0]["snapshot"] == sm["name"] and strip_cluster(a) == strip_cluster(b), label

    as_of = []
    for label in ("orders_created", "in_committed_txn", "snapshot_a", "in_aborted_txn",
                  "clicks_leaderless", "snapshot_b", "voters_1_4"):
        objs, ld = view(snapshots, entries, marks[label], cid)
        as_of.append({"name": label, "offset": marks[label], "objects": objs})
    # the transaction cases show the state before Begin
    for label, hidden in (("in_committed_txn", "audit"), ("in_aborted_txn", "events")):
        objs = next(a["objects"] for a in as_of if a["name"] == label)
        assert hidden not in [o["topic"] for o in objs if o["type"] == "topic"], label

    # `kfsck metadata SNAPSHOT.checkpoint`: the snapshot's image alone
    snapshot_only = []
    for sm in snap_meta.values():
        snap = next(x for x in snapshots if x[0] == sm["name"])
        objs, _ = view([snap], [], None, None)
        snapshot_only.append({"file": MDIR + "/" + sm["name"], "objects": objs})

    # -- dump facts -------------------------------------------------------------------
    dumps = [file_dump(w, rel) for rel, _ in node.segments]
    dumps += [file_dump(w, rel) for rel in node.snapshots]
    dumps.append(file_dump(w, NODE + "/bootstrap.checkpoint"))
    types_seen = {}
    for d in dumps:
        for r in d["records"]:
            if "record_type" in r:
                types_seen.setdefault(r["record_type"], set()).add(r["record_version"])
    for k, sch in kf.METADATA.items():
        rt = kf.record_type_of(sch.name)
        assert {sch.valid.lo, sch.valid.hi} <= types_seen.get(rt, set()), (rt, types_seen.get(rt))
    for rt in kf.CONTROL_TYPE.values():
        assert rt in types_seen, rt

    # -- groups -----------------------------------------------------------------------
    dir_ids = {"orders": S(TOPIC["orders"]), "payments": S(PAYMENTS_WRONG_ID), "ghost": S(GHOST_ID),
               "__consumer_offsets": S(TOPIC["__consumer_offsets"]),
               "__share_group_state": S(TOPIC["__share_group_state"]),
               "__remote_log_metadata": S(TOPIC["__remote_log_metadata"])}
    names = dict(ki.topic_names(end_ld.img))
    for t, u in dir_ids.items():
        names.setdefault(u, t)
    groups_node = go.groups_view(rp, names)
    groups_alone = go.groups_view(rp, {S(TOPIC["__consumer_offsets"]): "__consumer_offsets"})
    m = groups_node[0]["members"][0]["assignment"]
    assert [a["topic"] for a in m] == ["clicks", "orders", "payments", None], m
    assert [a["topic"] for a in groups_alone[0]["members"][0]["assignment"]] == [None] * 4

    # -- cases -------------------------------------------------------------------------
    cases = gen_cases(w, log, segs, snaps, snap_meta, end_objs)

    secrets = [{"name": k, "b64": base64.b64encode(v).decode()} for k, v in sorted(SECRETS.items())]
    manifest = {
        # the generator's path before tools/ was split by role, kept so that the
        # committed fixtures stay byte-identical
        "generator": "tools/gen/gen_kraft.py",
        "notes": NOTES,
        "scenario": SCENARIO,
        "time_base_ms": T0,
        "cluster_id": cid,
        "node": NODE,
        "metadata_dir": MDIR,
        "metadata_topic_id": METADATA_TOPIC_ID,
        "topic_ids": {k: S(v) for k, v in TOPIC.items()},
        "segments": [{"file": rel, "base_offset": base} for rel, base in node.segments],
        "snapshots": [dict(v, label=k, file=MDIR + "/" + v["name"]) for k, v in snap_meta.items()],
        "bootstrap_snapshot": MDIR + "/" + snap_name(0, 0),
        "bootstrap_checkpoint": NODE + "/bootstrap.checkpoint",
        "log_end_offset": log.next,
        "leader_epochs": [{"epoch": e, "start_offset": s} for e, s in epochs_of(log)],
        "marks": marks,
        "secrets": secrets,
        "record_versions": {k: sorted(v) for k, v in sorted(types_seen.items())},
        "dump": dumps,
        "share": share,
        "remote": remote,
        "metadata": {"end": end_objs, "as_of": as_of, "snapshot_only": snapshot_only,
                     "end_show_secrets": view(snapshots, entries, None, cid, show_secrets=True)[0]},
        "scan": {"path": NODE, "problems": [
            {"code": "topic_id_mismatch", "severity": "error", "dir": NODE + "/payments-0",
             "partition_metadata_id": S(PAYMENTS_WRONG_ID), "log_id": S(TOPIC["payments"])},
            {"code": "stray_partition", "severity": "warning", "dir": NODE + "/ghost-0",
             "partition_metadata_id": S(GHOST_ID)}],
            "partitions": sorted(["__cluster_metadata-0", "orders-0", "orders-1", "payments-0",
                                  "ghost-0", "__consumer_offsets-0", "__share_group_state-0",
                                  "__remote_log_metadata-0"])},
        "groups": {"path": NODE, "offsets_dir": co_path, "with_metadata": groups_node,
                   "offsets_dir_alone": groups_alone},
        "cases": cases,
    }
    with open(os.path.join(root, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return manifest


def gen_cases(w, log, segs, snaps, snap_meta, end_objs):
    cid = S(CLUSTER_ID)
    cases = {}
    a_name, b_name = snap_meta["snapshot_a"]["name"], snap_meta["snapshot_b"]["name"]

    def finish(case, wr, path):
        snaps_in = wr.snapshot_inputs(w)
        entries, dmg = wr.entries(w)
        objs, _ = view(snaps_in, entries, None, cid)
        case.update({"path": path, "metadata_dir": wr.mdir,
                     "segments": [rel for rel, _ in wr.segments], "snapshots": wr.snapshots,
                     "metadata": objs, "log_damage": dmg})
        cases[case["name"]] = case
        return objs, entries

    # trimmed: retention deleted segment 0; snapshot A (>= segment 1's base) covers it
    start = log.segments[1]
    assert snap_meta["snapshot_a"]["end_offset"] >= start
    path = ROOT + "/trimmed"
    w.write(path + "/meta.properties", meta_properties())
    wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log,
                            {b: d for b, d in segs.items() if b >= start},
                            {n: d for n, d in snaps.items() if n != snap_name(0, 0)},
                            epochs=epochs_of(log, start))
    objs, _ = finish({"name": "trimmed", "problems": [], "exit": 0,
                      "description": "segment 0 deleted by retention, snapshots A and B kept: "
                                     "log start %d, covered by snapshot A" % start}, wr, path)
    assert strip_cluster(objs) == strip_cluster(end_objs)

    # snapshot_incomplete: snapshot B lost its footer batch
    path = ROOT + "/damaged/snapshot-incomplete"
    w.write(path + "/meta.properties", meta_properties())
    cut = {n: d for n, d in snaps.items()}
    batches, _ = parse_batches(cut[b_name])
    footer = batches[-1]
    cut[b_name] = cut[b_name][:footer["position"]]
    wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log, segs, cut)
    objs, _ = finish({"name": "snapshot_incomplete", "exit": 1, "problems": [
        {"code": "snapshot_incomplete", "severity": "error",
         "file": path + "/__cluster_metadata-0/" + b_name}],
        "description": "snapshot B's footer batch cut off (an incomplete copy): metadata falls "
                       "back to snapshot A and the log"}, wr, path)
    assert objs[0]["snapshot"] == a_name and strip_cluster(objs) == strip_cluster(end_objs)

    # crc: one bit flipped in a batch after snapshot B
    path = ROOT + "/damaged/crc"
    w.write(path + "/meta.properties", meta_properties())
    victim = batch_at(log, log.marks["crc_victim"])
    seg, pos = position_in_segment(log, victim)
    bad = dict(segs)
    bad[seg] = flip(segs[seg], pos, len(victim["data"]))
    wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log, bad, snaps, corrupt={seg: segs[seg]})
    rel = "%s/__cluster_metadata-0/%s" % (path, seg_name(seg, "log"))
    objs, _ = finish({"name": "crc", "exit": 1, "problems": [
        {"code": "crc_mismatch", "severity": "error", "file": rel, "position": pos,
         "offset": victim["base"]}],
        "skipped_offsets": [victim["base"], victim["last"]],
        "description": "a bit flipped in the batch at offset %d (a broker config), after "
                       "snapshot B: skipped, the config is missing" % victim["base"]}, wr, path)
    assert strip_cluster(objs) != strip_cluster(end_objs)
    assert [o for o in objs if o["type"] == "config" and o["resource_name"] == "2" and
            o["name"] == "password.encoder.cipher.algorithm"] == []

    # snapshot_missing: segment 0 gone and no snapshot at or above the log start
    path = ROOT + "/damaged/snapshot-missing"
    w.write(path + "/meta.properties", meta_properties())
    wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log,
                            {b: d for b, d in segs.items() if b >= start},
                            {snap_name(0, 0): snaps[snap_name(0, 0)]}, epochs=epochs_of(log, start))
    cases["snapshot_missing"] = {
        "name": "snapshot_missing", "path": path, "metadata_dir": wr.mdir, "exit": 1,
        "log_start_offset": start, "segments": [r for r, _ in wr.segments],
        "snapshots": wr.snapshots,
        "problems": [{"code": "snapshot_missing", "severity": "error"}],
        "description": "segment 0 deleted, no snapshot but the 0-0 bootstrap one: the log starts "
                       "at %d and nothing covers [0, %d)" % (start, start)}

    # checkpoint_invalid: quorum-state not JSON / unknown data_version (small log)
    for name, text, what in (
            ("quorum-state-json", '{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirec',
             "quorum-state cut in the middle (not JSON)"),
            ("quorum-state-version", '{"leaderId":1,"leaderEpoch":1,"votedId":-1,'
             '"votedDirectoryId":"%s","data_version":7}' % S(D1),
             "quorum-state with data_version 7 (Kafka knows 0 and 1)")):
        path = ROOT + "/damaged/" + name
        w.write(path + "/meta.properties", meta_properties())
        small = [b for b in log.batches if b["base"] < log.segments[1]]
        first = {0: b"".join(b["data"] for b in small)}
        wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log, first, {}, quorum=text,
                                epochs=[(1, 0)])
        cases[name.replace("-", "_")] = {
            "name": name.replace("-", "_"), "path": path, "metadata_dir": wr.mdir, "exit": 1,
            "problems": [{"code": "checkpoint_invalid", "severity": "error",
                          "file": wr.mdir + "/quorum-state"}],
            "description": what}

    # unknown record types and versions in a small log
    cases["unknown_records"] = gen_unknown(w)

    # copies: two copies of the log (no snapshots), each with one damaged batch
    copies = []
    for label, mark in (("broker-a", "copy_a_victim"), ("broker-b", "copy_b_victim")):
        victim = batch_at(log, log.marks[mark])
        seg, pos = position_in_segment(log, victim)
        bad = dict(segs)
        bad[seg] = flip(segs[seg], pos, len(victim["data"]))
        path = "%s/copies/%s" % (ROOT, label)
        wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log, bad, {},
                                corrupt={seg: segs[seg]})
        entries, dmg = wr.entries(w)
        assert [d["base_offset"] for d in dmg] == [victim["base"]]
        alone, _ = view([], entries, None, cid)
        copies.append({"path": wr.mdir, "entries": entries, "damage": dmg,
                       "fact": {"path": wr.mdir, "damaged_batch": {
                           "file": dmg[0]["file"], "position": pos, "base_offset": victim["base"],
                           "last_offset": victim["last"]}, "metadata_alone": alone}})
    union = {}
    for c in copies:
        for e in c["entries"]:
            union[e["offset"]] = e
    assert sorted(union) == list(range(log.next))
    objs, _ = view([], [union[o] for o in sorted(union)], None, cid)
    assert strip_cluster(objs) == strip_cluster(end_objs)
    for c in copies:
        assert strip_cluster(c["fact"]["metadata_alone"]) != strip_cluster(end_objs)
    cases["copies"] = {"name": "copies", "copies": [c["fact"] for c in copies], "metadata": objs,
                       "description": "two copies of the metadata log: broker-a has a bit flip "
                                      "in segment 0, broker-b in the last segment; together they "
                                      "hold every batch"}
    return cases


def gen_unknown(w):
    """A small metadata log with an unknown api key, a version above the
    known range, frame versions 0 and 2 and an unknown control record type,
    among known records."""
    T = U("4d7973746572795f746f706963000001")
    log = MetaLog()
    log.leader(1)
    log.data(feature("metadata.version", 23))
    log.data((2, 0, {"Name": "mystery", "TopicId": T}))
    body_v2 = cf.encode_message(kf.METADATA[3], 2, {
        "PartitionId": 1, "TopicId": T, "Replicas": [1], "Isr": [1], "RemovingReplicas": [],
        "AddingReplicas": [], "Leader": 1, "LeaderEpoch": 0, "PartitionEpoch": 0,
        "Directories": [D1]})
    log.data(("raw", kf.encode_raw_envelope(1, 99, 0, b"\x04\x01\x02\x03\x00"), "unknown_record_type"),
             ("raw", kf.encode_raw_envelope(1, 3, 7, body_v2), "unknown_record_type"),
             ("raw", kf.encode_raw_envelope(2, 2, 0, b"\x02x" + bytes(16) + b"\x00"),
              "unknown_record_type"),
             ("raw", kf.encode_raw_envelope(0, 2, 0, b"\x02y" + bytes(16) + b"\x00"),
              "unknown_record_type"))
    log.data((3, 0, {"PartitionId": 0, "TopicId": T, "Replicas": [1], "Isr": [1],
                     "RemovingReplicas": [], "AddingReplicas": [], "Leader": 1, "LeaderEpoch": 0,
                     "PartitionEpoch": 0}))
    log.control(("raw", struct.pack(">hh", 0, 9), b"\x00\x00\x00", "unknown_record_type"))
    log.data((20, 0, {}))
    path = ROOT + "/damaged/unknown-records"
    w.write(path + "/meta.properties", meta_properties())
    wr = write_metadata_dir(w, path + "/__cluster_metadata-0", log, segment_bytes(log), {})
    entries, dmg = wr.entries(w)
    assert not dmg
    cross_check(entries, [i for b in log.batches for i in b["intents"]])
    objs, ld = view([], entries, None, S(CLUSTER_ID))
    assert ld.records == 4 and [o["partition"] for o in objs if o["type"] == "partition"] == [0]
    rel = wr.segments[0][0]
    unknown = [e for e in entries if e["kind"] == "unknown"]
    return {"name": "unknown_records", "path": path, "metadata_dir": wr.mdir,
            "dump": file_dump(w, rel), "metadata": objs,
            "problems": [{"code": "unknown_record_type", "severity": "warning", "offset": e["offset"],
                          "why": e["why"]} for e in unknown],
            "description": "api key 99, PartitionRecord version 7 (v2 bytes), frame versions 2 and "
                           "0, control record type 9: each listed undecoded, reported as "
                           "unknown_record_type and not applied"}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: %s OUTDIR   (writes OUTDIR/kraft)\n" % argv[0])
        return 2
    generate(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
