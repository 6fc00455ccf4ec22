#!/usr/bin/env bash
# CI jobs on one runner: N tunes of the same operations started at once on
# one empty cache file (no shared store), as N jobs of a pipeline sharing a
# runner's cache do. Prints the wall time until the last ends, and for each
# job how many questions it measured, waited for (another process held
# the question's lock in the file) and answered from the file, and
# whether the jobs' winners agree. With two binaries, they alternate, A B
# A B, so that each figure has its baseline beside it.
#
# From the repository root:
#   bash bench/jobs.sh [-n N] [-r ROUNDS] BINARY [BINARY2] [-- tune flags]
# e.g. bash bench/jobs.sh -n 4 old/vkbench bin/vkbench -- copy triad reduce
# Logs go under $OUT (default /tmp/jobs).
set -euo pipefail
n=4 rounds=1 bins=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	--) shift; break ;;
	*) bins+=("$1"); shift ;;
	esac
done
[ ${#bins[@]} -gt 0 ] || { echo "usage: bench/jobs.sh [-n N] [-r ROUNDS] BINARY [BINARY2] [-- tune flags]" >&2; exit 2; }
out=${OUT:-/tmp/jobs}
for r in $(seq "$rounds"); do
	for b in "${!bins[@]}"; do
		w="$out/$r-$b"
		rm -rf "$w" && mkdir -p "$w"
		t=$(date +%s%N)
		pids=()
		for j in $(seq "$n"); do
			__GL_SHADER_DISK_CACHE_PATH="$w/driver$j" "${bins[$b]}" tune -v --cache "$w/c.db" --format json -o "$w/tune$j.json" "$@" 2>"$w/tune$j.log" >/dev/null &
			pids+=($!)
		done
		failed=0
		for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
		echo "${bins[$b]}, round $r: $n jobs on one cache file took $((($(date +%s%N) - t) / 1000000)) ms; $failed failed"
		for j in $(seq "$n"); do
			echo "  job $j: measured $(grep -c 'autotune: prepared' "$w/tune$j.log" || true), waited for $(grep -c 'waiting for another process' "$w/tune$j.log" || true), answered from the file $(grep -c 'answered from the local tune cache' "$w/tune$j.log" || true)"
		done
		python3 - "$w" <<'PY'
import glob, json, sys
jobs = [{b["op"] + "/" + b["shape"]: b["candidate"] for b in json.load(open(f))["benchmarks"] if b.get("winner")}
        for f in sorted(glob.glob(sys.argv[1] + "/tune*.json"))]
keys = sorted(set().union(*jobs))
differ = [k for k in keys if len({j.get(k) for j in jobs}) > 1]
print(f"  winners: the jobs disagree on {len(differ)} of {len(keys)} questions {differ or ''}")
PY
	done
done
