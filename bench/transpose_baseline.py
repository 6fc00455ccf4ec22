#!/usr/bin/env python3
"""CUDA's side of transpose against copy: torch's out-of-place transpose
(x.t().contiguous(), its own tiled kernel) and torch's device-to-device
copy of the same bytes, timed with CUDA events on the same GPU, so that
vkbench's transpose/copy ratio has one measured by another
implementation beside it.

    python3 bench/transpose_baseline.py [N]   (default 16384: N×N float32)

Prints one JSON object per line: {"op", "n", "seconds", "gbps"}, the
median of 50 timings after 5 warm-up runs, bytes counted as read plus
written (8 N² for both).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline import timed  # noqa: E402  (baseline.py beside this file)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16384
    x = torch.rand(n, n, device="cuda", dtype=torch.float32)
    out = torch.empty(n, n, device="cuda", dtype=torch.float32)
    for op, fn in (("copy", lambda: out.copy_(x)), ("transpose", lambda: out.copy_(x.t()))):
        sec = timed(fn, 50)
        print(json.dumps({"op": op, "n": n, "seconds": sec, "gbps": 8.0 * n * n / sec / 1e9}), flush=True)
    out.copy_(x.t())
    assert torch.equal(out, x.t()), "torch's transpose is wrong"


if __name__ == "__main__":
    main()
