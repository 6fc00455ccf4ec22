#!/usr/bin/env python3
"""CUDA baselines for vkbench's built-in operations, through PyTorch.

Prints one JSON object per line: {"op", "size", "seconds", "gbps", "gflops"},
each the median of timed repetitions with CUDA events, at the same sizes
vkbench measures (run it in the same call as vkbench, on the same GPU).
"""
import json
import subprocess
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def timed(fn, reps=50, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    return times[len(times) // 2]


def emit(op, size, sec, nbytes=0.0, flops=0.0):
    print(json.dumps({"op": op, "size": size, "seconds": sec,
                      "gbps": nbytes / sec / 1e9 if nbytes else 0.0,
                      "gflops": flops / sec / 1e9 if flops else 0.0}), flush=True)


def main():
    sizes = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    n = sizes.get("copy", 1 << 28)
    src = torch.randint(0, 2**31 - 1, (n,), dtype=torch.int32, device=dev)
    dst = torch.empty_like(src)
    emit("copy", str(n), timed(lambda: dst.copy_(src)), 8.0 * n)
    del src, dst

    n = sizes.get("triad", 1 << 28)
    b = torch.rand(n, device=dev)
    c = torch.rand(n, device=dev)
    a = torch.empty_like(b)
    emit("triad", str(n), timed(lambda: torch.add(b, c, alpha=3.0, out=a)), 12.0 * n, 2.0 * n)
    del a, b, c

    n = sizes.get("reduce", 1 << 28)
    x = torch.rand(n, device=dev)
    emit("reduce", str(n), timed(lambda: torch.sum(x)), 4.0 * n, 1.0 * n)
    del x

    m, k = sizes.get("transpose", (16384, 16384))
    x = torch.rand(m, k, device=dev)
    emit("transpose", f"{m}x{k}", timed(lambda: x.t().contiguous()), 8.0 * m * k)
    del x

    m, nn, kk = sizes.get("gemm", (4096, 4096, 4096))
    A = torch.rand(m, kk, device=dev)
    B = torch.rand(kk, nn, device=dev)
    emit("gemm", f"{m}x{nn}x{kk}", timed(lambda: torch.matmul(A, B), reps=20), 4.0 * (m * kk + kk * nn + m * nn), 2.0 * m * nn * kk)

    props = torch.cuda.get_device_properties(0)
    try:
        clk = float(subprocess.check_output(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm", "--format=csv,noheader,nounits"]).decode().split("\n")[0].split(",")[0])
    except Exception:  # noqa: BLE001 - the clock is informative only
        clk = 0.0
    sms = props.multi_processor_count
    print(json.dumps({"op": "peak-fma-f32", "size": f"{sms}SMx128x{clk}MHz", "seconds": 0,
                      "gbps": 0.0, "gflops": 2.0 * sms * 128 * clk * 1e6 / 1e9}), flush=True)


if __name__ == "__main__":
    main()
