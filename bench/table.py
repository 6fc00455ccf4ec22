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
        bl = base.get(op)
        use_flops = op in ("gemm",) or op.startswith("peak")
        mine = b.get("gflop_per_s", 0) if use_flops else b.get("gb_per_s", 0)
        # Integer operations are counted in GOP/s, as vkbench peak says.
        unit = ("GOP/s" if res_dtype(b) in ("i32", "u32") else "GFLOP/s") if use_flops else "GB/s"
        theirs = (bl.get("gflops") if use_flops else bl.get("gbps")) if bl else None
        ratio = f"{mine / theirs:.3f}" if theirs else "-"
        theirs_s = f"{theirs:.1f} {unit}" if theirs else "-"
        print(f"| {op} | {b['shape']} | {b['candidate']} | {mine:.1f} {unit} | {theirs_s} | {ratio} |")


def res_dtype(b):
    """The element type of a benchmark: its dtype field, else the one in
    its key (op/dtype/shape)."""
    if b.get("dtype"):
        return b["dtype"]
    parts = b.get("key", "").split("/")
    return parts[1] if len(parts) > 2 else ""


if __name__ == "__main__":
    main()
