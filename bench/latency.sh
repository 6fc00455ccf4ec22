#!/usr/bin/env bash
# Host-side latency on the GPU machine, CUDA's beside it in the same call:
# one empty dispatch recorded, submitted and waited for (vk's
# BenchmarkRoundTrip: through the HAL, which polls the timeline before it
# blocks, and a loop written directly on the binding, which blocks at
# once), CUDA's launch of a one-element kernel plus synchronize (PyTorch),
# and the library's Fastest answered from memory on 1 and 16 goroutines.
# From the repository root there, test binaries built into .devbin/:
#
#   go test -c -o .devbin/vk.test ./vk; go test -c -o .devbin/vkbench.test .
#   source .gl/enter.sh; bash bench/latency.sh
#
# Writes latency.txt under $OUT (or /tmp/latency).
set -u
out=${OUT:-/tmp/latency}
mkdir -p "$out"
root=$(pwd)
{
	(cd vk && timeout 200 "$root/.devbin/vk.test" -test.run '^$' -test.bench 'RoundTrip|Record' -test.benchtime 2s -test.count 5) 2>&1 | grep -E '^Benchmark'
	timeout 200 "$root/.devbin/vkbench.test" -test.run '^$' -test.bench 'FastestHit' -test.cpu 1,16 -test.benchtime 1s -test.count 5 2>&1 | grep -E '^Benchmark'
	python3 - <<'PY'
import statistics, time, torch
x = torch.zeros(1, device="cuda")
for _ in range(2000):
    x.add_(1)
    torch.cuda.synchronize()
runs = []
for _ in range(5):
    n = 20000
    t = time.perf_counter()
    for _ in range(n):
        x.add_(1)
        torch.cuda.synchronize()
    runs.append((time.perf_counter() - t) / n * 1e6)
print("cuda launch+synchronize (one-element add_): median %.2f us, runs %s" % (statistics.median(runs), " ".join("%.2f" % r for r in runs)))
PY
} | tee "$out/latency.txt"
python3 - "$out/latency.txt" <<'PY' | tee -a "$out/latency.txt"
import re, statistics, sys
text = open(sys.argv[1]).read()
def med(name, procs=""):
    # procs: the -N suffix go test gives a run at GOMAXPROCS N > 1 (the
    # round trip runs at the machine's, so any).
    v = [float(x) for x in re.findall(r"^%s%s\s+\d+\s+([0-9.]+) ns/op" % (re.escape(name), procs), text, re.M)]
    return statistics.median(v) if v else None
cuda = re.search(r"median ([0-9.]+) us", text)
hal, direct = med("BenchmarkRoundTrip/hal", r"(?:-\d+)?"), med("BenchmarkRoundTrip/direct", r"(?:-\d+)?")
if cuda and hal:
    c = float(cuda.group(1)) * 1000
    print("round trip: hal %.1f us, direct %.1f us, cuda %.1f us; hal/cuda %.2f (target <= 2)" % (hal / 1e3, (direct or 0) / 1e3, c / 1e3, hal / c))
one, many = med("BenchmarkFastestHit/candidates=3"), med("BenchmarkFastestHit/candidates=48")
par1, par16 = med("BenchmarkFastestHitParallel"), med("BenchmarkFastestHitParallel-16")
if one and par1 and par16:
    print("Fastest from memory: %.1f ns on one goroutine, 3 candidates (target <= 50; %.1f ns at 48); 16 goroutines %.1fx one's throughput (target >= 10)" % (one, many or 0, par1 / par16))
PY
