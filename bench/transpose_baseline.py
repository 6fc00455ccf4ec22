#!/usr/bin/env python3
"""CUDA's side of transpose against copy: torch's device-to-device copy,
torch's out-of-place transpose (out.copy_(x.t()): an element-wise
strided copy, not a tiled transpose) and a tiled transpose written in
Triton (each program loads a BLOCK x BLOCK tile, tl.trans, stores it;
Triton stages it through shared memory), timed with CUDA events on the
same GPU, so that vkbench's transpose/copy ratio has one measured by
another compiler beside it.

    python3 bench/transpose_baseline.py [N]   (default 16384: N×N float32)

Prints one JSON object per line: {"op", "n", "seconds", "gbps"}, the
median of 50 timings after 5 warm-up runs, bytes counted as read plus
written (8 N² for both).
"""
import json
import os
import sys

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # the Triton rows are optional
    triton = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline import timed  # noqa: E402  (baseline.py beside this file)


if triton is not None:
    @triton.jit
    def tiled(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        tile = tl.load(x_ptr + r[:, None] * n + c[None, :])
        tl.store(y_ptr + c[:, None] * n + r[None, :], tl.trans(tile))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16384
    x = torch.rand(n, n, device="cuda", dtype=torch.float32)
    out = torch.empty(n, n, device="cuda", dtype=torch.float32)
    runs = [("copy", lambda: out.copy_(x)), ("transpose", lambda: out.copy_(x.t()))]
    if triton is not None:
        for block, warps in ((32, 4), (64, 4), (64, 8), (128, 8)):
            grid = (n // block, n // block)
            runs.append((f"triton-tiled-{block}-w{warps}",
                         lambda block=block, warps=warps, grid=grid: tiled[grid](x, out, n, BLOCK=block, num_warps=warps)))
    for op, fn in runs:
        sec = timed(fn, 50)
        ok = op == "copy" or torch.equal(out, x.t())
        print(json.dumps({"op": op, "n": n, "seconds": sec, "gbps": 8.0 * n * n / sec / 1e9, "exact": ok}), flush=True)


if __name__ == "__main__":
    main()
