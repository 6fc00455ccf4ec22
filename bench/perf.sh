#!/usr/bin/env bash
# The performance targets in one call on the GPU machine, each beside its
# baseline: host-side latency against CUDA's launch+synchronize
# (latency.sh); a cold tune of every operation, with where its time went
# (tunetime.py), and a second process answering from the cache; fp32 GEMM
# against cuBLAS (TF32 off) at 2048³, 4096³ and 8192³, cuBLAS timed both
# in a burst after idle and after 10 s of load (the clocks vkbench's
# rounds of seconds sample at; baseline.py --hot); gemm's space
# searched (bayes, a quarter of the space) against the catalogue's best at
# 4096³; and two tunes of gemm by energy, which should pick the same
# winner or record a tie. From the repository root there, binaries built
# into .devbin/ (vkbench, vk.test, vkbench.test: see latency.sh):
#
#   source .gl/enter.sh; bash bench/perf.sh
#
# PARTS picks some of the parts, in this order (default: all of them):
# latency, tune, baseline (the tuned winners of copy, triad, reduce and
# transpose against PyTorch's, from the cold tune's results), gemm,
# search, energy. SEARCH_FLAGS bounds the search
# (default --time-limit 180s). Every step runs under a timeout, so one that
# hangs costs its own figure, not the call's.
#
# Writes summary.md and the logs under $OUT (or /tmp/perf).
set -u
parts=" ${PARTS:-latency tune baseline gemm search energy} "
want() { [[ $parts == *" $1 "* ]]; }
out=${OUT:-/tmp/perf}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
sum="$out/summary.md"
: >>"$sum"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$sum"

if want latency; then
	OUT="$out" timeout 300 bash bench/latency.sh >/dev/null 2>&1
	tail -2 "$out/latency.txt" | tee -a "$sum"
fi

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
if want tune; then
# The driver's own shader cache starts empty too (NVIDIA's keeps compiled
# pipelines across processes): a tune after other runs would not be cold.
export __GL_SHADER_DISK_CACHE_PATH="$out/driver-cache"
rm -rf "$__GL_SHADER_DISK_CACHE_PATH" && mkdir -p "$__GL_SHADER_DISK_CACHE_PATH"
t=$(date +%s%N)
timeout 300 "$bin" tune -v --cache "$out/cold.db" --format json -o "$out/tune.json" 2>"$out/tune-v.txt" >/dev/null
echo "tune of every operation, cold: $(ms "$t") ms (target <= 30000)" | tee -a "$sum"
t=$(date +%s%N)
"$bin" tune -q --cache "$out/cold.db" --format json -o "$out/tune-cached.json" >/dev/null 2>&1
echo "a second process answering from the cache: $(ms "$t") ms" | tee -a "$sum"
python3 bench/tunetime.py "$out/tune-v.txt" | tee -a "$sum"
fi

if want baseline && [ -s "$out/tune.json" ]; then
	timeout 200 python3 bench/baseline.py '{}' --ops copy,triad,reduce,transpose >"$out/baseline.jsonl"
	python3 bench/table.py "$out/tune.json" "$out/baseline.jsonl" | tee -a "$sum"
fi

want gemm && for s in 2048 4096 8192; do
	timeout 120 "$bin" run gemm --size "${s}x${s}x${s}" --cache off -q --format json -o "$out/gemm-$s.json" 2>/dev/null
	python3 bench/baseline.py "{\"gemm\": [$s, $s, $s]}" --ops gemm >"$out/gemm-$s-cublas.jsonl"
	python3 bench/baseline.py "{\"gemm\": [$s, $s, $s]}" --ops gemm --hot 10 --reps 100 >"$out/gemm-$s-cublas-hot.jsonl"
	python3 - "$out/gemm-$s.json" "$out/gemm-$s-cublas.jsonl" "$out/gemm-$s-cublas-hot.jsonl" "$s" <<'PY' | tee -a "$sum"
import json, sys
res = json.load(open(sys.argv[1]))
best = max((b for b in res["benchmarks"] if b.get("gflop_per_s")), key=lambda b: b["gflop_per_s"])
burst, hot = (json.loads(open(f).readline())["gflops"] for f in sys.argv[2:4])
r = best["gflop_per_s"]
print("fp32 GEMM %s³: %s %.0f GFLOP/s; cuBLAS in a burst %.0f: %.3f, after 10 s of load %.0f: %.3f (target >= 0.92)" % (sys.argv[4], best["candidate"], r, burst, r / burst, hot, r / hot))
PY
done

if want search; then
# shellcheck disable=SC2086 # SEARCH_FLAGS is a list of flags
timeout 400 "$bin" tune gemm --strategy bayes ${SEARCH_FLAGS:---time-limit 180s} --cache "$out/search.db" -q --format json -o "$out/search.json" 2>"$out/search-stderr.txt" >/dev/null
python3 - "$out/gemm-4096.json" "$out/search.json" <<'PY' | tee -a "$sum"
import json, sys
def best(path):
    res = json.load(open(path))
    return max((b for b in res["benchmarks"] if b.get("gflop_per_s")), key=lambda b: b["gflop_per_s"])
cat, found = best(sys.argv[1]), best(sys.argv[2])
print("search at 4096³: %s %.0f GFLOP/s against the catalogue's %s %.0f: %.3f (target >= 0.97)" % (found["candidate"], found["gflop_per_s"], cat["candidate"], cat["gflop_per_s"], found["gflop_per_s"] / cat["gflop_per_s"]))
PY
grep -h "searched gemm's space" "$out/search-stderr.txt" | tee -a "$sum"
fi

want energy && for i in 1 2; do
	timeout 200 "$bin" tune gemm --objective energy --cache "$out/energy-$i.db" -q >/dev/null 2>"$out/energy-$i-stderr.txt"
	key=$("$bin" cache ls --cache "$out/energy-$i.db" 2>/dev/null | awk '$1 ~ /^gemm\// {print $1; exit}')
	"$bin" cache show "$key" --cache "$out/energy-$i.db" >"$out/energy-$i.txt" 2>&1
	grep -E "winner|tie" "$out/energy-$i.txt" | sed "s|^|energy tune $i ($key): |" | tee -a "$sum"
done
(cd "$out" && tar czf logs.tgz --exclude=logs.tgz --exclude='*.db' . 2>/dev/null)
