#!/bin/sh
# deps.sh: install what kfsck needs to build and test (run by `make deps`,
# the first step of `make demo`, `make check` and .ci/run). Checks for a C
# compiler, clang with libFuzzer (the fuzz smoke runs), make, pkg-config,
# the compression/hash/JSON/test libraries (pkg-config module and header),
# promtool and systemd-analyze (tests of contrib/ and of scan's Prometheus
# output), chromium (the report's browser tests), a JDK and Maven (the broker suite), and Debian's /usr/bin/python3 with the modules
# the test and fixture generators use. Installs whatever is missing with apt-get (as
# root, or through non-interactive sudo); prints the command and exits 1 when
# it can do neither. When nothing is missing it prints one line and never
# touches apt-get.
#
# deps.sh --bench (run by `make bench` only): also what the benchmark
# (tools/bench/bench.sh) compares kfsck with and measures it by: the zstd and lz4
# programs, util-linux's fincore (page-cache residency), GNU time (peak RSS),
# fio (the disk's own speed with many reads in flight), and python3-crc32c
# (kafka-python's C CRC-32C, so the kafka-python peer is not held back by its
# pure-Python fallback).
#
# deps.sh --package (run by `make deb`, `make static` and `make deb-test`
# only): also what they need: debhelper and dpkg-dev (dpkg-buildpackage),
# lintian, nasm and xz-utils (ISA-L's static archive, built from Debian's
# source by tools/build/isal_static.sh), debootstrap (the fresh root of
# tools/build/deb_test.sh).
set -u

bench=0 package=0
case "${1:-}" in
    --bench) bench=1 ;;
    --package) package=1 ;;
    "") ;;
    *) echo "usage: deps.sh [--bench | --package]" >&2; exit 2 ;;
esac

missing=""
add() {
    case " $missing " in
        *" $1 "*) ;;
        *) missing="${missing:+$missing }$1" ;;
    esac
}

have() { command -v "$1" >/dev/null 2>&1; }

