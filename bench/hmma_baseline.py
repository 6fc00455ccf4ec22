#!/usr/bin/env python3
"""What CUDA's own compiler gets from the instructions a Vulkan kernel can
have: fp16 GEMM (fp32 sums, fp16 out) in Triton on the same GPU, in the
same call as vkbench's gemm-f16, in three modes:

  wgmma  Triton as it compiles for Hopper: warpgroup multiply-adds
         (wgmma) and asynchronous copies into shared memory;
  async  DISABLE_MMA_V3=1: warp-level mma.sync (HMMA, what NVIDIA's Vulkan
         driver emits for cooperative matrices) with Triton's pipeline of
         asynchronous copies (cp.async, LDGSTS) into shared memory;
  sync   DISABLE_MMA_V3=1 and num_stages=1: mma.sync, and A and B loaded
         into registers and stored to shared memory, as gemm-f16's Vulkan
         kernels must (the Vulkan driver emits no asynchronous copies).

Each mode runs in a process of its own (DISABLE_MMA_V3 is read when
Triton compiles). Every configuration's PTX is counted (wgmma, mma.sync,
cp.async, ldmatrix) so that the modes are what they say, its result is
checked against torch.matmul, and its registers and shared memory are
printed: Vulkan gives a workgroup at most 48 KiB of shared memory on the
H200, and the "fits_vulkan" field says whether a configuration would fit.

    python3 bench/hmma_baseline.py [S ...]     (default 4096; S for S x S x S)

Prints one JSON object a line: {"mode", "size", "bm", "bn", "bk", "warps",
"stages", "tflops", "ms", "regs", "shared", "fits_vulkan", "ptx", "ok"},
a {"mode": "cublas", ...} line per size (torch.matmul), or a line saying
why something could not run.
"""
import json
import os
import subprocess
import sys

CONFIGS = {
    # (BM, BN, BK, warps, stages)
    "wgmma": [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 256, 64, 8, 4)],
    "async": [(128, 128, 32, 4, 2), (128, 128, 32, 4, 3), (128, 128, 32, 4, 4), (128, 128, 64, 4, 2),
              (128, 128, 64, 4, 3), (128, 128, 16, 4, 4), (128, 256, 32, 8, 2), (128, 256, 32, 8, 3),
              (128, 256, 64, 8, 3), (256, 128, 32, 8, 3), (128, 128, 32, 8, 3), (128, 128, 64, 8, 3),
              (64, 256, 32, 4, 3), (256, 64, 32, 4, 3), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4)],
    "sync": [(128, 128, 32, 4, 1), (128, 128, 64, 4, 1), (128, 256, 32, 8, 1), (256, 128, 32, 8, 1),
             (128, 128, 32, 8, 1), (128, 256, 64, 8, 1)],
}
VULKAN_SHARED = 48 * 1024


def child(mode, sizes):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               GROUP: tl.constexpr):
        # Row-major A (M x K), B (K x N), C (M x N); M, N, K multiples of
        # the tile (the sizes here are). Tiles in groups of GROUP rows, as
        # Triton's tutorial orders them for the L2 cache.
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        width = GROUP * num_n
        first_m = (pid // width) * GROUP
        size_m = tl.minimum(num_m - first_m, GROUP)
        pid_m = first_m + (pid % width) % size_m
        pid_n = (pid % width) // size_m
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * K + rk[None, :]
        b = b_ptr + rk[:, None] * N + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a), tl.load(b))
            a += BK
            b += BK * N
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))

    for s in sizes:
        m = n = k = s
        a = torch.rand(m, k, device="cuda", dtype=torch.float16) * 2 - 1
        b = torch.rand(k, n, device="cuda", dtype=torch.float16) * 2 - 1
        want = torch.matmul(a, b)
        for bm, bn, bk, warps, stages in CONFIGS[mode]:
            row = {"mode": mode, "size": f"{m}x{n}x{k}", "bm": bm, "bn": bn, "bk": bk, "warps": warps, "stages": stages}
            try:
                c = torch.empty(m, n, device="cuda", dtype=torch.float16)
                grid = ((m // bm) * (n // bn),)

                def launch():
                    return matmul[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)

                handle = launch()
                torch.cuda.synchronize()
                ptx = getattr(handle, "asm", {}).get("ptx", "")
                row["ptx"] = {op: ptx.count(op) for op in ("wgmma.mma_async", "mma.sync", "cp.async.cg", "cp.async.ca", "cp.async.bulk", "ldmatrix", "st.shared", "ld.global")}
                md = getattr(handle, "metadata", None)
                row["shared"] = getattr(md, "shared", None) if md is not None else None
                row["regs"] = getattr(handle, "n_regs", None)
                row["spills"] = getattr(handle, "n_spills", None)
                row["fits_vulkan"] = row["shared"] is not None and row["shared"] <= VULKAN_SHARED
                err = (c.float() - want.float()).abs().max().item()
                row["max_abs_err"] = err
                row["ok"] = err <= 0.05 * max(1.0, k ** 0.5 / 8)
                for _ in range(3):
                    launch()
                times = []
                for _ in range(20):
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    launch()
                    end.record()
                    torch.cuda.synchronize()
                    times.append(start.elapsed_time(end))
                times.sort()
                ms = times[len(times) // 2]
                row["ms"] = ms
                row["tflops"] = 2.0 * m * n * k / (ms / 1e3) / 1e12
            except Exception as e:  # report the configuration and go on
                row["error"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            print(json.dumps(row), flush=True)


def cublas(sizes):
    import torch
    for s in sizes:
        a = torch.rand(s, s, device="cuda", dtype=torch.float16) * 2 - 1
        b = torch.rand(s, s, device="cuda", dtype=torch.float16) * 2 - 1
        c = torch.empty(s, s, device="cuda", dtype=torch.float16)
        for _ in range(5):
            torch.matmul(a, b, out=c)
        times = []
        for _ in range(50):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b, out=c)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        ms = times[len(times) // 2]
        print(json.dumps({"mode": "cublas", "size": f"{s}x{s}x{s}", "ms": ms, "tflops": 2.0 * s ** 3 / (ms / 1e3) / 1e12}), flush=True)


def main(argv):
    if len(argv) > 1 and argv[1] == "--child":
        child(argv[2], [int(s) for s in argv[3:]])
        return
    sizes = argv[1:] or ["4096"]
    try:
        import triton  # noqa: F401
    except ImportError as e:  # the baseline is optional: say so and stop
        print(json.dumps({"error": f"no triton: {e}"}))
        return
    cublas([int(s) for s in sizes])
    for mode in ("wgmma", "async", "sync"):
        env = dict(os.environ)
        env["TRITON_CACHE_DIR"] = os.path.join(env.get("TMPDIR", "/tmp"), f"hmma-baseline-{mode}")
        if mode != "wgmma":
            env["DISABLE_MMA_V3"] = "1"
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, *sizes], env=env)
        if r.returncode != 0:
            print(json.dumps({"mode": mode, "error": f"exited {r.returncode}"}), flush=True)
    cublas([int(s) for s in sizes])


if __name__ == "__main__":
    main(sys.argv)
