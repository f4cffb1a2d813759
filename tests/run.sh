#!/bin/sh
# run.sh BUILD: runs every test of one build directory (`make test` calls it
# with build/, `make test SAN=1` with build-san/, `make test-threads
# SAN=thread` with build-tsan/):
#   - the cmocka unit tests          BUILD/tests/test_*
#   - the fuzz-target replays        BUILD/fuzz/replay_<name> on
#                                    tests/fuzz/corpus/<name>/ and fixtures/
#   - the public API as installed    tests/api/run.sh (normal build only)
#   - the Python encoders and models tests/tools/test_*.py (python unittest,
#     of tools/gen/, tools/model/    no kfsck binary, so the normal build only)
#   - the end-to-end tests           tests/e2e/test_*.py (python unittest, with
#                                    KFSCK=BUILD/kfsck and KFSCK_ROOT=repo root;
#                                    one file per command, test_<command>.py,
#                                    and cross-cutting ones; their helper
#                                    modules are tests/e2e/kfsck_e2e.py and,
#                                    for KRaft, tests/e2e/kraft_e2e.py)
# Counts individual tests where the runner reports them (cmocka's
# "[  PASSED  ] N test(s)." lines, unittest's "Ran N tests" / "FAILED (...)"),
# else one per program; prints the output of every program that failed; ends
# with the line "N passed, N failed" and exits 1 if anything failed.
# Env: KFSCK_TEST_TIMEOUT (seconds per program, default 900).
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: sh tests/run.sh BUILD_DIR   (e.g. build, build-san or build-tsan)" >&2
    exit 2
fi
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
PY=/usr/bin/python3
TIMEOUT=${KFSCK_TEST_TIMEOUT:-900}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfsck-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/empty"

# Is $1 a test binary? (regular and executable: skips gcc's .d files and the like)
is_bin() { [ -f "$1" ] && [ -x "$1" ]; }

# ---- Sanitizer build ------------------------------------------------------
case "${BUILD##*/}" in *tsan*)
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 allocator_may_return_null=1"
    export TSAN_OPTIONS ;;
esac
san=0
case "${BUILD##*/}" in *tsan*) ;; *san*) san=1 ;; esac
[ "${SAN:-0}" = 1 ] && san=1
if [ -x "$BUILD/kfsck" ] && grep -q __asan_init "$BUILD/kfsck" 2>/dev/null; then san=1; fi
if [ "$san" = 1 ]; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export ASAN_OPTIONS UBSAN_OPTIONS
    # LeakSanitizer needs ptrace-like access to the process (it stops the
    # threads to scan them); it works as root here, but under strace/gdb or
    # in some containers it dies with "LeakSanitizer has encountered a fatal
    # error" / "does not work under ptrace". Probe once with a sanitized
    # binary and, if so, run without leak checking (ASan and UBSan still on).
    probe="" probe_arg=""
    if is_bin "$BUILD/kfsck"; then
        probe="$BUILD/kfsck" probe_arg=--version
    else
        for p in "$BUILD"/fuzz/replay_*; do
            if is_bin "$p"; then probe=$p probe_arg=$tmp/empty; break; fi
        done
    fi
    if [ -n "$probe" ]; then
        if "$probe" "$probe_arg" 2>&1 >/dev/null | grep -Eq 'LeakSanitizer (has encountered a fatal error|does not work under ptrace)'; then
            echo "run.sh: LeakSanitizer cannot run in this environment (ptrace restricted): leak checks off" >&2
            ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
        fi
    fi
    echo "run.sh: sanitizer build: ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS"
fi

# ---- Running and counting -------------------------------------------------
passed=0 failed=0 skipped=0 programs=0 failed_programs=""

# Sum of the first number on the lines that match a sed expression.
sum_of() { # sed-expr file
    sed -n "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'
}

show_output() {
    n=$(wc -l <"$1")
    echo "----- output of $2 (exit $3) -----"
    if [ "$n" -gt 600 ]; then
        head -n 150 "$1"
        echo "[... $((n - 450)) lines left out ...]"
        tail -n 300 "$1"
    else
        cat "$1"
    fi
    echo "----- end of $2 -----"
}

