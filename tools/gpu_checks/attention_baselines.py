#!/usr/bin/env python3
"""Times attention's baselines on a GPU host, next to tessel-bench's candidates of the same shapes.

For each shape (Z x H heads x N_CTX tokens, head dim D, causal or not) and dtype:
  - torch.nn.functional.scaled_dot_product_attention with its default backend (what PyTorch
    picks on this GPU: flash or cuDNN attention);
  - the zoo's own kernel source (kernels/attention/attention.py, beside this script in the
    pack) compiled by Triton, at a few block configurations (the best is reported), its output
    checked against SDPA's.
Timing: triton.testing.do_bench (CUDA events, the L2 cleared before each run, the median), as
tessel-bench times with --flush on. FLOPs as the zoo counts them: 4 Z H N^2 D, half when causal.
One JSON object per line on stdout.

Usage: attention_baselines.py [--dtypes bf16,f16] [--shapes Z,H,N,D,CAUSAL;...]
"""

import argparse
import json
import math

import torch
import triton
import triton.testing

from zoo import environment, load_zoo_kernel, parse_dtypes, parse_shapes

# 16 heads and 32k tokens in all (batch 8 of 4k tokens or batch 2 of 16k), head dim 64 and 128,
# causal and not: the zoo's large GPU shapes for attention.
DEFAULT_SHAPES = [(32768 // n, 16, n, d, c) for n in (4096, 16384) for d in (64, 128)
                  for c in (0, 1)]
# (BLOCK_M, BLOCK_N, num_warps, num_stages) tried for Triton.
TRITON_CONFIGS = [(128, 64, 8, 3), (128, 64, 4, 3), (64, 64, 4, 3), (128, 32, 4, 2),
                  (64, 32, 4, 2)]



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtypes", default="bf16,f16")
    parser.add_argument("--shapes", default=None)
    parser.add_argument("--triton-configs", default=None,
                        help="BLOCK_M,BLOCK_N,num_warps,num_stages;... tried for Triton instead "
                             "of the default list")
    args = parser.parse_args()
    configs = TRITON_CONFIGS
    if args.triton_configs:
        configs = parse_shapes(args.triton_configs, ("BLOCK_M", "BLOCK_N", "num_warps", "num_stages"),
                               "attention_baselines")
    shapes = (parse_shapes(args.shapes, ("Z", "H", "N", "D", "CAUSAL"), "attention_baselines")
              if args.shapes else None)
    kernel = load_zoo_kernel("attention.py", "attention")
    dtypes = parse_dtypes(args.dtypes, "attention_baselines")
    host = environment()
    for name, dtype in dtypes:
        for z, h, n, d, causal in shapes or DEFAULT_SHAPES:
            torch.manual_seed(z * 1000003 + n * 31 + d + causal)
            q, k, v = (torch.randn(z, h, n, d, dtype=dtype, device="cuda") for _ in range(3))
            flops = 4.0 * z * h * n * n * d / (2 if causal else 1)
            shape = f"CAUSAL={causal},D={d},H={h},N_CTX={n},Z={z}"
            sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            want = sdpa()
            sdpa_ms = triton.testing.do_bench(sdpa, return_mode="median")
            out = {"shape": shape, "dtype": name, **host,
                   "sdpa_ms": sdpa_ms, "sdpa_tflops": flops / sdpa_ms / 1e9}
            best = None
            for bm, bn, warps, stages in configs:
                o = torch.full_like(q, float("nan"))
                grid = (triton.cdiv(n, bm), z * h, 1)

                def run():
                    kernel[grid](q, k, v, o, 1.0 / math.sqrt(d), q.stride(0), q.stride(1),
                                 q.stride(2), q.stride(3), n, H=h, HEAD_DIM=d, BLOCK_M=bm,
                                 BLOCK_N=bn, CAUSAL=bool(causal), num_warps=warps,
                                 num_stages=stages)
                try:
                    run()
                    torch.cuda.synchronize()
                except Exception as e:  # a configuration Triton cannot build (shared memory)
                    out.setdefault("triton_failed", []).append(f"{bm}x{bn}/{warps}w/{stages}s: {type(e).__name__}")
                    continue
                err = (o.float() - want.float()).abs().max().item()
                if not math.isfinite(err) or err > 3e-2:
                    out.setdefault("triton_wrong", []).append(f"{bm}x{bn}/{warps}w/{stages}s: {err:.3g}")
                    continue
                ms = triton.testing.do_bench(run, return_mode="median")
                if best is None or ms < best[0]:
                    best = (ms, f"BLOCK_M={bm},BLOCK_N={bn},num_warps={warps},num_stages={stages}", err)
            if best:
                out.update({"triton_ms": best[0], "triton_tflops": flops / best[0] / 1e9,
                            "triton_config": best[1], "triton_max_err": best[2]})
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
