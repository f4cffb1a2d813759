#!/bin/sh
# deb_symbols.sh [--check] SHLIB: writes debian/libkfsck0.symbols, the
# symbols file of the Debian package libkfsck0, from the library's export
# list (tools/build/exports.sh over include/kfsck/*.h and sys/*.h: its version node and the
# names it makes global) and the built shared library SHLIB (e.g.
# build/libkfsck.so.0.2.0): the names of the list that SHLIB defines (the
# list may name a type that a header's prototype pattern matched, which is
# no symbol). A symbol already in the file keeps the version it has there
# (the first that exported it); a new one gets KFSCK_VERSION.
# --check: writes nothing, exits 1 when the file is not what it would write
# (tests/e2e/test_packaging.py; the package build's dpkg-gensymbols, at
# check level 4, also fails on any difference with the built library).
set -eu
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
shlib=$(cd "$(dirname "${1:?usage: deb_symbols.sh [--check] SHLIB}")" && pwd)/${1##*/}
cd "$(dirname "$0")/../.."
defined=$(nm -D --defined-only "$shlib" | awk '{ sub(/@.*/, "", $3); print $3 }')
file=debian/libkfsck0.symbols
version=$(sed -n 's/^#define KFSCK_VERSION "\(.*\)"/\1/p' include/kfsck/kfsck.h)
map=$(sh tools/build/exports.sh include/kfsck/*.h include/kfsck/sys/*.h)
node=$(printf '%s\n' "$map" | sed -n '1s/^\([A-Za-z0-9_]*\) {$/\1/p')
[ -n "$node" ] || { echo "deb_symbols: no version node in tools/build/exports.sh's output" >&2; exit 1; }

new=$( {
    echo "libkfsck.so.0 libkfsck0 #MINVER#"
    echo "* Build-Depends-Package: libkfsck-dev"
    { echo "$node"; printf '%s\n' "$map" | sed -n 's/^    \(kf_[a-z0-9_]*\);$/\1/p'; } |
    while read -r sym; do
        printf '%s\n' "$defined" | grep -qx "$sym" || continue
        old=$(sed -n "s/^ $sym@$node \\(.*\\)\$/\\1/p" "$file" 2>/dev/null | head -n 1)
        echo " $sym@$node ${old:-$version}"
    done
} )

if [ "$check" -eq 1 ]; then
    if [ "$(cat "$file" 2>/dev/null)" != "$new" ]; then
        echo "deb_symbols: $file is not the library's export list (run: sh tools/build/deb_symbols.sh $1)" >&2
        printf '%s\n' "$new" | diff "$file" - >&2 || true
        exit 1
    fi
    exit 0
fi
printf '%s\n' "$new" >"$file"
