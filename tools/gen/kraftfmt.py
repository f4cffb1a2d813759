"""kraftfmt: encoder and decoder of KRaft records for the fixture generator.

Covers what kfsck's `dump --decode metadata|share|remote` and `kfsck metadata`
read (docs/formats.md §14-§16):
  * `__cluster_metadata` records (api keys 0-29): value = uvarint frame
    version (1), uvarint api key, uvarint version, flexible body (formats §14.1); key null;
  * KRaft control records (formats §14.3): key = int16 version 0 + int16 type, value =
    the flexible body at version 0 with no version prefix;
  * `__share_group_state` records (formats §15): key = int16 type + non-flexible key
    struct, value = int16 version + flexible body (4.1+ layout, or the 4.0
    layout with a uint16 SnapshotEpoch), null value = tombstone;
  * `__remote_log_metadata` records (formats §16): the metadata envelope of §14.1.

The schema tables below are this file's own description, written from the
field tables of Kafka's schemas (formats §14.2) and checked against Kafka's JSON schemas (apache/kafka
trunk, read as reference: metadata/src/main/resources/common/metadata/*.json,
clients/.../{LeaderChangeMessage,SnapshotHeaderRecord,SnapshotFooterRecord,
KRaftVersionRecord,VotersRecord}.json, share-coordinator/.../Share*.json,
storage/.../Remote*.json). They do not come from the project's C tables. The
generic flexible-version encoder/decoder (compact strings and arrays, tagged
sections, uuids) is coordfmt's Enc/Dec; this file adds the envelopes, the
records, Kafka's snake_case and the rendering `kfsck dump` prints, with
secrets redacted as cli.md says.

Batches: data batches are built by kafka-python's DefaultRecordBatchBuilder
through kafkafmt.v2_batch; control batches too (kafkafmt sets the control bit
and recomputes the CRC-32C with kafka.record.util.calc_crc32c). A KRaft
control batch may hold several control records (snapshot header + kraft
version + voters), is not transactional and has producer id -1.

`selftest()` checks byte examples worked out by hand from the schemas and round-trips every schema at
every version.
"""

import base64
import struct

import coordfmt as cf
from coordfmt import F, NULL, S
from kafkafmt import Rec, v2_batch

DEFAULT_FRAME_VERSION = 1
REDACTED = "<redacted>"

# ---------------------------------------------------------------------------
# Kafka's names


def kafka_snake(name):
    """MessageGenerator.toSnakeCase: '_' before an upper-case letter only when
    the previous character was not upper-case, then lower-case."""
    out = []
    prev_cap = True
    for c in name:
        if c.isupper():
            if not prev_cap:
                out.append("_")
            out.append(c.lower())
            prev_cap = True
        else:
            out.append(c)
            prev_cap = False
    return "".join(out)


def record_type_of(schema_name):
    """cli.md's record_type: snake_case schema name without `Record`."""
    if schema_name.endswith("Record"):
        schema_name = schema_name[:-len("Record")]
    return kafka_snake(schema_name)


# ---------------------------------------------------------------------------
# metadata schemas (formats §14.2, Kafka trunk 2026-08)

ENDPOINT = [F("Name", "string"), F("Host", "string"), F("Port", "uint16"),
            F("SecurityProtocol", "int16")]
FEATURE_RANGE = [F("Name", "string"), F("MinSupportedVersion", "int16"),
                 F("MaxSupportedVersion", "int16")]


def M(api_key, name, fields, valid="0"):
    return S(name, fields, valid=valid, flexible="0+", api_key=api_key)


