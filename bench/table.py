#!/usr/bin/env python3
"""Joins vkbench's results (JSON) with the baselines of bench/baseline.py
(JSON lines) into one Markdown table.

    python3 bench/table.py RESULTS.json BASELINE.jsonl
        one row per operation: its best candidate, its rate, the
        baseline's rate and what the baseline is, and the ratio;
    python3 bench/table.py --op gemm RESULTS.json BASELINE.jsonl
        one row per candidate of that operation: its median time, rate and
        registers (from the compiler statistics the driver reports, where
        it does), then the baseline and the best candidate's ratio to it.
"""
import argparse
import json


# Below this many operations per byte moved, an operation's bandwidth is
# the rate that matters, as vkbench's own tables decide (report.UnitOf).
MEMORY_BOUND = 4


def rate_of(b, op):
    """vkbench's rate for benchmark b, and its unit: GFLOP/s (GOP/s for
    integer elements, as vkbench peak says) for operations that do a few
    operations per byte they move or more (every gemm, whatever its
    element type, and the peak kernels), else GB/s. The op is named for
    the callers' sake; the benchmark's own counts decide."""
    flops, nbytes = b.get("flops_per_run", 0), b.get("bytes_per_run", 0)
    use_flops = flops > 0 and (nbytes <= 0 or flops / nbytes >= MEMORY_BOUND)
    mine = b.get("gflop_per_s", 0) if use_flops else b.get("gb_per_s", 0)
    unit = ("GOP/s" if res_dtype(b)[:1] in ("i", "u") else "GFLOP/s") if use_flops else "GB/s"
    return mine, unit, use_flops


def baseline_text(bl, use_flops, unit):
    """The baseline's rate, what it is, and how it was timed."""
    theirs = (bl.get("gflops") if use_flops else bl.get("gbps")) if bl else None
    if not theirs:
        return None, "-"
    how = bl.get("source", "")
    if bl.get("reps"):
        how += f", median of {bl['reps']} CUDA-event timings"
    return theirs, f"{theirs:.1f} {unit}" + (f" ({how})" if how else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--op", help="one row per candidate of this operation")
    ap.add_argument("results")
    ap.add_argument("baseline")
    args = ap.parse_args()
    with open(args.results) as f:
        res = json.load(f)
    base = {}
    with open(args.baseline) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                b = json.loads(line)
                base[b["op"]] = b
    print(f"device: {res['device']['name']} ({res['device']['driver']}), mode {res['mode']}")
    print()
    if args.op:
        candidates(res, base, args.op)
        return
    print("| operation | size | vkbench best | vkbench | baseline (same call) | ratio |")
    print("|---|---|---|---|---|---|")
    for b in res["benchmarks"]:
        if not b.get("winner"):
            continue
        op = b["op"]
        mine, unit, use_flops = rate_of(b, op)
        theirs, theirs_s = baseline_text(base.get(op), use_flops, unit)
        ratio = f"{mine / theirs:.3f}" if theirs else "-"
        print(f"| {op} | {b['shape']} | {b['candidate']} | {mine:.1f} {unit} | {theirs_s} | {ratio} |")


def candidates(res, base, op):
    """One row per candidate of op, then the baseline and the ratio of the
    fastest candidate to it."""
    print("| candidate | outcome | median | vkbench | registers |")
    print("|---|---|---|---|---|")
    best, unit, use_flops, shape = 0.0, "", False, ""
    for b in res["benchmarks"]:
        if b["op"] != op:
            continue
        shape = b["shape"]
        mine, unit, use_flops = rate_of(b, op)
        s = b.get("stats")
        median = f"{s['median_s'] * 1e3:.3f} ms" if s else "-"
        regs = b.get("compiler", {}).get("Register Count")
        regs = f"{regs:g}" if regs is not None else "-"
        rate = f"{mine:.1f} {unit}" if mine else "-"
        print(f"| {b['candidate']}{' (winner)' if b.get('winner') else ''} | {b['outcome']} | {median} | {rate} | {regs} |")
        if b["outcome"] in ("measured", "dropped"):
            best = max(best, mine)
    bl = base.get(op)
    theirs, theirs_s = baseline_text(bl, use_flops, unit)
    print()
    print(f"baseline (same call, size {bl['size'] if bl else '-'}): {theirs_s}")
    if bl and bl["size"] != shape:
        print(f"not comparable: vkbench measured size {shape}")
    elif theirs and best:
        print(f"fastest candidate against it: {best:.1f} / {theirs:.1f} = {best / theirs:.3f}")


def res_dtype(b):
    """The element type of a benchmark: its dtype field, else the one in
    its key (op/dtype/shape)."""
    if b.get("dtype"):
        return b["dtype"]
    parts = b.get("key", "").split("/")
    return parts[1] if len(parts) > 2 else ""


if __name__ == "__main__":
    main()
