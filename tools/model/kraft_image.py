"""kraft_image: an independent Python model of the KRaft metadata image.

Builds, from decoded `__cluster_metadata` records, the cluster state that
`kfsck metadata` must print (cli.md `metadata`), following the replay rules of
docs/formats.md §14.7 (the broker's *Delta classes) and the
load order of §14.6:

  * the newest intact snapshot at or below the target (never the 0-0
    bootstrap snapshot) replaces the image, then log records at offsets
    >= its end offset and <= the target apply in offset order;
  * RegisterBroker replaces the broker; Fence/Unfence and
    BrokerRegistrationChange change only that broker (Fenced 1/-1/0,
    InControlledShutdown 1/0, LogDirs when non-empty, CordonedLogDirs when
    non-null); UnregisterBroker removes it; Register/UnregisterController;
  * TopicRecord creates a topic with no partitions; PartitionRecord creates
    or replaces a partition; PartitionChangeRecord sets only the fields it
    carries (null = unchanged), Leader -2 = no change, otherwise leader =
    value (-1 none) and leader_epoch + 1; partition_epoch + 1 on every change;
    RemoveTopic drops the topic, its partitions and all (TOPIC, name) configs;
    ClearElr empties ELR and LastKnownElr (partition_epoch + 1 where they were
    not empty) of one topic or, with "", every topic;
  * ConfigRecord sets a key, a null value deletes it, an empty resource goes;
    quotas, ACLs, SCRAM credentials, delegation tokens; features
    (metadata.version apart, kraft.version FeatureLevelRecords ignored,
    level 0 removes); ProducerIds (next id, broker id and epoch);
  * metadata transactions: records between Begin and End apply at End,
    Abort discards them, a transaction open at the target is not visible;
  * voters and kraft.version come from the KRaft control records.

It never reads kfsck's output or C code. Records that do not replay cleanly
raise ReplayError: the fixture scenario must not contain them (their
handling is left to "error, record skipped" (formats §14.7), which the fixtures
do not test).

`snapshot_records(image)` writes an image back as snapshot records
(MetadataImage.write order, formats §14.4) for the generator; `cli_objects` gives the
`kfsck metadata --json` lines; `selftest()` checks the rules on small cases.
"""

import copy
import os
import sys

# the record encoders and decoders it reads records with (tools/gen/)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gen"))

import coordfmt as cf  # noqa: E402
import kraftfmt as kf  # noqa: E402

RESOURCE_TYPES = {2: "topic", 4: "broker", 8: "broker_logger", 16: "client_metrics", 32: "group"}
SECURITY_PROTOCOLS = {0: "PLAINTEXT", 1: "SSL", 2: "SASL_PLAINTEXT", 3: "SASL_SSL"}
MIGRATING = bytes(16)
TXN_KEYS = (23, 24, 25)


class ReplayError(Exception):
    pass


def _u(x):
    return cf.uuid_str(x)


