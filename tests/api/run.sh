#!/bin/sh
# run.sh BUILD: the library as a third party gets it. Installs the build
# (`make install` into a temporary DESTDIR), then builds tests/api/api_c.c
# and api_cpp.cpp with nothing but `pkg-config --cflags --libs kfsck` (the
# shared library), and api_c once more with `--static`, runs all three on the
# fixtures, and checks that libkfsck.so exports the public API only.
# Prints "N passed, N failed" like the other runners.
set -u
BUILD=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfsck-api.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "api: ok: $1"; }
bad() { failed=$((failed + 1)); echo "api: FAILED: $1"; }

if ! make -s -C "$ROOT" install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    echo "0 passed, 1 failed"
    exit 1
fi
export PKG_CONFIG_PATH="$tmp/root/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
flags=$(pkg-config --cflags --libs kfsck) || { echo "0 passed, 1 failed"; exit 1; }
sflags=$(pkg-config --static --cflags --libs kfsck)
lib="$tmp/root/usr/lib"

if cc -std=c11 -Wall -Wextra -Werror -o "$tmp/api_c" "$ROOT/tests/api/api_c.c" $flags 2>"$tmp/cc.log" &&
    LD_LIBRARY_PATH="$lib" "$tmp/api_c" "$ROOT/fixtures"; then
    ok "C program, shared library, pkg-config --cflags --libs"
else
    cat "$tmp/cc.log"; bad "C program, shared library"
fi
if cc -std=c11 -Wall -Wextra -Werror -o "$tmp/api_c_static" "$ROOT/tests/api/api_c.c" \
        "$lib/libkfsck.a" $(pkg-config --static --libs-only-other --libs-only-l kfsck | sed 's/-lkfsck//') \
        $(pkg-config --cflags kfsck) 2>"$tmp/cc2.log" && "$tmp/api_c_static" "$ROOT/fixtures"; then
    ok "C program, static library, pkg-config --static"
else
    cat "$tmp/cc2.log"; echo "static flags: $sflags"; bad "C program, static library"
fi
if g++ -std=c++17 -Wall -Wextra -Werror -o "$tmp/api_cpp" "$ROOT/tests/api/api_cpp.cpp" $flags 2>"$tmp/cxx.log" &&
    LD_LIBRARY_PATH="$lib" "$tmp/api_cpp" "$ROOT/fixtures"; then
    ok "C++ program"
else
    cat "$tmp/cxx.log"; bad "C++ program"
fi
# exported: exactly functions the public headers declare
nm -D --defined-only "$lib/libkfsck.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort >"$tmp/exported"
sed -e 's|/\*.*\*/||g' "$ROOT"/include/kfsck/*.h | grep -o 'kf_[a-z0-9_]*[[:space:]]*(' |
    sed 's/[[:space:]]*($//' | sort -u >"$tmp/declared"
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
if [ -z "$extra" ] && [ -s "$tmp/exported" ]; then
    ok "libkfsck.so exports only the public API ($(wc -l <"$tmp/exported") functions)"
else
    echo "not declared in include/kfsck but exported: $extra"; bad "exports"
fi
# the layers (docs/architecture.md): bytes <- format <- records <- jobs;
# no object of a layer calls a function defined in a layer above it
layer_of() { case $1 in */bytes/*) echo 0 ;; */format/*) echo 1 ;; */records/*) echo 2 ;; */jobs/*) echo 3 ;; esac; }
: >"$tmp/defs"
objs=""
for c in "$ROOT"/src/bytes/*.c "$ROOT"/src/format/*.c "$ROOT"/src/records/*.c "$ROOT"/src/jobs/*.c; do
    objs="$objs $BUILD/src/${c#"$ROOT"/src/}"
done
objs=$(echo "$objs" | sed 's/\.c\( \|$\)/.o\1/g')
for o in $objs; do
    l=$(layer_of "$o")
    nm "$o" | awk -v l="$l" '$2 == "T" { print $3, l }' >>"$tmp/defs"
done
upward=""
for o in $objs; do
    l=$(layer_of "$o")
    for s in $(nm "$o" | awk '$1 == "U" { print $2 }'); do
        dl=$(awk -v s="$s" '$1 == s { print $2; exit }' "$tmp/defs")
        if [ -n "$dl" ] && [ "$dl" -gt "$l" ]; then upward="$upward ${o##*/src/}:$s"; fi
    done
done
if [ -z "$upward" ]; then
    ok "no layer calls a layer above it (bytes, format, records, jobs)"
else
    echo "calls upward:$upward"; bad "layers"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