# Package installed according to dpkg ("install ok installed").
pkg_ok() {
    have dpkg-query || return 1
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# Tools.
have gcc || add gcc
# g++: the public headers are also compiled as C++ (tests/api).
have g++ || add g++
# clang with libFuzzer and its sanitizer runtimes (libclang-rt-dev, which
# clang's packages only recommend): the fuzz smoke runs in `make check`.
have clang || add clang
if [ -z "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a 2>/dev/null)" ]; then
    add libclang-rt-dev
fi
have make || add make
have pkg-config || add pkg-config
# gcc without the C library headers cannot build anything.
if [ ! -f /usr/include/stdio.h ]; then add libc6-dev; fi

# A header is present if it is in pkg-config's include dirs for the module or
# in the default system include dirs.
header_ok() { # module header
    dirs="/usr/include /usr/local/include"
    if have gcc; then
        ma=$(gcc -print-multiarch 2>/dev/null) && [ -n "$ma" ] && dirs="$dirs /usr/include/$ma"
    fi
    if have pkg-config; then
        for f in $(pkg-config --cflags-only-I "$1" 2>/dev/null); do
            dirs="$dirs ${f#-I}"
        done
        d=$(pkg-config --variable=includedir "$1" 2>/dev/null) && [ -n "$d" ] && dirs="$dirs $d"
    fi
    for d in $dirs; do
        [ -f "$d/$2" ] && return 0
    done
    return 1
}

# Libraries: pkg-config module, header, Debian package.
for spec in zlib:zlib.h:zlib1g-dev liblz4:lz4frame.h:liblz4-dev \
            libzstd:zstd.h:libzstd-dev snappy:snappy-c.h:libsnappy-dev \
            libxxhash:xxhash.h:libxxhash-dev libisal:isa-l/crc.h:libisal-dev \
            jansson:jansson.h:libjansson-dev \
            cmocka:cmocka.h:libcmocka-dev; do
    mod=${spec%%:*}; rest=${spec#*:}; hdr=${rest%%:*}; pkg=${rest#*:}
    if have pkg-config; then
        if pkg-config --exists "$mod" 2>/dev/null && header_ok "$mod" "$hdr"; then
            continue
        fi
    elif pkg_ok "$pkg" && header_ok "$mod" "$hdr"; then
        # pkg-config itself is missing (and will be installed); trust dpkg.
        continue
    fi
    add "$pkg"
done

# promtool (Debian's prometheus package) checks `scan --format prometheus`
# (tests/e2e/test_scan_prom.py); systemd-analyze checks the units in
# contrib/systemd/ (tests/e2e/test_contrib.py).
have promtool || add prometheus
# A JDK and Maven: the broker suite (make check-broker, tests/broker/) fetches
# a pinned Apache Kafka with Maven and runs it.
have javac || add openjdk-17-jdk-headless
have mvn || add maven
have systemd-analyze || add systemd
# Debian's chromium: the browser tests of `kfsck report`
# (tests/e2e/test_report_browser.py) open its pages headless, with no network.
[ -x /usr/lib/chromium/chromium ] || add chromium

# Python: Debian's interpreter with its packaged modules (not pip's).
PY=/usr/bin/python3
if [ -x "$PY" ]; then
    pymissing=$("$PY" - <<'EOF' 2>/dev/null
import importlib
for mod, pkg in (("kafka", "python3-kafka"), ("lz4", "python3-lz4"),
                 ("zstandard", "python3-zstandard"), ("snappy", "python3-snappy"),
                 ("xxhash", "python3-xxhash")):
    try:
        importlib.import_module(mod)
    except Exception:
        print(pkg)
EOF
    ) || pymissing="python3-kafka python3-lz4 python3-zstandard python3-snappy python3-xxhash"
    for p in $pymissing; do add "$p"; done
else
    for p in python3 python3-kafka python3-lz4 python3-zstandard python3-snappy python3-xxhash; do
        add "$p"
    done
fi

# Benchmark only.
if [ "$bench" -eq 1 ]; then
    have zstd || add zstd
    have lz4 || add lz4
    # fincore is in util-linux-extra from Debian 12 on (util-linux before).
    have fincore || add util-linux-extra
    [ -x /usr/bin/time ] || add time
    have fio || add fio
    if [ -x "$PY" ]; then
        "$PY" -c 'import crc32c' 2>/dev/null || add python3-crc32c
    else
        add python3-crc32c
    fi
fi

# Packages and the static binary only.
if [ "$package" -eq 1 ]; then
    have dh || add debhelper
    have dpkg-buildpackage || add dpkg-dev
    have lintian || add lintian
    have nasm || add nasm
    have xz || add xz-utils
    have debootstrap || add debootstrap
fi

if [ -z "$missing" ]; then
    if [ "$package" -eq 1 ]; then
        echo "deps: all build, test and packaging dependencies are present"
    elif [ "$bench" -eq 1 ]; then
        echo "deps: all build, test and benchmark dependencies are present"
    else
        echo "deps: all build and test dependencies are present"
    fi
    exit 0
fi

echo "deps: missing: $missing"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif have sudo && sudo -n true 2>/dev/null; then
    SUDO="sudo"
else
    echo "deps: need root to install them; run:" >&2
    echo "  sudo sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing'" >&2
    exit 1
fi

if ! have apt-get; then
    echo "deps: apt-get not found; install these packages (Debian names) by hand: $missing" >&2
    exit 1
fi

$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update || {
    echo "deps: apt-get update failed" >&2; exit 1; }
# Before Debian 12 fincore came with util-linux itself.
case " $missing " in
    *" util-linux-extra "*)
        if ! apt-cache show util-linux-extra >/dev/null 2>&1; then
            missing=$(echo " $missing " | sed 's/ util-linux-extra / util-linux /; s/^ //; s/ $//')
        fi ;;
esac
# shellcheck disable=SC2086  # word splitting of $missing is intended
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing || {
    echo "deps: apt-get install failed for: $missing" >&2; exit 1; }
echo "deps: installed: $missing"
