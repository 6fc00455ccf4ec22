#!/usr/bin/env python3
"""Where tune time goes: reads the -v log of `vkbench tune` (stdin or a
file) and prints, per key and in all, the seconds spent preparing the
problem, building pipelines ahead of its measurement (prebuild: the wall
time of building them behind the measurements before it) and during it,
running and checking the verifying runs, warming up and sampling, beside
the key's whole measurement."""
import re
import sys

UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def seconds(text):
    """Go's time.Duration text (1m2.5s, 3.2ms) in seconds."""
    total = 0.0
    for num, unit in re.findall(r"([0-9.]+)(ns|µs|us|ms|s|m|h)", text):
        total += float(num) * UNITS[unit]
    return total


PHASES = ["prepare", "prebuild", "build", "verify-run", "check", "warm-up", "sampling", "total"]


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    keys = {}
    for line in src:
        m = re.search(r'msg="autotune: (\w[\w ]*)" key=(\S+)(.*)', line)
        if not m:
            continue
        what, key, rest = m.group(1), m.group(2), m.group(3)
        row = keys.setdefault(key, dict.fromkeys(PHASES, 0.0))
        fields = dict(re.findall(r"(\w+)=(\S+)", rest))
        if what == "prepared":
            row["prepare"] += seconds(fields.get("took", ""))
        elif what == "prebuilt":
            row["prebuild"] += seconds(fields.get("took", ""))
        elif what == "verified":
            row["build"] += seconds(fields.get("build", ""))
            row["verify-run"] += seconds(fields.get("run", ""))
            row["check"] += seconds(fields.get("verify", ""))
        elif what == "warmed up":
            row["warm-up"] += seconds(fields.get("took", ""))
        elif what == "sampled":
            row["sampling"] += seconds(fields.get("took", ""))
        elif what == "measured":
            row["total"] += seconds(fields.get("total", ""))
    if not keys:
        sys.exit("tunetime: no autotune lines in the log (was it run with -v?)")
    print("| key | " + " | ".join(PHASES) + " |")
    print("|---|" + "---:|" * len(PHASES))
    sums = dict.fromkeys(PHASES, 0.0)
    for key, row in keys.items():
        print(f"| {key} | " + " | ".join(f"{row[p]:.2f}" for p in PHASES) + " |")
        for p in PHASES:
            sums[p] += row[p]
    print("| all | " + " | ".join(f"**{sums[p]:.2f}**" for p in PHASES) + " |")


if __name__ == "__main__":
    main()
