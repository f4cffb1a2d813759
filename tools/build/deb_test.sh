#!/bin/sh
# deb_test.sh: `make deb-test` (after `make deb` and `make static`): what an
# operator installs, used on a system that never built kfsck. As root.
#   1. the packages: a fresh Debian 12 root (debootstrap --variant=minbase,
#      made once into build/deb-test/base and copied anew for every run),
#      `apt-get install ./dist/*.deb` in it, then: that the install pulled
#      nothing but kfsck's packages and what they declare (Depends,
#      Pre-Depends, Recommends, recursively); `kfsck --version`; `kfsck
#      verify` of a healthy segment (exit 0) and of a damaged partition
#      (exit 1, crc_mismatch); `man kfsck` (with man-db, which an operator
#      has); the bash completion as bash-completion loads it on demand; and
#      a C program built with `pkg-config --cflags --libs kfsck` (gcc and
#      pkg-config installed for it after the check of what was pulled),
#      tests/api/api_c.c, run on the fixtures, and once more linked with
#      the static library.
#   2. the static binary: dist/kfsck-static alone in an empty directory
#      (nothing but itself and the data), run there with chroot: verify of
#      the same segment and partition.
# Prints each step with its time and ends with "N passed, N failed".
# Env: DEB_TEST_DIR (default build/deb-test), DEB_TEST_SUITE (bookworm).
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
dir=${DEB_TEST_DIR:-build/deb-test}
suite=${DEB_TEST_SUITE:-bookworm}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "deb_test: must run as root (debootstrap, chroot)" >&2; exit 2; }
set -- dist/kfsck_*.deb dist/libkfsck0_*.deb dist/libkfsck-dev_*.deb dist/kfsck-static
for f in "$@"; do
    [ -f "$f" ] || { echo "deb_test: $f missing (run: make deb static)" >&2; exit 2; }
done

passed=0 failed=0
start=$(date +%s)
step() { echo "== $(($(date +%s) - start))s: $*"; }
ok() { passed=$((passed + 1)); echo "deb_test: ok: $1"; }
bad() { failed=$((failed + 1)); echo "deb_test: FAILED: $1"; }

