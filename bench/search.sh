#!/usr/bin/env bash
# Search, not only enumeration: the tuning log of gemm's whole space at
# 4096³ fp32 (an exhaustive search, each configuration's sampling bounded
# so that the whole space takes a few minutes), every strategy replayed
# against it over five seeds, and the tuning time with and without
# compiling on CPU threads while the GPU measures. From the repository
# root on the GPU machine, binaries built into .devbin/:
#
#   source .gl/enter.sh; bash bench/search.sh [extra vkbench tune flags]
#
# Writes under $OUT (or /tmp/search): gpu.txt; gemm-4096-h200.jsonl, the
# tuning log (drop it into search/testdata/search/ and the replay test
# holds every strategy to it); exhaustive.json and exhaustive-stderr.txt;
# strategies.md (the replays' table); convergence.svg (vkbench report of
# the replayed searches); overlap.md (compile overlap); and results.md, the
# section for bench/RESULTS.md, which it also prints.
#
# The drivers' own shader caches are off (__GL_SHADER_DISK_CACHE=0) and
# every run has a fresh tune cache, so that compile times are compile
# times. Each configuration samples until ±1%, 300 ms or 30 samples.
set -euo pipefail
out=${OUT:-/tmp/search}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
[ -x "$bin" ] || go build -o "$bin" ./cmd/vkbench
export __GL_SHADER_DISK_CACHE=0
size=${SIZE:-4096x4096x4096} # SIZE=32x32x32 tries the script on any machine in seconds
key=gemm/f32/$size
flags=(--size "$size" --budget 300ms --precision 1 --min-samples 10 --max-samples 30 --energy-window 0 --quiet "$@")
rm -f "$out"/*.db
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || echo "no nvidia-smi"; } | sed 's/^/gpu: /' | tee "$out/gpu.txt"

# 1. The whole space, exhaustively, pipelines compiling on 4 threads.
"$bin" tune gemm --strategy exhaustive --cache "$out/full.db" --format json -o "$out/exhaustive.json" "${flags[@]}" \
	2> >(tee "$out/exhaustive-stderr.txt" >&2)
"$bin" cache export-log "$key" "$out/gemm-4096-h200.jsonl" --cache "$out/full.db"

# 2. Every strategy, five seeds each, by replay of that log: evaluations
# until a configuration within 3% of the exhaustive best.
replay=(replay "$out/gemm-4096-h200.jsonl" --strategy exhaustive,random,anneal,bayes --seeds 5 --max-evals 100000 --stop-within 3)
"$bin" "${replay[@]}" | tee "$out/strategies.md"
"$bin" "${replay[@]}" --format log -o "$out/replays.jsonl"
"$bin" report "$out/replays.jsonl" -o "$out/convergence.svg"

# 3. Compile overlap: the whole space again, on a fresh cache, each
# pipeline compiled just before its configuration is measured, against
# step 1 (4 threads compiling while the GPU measures; a search proposes 4
# configurations ahead, so at most 4 compile at once).
grep 'searched gemm' "$out/exhaustive-stderr.txt" | tee "$out/overlap-4.txt"
timeout "${OVERLAP_TIMEOUT:-1200}" "$bin" tune gemm --strategy exhaustive --compile-threads 0 --cache "$out/overlap-0.db" \
	--format json -o "$out/overlap-0.json" "${flags[@]}" 2>&1 | grep 'searched gemm' | tee "$out/overlap-0.txt"

python3 - "$out" "$size" <<'EOF' | tee "$out/results.md"
import re, subprocess, sys
out = sys.argv[1]
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
def summary(path):
    text = open(path).read()
    m = re.search(r"(\d+) of (\d+) configurations evaluated, (\d+) measured.*?compile ([\d.]+)s \(([^)]*)\), measure ([\d.]+)s, wall ([\d.]+)s; fastest (\S+)", text)
    return m.groups() if m else None
gpu = open(f"{out}/gpu.txt").read().strip()
full = summary(f"{out}/exhaustive-stderr.txt")
print(f"## Search of gemm's space, {sys.argv[2]} fp32 (commit {commit}, `bash bench/search.sh`)\n")
print(f"{gpu}\n")
if full:
    ev, n, meas, comp, how, mt, wall, best = full
    print(f"Exhaustive search: {n} configurations measured in {wall} s of wall time "
          f"(compile {comp} s summed over 4 threads, overlapped; verify and measure {mt} s); "
          f"the fastest is {best}. Its log is `gemm-4096-h200.jsonl`.\n")
print("Every strategy replayed against that log, five seeds each (`vkbench replay`):\n")
print(open(f"{out}/strategies.md").read())
print("Tuning time of the whole space, on fresh caches, the driver's shader cache off:\n")
print("| compile threads | compile (s, summed) | verify and measure (s) | wall (s) |")
print("|---:|---:|---:|---:|")
for threads in (0, 4):
    s = summary(f"{out}/overlap-{threads}.txt")
    if s:
        print(f"| {threads or 'none (before each measurement)'} | {s[3]} | {s[5]} | {s[6]} |")
EOF
