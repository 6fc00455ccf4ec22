#!/usr/bin/env bash
# How often the CI gates are wrong, measured: false positives (a regression
# reported where there is none) and detections (a real slowdown caught).
#
#   compare  N times: two separate processes run the same kernels
#            (vkbench run copy triad --size 65536 --count 5) and compare
#            judges them: every exit status but 0 is a false positive.
#   compare10 N times: the same, separate processes, but the second runs
#            NEW (testdata/manifests/ab/slower10.json, 10% more work)
#            against OLD (old.json): a detection when 1.
#   ab same  N times: vkbench ab of two identical manifests: a false
#            positive unless 0.
#   ab +40%  N times: NEW does 40% more work for the same result: a
#            detection when 1.
#   ab +10%  N times, --threshold 5: NEW does 10% more work: a detection
#            when 1.
#
# From the repository root: bash bench/gates.sh [N]   (N defaults to 20)
# Environment: GATES (which to measure, default "compare same slower40
# slower10"), VKBENCH (a vkbench binary; default: built into bin/),
# BUDGET (run's --budget per round, default 1s), AB_FLAGS (extra flags
# for ab, such as --size N=16777216 on a large GPU, where the manifests'
# default of 8192 elements is too small for 10% more arithmetic to show
# over the cost of a dispatch), OUT (default bin/gates/<time>).
# Every run's output and exit status is kept in $OUT; the summary, a
# Markdown table, is printed and written to $OUT/summary.md.
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
gates=${GATES:-compare same slower40 slower10}
want() { [[ " $gates " == *" $1 "* ]]; }
budget=${BUDGET:-1s}
ab_flags=${AB_FLAGS:-}
out=${OUT:-bin/gates/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
vk=${VKBENCH:-}
if [ -z "$vk" ]; then
	go build -o bin/vkbench ./cmd/vkbench || exit 1
	vk=bin/vkbench
fi
m=testdata/manifests/ab

# count FILE CODE: how many lines of FILE (one exit status a line) are CODE.
count() { grep -cx "$2" "$1" || true; }

echo "device: $("$vk" devices --format json | python3 -c 'import json,sys; d=[x for x in json.load(sys.stdin)["devices"] if x["default"]][0]; print(d["name"], d["driver_name"], d["driver_version"])')" | tee "$out/device.txt"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/load.txt"

: >"$out/compare.codes"
: >"$out/compare-rel.codes"
for i in $(seq "$n"); do
	want compare || break
	for side in a b; do
		"$vk" run copy triad --size 65536 --budget "$budget" --count 5 --cache off -q --format json -o "$out/compare-$i-$side.json" 2>>"$out/compare.stderr"
	done
	"$vk" compare "$out/compare-$i-a.json" "$out/compare-$i-b.json" >"$out/compare-$i.txt" 2>&1
	echo $? >>"$out/compare.codes"
	"$vk" compare --relative "$out/compare-$i-a.json" "$out/compare-$i-b.json" >"$out/compare-rel-$i.txt" 2>&1
	echo $? >>"$out/compare-rel.codes"
	echo "compare $i: exit $(tail -1 "$out/compare.codes") (default), $(tail -1 "$out/compare-rel.codes") (--relative)"
done

: >"$out/compare10.codes"
: >"$out/compare10-rel.codes"
for i in $(seq "$n"); do
	want compare10 || break
	for side in old slower10; do
		"$vk" run --manifest "testdata/manifests/ab/$side.json" $ab_flags --budget "$budget" --count 5 --cache off -q --format json -o "$out/compare10-$i-$side.json" 2>>"$out/compare10.stderr"
	done
	"$vk" compare "$out/compare10-$i-old.json" "$out/compare10-$i-slower10.json" >"$out/compare10-$i.txt" 2>&1
	echo $? >>"$out/compare10.codes"
	"$vk" compare --relative "$out/compare10-$i-old.json" "$out/compare10-$i-slower10.json" >"$out/compare10-rel-$i.txt" 2>&1
	echo $? >>"$out/compare10-rel.codes"
	echo "compare10 $i: exit $(tail -1 "$out/compare10.codes") (default), $(tail -1 "$out/compare10-rel.codes") (--relative)"
done

ab() { # ab NAME NEW [FLAGS...]
	local name=$1 new=$2
	shift 2
	: >"$out/ab-$name.codes"
	want "$name" || return 0
	for i in $(seq "$n"); do
		"$vk" ab "$m/old.json" "$m/$new" -q --cache off --format json -o "$out/ab-$name-$i.json" $ab_flags "$@" 2>>"$out/ab-$name.stderr"
		echo $? >>"$out/ab-$name.codes"
		echo "ab $name $i: exit $(tail -1 "$out/ab-$name.codes")"
	done
}
ab same same.json
ab slower40 slower40.json
ab slower10 slower10.json --threshold 5

# ratios NAME: the range of the measured ratios NEW/OLD over every run.
ratios() {
	python3 - "$out" "$1" <<'EOF'
import glob, json, sys
rs = []
for f in glob.glob(f"{sys.argv[1]}/ab-{sys.argv[2]}-*.json"):
    try:
        rs += [p["ratio"] for p in json.load(open(f))["pairs"] if p.get("ratio")]
    except (ValueError, KeyError):
        pass
print(f"{min(rs):.3f}–{max(rs):.3f}" if rs else "-")
EOF
}

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
{
	echo "| gate | runs | exit 0 | exit 1 | other | rate | NEW/OLD measured |"
	echo "|---|---|---|---|---|---|---|"
	c=$out/compare.codes
	want compare && echo "| compare, identical kernels, separate processes, --count 5 | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | false positives $((n - $(count "$c" 0)))/$n | - |"
	c=$out/compare-rel.codes
	want compare && echo "| compare --relative, the same files, relative to the probe | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | false positives $((n - $(count "$c" 0)))/$n | - |"
	c=$out/compare10.codes
	want compare10 && echo "| compare, NEW 10% more work, separate processes, --count 5 | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | detected $(count "$c" 1)/$n | - |"
	c=$out/compare10-rel.codes
	want compare10 && echo "| compare --relative, the same files | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | detected $(count "$c" 1)/$n | - |"
	c=$out/ab-same.codes
	want same && echo "| ab, identical manifests | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | false positives $((n - $(count "$c" 0)))/$n | $(ratios same) |"
	c=$out/ab-slower40.codes
	want slower40 && echo "| ab, NEW 40% more work | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | detected $(count "$c" 1)/$n | $(ratios slower40) |"
	c=$out/ab-slower10.codes
	want slower10 && echo "| ab, NEW 10% more work, --threshold 5 | $n | $(count "$c" 0) | $(count "$c" 1) | $((n - $(count "$c" 0) - $(count "$c" 1))) | detected $(count "$c" 1)/$n | $(ratios slower10) |"
} | tee "$out/summary.md"
echo "kept in $out"
