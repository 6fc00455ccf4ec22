#!/usr/bin/env bash
# What a manifest's GLSL space costs its user, before and after a change:
# a candidate compiled from GLSL over a space of 1,024 configurations
# (testdata/manifests/glsl_space.json's saxpy, WG 16 values x UNROLL 64),
# run (its named points measured) and a short search (tune --strategy
# random --max-evals 2), each with an empty GLSL cache, then run again
# with the cache warm, by vkbench built at OLD (default main) and at this
# checkout. Prints the seconds of each and the ratio OLD/NEW side by side.
# ROWS picks some of them (run, tune, warm; warm needs tune); the machine
# should be otherwise idle, or the figures say how busy it was.
#
#   bash scripts/glslspace.sh [OLD]
#   ROWS="tune" bash scripts/glslspace.sh
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:-main}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git worktree add -q --detach "$work/old" "$old"
(cd "$work/old" && go build -o "$work/vkbench-old" ./cmd/vkbench)
git worktree remove --force "$work/old"
go build -o "$work/vkbench-new" ./cmd/vkbench
cp testdata/manifests/saxpy_defines.glsl testdata/manifests/saxpy.spv "$work/"
python3 - "$work/m.json" <<'PY'
import json, sys
m = json.load(open("testdata/manifests/glsl_space.json"))
op = m["operations"][0]
op["dims"] = {"N": 65536}
c = op["candidates"][1]
c["space"] = {"WG": [32, 48, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 1024], "UNROLL": list(range(1, 65))}
c.pop("restrict", None)
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
quick=(--manifest "$work/m.json" --budget 100ms --min-samples 6 --max-samples 6 -q)
# seconds CACHE ARGS...: the wall time of one command, its GLSL cache
# beside CACHE.
seconds() {
	local cache=$1
	shift
	local start
	start=$(date +%s.%N)
	VKBENCH_CACHE=$cache "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
	echo "$(date +%s.%N) - $start" | bc
}
printf '%-34s %10s %10s %8s   (%s cores, load %s)\n' "1,024 configurations" "old s" "new s" "old/new" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
rows=${ROWS:-run tune warm}
for v in old new; do
	b=$work/vkbench-$v
	for c in $rows; do
		case $c in
		run) declare "${v}_run=$(seconds "$work/$v-run/tune.db" "$b" run "${quick[@]}" --cache off)" ;;
		tune) declare "${v}_tune=$(seconds "$work/$v-tune/tune.db" "$b" tune --strategy random --max-evals 2 --cache "$work/$v-tune/c.db" "${quick[@]}")" ;;
		warm) declare "${v}_warm=$(seconds "$work/$v-tune/tune.db" "$b" run "${quick[@]}" --cache off)" ;;
		esac
	done
done
for c in $rows; do
	o=${c/#/old_} n=${c/#/new_}
	o=${!o} n=${!n}
	case $c in
	run) what="run, empty cache" ;;
	tune) what="tune --strategy, empty cache" ;;
	warm) what="run, cache warm" ;;
	esac
	printf '%-34s %10.1f %10.1f %8.1f\n' "$what" "$o" "$n" "$(echo "$o / $n" | bc -l)"
done
