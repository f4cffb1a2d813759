"""test_predict_retention: what `kfsck predict` forecasts after the load:
the first retention pass (Kafka's deletableSegments: the log-start, size and
time rules, oldest first, held back by the high watermark and by segments
with timestamps in the future; compact-only topics left alone), with the
settings from the KRaft metadata's topic configs when the metadata log is
among the log dirs, else --config, else Kafka's defaults; the partitions the
KRaft metadata no longer places on this broker (stray); --config
(server.properties: log.dirs, recovery threads, retention) and the
recovery-time estimate. Expected values from tools/model/predict_model.py,
as in test_predict.py.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kfsck_e2e import ROOT, jsonl, of_type, run  # noqa: E402
from test_predict import DAY, NOW, PredictTest, batch  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "gen"))
import kafkafmt as kf  # noqa: E402
import kraftfmt  # noqa: E402

TOPIC_ID = bytes.fromhex("3a1f0c9e5b7d4c6e8a0b1c2d3e4f5a60")
TOPIC_ID_B64 = "Oh8Mnlt9TG6KCxwtPk9aYA"


class RetentionTest(PredictTest):
    def old_log(self, d, hw=40, future=False):
        """orders-0: four segments of 10 offsets, 10, 8, 6 and 1 days old
        (the third one stamped a day in the future when asked)."""
        for i, age in enumerate((10, 8, 6, 1)):
            ts = NOW + DAY if future and i == 2 else NOW - age * DAY
            d.segment("orders-0", i * 10, batch(i * 10, 10, ts))
        d.checkpoint("recovery-point-offset-checkpoint", [("orders", 0, 40)])
        d.checkpoint("replication-offset-checkpoint", [("orders", 0, hw)])
        d.clean()

    def test_a_week_of_retention_deletes_the_segments_older_than_a_week(self):
        d = self.logdir()
        self.old_log(d)
        rows, rc = self.predict(d, expect_rc=0)
        p = self.part_of(rows, "orders-0")
        self.assertEqual([(r["base_offset"], r["reason"]) for r in p["retention_deletes"]],
                         [(0, "retention_ms"), (10, "retention_ms")])

    def test_the_high_watermark_holds_retention_back(self):
        d = self.logdir()
        self.old_log(d, hw=15)
        rows, _ = self.predict(d)
        self.assertEqual([r["base_offset"] for r in self.part_of(rows, "orders-0")["retention_deletes"]], [0])

    def test_a_segment_from_the_future_holds_back_every_later_one(self):
        d = self.logdir()
        self.old_log(d, future=True)
        cfg = self.write("server.properties", b"log.retention.hours=24\n")
        rows, _ = self.predict(d, args=("--config", cfg), model_kw={"settings": (DAY, -1, "delete")})
        p = self.part_of(rows, "orders-0")
        self.assertEqual(p["future_timestamps"], 1)
        self.assertEqual([r["base_offset"] for r in p["retention_deletes"]], [0, 10])

    def test_retention_bytes_from_the_config(self):
        d = self.logdir()
        self.old_log(d)
        size = os.path.getsize(os.path.join(d.path, "orders-0", kf.seg_name(0, "log")))
        cfg = self.write("server.properties",
                         b"# sizes\nlog.retention.bytes = %d\nlog.retention.ms=-1\n" % (2 * size))
        rows, _ = self.predict(d, args=("--config", cfg), model_kw={"settings": (-1, 2 * size, "delete")})
        p = self.part_of(rows, "orders-0")
        self.assertEqual([(r["base_offset"], r["reason"]) for r in p["retention_deletes"]],
                         [(0, "retention_bytes"), (10, "retention_bytes")])

    def test_a_compact_only_topic_is_left_to_the_cleaner(self):
        d = self.logdir()
        self.old_log(d)
        cfg = self.write("server.properties", b"log.cleanup.policy=compact\n")
        rows, _ = self.predict(d, args=("--config", cfg), model_kw={"settings": (7 * DAY, -1, "compact")})
        self.assertEqual(self.part_of(rows, "orders-0")["retention_deletes"], [])

    def test_the_log_start_checkpoint_deletes_segments_below_it(self):
        d = self.logdir()
        self.old_log(d)
        d.checkpoint("log-start-offset-checkpoint", [("orders", 0, 25)])
        cfg = self.write("server.properties", b"log.retention.ms=-1\n")
        rows, _ = self.predict(d, args=("--config", cfg), model_kw={"settings": (-1, -1, "delete")})
        p = self.part_of(rows, "orders-0")
        self.assertEqual([(r["base_offset"], r["reason"]) for r in p["retention_deletes"]],
                         [(0, "log_start_offset"), (10, "log_start_offset")])

    def test_internal_topics_are_compacted_without_metadata(self):
        # a ZooKeeper-era log dir: no KRaft image, the broker's default policy
        # is delete, but __consumer_offsets was created compacted (issue 36)
        d = self.logdir()
        for t in ("__consumer_offsets-3", "__transaction_state-1", "orders-0"):
            for i, age in enumerate((10, 8)):
                d.segment(t, i * 10, batch(i * 10, 10, NOW - age * DAY))
        d.checkpoint("replication-offset-checkpoint",
                     [("__consumer_offsets", 3, 20), ("__transaction_state", 1, 20), ("orders", 0, 20)])
        d.clean()
        rows, _ = self.predict(d, expect_rc=0)
        for t in ("__consumer_offsets-3", "__transaction_state-1"):
            p = self.part_of(rows, t)
            self.assertEqual((p["retention_source"], p["retention_deletes"]), ("internal_topic", []), t)
        self.assertEqual([r["base_offset"] for r in self.part_of(rows, "orders-0")["retention_deletes"]], [0, 10])


class KraftTest(PredictTest):
    def kraft(self, d, replicas, configs=(), broker_configs=(), base=0):
        """A __cluster_metadata-0 in d placing orders-0 on `replicas`, with
        topic configs [(name, value)] and dynamic broker configs
        [(broker or "" for the cluster default, name, value)]; this node is 1."""
        d.file("meta.properties", b"version=1\nnode.id=1\ncluster.id=S3JhZnRLZnNja0NsdXN0ZQ\n")
        recs = [kraftfmt.encode_metadata(2, 0, {"Name": "orders", "TopicId": TOPIC_ID}),
                kraftfmt.encode_metadata(3, 0, {"PartitionId": 0, "TopicId": TOPIC_ID, "Replicas": replicas,
                                                "Isr": replicas, "RemovingReplicas": [], "AddingReplicas": [],
                                                "Leader": replicas[0], "LeaderEpoch": 0, "PartitionEpoch": 0})]
        for name, value in configs:
            recs.append(kraftfmt.encode_metadata(4, 0, {"ResourceType": 2, "ResourceName": "orders",
                                                        "Name": name, "Value": value}))
        for broker, name, value in broker_configs:
            recs.append(kraftfmt.encode_metadata(4, 0, {"ResourceType": 4, "ResourceName": broker,
                                                        "Name": name, "Value": value}))
        d.segment("__cluster_metadata-0", base, kraftfmt.data_batch(base, recs, NOW - DAY, 1))
        d.file("orders-0/partition.metadata", kf.partition_metadata(TOPIC_ID_B64).encode())

    def test_a_partition_the_metadata_places_elsewhere_is_stray(self):
        d = self.logdir()
        d.segment("orders-0", 0, batch(0, 10, NOW - DAY))
        self.kraft(d, [2, 3])
        rc, out, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        self.assertEqual(rc, 0, err)
        p = [r for r in jsonl(out, "partition") if r["topic"] == "orders"][0]
        self.assertEqual(p["state"], "stray")
        stray = [a for a in jsonl(out, "action") if a["action"] == "stray_partition"]
        self.assertEqual(len(stray), 1)
        self.assertIn("does not contain the local brokerId 1", stray[0]["reason"])

    def test_a_partition_placed_here_is_online(self):
        d = self.logdir()
        d.segment("orders-0", 0, batch(0, 10, NOW - DAY))
        self.kraft(d, [1, 2])
        rc, out, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        p = [r for r in jsonl(out, "partition") if r["topic"] == "orders"][0]
        self.assertEqual(p["state"], "online")

    def test_topic_configs_of_the_metadata_set_retention(self):
        d = self.logdir()
        for i in range(3):
            d.segment("orders-0", i * 10, batch(i * 10, 10, NOW - (3 - i) * DAY))
        d.checkpoint("replication-offset-checkpoint", [("orders", 0, 30)])
        self.kraft(d, [1], configs=[("retention.ms", str(int(1.5 * DAY)))])
        rc, out, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        p = [r for r in jsonl(out, "partition") if r["topic"] == "orders"][0]
        self.assertEqual(p["retention_source"], "topic config")
        self.assertEqual([r["base_offset"] for r in p["retention_deletes"]], [0, 10])


    def kraft_node(self, d, quorum=b'{"leaderId":1,"leaderEpoch":3,"votedId":1,"votedDirectoryId":'
                                   b'"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}', snapshot_cut=False):
        """A KRaft node's metadata partition: a snapshot at 2 and a log from
        2, its quorum-state (as given), the snapshot cut in half when asked."""
        import gen_kraft
        self.kraft(d, [1], base=2)
        recs = [(2, 0, {"Name": "orders", "TopicId": TOPIC_ID})] * 12
        snap = b"".join(gen_kraft.snapshot_bytes(recs, NOW - DAY, 1, NOW - DAY, batch_size=2))
        d.file("__cluster_metadata-0/%020d-%010d.checkpoint" % (2, 1), snap[:len(snap) // 2] if snapshot_cut else snap)
        d.file("__cluster_metadata-0/quorum-state", quorum)
        d.segment("orders-0", 0, batch(0, 10, NOW - DAY))

    def test_a_truncated_quorum_state_stops_the_kraft_node(self):
        d = self.logdir()
        self.kraft_node(d, quorum=b'{"leaderId":1,"leaderEpoch":3,"vo', snapshot_cut=True)
        rc, out, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        self.assertEqual(rc, 1, err)
        fatal = [a for a in jsonl(out, "action") if a["action"] == "fatal"]
        self.assertEqual([os.path.basename(a["file"]) for a in fatal], ["quorum-state"])
        self.assertIn("Error while reading the Quorum status from the file", fatal[0]["reason"])
        dd = jsonl(out, "datadir")[0]
        self.assertEqual(os.path.basename(dd["kraft_snapshot_cut"]), "%020d-%010d.checkpoint" % (2, 1))
        rc, text, err = run("predict", "--now", str(NOW), d.path, cwd=None)
        self.assertEqual(rc, 1, err)
        self.assertIn("will NOT load (the broker stops): Error while reading the Quorum status", text.splitlines()[0])
        self.assertIn("the latest KRaft snapshot %s is cut short" % os.path.join(
            d.path, "__cluster_metadata-0", "%020d-%010d.checkpoint" % (2, 1)), text)

    def test_a_whole_kraft_node_starts(self):
        d = self.logdir()
        self.kraft_node(d)
        rc, out, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        self.assertEqual(rc, 0, out)
        self.assertEqual([a for a in jsonl(out, "action") if a["action"] == "fatal"], [])
        self.assertIsNone(jsonl(out, "datadir")[0]["kraft_snapshot_cut"])

    def test_a_log_start_no_snapshot_reaches_stops_the_kraft_node(self):
        d = self.logdir()
        self.kraft_node(d)
        os.remove(os.path.join(d.path, "__cluster_metadata-0", "%020d-%010d.checkpoint" % (2, 1)))
        rc, out, err = run("predict", "--json", "--now", str(NOW), d.path, cwd=None)
        self.assertEqual(rc, 1, err)
        fatal = [a for a in jsonl(out, "action") if a["action"] == "fatal"]
        self.assertEqual(len(fatal), 1)
        self.assertIn("Inconsistent snapshot state: there must be a snapshot at an offset larger then the current "
                      "log start offset 2, but the latest snapshot is Optional.empty", fatal[0]["reason"])

    def test_dynamic_broker_configs_come_before_the_config_file(self):
        d = self.logdir()
        for i in range(3):
            d.segment("orders-0", i * 10, batch(i * 10, 10, NOW - (3 - i) * DAY))
        d.checkpoint("replication-offset-checkpoint", [("orders", 0, 30)])
        # the cluster default says 1.5 days, this broker's own config 2.5 days
        self.kraft(d, [1], broker_configs=[("", "log.retention.ms", str(int(1.5 * DAY))),
                                           ("1", "log.retention.hours", "60")])
        cfg = self.write("server.properties", b"log.retention.hours=1\n")
        rc, out, err = run("predict", "--json", "--now", str(NOW), "--config", cfg, d.path, cwd=None)
        p = [r for r in jsonl(out, "partition") if r["topic"] == "orders"][0]
        self.assertEqual(p["retention_source"], "broker config")
        self.assertEqual([r["base_offset"] for r in p["retention_deletes"]], [0])


class ConfigTest(PredictTest):
    def test_log_dirs_threads_and_the_estimate_from_server_properties(self):
        a, b = self.logdir("a"), self.logdir("b")
        for i in range(5):
            a.segment("orders-%d" % i, 0, batch(0, 10 * (i + 1), NOW - DAY))
        b.segment("clicks-0", 0, batch(0, 10, NOW - DAY))
        cfg = self.write("server.properties",
                         ("log.dirs=%s,\\\n    %s\nnum.recovery.threads.per.data.dir : 3\n"
                          % (a.path, b.path)).encode())
        rc, out, err = run("predict", "--json", "--now", str(NOW), "--config", cfg, "--recovery-rate", "1000",
                           cwd=None)
        self.assertEqual(rc, 0, err)
        got = jsonl(out)
        import predict_model
        want = predict_model.predict([a.path, b.path], NOW, threads=3, rate=1000)
        self.assertEqual([(r["datadir"], r["recovery_threads"]) for r in of_type(got, "datadir")],
                         [(a.path, 3), (b.path, 3)])
        for g, w in zip(of_type(got, "datadir"), of_type(want, "datadir")):
            self.assertAlmostEqual(g["estimated_recovery_seconds"], w["estimated_recovery_seconds"], places=6)
        self.assertGreater(of_type(got, "summary")[0]["estimated_recovery_seconds"], 0)
        self.assertAlmostEqual(of_type(got, "summary")[0]["estimated_recovery_seconds"],
                               of_type(want, "summary")[0]["estimated_recovery_seconds"], places=6)

    def test_java_properties_syntax(self):
        """Comments (also ending in a backslash), `key value` and `key:value`
        separators, \\uXXXX and other escapes, a continuation whose next
        line starts with '#', and the last of a key given twice."""
        a = self.logdir("a")
        a.segment("orders-0", 0, batch(0, 10, NOW - DAY))
        escaped = a.path.replace("/", "\\u002f")
        text = ("# a comment \\\n"
                "num.recovery.threads.per.data.dir 4\n"
                "! another\n"
                "  log.dirs\\\n"
                "   :%s\n"
                "num.recovery.threads.per.data.dir:\\\t6\n" % escaped)
        cfg = self.write("server.properties", text.encode())
        rc, out, err = run("predict", "--json", "--config", cfg, cwd=None)
        self.assertEqual(rc, 0, err)
        dd = of_type(jsonl(out), "datadir")
        self.assertEqual([(d["datadir"], d["recovery_threads"]) for d in dd], [(a.path, 6)])
        # a continuation line is never a comment: the value is "#12"
        cfg = self.write("server.properties", b"log.retention.bytes=\\\n#12\n")
        rc, out, err = run("predict", "--config", cfg, a.path, cwd=None)
        self.assertEqual(rc, 3)
        self.assertIn("Invalid value #12 for configuration log.retention.bytes", err)

    def test_recovery_threads_option_wins_over_the_config(self):
        a = self.logdir("a")
        a.segment("orders-0", 0, batch(0, 10, NOW - DAY))
        cfg = self.write("server.properties", b"num.recovery.threads.per.data.dir=3\n")
        rc, out, err = run("predict", "--json", "--config", cfg, "--recovery-threads", "5", a.path, cwd=None)
        self.assertEqual(of_type(jsonl(out), "datadir")[0]["recovery_threads"], 5)
        rc, out, err = run("predict", "--json", a.path, cwd=None)
        self.assertEqual(of_type(jsonl(out), "datadir")[0]["recovery_threads"], 2)

    def test_a_config_that_cannot_be_read(self):
        a = self.logdir("a")
        rc, out, err = run("predict", "--config", os.path.join(self.tmp, "none.properties"), a.path, cwd=None)
        self.assertEqual(rc, 3)
        bad = self.write("bad.properties", b"num.recovery.threads.per.data.dir=many\n")
        rc, out, err = run("predict", "--config", bad, a.path, cwd=None)
        self.assertEqual(rc, 3)
        self.assertIn("Invalid value many for configuration num.recovery.threads.per.data.dir", err)


if __name__ == "__main__":
    unittest.main()
