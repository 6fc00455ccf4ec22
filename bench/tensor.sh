#!/usr/bin/env bash
# Tensor cores and half precision on the GPU machine, in one call:
# vkbench's cooperative-matrix and fp16 kernels against CUDA's own
# (PyTorch) for the same work, with the ratios, and what the driver's
# compiler made of every candidate (registers, shared memory, spills).
#
#   1. vkbench devices: the cooperative-matrix shapes the driver lists;
#   2. vkbench peak (stored in the cache, so that percent of peak is of
#      the tensor-core rate), then every candidate of the peaks
#      (peak-coopmat-f16, -f16acc, -s8, -bf16, peak-fma-f16, -f32);
#   3. vkbench run gemm-f16, gemm-bf16 and gemm (fp32) at 2048³, 4096³ and
#      8192³, and at the odd shapes 4097x4095x1000 and 1000x3000x777;
#   4. torch: HGEMM (f16 in and out), its bfloat16 twin and SGEMM (TF32
#      off) at the same sizes;
#   5. bench/tensor_table.py: the table.
#
# From the repository root on the GPU machine:
#
#   go build -o .devbin/vkbench ./cmd/vkbench
#   source .gl/enter.sh; bash bench/tensor.sh [extra vkbench run flags, e.g. --budget 4s]
#
# SIZES (default "2048 4096 8192"), ODD (default "4097x4095x1000
# 1000x3000x777", MxNxK) and SGEMM=0 (skip fp32) change what runs.
# Everything lands under $OUT (default /tmp/tensor); the table is also
# printed.
set -euo pipefail
out=${OUT:-/tmp/tensor}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
cache="$out/cache.db"
sizes=${SIZES:-2048 4096 8192}
odd=${ODD-4097x4095x1000 1000x3000x777}
# A run that exits 1 (a candidate computed a wrong result) or 3 still
# leaves its JSON: say so and go on, so that the table shows the rest.
run() {
	local log=$1
	shift
	"$bin" "$@" 2>"$log" || echo "vkbench $* exited $? (see $log)" | tee -a "$out/exits.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader | sed 's/^/gpu: /' | tee "$out/gpu.txt"
"$bin" devices | tee "$out/devices.txt" | grep -E '^device|coopmat|^    ' || true
"$bin" peak --cache "$cache" -q --budget 5s --format json -o "$out/peak.json"
run "$out/peaks-stderr.txt" run peak-coopmat-f16 peak-coopmat-f16acc peak-coopmat-s8 peak-coopmat-bf16 peak-fma-f16 peak-fma-f32 \
	--cache "$cache" -q --format json -o "$out/peaks.json" "$@"
for s in $sizes; do
	run "$out/gemm-f16-$s-stderr.txt" run gemm-f16 --size "${s}x${s}x${s}" --cache "$cache" -q -v --format json -o "$out/gemm-f16-$s.json" "$@"
	run "$out/gemm-bf16-$s-stderr.txt" run gemm-bf16 --size "${s}x${s}x${s}" --cache "$cache" -q -v --format json -o "$out/gemm-bf16-$s.json" "$@"
	if [ "${SGEMM:-1}" != 0 ]; then
		run "$out/gemm-$s-stderr.txt" run gemm --size "${s}x${s}x${s}" --cache "$cache" -q --format json -o "$out/gemm-$s.json" "$@"
	fi
done
for s in $odd; do
	run "$out/gemm-f16-$s-stderr.txt" run gemm-f16 --size "$s" --cache "$cache" -q -v --format json -o "$out/gemm-f16-$s.json" "$@"
	run "$out/gemm-bf16-$s-stderr.txt" run gemm-bf16 --size "$s" --cache "$cache" -q -v --format json -o "$out/gemm-bf16-$s.json" "$@"
	if [ "${SGEMM:-1}" != 0 ]; then
		run "$out/gemm-$s-stderr.txt" run gemm --size "$s" --cache "$cache" -q --format json -o "$out/gemm-$s.json" "$@"
	fi
done
# shellcheck disable=SC2086 # the sizes are words
python3 bench/tensor_baseline.py $sizes $odd | tee "$out/baseline.jsonl"
python3 bench/tensor_table.py "$out" | tee "$out/table.md"
