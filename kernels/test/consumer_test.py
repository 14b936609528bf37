#!/usr/bin/python3
"""The zoo's matmul, softmax, layer norm and attention and an examples/ kernel, launched from
tuned bundles by runtime/examples/bundle_consumer, which holds no per-kernel code: each call
gives the kernel's tensors by argument name as .npy files and the bundle's launch contract does
the rest. Sizes and values are drawn fresh each run, outputs are poisoned with NaN before the
launch, and every result is checked here against NumPy.

Under Bazel (no arguments) a CPU sweep writes the bundles first. On a GPU host:
  consumer_test.py --consumer=PATH --bundle=DIR [--bundle=DIR...] [--gpu]
checks the kernels the given bundles hold (GPU tolerances allow tl.dot's tf32).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

RNG = np.random.default_rng()


class Case:
    def __init__(self, consumer, bundle, tmp):
        self.consumer, self.bundle, self.tmp = consumer, bundle, tmp

    def run(self, kernel, tensors, dims=None, expect_ok=True):
        """Launches `kernel` on `tensors` (name -> array); returns the outputs by name."""
        args = [self.consumer, self.bundle, kernel]
        for name, array in tensors.items():
            path = os.path.join(self.tmp, name + ".in.npy")
            np.save(path, array)
            args.append(f"{name}={path}")
        args += [f"{d}={v}" for d, v in (dims or {}).items()]
        out = os.path.join(self.tmp, "out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        args.append("--out=" + out)
        proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
        if not expect_ok:
            return proc
        if proc.returncode != 0:
            sys.exit(f"FAIL {kernel}: {' '.join(args)}\n{proc.stdout}{proc.stderr}")
        print(proc.stdout.strip())
        return {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}


def check(kernel, name, got, want, atol, rtol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        sys.exit(f"FAIL {kernel}: {name} has shape {got.shape}, expected {want.shape}")
    bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))  # NaN fails
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        sys.exit(f"FAIL {kernel}: {name}{list(i)} = {got[i]}, expected {want[i]} "
                 f"({bad.sum()} of {bad.size} wrong)")
    print(f"ok {kernel}: {name} {want.shape} within {atol} + {rtol} |expected|")


def poisoned(shape, dtype):
    return np.full(shape, np.nan, dtype)


def matmul(c, dtype, gpu, tuned):
    M, N, K = (upto(32, min(tuned[d], 512)) for d in "MNK")
    a = RNG.standard_normal((M, K)).astype(dtype)
    b = RNG.standard_normal((K, N)).astype(dtype)
    out = c.run("matmul", {"a_ptr": a, "b_ptr": b, "c_ptr": poisoned((M, N), dtype)})
    want = a.astype(np.float64) @ b.astype(np.float64)
    # tl.dot's default precision allows tf32 on GPUs; f16 results are rounded to f16.
    loose = gpu or dtype == np.float16
    check("matmul", "c_ptr", out["c_ptr"], want, 2e-3 * np.sqrt(K) if loose else 1e-4 * np.sqrt(K),
          4e-3 if loose else 1e-5)


def softmax(c, gpu, tuned):
    # An entry holds a whole row in one block: it serves rows longer than half its block.
    rows, cols = int(RNG.integers(1, 64)), upto(tuned["cols"] // 2 + 16, tuned["cols"])
    x = RNG.uniform(-5, 5, (rows, cols)).astype(np.float32)
    out = c.run("softmax", {"in_ptr": x, "out_ptr": poisoned(x.shape, np.float32)})
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    check("softmax", "out_ptr", out["out_ptr"], e / e.sum(axis=1, keepdims=True), 1e-6, 1e-4 if gpu else 1e-5)


def layer_norm(c, tuned):
    rows, cols = int(RNG.integers(1, 64)), upto(64, tuned["cols"])
    x, w, b = (RNG.uniform(-3, 3, s).astype(np.float32) for s in ((rows, cols), cols, cols))
    out = c.run("layer_norm", {"X": x, "Y": poisoned(x.shape, np.float32), "W": w, "B": b,
                               "Mean": poisoned(rows, np.float32),
                               "Rstd": poisoned(rows, np.float32)})
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=1), x64.var(axis=1)
    rstd = 1 / np.sqrt(var + 1e-5)
    check("layer_norm", "Mean", out["Mean"], mean, 1e-5, 1e-5)
    check("layer_norm", "Rstd", out["Rstd"], rstd, 1e-5, 1e-4)
    check("layer_norm", "Y", out["Y"], (x64 - mean[:, None]) * rstd[:, None] * w + b, 1e-4, 1e-4)


def attention(c, tuned):
    # H, D and CAUSAL are constexprs of the kernel: an entry serves the values it was tuned for.
    Z, H, n, D, causal = 1, tuned["H"], upto(64, min(tuned["N_CTX"], 512)), tuned["D"], tuned["CAUSAL"]
    q, k, v = (RNG.uniform(-1, 1, (Z, H, n, D)).astype(np.float16) for _ in range(3))
    out = c.run("attention", {"Q": q, "K": k, "V": v, "Out": poisoned(q.shape, np.float16)},
                {"CAUSAL": causal})
    s = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) / np.sqrt(D)
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    want = (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)
    check(f"attention (causal={causal})", "Out", out["Out"], want, 2e-2, 1e-2)


def rms_norm(c, tuned):
    rows, cols = int(RNG.integers(1, 64)), upto(tuned["COLS"] // 2 + 16, tuned["COLS"])
    x = RNG.normal(0, 2, (rows, cols)).astype(np.float32)
    w = RNG.uniform(0.5, 1.5, cols).astype(np.float32)
    out = c.run("rms_norm_kernel", {"x_ptr": x, "w_ptr": w, "y_ptr": poisoned(x.shape, np.float32)})
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6) * w
    check("rms_norm_kernel", "y_ptr", out["y_ptr"], want, 1e-5, 1e-5)


def bad_calls(c):
    """A mismatch is refused before anything runs, with the reason; nothing is written."""
    a = RNG.standard_normal((64, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 48)).astype(np.float32)
    cases = {
        "wrong dtype": ({"a_ptr": a.astype(np.float64), "b_ptr": b, "c_ptr": poisoned((64, 48), np.float32)}, "f64"),
        "wrong size": ({"a_ptr": a, "b_ptr": b[:16], "c_ptr": poisoned((64, 48), np.float32)}, "K"),
        "wrong rank": ({"a_ptr": a.reshape(-1), "b_ptr": b, "c_ptr": poisoned((64, 48), np.float32)}, "dimensions"),
        "missing tensor": ({"a_ptr": a, "b_ptr": b}, "c_ptr"),
    }
    for what, (tensors, needle) in cases.items():
        proc = c.run("matmul", tensors, expect_ok=False)
        if proc.returncode != 1 or needle not in proc.stderr or os.listdir(os.path.join(c.tmp, "out")):
            sys.exit(f"FAIL bad call ({what}) not refused clearly: rc {proc.returncode}\n{proc.stderr}")
        print(f"ok refused ({what}): {proc.stderr.strip()}")
    proc = c.run("no_such_kernel", {"a_ptr": a}, expect_ok=False)
    if proc.returncode != 1 or "no_such_kernel" not in proc.stderr:
        sys.exit(f"FAIL an unknown kernel not refused: {proc.stderr}")
    print(f"ok refused (unknown kernel): {proc.stderr.strip()}")


def tampered(consumer, bundle, tmp):
    """A bundle whose artifact changed after it was written is refused when opened."""
    copy = os.path.join(tmp, "tampered")
    shutil.copytree(bundle, copy)
    artifact = next(os.path.join(r, f) for r, _, fs in os.walk(copy) for f in fs if f.endswith(".so"))
    with open(artifact, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    proc = subprocess.run([consumer, copy, "--list"], capture_output=True, text=True)
    if proc.returncode != 1 or "sha256" not in proc.stderr.lower() and "checksum" not in proc.stderr:
        sys.exit(f"FAIL a tampered bundle was not refused: rc {proc.returncode}\n{proc.stderr}")
    print(f"ok refused (tampered bundle): {proc.stderr.strip()}")


def entries_of(consumer, bundle):
    """kernel -> [(dtype, {dim: value})] of the bundle's entries, from `bundle_consumer --list`."""
    listing = subprocess.run([consumer, bundle, "--list"], capture_output=True, text=True, check=True)
    entries, kernel = {}, None
    for line in listing.stdout.splitlines():
        if line and not line.startswith(" "):
            kernel = line
            entries[kernel] = []
        elif line.startswith("  entry "):
            _, dtype, shape = line.split()
            entries[kernel].append((dtype, {k: int(v) for k, v in (d.split("=") for d in shape.split(","))}))
    return entries


