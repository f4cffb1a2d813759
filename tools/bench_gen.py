#!/usr/bin/python3
"""bench_gen.py: data generator and measuring helper for `make bench`
(tools/bench.sh). Uses Debian's python3 and kafka-python.

  bench_gen.py gen DIR
      Writes two 1 GiB-scale magic-2 segments, once (skipped when present):
        DIR/bench-plain-0/00000000000000000000.log  uncompressed, ~1 KiB
            records, 16 a batch, file size just under 1 GiB (segment.bytes);
        DIR/bench-zstd-0/00000000000000000000.log   zstd batches of 64
            records holding 1 GiB of record bytes in all.
      To be fast it builds a few thousand distinct batches with kafka-python's
      DefaultRecordBatchBuilder and writes them over and over, rewriting each
      copy's base offset (bytes 0-7) so offsets keep increasing, and its
      partitionLeaderEpoch (bytes 12-15): the v2 CRC-32C covers neither, so
      every copy stays a valid batch.

      Also DIR/__consumer_offsets-0/00000000000000000000.log: 10 million
      offset commits (key type 1, value v3) over 100,000 distinct
      (group, topic, partition) keys, 1,000 distinct batches written 100
      times with rewritten base offsets, for the replay figures of
      `kfsck offsets`.

      And DIR/kraft-bench/__cluster_metadata-0/: a KRaft metadata log of
      1 million records for `kfsck metadata` (gen_metadata): a setup part
      (leader change, kraft.version and voters, metadata.version, three
      brokers, 2,000 topics of 8 partitions with configs), then 2,000
      distinct batches of 32 partition changes (ISR shrink/expand, leader
      moves), config changes, broker heartbeats and no-ops, written over and
      over with rewritten base offsets (every repetition replays cleanly:
      the changes only touch partitions and configs the setup created).
      Records come from tools/kraftfmt.py, batches from kafka-python.

  bench_gen.py gen-metadata DIR [RECORDS]
      Only the metadata log (RECORDS, default 1,000,000; smaller for a check).

  bench_gen.py run KFSCK DIR
      For each segment: `cat FILE > /dev/null` and `KFSCK verify FILE`
      bandwidth (best of 3, after one warm-up read so both read from the page
      cache), their ratio, and kfsck's peak memory: RssAnon (heap + stack +
      other anonymous pages, sampled from /proc/PID/status every 1 ms in a
      separate run) and VmHWM (peak total RSS, which also counts the pages of
      the memory-mapped input, so about the file size). Prints a table.
      Then repair and `offsets` replay figures, and `stats` with and without
      the sink catch-up simulation (--sink-partition-duration) per segment.
"""

import json
import os
import random
import struct
import subprocess
import sys
import time

from kafka.record.default_records import DefaultRecordBatchBuilder

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kraftfmt as kf  # noqa: E402

GIB = 1 << 30
SEGMENT_BYTES = GIB  # the broker's default segment.bytes
STAMP = "bench.json"
GEN_VERSION = 1

WORDS = (b"kafka broker topic partition offset consumer producer record batch "
         b"segment index leader replica commit fetch produce cluster group "
         b"member session timeout order user event click view cart checkout "
         b"payment shipped delivered cancelled region eu us ap price amount "
         b"currency EUR USD status ok error retry latency ms bytes").split()


def value_pool(rng, n, size):
    """n distinct ~size-byte JSON-ish values (compress about 3-4x with zstd)."""
    pool = []
    for i in range(n):
        words = []
        length = 0
        while length < size - 120:
            w = rng.choice(WORDS)
            words.append(w)
            length += len(w) + 1
        body = b" ".join(words)
        v = (b'{"id":%d,"user":"user-%05d","amount":%d.%02d,"text":"%s"}'
             % (i, rng.randrange(100000), rng.randrange(10000), rng.randrange(100), body))
        pool.append(v[:size] if len(v) > size else v + b" " * (size - len(v)))
    return pool