class Image:
    """The cluster state. Uuids are kept as 16 raw bytes."""

    def __init__(self):
        self.mv = None                 # metadata.version feature level
        self.features = {}             # other finalized features: name -> level
        self.zk_migration_state = None
        self.brokers = {}              # id -> dict
        self.controllers = {}          # id -> dict
        self.topics = {}               # topic id -> {"name", "partitions": {id: dict}}
        self.configs = {}              # (resource type, resource name) -> {key: value}
        self.quotas = {}               # frozenset((type, name)) -> {key: value}
        self.acls = {}                 # id -> fields
        self.scram = {}                # (mechanism, name) -> fields
        self.tokens = {}               # token id -> fields
        self.producer_ids = None       # {"next", "broker_id", "broker_epoch"}

    def copy(self):
        return copy.deepcopy(self)

    def topic_by_name(self, name):
        for tid, t in self.topics.items():
            if t["name"] == name:
                return tid
        return None

    # ----------------------------------------------------------------- replay
    def apply(self, api_key, version, d):
        name = kf.METADATA[api_key].name
        fn = getattr(self, "_" + name, None)
        if fn is None:
            raise ReplayError("no replay rule for %s" % name)
        fn(version, d)

    def _broker(self, bid, epoch, what):
        b = self.brokers.get(bid)
        if b is None or b["epoch"] != epoch:
            raise ReplayError("%s: broker %d epoch %d not registered" % (what, bid, epoch))
        return b

    def _RegisterBrokerRecord(self, v, d):
        self.brokers[d["BrokerId"]] = {
            "epoch": d["BrokerEpoch"], "incarnation": d["IncarnationId"],
            "listeners": [dict(e) for e in d["EndPoints"]],
            "features": [dict(e) for e in d["Features"]],
            "rack": d["Rack"], "fenced": d["Fenced"],
            "in_controlled_shutdown": d.get("InControlledShutdown", False) if v >= 1 else False,
            "migrating": d.get("IsMigratingZkBroker", False) if v >= 2 else False,
            "log_dirs": list(d.get("LogDirs") or []), "log_dirs_set": v >= 3,
            "cordoned": (None if d.get("CordonedLogDirs") is None else list(d["CordonedLogDirs"]))
            if v >= 4 else None,
            "version": v}

    def _UnregisterBrokerRecord(self, v, d):
        self._broker(d["BrokerId"], d["BrokerEpoch"], "unregister")
        del self.brokers[d["BrokerId"]]

    def _FenceBrokerRecord(self, v, d):
        self._broker(d["Id"], d["Epoch"], "fence")["fenced"] = True

    def _UnfenceBrokerRecord(self, v, d):
        self._broker(d["Id"], d["Epoch"], "unfence")["fenced"] = False

    def _BrokerRegistrationChangeRecord(self, v, d):
        b = self._broker(d["BrokerId"], d["BrokerEpoch"], "change")
        fenced = d.get("Fenced", 0)
        if fenced not in (-1, 0, 1):
            raise ReplayError("bad Fenced %d" % fenced)
        if fenced:
            b["fenced"] = fenced == 1
        ics = d.get("InControlledShutdown", 0)
        if ics not in (0, 1):
            raise ReplayError("bad InControlledShutdown %d" % ics)
        if ics == 1:
            b["in_controlled_shutdown"] = True
        if d.get("LogDirs"):
            b["log_dirs"] = list(d["LogDirs"])
            b["log_dirs_set"] = True
        if d.get("CordonedLogDirs") is not None:
            b["cordoned"] = list(d["CordonedLogDirs"])

    def _RegisterControllerRecord(self, v, d):
        self.controllers[d["ControllerId"]] = {
            "incarnation": d["IncarnationId"], "zk_migration_ready": d["ZkMigrationReady"],
            "listeners": [dict(e) for e in d["EndPoints"]],
            "features": [dict(e) for e in d["Features"]]}

    def _UnregisterControllerRecord(self, v, d):
        if d["ControllerId"] not in self.controllers:
            raise ReplayError("unregister unknown controller %d" % d["ControllerId"])
        del self.controllers[d["ControllerId"]]

    def _TopicRecord(self, v, d):
        self.topics[d["TopicId"]] = {"name": d["Name"], "partitions": {}}

    def _PartitionRecord(self, v, d):
        t = self.topics.get(d["TopicId"])
        if t is None:
            raise ReplayError("partition of unknown topic %s" % _u(d["TopicId"]))
        dirs = None
        if v >= 1:
            dirs = list(d["Directories"])
            # cli.md: `directories` null when never set. An empty or all-zero
            # (MIGRATING) list is Kafka's "unassigned": the fixtures avoid it.
            if not dirs or all(x == MIGRATING for x in dirs):
                raise ReplayError("fixtures never write MIGRATING/empty directories")
            if len(dirs) != len(d["Replicas"]):
                raise ReplayError("directories do not match replicas")
        t["partitions"][d["PartitionId"]] = {
            "replicas": list(d["Replicas"]), "isr": list(d["Isr"]),
            "removing": list(d["RemovingReplicas"]), "adding": list(d["AddingReplicas"]),
            "leader": d["Leader"], "leader_recovery_state": d.get("LeaderRecoveryState", 0),
            "leader_epoch": d["LeaderEpoch"], "partition_epoch": d["PartitionEpoch"],
            "directories": dirs,
            "elr": list(d.get("EligibleLeaderReplicas") or []),
            "last_known_elr": list(d.get("LastKnownElr") or [])}

    def _PartitionChangeRecord(self, v, d):
        t = self.topics.get(d["TopicId"])
        p = None if t is None else t["partitions"].get(d["PartitionId"])
        if p is None:
            raise ReplayError("change of unknown partition %s-%d" % (_u(d["TopicId"]), d["PartitionId"]))
        for key, field in (("replicas", "Replicas"), ("isr", "Isr"), ("removing", "RemovingReplicas"),
                           ("adding", "AddingReplicas"), ("elr", "EligibleLeaderReplicas"),
                           ("last_known_elr", "LastKnownElr")):
            if d.get(field) is not None:
                p[key] = list(d[field])
        if d.get("Directories") is not None:
            dirs = list(d["Directories"])
            if not dirs or all(x == MIGRATING for x in dirs):
                raise ReplayError("fixtures never write MIGRATING/empty directories")
            p["directories"] = dirs
        if p["directories"] is not None and len(p["directories"]) != len(p["replicas"]):
            raise ReplayError("directories do not match replicas after a change")
        leader = d.get("Leader", -2)
        if leader != -2:
            p["leader"] = leader
            p["leader_epoch"] += 1
        lrs = d.get("LeaderRecoveryState", -1)
        if lrs != -1:
            p["leader_recovery_state"] = lrs
        p["partition_epoch"] += 1

    def _RemoveTopicRecord(self, v, d):
        t = self.topics.pop(d["TopicId"], None)
        if t is None:
            raise ReplayError("remove unknown topic %s" % _u(d["TopicId"]))
        self.configs.pop((2, t["name"]), None)

    def _ClearElrRecord(self, v, d):
        if d["TopicName"]:
            tid = self.topic_by_name(d["TopicName"])
            if tid is None:
                raise ReplayError("clear ELR of unknown topic %s" % d["TopicName"])
            tids = [tid]
        else:
            tids = list(self.topics)
        for tid in tids:
            for p in self.topics[tid]["partitions"].values():
                if p["elr"] or p["last_known_elr"]:
                    p["elr"], p["last_known_elr"] = [], []
                    p["partition_epoch"] += 1

    def _ConfigRecord(self, v, d):
        res = (d["ResourceType"], d["ResourceName"])
        if d["Value"] is None:
            cfg = self.configs.get(res, {})
            cfg.pop(d["Name"], None)
            if not cfg:
                self.configs.pop(res, None)
        else:
            self.configs.setdefault(res, {})[d["Name"]] = d["Value"]

    def _ClientQuotaRecord(self, v, d):
        ent = frozenset((e["EntityType"], e["EntityName"]) for e in d["Entity"])
        if d["Remove"]:
            q = self.quotas.get(ent, {})
            q.pop(d["Key"], None)
            if not q:
                self.quotas.pop(ent, None)
        else:
            self.quotas.setdefault(ent, {})[d["Key"]] = d["Value"]

    def _AccessControlEntryRecord(self, v, d):
        self.acls[d["Id"]] = dict(d)

    def _RemoveAccessControlEntryRecord(self, v, d):
        if self.acls.pop(d["Id"], None) is None:
            raise ReplayError("remove unknown ACL")

    def _UserScramCredentialRecord(self, v, d):
        self.scram[(d["Mechanism"], d["Name"])] = dict(d)

    def _RemoveUserScramCredentialRecord(self, v, d):
        if self.scram.pop((d["Mechanism"], d["Name"]), None) is None:
            raise ReplayError("remove unknown SCRAM credential")

    def _DelegationTokenRecord(self, v, d):
        self.tokens[d["TokenId"]] = dict(d)

    def _RemoveDelegationTokenRecord(self, v, d):
        if self.tokens.pop(d["TokenId"], None) is None:
            raise ReplayError("remove unknown token")

    def _FeatureLevelRecord(self, v, d):
        if d["Name"] == "metadata.version":
            self.mv = d["FeatureLevel"]
        elif d["Name"] == "kraft.version":
            pass                                   # KAFKA-18979: ignored
        elif d["FeatureLevel"] == 0:
            self.features.pop(d["Name"], None)
        else:
            self.features[d["Name"]] = d["FeatureLevel"]

    def _ProducerIdsRecord(self, v, d):
        if self.producer_ids is not None and d["NextProducerId"] <= self.producer_ids["next"]:
            raise ReplayError("producer ids not increasing")
        self.producer_ids = {"next": d["NextProducerId"], "broker_id": d["BrokerId"],
                             "broker_epoch": d["BrokerEpoch"]}

    def _NoOpRecord(self, v, d):
        pass

    def _ZkMigrationStateRecord(self, v, d):
        self.zk_migration_state = d["ZkMigrationState"]