# ---- the fresh root ----------------------------------------------------
base=$dir/base
if [ ! -x "$base/bin/bash" ]; then
    step "debootstrap --variant=minbase $suite into $base (once)"
    mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
    [ -n "$mirror" ] || mirror=$(awk '/^deb /{ print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    rm -rf "$base"
    debootstrap --variant=minbase "$suite" "$base" "${mirror:-http://deb.debian.org/debian}" \
        >"$dir/debootstrap.log" 2>&1 || { tail -n 20 "$dir/debootstrap.log"; exit 1; }
    # The host's apt sources (updates and security too), in place of the
    # one line debootstrap wrote.
    if cp /etc/apt/sources.list.d/*.sources "$base/etc/apt/sources.list.d/" 2>/dev/null; then
        rm -f "$base/etc/apt/sources.list"
    else
        cp /etc/apt/sources.list "$base/etc/apt/" 2>/dev/null || true
    fi
fi
root=$dir/root
step "fresh copy of the minimal root"
rm -rf "$root"
cp -a "$base" "$root"
cp /etc/resolv.conf "$root/etc/" 2>/dev/null || true
mounted=""
cleanup() {
    for d in $mounted; do umount "$root/$d" 2>/dev/null || true; done
}
trap cleanup EXIT
for d in proc dev dev/pts sys; do
    mount --bind "/$d" "$root/$d" && mounted="$d $mounted"
done
mkdir -p "$root/srv/kfsck/dist"
cp dist/kfsck_*.deb dist/libkfsck0_*.deb dist/libkfsck-dev_*.deb "$root/srv/kfsck/dist/"
cp -r fixtures tests/api/api_c.c "$root/srv/kfsck/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive sh -c "cd /srv/kfsck && $1"; }
SEG=fixtures/datadir/orders-0/00000000000000000000.log
DAMAGED=fixtures/datadir/clicks-0

# ---- 1. the packages ---------------------------------------------------
step "apt-get install ./dist/*.deb"
in_root "apt-get -qq update"
in_root "dpkg-query -W -f='\${Package}\n' | sort" >"$dir/before"
if in_root "apt-get install -y ./dist/*.deb" >"$dir/install.log" 2>&1; then
    ok "apt-get install ./dist/*.deb"
else
    tail -n 20 "$dir/install.log"; bad "apt-get install ./dist/*.deb"
fi
in_root "dpkg-query -W -f='\${Package}\n' | sort" >"$dir/after"
comm -13 "$dir/before" "$dir/after" >"$dir/pulled"
in_root "apt-cache depends --recurse --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
    kfsck libkfsck0 libkfsck-dev" | grep -v '^ ' | sed 's/:.*//' | sort -u >"$dir/declared"
extra=$(comm -23 "$dir/pulled" "$dir/declared" | tr '\n' ' ')
echo "deb_test: pulled $(wc -l <"$dir/pulled") packages: $(tr '\n' ' ' <"$dir/pulled")"
if [ -z "$extra" ] && grep -qx kfsck "$dir/pulled" && grep -qx libkfsck-dev "$dir/pulled"; then
    ok "the install pulled only kfsck's packages and what they declare"
else
    bad "the install pulled what no package of kfsck declares: $extra"
fi

step "kfsck in the fresh root"
version=$(sed -n 's/^#define KFSCK_VERSION "\(.*\)"/\1/p' include/kfsck/kfsck.h)
if in_root "kfsck --version" | grep -q "^kfsck $version "; then ok "kfsck --version"; else bad "kfsck --version"; fi
if in_root "kfsck verify $SEG" >"$dir/verify.out" 2>&1 && grep -q ' - ok$' "$dir/verify.out"; then
    ok "kfsck verify of a healthy segment: exit 0"
else
    cat "$dir/verify.out"; bad "kfsck verify of a healthy segment"
fi
rc=0; in_root "kfsck verify --json $DAMAGED" >"$dir/damaged.out" 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q '"code":"crc_mismatch"' "$dir/damaged.out"; then
    ok "kfsck verify of a damaged partition: exit 1, crc_mismatch"
else
    cat "$dir/damaged.out"; bad "kfsck verify of a damaged partition (exit $rc)"
fi

step "man kfsck, the bash completion (man-db and bash-completion installed)"
in_root "apt-get install -y --no-install-recommends man-db bash-completion" >"$dir/extra.log" 2>&1 ||
    { tail -n 20 "$dir/extra.log"; bad "installing man-db and bash-completion"; }
if in_root "MANPAGER=cat MANWIDTH=80 man kfsck 2>/dev/null" | grep -q "merge"; then
    ok "man kfsck"
else
    bad "man kfsck"
fi
got=$(in_root "bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader kfsck;
    COMP_WORDS=(kfsck dump --decode me); COMP_CWORD=3; _kfsck; echo \"\${COMPREPLY[*]}\"'" 2>&1)
if [ "$got" = metadata ]; then ok "bash completion of kfsck dump --decode me"; else bad "bash completion: '$got'"; fi

step "a C program built with pkg-config (gcc and pkg-config installed)"
in_root "apt-get install -y --no-install-recommends gcc libc6-dev pkg-config" >"$dir/gcc.log" 2>&1 ||
    { tail -n 20 "$dir/gcc.log"; bad "installing gcc and pkg-config"; }
if in_root 'cc -std=c11 -Wall -Werror -o /tmp/api_c api_c.c $(pkg-config --cflags --libs kfsck) &&
        /tmp/api_c fixtures' >"$dir/api.out" 2>&1; then
    ok "C program: pkg-config --cflags --libs kfsck, the shared library"
else
    cat "$dir/api.out"; bad "C program with pkg-config --cflags --libs kfsck"
fi
if in_root 'cc -std=c11 -Wall -Werror -o /tmp/api_c_static api_c.c $(pkg-config --cflags kfsck) \
        "$(pkg-config --variable=libdir kfsck)/libkfsck.a" \
        $(pkg-config --static --libs kfsck | sed "s/-lkfsck//") && /tmp/api_c_static fixtures' \
        >"$dir/api_static.out" 2>&1; then
    ok "C program: the static library, pkg-config --static --libs kfsck"
else
    cat "$dir/api_static.out"; bad "C program with the static library"
fi
cleanup
mounted=""

# ---- 2. the static binary ----------------------------------------------
step "dist/kfsck-static alone in an empty root"
empty=$dir/empty
rm -rf "$empty"
mkdir -p "$empty/data"
cp dist/kfsck-static "$empty/"
cp "$SEG" "$empty/data/segment.log"
cp -r "$DAMAGED" "$empty/data/"
if chroot "$empty" /kfsck-static verify /data/segment.log >"$dir/static.out" 2>&1 &&
    grep -q ' - ok$' "$dir/static.out"; then
    ok "kfsck-static verify in an empty root: exit 0"
else
    cat "$dir/static.out"; bad "kfsck-static verify in an empty root"
fi
rc=0; chroot "$empty" /kfsck-static verify --json "/data/${DAMAGED##*/}" >"$dir/static_damaged.out" 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q '"code":"crc_mismatch"' "$dir/static_damaged.out"; then
    ok "kfsck-static verify of a damaged partition in an empty root: exit 1"
else
    cat "$dir/static_damaged.out"; bad "kfsck-static verify of a damaged partition (exit $rc)"
fi
rm -rf "$empty"

step "done"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
