"""Runs the corpus's wrapped-index matmul and early-return kernels through tessel-run and checks
them against NumPy, on the CPU or on a GPU host.

    python3 wrap_and_return_check.py TESSEL_RUN DEVICE ARTIFACT_DIR WORK_DIR

ARTIFACT_DIR holds artifacts named wrapped_<variant>.artifact (tools/ttir_corpus/corpus_kernels.py's
wrapped_matmul, built with BLOCK_M = BLOCK_N = 32, BLOCK_K = 16, unit strides baked in, f16),
zoo_matmul_<variant>.artifact (the zoo's matmul, the same blocks, GROUP_M = 8: the same
wrapped rows and columns, programs over a one-dimensional grid)
and skip_odd*.artifact (skip_odd_programs with SKIP_ODD and BLOCK = 128). Every M from 1 to
3 * BLOCK_M is run (a block wraps around up to 32 times), then N and K likewise; A and B are
exactly M x K and K x N. On the CPU tessel-run stops a kernel that reads outside its buffers.
Exits non-zero on the first wrong result; prints one line per artifact.
"""
import concurrent.futures
import glob
import os
import subprocess
import sys

import numpy as np

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 16


def run(tessel_run, device, artifact, entry, grid, args, out_dir):
    cmd = [tessel_run, artifact, "--device", device, "--entry", entry, "--grid", grid,
           "--out-dir", out_dir]
    for a in args:
        cmd += ["--arg", a]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stdout + p.stderr))


def check_matmul(tessel_run, device, artifact, work, m, n, k, rng):
    d = os.path.join(work, "%s_%d_%d_%d" % (os.path.basename(artifact), m, n, k))
    os.makedirs(d, exist_ok=True)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, dtype=np.float16)
    np.save(os.path.join(d, "a.npy"), a)
    np.save(os.path.join(d, "b.npy"), b)
    np.save(os.path.join(d, "c.npy"), c)
    zoo = os.path.basename(artifact).startswith("zoo_matmul")
    blocks = (-(-m // BLOCK_M), -(-n // BLOCK_N))
    grid = "%d" % (blocks[0] * blocks[1]) if zoo else "%d,%d" % blocks
    run(tessel_run, device, artifact, "matmul" if zoo else "wrapped_matmul", grid,
        ["in:%s/a.npy" % d, "in:%s/b.npy" % d, "inout:%s/c.npy" % d] +
        ["scalar:i32:%d" % v for v in (m, n, k, k, n, n)], d)
    got = np.load(os.path.join(d, "arg2.npy")).astype(np.float32)  # tessel-run writes argN.npy
    want = a.astype(np.float32) @ b.astype(np.float32)
    # f16 inputs, f32 accumulation, one rounding to f16 at the end: half an f16 ulp of the
    # result plus the f32 sum's error.
    tol = 2.0 ** -10 * np.abs(want) + 1e-3
    bad = ~(np.abs(got - want) <= tol)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise AssertionError("%s M=%d N=%d K=%d: C[%d,%d] = %r, want %r" % (
            os.path.basename(artifact), m, n, k, i, j, got[i, j], want[i, j]))


def check_skip_odd(tessel_run, device, artifact, work, rng):
    d = os.path.join(work, os.path.basename(artifact))
    os.makedirs(d, exist_ok=True)
    n, block = 1000, 128
    x = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "out.npy"), out)
    run(tessel_run, device, artifact, "skip_odd_programs", str(-(-n // block)),
        ["in:%s/x.npy" % d, "inout:%s/out.npy" % d, "scalar:i32:%d" % n], d)
    got = np.load(os.path.join(d, "arg1.npy"))
    for i in range(n):
        odd = (i // block) % 2 == 1
        if odd and not np.isnan(got[i]):
            raise AssertionError("%s: element %d of an odd program was written" % (artifact, i))
        if not odd and got[i] != 2 * x[i]:
            raise AssertionError("%s: out[%d] = %r, want %r" % (artifact, i, got[i], 2 * x[i]))


def main():
    tessel_run, device, artifacts, work = sys.argv[1:5]
    rng = np.random.default_rng()
    ok = True
    for artifact in sorted(glob.glob(os.path.join(artifacts, "skip_odd*.artifact"))):
        try:
            check_skip_odd(tessel_run, device, artifact, work, rng)
            print("ok  ", os.path.basename(artifact))
        except Exception as e:  # noqa: BLE001 (report every artifact)
            ok = False
            print("FAIL", os.path.basename(artifact), str(e)[:2000])
    matmuls = glob.glob(os.path.join(artifacts, "wrapped_*.artifact"))
    matmuls += glob.glob(os.path.join(artifacts, "zoo_matmul_*.artifact"))
    for artifact in sorted(matmuls):
        shapes = [(m, 23, 37) for m in range(1, 3 * BLOCK_M + 1)]
        shapes += [(15, n, 37) for n in range(1, 3 * BLOCK_N + 1)]
        shapes += [(15, 23, k) for k in range(1, 3 * BLOCK_K + 1)]
        seeds = rng.integers(0, 2**63, len(shapes))
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            futures = [pool.submit(check_matmul, tessel_run, device, artifact, work, m, n, k,
                                   np.random.default_rng(s))
                       for (m, n, k), s in zip(shapes, seeds)]
            errors = [f.exception() for f in futures if f.exception()]
        if errors:
            ok = False
            print("FAIL", os.path.basename(artifact), "%d of %d shapes:" % (len(errors),
                                                                          len(shapes)),
                  str(errors[0])[:2000])
        else:
            print("ok  ", os.path.basename(artifact), "M 1..%d, N 1..%d, K 1..%d" % (
                3 * BLOCK_M, 3 * BLOCK_N, 3 * BLOCK_K))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