# ---------------------------------------------------------------------------
# loading: snapshot, then log records, with metadata transactions


class Loader:
    """Applies decoded entries in offset order. An entry is a dict with
    offset, epoch (the batch's partitionLeaderEpoch) and kind "metadata"
    (api_key, version, d), "control" (ctype, d) or "unknown"."""

    def __init__(self):
        self.img = Image()
        self.pending = None            # records of an open transaction
        self.records = 0
        self.pending_records = 0
        self.txn_markers = 0           # Begin/End/Abort seen in the log part
        self.last_offset = None
        self.leader_epoch = None
        self.voters = None
        self.kraft_version = None
        self.snapshot = None

    def load_snapshot(self, name, end_offset, epoch, entries):
        """A snapshot replaces the image (formats §14.6)."""
        self.img = Image()
        self.pending = None
        self.records = 0
        for e in entries:
            if e["kind"] == "metadata":
                if e["api_key"] in TXN_KEYS:
                    raise ReplayError("transaction record in a snapshot")
                self.img.apply(e["api_key"], e["version"], e["d"])
                self.records += 1
            elif e["kind"] == "control":
                self._control(e)
        self.snapshot = {"name": name, "end_offset": end_offset}
        self.last_offset = end_offset - 1
        self.leader_epoch = epoch

    def _control(self, e):
        if e["ctype"] == kf.KRAFT_VOTERS:
            self.voters = sorted(v["VoterId"] for v in e["d"]["Voters"])
        elif e["ctype"] == kf.KRAFT_VERSION:
            self.kraft_version = e["d"]["KRaftVersion"]

    def entry(self, e):
        self.leader_epoch = e["epoch"]
        if e["kind"] == "control":
            self._control(e)
            return
        if e["kind"] != "metadata":
            return                                 # unknown: reported, not applied
        k = e["api_key"]
        if k == 23:
            self.txn_markers += 1
            if self.pending is not None:
                raise ReplayError("Begin inside a transaction")
            self.pending = []
            self.pending_records = 1
        elif k in (24, 25):
            self.txn_markers += 1
            if self.pending is None:
                raise ReplayError("End/Abort outside a transaction")
            if k == 24:
                for api_key, version, d in self.pending:
                    self.img.apply(api_key, version, d)
                self.records += self.pending_records + 1
            self.pending = None
        elif self.pending is not None:
            self.pending.append((k, e["version"], e["d"]))
            self.pending_records += 1
        else:
            self.img.apply(k, e["version"], e["d"])
            self.records += 1
        if self.pending is None:
            self.last_offset = e["offset"]


