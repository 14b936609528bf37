"""Dumps the TTIR that Triton itself prints for a set of reference kernels.

tessel's lit tests embed these dumps to prove that IR exactly as Triton prints it parses, prints
back and (later) lowers. Run on a machine with a GPU, PyTorch and Triton:

    python3 tools/ttir_corpus/dump_ttir.py OUT_DIR

Each kernel is launched once on small random inputs; the TTIR of the compiled specialization is
written to OUT_DIR/<name>.ttir, together with OUT_DIR/VERSION (the Triton version).
"""
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The zoo's kernels are dumped from their own sources (kernels/<name>/<name>.py).
for zoo_kernel in ("matmul", "layer_norm", "attention", "col_sum"):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "kernels", zoo_kernel))

from corpus_kernels import *  # noqa: F401,F403 (the kernels launched below)
from attention import attention  # noqa: E402
from col_sum import col_sum  # noqa: E402
from layer_norm import layer_norm  # noqa: E402
from matmul import block_ptr_matmul, matmul  # noqa: E402


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    dev = "cuda"
    f32 = dict(device=dev, dtype=torch.float32)
    f16 = dict(device=dev, dtype=torch.float16)
    i32 = dict(device=dev, dtype=torch.int32)
    dumps = {}
    failed = []

    def launch(name, thunk):
        # Keep going: one kernel's failure must not lose the others' dumps.
        try:
            dumps[name] = thunk()
        except Exception as e:
            failed.append(name)
            print("FAILED", name, type(e).__name__, str(e)[:3000])

    x, y = torch.rand(1000, **f32), torch.rand(1000, **f32)
    o = torch.empty_like(x)
    launch("vadd_block128", lambda: vadd[(8,)](x, y, o, 1000, BLOCK=128))

    X = torch.rand(64, 1000, **f32)
    Y = torch.empty_like(X)
    w, b = torch.rand(1000, **f32), torch.rand(1000, **f32)
    mean, rstd = torch.empty(64, **f32), torch.empty(64, **f32)
    launch("layer_norm_block256", lambda: layer_norm[(64,)](
        X, Y, w, b, mean, rstd, X.stride(0), 1000, 1e-5, BLOCK=256))

    for causal in (False, True):
        for d in (64, 128):
            Z, H, S = 2, 3, 200
            q = torch.rand(Z, H, S, d, **f16)
            k, v, out = torch.rand_like(q), torch.rand_like(q), torch.empty_like(q)
            name = "attn_fwd_d%d_%s" % (d, "causal" if causal else "full")
            launch(name, lambda: attention[(triton.cdiv(S, 64), Z * H)](
                q, k, v, out, 0.125, q.stride(0), q.stride(1), q.stride(2), q.stride(3), S, H=H,
                HEAD_DIM=d, BLOCK_M=64, BLOCK_N=32, CAUSAL=causal))

    a, bm = torch.rand(300, 200, **f16), torch.rand(200, 250, **f16)
    c = torch.empty(300, 250, **f16)
    launch("block_ptr_matmul_64x64x32", lambda: block_ptr_matmul[(5, 4)](
        a, bm, c, 300, 250, 200, a.stride(0), a.stride(1), bm.stride(0), bm.stride(1),
        c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8))

    for dt, tag in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        am = torch.rand(96, 80, device=dev, dtype=dt)
        bm2 = torch.rand(80, 112, device=dev, dtype=dt)
        cm = torch.empty(96, 112, device=dev, dtype=dt)
        launch("matmul_%s_64x64x32" % tag, lambda: matmul[(4,)](
            am, bm2, cm, 96, 112, 80, am.stride(0), am.stride(1), bm2.stride(0), bm2.stride(1),
            cm.stride(0), cm.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8))

    X2 = torch.rand(16, 300, **f32)
    launch("row_argmax_block512", lambda: row_argmax[(16,)](
        X2, torch.empty(16, **i32), torch.empty(16, **f32), torch.empty(16, **f32), 300,
        X2.stride(0), BLOCK=512))
    launch("row_cumsum_block512", lambda: row_cumsum[(16,)](
        X2, torch.empty_like(X2), 300, X2.stride(0), BLOCK=512))
    launch("col_sum_32x64", lambda: col_sum[(5,)](
        X2, torch.empty(300, **f32), 16, 300, X2.stride(0), BLOCK_M=32, BLOCK_N=64))
    bins = torch.randint(0, 16, (1000,), **i32)
    launch("atomic_histogram_block128", lambda: atomic_histogram[(8,)](
        bins, torch.zeros(16, **i32), 1000, BLOCK=128))
    launch("tile_histogram_16bins", lambda: tile_histogram[(1,)](
        bins, torch.zeros(16, **i32), NUM_BINS=16, BLOCK=128))
    launch("noinline_axpy_block128", lambda: noinline_axpy[(8,)](x, y, o, 1000, 2.5, BLOCK=128))
    xs = torch.rand(64, **f32)
    idx = torch.randint(0, 64, (64,), **i32)
    launch("shapes_zoo_block64", lambda: shapes_zoo[(1,)](xs, idx, torch.empty_like(xs), BLOCK=64))

    launch("skip_odd_programs_block128", lambda: skip_odd_programs[(8,)](
        x, o, 1000, SKIP_ODD=True, BLOCK=128))
    # M, N and K not 1 (Triton would bake a 1 in) and not multiples of 16 (no divisibility).
    aw, bw = torch.rand(15, 37, **f16), torch.rand(37, 23, **f16)
    cw = torch.empty(15, 23, **f16)
    for hinted in (False, True):
        launch("wrapped_matmul_%s_32x32x16" % ("hinted" if hinted else "plain"),
               lambda: wrapped_matmul[(1, 1)](
                   aw, bw, cw, 15, 23, 37, aw.stride(0), aw.stride(1), bw.stride(0),
                   bw.stride(1), cw.stride(0), cw.stride(1), HINTED=hinted, BLOCK_M=32,
                   BLOCK_N=32, BLOCK_K=16))

    for name, compiled in dumps.items():
        with open(os.path.join(out_dir, name + ".ttir"), "w") as f:
            f.write(compiled.asm["ttir"])
    with open(os.path.join(out_dir, "VERSION"), "w") as f:
        f.write("triton %s, torch %s, %s\n" % (triton.__version__, torch.__version__,
                                               torch.cuda.get_device_name()))
    print("wrote", len(dumps), "dumps to", out_dir, "; failed:", failed)


if __name__ == "__main__":
    main()