METADATA = {s.api_key: s for s in [
    M(0, "RegisterBrokerRecord", [
        F("BrokerId", "int32"),
        F("IsMigratingZkBroker", "bool", versions="2+", default=False),
        F("IncarnationId", "uuid"),
        F("BrokerEpoch", "int64"),
        F("EndPoints", "[]BrokerEndpoint", fields=list(ENDPOINT)),
        F("Features", "[]BrokerFeature", fields=list(FEATURE_RANGE)),
        F("Rack", "string", nullable="0+"),
        F("Fenced", "bool", default=True),
        F("InControlledShutdown", "bool", versions="1+", default=False),
        F("LogDirs", "[]uuid", versions="3+", tag=0, tagged="3+"),
        F("CordonedLogDirs", "[]uuid", versions="4+", nullable="4+", tag=1, tagged="4+",
          default=NULL),
    ], valid="0-4"),
    M(1, "UnregisterBrokerRecord", [F("BrokerId", "int32"), F("BrokerEpoch", "int64")]),
    M(2, "TopicRecord", [F("Name", "string"), F("TopicId", "uuid")]),
    M(3, "PartitionRecord", [
        F("PartitionId", "int32", default=-1),
        F("TopicId", "uuid"),
        F("Replicas", "[]int32"),
        F("Isr", "[]int32"),
        F("RemovingReplicas", "[]int32"),
        F("AddingReplicas", "[]int32"),
        F("Leader", "int32", default=-1),
        F("LeaderRecoveryState", "int8", tag=0, tagged="0+", default=0),
        F("LeaderEpoch", "int32", default=-1),
        F("PartitionEpoch", "int32", default=-1),
        F("Directories", "[]uuid", versions="1+"),
        F("EligibleLeaderReplicas", "[]int32", versions="2+", nullable="2+", tag=1, tagged="2+",
          default=NULL),
        F("LastKnownElr", "[]int32", versions="2+", nullable="2+", tag=2, tagged="2+",
          default=NULL),
    ], valid="0-2"),
    M(4, "ConfigRecord", [F("ResourceType", "int8"), F("ResourceName", "string"),
                          F("Name", "string"), F("Value", "string", nullable="0+")]),
    M(5, "PartitionChangeRecord", [
        F("PartitionId", "int32", default=-1),
        F("TopicId", "uuid"),
        F("Isr", "[]int32", nullable="0+", tag=0, tagged="0+", default=NULL),
        F("Leader", "int32", tag=1, tagged="0+", default=-2),
        F("Replicas", "[]int32", nullable="0+", tag=2, tagged="0+", default=NULL),
        F("RemovingReplicas", "[]int32", nullable="0+", tag=3, tagged="0+", default=NULL),
        F("AddingReplicas", "[]int32", nullable="0+", tag=4, tagged="0+", default=NULL),
        F("LeaderRecoveryState", "int8", tag=5, tagged="0+", default=-1),
        F("Directories", "[]uuid", versions="1+", nullable="1+", tag=8, tagged="1+", default=NULL),
        F("EligibleLeaderReplicas", "[]int32", versions="2+", nullable="2+", tag=6, tagged="2+",
          default=NULL),
        F("LastKnownElr", "[]int32", versions="2+", nullable="2+", tag=7, tagged="2+",
          default=NULL),
    ], valid="0-2"),
    M(7, "FenceBrokerRecord", [F("Id", "int32"), F("Epoch", "int64")]),
    M(8, "UnfenceBrokerRecord", [F("Id", "int32"), F("Epoch", "int64")]),
    M(9, "RemoveTopicRecord", [F("TopicId", "uuid")]),
    M(10, "DelegationTokenRecord", [
        F("Owner", "string"), F("Requester", "string"), F("Renewers", "[]string"),
        F("IssueTimestamp", "int64"), F("MaxTimestamp", "int64"),
        F("ExpirationTimestamp", "int64"), F("TokenId", "string")]),
    M(11, "UserScramCredentialRecord", [
        F("Name", "string"), F("Mechanism", "int8"), F("Salt", "bytes"),
        F("StoredKey", "bytes"), F("ServerKey", "bytes"), F("Iterations", "int32")]),
    M(12, "FeatureLevelRecord", [F("Name", "string"), F("FeatureLevel", "int16")]),
    M(14, "ClientQuotaRecord", [
        F("Entity", "[]EntityData", fields=[F("EntityType", "string"),
                                            F("EntityName", "string", nullable="0+")]),
        F("Key", "string"), F("Value", "float64"), F("Remove", "bool")]),
    M(15, "ProducerIdsRecord", [F("BrokerId", "int32"), F("BrokerEpoch", "int64", default=-1),
                                F("NextProducerId", "int64")]),
    M(17, "BrokerRegistrationChangeRecord", [
        F("BrokerId", "int32"),
        F("BrokerEpoch", "int64"),
        F("Fenced", "int8", tag=0, tagged="0+"),
        F("InControlledShutdown", "int8", versions="1+", tag=1, tagged="1+"),
        F("LogDirs", "[]uuid", versions="2+", tag=2, tagged="2+"),
        F("CordonedLogDirs", "[]uuid", versions="3+", nullable="3+", tag=3, tagged="3+",
          default=NULL),
    ], valid="0-3"),
    M(18, "AccessControlEntryRecord", [
        F("Id", "uuid"), F("ResourceType", "int8"), F("ResourceName", "string"),
        F("PatternType", "int8"), F("Principal", "string"), F("Host", "string"),
        F("Operation", "int8"), F("PermissionType", "int8")]),
    M(19, "RemoveAccessControlEntryRecord", [F("Id", "uuid")]),
    M(20, "NoOpRecord", []),
    M(21, "ZkMigrationStateRecord", [F("ZkMigrationState", "int8")]),
    M(22, "RemoveUserScramCredentialRecord", [F("Name", "string"), F("Mechanism", "int8")]),
    M(23, "BeginTransactionRecord", [F("Name", "string", nullable="0+", tag=0, tagged="0+",
                                       default=NULL)]),
    M(24, "EndTransactionRecord", []),
    M(25, "AbortTransactionRecord", [F("Reason", "string", nullable="0+", tag=0, tagged="0+",
                                       default=NULL)]),
    M(26, "RemoveDelegationTokenRecord", [F("TokenId", "string")]),
    M(27, "RegisterControllerRecord", [
        F("ControllerId", "int32"), F("IncarnationId", "uuid"), F("ZkMigrationReady", "bool"),
        F("EndPoints", "[]ControllerEndpoint", fields=list(ENDPOINT)),
        F("Features", "[]ControllerFeature", fields=list(FEATURE_RANGE))]),
    M(28, "ClearElrRecord", [F("TopicName", "string")]),
    M(29, "UnregisterControllerRecord", [F("ControllerId", "int32")]),
]}

