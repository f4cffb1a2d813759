#!/usr/bin/env bash
# tools/dev/outputs.sh KFSCK OUTDIR: runs every command of KFSCK, with the
# options that change what it prints, over every fixture and every real-data
# directory beside the checkout (../shared/real-data, when present), and
# writes each run's stdout, stderr and exit code to a file of OUTDIR. Two
# runs' OUTDIRs compared with `diff -r` show whether a change altered any
# output: a refactoring must leave them byte-identical. Run from the
# repository root; paths are kept relative so the outputs compare.
set -u
kfsck=$1
out=$2
mkdir -p "$out"
# A fixed scratch name (repair and merge print the paths they write).
tmp=${TMPDIR:-/tmp}/kfsck-outputs.scratch
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
n=0

# run NAME ARGS...: one run, its output in OUTDIR/NAME.
run() {
    local name=$1; shift
    name=${name//\//_}
    { "$kfsck" "$@" </dev/null >"$out/$name.out" 2>"$out/$name.err"; echo "rc=$?" >>"$out/$name.err"; }
    n=$((n + 1))
}

# tree NAME DIR: what a repair or merge wrote (names, sizes, checksums, and
# the reports whole).
tree() {
    (cd "$2" 2>/dev/null && find . -type f | LC_ALL=C sort | while read -r f; do
        printf '%s %s\n' "$f" "$(md5sum <"$f" | cut -c1-32)"
        case $f in *.json) sed 's/^/  /' "$f";; esac
    done) >"$out/${1//\//_}.tree"
}

inputs=()
for d in fixtures/*/ fixtures/*/*/ fixtures/*/*/*/; do
    [ -d "$d" ] && inputs+=("${d%/}")
done
real=../shared/real-data
if [ -d "$real" ]; then
    for d in "$real"/*/; do inputs+=("${d%/}"); done
fi

for c in dump verify offsets groups repair merge scan stats metadata txns remote predict replicas compaction report; do
    run "help-$c" "$c" --help
done
run help --help
run version --version

for p in "${inputs[@]}"; do
    k=${p#../shared/}
    run "verify-$k" verify "$p"
    run "verify-json-$k" verify --json "$p"
    run "scan-$k" scan "$p"
    run "scan-json-$k" scan --json --jobs 1 "$p"
    run "offsets-$k" offsets "$p"
    run "offsets-json-$k" offsets --json "$p"
    run "offsets-history-$k" offsets --history --json "$p"
    run "offsets-csv-$k" offsets --format csv "$p"
    run "offsets-reset-$k" offsets --format reset-csv "$p"
    run "offsets-connect-$k" offsets --connect --json "$p"
    run "groups-$k" groups "$p"
    run "groups-json-$k" groups --json "$p"
    run "stats-$k" stats "$p"
    run "stats-json-$k" stats --json --by-partition "$p"
    run "sink-$k" stats --json --sink-partition-duration 10m --flush-size 50 "$p"
    run "txns-$k" txns "$p"
    run "txns-json-$k" txns --json "$p"
    run "metadata-$k" metadata "$p"
    run "metadata-json-$k" metadata --json "$p"
    run "dump-dir-$k" dump --json --records "$p"
    run "remote-$k" remote --now 2026-01-01 "$p"
    run "remote-json-$k" remote --now 2026-01-01 --json "$p"
    run "predict-$k" predict --now 2026-01-01 --verbose "$p"
    run "predict-json-$k" predict --now 2026-01-01 --json "$p"
    run "predict-unclean-$k" predict --now 2026-01-01 --assume-unclean --json "$p"
    run "compaction-$k" compaction --now 2026-01-01 --verbose "$p"
    run "compaction-json-$k" compaction --now 2026-01-01 --json "$p"
    run "replicas-$k" replicas "$p"
    run "replicas-json-$k" replicas --json "$p"
    rm -f "$tmp/report.html"
    run "report-$k" report --json --now 2026-01-01 -o "$tmp/report.html" "$p"
    [ -f "$tmp/report.html" ] && sed "s#$tmp#TMP#g" "$tmp/report.html" >"$out/${k//\//_}.report.html"
    rm -rf "$tmp/r"
    run "repair-$k" repair --json -o "$tmp/r" "$p"
    tree "repair-$k" "$tmp/r"
    rm -rf "$tmp/r"
    run "salvage-$k" repair --salvage --json -o "$tmp/r" "$p"
    tree "salvage-$k" "$tmp/r"
done

# Every file alone, for dump (and the decoders).
while IFS= read -r f; do
    k=${f#../shared/}
    run "dump-$k" dump "$f"
    run "dump-json-$k" dump --json --records --payload "$f"
done < <(find fixtures "$real" -type f ! -name '*.md' 2>/dev/null | LC_ALL=C sort)

# Merges of every set of copies in the fixtures.
for set in fixtures/replicas fixtures/offsets/copies fixtures/kraft/copies; do
    [ -d "$set" ] || continue
    parts=$(find "$set" -mindepth 2 -maxdepth 3 -type d -name '*-[0-9]*' | LC_ALL=C sort | sed 's#.*/##' | sort -u)
    for part in $parts; do
        copies=$(find "$set" -type d -name "$part" | LC_ALL=C sort)
        rm -rf "$tmp/m"
        # shellcheck disable=SC2086
        run "merge-$set-$part" merge --json -o "$tmp/m" $copies
        tree "merge-$set-$part" "$tmp/m"
    done
done
echo "outputs.sh: $n runs into $out"
