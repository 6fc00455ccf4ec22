#!/usr/bin/env python3
"""CUDA baselines for vkbench's built-in operations, through PyTorch, and
the GPU's theoretical fp32 peak.

    python3 bench/baseline.py [SIZES_JSON] [--ops copy,gemm,...] [--reps N]

Prints one JSON object per line: {"op", "size", "seconds", "gbps",
"gflops", "source", "reps"}. A measured baseline is the median of --reps
repetitions (default 50; GEMM 20 unless --reps is given) timed with CUDA
events, after 5 untimed ones (and --hot seconds of them, where given), at the sizes vkbench measures on a discrete
GPU (SIZES_JSON replaces them: {"gemm": [M, N, K], "copy": n, ...}); run it
in the same call as vkbench, on the same GPU. "source" says what was timed.

peak-fma-f32 is not measured: it is 2 x SMs x FP32 lanes per SM x the
maximum SM clock (nvidia-smi's clocks.max.sm), the fp32 FMA rate the GPU
could reach at its highest clock. "source" says so, with the numbers; the
SM clock at the time is reported beside it. A GPU whose FP32 lanes per SM
this script does not know gets no peak line.
"""
import argparse
import json
import subprocess
import sys
import time

try:  # the tests import this file for fp32_peak, on machines without torch
    import torch
except ImportError:
    torch = None
if torch is not None:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")

# FP32 lanes (CUDA cores) per SM, by compute capability, from NVIDIA's
# CUDA C++ Programming Guide (arithmetic instructions throughput table).
FP32_LANES_PER_SM = {(7, 0): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128}

OPS = ("copy", "triad", "reduce", "transpose", "gemm", "peak-fma-f32")


HOT = 0.0  # seconds of back-to-back runs before timing (--hot)


def timed(fn, reps, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    if HOT > 0:
        # The GPU at its sustained clocks: vkbench samples in shuffled
        # rounds over seconds, where a short burst after idle runs at the
        # clocks of a cool GPU with power to spare.
        end = time.monotonic() + HOT
        while time.monotonic() < end:
            for _ in range(10):
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


def emit(op, size, sec, source, reps, nbytes=0.0, flops=0.0, **extra):
    line = {"op": op, "size": size, "seconds": sec,
            "gbps": nbytes / sec / 1e9 if nbytes and sec else 0.0,
            "gflops": flops / sec / 1e9 if flops and sec else 0.0,
            "source": source, "reps": reps}
    if HOT > 0:
        line["hot_s"] = HOT
    line.update(extra)
    print(json.dumps(line), flush=True)


def fp32_peak(major, minor, sms, cur_mhz, max_mhz):
    """The baseline line of the theoretical fp32 peak of a GPU of compute
    capability major.minor with sms SMs: 2 x SMs x FP32 lanes per SM x the
    maximum SM clock, whatever the clock of the moment (cur_mhz, reported
    beside it); None for a compute capability whose lanes are not known."""
    lanes = FP32_LANES_PER_SM.get((major, minor))
    if not lanes:
        return None
    return {"op": "peak-fma-f32", "size": f"{sms}SMx{lanes}x{max_mhz:g}MHz", "seconds": 0, "gbps": 0.0,
            "gflops": 2.0 * sms * lanes * max_mhz * 1e6 / 1e9,
            "source": f"theoretical, not measured: 2·{sms} SMs·{lanes} FP32 lanes·{max_mhz:g} MHz (maximum SM clock)",
            "reps": 0, "sm_clock_mhz": cur_mhz, "max_sm_clock_mhz": max_mhz}


def sm_clocks():
    """The current and the maximum SM clock of GPU 0, in MHz."""
    out = subprocess.check_output(["nvidia-smi", "-i", "0", "--query-gpu=clocks.sm,clocks.max.sm",
                                   "--format=csv,noheader,nounits"]).decode()
    cur, top = (float(x) for x in out.strip().split("\n")[0].split(","))
    return cur, top


def main():
    if torch is None:
        sys.exit("baseline.py: PyTorch, with CUDA, is needed to time the baselines")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sizes", nargs="?", default="{}", help="sizes as JSON, by operation")
    ap.add_argument("--ops", default=",".join(OPS), help="operations, comma-separated (default: all)")
    ap.add_argument("--reps", type=int, default=0, help="timed repetitions (default: 50; GEMM 20)")
    ap.add_argument("--hot", type=float, default=0.0,
                    help="seconds of untimed back-to-back runs before each timing, for the clocks a sustained load runs at (default 0: a burst)")
    args = ap.parse_args()
    global HOT
    HOT = args.hot
    sizes = json.loads(args.sizes)
    ops = args.ops.split(",")
    for op in ops:
        if op not in OPS:
            ap.error(f"unknown operation {op!r} (want some of {', '.join(OPS)})")
    reps = lambda default: args.reps or default  # noqa: E731

    if "copy" in ops:
        n = sizes.get("copy", 1 << 28)
        src = torch.randint(0, 2**31 - 1, (n,), dtype=torch.int32, device=dev)
        dst = torch.empty_like(src)
        emit("copy", str(n), timed(lambda: dst.copy_(src), reps(50)), "torch copy_ (device to device)", reps(50), 8.0 * n)
        del src, dst

    if "triad" in ops:
        n = sizes.get("triad", 1 << 28)
        b = torch.rand(n, device=dev)
        c = torch.rand(n, device=dev)
        a = torch.empty_like(b)
        emit("triad", str(n), timed(lambda: torch.add(b, c, alpha=3.0, out=a), reps(50)), "torch.add with alpha", reps(50), 12.0 * n, 2.0 * n)
        del a, b, c

    if "reduce" in ops:
        n = sizes.get("reduce", 1 << 28)
        x = torch.rand(n, device=dev)
        emit("reduce", str(n), timed(lambda: torch.sum(x), reps(50)), "torch.sum", reps(50), 4.0 * n, 1.0 * n)
        del x

    if "transpose" in ops:
        m, k = sizes.get("transpose", (16384, 16384))
        x = torch.rand(m, k, device=dev)
        emit("transpose", f"{m}x{k}", timed(lambda: x.t().contiguous(), reps(50)), "torch t().contiguous()", reps(50), 8.0 * m * k)
        del x

    if "gemm" in ops:
        m, nn, kk = sizes.get("gemm", (4096, 4096, 4096))
        A = torch.rand(m, kk, device=dev)
        B = torch.rand(kk, nn, device=dev)
        emit("gemm", f"{m}x{nn}x{kk}", timed(lambda: torch.matmul(A, B), reps(20)), "cuBLAS through torch.matmul, fp32, TF32 off",
             reps(20), 4.0 * (m * kk + kk * nn + m * nn), 2.0 * m * nn * kk)
        del A, B

    if "peak-fma-f32" in ops:
        props = torch.cuda.get_device_properties(0)
        cur, top = sm_clocks()
        line = fp32_peak(props.major, props.minor, props.multi_processor_count, cur, top)
        if line:
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