def build(snapshot, log_entries, target=None):
    """snapshot: None or (name, end_offset, epoch, entries); log_entries in
    offset order. Applies log entries with end_offset <= offset <= target."""
    ld = Loader()
    start = 0
    if snapshot is not None:
        ld.load_snapshot(*snapshot)
        start = snapshot[1]
    for e in log_entries:
        if e["offset"] < start or (target is not None and e["offset"] > target):
            continue
        ld.entry(e)
    return ld


# ---------------------------------------------------------------------------
# `kfsck metadata --json` objects (cli.md)

ORDER = ("cluster", "feature", "broker", "controller", "topic", "partition", "config",
         "producer_ids")


def listeners(eps):
    return [{"name": e["Name"], "host": e["Host"], "port": e["Port"],
             "security_protocol": e["SecurityProtocol"]} for e in eps]


def cli_objects(ld, cluster_id=None, show_secrets=False):
    """The lines of `kfsck metadata --json`, in the contract's type order
    (within a type sorted by its natural key; the contract does not fix that
    order). Extra keys starting with "_" are facts for the tests, not
    fields: _log_dirs_unset (a broker whose registration never carried
    LogDirs: log_dirs may print as [] or null), _exact (which cluster fields
    the contract pins down for this target)."""
    img = ld.img
    out = [{"type": "cluster", "cluster_id": cluster_id,
            "snapshot": None if ld.snapshot is None else ld.snapshot["name"],
            "snapshot_offset": None if ld.snapshot is None else ld.snapshot["end_offset"],
            "last_offset": ld.last_offset, "records": ld.records,
            "leader_epoch": ld.leader_epoch, "voters": ld.voters, "metadata_version": img.mv}]
    for name in sorted(img.features):
        out.append({"type": "feature", "name": name, "level": img.features[name]})
    for bid in sorted(img.brokers):
        b = img.brokers[bid]
        o = {"type": "broker", "broker_id": bid, "broker_epoch": b["epoch"],
             "incarnation_id": _u(b["incarnation"]), "fenced": b["fenced"],
             "in_controlled_shutdown": b["in_controlled_shutdown"], "rack": b["rack"],
             "listeners": listeners(b["listeners"]), "log_dirs": [_u(x) for x in b["log_dirs"]]}
        if not b["log_dirs_set"]:
            o["_log_dirs_unset"] = True
        out.append(o)
    for cid in sorted(img.controllers):
        c = img.controllers[cid]
        out.append({"type": "controller", "controller_id": cid, "incarnation_id": _u(c["incarnation"]),
                    "listeners": listeners(c["listeners"])})
    byname = sorted(img.topics.items(), key=lambda kv: kv[1]["name"])
    for tid, t in byname:
        out.append({"type": "topic", "topic": t["name"], "topic_id": _u(tid),
                    "partitions": len(t["partitions"])})
    for tid, t in byname:
        for pid in sorted(t["partitions"]):
            p = t["partitions"][pid]
            out.append({"type": "partition", "topic": t["name"], "topic_id": _u(tid), "partition": pid,
                        "replicas": p["replicas"], "isr": p["isr"], "leader": p["leader"],
                        "leader_epoch": p["leader_epoch"], "partition_epoch": p["partition_epoch"],
                        "elr": p["elr"], "last_known_elr": p["last_known_elr"],
                        "removing_replicas": p["removing"], "adding_replicas": p["adding"],
                        "directories": None if p["directories"] is None else
                        [_u(x) for x in p["directories"]]})
    for (rtype, rname) in sorted(img.configs):
        for key in sorted(img.configs[(rtype, rname)]):
            value = img.configs[(rtype, rname)][key]
            if not show_secrets and kf.secret_config_name(key):
                value = kf.REDACTED
            out.append({"type": "config", "resource_type": RESOURCE_TYPES.get(rtype, rtype),
                        "resource_name": rname, "name": key, "value": value})
    if img.producer_ids is not None:
        pi = img.producer_ids
        out.append({"type": "producer_ids", "next_producer_id": pi["next"],
                    "broker_id": pi["broker_id"], "broker_epoch": pi["broker_epoch"]})
    return out


