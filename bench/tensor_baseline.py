#!/usr/bin/env python3
"""CUDA baselines for bench/tensor.sh, through PyTorch, on the same GPU in
the same call as vkbench.

For each size S given (default 2048 4096 8192), prints one JSON object per
line: {"op", "size", "seconds", "gflops"}, "seconds" the median of 50
CUDA-event timings after 5 warm-up runs:

  hgemm  torch.matmul of float16 S×S matrices, float16 out: cuBLAS's HGEMM
         (fp16 tensor cores, fp32 sums), what gemm-f16 computes;
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


def gemm(op, s, dtype):
    a = torch.rand(s, s, device=dev, dtype=dtype) * 2 - 1
    b = torch.rand(s, s, device=dev, dtype=dtype) * 2 - 1
    c = torch.empty(s, s, device=dev, dtype=dtype)
    sec = timed(lambda: torch.matmul(a, b, out=c), 50)
    print(json.dumps({"op": op, "size": f"{s}x{s}x{s}", "seconds": sec,
                      "gflops": 2.0 * s ** 3 / sec / 1e9}), flush=True)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [2048, 4096, 8192]
    for s in sizes:
        gemm("hgemm", s, torch.float16)
        gemm("sgemm", s, torch.float32)
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
