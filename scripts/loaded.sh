#!/usr/bin/env bash
# The test command on a busy machine, as shared CI runners are: one busy
# process per core runs beside `CI=true bash .ci/run` on a fresh clone of
# this checkout's HEAD, N times in a row (default 3), each run's log kept.
# Prints one line per run (its exit status and wall time) and exits 1 if
# any run failed.
#
#   bash scripts/loaded.sh [N]     logs in bin/loaded/<time>/run-I.log
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
out=$PWD/bin/loaded/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
hogs=()
for _ in $(seq "$(nproc)"); do
	(while :; do :; done) &
	hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
failed=0
for i in $(seq "$n"); do
	tree=$(mktemp -d)
	rev=$(git rev-parse --short HEAD)
	git clone -q "$PWD" "$tree/vkbench" && git -C "$tree/vkbench" checkout -q "$rev"
	start=$(date +%s)
	(cd "$tree/vkbench" && CI=true bash .ci/run) >"$out/run-$i.log" 2>&1
	rc=$?
	echo "run $i of $n at $rev: exit $rc in $(($(date +%s) - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg) (log: $out/run-$i.log)"
	rm -rf "$tree"
	[ "$rc" = 0 ] || failed=1
done
exit "$failed"