def topic_names(img):
    return {_u(tid): t["name"] for tid, t in img.topics.items()}


# ---------------------------------------------------------------------------
# an image written as a snapshot (MetadataImage.write order, formats §14.4)


def register_broker_version(mv):
    if mv >= 30:
        return 4
    if mv >= 17:
        return 3
    if mv >= 8:
        return 2
    return 1 if mv >= 7 else 0


def snapshot_records(img):
    """[(api_key, version, fields)] for the data part of a snapshot of img.
    PartitionRecord: v2 (MV >= 4.0-IV1, ELR lists always set, as Kafka's
    PartitionRegistration.toRecord does) or v1 (MV >= 3.7-IV2) for
    partitions with directories; v0 for partitions whose directories were
    never set, so that cli.md's `directories: null` survives the snapshot
    (Kafka itself would write MIGRATING ids there)."""
    mv = img.mv
    recs = []
    if mv is not None:
        recs.append((12, 0, {"Name": "metadata.version", "FeatureLevel": mv}))
    for name in sorted(img.features):
        recs.append((12, 0, {"Name": name, "FeatureLevel": img.features[name]}))
    if img.zk_migration_state is not None and mv is not None and 9 <= mv <= 21:
        recs.append((21, 0, {"ZkMigrationState": img.zk_migration_state}))
    rbv = register_broker_version(mv or 0)
    for bid in sorted(img.brokers):
        b = img.brokers[bid]
        if rbv < 3 and b["log_dirs"]:
            raise ReplayError("snapshot version cannot hold broker log dirs")
        d = {"BrokerId": bid, "IncarnationId": b["incarnation"], "BrokerEpoch": b["epoch"],
             "EndPoints": b["listeners"], "Features": b["features"], "Rack": b["rack"],
             "Fenced": b["fenced"]}
        if rbv >= 1:
            d["InControlledShutdown"] = b["in_controlled_shutdown"]
        if rbv >= 2:
            d["IsMigratingZkBroker"] = b["migrating"]
        if rbv >= 3:
            d["LogDirs"] = b["log_dirs"]
        if rbv >= 4:
            d["CordonedLogDirs"] = b["cordoned"]
        recs.append((0, rbv, d))
    for cid in sorted(img.controllers):
        c = img.controllers[cid]
        recs.append((27, 0, {"ControllerId": cid, "IncarnationId": c["incarnation"],
                             "ZkMigrationReady": c["zk_migration_ready"],
                             "EndPoints": c["listeners"], "Features": c["features"]}))
    for tid, t in sorted(img.topics.items(), key=lambda kv: kv[1]["name"]):
        recs.append((2, 0, {"Name": t["name"], "TopicId": tid}))
        for pid in sorted(t["partitions"]):
            p = t["partitions"][pid]
            d = {"PartitionId": pid, "TopicId": tid, "Replicas": p["replicas"], "Isr": p["isr"],
                 "RemovingReplicas": p["removing"], "AddingReplicas": p["adding"],
                 "Leader": p["leader"], "LeaderRecoveryState": p["leader_recovery_state"],
                 "LeaderEpoch": p["leader_epoch"], "PartitionEpoch": p["partition_epoch"]}
            if p["directories"] is None:
                if p["elr"] or p["last_known_elr"]:
                    raise ReplayError("ELR on a partition without directories")
                version = 0
            else:
                d["Directories"] = p["directories"]
                version = 2 if mv >= 23 else 1
                if version == 2:
                    d["EligibleLeaderReplicas"] = p["elr"]
                    d["LastKnownElr"] = p["last_known_elr"]
                elif p["elr"] or p["last_known_elr"]:
                    raise ReplayError("ELR below MV 4.0-IV1")
            recs.append((3, version, d))
    for (rtype, rname) in sorted(img.configs):
        for key in sorted(img.configs[(rtype, rname)]):
            recs.append((4, 0, {"ResourceType": rtype, "ResourceName": rname, "Name": key,
                                "Value": img.configs[(rtype, rname)][key]}))
    for ent in sorted(img.quotas, key=lambda e: sorted((t, n or "") for t, n in e)):
        for key in sorted(img.quotas[ent]):
            recs.append((14, 0, {"Entity": [{"EntityType": t, "EntityName": n}
                                            for t, n in sorted(ent, key=lambda x: (x[0], x[1] or ""))],
                                 "Key": key, "Value": img.quotas[ent][key], "Remove": False}))
    if img.producer_ids is not None:
        recs.append((15, 0, {"BrokerId": -1, "BrokerEpoch": -1,
                             "NextProducerId": img.producer_ids["next"]}))
    for aid in sorted(img.acls):
        recs.append((18, 0, dict(img.acls[aid])))
    for key in sorted(img.scram):
        recs.append((11, 0, dict(img.scram[key])))
    for tok in sorted(img.tokens):
        recs.append((10, 0, dict(img.tokens[tok])))
    return recs


