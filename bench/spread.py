#!/usr/bin/env python3
"""Reads the results (JSON) of several separate vkbench processes measuring
the same operations and prints, per operation: each process's winner, its
median and 95% half-width, whether all processes picked the same winner
(or recorded a tie), and the spread of the winner's median across
processes, (max - min) / median."""
import json
import statistics
import sys


def main():
    runs = []
    for name in sys.argv[1:]:
        with open(name) as f:
            runs.append(json.load(f))
    ops = []
    for r in runs:
        for b in r["benchmarks"]:
            if b["op"] not in ops:
                ops.append(b["op"])
    print("| operation | winners | winner medians | ±95% half-widths | same winner | spread of medians |")
    print("|---|---|---|---|---|---|")
    for op in ops:
        winners, medians, hws, tied = [], [], [], []
        for r in runs:
            timed = sorted((b for b in r["benchmarks"] if b["op"] == op and b.get("stats")
                            and b["outcome"] in ("measured", "dropped")), key=lambda b: b["stats"]["median_s"])
            for b in r["benchmarks"]:
                if b["op"] == op and b.get("winner"):
                    s = b["stats"]
                    winners.append(b["candidate"])
                    medians.append(s["median_s"])
                    hws.append((s["ci_hi_s"] - s["ci_lo_s"]) / 2 / s["median_s"])
            # A tie: the winner says so in "tie", by whichever rule (the
            # intervals overlap, or the lead is below the target
            # half-width); older files, without it, are judged from the
            # intervals.
            said = any(b["op"] == op and b.get("winner") and b.get("tie") for b in r["benchmarks"])
            if len(timed) > 1 and (said or timed[0]["stats"]["ci_hi_s"] >= timed[1]["stats"]["ci_lo_s"]):
                tied.append({timed[0]["candidate"], timed[1]["candidate"]})
        same = len(set(winners)) == 1
        if not same and len(tied) == len(runs) and set(winners) <= set().union(*tied):
            same = "tie (" + " = ".join(sorted(set().union(*tied))) + ")"
        med = statistics.median(medians)
        spread = (max(medians) - min(medians)) / med
        print(f"| {op} | {', '.join(winners)} | {', '.join(f'{m*1e6:.1f}µs' for m in medians)} | "
              f"{', '.join(f'{h*100:.2f}%' for h in hws)} | {same if isinstance(same, str) else ('yes' if same else 'no')} | {spread*100:.2f}% |")


if __name__ == "__main__":
    main()
