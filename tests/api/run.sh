#!/bin/sh
# run.sh BUILD: the library as a third party gets it. Installs the build
# (`make install` into a temporary DESTDIR), then builds tests/api/api_c.c
# and api_cpp.cpp with nothing but `pkg-config --cflags --libs kfsck` (the
# shared library), and api_c once more with `--static`, runs all three on the
# fixtures, checks that libkfsck.so exports the public API only and that
# the installed headers cite nothing that is not installed.
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
sed -e 's|/\*.*\*/||g' "$ROOT"/include/kfsck/*.h "$ROOT"/include/kfsck/sys/*.h | grep -o 'kf_[a-z0-9_]*[[:space:]]*(' |
    sed 's/[[:space:]]*($//' | sort -u >"$tmp/declared"
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
if [ -z "$extra" ] && [ -s "$tmp/exported" ]; then
    ok "libkfsck.so exports only the public API ($(wc -l <"$tmp/exported") functions)"
else
    echo "not declared in include/kfsck (or sys/) but exported: $extra"; bad "exports"
fi
# The installed headers document themselves: none points into what is not
# installed (src/, a .c file, docs/ but the man page, kfsck(1)).
cites=$(cd "$ROOT" && grep -n -E 'src/|[a-z0-9_]\.c\b|docs/|formats\.md' include/kfsck/*.h include/kfsck/sys/*.h)
if [ -z "$cites" ]; then
    ok "the installed headers cite nothing that is not installed"
else
    printf '%s\n' "$cites"; bad "headers citing src/ or docs/"
fi
# the layers (docs/architecture.md): bytes <- format <- records <- kraft <- jobs;
# no object of a layer calls a function defined in a layer above it. One
# `nm -A` over every object (lines "path.o:value T name" for a function it
# defines, "path.o: U name" for a symbol it uses) and one awk that reads
# that twice: first the layer defining each function, then every use.
objs=""
for c in "$ROOT"/src/bytes/*.c "$ROOT"/src/format/*.c "$ROOT"/src/records/*.c "$ROOT"/src/kraft/*.c \
         "$ROOT"/src/jobs/*/*.c; do
    o=${c#"$ROOT"/src/}
    objs="$objs $BUILD/src/${o%.c}.o"
done
if nm -A $objs >"$tmp/nm" 2>"$tmp/nm.err"; then
    upward=$(awk '
        function layer(obj) {
            sub(/:[^\/]*$/, "", obj); sub(/.*\/src\//, "", obj)
            return obj ~ /^bytes\// ? 0 : obj ~ /^format\// ? 1 : obj ~ /^records\// ? 2 : obj ~ /^kraft\// ? 3 : 4
        }
        NR == FNR { if ($2 == "T") def[$3] = layer($1); next }
        $2 == "U" && ($3 in def) && def[$3] > layer($1) {
            o = $1; sub(/:[^\/]*$/, "", o); sub(/.*\/src\//, "", o)
            printf " %s:%s", o, $3
        }' "$tmp/nm" "$tmp/nm")
else
    cat "$tmp/nm.err"; upward=" (nm failed)"
fi
if [ -z "$upward" ]; then
    ok "no layer calls a layer above it (bytes, format, records, kraft, jobs)"
else
    echo "calls upward:$upward"; bad "layers"
fi
# The same rule for #include: a public header is of the layer that defines
# the functions it declares (the highest of them; none: bytes), a file of
# src/LAYER/ of that layer, and neither includes a header of a layer above
# its own. kfsck.h, the umbrella, is of every layer: only
# src/bytes/common.c includes it, for the version it reports.
for h in "$ROOT"/include/kfsck/*.h "$ROOT"/include/kfsck/sys/*.h; do
    sed -e 's|/\*.*\*/||g' "$h" | grep -v '^[[:space:]]*static' | grep -o 'kf_[a-z0-9_]*[[:space:]]*(' |
        sed "s|[[:space:]]*(\$||; s|^|${h#"$ROOT"/include/} |"
done >"$tmp/declares"
(cd "$ROOT" && grep -H -o '^#include "[a-z_/]*/[a-z0-9_]*\.h"' include/kfsck/*.h include/kfsck/sys/*.h src/bytes/* src/format/* \
    src/records/* src/kraft/* src/jobs/*/*) | sed 's|:#include "| |; s|"$||' >"$tmp/includes"
upward=$(awk '
    function layer(obj) {
        sub(/:[^\/]*$/, "", obj); sub(/.*\/src\//, "", obj)
        return obj ~ /^bytes\// ? 0 : obj ~ /^format\// ? 1 : obj ~ /^records\// ? 2 : obj ~ /^kraft\// ? 3 : 4
    }
    function of(path) {
        if (path ~ /^(include\/)?kfsck\//) {
            sub(/^include\//, "", path)
            return path == "kfsck/kfsck.h" ? 4 : hl[path] + 0
        }
        sub(/^src\//, "", path)
        return path ~ /^bytes\// ? 0 : path ~ /^format\// ? 1 : path ~ /^records\// ? 2 : path ~ /^kraft\// ? 3 : path ~ /^jobs\// ? 4 : 5
    }
    FILENAME == ARGV[1] { if ($2 == "T") def[$3] = layer($1); next }
    FILENAME == ARGV[2] { if (($2 in def) && def[$2] > hl[$1]) hl[$1] = def[$2]; next }
    $1 == "include/kfsck/kfsck.h" || ($1 == "src/bytes/common.c" && $2 == "kfsck/kfsck.h") { next }
    of($2) > of($1) { printf " %s:%s", $1, $2 }' "$tmp/nm" "$tmp/declares" "$tmp/includes")
if [ -z "$upward" ] && [ -s "$tmp/includes" ]; then
    ok "no header or source file includes a header of a layer above its own"
else
    echo "includes upward:$upward"; bad "layers of the headers"
fi
# The rooms (docs/architecture.md): each layer's folder, and under jobs/ a
# folder per job family, are rooms; no two rooms depend on each other in a
# circle, by call or by #include. The edges of the room graph go to tsort,
# which names a loop if there is one.
room() { p=${1#src/}; case $p in jobs/*/*) p=${p#jobs/}; echo "jobs/${p%%/*}" ;; */*) echo "${p%%/*}" ;; esac; }
{
    awk '$2 == "T" { o = $1; sub(/:[^\/]*$/, "", o); sub(/.*\/src\//, "src/", o); def[$3] = o; next }
         $2 == "U" && ($3 in def) { o = $1; sub(/:[^\/]*$/, "", o); sub(/.*\/src\//, "src/", o); print o, def[$3] }' \
        "$tmp/nm" "$tmp/nm"
    grep '^src/' "$tmp/includes" | awk '$2 !~ /^kfsck\// { print $1, "src/" $2 }'
} | while read -r a b; do
    ra=$(room "$a") rb=$(room "$b")
    [ "$ra" = "$rb" ] || echo "$ra $rb"
done | sort -u >"$tmp/rooms"
if [ -s "$tmp/rooms" ] && tsort "$tmp/rooms" >/dev/null 2>"$tmp/tsort.err"; then
    ok "no circle across rooms ($(tr ' ' '\n' <"$tmp/rooms" | sort -u | wc -l) rooms, $(wc -l <"$tmp/rooms") edges)"
else
    cat "$tmp/tsort.err"; bad "rooms"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