# ---------------------------------------------------------------------------
# self test


def _md(offset, api_key, version, d, epoch=1):
    return {"offset": offset, "epoch": epoch, "kind": "metadata", "api_key": api_key,
            "version": version, "d": d}


def selftest():
    """The replay rules on small hand-made logs. Raises on failure."""
    T = bytes(range(1, 17))
    D = [bytes([0x40 + i] * 16) for i in range(4)]
    reg = lambda bid, epoch, v=0: {"BrokerId": bid, "IncarnationId": bytes([bid] * 16),  # noqa: E731
                                   "BrokerEpoch": epoch, "EndPoints": [], "Features": [],
                                   "Rack": None, "Fenced": True}
    part = {"PartitionId": 0, "TopicId": T, "Replicas": [1, 2], "Isr": [1, 2],
            "RemovingReplicas": [], "AddingReplicas": [], "Leader": 1, "LeaderEpoch": 0,
            "PartitionEpoch": 0}
    log = [_md(0, 12, 0, {"Name": "metadata.version", "FeatureLevel": 7}),
           _md(1, 0, 0, reg(1, 1)), _md(2, 8, 0, {"Id": 1, "Epoch": 1}),
           _md(3, 0, 1, reg(2, 3)),
           _md(4, 2, 0, {"Name": "t", "TopicId": T}), _md(5, 3, 0, part),
           _md(6, 4, 0, {"ResourceType": 2, "ResourceName": "t", "Name": "retention.ms", "Value": "1"}),
           _md(7, 4, 0, {"ResourceType": 2, "ResourceName": "t", "Name": "x.password", "Value": "p"}),
           # leader -2: only the ISR changes
           _md(8, 5, 0, {"PartitionId": 0, "TopicId": T, "Isr": [1]}),
           # leader -1: none, epoch + 1
           _md(9, 5, 0, {"PartitionId": 0, "TopicId": T, "Leader": -1}),
           _md(10, 5, 1, {"PartitionId": 0, "TopicId": T, "Leader": 2, "Directories": D[:2]}),
           _md(11, 17, 0, {"BrokerId": 2, "BrokerEpoch": 3, "Fenced": -1}),
           _md(12, 17, 1, {"BrokerId": 2, "BrokerEpoch": 3, "InControlledShutdown": 1}),
           _md(13, 4, 0, {"ResourceType": 2, "ResourceName": "t", "Name": "retention.ms", "Value": None}),
           _md(14, 12, 0, {"Name": "kraft.version", "FeatureLevel": 1}),
           _md(15, 12, 0, {"Name": "group.version", "FeatureLevel": 1}),
           _md(16, 15, 0, {"BrokerId": 1, "BrokerEpoch": 1, "NextProducerId": 1000})]
    ld = build(None, log)
    img = ld.img
    p = img.topics[T]["partitions"][0]
    assert (p["leader"], p["leader_epoch"], p["partition_epoch"], p["isr"]) == (2, 2, 3, [1]), p
    assert p["directories"] == D[:2] and p["elr"] == []
    assert img.brokers[1]["fenced"] is False and img.brokers[2]["fenced"] is False
    assert img.brokers[2]["in_controlled_shutdown"] is True
    assert img.configs == {(2, "t"): {"x.password": "p"}}
    assert img.features == {"group.version": 1} and img.mv == 7
    assert ld.records == 17 and ld.last_offset == 16
    objs = cli_objects(ld)
    assert [o["type"] for o in objs] == ["cluster", "feature", "broker", "broker", "topic", "partition",
                                         "config", "producer_ids"], objs
    assert [o for o in objs if o["type"] == "config"][0]["value"] == kf.REDACTED
    assert cli_objects(ld, show_secrets=True)[-2]["value"] == "p"
    # as of offset 9: leader none
    p9 = build(None, log, 9).img.topics[T]["partitions"][0]
    assert (p9["leader"], p9["leader_epoch"], p9["partition_epoch"], p9["directories"]) == (-1, 1, 2, None)
    # removing the topic drops partitions and its configs; unregister changes one broker
    more = log + [_md(17, 9, 0, {"TopicId": T}), _md(18, 1, 0, {"BrokerId": 1, "BrokerEpoch": 1})]
    img = build(None, more).img
    assert img.topics == {} and img.configs == {} and sorted(img.brokers) == [2]
    # transactions: applied at End, discarded at Abort, invisible while open
    T2 = bytes(range(2, 18))
    txn = log + [_md(17, 23, 0, {"Name": "x"}), _md(18, 2, 0, {"Name": "u", "TopicId": T2}),
                 _md(19, 24, 0, {}), _md(20, 23, 0, {}), _md(21, 9, 0, {"TopicId": T2}),
                 _md(22, 25, 0, {"Reason": "r"})]
    assert T2 not in build(None, txn, 18).img.topics
    assert build(None, txn, 18).last_offset == 16
    assert T2 in build(None, txn, 19).img.topics
    assert T2 in build(None, txn, 21).img.topics and T2 in build(None, txn).img.topics
    assert build(None, txn).records == 17 + 3
    # ELR and ClearElr
    elr = log + [_md(17, 5, 2, {"PartitionId": 0, "TopicId": T, "EligibleLeaderReplicas": [1],
                                "LastKnownElr": []}),
                 _md(18, 28, 0, {"TopicName": ""})]
    pe = build(None, elr, 17).img.topics[T]["partitions"][0]
    assert pe["elr"] == [1] and pe["partition_epoch"] == 4
    pe = build(None, elr).img.topics[T]["partitions"][0]
    assert pe["elr"] == [] and pe["partition_epoch"] == 5 and pe["leader_epoch"] == 2
    # a snapshot of the image replays to the same objects
    full = build(None, log)
    snap = [_md(i + 1, k, v, d, epoch=4) for i, (k, v, d) in enumerate(snapshot_records(full.img))]
    again = Loader()
    again.load_snapshot("s", 17, 4, snap)
    strip = lambda objs: [o for o in objs if o["type"] not in ("cluster", "producer_ids")]  # noqa: E731
    assert strip(cli_objects(again)) == strip(cli_objects(full))
    assert again.img.producer_ids == {"next": 1000, "broker_id": -1, "broker_epoch": -1}
    # replay errors are caught
    for bad in ([_md(0, 5, 0, {"PartitionId": 0, "TopicId": T})],
                [_md(0, 7, 0, {"Id": 9, "Epoch": 1})],
                [_md(0, 24, 0, {})]):
        try:
            build(None, bad)
        except ReplayError:
            pass
        else:
            raise AssertionError(bad)
    return True


if __name__ == "__main__":
    selftest()
    print("kraft_image selftest ok")
