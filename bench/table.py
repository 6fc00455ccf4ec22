#!/usr/bin/env python3
"""Joins vkbench's results (JSON) with the torch baselines (JSON lines) into
one Markdown table: operation, size, best candidate, its rate, the
baseline's rate, and the ratio."""
import json
import sys


def main():
    res = json.load(open(sys.argv[1]))
    base = {}
    for line in open(sys.argv[2]):
        line = line.strip()
        if line.startswith("{"):
            b = json.loads(line)
            base[b["op"]] = b
    print(f"device: {res['device']['name']} ({res['device']['driver']}), mode {res['mode']}")
    print()
    print("| operation | size | vkbench best | vkbench | baseline | ratio |")
    print("|---|---|---|---|---|---|")
    for b in res["benchmarks"]:
        if not b.get("winner"):
            continue
        op = b["op"]
        key = "peak-fma-f32" if op == "peak-fma-f32" else op
        bl = base.get(key)
        use_flops = op in ("gemm",) or op.startswith("peak")
        mine = b.get("gflop_per_s", 0) if use_flops else b.get("gb_per_s", 0)
        unit = "GFLOP/s" if use_flops else "GB/s"
        theirs = (bl.get("gflops") if use_flops else bl.get("gbps")) if bl else None
        ratio = f"{mine / theirs:.3f}" if theirs else "-"
        theirs_s = f"{theirs:.1f} {unit}" if theirs else "-"
        print(f"| {op} | {b['shape']} | {b['candidate']} | {mine:.1f} {unit} | {theirs_s} | {ratio} |")


if __name__ == "__main__":
    main()
