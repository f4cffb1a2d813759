"""coordfmt: encoder and decoder of Kafka's generated-message format for coordinator records.

Used by tools/gen/gen_offsets.py to build the `__consumer_offsets`,
`__transaction_state` and consumer-protocol bytes of the offsets fixtures,
and to compute independently what a decoder must print for them.

The schema table below is this file's own description of the records, written
in Python from Kafka's JSON schemas (group-coordinator/, transaction-coordinator/
and clients/ src/main/resources/common/message/*.json, read as reference) and
the rules of docs/formats.md §11-§12. It does not use, and is
not generated from, the project's C schema table. Layouts are those of the
top-level snapshot (2024-12 trunk); from later trunk only
the backward-compatible tagged additions are taken (ConsumerGroupMetadataValue
MetadataHash/CreationTimeMs, ConsumerGroupTargetAssignmentMetadataValue
AssignmentTimestamp, TopicPartitions.AssignmentEpochs of type 8), plus the
OffsetCommitValue v4 tagged topicId and record type 24 (formats §11.2).
Share and streams records use the snapshot layouts (formats §11.2: best effort).

Encoding (formats §1.2, §11.1), all integers big-endian:
  * classic (non-flexible) versions: string = int16 length (-1 null), bytes
    and arrays = int32 length/count (-1 null), nullable struct = int8 -1/1;
  * flexible versions: compact string/bytes/array = uvarint(len+1) (0 null),
    and every struct (top level, array element, nested) ends with a tagged
    section: uvarint count, then (uvarint tag, uvarint size, payload) in
    ascending tag order. A tagged field is written only when its value differs
    from its default (default null: whenever non-null); a nullable field with
    a non-null default that holds null is written as payload 0x00; a tagged
    nullable struct is uvarint(1) + struct (MessageDataGenerator).
  * keys: int16 record type + key struct, always classic, version 0;
    values: int16 version + value struct at that version.

API:
  encode_key(type, fields_dict) / encode_value(type, version, fields_dict)
  decode_key(bytes) / decode_value(type, bytes) -> (version, dict, info)
  encode_message(schema, version, d) / decode_message(schema, version, b)
  to_cli(schema, version, d): snake_case names, uuids as 22-char base64url,
      bytes fields as base64 under "<name>_b64" (cli.md's naming of binary
      fields: key_b64, subscription_b64, user_data_b64), only the fields the
      version has; tagged fields that hold their default (absent from the
      bytes) are left out, as Kafka's JsonConverter does.
Dicts use Kafka's schema field names (camel/Pascal case as in the JSON); a
dict may carry "_unknown_tags": [(tag, raw payload bytes)] to emit tags the
schema does not know (decoders must skip them by size).

`selftest()` checks byte examples of offset commits (formats §11.3) and round-trips every schema.
"""

import base64
import re
import struct

# ---------------------------------------------------------------------------
# schema description


class VR:
    """A version range: "0+", "3+", "1", "0-4", "none"."""

    def __init__(self, s):
        self.s = s
        if s == "none":
            self.lo, self.hi = 1, 0
        elif s.endswith("+"):
            self.lo, self.hi = int(s[:-1]), 0x7FFF
        elif "-" in s:
            a, b = s.split("-")
            self.lo, self.hi = int(a), int(b)
        else:
            self.lo = self.hi = int(s)

    def __contains__(self, v):
        return self.lo <= v <= self.hi


NULL = object()   # marks a "null" default


class F:
    """One field. type: int8 int16 uint16 int32 int64 bool uuid float64
    string bytes, "[]T" for arrays of those, or a struct name / "[]Name"
    together with `fields`."""

    def __init__(self, name, type, versions="0+", nullable="none", tag=None, tagged=None,
                 default=None, fields=None):
        self.name = name
        self.type = type
        self.versions = VR(versions)
        self.nullable = VR(nullable)
        self.tag = tag
        self.tagged = VR(tagged) if tagged else None
        self.fields = fields
        self.is_array = type.startswith("[]")
        self.elem = type[2:] if self.is_array else type
        self.is_struct = fields is not None
        self.default = default   # None: the type's zero; NULL: null

    def default_value(self):
        if self.default is NULL:
            return None
        if self.default is not None:
            return self.default
        if self.is_array:
            return []
        if self.is_struct:
            return {f.name: f.default_value() for f in self.fields}
        t = self.type
        if t in ("int8", "int16", "uint16", "int32", "int64"):
            return 0
        if t == "float64":
            return 0.0
        if t == "bool":
            return False
        if t == "uuid":
            return bytes(16)
        if t == "string":
            return ""
        if t == "bytes":
            return b""
        raise ValueError(t)


