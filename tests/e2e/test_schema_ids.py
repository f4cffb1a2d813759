"""test_schema_ids: the Confluent Schema Registry framing of keys and values
(contract: dump --schema-ids and verify --schema-ids in
docs/kfsck.1). A Confluent serializer writes magic byte 0 and the
schema id as a 4-byte big-endian int before the data (magic byte 1 and a
16-byte GUID in the newer format); a consumer's deserializer refuses
anything else with "Unknown magic byte!". The segments are built with
tools/gen/kafkafmt.py in temporary directories, and the expected ids are
written here with struct, not read back with kfsck.
"""
import os
import struct
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kfsck_e2e import ROOT, TempDirTest, jsonl, run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
from kafkafmt import Rec, seg_name, v2_batch, v2_control_batch  # noqa: E402

GUID = uuid.UUID("89791762-2336-4186-9674-299b90a802e2")


def by_id(i, data=b"\x02\x06abc"):
    return b"\x00" + struct.pack(">i", i) + data


def by_guid(g=GUID, data=b"\x02\x06abc"):
    return b"\x01" + g.bytes + data


# (key, value) of offsets 0.. and what a reader of the framing sees in them:
# (key id, key guid, value id, value guid)
RECORDS = [
    (by_id(7), by_id(42), (7, None, 42, None)),
    (None, by_id(-2), (None, None, -2, None)),            # a null key; ids are signed, as Java reads them
    (b'{"id":1}', by_guid(), (None, None, None, str(GUID))),  # a JSON key: not framed
    (by_id(7), b'{"order":5}', (7, None, None, None)),      # the poison record: an unframed value
    (b"\x00\x00\x01", None, (None, None, None, None)),       # too short for an id; a tombstone
    (by_guid(), b"", (None, str(GUID), None, None)),        # an empty value: not null, not framed
    (b"\x02" + b"\x00" * 16, by_id(42, b""), (None, None, 42, None)),  # another magic byte; an id alone
]


class SchemaIdsTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.dir = os.path.join(self.tmp, "orders-0")
        os.makedirs(self.dir)
        recs = [Rec(i, 1700000000000 + i, k, v) for i, (k, v, _) in enumerate(RECORDS)]
        n = len(recs)
        data = (v2_batch(0, recs[:3]) + v2_batch(3, recs[3:]) +
                v2_control_batch(n, "COMMIT", producer_id=1, producer_epoch=0, coordinator_epoch=0, timestamp=1))
        self.log = os.path.join(self.dir, seg_name(0, "log"))
        with open(self.log, "wb") as f:
            f.write(data)

    def test_dump_schema_ids(self):
        rc, out, err = run("dump", "--json", "--schema-ids", self.dir)
        self.assertEqual(rc, 0, err)
        recs = [r for r in jsonl(out, "record") if "control" not in r]
        got = [(r["key_schema_id"], r["key_schema_guid"], r["value_schema_id"], r["value_schema_guid"]) for r in recs]
        self.assertEqual(got, [want for _, _, want in RECORDS])
        # --schema-ids implies --records; without it there are no such fields
        rc, out, err = run("dump", "--json", "--records", self.dir)
        self.assertNotIn("key_schema_id", out)

    def test_dump_schema_ids_of_one_offset(self):
        rc, out, err = run("dump", "--json", "--schema-ids", "--offset", "3", self.dir)
        self.assertEqual(rc, 0, err)
        r, = jsonl(out, "record")
        self.assertEqual((r["offset"], r["key_schema_id"], r["value_schema_id"]), (3, 7, None))
        rc, out, err = run("dump", "--schema-ids", "--offset", "3", self.dir)
        line, = [l for l in out.splitlines() if l.startswith("| offset: 3 ")]
        self.assertIn("keySchemaId: 7 valueSchemaId: none", line)

    def framing_problems(self, fields):
        rc, out, err = run("verify", "--json", "--schema-ids", fields, self.dir)
        self.assertEqual(rc, 0, err)  # warnings only
        rows = jsonl(out)
        probs = [(p["offset"], p["field"], p["first_bytes"]) for p in rows
                 if p["type"] == "problem" and p["code"] == "schema_framing"]
        for p in rows:
            if p["type"] == "problem" and p["code"] == "schema_framing":
                self.assertEqual(p["severity"], "warning")
        seg, = [r for r in rows if r["type"] == "segment"]
        return probs, seg["schema_ids"]

    def test_verify_values(self):
        probs, ids = self.framing_problems("value")
        self.assertEqual(probs, [(3, "value", b'{"order":5}'.hex()), (5, "value", "")])
        self.assertEqual(ids, {"42": 2, "-2": 1, str(GUID): 1})

    def test_verify_keys(self):
        probs, ids = self.framing_problems("key")
        self.assertEqual(probs, [(2, "key", b'{"id":1}'.hex()), (4, "key", "000001"),
                                 (6, "key", (b"\x02" + b"\x00" * 15).hex())])  # the first 16 bytes
        self.assertEqual(ids, {"7": 2, str(GUID): 1})

    def test_verify_both(self):
        probs, ids = self.framing_problems("both")
        self.assertEqual(sorted(probs), sorted(self.framing_problems("key")[0] + self.framing_problems("value")[0]))
        self.assertEqual(ids, {"7": 2, "42": 2, "-2": 1, str(GUID): 2})

    def test_verify_without_the_option_is_unchanged(self):
        rc, out, err = run("verify", "--json", self.dir)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("schema_framing", out)
        self.assertNotIn("schema_ids", out)

    def test_verify_text_and_usage(self):
        rc, out, err = run("verify", "--schema-ids", "value", self.dir)
        self.assertEqual(rc, 0, err)
        self.assertIn("WARNING: schema_framing", out)
        self.assertIn("schema ids: -2 x1, 42 x2, %s x1" % GUID, out)
        rc, out, err = run("verify", "--schema-ids", "keys", self.dir)
        self.assertEqual(rc, 2)
        self.assertIn("--schema-ids is key, value or both", err)


if __name__ == "__main__":
    unittest.main()
