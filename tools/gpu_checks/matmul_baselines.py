#!/usr/bin/env python3
"""Times matmul's baselines on a GPU host, next to tessel-bench's candidates of the same shapes.

For each shape (M x N x K) and dtype:
  - torch.matmul (cuBLAS, what tessel-bench --baseline on times through the toolkit's cuBLAS);
  - the zoo's own kernel source (kernels/matmul/matmul.py, beside this script in the pack)
    compiled by Triton at a few block configurations (the best is reported), its output
    checked against torch's.
f32 is multiplied as tf32 by all three (the zoo's tl.dot allows it: Triton's default; torch
with allow_tf32, cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32 as tessel-bench's f32 baseline).
Timing: triton.testing.do_bench (CUDA events, the L2 cleared before each run, the median), as
tessel-bench times with --flush on. FLOPs: 2 M N K. One JSON object per line on stdout.
With --dump DIR, the PTX and cubin Triton built for each shape's best configuration go to DIR
(to read its loop next to tessel's: cuobjdump -sass).

Usage: matmul_baselines.py [--dtypes bf16,f16,f32] [--shapes M,N,K;...] [--dump DIR]
"""

import argparse
import json
import math
import os
import sys

import torch
import triton
import triton.testing

from zoo import environment, load_zoo_kernel, parse_dtypes, parse_shapes

# The zoo's large GPU shapes: bf16 at 4096 and f16 at 8192 (issue 14's bars), tf32 at 4096.
DEFAULT_SHAPES = {"bf16": [(4096, 4096, 4096)], "f16": [(8192, 8192, 8192)],
                  "f32": [(4096, 4096, 4096)]}
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) tried for Triton, GROUP_M 8; f32 tiles
# take twice the shared memory: K steps of 32.
TRITON_CONFIGS = [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3),
                  (128, 128, 64, 8, 4), (128, 128, 64, 4, 4)]
TRITON_CONFIGS_F32 = [(128, 256, 32, 8, 3), (256, 128, 32, 8, 3), (128, 128, 32, 8, 4),
                      (128, 128, 32, 4, 4), (128, 64, 32, 4, 4)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtypes", default="bf16,f16")
    parser.add_argument("--shapes", default=None)
    parser.add_argument("--dump", default=None)
    args = parser.parse_args()
    shapes = parse_shapes(args.shapes, ("M", "N", "K"), "matmul_baselines") if args.shapes else None
    if shapes and min(min(s) for s in shapes) <= 0:
        sys.exit(f"matmul_baselines: shapes must be positive, got '{args.shapes}'")
    kernel = load_zoo_kernel("matmul.py", "matmul")
    dtypes = parse_dtypes(args.dtypes, "matmul_baselines")
    torch.backends.cuda.matmul.allow_tf32 = True
    host = environment()
    for name, dtype in dtypes:
        for m, n, k in shapes or DEFAULT_SHAPES[name]:
            torch.manual_seed(m * 1000003 + n * 31 + k)
            a = torch.randn(m, k, dtype=dtype, device="cuda")
            b = torch.randn(k, n, dtype=dtype, device="cuda")
            flops = 2.0 * m * n * k
            want = torch.matmul(a, b)
            cublas_ms = triton.testing.do_bench(lambda: torch.matmul(a, b), return_mode="median")
            out = {"shape": f"K={k},M={m},N={n}", "dtype": name, **host,
                   "cublas_ms": cublas_ms, "cublas_tflops": flops / cublas_ms / 1e9}
            best = None
            configs = TRITON_CONFIGS_F32 if name == "f32" else TRITON_CONFIGS
            for bm, bn, bk, warps, stages in configs:
                c = torch.full((m, n), float("nan"), dtype=dtype, device="cuda")
                grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)

                def run():
                    return kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                        b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                        BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                                        num_stages=stages)
                try:
                    compiled = run()
                    torch.cuda.synchronize()
                except Exception as e:  # a configuration Triton cannot build (shared memory)
                    out.setdefault("triton_failed", []).append(
                        f"{bm}x{bn}x{bk}/{warps}w/{stages}s: {type(e).__name__}")
                    continue
                # Relative to the product's scale (sums of k products of unit normals).
                err = ((c.float() - want.float()).abs().max() / math.sqrt(k)).item()
                if not math.isfinite(err) or err > 2e-2:
                    out.setdefault("triton_wrong", []).append(
                        f"{bm}x{bn}x{bk}/{warps}w/{stages}s: {err:.3g}")
                    continue
                ms = triton.testing.do_bench(run, return_mode="median")
                if best is None or ms < best[0]:
                    best = (ms, f"BLOCK_M={bm},BLOCK_N={bn},BLOCK_K={bk},num_warps={warps},"
                                f"num_stages={stages}", err, compiled)
            if best:
                out.update({"triton_ms": best[0], "triton_tflops": flops / best[0] / 1e9,
                            "triton_config": best[1], "triton_max_err": best[2]})
                if args.dump:
                    os.makedirs(args.dump, exist_ok=True)
                    stem = os.path.join(args.dump, f"triton_matmul_{name}_{m}x{n}x{k}")
                    with open(stem + ".ptx", "w") as f:
                        f.write(best[3].asm["ptx"])
                    with open(stem + ".cubin", "wb") as f:
                        f.write(best[3].asm["cubin"])
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