class Schema:
    def __init__(self, name, valid, flexible, fields, api_key=None):
        self.name = name
        self.valid = VR(valid)
        self.flexible = VR(flexible)
        self.fields = fields
        self.api_key = api_key


def S(name, fields, valid="0", flexible="0+", api_key=None):
    return Schema(name, valid, flexible, fields, api_key)


def key_schema(name, *fields):
    return S(name, [F(n, t, versions="0") for n, t in fields], valid="0", flexible="none")


G = ("GroupId", "string")
M = ("MemberId", "string")

TOPIC_PARTITIONS = [F("TopicId", "uuid"), F("Partitions", "[]int32")]
PARTITION_METADATA_TOPICS = F("Topics", "[]TopicMetadata", fields=[
    F("TopicId", "uuid"), F("TopicName", "string"), F("NumPartitions", "int32"),
    F("PartitionMetadata", "[]PartitionMetadata", fields=[
        F("Partition", "int32"), F("Racks", "[]string")])])
TASK_IDS = [F("SubtopologyId", "string"), F("Partitions", "[]int32")]
KEY_VALUE = [F("Key", "string"), F("Value", "string")]
TOPIC_INFO = [F("Name", "string"), F("Partitions", "int32"), F("ReplicationFactor", "int16"),
              F("TopicConfigs", "[]TopicConfig", fields=[F("key", "string"), F("value", "string")])]

OFFSET_COMMIT_KEY = key_schema("OffsetCommitKey", ("group", "string"), ("topic", "string"),
                               ("partition", "int32"))

