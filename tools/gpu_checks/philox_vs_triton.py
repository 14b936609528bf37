"""Compares tessel's random numbers on the GPU with Triton's, on a GPU host with Triton.

    python3 philox_vs_triton.py DIR SEED N

DIR holds tessel-run's outputs of compiler/frontend/test/kernels/frontend_kernels.py's
philox_kernel (BLOCK=64, grid ceil(N/64)): arg0.npy (5 int32 per offset: randint4x's words
and randint), arg1.npy (4 int32: randint4x on the int64 offsets offs + offs * 2^32),
arg2.npy (10 float32: rand, randn, rand4x, randn4x). This script computes the same with Triton's own tl.randint4x,
tl.rand and tl.randn and prints how many values differ. Integers and rand must match bit for
bit; randn may differ in the last bits (tessel's log / sin / cos are its own). Before that, it
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


def compare_with_triton(out, seed, n):
    """The same numbers from Triton's own tl.randint4x / tl.rand / tl.randn on this GPU."""
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
    return 1 if any(checks.values()) or not worst < 1e-4 else 0


def main():
    out, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    failed = check_spec(out, seed, n)
    if "--spec-only" not in sys.argv:
        failed += compare_with_triton(out, seed, n)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
