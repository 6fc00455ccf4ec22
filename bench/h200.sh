#!/usr/bin/env bash
# The H200 benchmark: vkbench's best candidate of every built-in operation
# against the CUDA baseline (PyTorch) for the same work, measured in one
# call on the GPU machine, printed as one table. Usage, from the
# repository root on the GPU machine (binaries built into .devbin/):
#
#   source .gl/enter.sh; bash bench/h200.sh [extra vkbench run flags]
#
# Writes results.json (vkbench), baseline.jsonl (torch) and table.md under
# $OUT (or /tmp/h200).
set -euo pipefail
out=${OUT:-/tmp/h200}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
cache="$out/cache.db"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader | sed 's/^/gpu: /' | tee "$out/gpu.txt"
"$bin" peak --cache "$cache" -q --budget 5s | tee "$out/peak.txt"
start=$(date +%s%N)
"$bin" tune --cache "$cache" -q --format json -o "$out/results.json" "$@" 2>"$out/tune-stderr.txt"
end=$(date +%s%N)
echo "tune of all operations: $(( (end - start) / 1000000 )) ms wall" | tee "$out/tune-time.txt"
start=$(date +%s%N)
"$bin" tune --cache "$cache" -q --format json -o "$out/results-cached.json" "$@"
end=$(date +%s%N)
echo "second process answering from the cache: $(( (end - start) / 1000000 )) ms wall" | tee -a "$out/tune-time.txt"
python3 bench/baseline.py | tee "$out/baseline.jsonl"
python3 bench/table.py "$out/results.json" "$out/baseline.jsonl" | tee "$out/table.md"
