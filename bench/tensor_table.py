#!/usr/bin/env python3
"""The table of bench/tensor.sh, from the files it leaves in one folder
(its only argument): peak.json (vkbench peak), peaks.json, gemm-f16-S.json,
gemm-bf16-S.json and gemm-S.json (vkbench run), baseline.jsonl
(bench/tensor_baseline.py).

Prints, in Markdown: gemm-f16 against cuBLAS HGEMM, gemm-bf16 against
cuBLAS's bfloat16 GEMM and gemm against cuBLAS SGEMM at each size (ratios), the peaks against their references (the
published 622 TFLOP/s of a Vulkan cooperative-matrix fp16 peak on a GH200,
the theoretical dense fp16 tensor rate at the maximum clock, and
peak-fma-f16 / peak-fma-f32), and every candidate's compiler statistics
(registers, shared memory, spills) where the driver reports them.
"""
import glob
import json
import os
import re
import sys

GH200_PUBLISHED = 622e3  # GFLOP/s: a Vulkan cooperative-matrix fp16 peak on a GH200 (driver 565)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def winner(res):
    for b in (res or {}).get("benchmarks", []):
        if b.get("winner"):
            return b
    return None


def baselines(folder):
    out = {}
    try:
        with open(os.path.join(folder, "baseline.jsonl")) as f:
            for line in f:
                if line.startswith("{"):
                    b = json.loads(line)
                    out[(b["op"], b.get("size", ""))] = b
    except OSError:
        pass
    return out


def gemm_rows(folder, base, prefix, theirs_op, title):
    print(f"## {title}")
    print()
    print("| size | vkbench best | vkbench TFLOP/s | % of peak | cuBLAS TFLOP/s | ratio |")
    print("|---|---|---|---|---|---|")
    files = sorted(glob.glob(os.path.join(folder, prefix + "-[0-9]*.json")), key=lambda p: int(re.findall(r"(\d+)\.json$", p)[0]))
    for path in files:
        w = winner(load(path))
        if not w:
            print(f"| {os.path.basename(path)} | no winner | - | - | - | - |")
            continue
        mine = w.get("gflop_per_s", 0) / 1e3
        b = base.get((theirs_op, w["shape"]))
        theirs = b["gflops"] / 1e3 if b else 0
        ratio = f"{mine / theirs:.3f}" if theirs else "-"
        pct = f"{w['percent_of_peak']:.0f}%" if w.get("percent_of_peak") else "-"
        print(f"| {w['shape']} | {w['candidate']} | {mine:.1f} | {pct} | {theirs:.1f} | {ratio} |")
    print()


def peak_rows(folder, base):
    peak = load(os.path.join(folder, "peak.json")) or {}
    runs = load(os.path.join(folder, "peaks.json"))
    best = {}
    for b in (runs or {}).get("benchmarks", []):
        if b.get("winner"):
            best[b["op"]] = b
    dev = base.get(("device", ""), {})
    theo = dev.get("theoretical_dense_f16_tensor_gflops", 0)
    print("## Peaks")
    print()
    print("| measure | best candidate | vkbench TFLOP/s (TOP/s) | against | ratio |")
    print("|---|---|---|---|---|")
    f32 = peak.get("gflop_per_s", 0)
    f16 = peak.get("fp16_gflop_per_s", 0)
    rows = [
        ("peak-coopmat-f16", peak.get("matrix_f16_gflop_per_s", 0), [("published GH200 Vulkan peak", GH200_PUBLISHED), ("theoretical dense fp16 at max clock (arithmetic)", theo)]),
        ("peak-coopmat-f16acc", peak.get("matrix_f16acc_gflop_per_s", 0), [("theoretical dense fp16 at max clock (arithmetic)", theo)]),
        ("peak-coopmat-s8", peak.get("matrix_s8_gop_per_s", 0), [("twice the theoretical dense fp16 (arithmetic)", 2 * theo)]),
        ("peak-coopmat-bf16", peak.get("matrix_bf16_gflop_per_s", 0), [("peak-coopmat-f16, same call", peak.get("matrix_f16_gflop_per_s", 0))]),
        ("peak-fma-f16", f16, [("peak-fma-f32, same call (target 1.8)", f32)]),
        ("peak-fma-f32", f32, []),
    ]
    for op, rate, refs in rows:
        cand = best.get(op, {}).get("candidate", "-")
        if not refs:
            refs = [("", 0)]
        for name, ref in refs:
            ratio = f"{rate / ref:.3f}" if rate and ref else "-"
            print(f"| {op} | {cand} | {rate / 1e3:.1f} | {name} {ref / 1e3:.1f} | {ratio} |" if ref else f"| {op} | {cand} | {rate / 1e3:.1f} | - | - |")
    print()


def compiler_rows(folder):
    print("## What the compiler made of each candidate")
    print()
    print("| operation | size | candidate | outcome | TFLOP/s | compiler statistics |")
    print("|---|---|---|---|---|---|")
    unsupported = 0
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        res = load(path)
        if not res or "benchmarks" not in res:
            continue
        for b in res["benchmarks"]:
            if b.get("outcome") == "unsupported":
                unsupported += 1
                continue
            stats = b.get("compiler") or {}
            keep = {k: v for k, v in stats.items() if re.search(r"register|shared|spill|local|stack", k, re.I)}
            text = ", ".join(f"{k} {v:g}" for k, v in sorted(keep.items())) or ("-" if not stats else "(none of registers, shared memory, spills)")
            rate = b.get("gflop_per_s", 0) / 1e3
            outcome = b.get("outcome", "")
            if outcome not in ("measured", "dropped"):
                outcome += ": " + (b.get("error", "")[:80])
            print(f"| {b['op']} | {b['shape']} | {b['candidate']}{' *' if b.get('winner') else ''} | {outcome} | {rate:.1f} | {text} |")
    print()
    if unsupported:
        print(f"({unsupported} results of candidates the device cannot run are left out; the JSON files say why.)")
        print()


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tensor"
    base = baselines(folder)
    dev = base.get(("device", ""))
    if dev:
        print(f"GPU: {dev['name']}, {dev['sms']} SMs, SM clock {dev['sm_clock_mhz']:.0f} MHz (max {dev['max_sm_clock_mhz']:.0f})")
        print()
    gemm_rows(folder, base, "gemm-f16", "hgemm", "gemm-f16 (fp16 in and out, fp32 sums) against cuBLAS HGEMM (torch float16 matmul)")
    gemm_rows(folder, base, "gemm-bf16", "bgemm", "gemm-bf16 (bf16 in and out, fp32 sums) against cuBLAS (torch bfloat16 matmul)")
    gemm_rows(folder, base, "gemm", "sgemm", "gemm (fp32) against cuBLAS SGEMM (TF32 off)")
    peak_rows(folder, base)
    compiler_rows(folder)


if __name__ == "__main__":
    main()
