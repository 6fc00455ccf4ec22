#!/usr/bin/env bash
# The conditions of the numbers, on an NVIDIA GPU (NVML): clocks, power,
# temperature and energy per run beside each result; GEMM's candidates
# ranked by time, by energy and by energy × time; and a throttle made
# visible by running the tensor cores flat out for a minute. From the
# repository root on the GPU machine, the binary built into .devbin/:
#
#   source .gl/enter.sh; bash bench/conditions.sh
#
# Writes under $OUT (or /tmp/conditions): devices.txt, gemm-time.txt,
# gemm-energy.txt, gemm-edp.txt (tables with -v, and the JSON of each),
# throttle.json (the long run) with smi.csv (nvidia-smi's readings during
# it, every 500 ms, to check vkbench's against), and ranks.md, which it
# also prints.
set -uo pipefail
out=${OUT:-/tmp/conditions}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
size=${SIZE:-4096x4096x4096}
cache=$out/c.db
rm -f "$cache"
"$bin" devices > "$out/devices.txt" 2>&1
for obj in time energy edp; do
	"$bin" tune gemm --size "$size" --objective "$obj" --cache "$cache" -q -v --format json -o "$out/gemm-$obj.json" 2> "$out/gemm-$obj.err"
	echo "tune gemm --objective $obj: exit $?"
	"$bin" cache show "gemm/f32/$size" --cache "$cache" --tuner "builtin$([ "$obj" = time ] || echo "+$obj")" > "$out/gemm-$obj.txt" 2>&1
done
# A throttle: the fp16 tensor cores flat out for a minute (the precision
# asked for cannot be reached, so the budget runs out), nvidia-smi
# reading alongside.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 500 > "$out/smi.csv" 2>&1 &
smi=$!
"$bin" run peak-coopmat-f16 --budget 60s --precision 0.001 --max-samples 1000000 --cache off -q --format json -o "$out/throttle.json" 2> "$out/throttle.err"
echo "long run: exit $?"
kill $smi
python3 - "$out" <<'PY' | tee "$out/ranks.md"
import json, sys
out = sys.argv[1]
res = {}
for obj in ("time", "energy", "edp"):
    f = json.load(open(f"{out}/gemm-{obj}.json"))
    res[obj] = f
f = res["time"]
print(f"conditions: {f.get('conditions')}\n")
print("| candidate | median (ms) | GFLOP/s | energy/run (mJ) | power (W) | SM clock (MHz) | flags |")
print("|---|---:|---:|---:|---:|---:|---|")
rows = [b for b in f["benchmarks"] if b.get("stats")]
for b in sorted(rows, key=lambda b: b["stats"]["median_s"]):
    c = b.get("conditions") or {}
    sm = c.get("sm_clock_mhz", {})
    print(f"| {b['candidate']} | {b['stats']['median_s']*1e3:.3f} | {b.get('gflop_per_s',0):.0f} | {b.get('energy_per_run_j',0)*1e3:.1f} | {b.get('power_w',0):.0f} | {sm.get('min',0):.0f}-{sm.get('max',0):.0f} | {','.join(b.get('flags',[]))} |")
print()
for obj, f in res.items():
    w = [b for b in f["benchmarks"] if b.get("winner")]
    print(f"winner by {obj}: {w[0]['candidate'] if w else '-'}")
t = json.load(open(f"{out}/throttle.json"))
for b in t["benchmarks"]:
    print(f"\nlong tensor-core run {b['candidate']}: flags {b.get('flags')}, conditions {json.dumps(b.get('conditions'))}")
PY
