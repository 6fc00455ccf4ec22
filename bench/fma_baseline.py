#!/usr/bin/env python3
"""CUDA's side of peak-fma-f16 and peak-fma-f32: independent FMA chains
in fp16 and fp32, written in Triton (which PyTorch brings) and timed with
CUDA events, so that vkbench's packed-fp16 rate has a baseline measured
by another compiler on the same GPU in the same call. Every element is a
chain x <- x * a + b (a = -1, as vkbench's peak kernels), CHAINS elements
per program, 8 steps per loop iteration; the fp16 chains both as Triton
compiles x * a + b and as explicit packed fma.rn.f16x2 instructions
(inline PTX, two elements an instruction); and last the same chains as
PTX of our own (8 accumulators, 8 steps a loop) loaded through the CUDA
driver, whose JIT is the driver's current compiler: on an H100 with
driver 580 it ran fma.rn.f16x2 at twice the fp32 rate, where Triton's
bundled compiler, given the same instruction, reached the fp32 rate
(bench/RESULTS.md, 2026-12-07).

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


ACC, UNROLL = 8, 8


def driver_ptx(name, reg, op, init):
    """PTX of ACC independent chains a thread, UNROLL steps a loop, whose
    XOR is stored so that no step can be dropped."""
    regs = range(ACC)
    inits = "\n".join(f"  add.u32 %t, %g, {j}; {init.format(j=j)}" for j in regs)
    body = "\n".join(f"  {op} %x{j}, %x{j}, %a, %b;" for _ in range(UNROLL) for j in regs)
    fold = "\n".join(f"  mov.b32 %y, %x{j}; xor.b32 %s, %s, %y;" for j in regs)
    return f""".version 8.0
.target sm_90
.address_size 64
.visible .entry {name}(.param .u64 out, .param .u32 iters, .param {reg} pa, .param {reg} pb)
{{
  .reg {reg} %x<{ACC}>; .reg {reg} %a, %b; .reg .f16 %h; .reg .b32 %y;
  .reg .u32 %i, %n, %g, %t, %s, %c, %d; .reg .pred %p; .reg .u64 %o, %off;
  ld.param.u64 %o, [out]; ld.param.u32 %n, [iters];
  ld.param{reg} %a, [pa]; ld.param{reg} %b, [pb];
  mov.u32 %g, %tid.x; mov.u32 %c, %ctaid.x; mov.u32 %d, %ntid.x; mad.lo.u32 %g, %c, %d, %g;
{inits}
  mov.u32 %i, 0;
LOOP:
{body}
  add.u32 %i, %i, 1; setp.lt.u32 %p, %i, %n; @%p bra LOOP;
  mov.u32 %s, 0;
{fold}
  mul.wide.u32 %off, %g, 4; add.u64 %o, %o, %off; st.global.u32 [%o], %s;
  ret;
}}
"""


def measure_driver(kind, iters=4096, reps=5):
    """The chains as our own PTX, compiled by the driver's JIT (the CUDA
    driver API through ctypes), timed with the host clock around
    synchronized launches of every SM's 8 workgroups of 256."""
    import ctypes
    import time
    cu = ctypes.CDLL("libcuda.so.1")
    torch.zeros(1, device="cuda")  # the primary context, current
    # a = -1, b = 3 and small integers, as the other kernels; fp32 bits, or two fp16s.
    src, a, b, flops = {
        "float32": (driver_ptx("k32", ".f32", "fma.rn.f32", "cvt.rn.f32.u32 %x{j}, %t;"), 0xbf800000, 0x40400000, 2),
        "float16": (driver_ptx("k16", ".b32", "fma.rn.f16x2", "and.b32 %t, %t, 31; cvt.rn.f16.u32 %h, %t; mov.b32 %x{j}, {{%h, %h}};"),
                    0xbc00bc00, 0x42004200, 4),
    }[kind]
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    for r, what in ((cu.cuModuleLoadData(ctypes.byref(mod), src.encode() + b"\0"), "cuModuleLoadData"),
                    (cu.cuModuleGetFunction(ctypes.byref(fn), mod, src.split(".entry ")[1].split("(")[0].encode()), "cuModuleGetFunction")):
        if r != 0:
            raise RuntimeError(f"{what}: CUresult {r}")
    blocks = torch.cuda.get_device_properties(0).multi_processor_count * 8
    out = torch.empty(blocks * 256, dtype=torch.int32, device="cuda")
    vals = [ctypes.c_uint64(out.data_ptr()), ctypes.c_uint32(iters), ctypes.c_uint32(a), ctypes.c_uint32(b)]
    args = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])

    def launch():
        if cu.cuLaunchKernel(fn, blocks, 1, 1, 256, 1, 1, 0, None, args, None) != 0:
            raise RuntimeError("cuLaunchKernel failed")
    for _ in range(3):
        launch()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(10):
            launch()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / 10)
    ops = blocks * 256 * iters * UNROLL * ACC * flops
    return {"dtype": kind, "kernel": "driver_ptx", "tflops": ops / best / 1e12, "ms": best * 1e3,
            "chains": blocks * 256 * ACC * (flops // 2), "iters": iters * UNROLL}


for kind in ("float16", "float32"):
    try:
        print(json.dumps(measure_driver(kind)), flush=True)
    except Exception as e:  # report and go on to the next
        print(json.dumps({"dtype": kind, "kernel": "driver_ptx", "error": str(e)[:300]}), flush=True)
