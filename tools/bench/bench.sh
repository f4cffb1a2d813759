#!/bin/sh
# bench.sh: `make bench`. Generates the benchmark data once into
# bench-data/scale-SCALE/ (gitignored; tools/bench/bench_gen.py: 1 GiB segments
# with 1 KiB records uncompressed, zstd and lz4, a 512 MiB segment of
# 100-byte records, the codecs' payloads, three damaged copies of a
# partition, a data dir of 64 partitions, a data dir whose checkpoint has 10
# million lines, 10 million offset commits, a 1-million-record KRaft metadata
# log, 10 million __remote_log_metadata records, the scan files of 20
# brokers, a data dir of 10,000 small partitions), then measures issue 7's
# figures (and issue 20's memory of scan, issue 15's replicas over scan
# files, issue 21's predict against scan, issue 38's remote replay, issue
# 35's kafka-dump-log.sh and broker recovery: tools/bench/bench_kafka.py,
# with the broker suite's pinned Kafka where Java and Maven are there),
# each a ratio against a limit or a peer measured in the same run
# (tools/bench/bench_run.py), and prints them in one table with the machine it
# ran on.
# Env: KFSCK (binary, default ./kfsck), BENCH_DATA (default bench-data),
# BENCH_SCALE (data sizes times this, 0.01 to 4; default 1, the full size:
# BENCH_SCALE=0.1 is a quick run while developing).
# Exit 0 when every command ran as expected, whatever the figures; 1 when a
# command failed; 3 when the bench could not start.
set -eu
cd "$(dirname "$0")/../.."

KFSCK=${KFSCK:-./kfsck}
DATA=${BENCH_DATA:-bench-data}
SCALE=${BENCH_SCALE:-1}
PY=/usr/bin/python3

if [ ! -x "$KFSCK" ]; then
    echo "bench: $KFSCK not built (run: make)" >&2
    exit 3
fi

# The data dir of this scale, and the free disk it still needs: the data
# (about 8.5 GiB at full size) unless it is there, and 2.5 GiB for repair's
# and merge's output.
dir=$("$PY" -c 'import sys; sys.path.insert(0, "tools/bench"); import bench_gen as g
s = g.parse_scale(sys.argv[2])
print(g.data_dir(sys.argv[1], s) if s else "")' "$DATA" "$SCALE")
if [ -z "$dir" ]; then
    echo "bench: BENCH_SCALE must be a number from 0.01 to 4, not '$SCALE'" >&2
    exit 3
fi
mkdir -p "$DATA"
need_mb=$(awk -v s="$SCALE" -v have="$([ -f "$dir/bench.json" ] && echo 1 || echo 0)" \
    'BEGIN { printf "%d", (have ? 2.5 : 11) * 1024 * s }')
avail_mb=$(df -Pk "$DATA" | awk 'NR == 2 { printf "%d", $4 / 1024 }')
if [ "${avail_mb:-0}" -lt "$need_mb" ]; then
    echo "bench: need about $need_mb MiB free in $DATA, have $avail_mb MiB" >&2
    exit 3
fi

"$PY" tools/bench/bench_gen.py gen "$DATA" "$SCALE" || exit 3
echo "bench: $("$KFSCK" --version 2>/dev/null | head -n 1)"
exec "$PY" tools/bench/bench_run.py "$KFSCK" "$DATA" "$SCALE"
