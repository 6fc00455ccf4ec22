#!/usr/bin/env bash
# One call on the GPU machine for everything measured there: the test
# binaries (validation on), the H200 benchmark against torch, the timing
# fidelity check, and five separate processes tuning copy and GEMM. From
# the repository root, binaries built into .devbin/:
#   source .gl/enter.sh; bash bench/device-run.sh
# Everything lands in $OUT/logs (and $OUT/logs.tgz).
set -u
out=${OUT:-/tmp/out}
logs="$out/logs"
mkdir -p "$logs"
.devbin/vkbench devices >"$logs/devices.txt" 2>&1
OUT="$logs" bash bench/device-check.sh >/dev/null 2>&1
.devbin/vkbench run --cache off -q --budget 3s >"$logs/run.txt" 2>&1
OUT="$logs" bash bench/h200.sh --budget 4s -v >"$logs/h200.txt" 2>&1
timeout 120 .devbin/fidelity -ops copy,gemm >"$logs/fidelity.txt" 2>&1
for i in 1 2 3 4 5; do
	timeout 100 .devbin/vkbench tune copy gemm --cache off -q --budget 4s --format json -o "$logs/proc$i.json" 2>>"$logs/procs-stderr.txt"
done
python3 bench/spread.py "$logs"/proc*.json >"$logs/spread.txt" 2>&1
rm -f "$logs/cache.db"
tar czf "$out/logs.tgz" -C "$out" logs
cat "$logs/devices.txt" "$logs/summary.txt" "$logs/h200.txt" "$logs/fidelity.txt" "$logs/spread.txt" | grep -v '^{' 