# record type -> (key schema, value schema)
RECORDS = {
    0: (key_schema("LegacyOffsetCommitKey", ("group", "string"), ("topic", "string"),
                   ("partition", "int32")),
        S("LegacyOffsetCommitValue", [
            F("offset", "int64", versions="0"), F("metadata", "string", versions="0"),
            F("commitTimestamp", "int64", versions="0")], valid="0", flexible="none")),
    1: (OFFSET_COMMIT_KEY,
        S("OffsetCommitValue", [
            F("offset", "int64"),
            F("leaderEpoch", "int32", versions="3+", default=-1),
            F("metadata", "string"),
            F("commitTimestamp", "int64"),
            F("expireTimestamp", "int64", versions="1", default=-1),
            # KAFKA-19141 (4.1): tagged topic id (formats §11.3)
            F("topicId", "uuid", versions="4+", tag=0, tagged="4+"),
        ], valid="0-4", flexible="4+")),
    2: (key_schema("GroupMetadataKey", ("group", "string")),
        S("GroupMetadataValue", [
            F("protocolType", "string"),
            F("generation", "int32"),
            F("protocol", "string", nullable="0+"),
            F("leader", "string", nullable="0+"),
            F("currentStateTimestamp", "int64", versions="2+", default=-1),
            F("members", "[]MemberMetadata", fields=[
                F("memberId", "string"),
                F("groupInstanceId", "string", versions="3+", nullable="3+", default=NULL),
                F("clientId", "string"),
                F("clientHost", "string"),
                F("rebalanceTimeout", "int32", versions="1+", default=-1),
                F("sessionTimeout", "int32"),
                F("subscription", "bytes"),
                F("assignment", "bytes")]),
        ], valid="0-4", flexible="4+")),
    3: (key_schema("ConsumerGroupMetadataKey", G),
        S("ConsumerGroupMetadataValue", [
            F("Epoch", "int32"),
            F("MetadataHash", "int64", tag=0, tagged="0+", default=0),
            F("CreationTimeMs", "int64", tag=1, tagged="0+", default=-1)])),
    4: (key_schema("ConsumerGroupPartitionMetadataKey", G),
        S("ConsumerGroupPartitionMetadataValue", [PARTITION_METADATA_TOPICS])),
    5: (key_schema("ConsumerGroupMemberMetadataKey", G, M),
        S("ConsumerGroupMemberMetadataValue", [
            F("InstanceId", "string", nullable="0+"),
            F("RackId", "string", nullable="0+"),
            F("ClientId", "string"),
            F("ClientHost", "string"),
            F("SubscribedTopicNames", "[]string"),
            F("SubscribedTopicRegex", "string", nullable="0+"),
            F("RebalanceTimeoutMs", "int32", default=-1),
            F("ServerAssignor", "string", nullable="0+"),
            F("ClassicMemberMetadata", "ClassicMemberMetadata", nullable="0+", default=NULL,
              tag=0, tagged="0+", fields=[
                  F("SessionTimeoutMs", "int32"),
                  F("SupportedProtocols", "[]ClassicProtocol", fields=[
                      F("Name", "string"), F("Metadata", "bytes")])])])),
    6: (key_schema("ConsumerGroupTargetAssignmentMetadataKey", G),
        S("ConsumerGroupTargetAssignmentMetadataValue", [
            F("AssignmentEpoch", "int32"),
            F("AssignmentTimestamp", "int64", tag=0, tagged="0+", default=0)])),
    7: (key_schema("ConsumerGroupTargetAssignmentMemberKey", G, M),
        S("ConsumerGroupTargetAssignmentMemberValue", [
            F("TopicPartitions", "[]TopicPartition", fields=list(TOPIC_PARTITIONS))])),
    8: (key_schema("ConsumerGroupCurrentMemberAssignmentKey", G, M),
        S("ConsumerGroupCurrentMemberAssignmentValue", [
            F("MemberEpoch", "int32"), F("PreviousMemberEpoch", "int32"), F("State", "int8"),
            F("AssignedPartitions", "[]TopicPartitions", fields=TOPIC_PARTITIONS + [
                F("AssignmentEpochs", "[]int32", nullable="0+", default=NULL, tag=0, tagged="0+")]),
            F("PartitionsPendingRevocation", "[]TopicPartitions", fields=TOPIC_PARTITIONS + [
                F("AssignmentEpochs", "[]int32", nullable="0+", default=NULL, tag=0, tagged="0+")])])),
    9: (key_schema("ShareGroupPartitionMetadataKey", G),
        S("ShareGroupPartitionMetadataValue", [PARTITION_METADATA_TOPICS])),
    10: (key_schema("ShareGroupMemberMetadataKey", G, M),
         S("ShareGroupMemberMetadataValue", [
             F("RackId", "string", nullable="0+"), F("ClientId", "string"),
             F("ClientHost", "string"), F("SubscribedTopicNames", "[]string")])),
    11: (key_schema("ShareGroupMetadataKey", G),
         S("ShareGroupMetadataValue", [F("Epoch", "int32")])),
    12: (key_schema("ShareGroupTargetAssignmentMetadataKey", G),
         S("ShareGroupTargetAssignmentMetadataValue", [F("AssignmentEpoch", "int32")])),
    13: (key_schema("ShareGroupTargetAssignmentMemberKey", G, M),
         S("ShareGroupTargetAssignmentMemberValue", [
             F("TopicPartitions", "[]TopicPartition", fields=list(TOPIC_PARTITIONS))])),
    14: (key_schema("ShareGroupCurrentMemberAssignmentKey", G, M),
         S("ShareGroupCurrentMemberAssignmentValue", [
             F("MemberEpoch", "int32"), F("PreviousMemberEpoch", "int32"), F("State", "int8"),
             F("AssignedPartitions", "[]TopicPartitions", fields=list(TOPIC_PARTITIONS))])),
    15: (key_schema("ShareGroupStatePartitionMetadataKey", G),
         S("ShareGroupStatePartitionMetadataValue", [
             F("InitializedTopics", "[]TopicPartitionsInfo", fields=[
                 F("TopicId", "uuid"), F("TopicName", "string"), F("Partitions", "[]int32")]),
             F("DeletingTopics", "[]TopicInfo", fields=[
                 F("TopicId", "uuid"), F("TopicName", "string")])])),
    16: (key_schema("ConsumerGroupRegularExpressionKey", G, ("RegularExpression", "string")),
         S("ConsumerGroupRegularExpressionValue", [
             F("Topics", "[]string"), F("Version", "int64"), F("Timestamp", "int64")])),
    17: (key_schema("StreamsGroupMetadataKey", G),
         S("StreamsGroupMetadataValue", [F("Epoch", "int32")])),
    18: (key_schema("StreamsGroupPartitionMetadataKey", G),
         S("StreamsGroupPartitionMetadataValue", [PARTITION_METADATA_TOPICS])),
    19: (key_schema("StreamsGroupMemberMetadataKey", G, M),
         S("StreamsGroupMemberMetadataValue", [
             F("InstanceId", "string", nullable="0+"),
             F("RackId", "string", nullable="0+"),
             F("ClientId", "string"),
             F("ClientHost", "string"),
             F("RebalanceTimeoutMs", "int32", default=-1),
             F("TopologyEpoch", "int32"),
             F("ProcessId", "string"),
             F("UserEndpoint", "Endpoint", nullable="0+", default=NULL, fields=[
                 F("Host", "string"), F("Port", "uint16")]),
             F("ClientTags", "[]KeyValue", fields=list(KEY_VALUE))])),
    20: (key_schema("StreamsGroupTargetAssignmentMetadataKey", G),
         S("StreamsGroupTargetAssignmentMetadataValue", [F("AssignmentEpoch", "int32")])),
    21: (key_schema("StreamsGroupTargetAssignmentMemberKey", G, M),
         S("StreamsGroupTargetAssignmentMemberValue", [
             F(n, "[]TaskIds", fields=list(TASK_IDS))
             for n in ("ActiveTasks", "StandbyTasks", "WarmupTasks")])),
    22: (key_schema("StreamsGroupCurrentMemberAssignmentKey", G, M),
         S("StreamsGroupCurrentMemberAssignmentValue", [
             F("MemberEpoch", "int32"), F("PreviousMemberEpoch", "int32"), F("State", "int8")] + [
             F(n, "[]TaskIds", fields=list(TASK_IDS))
             for n in ("ActiveTasks", "StandbyTasks", "WarmupTasks",
                       "ActiveTasksPendingRevocation", "StandbyTasksPendingRevocation",
                       "WarmupTasksPendingRevocation")])),
    23: (key_schema("StreamsGroupTopologyKey", G),
         S("StreamsGroupTopologyValue", [
             F("Epoch", "int32"),
             F("Subtopologies", "[]Subtopology", fields=[
                 F("SubtopologyId", "string"),
                 F("SourceTopics", "[]string"),
                 F("SourceTopicRegex", "[]string"),
                 F("StateChangelogTopics", "[]TopicInfo", fields=list(TOPIC_INFO)),
                 F("RepartitionSinkTopics", "[]string"),
                 F("RepartitionSourceTopics", "[]TopicInfo", fields=list(TOPIC_INFO)),
                 F("CopartitionGroups", "[]CopartitionGroup", fields=[
                     F("SourceTopics", "[]int16"), F("SourceTopicRegex", "[]int16"),
                     F("RepartitionSourceTopics", "[]int16")])])])),
    24: (key_schema("StreamsGroupTargetAssignmentResolvedTopicIdsKey", G),
         S("StreamsGroupTargetAssignmentResolvedTopicIdsValue", [
             F("AssignmentEpoch", "int32"),
             F("ResolvedTopicIdsBySubtopology", "[]ResolvedTopicIds", fields=[
                 F("SubtopologyId", "string"), F("TopicIds", "[]uuid")])])),
}

