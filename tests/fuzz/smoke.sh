#!/bin/sh
# smoke.sh FUZZ_DIR: a short libFuzzer run of every target built by `make
# fuzz` (FUZZ_DIR/fuzz_<name>), so a target that crashes on its own seeds,
# or soon after, fails `make check` (which runs it through `make fuzz-smoke`
# when clang has libFuzzer: smoke.sh --probe). Each target first runs every
# input of its committed corpus tests/fuzz/corpus/<name>/, then mutates them
# for FUZZ_SMOKE_SECONDS seconds (default 2), in a temporary copy (the
# committed corpus is never written to); a finding is kept in
# FUZZ_DIR/crashes/<name>/ and the target's output printed. Ends with the
# line "N passed, N failed" and exits 1 if a target failed.
#
# smoke.sh --probe [CC]: exit 0 when CC (default clang) links a libFuzzer
# target with ASan and UBSan, else 1 (nothing printed).
set -u

if [ "${1:-}" = --probe ]; then
    cc=${2:-clang}
    command -v "$cc" >/dev/null 2>&1 || exit 1
    d=$(mktemp -d "${TMPDIR:-/tmp}/kfsck-fuzzprobe.XXXXXX") || exit 1
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$d/p.c"
    "$cc" -fsanitize=fuzzer,address,undefined -o "$d/p" "$d/p.c" >/dev/null 2>&1
    rc=$?
    rm -rf "$d"
    exit "$rc"
fi

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: sh tests/fuzz/smoke.sh FUZZ_DIR | --probe [CC]" >&2
    exit 2
fi
DIR=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/fuzz/lib.sh"
SECS=${FUZZ_SMOKE_SECONDS:-2}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfsck-fuzzsmoke.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# LeakSanitizer cannot run under ptrace or in some containers (see
# tests/run.sh): then without leak checks, ASan and UBSan still on.
leaks=1
for name in $(fuzz_names "$DIR"); do
    if "$DIR/fuzz_$name" -runs=0 2>&1 </dev/null |
        grep -Eq 'LeakSanitizer (has encountered a fatal error|does not work under ptrace)'; then
        echo "smoke.sh: LeakSanitizer cannot run in this environment: leak checks off" >&2
        leaks=0
    fi
    break
done

passed=0 failed=0
for name in $(fuzz_names "$DIR"); do
    work=$tmp/$name crashes=$DIR/crashes/$name
    mkdir -p "$work" "$crashes"
    [ -d "$ROOT/tests/fuzz/corpus/$name" ] && cp "$ROOT/tests/fuzz/corpus/$name"/* "$work"/ 2>/dev/null
    "$DIR/fuzz_$name" -max_total_time="$SECS" -max_len="$(fuzz_max_len "$name")" -timeout=20 -detect_leaks=$leaks \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$work" >"$tmp/out" 2>&1 </dev/null
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/out" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        printf 'ok    fuzz/fuzz_%-32s %s executions in %ss\n' "$name" "${execs:-?}" "$SECS"
        passed=$((passed + 1))
    else
        printf 'FAIL  fuzz/fuzz_%-32s exit %d (inputs kept in %s)\n' "$name" "$rc" "$crashes"
        echo "----- output of fuzz_$name -----"
        tail -n 60 "$tmp/out"
        echo "----- end of fuzz_$name -----"
        failed=$((failed + 1))
    fi
    rm -rf "$work"
done
if [ $((passed + failed)) -eq 0 ]; then
    echo "smoke.sh: no fuzz targets in $DIR (did make fuzz fail?)"
    failed=1
fi
echo "fuzz-lf: $((passed + failed)) targets, ${SECS}s each"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
