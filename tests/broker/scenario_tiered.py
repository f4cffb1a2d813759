"""scenario_tiered: `kfsck remote` (tiered storage, KIP-405) held against a
broker that tiers for real (issue 38 item 4).

One KRaft node with remote.log.storage.system.enable, Kafka's own
TopicBasedRemoteLogMetadataManager and Kafka's own LocalTieredStorage (the
kafka-storage test-fixtures jar; the "bucket" is a directory of the work
dir). Topic `tiered`: 1 MiB segments, remote.storage.enable, a local
retention of two segments, infinite retention; 10 MB produced, nine
segments tiered. Then, one at a time, each thing kfsck remote says is made
for real and set beside what the broker does with it:

  healthy     after a clean stop: the remote range, the local log start and
              the metadata partition against ListOffsets (earliest,
              earliest-local, latest-tiered, latest) and Kafka's own
              partitioner; no findings; a consumer reads every offset.
  index cache the remote-log-index-cache the consumer's remote reads filled:
              a cached .index of a bad length, a file named `garbage`, a
              missing .txnindex, each against whether the broker starts.
  missing     a finished segment's .log object deleted: missing_in_storage
              against a consumer fetching there (RemoteResourceNotFound).
  no tier     DELETE_SEGMENT_STARTED/FINISHED for a middle segment written
              with Kafka's own serde: offsets_in_no_tier against the
              consumer's OFFSET_OUT_OF_RANGE there.
  orphans     the deleted segment's objects and a copy of another segment's
              objects under a new id: orphan keys and bytes.
  stuck       the broker killed in the middle of an upload (the driver's
              SlowTransferer holds it after the .log object): copy_stuck
              with its object prefix, and what the broker does with it once
              restarted.
  bad record  a record the serde cannot read in __remote_log_metadata:
              bad_record against the broker's metadata consumer, live and
              after a restart.
"""
import glob
import os
import re
import time

import compare as c
import harness as h
from scenarios import Scenario

TOPIC = "tiered"
METADATA_PARTITIONS = 5
SEGMENT_BYTES = 1 << 20
RECORDS_PER_SEGMENT = 1000  # 5 batches of 200 records of ~1 KB fill a 1 MiB segment
MINUTE = 60 * 1000


def tiered_props(rsm):
    """The broker settings of a tiering node whose storage is rsm."""
    return {
        "remote.log.storage.system.enable": "true",
        "remote.log.storage.manager.class.name": "org.apache.kafka.server.log.remote.storage.LocalTieredStorage",
        "rsm.config.dir": rsm,  # else LocalTieredStorage calls TestUtils (not in the test-fixtures jar)
        "rsm.config.delete.on.close": "false",
        "rsm.config.transferer.class": "kfsck.broker.SlowTransferer",
        "remote.log.metadata.manager.class.name":
            "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager",
        "remote.log.metadata.manager.listener.name": "PLAINTEXT",
        "rlmm.config.remote.log.metadata.topic.replication.factor": 1,
        "rlmm.config.remote.log.metadata.topic.num.partitions": METADATA_PARTITIONS,
        "rlmm.config.remote.log.metadata.consume.wait.ms": 5000,
        "remote.log.manager.task.interval.ms": 1000,
        "remote.log.manager.copier.thread.pool.size": 1,
        "remote.log.manager.expiration.thread.pool.size": 1,
        "remote.log.reader.threads": 2,
        "log.retention.check.interval.ms": 1000,
        "log.initial.task.delay.ms": 0,
    }


TOPIC_CONFIG = (f"remote.storage.enable:true,segment.bytes:{SEGMENT_BYTES},"
                f"local.retention.bytes:{2 * SEGMENT_BYTES},retention.ms:-1")
OBJECT = re.compile(r"^(\d{20})-([A-Za-z0-9_-]{22})\.(\w+)$")


class Bucket:
    """The topic partition's directory in LocalTieredStorage:
    <rsm>/kafka-tiered-storage/<topic>-<partition>-<topic id>/."""

    def __init__(self, rsm):
        self.rsm = rsm

    def dir(self):
        got = glob.glob(os.path.join(self.rsm, "kafka-tiered-storage", f"{TOPIC}-0-*"))
        return got[0] if got else None

    def topic_id(self):
        return os.path.basename(self.dir())[len(f"{TOPIC}-0-"):]

    def objects(self):
        """[(key, start offset, segment id, suffix, size)] of every object."""
        d = self.dir()
        out = []
        for name in sorted(os.listdir(d)) if d else []:
            m = OBJECT.match(name)
            if m:
                out.append((os.path.relpath(os.path.join(d, name), self.rsm), int(m.group(1)), m.group(2),
                            m.group(3), os.path.getsize(os.path.join(d, name))))
        return out

    def segment_ids(self, start, suffix="log"):
        return [sid for _, s, sid, suf, _ in self.objects() if s == start and suf == suffix]

    def path(self, start, sid, suffix):
        return os.path.join(self.dir(), f"{start:020d}-{sid}.{suffix}")