# run_prog KIND LABEL CMD...   KIND: cmocka | unittest | replay | counts
run_prog() {
    kind=$1 label=$2
    shift 2
    out="$tmp/out"
    timeout -k 10 "$TIMEOUT" "$@" >"$out" 2>&1 </dev/null
    rc=$?
    p=0 f=0 s=0
    case $kind in
    cmocka)
        p=$(sum_of 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$out")
        f=$(sum_of 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$out")
        s=$(sum_of 's/^\[  SKIPPED \] \([0-9][0-9]*\) test.*/\1/p' "$out")
        ;;
    unittest)
        res=$(awk '
            /^Ran [0-9]+ tests? in/ { ran += $2 }
            /^(OK|FAILED)( \(|$)/ {
                if (match($0, /\(.*\)/)) {
                    n = split(substr($0, RSTART + 1, RLENGTH - 2), a, ", ")
                    for (i = 1; i <= n; i++) {
                        split(a[i], kv, "=")
                        if (kv[1] == "failures" || kv[1] == "errors" || kv[1] == "unexpected successes") f += kv[2]
                        else if (kv[1] == "skipped") s += kv[2]
                    }
                }
            }
            END { print ran + 0, f + 0, s + 0 }' "$out")
        read -r ran f s <<EOF
$res
EOF
        p=$((ran - f - s))
        [ "$p" -lt 0 ] && p=0
        ;;
    replay) ;;
    counts) # a runner that ends with "N passed, N failed"
        p=$(sed -n 's/^\([0-9][0-9]*\) passed, [0-9][0-9]* failed$/\1/p' "$out" | tail -n 1)
        f=$(sed -n 's/^[0-9][0-9]* passed, \([0-9][0-9]*\) failed$/\1/p' "$out" | tail -n 1)
        p=${p:-0} f=${f:-0}
        ;;
    esac
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1 # crashed, timed out, or failed without saying how many
    fi
    if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -eq 0 ] && [ "$s" -eq 0 ]; then
        p=1 # a program that reports no count: one test
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    programs=$((programs + 1))
    note=""
    if [ "$kind" = replay ] && grep -q '^replayed ' "$out"; then
        note=" ($(grep '^replayed ' "$out" | tail -n 1))"
    fi
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && note=" (TIMEOUT after ${TIMEOUT}s)"
    if [ "$f" -gt 0 ]; then
        printf 'FAIL  %-40s %d passed, %d failed%s\n' "$label" "$p" "$f" "$note"
        show_output "$out" "$label" "$rc"
        failed_programs="$failed_programs $label"
    else
        printf 'ok    %-40s %d passed%s%s\n' "$label" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$note"
    fi
}

# Unit tests (cmocka). Run from the repo root so they find fixtures/.
for t in "$BUILD"/tests/test_*; do
    is_bin "$t" || continue
    CMOCKA_MESSAGE_OUTPUT=STDOUT run_prog cmocka "unit/${t##*/}" "$t"
done

# Fuzz replays: the target's corpus plus every fixture.
for r in "$BUILD"/fuzz/replay_*; do
    is_bin "$r" || continue
    name=${r##*/replay_}
    set --
    [ -d "tests/fuzz/corpus/$name" ] && set -- "$@" "tests/fuzz/corpus/$name"
    [ -d fixtures ] && set -- "$@" fixtures
    [ $# -eq 0 ] && set -- "$tmp/empty"
    run_prog replay "fuzz/replay_$name" "$r" "$@"
done

# End-to-end tests against the built binary.
for e in tests/e2e/test_*.py; do
    [ -f "$e" ] || continue
    KFSCK="$BUILD/kfsck" KFSCK_ROOT="$ROOT" PYTHONDONTWRITEBYTECODE=1 \
        run_prog unittest "e2e/${e##*/}" "$PY" -m unittest discover -v \
        -s tests/e2e -t tests/e2e -p "${e##*/}"
done

# The Python side of the fixtures (tools/gen/, tools/model/): it does not run kfsck,
# so once, with the normal build.
if [ "${BUILD##*/}" = build ]; then
    for t in tests/tools/test_*.py; do
        [ -f "$t" ] || continue
        KFSCK_ROOT="$ROOT" PYTHONDONTWRITEBYTECODE=1 \
            run_prog unittest "tools/${t##*/}" "$PY" -m unittest discover -v \
            -s tests/tools -t tests/tools -p "${t##*/}"
    done
fi

# The library as a third party links it (installed; C, C++, shared and
# static; exported symbols): the normal build only, whose files `make
# install` takes.
if [ "${BUILD##*/}" = build ] && [ -f "$BUILD/libkfsck.a" ]; then
    run_prog counts "api/run.sh" sh tests/api/run.sh "$BUILD"
fi

if [ "$programs" -eq 0 ]; then
    echo "run.sh: no test programs found under $BUILD (did the build fail?)"
    failed=1
fi
[ -n "$failed_programs" ] && echo "failed:$failed_programs"
echo "${BUILD##*/}: $programs test programs"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
