#!/usr/bin/env bash
# Where gemm-f16's time goes, on the GPU machine: gemm_f16_coopmat's KHR
# kernel whole and in parts: its loads alone, its multiply-adds alone,
# and without its loads, its stores to shared memory or its barriers
# (bench/gemm_parts.json; the parts compute no C, so nothing is verified),
# at 4096^3 and 8192^3. From the repository root, after building vkbench
# into .devbin:
#
#   source .gl/enter.sh; bash bench/gemm_parts.sh [extra vkbench run flags]
#
# SIZES (default "4096 8192") changes the sizes. Then the ceiling of the
# loads: bench/l2.json's plain read of a 16 and a 32 MiB window, which
# the L2 cache holds, and of 1 GiB, which it does not. Everything lands
# under $OUT (default /tmp/gemm-parts).
set -euo pipefail
out=${OUT:-/tmp/gemm-parts}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
for s in ${SIZES:-4096 8192}; do
	"$bin" run --manifest bench/gemm_parts.json --size "M=$s,N=$s,K=$s" --cache off -q -v --budget 4s "$@" \
		>"$out/parts-$s.txt" 2>"$out/parts-$s-stderr.txt"
	cat "$out/parts-$s.txt"
done
for w in 1048576 2097152 67108864; do
	"$bin" run --manifest bench/l2.json --size "W=$w,G=1056" --cache off -q --budget 1s \
		>"$out/l2-$w.txt" 2>"$out/l2-$w-stderr.txt"
	cat "$out/l2-$w.txt"
done
