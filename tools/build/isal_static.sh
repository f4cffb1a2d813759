#!/bin/sh
# isal_static.sh OUTDIR: puts a static ISA-L archive, OUTDIR/libisal.a, for
# `make static` to link dist/kfsck-static with. Debian ships libisal's shared
# library only, so the archive is built from Debian's own source package of
# the libisal-dev installed here (same version as the headers kfsck compiles
# against): apt-get fetches it with a private list of the system's apt
# sources turned into deb-src (the system's apt configuration is left as it
# is), and ISA-L's own Makefile.unx builds its crc unit (kfsck uses
# crc32_iscsi and crc32_gzip_refl only) with nasm. A libisal.a the system
# has is used as it is; one built before for the same version is kept.
set -eu
out=${1:?usage: isal_static.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)

sys=$(${CC:-cc} -print-file-name=libisal.a)
if [ "$sys" != libisal.a ] && [ -f "$sys" ]; then
    ln -sf "$sys" "$out/libisal.a"
    echo "isal_static: using $sys"
    exit 0
fi

src=$(dpkg-query -W -f='${source:Package}' libisal-dev)
ver=$(dpkg-query -W -f='${source:Version}' libisal-dev)
if [ -f "$out/libisal.a" ] && [ "$(cat "$out/libisal.version" 2>/dev/null)" = "$src $ver" ]; then
    exit 0
fi
echo "isal_static: building libisal.a from Debian's source of $src $ver"

apt="$out/apt"
rm -rf "$apt" "$out/src"
mkdir -p "$apt/sources" "$apt/lists/partial" "$apt/cache/archives/partial" "$out/src"
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$apt/sources/${f##*/}"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" >"$apt/sources/${f##*/}.list"
done
set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/sources" \
    -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o APT::Sandbox::User=root -qq
apt-get "$@" update
(cd "$out/src" && apt-get "$@" source --download-only "$src=$ver")

orig=$(ls "$out/src"/*.orig.tar.* | head -n 1)
tar -xf "$orig" -C "$out/src"
dir=$(find "$out/src" -mindepth 2 -maxdepth 2 -name Makefile.unx | head -n 1)
[ -n "$dir" ] || { echo "isal_static: no Makefile.unx in $orig" >&2; exit 1; }
dir=${dir%/Makefile.unx}
make -s -C "$dir" -f Makefile.unx -j2 units=crc lib >"$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log"; exit 1; }
for sym in crc32_iscsi crc32_gzip_refl; do
    nm "$dir/bin/isa-l.a" | grep -q " T $sym\$" ||
        { echo "isal_static: $sym missing from the built archive" >&2; exit 1; }
done
cp "$dir/bin/isa-l.a" "$out/libisal.a"
echo "$src $ver" >"$out/libisal.version"
echo "isal_static: $out/libisal.a"
