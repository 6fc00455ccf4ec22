#!/usr/bin/env bash
# Issue 37's sweep: fp32 GEMM's exact tilings of gemm_regblock
# (bench/gemm_sweep.json: the catalogue's committed SPIR-V with those
# constants, and a variant's of the same tilings where one is being
# tried), and the catalogue's best through vkbench run gemm, against
# cuBLAS fp32 (TF32 off, bench/baseline.py) at the same size in the same
# call. From the repository root on the GPU machine, the binary
# built into .devbin/:
#
#   source .gl/enter.sh; bash bench/gemm_sweep.sh
#
# Prints, per size, one table (candidate, GFLOP/s, ratio to cuBLAS) and a
# summary line with the best variant's ratio. SIZES (default
# "2048 4096 8192", each a multiple of 256: the variants are EXACT), BUDGET
# (--budget of each vkbench run, default 3s), BEST (the catalogue's
# candidates to run, a regular expression), NO_CUBLAS=1 (no baseline: on a
# machine without CUDA) and DEADLINE (seconds the whole sweep may take,
# default 240; every step is bounded by what is left of it). Writes its
# JSON under $OUT (or /tmp/gemm_sweep).
set -uo pipefail
out=${OUT:-/tmp/gemm_sweep}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
sizes=${SIZES:-2048 4096 8192}
budget=${BUDGET:-3s}
best=${BEST:-^regblock-128x128x8-8x8-exact\$}
deadline=${DEADLINE:-240}
start=$SECONDS

# left prints the seconds a step may take: at most $1, and what is left of
# the deadline (at least 1).
left() {
	local rest=$((deadline - (SECONDS - start)))
	((rest > $1)) && rest=$1
	((rest < 1)) && rest=1
	echo "$rest"
}

# The variants' own shaders (bench/*.comp, their SPIR-V committed beside
# them, as the catalogue's are) are compiled again where glslc is and the
# source is newer; the GPU machine has none and runs the committed SPIR-V.
shopt -s nullglob
for src in bench/*.comp; do
	spv=${src%.comp}.spv
	if command -v glslc >/dev/null && [ "$src" -nt "$spv" ]; then
		glslc -O --target-env=vulkan1.2 -fshader-stage=compute "$src" -o "$spv"
	fi
done
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /'
for s in $sizes; do
	t0=$SECONDS
	timeout "$(left 90)" "$bin" run --manifest bench/gemm_sweep.json --size "M=$s,N=$s,K=$s" --cache off -q --budget "$budget" \
		--format json -o "$out/sweep-$s.json" 2>"$out/sweep-$s-stderr.txt" || echo "sweep at $s: vkbench exited $? (see $out/sweep-$s-stderr.txt)"
	timeout "$(left 40)" "$bin" run gemm --size "${s}x${s}x${s}" --candidates "$best" --cache off -q --budget "$budget" \
		--format json -o "$out/best-$s.json" 2>"$out/best-$s-stderr.txt" || echo "catalogue at $s: vkbench exited $? (see $out/best-$s-stderr.txt)"
	: >"$out/cublas-$s.jsonl"
	if [ -z "${NO_CUBLAS:-}" ]; then
		timeout "$(left 40)" python3 bench/baseline.py "{\"gemm\": [$s, $s, $s]}" --ops gemm --reps 20 >"$out/cublas-$s.jsonl" || echo "cuBLAS at $s: baseline.py exited $?"
	fi
	python3 - "$s" "$out/sweep-$s.json" "$out/best-$s.json" "$out/cublas-$s.jsonl" "$((SECONDS - t0))" <<'PY'
import json, sys
size, sweep, best, cublas, took = sys.argv[1:]
rows = []
for path, where in ((sweep, "sweep"), (best, "catalogue")):
    try:
        res = json.load(open(path))
    except (OSError, ValueError):
        continue
    for b in res.get("benchmarks", []):
        rows.append((b["candidate"] + (" (catalogue)" if where == "catalogue" else ""), b.get("outcome", "?"), b.get("gflop_per_s") or 0.0))
base = None
for line in open(cublas):
    if line.startswith("{"):
        base = json.loads(line).get("gflops")
print(f"\nfp32 GEMM {size}³ ({took} s), cuBLAS " + (f"{base:.0f} GFLOP/s" if base else "not measured"))
print(f"| {'candidate':<56} | {'outcome':<10} | {'GFLOP/s':>9} | {'ratio':>6} |")
print(f"|{'-' * 58}|{'-' * 12}|{'-' * 11}|{'-' * 8}|")
for name, outcome, g in rows:
    ratio = f"{g / base:.3f}" if base and g else "-"
    print(f"| {name:<56} | {outcome:<10} | {g:9.1f} | {ratio:>6} |")
measured = [r for r in rows if r[1] == "measured" and r[2] > 0]
if measured:
    name, _, g = max(measured, key=lambda r: r[2])
    ratio = f"{g / base:.3f}" if base else "-"
    print(f"best {size}³: {name} {g:.0f} GFLOP/s, ratio to cuBLAS {ratio} (target >= 0.92)")
else:
    print(f"best {size}³: nothing measured")
PY
done
echo "sweep took $((SECONDS - start)) s"
