"""Compares tessel's random numbers on the GPU with Triton's, on a GPU host with Triton.

    python3 philox_vs_triton.py DIR SEED N

DIR holds tessel-run's outputs of compiler/frontend/test/kernels/frontend_kernels.py's
philox_kernel (BLOCK=64, grid ceil(N/64)): arg0.npy (5 int32 per offset: randint4x's words
and randint), arg1.npy (4 int32: randint4x on the int64 offsets offs + offs * 2^32),
arg2.npy (10 float32: rand, randn, rand4x, randn4x). This script computes the same with Triton's own tl.randint4x,
tl.rand and tl.randn and prints how many values differ. Integers and rand must match bit for
bit; randn may differ in the last bits (tessel's log / sin / cos are its own).
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def reference(bits_ptr, wide_ptr, floats_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(bits_ptr + offs * 5, a.to(tl.int32, bitcast=True), mask=m)
    tl.store(bits_ptr + offs * 5 + 1, b.to(tl.int32, bitcast=True), mask=m)
    tl.store(bits_ptr + offs * 5 + 2, c.to(tl.int32, bitcast=True), mask=m)
    tl.store(bits_ptr + offs * 5 + 3, d.to(tl.int32, bitcast=True), mask=m)
    tl.store(bits_ptr + offs * 5 + 4, tl.randint(seed, offs).to(tl.int32, bitcast=True), mask=m)
    w0, w1, w2, w3 = tl.randint4x(seed, offs.to(tl.int64) + (offs.to(tl.int64) << 32))
    tl.store(wide_ptr + offs * 4, w0.to(tl.int32, bitcast=True), mask=m)
    tl.store(wide_ptr + offs * 4 + 1, w1.to(tl.int32, bitcast=True), mask=m)
    tl.store(wide_ptr + offs * 4 + 2, w2.to(tl.int32, bitcast=True), mask=m)
    tl.store(wide_ptr + offs * 4 + 3, w3.to(tl.int32, bitcast=True), mask=m)
    tl.store(floats_ptr + offs * 2, tl.rand(seed, offs), mask=m)
    tl.store(floats_ptr + offs * 2 + 1, tl.randn(seed, offs), mask=m)


def main():
    out, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    bits = torch.zeros(5 * n, dtype=torch.int32, device="cuda")
    wide = torch.zeros(4 * n, dtype=torch.int32, device="cuda")
    floats = torch.zeros(2 * n, dtype=torch.float32, device="cuda")
    reference[(triton.cdiv(n, 64),)](bits, wide, floats, seed, n, BLOCK=64)
    got_bits = np.load(f"{out}/arg0.npy")
    got_wide = np.load(f"{out}/arg1.npy")
    got_floats = np.load(f"{out}/arg2.npy").reshape(n, 10)
    want_floats = floats.cpu().numpy().reshape(n, 2)
    checks = {
        "randint4x+randint (int32 offsets)": int((got_bits != bits.cpu().numpy()).sum()),
        "randint4x (int64 offsets)": int((got_wide != wide.cpu().numpy()).sum()),
        "rand": int((got_floats[:, 0] != want_floats[:, 0]).sum()),
    }
    for what, differ in checks.items():
        print(f"{what}: {differ} of {n} offsets' values differ from Triton's")
    worst = float(np.abs(got_floats[:, 1] - want_floats[:, 1]).max())
    print(f"randn: largest difference from Triton's {worst:.3g}")
    sys.exit(1 if any(checks.values()) or not worst < 1e-4 else 0)


if __name__ == "__main__":
    main()
