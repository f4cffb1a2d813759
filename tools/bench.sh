#!/bin/sh
# bench.sh: `make bench`. Generates, once, two 1 GiB-scale Kafka segments in
# bench-data/ (gitignored): one uncompressed with ~1 KiB records, one zstd
# with 1 GiB of records, plus a 10-million-commit __consumer_offsets segment
# and a 1-million-record KRaft metadata log (tools/bench_gen.py gen), then
# measures `cat` and `./kfsck verify` bandwidth from the page cache and kfsck's
# peak memory, the replay figures of `offsets` and `metadata` and the `stats`
# timings, and prints tables (tools/bench_gen.py run). Needs ~1.5 GiB free disk.
# Env: KFSCK (binary, default ./kfsck), BENCH_DATA (default bench-data).
set -eu
cd "$(dirname "$0")/.."

KFSCK=${KFSCK:-./kfsck}
DATA=${BENCH_DATA:-bench-data}
PY=/usr/bin/python3

if [ ! -x "$KFSCK" ]; then
    echo "bench: $KFSCK not built (run: make)" >&2
    exit 3
fi

if [ ! -f "$DATA/bench.json" ]; then
    mkdir -p "$DATA"
    avail_kb=$(df -Pk "$DATA" | awk 'NR == 2 { print $4 }')
    if [ "${avail_kb:-0}" -lt $((1600 * 1024)) ]; then
        echo "bench: need about 1.5 GiB free in $DATA, have $((avail_kb / 1024)) MiB" >&2
        exit 3
    fi
fi
"$PY" tools/bench_gen.py gen "$DATA"
echo "bench: $("$KFSCK" --version 2>/dev/null | head -n 1), $(nproc) cores"
"$PY" tools/bench_gen.py run "$KFSCK" "$DATA"
