# lib.sh: what tests/fuzz/smoke.sh and tests/fuzz/long.sh share (sourced).

# The targets built in a fuzz dir: the names after fuzz_, one a line.
fuzz_names() { # FUZZ_DIR
    for b in "$1"/fuzz_*; do
        [ -f "$b" ] && [ -x "$b" ] && echo "${b##*/fuzz_}"
    done
}

# The -max_len a target's header comment gives for its libFuzzer run
# ("build/fuzz-lf/fuzz_<name> -max_len=N ..."), or 4096.
fuzz_max_len() { # NAME
    n=$(sed -n 's/.*fuzz-lf\/fuzz_[a-z0-9_]* -max_len=\([0-9][0-9]*\).*/\1/p' "$ROOT/tests/fuzz/fuzz_$1.c" | head -n 1)
    echo "${n:-4096}"
}