# __transaction_state (one record type, 0)
TXN_KEY = key_schema("TransactionLogKey", ("TransactionalId", "string"))
TXN_VALUE = S("TransactionLogValue", [
    F("ProducerId", "int64"),
    F("PreviousProducerId", "int64", versions="1+", tag=0, tagged="1+", default=-1),
    F("NextProducerId", "int64", versions="1+", tag=1, tagged="1+", default=-1),
    F("ProducerEpoch", "int16"),
    F("TransactionTimeoutMs", "int32"),
    F("TransactionStatus", "int8"),
    F("TransactionPartitions", "[]PartitionsSchema", nullable="0+", fields=[
        F("Topic", "string"), F("PartitionIds", "[]int32")]),
    F("TransactionLastUpdateTimestampMs", "int64"),
    F("TransactionStartTimestampMs", "int64"),
    F("ClientTransactionVersion", "int16", versions="1+", tag=2, tagged="1+", default=0),
], valid="0-1", flexible="1+")

# Consumer protocol (clients/.../ConsumerProtocol*.json): int16 version + classic struct
TOPIC_PARTITION_NAMES = [F("Topic", "string"), F("Partitions", "[]int32")]
SUBSCRIPTION = S("ConsumerProtocolSubscription", [
    F("Topics", "[]string"),
    F("UserData", "bytes", nullable="0+", default=NULL),
    F("OwnedPartitions", "[]TopicPartition", versions="1+",
      fields=[F("Topic", "string", versions="1+"), F("Partitions", "[]int32", versions="1+")]),
    F("GenerationId", "int32", versions="2+", default=-1),
    F("RackId", "string", versions="3+", nullable="3+", default=NULL),
], valid="0-3", flexible="none")
ASSIGNMENT = S("ConsumerProtocolAssignment", [
    F("AssignedPartitions", "[]TopicPartition", fields=list(TOPIC_PARTITION_NAMES)),
    F("UserData", "bytes", nullable="0+", default=NULL),
], valid="0-3", flexible="none")


def record_type_name(rtype):
    """cli.md's record_type: snake_case key schema name without Key; type 0
    is reported as offset_commit (same slot as type 1)."""
    if rtype == 0:
        return "offset_commit"
    if rtype not in RECORDS:
        return None
    return snake(RECORDS[rtype][0].name[:-len("Key")])