KEY = {s.name: k for k, s in METADATA.items()}          # "TopicRecord" -> 2

# ---------------------------------------------------------------------------
# KRaft control records (formats §14.3): always version 0

VOTER_V0 = [F("VoterId", "int32"), F("VoterDirectoryId", "uuid", versions="1+")]
CONTROL = {
    2: S("LeaderChangeMessage", [
        F("Version", "int16"), F("LeaderId", "int32"),
        F("Voters", "[]Voter", fields=list(VOTER_V0)),
        F("GrantingVoters", "[]Voter", fields=list(VOTER_V0))], valid="0-1"),
    3: S("SnapshotHeaderRecord", [F("Version", "int16"), F("LastContainedLogTimestamp", "int64")]),
    4: S("SnapshotFooterRecord", [F("Version", "int16")]),
    5: S("KRaftVersionRecord", [F("Version", "int16"), F("KRaftVersion", "int16")]),
    6: S("VotersRecord", [
        F("Version", "int16"),
        F("Voters", "[]Voter", fields=[
            F("VoterId", "int32"), F("VoterDirectoryId", "uuid"),
            F("Endpoints", "[]Endpoint", fields=[F("Name", "string"), F("Host", "string"),
                                                 F("Port", "uint16")]),
            F("KRaftVersionFeature", "KRaftVersionFeature", fields=[
                F("MinSupportedVersion", "int16"), F("MaxSupportedVersion", "int16")])])]),
}
CONTROL_TYPE = {2: "leader_change", 3: "snapshot_header", 4: "snapshot_footer",
                5: "kraft_version", 6: "kraft_voters"}
LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER, KRAFT_VERSION, KRAFT_VOTERS = 2, 3, 4, 5, 6

# ---------------------------------------------------------------------------
# __share_group_state (formats §15)

SHARE_KEY_FIELDS = [("GroupId", "string"), ("TopicId", "uuid"), ("Partition", "int32")]
STATE_BATCH = [F("FirstOffset", "int64"), F("LastOffset", "int64"), F("DeliveryState", "int8"),
               F("DeliveryCount", "int16")]
