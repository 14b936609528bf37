"""Compares tessel's random numbers on the GPU with Triton's, on a GPU host with Triton.

    python3 philox_vs_triton.py DIR SEED N

DIR holds tessel-run's outputs of compiler/frontend/test/kernels/frontend_kernels.py's
philox_kernel (BLOCK=64, grid ceil(N/64)): arg0.npy (5 int32 per offset: randint4x's words
and randint), arg1.npy (4 int32: randint4x on the int64 offsets offs + offs * 2^32),
arg2.npy (10 float32: rand, randn, rand4x, randn4x), arg3.npy (2 int32: umulhi, 7-round
philox). This script runs the same kernel source with Triton and prints how many values
differ. Integers, rand and rand4x must match bit for bit; randn may differ in the last bits
(tessel's log / sin / cos are its own). Before that, it
checks the 32-bit-offset words and rand against Philox-4x32-10 written out here in Python
(`--spec-only` stops there: no Triton or GPU needed, only numpy).
"""
import sys

import numpy as np

MASK = 0xFFFFFFFF


def philox_words(counter, seed, rounds=10):
    """Philox-4x32 of `counter` keyed by the seed's low and high words."""
    c, k = list(counter), [seed & MASK, (seed >> 32) & MASK]
    for r in range(rounds):
        if r:
            k = [(k[0] + 0x9E3779B9) & MASK, (k[1] + 0xBB67AE85) & MASK]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & MASK, p1 & MASK, ((p0 >> 32) ^ c[3] ^ k[1]) & MASK,
             p0 & MASK]
    return c


def uniform(word):
    signed = word - (1 << 32) if word >= 1 << 31 else word
    folded = -signed - 1 if signed < 0 else signed
    return np.float32(folded) * np.float32(4.6566127342e-10)


def check_spec(out, seed, n):
    bits = np.load(f"{out}/arg0.npy").astype(np.int64) & MASK
    floats = np.load(f"{out}/arg2.npy").reshape(n, 10)
    words = rands = 0
    for i in range(n):
        w = philox_words([i, 0, 0, 0], seed)
        words += sum(int(bits[5 * i + j]) != w[j] for j in range(4)) + (int(bits[5 * i + 4]) != w[0])
        rands += floats[i, 0] != uniform(w[0])
    print(f"against Philox-4x32-10: {words} words and {rands} rand values of {n} offsets differ")
    return words + rands


def kernel_from_source(name):
    """`name` of frontend_kernels.py (beside this script, or in compiler/frontend/test/kernels/)
    as a Triton kernel: the file as a whole uses tessel's frontend features Triton 3.6 lacks
    (tl.aggregate), so the kernel's own source is written to a module of its own and imported."""
    import ast
    import importlib.util
    import os
    import tempfile

    here = os.path.dirname(os.path.abspath(__file__))
    for d in (here, os.path.join(here, "..", "..", "compiler", "frontend", "test", "kernels")):
        path = os.path.join(d, "frontend_kernels.py")
        if os.path.exists(path):
            break
    text = open(path).read()
    fn = next(f for f in ast.parse(text).body if isinstance(f, ast.FunctionDef) and f.name == name)
    lines = text.splitlines()[fn.decorator_list[0].lineno - 1:fn.end_lineno]
    module = os.path.join(tempfile.mkdtemp(), f"{name}_only.py")
    with open(module, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n\n" + "\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(f"{name}_only", module)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return getattr(loaded, name)


def compare_with_triton(out, seed, n):
    """The same kernel (frontend_kernels.py's philox_kernel) run by Triton itself on this GPU."""
    import torch
    import triton

    philox_kernel = kernel_from_source("philox_kernel")

    bits = torch.zeros(5 * n, dtype=torch.int32, device="cuda")
    wide = torch.zeros(4 * n, dtype=torch.int32, device="cuda")
    floats = torch.zeros(10 * n, dtype=torch.float32, device="cuda")
    hi = torch.zeros(2 * n, dtype=torch.int32, device="cuda")
    philox_kernel[(triton.cdiv(n, 64),)](bits, wide, floats, hi, seed, n, BLOCK=64)
    got = [np.load(f"{out}/arg{i}.npy") for i in range(4)]
    want = [t.cpu().numpy() for t in (bits, wide, floats, hi)]
    got_f, want_f = got[2].reshape(n, 10), want[2].reshape(n, 10)
    uniform_cols, normal_cols = [0, 2, 3, 4, 5], [1, 6, 7, 8, 9]
    checks = {
        "randint4x+randint (int32 offsets)": int((got[0] != want[0]).sum()),
        "randint4x (int64 offsets)": int((got[1] != want[1]).sum()),
        "rand, rand4x": int((got_f[:, uniform_cols] != want_f[:, uniform_cols]).sum()),
        "umulhi, philox (7 rounds)": int((got[3] != want[3]).sum()),
    }
    for what, differ in checks.items():
        print(f"{what}: {differ} values of {n} offsets differ from Triton's")
    worst = float(np.abs(got_f[:, normal_cols] - want_f[:, normal_cols]).max())
    print(f"randn, randn4x: largest difference from Triton's {worst:.3g}")
    return 1 if any(checks.values()) or not worst < 1e-4 else 0


def main():
    out, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    failed = check_spec(out, seed, n)
    if "--spec-only" not in sys.argv:
        failed += compare_with_triton(out, seed, n)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