def build_batches(rng, pool, nbatches, per_batch, codec):
    """Distinct batches as (bytes, record_count, record_bytes)."""
    out = []
    ts0 = 1700000000000
    k = 0
    for b in range(nbatches):
        builder = DefaultRecordBatchBuilder(
            magic=2, compression_type=codec, is_transactional=False,
            producer_id=-1, producer_epoch=-1, base_sequence=-1,
            batch_size=1 << 30)
        rec_bytes = 0
        for r in range(per_batch):
            key = b"key-%08d" % k
            value = pool[rng.randrange(len(pool))]
            meta = builder.append(r, timestamp=ts0 + k, key=key, value=value,
                                  headers=[("source", b"bench")])
            rec_bytes += meta.size
            k += 1
        out.append((bytes(builder.build()), per_batch, rec_bytes))
    return out


def write_segment(outdir, name, batches, stop):
    """Write batches round-robin until stop(file_bytes, record_bytes, next_batch_size)."""
    path = os.path.join(outdir, name)
    tmp = path + ".tmp"
    offset = 0
    file_bytes = 0
    rec_total = 0
    nrec = 0
    nb = 0
    pack = struct.Struct(">q").pack_into
    pack_epoch = struct.Struct(">i").pack_into
    with open(tmp, "wb", buffering=8 << 20) as f:
        i = 0
        while True:
            data, count, rec_bytes = batches[i % len(batches)]
            if stop(file_bytes, rec_total, len(data)):
                break
            b = bytearray(data)
            pack(b, 0, offset)
            pack_epoch(b, 12, 7)
            f.write(b)
            offset += count
            nrec += count
            nb += 1
            file_bytes += len(b)
            rec_total += rec_bytes
            i += 1
    os.rename(tmp, path)
    return {"file": name, "size": file_bytes, "batches": nb, "records": nrec,
            "record_bytes": rec_total, "last_offset": offset - 1}