SHARE = {
    0: {"key": cf.key_schema("ShareSnapshotKey", *SHARE_KEY_FIELDS),
        "4.1": S("ShareSnapshotValue", [
            F("SnapshotEpoch", "int32"), F("StateEpoch", "int32"), F("LeaderEpoch", "int32"),
            F("StartOffset", "int64"),
            F("DeliveryCompleteCount", "int32", tag=0, tagged="0+", default=-1),
            F("CreateTimestamp", "int64"), F("WriteTimestamp", "int64"),
            F("StateBatches", "[]StateBatch", fields=list(STATE_BATCH))]),
        "4.0": S("ShareSnapshotValue", [
            F("SnapshotEpoch", "uint16"), F("StateEpoch", "int32"), F("LeaderEpoch", "int32"),
            F("StartOffset", "int64"),
            F("StateBatches", "[]StateBatch", fields=list(STATE_BATCH))])},
    1: {"key": cf.key_schema("ShareUpdateKey", *SHARE_KEY_FIELDS),
        "4.1": S("ShareUpdateValue", [
            F("SnapshotEpoch", "int32"), F("LeaderEpoch", "int32"), F("StartOffset", "int64"),
            F("DeliveryCompleteCount", "int32", tag=0, tagged="0+", default=-1),
            F("StateBatches", "[]StateBatch", fields=list(STATE_BATCH))]),
        "4.0": S("ShareUpdateValue", [
            F("SnapshotEpoch", "uint16"), F("LeaderEpoch", "int32"), F("StartOffset", "int64"),
            F("StateBatches", "[]StateBatch", fields=list(STATE_BATCH))])},
}
SHARE_TYPE = {0: "share_snapshot", 1: "share_update"}

# ---------------------------------------------------------------------------
# __remote_log_metadata (formats §16)

TOPIC_ID_PARTITION = [F("Name", "string"), F("Id", "uuid"), F("Partition", "int32")]
SEGMENT_ID = [F("TopicIdPartition", "TopicIdPartitionEntry", fields=list(TOPIC_ID_PARTITION)),
              F("Id", "uuid")]
LEADER_EPOCHS = F("SegmentLeaderEpochs", "[]SegmentLeaderEpochEntry",
                  fields=[F("LeaderEpoch", "int32"), F("Offset", "int64")])
REMOTE = {s.api_key: s for s in [
    M(0, "RemoteLogSegmentMetadataRecord", [
        F("RemoteLogSegmentId", "RemoteLogSegmentIdEntry", fields=list(SEGMENT_ID)),
        F("StartOffset", "int64"), F("EndOffset", "int64"), F("BrokerId", "int32"),
        F("MaxTimestampMs", "int64"), F("EventTimestampMs", "int64"), LEADER_EPOCHS,
        F("SegmentSizeInBytes", "int32"), F("CustomMetadata", "bytes", nullable="0+", default=NULL),
        F("RemoteLogSegmentState", "int8"),
        F("TxnIndexEmpty", "bool", tag=0, tagged="0+")]),
    M(1, "RemoteLogSegmentMetadataUpdateRecord", [
        F("RemoteLogSegmentId", "RemoteLogSegmentIdEntry", fields=list(SEGMENT_ID)),
        F("BrokerId", "int32"), F("EventTimestampMs", "int64"),
        F("CustomMetadata", "bytes", nullable="0+", default=NULL),
        F("RemoteLogSegmentState", "int8")]),
    M(2, "RemotePartitionDeleteMetadataRecord", [
        F("TopicIdPartition", "TopicIdPartitionEntry", fields=list(TOPIC_ID_PARTITION)),
        F("BrokerId", "int32"), F("EventTimestampMs", "int64"),
        F("RemotePartitionDeleteState", "int8")]),
    M(3, "RemoteLogSegmentMetadataSnapshotRecord", [
        F("SegmentId", "uuid"), F("StartOffset", "int64"), F("EndOffset", "int64"),
        F("BrokerId", "int32"), F("MaxTimestampMs", "int64"), F("EventTimestampMs", "int64"),
        LEADER_EPOCHS, F("SegmentSizeInBytes", "int32"),
        F("CustomMetadata", "bytes", nullable="0+", default=NULL),
        F("RemoteLogSegmentState", "int8"), F("TxnIndexEmpty", "bool", tag=0, tagged="0+")]),
]}

