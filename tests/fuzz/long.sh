#!/bin/sh
# long.sh FUZZ_DIR: a fuzzing campaign over every libFuzzer target built by
# `make fuzz` (FUZZ_DIR/fuzz_<name>); `make fuzz-long` calls it.
#   FUZZ_SECONDS  seconds per target (default 600)
#   FUZZ_JOBS     targets run at the same time (default 1)
#   FUZZ_TARGETS  the names to run, space-separated (default: every target)
# Each target runs on FUZZ_DIR/work/<name>/, a fresh copy of its committed
# corpus tests/fuzz/corpus/<name>/ (which is never written to), with the
# -max_len its source's header comment gives (4096 if none). A crash, leak,
# timeout or out-of-memory input is saved in FUZZ_DIR/crashes/<name>/ and the
# target is started again for the time left, so one finding does not end its
# run. The log of each target is FUZZ_DIR/logs/<name>.log. At the end a
# table: target, executions, executions a second, corpus size (inputs in the
# work dir), findings (files in the crashes dir); exit 1 if anything was
# found.
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: sh tests/fuzz/long.sh FUZZ_DIR   (build/fuzz-lf, after make fuzz)" >&2
    exit 2
fi
DIR=$1
SECONDS_EACH=${FUZZ_SECONDS:-600}
JOBS=${FUZZ_JOBS:-1}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/fuzz/lib.sh"

# run_target NAME: fuzz NAME for SECONDS_EACH seconds (restarting after each
# finding); leaves FUZZ_DIR/logs/NAME.stats: executions and seconds run.
run_target() {
    name=$1 bin=$DIR/fuzz_$1
    work=$DIR/work/$name crashes=$DIR/crashes/$name log=$DIR/logs/$name.log
    rm -rf "$work"
    mkdir -p "$work" "$crashes" "$DIR/logs"
    [ -d "$ROOT/tests/fuzz/corpus/$name" ] && cp "$ROOT/tests/fuzz/corpus/$name"/* "$work"/ 2>/dev/null
    : >"$log"
    start=$(date +%s) execs=0
    while :; do
        before=$(find "$crashes" -type f | wc -l)
        left=$((start + SECONDS_EACH - $(date +%s)))
        [ "$left" -gt 0 ] || break
        round=$log.round
        "$bin" -max_total_time="$left" -max_len="$(fuzz_max_len "$name")" -timeout=30 \
            -print_final_stats=1 -artifact_prefix="$crashes/" "$work" >"$round" 2>&1
        rc=$?
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$round" | tail -n 1)
        # a crash ends the round before the final stats: its last status line
        [ -z "$n" ] && n=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$round" | tail -n 1)
        execs=$((execs + ${n:-0}))
        cat "$round" >>"$log"
        rm -f "$round"
        [ "$rc" -eq 0 ] && break
        if [ "$(find "$crashes" -type f | wc -l)" -eq "$before" ]; then
            echo "long.sh: fuzz_$name exited $rc with no finding saved; stopped (see $log)" >&2
            break
        fi
    done
    echo "$execs $(($(date +%s) - start))" >"$DIR/logs/$name.stats"
}

names=${FUZZ_TARGETS:-$(fuzz_names "$DIR")}
[ -n "$names" ] || { echo "long.sh: no targets in $DIR (run make fuzz)" >&2; exit 2; }
running=0
for name in $names; do
    [ -x "$DIR/fuzz_$name" ] || { echo "long.sh: no target $DIR/fuzz_$name" >&2; exit 2; }
    echo "long.sh: fuzz_$name for ${SECONDS_EACH}s"
    run_target "$name" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait
        running=0
    fi
done
wait

found=0
printf '%-12s %14s %10s %8s %9s\n' target executions exec/s corpus findings
for name in $names; do
    read -r execs secs <"$DIR/logs/$name.stats"
    corpus=$(find "$DIR/work/$name" -type f | wc -l)
    findings=$(find "$DIR/crashes/$name" -type f | wc -l)
    found=$((found + findings))
    printf '%-12s %14s %10s %8s %9s\n' "$name" "$execs" "$((execs / (secs > 0 ? secs : 1)))" "$corpus" "$findings"
done
if [ "$found" -gt 0 ]; then
    echo "long.sh: $found findings, in $DIR/crashes/ (reproduce: $DIR/fuzz_<name> FILE)"
    exit 1
fi
echo "long.sh: no findings"
