#!/usr/bin/env bash
# Several GPUs of one host: tuning every built-in operation on one device,
# then on every device at once (identical devices split the work), in one
# call, each from an empty cache. From the repository root on the GPU
# machine (nvidia-h200-x2), binaries built into .devbin/:
#   source .gl/enter.sh; bash bench/x2.sh
set -euo pipefail
out=${OUT:-/tmp/x2}
mkdir -p "$out"
bin=${VKBENCH:-.devbin/vkbench}
"$bin" devices | grep -E '^device|hardware' | tee "$out/devices.txt"
# Warm both GPUs' clocks and the driver's shader cache alike first.
"$bin" tune --all-devices --cache "$out/warm.db" -q --budget 1s --format json -o /dev/null
start=$(date +%s%N)
"$bin" tune --device 0 --cache "$out/one.db" -q --budget 4s --format json -o "$out/one.json"
one=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
"$bin" tune --all-devices --cache "$out/all.db" -q --budget 4s --format json -o "$out/all.json"
all=$(( ($(date +%s%N) - start) / 1000000 ))
python3 - "$out/all.json" "$one" "$all" <<'PY' | tee "$out/x2.txt"
import collections, json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
one, both = int(sys.argv[2]), int(sys.argv[3])
per = collections.Counter(j["device"] for j in jobs)
keys = collections.Counter((j["op"], j["size"]) for j in jobs)
print(f"one device: {one} ms; every device at once: {both} ms; ratio {both / one:.3f} (target at most 0.6)")
print("jobs per device:", dict(per))
print("keys tuned more than once:", [k for k, n in keys.items() if n > 1] or "none")
for j in jobs:
    e = j.get("entry") or {}
    print(f'  {j["op"]:14s} {j["size"]:16s} device {j["device"]} took {j["took_s"]:.2f}s, measured by {e.get("device", "-")}, winner {e.get("fastest_name", "-")}')
PY