def upto(lo, hi):
    """A multiple of 16 in [lo, hi] (sizes a GPU entry's divisibility specializations serve)."""
    first, last = -(-max(lo, 16) // 16), max(hi, 16) // 16  # multiples of 16 within [lo, hi]
    return 16 * int(RNG.integers(first, max(first, last) + 1))


def check_bundle(consumer, bundle, tmp, gpu):
    """Every entry of the bundle's kernels that NumPy can feed (not bf16), on sizes near it."""
    c = Case(consumer, bundle, tmp)
    entries = entries_of(consumer, bundle)
    print(f"bundle {bundle}: {sorted(entries)}")
    for kernel, list_ in entries.items():
        for dtype, tuned in list_:
            if dtype == "bf16":
                continue
            if kernel == "matmul":
                matmul(c, np.float32 if dtype == "f32" else np.float16, gpu, tuned)
            elif kernel == "softmax":
                softmax(c, gpu, tuned)
            elif kernel == "layer_norm":
                layer_norm(c, tuned)
            elif kernel == "attention":
                attention(c, tuned)
            elif kernel == "rms_norm_kernel":
                rms_norm(c, tuned)
    if "matmul" in entries:
        bad_calls(c)
    return set(entries)


def sweep(out, *args):
    log = out + ".log"
    with open(log, "w") as f:
        if subprocess.run(["autotune/sweep", "--strategy=random", "--budget=1", "--min-time=0.001",
                           "--flush=off", "--out=" + out, *args], stdout=f, stderr=f).returncode:
            sys.exit("FAIL sweep:\n" + open(log).read())
    return os.path.join(out, "bundle")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--consumer")
    p.add_argument("--bundle", action="append", default=[])
    p.add_argument("--gpu", action="store_true")
    opts = p.parse_args()
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    if opts.consumer:
        consumer, bundles = opts.consumer, opts.bundle
    else:  # under Bazel: the bundles come from CPU sweeps
        os.chdir(os.path.join(os.environ["TEST_SRCDIR"], "tessel"))
        consumer = "runtime/examples/bundle_consumer"
        bundles = [sweep(os.path.join(tmp, "zoo"), "--kernels=matmul,softmax,layer_norm,attention",
                         "--dtypes=f32,f16"),
                   sweep(os.path.join(tmp, "example"), "--spec=examples/rms_norm/rms_norm.toml")]
    seen = set()
    for bundle in bundles:
        seen |= check_bundle(consumer, bundle, tmp, opts.gpu)
    missing = {"matmul", "softmax", "layer_norm", "attention", "rms_norm_kernel"} - seen
    if missing:
        sys.exit(f"FAIL no bundle holds {sorted(missing)}")
    tampered(consumer, bundles[0], tmp)
    print("PASS")


if __name__ == "__main__":
    main()
