#!/usr/bin/env python3
"""CUDA's side of peak-fma-f16 and peak-fma-f32: independent FMA chains
in fp16 and fp32, written in Triton (which PyTorch brings) and timed with
CUDA events, so that vkbench's packed-fp16 rate has a baseline measured
by another compiler on the same GPU in the same call. Every element is a
chain x <- x * a + b (a = -1, as vkbench's peak kernels), CHAINS elements
per program, 8 steps per loop iteration; the fp16 chains both as Triton
compiles x * a + b and as explicit packed fma.rn.f16x2 instructions
(inline PTX, two elements an instruction).

    python3 bench/fma_baseline.py

Prints one JSON line per dtype: {"dtype", "tflops", "ms", "chains",
"iters"}; or one line saying why it could not run.
"""
import json
import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as e:  # the baseline is optional: say so and stop
    print(json.dumps({"error": f"no triton: {e}"}))
    sys.exit(0)


@triton.jit
def chains(x_ptr, y_ptr, a, b, iters, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    av = tl.full([BLOCK], a, x.dtype)
    bv = tl.full([BLOCK], b, x.dtype)
    for _ in range(iters // 8):
        x = x * av + bv
        x = x * av + bv
        x = x * av + bv
        x = x * av + bv
        x = x * av + bv
        x = x * av + bv
        x = x * av + bv
        x = x * av + bv
    tl.store(y_ptr + offs, x)


@triton.jit
def step_hfma2(x, a, b):
    # One packed fma.rn.f16x2 (HFMA2) for two elements: the packed fp16
    # rate, whatever the compiler would make of x * a + b.
    return tl.inline_asm_elementwise("fma.rn.f16x2 $0, $1, $2, $3;", "=r,r,r,r", [x, a, b],
                                     dtype=tl.float16, is_pure=True, pack=2)


@triton.jit
def chains_hfma2(x_ptr, y_ptr, a, b, iters, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    av = tl.full([BLOCK], a, x.dtype)
    bv = tl.full([BLOCK], b, x.dtype)
    for _ in range(iters // 8):
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
        x = step_hfma2(x, av, bv)
    tl.store(y_ptr + offs, x)


def measure(dtype, n=1 << 24, iters=4096, block=2048, warps=4, reps=5, kernel=chains):
    x = torch.randint(-32, 33, (n,), device="cuda").to(dtype)
    y = torch.empty_like(x)
    grid = (n // block,)
    handle = kernel[grid](x, y, -1.0, 3.0, iters, BLOCK=block, num_warps=warps)
    torch.cuda.synchronize()
    # What the compiler made of a step: packed or scalar half FMAs, or fp32.
    ptx = getattr(handle, "asm", {}).get("ptx", "")
    ops = {op: ptx.count(op) for op in ("fma.rn.f16x2", "fma.rn.f16 ", "fma.rn.f32", "mul.rn.f16x2", "mul.f16x2")}
    best = float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        kernel[grid](x, y, -1.0, 3.0, iters, BLOCK=block, num_warps=warps)
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end))
    want = x if iters % 2 == 0 else 3.0 - x
    ok = bool(torch.equal(y, want.to(dtype)))
    return {"dtype": str(dtype).removeprefix("torch."), "kernel": kernel.__name__ if hasattr(kernel, "__name__") else kernel.fn.__name__, "tflops": 2 * n * iters / best / 1e9,
            "ms": best, "chains": n, "iters": iters, "block": block, "warps": warps, "exact": ok, "ptx_ops": ops}


for dtype, kernel in ((torch.float16, chains), (torch.float16, chains_hfma2), (torch.float32, chains)):
    for block, warps in ((2048, 4), (4096, 8)):
        try:
            print(json.dumps(measure(dtype, block=block, warps=warps, kernel=kernel)), flush=True)
        except Exception as e:  # report and go on to the next
            print(json.dumps({"dtype": str(dtype), "error": str(e)[:300]}), flush=True)