# ---------------------------------------------------------------------------
# secrets (cli.md `dump`): SCRAM salts and keys, delegation-token ids, values
# of configs whose name ends in "password" or contains "jaas.config" or "secret"


def secret_config_name(name):
    return name.endswith("password") or "jaas.config" in name or "secret" in name


def secret_fields(schema_name, d):
    """Names of the fields of a decoded record that hold secrets."""
    if schema_name == "UserScramCredentialRecord":
        return {"Salt", "StoredKey", "ServerKey"}
    if schema_name in ("DelegationTokenRecord", "RemoveDelegationTokenRecord"):
        return {"TokenId"}
    if schema_name == "ConfigRecord" and secret_config_name(d["Name"]) and d["Value"] is not None:
        return {"Value"}
    return set()


# ---------------------------------------------------------------------------
# envelopes


class UnknownRecord(Exception):
    """A record kfsck must report as unknown_record_type (formats §14.1)."""


def encode_metadata(api_key, version, d, frame_version=DEFAULT_FRAME_VERSION, schemas=None):
    """The value bytes of a metadata (or remote-log-metadata) record."""
    sch = (schemas or METADATA)[api_key]
    return (cf.uvarint(frame_version) + cf.uvarint(api_key) + cf.uvarint(version) +
            cf.encode_message(sch, version, d))


def encode_raw_envelope(frame_version, api_key, version, body):
    """Hand-made envelope around given body bytes (unknown types/versions)."""
    return cf.uvarint(frame_version) + cf.uvarint(api_key) + cf.uvarint(version) + body


def _envelope(buf):
    dec = cf.Dec(buf, True)
    frame = dec.uvarint()
    api_key = dec.uvarint()
    version = dec.uvarint()
    for what, v in (("frame version", frame), ("type", api_key), ("version", version)):
        if v > 0x7FFF:
            raise cf.DecodeError("Value for %s was too large" % what)
    return frame, api_key, version, buf[dec.p:]


def decode_metadata(buf, schemas=None):
    """-> (api_key, version, fields dict). Raises UnknownRecord for a frame
    version other than 1, an unknown api key or a version above the known
    range, cf.DecodeError for malformed bytes (short body, trailing bytes)."""
    schemas = schemas or METADATA
    frame, api_key, version, body = _envelope(buf)
    if frame != DEFAULT_FRAME_VERSION:
        raise UnknownRecord("frame version %d" % frame)
    if api_key not in schemas:
        raise UnknownRecord("unknown api key %d" % api_key)
    sch = schemas[api_key]
    if version not in sch.valid:
        raise UnknownRecord("unknown version %d of %s" % (version, sch.name))
    d, _ = cf.decode_message(sch, version, body)
    return api_key, version, d


def encode_control(ctype, d):
    """(key, value) of a KRaft control record, schema version 0."""
    return struct.pack(">hh", 0, ctype), cf.encode_message(CONTROL[ctype], 0, dict(d, Version=0))


def decode_control(key, value):
    if key is None or len(key) < 4:
        raise cf.DecodeError("control record key shorter than 4 bytes")
    _, ctype = struct.unpack_from(">hh", key, 0)
    if ctype not in CONTROL:
        raise UnknownRecord("unknown control record type %d" % ctype)
    d, _ = cf.decode_message(CONTROL[ctype], 0, value)
    return ctype, d


def encode_share_key(rtype, d):
    return struct.pack(">h", rtype) + cf.encode_message(SHARE[rtype]["key"], 0, d)


def encode_share_value(rtype, d, layout="4.1"):
    return struct.pack(">h", 0) + cf.encode_message(SHARE[rtype][layout], 0, d)


