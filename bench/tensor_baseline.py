#!/usr/bin/env python3
"""CUDA baselines for bench/tensor.sh, through PyTorch, on the same GPU in
the same call as vkbench.

For each size given (default 2048 4096 8192), S for S×S×S or MxNxK for
an M×K by K×N product, prints one JSON object per line: {"op", "size", "seconds", "gflops"}, "seconds" the median of 50
CUDA-event timings after 5 warm-up runs:

  hgemm  torch.matmul of float16 S×S matrices, float16 out: cuBLAS's HGEMM
         (fp16 tensor cores, fp32 sums), what gemm-f16 computes;
  bgemm  the same in bfloat16: what gemm-bf16 computes;
  sgemm  the same in float32 with TF32 off: cuBLAS's SGEMM.

And one "device" line: the SM count, the SM clock now and at most, and the
theoretical dense fp16 tensor-core rate at the maximum clock (Hopper: 4096
fp16 flops per SM per clock), labelled theoretical: it is arithmetic, not
a measurement.
"""
import json
import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline import timed  # noqa: E402  (baseline.py beside this file; it turns TF32 off)

dev = torch.device("cuda")


def gemm(op, m, n, k, dtype):
    a = torch.rand(m, k, device=dev, dtype=dtype) * 2 - 1
    b = torch.rand(k, n, device=dev, dtype=dtype) * 2 - 1
    c = torch.empty(m, n, device=dev, dtype=dtype)
    sec = timed(lambda: torch.matmul(a, b, out=c), 50)
    print(json.dumps({"op": op, "size": f"{m}x{n}x{k}", "seconds": sec,
                      "gflops": 2.0 * m * n * k / sec / 1e9}), flush=True)


def shape(arg):
    """S (a cube) or MxNxK."""
    dims = [int(d) for d in arg.split("x")]
    if len(dims) == 1:
        return dims * 3
    if len(dims) != 3:
        raise SystemExit(f"tensor_baseline.py: size {arg!r} is neither S nor MxNxK")
    return dims


def main():
    sizes = [shape(a) for a in sys.argv[1:]] or [[s] * 3 for s in (2048, 4096, 8192)]
    for m, n, k in sizes:
        gemm("hgemm", m, n, k, torch.float16)
        gemm("bgemm", m, n, k, torch.bfloat16)
        gemm("sgemm", m, n, k, torch.float32)
    props = torch.cuda.get_device_properties(0)
    try:
        now, top = (float(x) for x in subprocess.check_output(
            ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm", "--format=csv,noheader,nounits"]).decode().split("\n")[0].split(","))
    except Exception:  # noqa: BLE001 - the clocks are informative only
        now = top = 0.0
    sms = props.multi_processor_count
    print(json.dumps({"op": "device", "name": props.name, "sms": sms, "sm_clock_mhz": now, "max_sm_clock_mhz": top,
                      "theoretical_dense_f16_tensor_gflops": 4096.0 * sms * top * 1e6 / 1e9,
                      "fp16_reduced_precision_reduction": torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction}), flush=True)


if __name__ == "__main__":
    main()