def remote(datadir, rsm, *extra):
    """kfsck remote --json --storage rsm datadir: (exit, rows by type, rows)."""
    rc, rows, err = h.kfsck_json("remote", "--storage", rsm, *extra, datadir)
    if rc not in (0, 1):
        raise AssertionError(f"kfsck remote exit {rc}: {err.strip()[:300]}")
    by = {}
    for r in rows:
        by.setdefault(r["type"], []).append(r)
    return rc, by, rows


def the_partition(by):
    parts = [p for p in by.get("remote_partition", []) if p["topic"] == TOPIC and p["partition"] == 0]
    if len(parts) != 1:
        raise AssertionError(f"kfsck remote: {len(parts)} remote_partition lines for {TOPIC}-0")
    return parts[0]


def findings(by, what):
    return [s for s in by.get("remote_segment", []) if s["finding"] == what]


def offsets(d):
    """ListOffsets: {earliest, earliest_local, latest_tiered, latest}."""
    return {k: int(v) for k, v in (w.split("=") for w in d.cmd("tiered", op="offsets", topic=TOPIC).split())}


def fetch(d, offset, **kw):
    """A consumer seeked to offset: {records, first, last, error}."""
    out = {}
    for w in d.cmd("tiered", op="fetch", topic=TOPIC, offset=offset, **kw).split(" ", 3):
        k, v = w.split("=", 1)
        out[k] = v if k == "error" else int(v)
    return out


def log_lines(n, pattern, since=0):
    """The broker log lines (of its current start) whose message matches."""
    rx = re.compile(pattern)
    return [l for l in n.lines()[since:] if rx.search(l["msg"])]


def restart_expecting_failure(n, timeout=90):
    """Starts the node on damaged files: (True, None) once it has started
    (it is left running), or (False, the first two lines of its fatal
    start-up error) when it exits."""
    n.start(wait=False)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if n.proc.poll() is not None:
            n.out.close()
            fatal = log_lines(n, r"Fatal error during broker startup|Exiting Kafka due to fatal exception")
            return False, ("\n".join(fatal[0]["msg"].splitlines()[:2]) if fatal else n.tail())
        if any("Kafka Server started" in l["msg"] for l in n.lines()):
            return True, None
        time.sleep(0.2)
    raise TimeoutError("the node neither started nor exited")


def wait_tiered(d, want_tiered, timeout=90):
    """Until ListOffsets says the remote tier ends at want_tiered, the local
    log starts above 0, and the local log start stayed the same over three
    retention checks (local retention deletes one segment at a time); the
    last answer."""
    seen = []

    def done():
        o = offsets(d)
        if o["latest_tiered"] != want_tiered or o["earliest_local"] <= 0:
            seen.clear()
            return None
        seen.append(o["earliest_local"])
        return o if len(seen) >= 4 and len(set(seen[-4:])) == 1 else None
    return h.wait_for(done, timeout, f"{TOPIC}-0 tiered up to {want_tiered}", step=1)