def decode_share(key, value):
    """-> (type, key dict, version, value dict | None, layout)."""
    rtype = struct.unpack_from(">h", key, 0)[0]
    if rtype not in SHARE:
        raise UnknownRecord("unknown share record type %d" % rtype)
    kd, _ = cf.decode_message(SHARE[rtype]["key"], 0, key[2:])
    if value is None:
        return rtype, kd, None, None, None
    version = struct.unpack_from(">h", value, 0)[0]
    if version != 0:
        raise UnknownRecord("unknown value version %d" % version)
    try:
        d, _ = cf.decode_message(SHARE[rtype]["4.1"], 0, value[2:])
        return rtype, kd, version, d, "4.1"
    except cf.DecodeError:
        d, _ = cf.decode_message(SHARE[rtype]["4.0"], 0, value[2:])
        return rtype, kd, version, d, "4.0"


# ---------------------------------------------------------------------------
# rendering as `kfsck dump --decode ... --json` prints a record's fields


def _render_prim(t, v):
    if t == "uuid":
        return cf.uuid_str(v if isinstance(v, (bytes, bytearray)) else cf.uuid_bytes(v))
    if t == "bytes":
        return base64.b64encode(bytes(v)).decode("ascii")
    return v


def render_fields(fields, d, version, secret=()):
    """Fields of `version` in declaration order, Kafka snake_case names,
    uuids as Kafka prints them, bytes as base64 under `<name>_b64`; a tagged
    field is listed only when present in the bytes (our encoder writes a tag
    exactly when it differs from its default); fields named in `secret` are
    printed as "<redacted>"."""
    out = {}
    for f in fields:
        if f.tag is not None:
            if version is not None and (f.tagged is None or version not in f.tagged):
                continue
            v = d.get(f.name, f.default_value())
            if (v is None) if f.default is NULL else (v == f.default_value()):
                continue
        else:
            if version is not None and version not in f.versions:
                continue
            v = d.get(f.name, f.default_value())
        name = kafka_snake(f.name) + ("_b64" if f.type == "bytes" else "")
        if f.name in secret and v is not None:
            out[name] = REDACTED
        elif v is None:
            out[name] = None
        elif f.is_array:
            out[name] = ([render_fields(f.fields, e, version) for e in v] if f.is_struct
                         else [_render_prim(f.elem, e) for e in v])
        elif f.is_struct:
            out[name] = render_fields(f.fields, v, version)
        else:
            out[name] = _render_prim(f.type, v)
    return out


def render_metadata(api_key, version, d, show_secrets=False, schemas=None):
    sch = (schemas or METADATA)[api_key]
    secret = () if show_secrets else secret_fields(sch.name, d)
    return render_fields(sch.fields, cf.fill_defaults(sch.fields, d, version, True), version, secret)


def render_control(ctype, d):
    sch = CONTROL[ctype]
    return render_fields(sch.fields, cf.fill_defaults(sch.fields, d, 0, True), 0)


def render_share_value(rtype, d, layout):
    sch = SHARE[rtype][layout]
    return render_fields(sch.fields, cf.fill_defaults(sch.fields, d, 0, True), 0)


def render_share_key(rtype, d):
    return cf.to_cli(SHARE[rtype]["key"], 0, d)


# ---------------------------------------------------------------------------
# batches

def data_batch(base_offset, values, timestamp, epoch):
    """A KRaft data batch: records with null keys, CreateTime, producer id -1."""
    recs = [Rec(base_offset + i, timestamp, None, v) for i, v in enumerate(values)]
    return v2_batch(base_offset, recs, leader_epoch=epoch)


def keyed_batch(base_offset, kvs, timestamp, epoch):
    """A data batch of (key, value) records (share-group state)."""
    recs = [Rec(base_offset + i, timestamp, k, v) for i, (k, v) in enumerate(kvs)]
    return v2_batch(base_offset, recs, leader_epoch=epoch)


def control_batch(base_offset, kvs, timestamp, epoch):
    """A KRaft control batch holding one or more control records."""
    recs = [Rec(base_offset + i, timestamp, k, v) for i, (k, v) in enumerate(kvs)]
    return v2_batch(base_offset, recs, control=True, leader_epoch=epoch)


# ---------------------------------------------------------------------------
# self test


def _hex(s):
    return bytes.fromhex(s.replace(" ", "").replace("|", ""))


