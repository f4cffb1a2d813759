#!/usr/bin/python3
"""gen_kraft_fast.py: the KRaft metadata records of the tree-less decoder's
tests (src/records/kraft_fast.c), encoded by tools/gen/kraftfmt.py (the
project's independent Python encoder, not the C code): every record type and
version the fast path reads, a few layouts it must decline, and the seed
corpus of tests/fuzz/fuzz_kraft_fast.c.

  gen_kraft_fast.py hex          the cases as C string lines for tests/unit/test_kraft_fast.c
  gen_kraft_fast.py seeds DIR    the seed corpus into DIR (tests/fuzz/corpus/kraft_fast)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kraftfmt as kf  # noqa: E402

U1 = bytes(range(0x10, 0x20))
U2 = bytes(range(0x20, 0x30))
U3 = bytes(range(0x30, 0x40))
U4 = bytes(range(0x40, 0x50))

# (name, apiKey, version, fields): read by the fast path
CASES = [
    ("topic_v0", 2, 0, {"Name": "orders", "TopicId": U1}),
    ("partition_v0", 3, 0, {"PartitionId": 3, "TopicId": U1, "Replicas": [1, 2, 3], "Isr": [1, 2],
                            "RemovingReplicas": [], "AddingReplicas": [3], "Leader": 1,
                            "LeaderRecoveryState": 1, "LeaderEpoch": 7, "PartitionEpoch": 9}),
    ("partition_v1", 3, 1, {"PartitionId": 0, "TopicId": U1, "Replicas": [1, 2, 3], "Isr": [1, 2, 3],
                            "RemovingReplicas": [2], "AddingReplicas": [], "Leader": 2,
                            "LeaderEpoch": 0, "PartitionEpoch": 1, "Directories": [U2, U3, U4]}),
    ("partition_v2", 3, 2, {"PartitionId": 5, "TopicId": U1, "Replicas": [4, 5], "Isr": [4],
                            "RemovingReplicas": [], "AddingReplicas": [], "Leader": 4,
                            "LeaderEpoch": 2, "PartitionEpoch": 3, "Directories": [U2, U3],
                            "EligibleLeaderReplicas": [5], "LastKnownElr": [6, 7]}),
    ("config_v0", 4, 0, {"ResourceType": 2, "ResourceName": "orders", "Name": "retention.ms",
                         "Value": "604800000"}),
    ("config_v0_null", 4, 0, {"ResourceType": 4, "ResourceName": "", "Name": "log.cleaner.threads",
                              "Value": None}),
    ("partition_change_v0", 5, 0, {"PartitionId": 3, "TopicId": U1, "Isr": [1], "Leader": 2,
                                   "LeaderRecoveryState": 0}),
    ("partition_change_v0_grow", 5, 0, {"PartitionId": 3, "TopicId": U1, "Isr": [1, 2, 3, 4, 5, 6]}),
    ("partition_change_v1", 5, 1, {"PartitionId": 1, "TopicId": U1, "Replicas": [1, 2],
                                   "RemovingReplicas": [3], "AddingReplicas": [2],
                                   "Directories": [U2, U3]}),
    ("partition_change_v2", 5, 2, {"PartitionId": 2, "TopicId": U1, "Isr": [1, 2],
                                   "EligibleLeaderReplicas": [3], "LastKnownElr": []}),
    ("broker_change_v0", 17, 0, {"BrokerId": 1, "BrokerEpoch": 5, "Fenced": -1}),
    ("broker_change_v1", 17, 1, {"BrokerId": 2, "BrokerEpoch": 6, "InControlledShutdown": 1}),
    ("broker_change_v2", 17, 2, {"BrokerId": 3, "BrokerEpoch": 7, "Fenced": 1, "LogDirs": [U2]}),
    ("broker_change_v3", 17, 3, {"BrokerId": 3, "BrokerEpoch": 7, "CordonedLogDirs": [U3, U4]}),
    ("no_op_v0", 20, 0, {}),
]

# read by the generic decoder only
FEATURE = kf.encode_metadata(12, 0, {"Name": "metadata.version", "FeatureLevel": 23})
CHANGE_V0 = kf.encode_metadata(5, 0, {"PartitionId": 3, "TopicId": U1, "Isr": [1]})
DECLINED = [
    ("feature_level", FEATURE),                                    # a type it does not read
    ("partition_change_v3", kf.encode_raw_envelope(1, 5, 3, CHANGE_V0[3:])),  # a version it does not know
    ("trailing_byte", CHANGE_V0 + b"\x00"),                       # a byte left over
    ("cut", CHANGE_V0[:-2]),                                       # the record cut short
    ("frame_v0", kf.encode_raw_envelope(0, 5, 0, CHANGE_V0[3:])),  # frame version 0
]


def encoded():
    return [(n, kf.encode_metadata(k, v, d)) for n, k, v, d in CASES]


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "hex":
        for n, b in encoded() + DECLINED:
            print('    {"%s", "%s"},' % (n, b.hex()))
    elif len(sys.argv) == 3 and sys.argv[1] == "seeds":
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        recs = encoded()
        for n, b in recs + DECLINED:
            with open(os.path.join(out, n), "wb") as f:
                f.write(b"\x00" + b)             # byte 0 < 0x40: the rest is one record value
        # a sequence (byte 0 0x40: records of a length byte then the value)
        # building a topic and partition then changing them
        seq = [kf.encode_metadata(2, 0, {"Name": "orders", "TopicId": U1})]
        for p in range(3):
            seq.append(kf.encode_metadata(3, 1, {"PartitionId": p, "TopicId": U1, "Replicas": [1, 2, 3],
                                                 "Isr": [1, 2, 3], "RemovingReplicas": [], "AddingReplicas": [],
                                                 "Leader": 1, "LeaderEpoch": 0, "PartitionEpoch": 0,
                                                 "Directories": [U2, U3, U4]}))
        for isr in ([1], [1, 2, 3, 1, 2, 3], [2]):
            seq.append(kf.encode_metadata(5, 0, {"PartitionId": 1, "TopicId": U1, "Isr": isr, "Leader": isr[0]}))
        seq.append(kf.encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "orders", "Name": "retention.ms",
                                             "Value": "604800000"}))
        seq.append(kf.encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "orders", "Name": "retention.ms",
                                             "Value": "1"}))
        seq.append(kf.encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "orders", "Name": "retention.ms",
                                             "Value": "12345678901"}))
        seq.append(kf.encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "orders", "Name": "retention.ms",
                                             "Value": None}))
        seq.append(kf.encode_metadata(20, 0, {}))
        with open(os.path.join(out, "sequence"), "wb") as f:
            f.write(b"\x40" + b"".join(bytes([len(b)]) + b for b in seq))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