def scenario_tiered(suite, cp):
    with Scenario(cp) as s:
        rsm = s.path("rsm")
        bucket = Bucket(rsm)
        n = s.node(extra=tiered_props(rsm))
        n.format()
        n.start()
        d = s.driver(n.bootstrap)
        d.cmd("topic", name=TOPIC, partitions=1, config=TOPIC_CONFIG)
        total = 10 * RECORDS_PER_SEGMENT
        d.cmd("produce", topic=TOPIC, n=total, per=200, size=1000, partition=0)
        # segments 0..8000 are tiered (9000 is the active one); the local
        # retention (2 MiB) deletes the oldest tiered ones while what stays
        # locally is at least that
        wait_tiered(d, 9 * RECORDS_PER_SEGMENT - 1)
        rb = d.cmd("readback", topic=TOPIC, out=s.path("readback.jsonl"))
        read = [r["offset"] for r in h.read_jsonl(s.path("readback.jsonl"))]
        live = offsets(d)
        tid = bucket.topic_id()
        mpart = int(d.cmd("tiered", op="mpart", topic=TOPIC, topic_id=tid, metadata_partitions=METADATA_PARTITIONS))
        n.stop()
        data = n.data
        cache = os.path.join(data, "remote-log-index-cache")

        # ---- healthy -----------------------------------------------------------------
        rc, by, rows = remote(data, rsm)
        p = the_partition(by)

        def healthy():
            bad = [r for r in rows if r["type"] in ("remote_segment", "remote_index", "problem")]
            if rc != 0 or bad:
                raise AssertionError(f"exit {rc}; {bad[:3]}")
            text = h.kfsck("remote", "--storage", rsm, data)[1].splitlines()
            c._eq("verdict", text[0], f"{TOPIC}-0: all offsets reachable")
            c._eq("offsets the consumer read from the log start", read, list(range(live["earliest"], live["latest"])))
            return f"{len(read)} offsets read from {live['earliest']} ({rb})"
        suite.check("tiered: remote on a healthy tiered partition vs a consumer reading from offset 0", healthy)

        def ranges():
            c._eq("remote_start_offset (ListOffsets earliest)", p["remote_start_offset"], live["earliest"])
            c._eq("remote_end_offset (ListOffsets latest-tiered)", p["remote_end_offset"], live["latest_tiered"])
            loc = p["local_log_start_offset"]
            c._eq("local copies", len(loc), 1)
            c._eq("local log start (ListOffsets earliest-local)", loc[0]["log_start_offset"], live["earliest_local"])
            c._eq("log end (ListOffsets latest)", loc[0]["log_end_offset"], live["latest"])
            c._eq("log start checkpoint (ListOffsets earliest)", loc[0]["log_start_checkpoint"], live["earliest"])
            return (f"remote {p['remote_start_offset']}..{p['remote_end_offset']}, local "
                    f"{loc[0]['log_start_offset']}..{loc[0]['log_end_offset']}")
        suite.check("tiered: remote range and local log start vs ListOffsets", ranges)

        def metadata_partition():
            c._eq("metadata_partition (RemoteLogMetadataTopicPartitioner)", p["metadata_partition"], mpart)
            written = sorted(int(x.rsplit("-", 1)[1]) for x in glob.glob(os.path.join(data, "__remote_log_metadata-*"))
                             if any(f.endswith(".log") and os.path.getsize(os.path.join(x, f))
                                    for f in os.listdir(x)))
            c._eq("the metadata partitions the broker wrote", written, [mpart])
            return f"__remote_log_metadata-{mpart}"
        suite.check("tiered: metadata partition vs Kafka's partitioner", metadata_partition)

        def storage():
            logs = {(start, sid): size for _, start, sid, suf, size in bucket.objects() if suf == "log"}
            c._eq("finished segments", p["segments"]["copy_segment_finished"], len(logs))
            c._eq("remote_bytes (the .log objects' sizes)", p["remote_bytes"], sum(logs.values()))
            c._eq("orphan_bytes", p["orphan_bytes"], 0)
            return f"{len(logs)} segments, {p['remote_bytes']} bytes"
        suite.check("tiered: remote segments vs the storage's objects", storage)

        entries = sorted({f.split(".")[0] for f in os.listdir(cache)})
        summary = by["summary"][0]
        suite.check("tiered: remote-log-index-cache entries vs the files the broker's remote reads left",
                    lambda: c._eq("index_entries", summary["index_entries"], len(entries)) or f"{len(entries)} entries")

        # ---- the remote-log-index-cache against the broker's start-up -----------------
        def cache_case(tag, damage, undo, want_code, want_stops, want_error):
            damage()
            _, byx, _ = remote(data, rsm)
            idx = byx.get("remote_index", [])
            started, fatal = restart_expecting_failure(n)

            def one():
                if len(idx) != 1:
                    raise AssertionError(f"kfsck: {len(idx)} remote_index lines: {idx}")
                c._eq("code", idx[0]["code"], want_code)
                c._eq("stops_broker", idx[0]["stops_broker"], want_stops)
                c._eq("the broker starts", started, not want_stops)
                if want_error and want_error not in (fatal or ""):
                    raise AssertionError(f"the broker's start-up error: {fatal!r}, wanted {want_error!r}")
                return (f"kfsck {idx[0]['code']}; broker " + ("started" if started else f"exits: {fatal.splitlines()[-1]}"))
            suite.check(f"tiered: index cache {tag}: kfsck vs the broker's start-up", one)
            if not started:
                undo()
            return started

        some = entries[len(entries) // 2]
        idx_file = os.path.join(cache, some + ".index")
        size = os.path.getsize(idx_file)

        def corrupt():
            with open(idx_file, "ab") as f:
                f.write(b"\x01\x02\x03")
        cache_case("a .index whose length is no multiple of 8", corrupt, lambda: os.truncate(idx_file, size),
                   "index_corrupt", True, "CorruptIndexException")
        garbage = os.path.join(cache, "garbage")
        cache_case("a file named garbage", lambda: open(garbage, "w").write("x"), lambda: os.remove(garbage),
                   "bad_name", True, "StringIndexOutOfBoundsException")
        gone = entries[0]
        started = cache_case("a missing .txnindex", lambda: os.remove(os.path.join(cache, gone + ".txnindex")),
                             None, "incomplete", False, None)
        if not started:
            return
        n.wait_started()
        suite.check("tiered: index cache a missing .txnindex: the broker deletes the entry",
                    lambda: c._eq(f"{gone} files left", sorted(glob.glob(os.path.join(cache, gone + ".*"))), []))
        d.close()
        d = s.driver(n.bootstrap)

        # ---- a finished segment's .log object deleted --------------------------------
        missing_start = 2 * RECORDS_PER_SEGMENT
        missing_sid = bucket.segment_ids(missing_start)[0]
        os.remove(bucket.path(missing_start, missing_sid, "log"))
        since = len(n.lines())
        at_missing = fetch(d, missing_start + 500, max=10, wait=2000)
        before_missing = fetch(d, missing_start - 500, max=10, wait=10000)
        not_found = log_lines(n, r"Error occurred while reading the remote data", since)

        # ---- a middle segment deleted in the metadata only ----------------------------
        gap_start = 5 * RECORDS_PER_SEGMENT
        gap_sid = bucket.segment_ids(gap_start)[0]
        for st in ("DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"):
            d.cmd("tiered", op="update", topic=TOPIC, topic_id=tid, segment_id=gap_sid, state=st,
                  metadata_partitions=METADATA_PARTITIONS)
        in_gap = h.wait_for(lambda: (lambda f: f if f["error"] != "none" else None)(fetch(d, gap_start, wait=1000)),
                            30, "a fetch in the deleted segment to fail")
        gap_end = fetch(d, gap_start + RECORDS_PER_SEGMENT - 1, wait=2000)
        after_gap = fetch(d, gap_start + RECORDS_PER_SEGMENT, max=10, wait=10000)

        # ---- an orphan: a segment's objects copied under a new id --------------------
        copied_start = 6 * RECORDS_PER_SEGMENT
        copied_sid = bucket.segment_ids(copied_start)[0]
        orphan_sid = h.kafka_uuid()
        orphan_keys = []
        for key, start, sid, suf, _ in bucket.objects():
            if sid == copied_sid:
                dst = bucket.path(start, orphan_sid, suf)
                with open(os.path.join(rsm, key), "rb") as fi, open(dst, "wb") as fo:
                    fo.write(fi.read())
                orphan_keys.append(os.path.relpath(dst, rsm))

        # ---- killed in the middle of an upload ----------------------------------------
        stuck_start = 9 * RECORDS_PER_SEGMENT
        open(os.path.join(rsm, "slow-copy"), "w").close()
        d.cmd("produce", topic=TOPIC, n=RECORDS_PER_SEGMENT, per=200, size=1000, partition=0, prefix="more-")
        h.wait_for(lambda: bucket.segment_ids(stuck_start), 60, "the upload of segment 9000 to begin")
        time.sleep(1)  # the .log is copied whole before the transferer holds
        stuck_objects = sorted(suf for _, start, sid, suf, _ in bucket.objects()
                               if start == stuck_start and sid == bucket.segment_ids(stuck_start)[0])
        stuck_sid = bucket.segment_ids(stuck_start)[0]
        n.kill()
        killed_ms = int(time.time() * 1000)
        os.remove(os.path.join(rsm, "slow-copy"))

        rc, by, rows = remote(data, rsm, f"--now={killed_ms + 15 * MINUTE}")
        p = the_partition(by)

        def missing():
            got = findings(by, "missing_in_storage")
            c._eq("missing_in_storage segments", [(x["segment_id"], x["start_offset"]) for x in got],
                  [(missing_sid, missing_start)])
            c._eq("missing objects", got[0]["missing"], ["log"])
            c._eq("kfsck exit", rc, 1)
            c._eq("consumer records at the missing segment", at_missing["records"], 0)
            c._eq("consumer records before it", before_missing["records"], 10)
            if not not_found or "RemoteResourceNotFoundException" not in not_found[0]["msg"]:
                raise AssertionError(f"no RemoteResourceNotFoundException in the broker log: {not_found[:1]}")
            return (f"segment {missing_sid} at {missing_start}; the consumer read nothing there "
                    f"(broker: {not_found[0]['msg'].splitlines()[1][:80]})")
        suite.check("tiered: a deleted .log object: missing_in_storage vs a consumer fetching there", missing)

        def no_tier():
            c._eq("offsets_in_no_tier", p["offsets_in_no_tier"],
                  [{"from_offset": gap_start, "to_offset": gap_start + RECORDS_PER_SEGMENT}])
            for what, f in (("first offset", in_gap), ("last offset", gap_end)):
                if not f["error"].startswith("OffsetOutOfRangeException"):
                    raise AssertionError(f"the consumer at the deleted segment's {what}: {f}")
            c._eq("consumer records after the gap", after_gap["records"], 10)
            return f"{gap_start}..{gap_start + RECORDS_PER_SEGMENT - 1}: OffsetOutOfRangeException"
        suite.check("tiered: a segment deleted in the metadata: offsets_in_no_tier vs the consumer", no_tier)

        def orphans():
            got = {x["segment_id"]: x for x in findings(by, "orphan")}
            c._eq("orphan segment ids", sorted(got), sorted([gap_sid, orphan_sid]))
            for sid in (gap_sid, orphan_sid):
                want = [(k, sz) for k, _, osid, _, sz in bucket.objects() if osid == sid]
                c._eq(f"orphan {sid} keys", sorted(got[sid]["keys"]), sorted(k for k, _ in want))
                c._eq(f"orphan {sid} bytes", got[sid]["bytes"], sum(sz for _, sz in want))
            c._eq("orphan_bytes", p["orphan_bytes"], sum(x["bytes"] for x in got.values()))
            return f"{len(got)} orphans, {p['orphan_bytes']} bytes"
        suite.check("tiered: orphans (a segment deleted in the metadata only, a copy under a new id) vs the storage",
                    orphans)

        def stuck():
            got = findings(by, "copy_stuck")
            c._eq("copy_stuck segments", [(x["segment_id"], x["start_offset"]) for x in got], [(stuck_sid, stuck_start)])
            if not got[0]["object_prefix"].endswith(f"{stuck_start:020d}-{stuck_sid}"):
                raise AssertionError(f"object_prefix {got[0]['object_prefix']}")
            c._eq("objects the broker had written", stuck_objects, ["log"])
            _, by1, _ = remote(data, rsm, f"--now={killed_ms + MINUTE}")
            c._eq("copy_stuck a minute after the kill", findings(by1, "copy_stuck"), [])
            return f"{got[0]['object_prefix']} (objects: {', '.join(stuck_objects)})"
        suite.check("tiered: killed during an upload: copy_stuck vs the objects in the storage", stuck)

        # ---- restarted after the kill --------------------------------------------------
        n.start()
        d.close()
        d = s.driver(n.bootstrap)
        after = wait_tiered(d, 10 * RECORDS_PER_SEGMENT - 1)
        recopied = [sid for sid in bucket.segment_ids(stuck_start) if sid != stuck_sid]

        # ---- a record the broker's serde cannot read ------------------------------------
        since = len(n.lines())
        bad_offset = int(d.cmd("tiered", op="raw", topic="__remote_log_metadata", partition=mpart, hex="00ff00ff"))
        stopped = h.wait_for(lambda: log_lines(n, r"Error occurred while processing the records", since), 30,
                             "the metadata consumer to fail")
        later_start = 7 * RECORDS_PER_SEGMENT
        later_sid = bucket.segment_ids(later_start)[0]
        for st in ("DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"):
            d.cmd("tiered", op="update", topic=TOPIC, topic_id=tid, segment_id=later_sid, state=st,
                  metadata_partitions=METADATA_PARTITIONS)
        time.sleep(2)
        at_later = fetch(d, later_start, max=10, wait=5000)
        # an upload the live broker tries after it: segment 10000 rolled
        upload_start = 10 * RECORDS_PER_SEGMENT
        since = len(n.lines())
        d.cmd("produce", topic=TOPIC, n=RECORDS_PER_SEGMENT, per=200, size=1000, partition=0, prefix="after-")
        failed = h.wait_for(lambda: log_lines(n, r"Error occurred while copying log segments", since), 60,
                            "an upload to fail")
        n.stop()
        tries = log_lines(n, rf"Copying {upload_start:020d}\.log to remote storage", since)
        failed = log_lines(n, r"Error occurred while copying log segments", since)
        stopped_ms = int(time.time() * 1000)
        rc, by, rows = remote(data, rsm, f"--now={stopped_ms + 15 * MINUTE}")
        p = the_partition(by)

        def restarted_stuck():
            got = [x["segment_id"] for x in findings(by, "copy_stuck") if x["start_offset"] == stuck_start]
            c._eq("copy_stuck at 9000 after the restart", got, [stuck_sid])
            c._eq("the broker's new copies of segment 9000", len(recopied), 1)
            c._eq("ListOffsets latest-tiered after the restart", after["latest_tiered"], upload_start - 1)
            return f"re-copied as {recopied[0]}; {stuck_sid} left in copy_segment_started"
        suite.check("tiered: killed during an upload: copy_stuck vs the broker after a restart", restarted_stuck)

        def bad_record():
            bad = [r for r in by.get("problem", []) if r["code"] == "bad_record"]
            c._eq("bad_record offsets", [(r["offset"]) for r in bad], [bad_offset])
            c._eq("kfsck exit", rc, 1)
            if "MetadataParseException" not in stopped[0]["msg"]:
                raise AssertionError(f"the broker's error: {stopped[0]['msg'][:300]}")
            c._eq("records the live broker still read from the segment deleted after the bad record",
                  at_later["records"], 10)
            return (f"__remote_log_metadata-{mpart} offset {bad_offset}; the live broker still serves "
                    f"{later_start} (deleted after it)")
        suite.check("tiered: a garbage metadata record: bad_record vs the broker's metadata consumer", bad_record)

        def live_uploads():
            got = [x for x in findings(by, "copy_stuck") if x["start_offset"] == upload_start]
            if "Timed out in catching up" not in failed[0]["msg"]:
                raise AssertionError(f"the broker's upload error: {failed[0]['msg'][:300]}")
            if not len(failed) <= len(got) <= len(tries):
                raise AssertionError(f"kfsck: {len(got)} stuck copies of {upload_start}; the broker tried "
                                     f"{len(tries)} times, {len(failed)} failed")
            return f"{len(got)} stuck copies of {upload_start} ({len(tries)} tries, {len(failed)} timed out)"
        suite.check("tiered: a garbage metadata record: copy_stuck vs the live broker's uploads after it", live_uploads)

        # ---- restarted on the garbage record --------------------------------------------
        n.start()
        d.close()
        d = s.driver(n.bootstrap)
        blocked = fetch(d, missing_start - 500, max=10, wait=3000)
        time.sleep(3)  # three copy-task intervals
        o = offsets(d)
        n.stop()
        not_ready = log_lines(n, r"Remote log metadata cache is not initialized")

        def restarted_on_bad_record():
            c._eq("metadata_consumer_stops_at", p["metadata_consumer_stops_at"], bad_offset)
            text = h.kfsck("remote", "--storage", rsm, f"--now={stopped_ms}", data)[1].splitlines()
            verdict = [l for l in text if l.startswith(f"{TOPIC}-0: ")]
            want = (f"{TOPIC}-0: the broker's metadata consumer stops at __remote_log_metadata-{mpart} offset "
                    f"{bad_offset}: restarted, it serves none of offsets {o['earliest']}..{o['earliest_local'] - 1} "
                    "(below the local log start) and uploads nothing")
            c._eq("verdict", verdict, [want])
            c._eq("consumer records below the local log start", blocked["records"], 0)
            if not not_ready or "ReplicaNotAvailableException" not in not_ready[0]["msg"]:
                raise AssertionError("no 'Remote log metadata cache is not initialized' in the broker log")
            c._eq("ListOffsets latest-tiered", o["latest_tiered"], -1)
            c._eq(f"objects of segment {upload_start}", bucket.segment_ids(upload_start), [])
            return "ReplicaNotAvailableException: " + not_ready[0]["msg"].splitlines()[1].split(": ", 1)[1][:60]
        suite.check("tiered: restarted on a garbage metadata record: kfsck vs remote reads and uploads",
                    restarted_on_bad_record)


ALL = [("tiered", scenario_tiered)]