# ---------------------------------------------------------------------------
# primitives

def snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def uvarint(n):
    assert n >= 0
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


FIXED = {"int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i", "int64": ">q",
         "float64": ">d"}


def uuid_str(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def uuid_bytes(s):
    raw = base64.urlsafe_b64decode(s + "==")
    assert len(raw) == 16
    return raw


# ---------------------------------------------------------------------------
# encoder

class Enc:
    def __init__(self, flexible):
        self.flex = flexible

    def prim(self, t, v):
        if t in FIXED:
            return struct.pack(FIXED[t], v)
        if t == "bool":
            return b"\x01" if v else b"\x00"
        if t == "uuid":
            if isinstance(v, str):
                v = uuid_bytes(v)
            assert len(v) == 16
            return bytes(v)
        if t == "string":
            if v is None:
                return b"\x00" if self.flex else struct.pack(">h", -1)
            b = v.encode("utf-8")
            return (uvarint(len(b) + 1) if self.flex else struct.pack(">h", len(b))) + b
        if t == "bytes":
            if v is None:
                return b"\x00" if self.flex else struct.pack(">i", -1)
            return (uvarint(len(v) + 1) if self.flex else struct.pack(">i", len(v))) + bytes(v)
        raise ValueError(t)

    def value(self, f, v, version):
        """A field's bytes in the positional layout (or as a tag payload,
        except for the nullable-struct presence byte handled by the caller)."""
        if f.is_array:
            if v is None:
                assert version in f.nullable, f.name
                return b"\x00" if self.flex else struct.pack(">i", -1)
            out = [uvarint(len(v) + 1) if self.flex else struct.pack(">i", len(v))]
            for e in v:
                out.append(self.struct(f.fields, e, version) if f.is_struct else self.prim(f.elem, e))
            return b"".join(out)
        if f.is_struct:
            return self.struct(f.fields, v, version)
        if v is None:
            assert version in f.nullable, f.name
        return self.prim(f.type, v)

    def struct(self, fields, d, version):
        out = []
        tagged = []
        for f in fields:
            v = d.get(f.name, f.default_value()) if d is not None else f.default_value()
            if f.tag is not None:
                if self.flex and version in f.tagged:
                    tagged.append((f, v))
                else:
                    assert d is None or f.name not in d or v == f.default_value(), \
                        "%s not in version %d" % (f.name, version)
                continue
            if version not in f.versions:
                assert d is None or f.name not in d or d[f.name] == f.default_value(), \
                    "%s is not in version %d" % (f.name, version)
                continue
            if f.is_struct and not f.is_array and version in f.nullable:
                if v is None:
                    out.append(b"\xff")
                    continue
                out.append(b"\x01")
            out.append(self.value(f, v, version))
        if self.flex:
            entries = []
            for f, v in tagged:
                dv = f.default_value()
                if f.default is NULL:
                    if v is None:
                        continue
                elif v == dv:
                    continue
                if v is None:
                    payload = b"\x00"
                elif f.is_struct and not f.is_array:
                    payload = (b"\x01" if version in f.nullable else b"") + self.value(f, v, version)
                else:
                    payload = self.value(f, v, version)
                entries.append((f.tag, payload))
            for tag, payload in (d or {}).get("_unknown_tags", []):
                entries.append((tag, bytes(payload)))
            entries.sort(key=lambda e: e[0])
            assert len({t for t, _ in entries}) == len(entries), "duplicate tag"
            out.append(uvarint(len(entries)))
            for tag, payload in entries:
                out.append(uvarint(tag) + uvarint(len(payload)) + payload)
        return b"".join(out)


def encode_message(schema, version, d):
    assert version in schema.valid, (schema.name, version)
    return Enc(version in schema.flexible).struct(schema.fields, d, version)


def encode_key(rtype, d, txn=False):
    ks = TXN_KEY if txn else RECORDS[rtype][0]
    return struct.pack(">h", rtype) + encode_message(ks, 0, d)


def encode_value(rtype, version, d, txn=False):
    vs = TXN_VALUE if txn else RECORDS[rtype][1]
    return struct.pack(">h", version) + encode_message(vs, version, d)


def encode_subscription(version, d):
    return struct.pack(">h", version) + encode_message(SUBSCRIPTION, version, d)


def encode_assignment(version, d):
    return struct.pack(">h", version) + encode_message(ASSIGNMENT, version, d)


# ---------------------------------------------------------------------------
# decoder (independent of the encoder above: reads bytes back)

class DecodeError(Exception):
    pass


class Dec:
    def __init__(self, buf, flexible):
        self.b = bytes(buf)
        self.p = 0
        self.flex = flexible

    def take(self, n):
        if n < 0 or self.p + n > len(self.b):
            raise DecodeError("short read at %d (+%d of %d)" % (self.p, n, len(self.b)))
        r = self.b[self.p:self.p + n]
        self.p += n
        return r

    def uvarint(self):
        shift = n = 0
        while True:
            c = self.take(1)[0]
            n |= (c & 0x7F) << shift
            if not c & 0x80:
                return n
            shift += 7
            if shift > 28:
                raise DecodeError("uvarint too long")

    def fixed(self, t):
        fmt = FIXED[t]
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def length(self, wide):
        if self.flex:
            n = self.uvarint()
            return n - 1
        return self.fixed("int32" if wide else "int16")

    def prim(self, t, nullable):
        if t in FIXED:
            return self.fixed(t)
        if t == "bool":
            return self.take(1) != b"\x00"
        if t == "uuid":
            return self.take(16)
        if t in ("string", "bytes"):
            n = self.length(t == "bytes")
            if n < 0:
                if n != -1 or not nullable:
                    raise DecodeError("null/negative length %d for non-nullable %s" % (n, t))
                return None
            raw = self.take(n)
            return raw.decode("utf-8") if t == "string" else raw
        raise ValueError(t)

    def value(self, f, version):
        nullable = version in f.nullable
        if f.is_array:
            n = self.length(True)
            if n < 0:
                if n != -1 or not nullable:
                    raise DecodeError("bad array count %d for %s" % (n, f.name))
                return None
            if f.is_struct:
                return [self.struct(f.fields, version)[0] for _ in range(n)]
            return [self.prim(f.elem, False) for _ in range(n)]
        if f.is_struct:
            return self.struct(f.fields, version)[0]
        return self.prim(f.type, nullable)

    def struct(self, fields, version):
        d = {}
        info = {"tags_present": [], "unknown_tags": []}
        bytag = {}
        for f in fields:
            if f.tag is not None:
                if self.flex and version in f.tagged:
                    bytag[f.tag] = f
                    d[f.name] = f.default_value()
                continue
            if version not in f.versions:
                continue
            if f.is_struct and not f.is_array and version in f.nullable:
                m = self.fixed("int8")
                if m < 0:
                    d[f.name] = None
                    continue
            d[f.name] = self.value(f, version)
        if self.flex:
            n = self.uvarint()
            last = -1
            for _ in range(n):
                tag = self.uvarint()
                size = self.uvarint()
                if tag <= last:
                    raise DecodeError("tags not ascending")
                last = tag
                payload = self.take(size)
                f = bytag.get(tag)
                if f is None:
                    info["unknown_tags"].append((tag, payload))
                    continue
                sub = Dec(payload, True)
                if f.is_struct and not f.is_array:
                    present = sub.uvarint() if version in f.nullable else 1
                    v = sub.value(f, version) if present else None
                else:
                    v = sub.value(f, version)
                if sub.p != len(payload):
                    raise DecodeError("tag %d payload has %d extra bytes" % (tag, len(payload) - sub.p))
                d[f.name] = v
                info["tags_present"].append(f.name)
        return d, info


def decode_message(schema, version, buf, allow_trailing=False):
    if version not in schema.valid:
        raise DecodeError("unknown version %d of %s" % (version, schema.name))
    dec = Dec(buf, version in schema.flexible)
    d, info = dec.struct(schema.fields, version)
    if dec.p != len(dec.b) and not allow_trailing:
        raise DecodeError("%d trailing bytes" % (len(dec.b) - dec.p))
    return d, info


def decode_key(buf, txn=False):
    """-> (type, key dict) or raises DecodeError (unknown type included)."""
    if len(buf) < 2:
        raise DecodeError("key shorter than 2 bytes")
    rtype = struct.unpack_from(">h", buf, 0)[0]
    if txn:
        if rtype != 0:
            raise DecodeError("unknown transaction log key type %d" % rtype)
        ks = TXN_KEY
    else:
        if rtype not in RECORDS:
            raise DecodeError("unknown record type %d" % rtype)
        ks = RECORDS[rtype][0]
    return rtype, decode_message(ks, 0, buf[2:])[0]


def decode_value(rtype, buf, txn=False):
    """-> (version, value dict, info) or raises DecodeError."""
    if len(buf) < 2:
        raise DecodeError("value shorter than 2 bytes")
    version = struct.unpack_from(">h", buf, 0)[0]
    vs = TXN_VALUE if txn else RECORDS[rtype][1]
    d, info = decode_message(vs, version, buf[2:])
    return version, d, info


def decode_subscription(buf):
    """Consumer protocol: versions above 3 are read as 3 (trailing bytes allowed)."""
    version = struct.unpack_from(">h", buf, 0)[0]
    d, _ = decode_message(SUBSCRIPTION, min(version, 3), buf[2:], allow_trailing=version > 3)
    return version, d


def decode_assignment(buf):
    version = struct.unpack_from(">h", buf, 0)[0]
    d, _ = decode_message(ASSIGNMENT, min(version, 3), buf[2:], allow_trailing=version > 3)
    return version, d


# ---------------------------------------------------------------------------
# rendering as the CLI prints decoded records

def _render(f, v):
    if v is None:
        return None
    if f.is_array:
        if f.is_struct:
            return [to_cli_fields(f.fields, e, None) for e in v]
        return [_render_prim(f.elem, e) for e in v]
    if f.is_struct:
        return to_cli_fields(f.fields, v, None)
    return _render_prim(f.type, v)


def _render_prim(t, v):
    if t == "uuid":
        return uuid_str(v if isinstance(v, (bytes, bytearray)) else uuid_bytes(v))
    if t == "bytes":
        return base64.b64encode(v).decode()
    return v


def to_cli_fields(fields, d, version):
    """Fields present in `version` (None: nested struct, version checked by
    the caller's data) in schema declaration order, snake_case names. A
    tagged field holding its default is left out, as Kafka's generated
    JsonConverter (used by its console formatters) does."""
    out = {}
    for f in fields:
        if version is not None:
            vr = f.tagged if f.tag is not None else f.versions
            if vr is None or version not in vr:
                continue
        if f.name not in d:
            continue
        v = d[f.name]
        if f.tag is not None:
            dv = f.default_value()
            if v is None if f.default is NULL else v == dv:
                continue
        name = snake(f.name) + ("_b64" if f.type == "bytes" else "")
        out[name] = _render(f, v)
    return out


def fill_defaults(fields, d, version, flexible):
    """The dict a decoder would produce for data `d` given to the encoder:
    every field of `version` present (tagged ones default when not given)."""
    out = {}
    for f in fields:
        if f.tag is not None:
            if not (flexible and version in f.tagged):
                continue
        elif version not in f.versions:
            continue
        v = d.get(f.name, f.default_value())
        if v is not None and f.is_struct:
            if f.is_array:
                v = [fill_defaults(f.fields, e, version, flexible) for e in v]
            else:
                v = fill_defaults(f.fields, v, version, flexible)
        elif v is not None and f.type == "uuid" and isinstance(v, str):
            v = uuid_bytes(v)
        elif v is not None and f.type == "bytes":
            v = bytes(v)
        out[f.name] = v
    return out


def to_cli(schema, version, d):
    return to_cli_fields(schema.fields, d, version)


# ---------------------------------------------------------------------------
# self test

def _hex(s):
    return bytes.fromhex(s.replace(" ", ""))


def selftest():
    """Spec §4 examples byte for byte, plus round trips. Raises on failure."""
    key = encode_key(1, {"group": "my-group", "topic": "orders", "partition": 0})
    assert key == _hex("0001 0008 6d792d67726f7570 0006 6f7264657273 00000000"), key.hex()
    v3 = encode_value(1, 3, {"offset": 42, "leaderEpoch": 5, "metadata": "",
                             "commitTimestamp": 1700000000000})
    assert v3 == _hex("0003 000000000000002a 00000005 0000 0000018bcfe56800"), v3.hex()
    v1 = encode_value(1, 1, {"offset": 42, "metadata": "", "commitTimestamp": 1700000000000,
                             "expireTimestamp": 1700604800000})
    assert v1 == _hex("0001 000000000000002a 0000 0000018bcfe56800 0000018bf3f1ec00"), v1.hex()
    v4 = encode_value(1, 4, {"offset": 2217128, "leaderEpoch": -1, "metadata": "",
                             "commitTimestamp": 1758335260726})
    assert v4 == _hex("0004 000000000021d4a8 ffffffff 01 0000019964f2d836 00"), v4.hex()
    # decode a 4.1 broker's value, by hand-made bytes
    ver, d, info = decode_value(1, _hex("0004 000000000021d4a8 ffffffff 01 0000019964f2d836 00"))
    assert ver == 4 and d == {"offset": 2217128, "leaderEpoch": -1, "metadata": "",
                              "commitTimestamp": 1758335260726, "topicId": bytes(16)}, d
    assert info["tags_present"] == []
    assert decode_key(key) == (1, {"group": "my-group", "topic": "orders", "partition": 0})
    # v4 with a topic id: one tag (0), size 16
    tid = bytes(range(1, 17))
    v4t = encode_value(1, 4, {"offset": 1, "leaderEpoch": 2, "metadata": "m",
                              "commitTimestamp": 3, "topicId": tid})
    assert v4t.endswith(b"\x01\x00\x10" + tid), v4t.hex()
    assert decode_value(1, v4t)[1]["topicId"] == tid
    # tagged nullable struct: tag 0, size = struct + 1, presence 1
    cm = {"SessionTimeoutMs": 45000, "SupportedProtocols": [{"Name": "range", "Metadata": b"\x00\x01"}]}
    mv = encode_value(5, 0, {"InstanceId": None, "RackId": None, "ClientId": "c", "ClientHost": "/h",
                             "SubscribedTopicNames": [], "SubscribedTopicRegex": None,
                             "RebalanceTimeoutMs": 1, "ServerAssignor": None,
                             "ClassicMemberMetadata": cm})
    inner = struct.pack(">i", 45000) + b"\x02" + b"\x06range" + b"\x03\x00\x01" + b"\x00" + b"\x00"
    assert mv.endswith(b"\x01" + b"\x00" + uvarint(len(inner) + 1) + b"\x01" + inner), mv.hex()
    assert decode_value(5, mv)[1]["ClassicMemberMetadata"] == cm
    # transaction log key/value
    tk = encode_key(0, {"TransactionalId": "t"}, txn=True)
    assert tk == _hex("0000 0001 74")
    tv = encode_value(0, 1, {"ProducerId": 7, "ProducerEpoch": 1, "TransactionTimeoutMs": 60000,
                             "TransactionStatus": 1, "TransactionPartitions": None,
                             "TransactionLastUpdateTimestampMs": 5, "TransactionStartTimestampMs": 4,
                             "PreviousProducerId": 6, "ClientTransactionVersion": 2}, txn=True)
    assert tv == _hex("0001 0000000000000007 0001 0000ea60 01 00 0000000000000005 0000000000000004"
                      " 02 00 08 0000000000000006 02 02 0002"), tv.hex()
    # consumer protocol
    sb = encode_subscription(3, {"Topics": ["a"], "UserData": None,
                                 "OwnedPartitions": [{"Topic": "a", "Partitions": [0]}],
                                 "GenerationId": 4, "RackId": "r"})
    assert sb == _hex("0003 00000001 0001 61 ffffffff 00000001 0001 61 00000001 00000000"
                      " 00000004 0001 72"), sb.hex()
    assert decode_subscription(sb)[1]["RackId"] == "r"
    # every schema at every version: non-default sample values round-trip
    schemas = [s for pair in RECORDS.values() for s in pair] + [TXN_KEY, TXN_VALUE, SUBSCRIPTION,
                                                                ASSIGNMENT]
    for sch in schemas:
        for v in range(sch.valid.lo, sch.valid.hi + 1):
            flex = v in sch.flexible
            d = _sample(sch.fields, v, flex, 1)
            b = encode_message(sch, v, d)
            got, info = decode_message(sch, v, b)
            assert got == fill_defaults(sch.fields, d, v, flex), (sch.name, v)
            assert encode_message(sch, v, got) == b, (sch.name, v)
            want_tags = sorted(f.name for f in sch.fields if f.tag is not None and flex and
                               v in f.tagged)
            assert sorted(info["tags_present"]) == want_tags, (sch.name, v, info)
    return True


def _sample(fields, version, flexible, seed):
    """Values different from every default, for the round-trip test."""
    d = {}
    for i, f in enumerate(fields):
        if f.tag is not None:
            if not (flexible and version in f.tagged):
                continue
        elif version not in f.versions:
            continue
        k = seed * 31 + i
        if f.is_struct:
            one = _sample(f.fields, version, flexible, k)
            d[f.name] = [one, _sample(f.fields, version, flexible, k + 1)] if f.is_array else one
            continue
        t = f.elem
        if t in ("int8", "int16", "uint16"):
            val = 100 + k % 20
        elif t in ("int32", "int64"):
            val = 100000 + k
        elif t == "float64":
            val = k + 0.5
        elif t == "bool":
            val = True
        elif t == "uuid":
            val = bytes([(k + j) % 251 + 1 for j in range(16)])
        elif t == "string":
            val = "s%d-\u00e9" % k
        elif t == "bytes":
            val = bytes([k % 256, 0, 255])
        d[f.name] = [val, val] if f.is_array else val
    return d


if __name__ == "__main__":
    selftest()
    print("coordfmt selftest ok")