def commit_batches(nbatches, per_batch, nkeys):
    """Offset-commit batches: record key type 1, value version 3."""
    out = []
    k = 0
    ts0 = 1700000000000
    for b in range(nbatches):
        builder = DefaultRecordBatchBuilder(
            magic=2, compression_type=DefaultRecordBatchBuilder.CODEC_NONE, is_transactional=False,
            producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 30)
        for r in range(per_batch):
            slot = (k * 7919) % nkeys
            group = b"group-%04d" % (slot // 100)
            topic = b"topic-%d" % (slot // 10 % 10)
            key = (struct.pack(">hh", 1, len(group)) + group + struct.pack(">h", len(topic)) + topic
                   + struct.pack(">i", slot % 10))
            value = struct.pack(">hqih", 3, k, 5, 0) + struct.pack(">q", ts0 + k)
            builder.append(r, timestamp=ts0 + k, key=key, value=value, headers=[])
            k += 1
        out.append((bytes(builder.build()), per_batch, 0))
    return out


COMMITS = 10_000_000


def gen_commits(outdir):
    d = os.path.join(outdir, "__consumer_offsets-0")
    name = os.path.join("__consumer_offsets-0", "%020d.log" % 0)
    stamp = os.path.join(d, "bench.json")
    try:
        with open(stamp) as f:
            meta = json.load(f)
        if os.path.getsize(os.path.join(outdir, name)) == meta["size"]:
            return meta
    except (OSError, ValueError, KeyError):
        pass
    os.makedirs(d, exist_ok=True)
    batches = commit_batches(1000, 100, 100_000)
    total = [0]

    def stop(fb, rb, n):
        total[0] += 1
        return total[0] > COMMITS // 100

    meta = write_segment(outdir, name, batches, stop)
    meta["name"] = "offsets"
    meta["keys"] = 100_000
    with open(stamp, "w") as f:
        json.dump(meta, f)
    return meta


METADATA_RECORDS = 1_000_000
META_TOPICS, META_PARTITIONS = 2000, 8


def _meta_uuid(kind, n):
    return struct.pack(">4sIq", kind, 0x4b667363, n)      # fixed, never all-zero


def metadata_setup(t0):
    """The setup part of the bench metadata log: [(batch bytes, count)]."""
    out, off = [], 0

    def add(recs, control=False):
        nonlocal off
        if control:
            data = kf.control_batch(off, [kf.encode_control(c, d) for c, d in recs], t0 + off, 1)
        else:
            data = kf.data_batch(off, [kf.encode_metadata(*r) for r in recs], t0 + off, 1)
        out.append((data, len(recs)))
        off += len(recs)

    add([(kf.LEADER_CHANGE, {"LeaderId": 1, "Voters": [{"VoterId": 1}], "GrantingVoters": [{"VoterId": 1}]})],
        control=True)
    add([(kf.KRAFT_VERSION, {"KRaftVersion": 1}),
         (kf.KRAFT_VOTERS, {"Voters": [{"VoterId": 1, "VoterDirectoryId": _meta_uuid(b"dir-", 1),
                                        "Endpoints": [{"Name": "CONTROLLER", "Host": "c1", "Port": 9093}],
                                        "KRaftVersionFeature": {"MinSupportedVersion": 0,
                                                                "MaxSupportedVersion": 1}}]})],
        control=True)
    add([(12, 0, {"Name": "metadata.version", "FeatureLevel": 23})])
    epochs = {}
    for b in (1, 2, 3):
        epochs[b] = off
        add([(0, 3, {"BrokerId": b, "IncarnationId": _meta_uuid(b"inc-", b), "BrokerEpoch": off,
                     "EndPoints": [{"Name": "PLAINTEXT", "Host": "b%d" % b, "Port": 9092, "SecurityProtocol": 0}],
                     "Features": [{"Name": "metadata.version", "MinSupportedVersion": 7,
                                   "MaxSupportedVersion": 23}],
                     "Rack": None, "Fenced": True, "InControlledShutdown": False,
                     "IsMigratingZkBroker": False, "LogDirs": [_meta_uuid(b"dir-", b)]})])
        add([(17, 2, {"BrokerId": b, "BrokerEpoch": epochs[b], "Fenced": -1})])
    for t in range(META_TOPICS):
        tid = _meta_uuid(b"top-", t)
        recs = [(2, 0, {"Name": "bench-topic-%05d" % t, "TopicId": tid})]
        for p in range(META_PARTITIONS):
            reps = [1 + (t + p + i) % 3 for i in range(3)]
            recs.append((3, 2, {"PartitionId": p, "TopicId": tid, "Replicas": reps, "Isr": reps,
                                "RemovingReplicas": [], "AddingReplicas": [], "Leader": reps[0],
                                "LeaderEpoch": 0, "PartitionEpoch": 0,
                                "Directories": [_meta_uuid(b"dir-", r) for r in reps]}))
        recs.append((4, 0, {"ResourceType": 2, "ResourceName": "bench-topic-%05d" % t,
                            "Name": "retention.ms", "Value": "604800000"}))
        add(recs)
    return out, off, epochs


def metadata_changes(rng, nbatches, per_batch, epochs, t0):
    """Distinct batches of changes that replay cleanly in any repetition."""
    out = []
    for n in range(nbatches):
        recs = []
        for _ in range(per_batch):
            t, p = rng.randrange(META_TOPICS), rng.randrange(META_PARTITIONS)
            tid = _meta_uuid(b"top-", t)
            reps = [1 + (t + p + i) % 3 for i in range(3)]
            k = rng.random()
            if k < 0.6:
                recs.append((5, 2, {"PartitionId": p, "TopicId": tid,
                                    "Isr": reps[:rng.choice((1, 2, 3))]}))
            elif k < 0.8:
                recs.append((5, 2, {"PartitionId": p, "TopicId": tid, "Leader": rng.choice(reps),
                                    "Isr": reps}))
            elif k < 0.9:
                recs.append((4, 0, {"ResourceType": 2, "ResourceName": "bench-topic-%05d" % t,
                                    "Name": rng.choice(("retention.ms", "segment.bytes", "max.message.bytes")),
                                    "Value": str(rng.randrange(1, 1 << 30))}))
            elif k < 0.95:
                b = rng.choice((1, 2, 3))
                recs.append((17, 0, {"BrokerId": b, "BrokerEpoch": epochs[b], "Fenced": 0}))
            else:
                recs.append((20, 0, {}))
        data = kf.data_batch(0, [kf.encode_metadata(*r) for r in recs], t0 + n, 1)
        out.append((data, len(recs), 0))
    return out


def gen_metadata(outdir, total=METADATA_RECORDS):
    d = os.path.join(outdir, "kraft-bench", "__cluster_metadata-0")
    name = os.path.join("kraft-bench", "__cluster_metadata-0", "%020d.log" % 0)
    stamp = os.path.join(d, "bench.json")
    try:
        with open(stamp) as f:
            meta = json.load(f)
        if meta["records"] == total and os.path.getsize(os.path.join(outdir, name)) == meta["size"]:
            return meta
    except (OSError, ValueError, KeyError):
        pass
    os.makedirs(d, exist_ok=True)
    t0 = 1767225600000
    setup, nsetup, epochs = metadata_setup(t0)
    changes = metadata_changes(random.Random(20260101), 2000, 32, epochs, t0 + nsetup)
    batches = [(data, count, 0) for data, count in setup]
    before = [0, 0]          # records before the batch being looked at, records so far

    def stop(fb, rb, n):
        # the setup batches once, then changes until `total` records are written
        return before[0] >= total

    class Stream(list):
        """Setup batches, then the change batches round-robin (write_segment
        asks for item i % len: len is huge, so i itself)."""
        def __getitem__(self, i):
            item = batches[i] if i < len(batches) else changes[(i - len(batches)) % len(changes)]
            before[0] = before[1]
            before[1] += item[1]
            return item

        def __len__(self):
            return 1 << 62

    meta = write_segment(outdir, name, Stream(), stop)
    with open(os.path.join(d, "partition.metadata"), "w") as f:
        f.write("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ")
    with open(os.path.join(d, "leader-epoch-checkpoint"), "w") as f:
        f.write("0\n1\n7 0\n")            # write_segment stamps epoch 7 on every batch
    with open(os.path.join(d, "quorum-state"), "w") as f:
        f.write('{"leaderId":1,"leaderEpoch":7,"votedId":1,"votedDirectoryId":"%s","data_version":1}'
                % kf.cf.uuid_str(_meta_uuid(b"dir-", 1)))
    meta["name"] = "metadata"
    with open(stamp, "w") as f:
        json.dump(meta, f)
    return meta


def gen(outdir):
    stamp = os.path.join(outdir, STAMP)
    try:
        with open(stamp) as f:
            meta = json.load(f)
        if meta.get("version") == GEN_VERSION and all(
                os.path.getsize(os.path.join(outdir, s["file"])) == s["size"]
                for s in meta["segments"]):
            print("bench: using existing %s" % outdir)
            return
    except (OSError, ValueError, KeyError):
        pass
    t0 = time.time()
    rng = random.Random(20240611)
    pool = value_pool(rng, 4096, 1000)
    segs = []

    d = os.path.join(outdir, "bench-plain-0")
    os.makedirs(d, exist_ok=True)
    plain = build_batches(rng, pool, 3000, 16, DefaultRecordBatchBuilder.CODEC_NONE)
    seg = write_segment(outdir, os.path.join("bench-plain-0", "%020d.log" % 0), plain,
                        lambda fb, rb, n: fb + n > SEGMENT_BYTES)
    seg["name"] = "plain"
    segs.append(seg)

    d = os.path.join(outdir, "bench-zstd-0")
    os.makedirs(d, exist_ok=True)
    zstd = build_batches(rng, pool, 1000, 64, DefaultRecordBatchBuilder.CODEC_ZSTD)
    seg = write_segment(outdir, os.path.join("bench-zstd-0", "%020d.log" % 0), zstd,
                        lambda fb, rb, n: rb >= GIB)
    seg["name"] = "zstd"
    segs.append(seg)

    with open(stamp + ".tmp", "w") as f:
        json.dump({"version": GEN_VERSION, "segments": segs}, f, indent=1)
    os.rename(stamp + ".tmp", stamp)
    print("bench: generated %s in %.0f s" % (outdir, time.time() - t0))


# ---- measuring --------------------------------------------------------------

def timed(cmd, stdout):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t, p.returncode, ru.ru_maxrss


def status_kb(pid, fields):
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in fields:
                    out[k] = int(v.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return out


def sampled(cmd):
    """Run cmd, sampling RssAnon/VmHWM every ms. Returns peaks in KiB and exit code."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    anon = hwm = 0
    while True:
        s = status_kb(p.pid, ("RssAnon", "VmHWM"))
        anon = max(anon, s.get("RssAnon", 0))
        hwm = max(hwm, s.get("VmHWM", 0))
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return anon, max(hwm, ru.ru_maxrss), p.returncode
        time.sleep(0.001)


def run(kfsck, outdir):
    with open(os.path.join(outdir, STAMP)) as f:
        meta = json.load(f)
    rows = []
    for s in meta["segments"]:
        path = os.path.join(outdir, s["file"])
        size = s["size"]
        with open(os.devnull, "wb") as null:
            timed(["cat", path], null)  # warm-up: file into the page cache
            cat = min(timed(["cat", path], null)[0] for _ in range(3))
            runs = [timed([kfsck, "verify", path], null) for _ in range(3)]
        ver = min(r[0] for r in runs)
        rc = runs[0][1]
        anon, hwm, _ = sampled([kfsck, "verify", path])
        rows.append((s["name"], size, s["records"], s["record_bytes"], cat, ver, rc, anon, hwm))

    mb = 1e6
    hdr = ("segment", "size MB", "records", "cat MB/s", "verify MB/s", "verify/cat",
           "rec MB/s", "heap+stack RSS", "total RSS", "exit")
    lines = []
    for name, size, nrec, rbytes, cat, ver, rc, anon, hwm in rows:
        lines.append((name, "%.0f" % (size / mb), "%d" % nrec,
                      "%.0f" % (size / mb / cat), "%.0f" % (size / mb / ver),
                      "%.2f" % (cat / ver), "%.0f" % (rbytes / mb / ver),
                      "%.1f MiB" % (anon / 1024), "%.1f MiB" % (hwm / 1024), "%d" % rc))
    widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(hdr)]
    fmt = "  ".join(("%%-%ds" if i == 0 else "%%%ds") % w for i, w in enumerate(widths))
    print(fmt % hdr)
    for l in lines:
        print(fmt % l)
    print("cat, verify: best of 3 page-cache reads; verify/cat: verify bandwidth as a "
          "fraction of cat's;\nrec MB/s: record bytes (decompressed) per second; "
          "heap+stack RSS: peak RssAnon (sampled every 1 ms);\n"
          "total RSS: VmHWM, includes the mapped input file's pages; "
          "exit: verify's exit code (0 clean, 1 damage).")
    bad = [r for r in rows if r[6] not in (0, 1)]

    # repair: copy a healthy 1 GiB segment with rebuilt indexes (default and --salvage)
    seg = next(s for s in meta["segments"] if s["name"] == "plain")
    part = os.path.join(outdir, os.path.dirname(seg["file"]))
    out = os.path.join(outdir, "repair-out")
    print()
    print("repair    size MB  seconds   MB/s   heap+stack RSS  total RSS  exit")
    for mode in ([], ["--salvage"]):
        with open(os.devnull, "wb") as null:
            ts = []
            for _ in range(2):
                subprocess.run(["rm", "-rf", out])
                ts.append(timed([kfsck, "repair", *mode, "-o", out, part], null)[0])
        subprocess.run(["rm", "-rf", out])
        anon, hwm, rc = sampled([kfsck, "repair", *mode, "-o", out, part])
        subprocess.run(["rm", "-rf", out])
        t = min(ts)
        print("%-8s  %7.0f  %7.2f  %5.0f  %11.1f MiB  %5.1f MiB  %4d"
              % ("salvage" if mode else "default", seg["size"] / mb, t, seg["size"] / mb / t, anon / 1024,
                 hwm / 1024, rc))
        if rc != 0:
            bad.append(rc)

    # replay: `kfsck offsets` over 10 million commits
    c = gen_commits(outdir)
    part = os.path.join(outdir, "__consumer_offsets-0")
    with open(os.devnull, "wb") as null:
        timed(["cat", os.path.join(outdir, c["file"])], null)
        runs = [timed([kfsck, "offsets", "--json", part], null) for _ in range(2)]
    t = min(r[0] for r in runs)
    anon, hwm, rc = sampled([kfsck, "offsets", "--json", part])
    print()
    print("replay    commits   distinct keys  size MB  seconds  commits/s   heap+stack RSS  total RSS  exit")
    print("offsets  %9d  %13d  %7.0f  %7.2f  %9.0f  %11.1f MiB  %5.1f MiB  %4d"
          % (c["records"], c["keys"], c["size"] / mb, t, c["records"] / t, anon / 1024, hwm / 1024, rc))
    if rc != 0:
        bad.append(rc)

    # stats: the time histogram, and the sink catch-up simulation (one more
    # pass over the timestamps: it should run at the speed of stats)
    print()
    print("stats     size MB  stats s  MB/s   sink s  MB/s   sink/stats  exit")
    for s in meta["segments"]:
        part = os.path.join(outdir, os.path.dirname(s["file"]))
        sink = [kfsck, "stats", "--json", "--sink-partition-duration", "1h", "--flush-size", "10000", part]
        with open(os.devnull, "wb") as null:
            timed(["cat", os.path.join(outdir, s["file"])], null)
            st = min(timed([kfsck, "stats", "--json", part], null)[0] for _ in range(3))
            runs = [timed(sink, null) for _ in range(3)]
        sk = min(r[0] for r in runs)
        rc = runs[0][1]
        print("%-8s  %7.0f  %7.2f  %5.0f  %7.2f  %5.0f  %10.2f  %4d"
              % (s["name"], s["size"] / mb, st, s["size"] / mb / st, sk, s["size"] / mb / sk, sk / st, rc))
        if rc != 0:
            bad.append(rc)

    # replay: `kfsck metadata` over a 1 million record KRaft metadata log
    m = gen_metadata(outdir)
    part = os.path.join(outdir, "kraft-bench", "__cluster_metadata-0")
    with open(os.devnull, "wb") as null:
        timed(["cat", os.path.join(outdir, m["file"])], null)
        runs = [timed([kfsck, "metadata", "--json", part], null) for _ in range(2)]
    t = min(r[0] for r in runs)
    anon, hwm, rc = sampled([kfsck, "metadata", "--json", part])
    print()
    print("replay    records  size MB  seconds  records/s   heap+stack RSS  total RSS  exit")
    print("metadata  %7d  %7.0f  %7.2f  %9.0f  %11.1f MiB  %5.1f MiB  %4d"
          % (m["records"], m["size"] / mb, t, m["records"] / t, anon / 1024, hwm / 1024, rc))
    if rc != 0:
        bad.append(rc)
    return 1 if bad else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "gen":
        gen(argv[2])
        t0 = time.time()
        gen_commits(argv[2])
        print("bench: offsets data ready (%.0f s)" % (time.time() - t0))
        t0 = time.time()
        gen_metadata(argv[2])
        print("bench: metadata log ready (%.0f s)" % (time.time() - t0))
        return 0
    if len(argv) in (3, 4) and argv[1] == "gen-metadata":
        meta = gen_metadata(argv[2], int(argv[3]) if len(argv) == 4 else METADATA_RECORDS)
        print("bench: %d metadata records, %d bytes" % (meta["records"], meta["size"]))
        return 0
    if len(argv) == 4 and argv[1] == "run":
        return run(argv[2], argv[3])
    sys.stderr.write("usage: bench_gen.py gen DIR | gen-metadata DIR [RECORDS] | run KFSCK DIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
