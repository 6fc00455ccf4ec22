#!/usr/bin/env bash
# GEMM alone: every candidate of vkbench's GEMM against cuBLAS fp32 (TF32
# off, through torch) at the same size, in one call on the GPU machine;
# the kind of figures of bench/RESULTS.md's run 6. From the repository
# root on the GPU machine, binaries built into .devbin/:
#
#   source .gl/enter.sh; bash bench/gemm.sh [extra vkbench run flags]
#
# vkbench runs at its default size for the device (4096³ on a discrete
# GPU), which is baseline.py's GEMM size. Writes gpu.txt, gemm.json
# (vkbench), gemm-stderr.txt (its -v log: where the time went, and the
# compiler's registers and spills), gemm-baseline.jsonl (torch: the median
# of 50 CUDA-event timings) and gemm.md (one row per candidate: median,
# GFLOP/s, registers; then cuBLAS and the fastest candidate's ratio to it)
# under $OUT (or /tmp/gemm).
set -euo pipefail
out=${OUT:-/tmp/gemm}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader | sed 's/^/gpu: /' | tee "$out/gpu.txt"
"$bin" run gemm --cache off --budget 3s -v -q --format json -o "$out/gemm.json" "$@" 2>"$out/gemm-stderr.txt"
python3 bench/baseline.py --ops gemm --reps 50 | tee "$out/gemm-baseline.jsonl"
python3 bench/table.py --op gemm "$out/gemm.json" "$out/gemm-baseline.jsonl" | tee "$out/gemm.md"
