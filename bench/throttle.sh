#!/usr/bin/env bash
# The conditions flags, shown on an NVIDIA GPU: a result taken with no
# warm-up right after the GPU idled (its clocks move while it is sampled:
# clocks-moved), and results taken while another process (cuBLAS fp16
# GEMM through PyTorch) runs the GPU flat out (held at its power limit:
# throttled), compared with the same taken on an idle GPU, which compare
# then says beside its verdict. From the repository root on the GPU
# machine, the binary built into .devbin/:
#
#   source .gl/enter.sh; bash bench/throttle.sh
#
# Writes under $OUT (or /tmp/throttle): cold-start.json, warm.json,
# loaded-coopmat.json, idle-copy.json, loaded-copy.json, compare.txt,
# smi.csv (nvidia-smi every 250 ms throughout) and flags.md, which it
# also prints.
set -uo pipefail
out=${OUT:-/tmp/throttle}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
run=("$bin" run --cache off -q --format json)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv -lms 250 > "$out/smi.csv" 2>&1 &
smi=$!
# 1. Straight after idling, no warm-up; then with the default warm-up.
"${run[@]}" copy --warmup 0 -o "$out/cold-start.json"
"${run[@]}" copy -o "$out/warm.json"
"${run[@]}" copy --count 5 --budget 500ms -o "$out/idle-copy.json"
# 2. Under another process's load.
python3 - <<'PY' &
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
end = time.time() + 45
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
PY
load=$!
sleep 8
"${run[@]}" peak-coopmat-f16 --budget 10s -o "$out/loaded-coopmat.json"
"${run[@]}" copy --count 5 --budget 500ms -o "$out/loaded-copy.json"
wait $load
kill $smi
"$bin" compare "$out/idle-copy.json" "$out/loaded-copy.json" > "$out/compare.txt" 2>&1
echo "compare: exit $?" >> "$out/compare.txt"
python3 - "$out" <<'PY' | tee "$out/flags.md"
import json, sys
out = sys.argv[1]
for name in ("cold-start", "warm", "idle-copy", "loaded-coopmat", "loaded-copy"):
    f = json.load(open(f"{out}/{name}.json"))
    print(f"## {name} (conditions: {f.get('conditions')})\n")
    print("| candidate | median (µs) | SM clock (MHz) | power (W) | throttles | flags |")
    print("|---|---:|---:|---:|---|---|")
    for b in f["benchmarks"]:
        if not b.get("stats"):
            continue
        c = b.get("conditions") or {}
        sm, pw = c.get("sm_clock_mhz", {}), c.get("power_w", {})
        print(f"| {b['candidate']} | {b['stats']['median_s']*1e6:.1f} | {sm.get('min',0):.0f}-{sm.get('max',0):.0f} | {pw.get('min',0):.0f}-{pw.get('max',0):.0f} | {','.join(c.get('throttles',[]))} | {','.join(b.get('flags',[]))} |")
    print()
print(open(f"{out}/compare.txt").read())
PY
