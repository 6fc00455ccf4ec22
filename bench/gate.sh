#!/usr/bin/env bash
# The acceptance of vkbench ab as an unattended CI gate (issue 34), measured:
# how often it cries wolf, how often it catches a slowdown, and how long a
# decision takes, with ab's defaults (--threshold 5, --count 7,
# --max-time 60s, --on-unclear warn) unless FLAGS says otherwise.
#
#   bash bench/gate.sh [N]      lavapipe (or the default device), N runs of
#                               each case (20), quiet and then loaded
#   bash bench/gate.sh --h200   a large GPU: 10 runs each of identical
#                               kernels and of a kernel 3% slower, at
#                               --threshold 1, N=16777216 and --max-time 20s
#                               (the device call is 10 minutes at most), no load
#
# The cases are testdata/manifests/ab's: same (identical kernels: a run
# that exits 1 is a false alarm), slower10, slower40, slower3 (NEW runs 10%,
# 40%, 3% more arithmetic for the same result: a run that exits 1 caught
# it). Each run has two pairs (the candidates wg64 and wg256). "loaded" runs
# one busy process (yes >/dev/null) per core beside each run, as a shared
# CI runner has. An unclear pair at the cap is an explicit warning (exit 0
# and a line on stderr): the summary counts those apart from the passes
# that decided NEW is not slower (for a slower NEW, a silent miss).
#
# Environment: VKBENCH (a vkbench binary; default: built into bin/, which
# needs Go), LOADS (default "quiet loaded"), CASES (default "same slower10
# slower40"), FLAGS (more flags for ab), OUT (default
# bin/gate/<time>). Every run's report (JSON), stderr and exit status is
# kept in $OUT; the summary, a Markdown table, is printed and written to
# $OUT/summary.md.
#
# On the device machine (no Go there; the binary built here, in .devbin/):
#   go build -o .devbin/vkbench ./cmd/vkbench
#   run: source .gl/enter.sh; VKBENCH=.devbin/vkbench OUT=$OUT/gate bash bench/gate.sh --h200
set -uo pipefail
cd "$(dirname "$0")/.."
n=20
loads=${LOADS:-quiet loaded}
cases=${CASES:-same slower10 slower40}
flags=${FLAGS:-}
if [ "${1:-}" = "--h200" ]; then
	n=10
	loads=${LOADS:-quiet}
	cases=${CASES:-same slower3}
	flags=${FLAGS:---threshold 1 --size N=16777216 --max-time 20s}
elif [ -n "${1:-}" ]; then
	n=$1
fi
out=${OUT:-bin/gate/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
vk=${VKBENCH:-}
if [ -z "$vk" ]; then
	go build -o bin/vkbench ./cmd/vkbench || exit 1
	vk=bin/vkbench
fi
m=testdata/manifests/ab

"$vk" devices --format json | python3 -c 'import json,sys; d=[x for x in json.load(sys.stdin)["devices"] if x["default"]][0]; print("device:", d["name"], d["driver_name"], d["driver_version"])' | tee "$out/device.txt"
echo "flags: ab defaults ${flags}" | tee -a "$out/device.txt"

hogs=()
load_on() {
	for _ in $(seq "$(nproc)"); do
		yes >/dev/null &
		hogs+=($!)
	done
}
load_off() {
	for p in "${hogs[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	hogs=()
}
trap load_off EXIT

for load in $loads; do
	[ "$load" = loaded ] && load_on
	echo "$load: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
	for c in $cases; do
		for i in $(seq "$n"); do
			f=$out/$load-$c-$i
			start=$(date +%s.%N)
			# shellcheck disable=SC2086 # FLAGS is a list of flags
			"$vk" ab "$m/old.json" "$m/$c.json" -q --cache off --format json -o "$f.json" $flags 2>"$f.stderr"
			code=$?
			echo "$code $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >"$f.exit"
			echo "$load $c $i: exit $code, $(cut -d' ' -f2 "$f.exit") s"
		done
	done
	echo "$load, after: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
	[ "$load" = loaded ] && load_off
done

python3 - "$out" "$n" "$loads" "$cases" <<'EOF' | tee "$out/summary.md"
import json, statistics, sys
out, n, loads, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
print("| load | NEW | runs | exit 1 | exit 0, warned (unclear at the cap) | exit 0, decided not slower | other | rounds (median, max) | time to decision, s (median, max) | NEW/OLD measured |")
print("|---|---|---|---|---|---|---|---|---|---|")
for load in loads:
    for c in cases:
        ones = warned = silent = other = 0
        rounds, times, ratios = [], [], []
        for i in range(1, n + 1):
            f = f"{out}/{load}-{c}-{i}"
            try:
                code, secs = open(f + ".exit").read().split()
            except (OSError, ValueError):
                other += 1
                continue
            code, secs = int(code), float(secs)
            times.append(secs)
            stderr = open(f + ".stderr").read()
            try:
                rep = json.load(open(f + ".json"))
                rounds.append(rep["rounds"])
                ratios += [p["ratio"] for p in rep["pairs"] if p.get("ratio")]
            except (OSError, ValueError, KeyError):
                pass
            if code == 1:
                ones += 1
            elif code == 0 and "undecided" in stderr:
                warned += 1
            elif code == 0:
                silent += 1
            else:
                other += 1
        med = lambda xs: f"{statistics.median(xs):.0f}, {max(xs):.0f}" if xs else "-"
        medt = lambda xs: f"{statistics.median(xs):.1f}, {max(xs):.1f}" if xs else "-"
        what = "false alarms" if c == "same" else "caught"
        rng = f"{min(ratios):.3f}–{max(ratios):.3f}" if ratios else "-"
        print(f"| {load} | {c} | {n} | {ones} ({what}) | {warned} | {silent} | {other} | {med(rounds)} | {medt(times)} | {rng} |")
EOF
echo "kept in $out"