def selftest():
    """Byte examples worked out by hand (formats §14.1-§14.3) and round trips. Raises on failure."""
    assert kafka_snake("IsMigratingZkBroker") == "is_migrating_zk_broker"
    assert kafka_snake("KRaftVersion") == "kraft_version"
    assert kafka_snake("EndPoints") == "end_points"
    assert kafka_snake("LastKnownElr") == "last_known_elr"
    assert record_type_of("ZkMigrationStateRecord") == "zk_migration_state"
    assert record_type_of("RemoteLogSegmentMetadataUpdateRecord") == \
        "remote_log_segment_metadata_update"
    uid = _hex("a5c80182e3804a2ab7ba3913ac6bbf43")
    assert cf.uuid_str(uid) == "pcgBguOASiq3ujkTrGu_Qw"
    # §14.1 TopicRecord
    b = encode_metadata(2, 0, {"Name": "my-topic", "TopicId": uid})
    assert b == _hex("01 02 00 | 09 6d792d746f706963 | a5c80182e3804a2ab7ba3913ac6bbf43 | 00"), b.hex()
    assert decode_metadata(b) == (2, 0, {"Name": "my-topic", "TopicId": uid})
    # §14.2 RegisterBrokerRecord v2
    inc = _hex("ad17addebaf54b91baf887e81e8d84a3")
    reg = {"BrokerId": 1, "IsMigratingZkBroker": False, "IncarnationId": inc, "BrokerEpoch": 2,
           "EndPoints": [{"Name": "PLAINTEXT", "Host": "localhost", "Port": 9092,
                          "SecurityProtocol": 0}],
           "Features": [{"Name": "metadata.version", "MinSupportedVersion": 1,
                         "MaxSupportedVersion": 8}],
           "Rack": None, "Fenced": False, "InControlledShutdown": False}
    b = encode_metadata(0, 2, reg)
    want = _hex("01 00 02 | 00000001 | 00 | ad17addebaf54b91baf887e81e8d84a3 | 0000000000000002 |"
                " 02 0a 504c41494e54455854 0a 6c6f63616c686f7374 2384 0000 00 |"
                " 02 11 6d657461646174612e76657273696f6e 0001 0008 00 | 00 | 00 | 00 | 00")
    assert b == want, b.hex()
    assert decode_metadata(b)[2] == reg
    # §14.2 PartitionRecord v0
    b = encode_metadata(3, 0, {"PartitionId": 0, "TopicId": uid, "Replicas": [1], "Isr": [1],
                               "RemovingReplicas": [], "AddingReplicas": [], "Leader": 1,
                               "LeaderEpoch": 0, "PartitionEpoch": 0})
    assert b == _hex("01 03 00 | 00000000") + uid + _hex(
        "02 00000001 | 02 00000001 | 01 | 01 | 00000001 | 00000000 | 00000000 | 00"), b.hex()
    # §14.2 ConfigRecord
    b = encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "__consumer_offsets",
                               "Name": "compression.type", "Value": "producer"})
    assert b == _hex("01 04 00 | 02 | 13") + b"__consumer_offsets" + b"\x11compression.type" + \
        b"\x09producer\x00", b.hex()
    # §14.2 PartitionChangeRecord v0, leader -> none
    b = encode_metadata(5, 0, {"PartitionId": 0, "TopicId": uid, "Leader": -1})
    assert b == _hex("01 05 00 | 00000000") + uid + _hex("01 | 01 04 ffffffff"), b.hex()
    assert decode_metadata(b)[2]["Isr"] is None and decode_metadata(b)[2]["Leader"] == -1
    # §14.2 BrokerRegistrationChangeRecord v0 unfence, v1 controlled shutdown
    b = encode_metadata(17, 0, {"BrokerId": 1, "BrokerEpoch": 3, "Fenced": -1})
    assert b == _hex("01 11 00 | 00000001 | 0000000000000003 | 01 | 00 01 ff"), b.hex()
    b = encode_metadata(17, 1, {"BrokerId": 1, "BrokerEpoch": 3, "InControlledShutdown": 1})
    assert b == _hex("01 11 01 | 00000001 | 0000000000000003 | 01 | 01 01 01"), b.hex()
    # §14.3 LeaderChangeMessage, SnapshotHeaderRecord, SnapshotFooterRecord
    k, v = encode_control(LEADER_CHANGE, {"LeaderId": 1, "Voters": [{"VoterId": 1}],
                                          "GrantingVoters": [{"VoterId": 1}]})
    assert k == _hex("0000 0002") and v == _hex("0000 | 00000001 | 02 00000001 00 | 02 00000001 00 | 00")
    k, v = encode_control(SNAPSHOT_HEADER, {"LastContainedLogTimestamp": 1761257529836})
    assert v == _hex("0000 | 0000019a132121ec | 00"), v.hex()
    assert encode_control(SNAPSHOT_FOOTER, {})[1] == _hex("0000 00")
    assert decode_control(k, v) == (3, {"Version": 0, "LastContainedLogTimestamp": 1761257529836})
    # §14.4 bootstrap FeatureLevel MV 14
    assert encode_metadata(12, 0, {"Name": "metadata.version", "FeatureLevel": 14}) == \
        _hex("01 0c 00 11") + b"metadata.version" + _hex("000e 00")
    # unknown things
    for bad in (encode_raw_envelope(0, 2, 0, b"\x01" + bytes(16) + b"\x00"),
                encode_raw_envelope(2, 2, 0, b"\x01" + bytes(16) + b"\x00"),
                encode_raw_envelope(1, 99, 0, b"\x00"),
                encode_raw_envelope(1, 3, 7, b"\x00")):
        try:
            decode_metadata(bad)
        except UnknownRecord:
            pass
        else:
            raise AssertionError("accepted %s" % bad.hex())
    try:
        decode_metadata(encode_metadata(2, 0, {"Name": "x", "TopicId": uid}) + b"\x00")
    except cf.DecodeError:
        pass
    else:
        raise AssertionError("trailing byte accepted")
    # round trips: every schema, every version, values different from defaults
    groups = [(METADATA, True), (REMOTE, True), ({k: s for k, s in CONTROL.items()}, False)]
    for table, envelope in groups:
        for key, sch in table.items():
            for v in range(sch.valid.lo, sch.valid.hi + 1):
                d = cf._sample(sch.fields, v, True, key + 1)
                if envelope:
                    b = encode_metadata(key, v, d, schemas=table)
                    got = decode_metadata(b, schemas=table)
                    assert got[:2] == (key, v) and \
                        got[2] == cf.fill_defaults(sch.fields, d, v, True), (sch.name, v)
                else:
                    got, _ = cf.decode_message(sch, v, cf.encode_message(sch, v, d))
                    assert got == cf.fill_defaults(sch.fields, d, v, True), (sch.name, v)
    for rtype, s in SHARE.items():
        for layout in ("4.1", "4.0"):
            d = cf._sample(s[layout].fields, 0, True, rtype + 7)
            if layout == "4.0":
                d["SnapshotEpoch"] = 65000          # uint16 range
            kd = {"GroupId": "g", "TopicId": uid, "Partition": 3}
            got = decode_share(encode_share_key(rtype, kd), encode_share_value(rtype, d, layout))
            assert got[0] == rtype and got[1] == kd and got[4] == layout, (rtype, layout, got)
            assert got[3] == cf.fill_defaults(s[layout].fields, d, 0, True)
    # secrets are redacted, unless asked for
    scram = {"Name": "u", "Mechanism": 1, "Salt": b"s", "StoredKey": b"k", "ServerKey": b"v",
             "Iterations": 4096}
    r = render_metadata(11, 0, scram)
    assert r["salt_b64"] == r["stored_key_b64"] == r["server_key_b64"] == REDACTED, r
    assert r["iterations"] == 4096
    assert render_metadata(11, 0, scram, show_secrets=True)["salt_b64"] == "cw=="
    for name, secret in (("ssl.keystore.password", True), ("sasl.jaas.config", True),
                         ("delegation.token.secret.key", True), ("retention.ms", False),
                         ("password.encoder.cipher.algorithm", False)):
        r = render_metadata(4, 0, {"ResourceType": 4, "ResourceName": "1", "Name": name,
                                   "Value": "v"})
        assert (r["value"] == REDACTED) == secret, (name, r)
    return True


if __name__ == "__main__":
    selftest()
    print("kraftfmt selftest ok")
