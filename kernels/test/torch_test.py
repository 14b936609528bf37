#!/usr/bin/python3
"""GPU bundles launched on PyTorch tensors through the Python module `tessel`: each kernel of
the bundles, at each entry's tuned shape, on fresh random CUDA tensors with NaN-poisoned outputs,
checked against PyTorch's own operator and timed beside it (CUDA events around 200 calls each,
Python's call overhead included on both sides). Bad calls (host memory for a GPU bundle, a wrong
dtype, a non-contiguous tensor) must be refused. Needs PyTorch and a CUDA GPU: anywhere else
(CI) it says so and skips.

  torch_test.py --bundle=DIR [--bundle=DIR...]     (PYTHONPATH holding the tessel module)
"""

import argparse
import json
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("skipped: PyTorch is not installed (this check runs on a GPU host)")
    sys.exit(0)
if not torch.cuda.is_available():
    print("skipped: no CUDA GPU")
    sys.exit(0)
import tessel

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
ROWS = []


def timed(fn, iters=200):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def check(what, got, want, atol, rtol):
    got, want = got.double(), want.double()
    bad = ~((got - want).abs() <= atol + rtol * want.abs())  # NaN fails
    if bad.any():
        i = tuple(bad.nonzero()[0].tolist())
        sys.exit(f"FAIL {what}: {list(i)} = {got[i].item()}, expected {want[i].item()} "
                 f"({int(bad.sum())} of {bad.numel()} wrong)")


def compare(what, bundle, kernel, args, ours, theirs, name):
    """Times the bundle's launch against PyTorch's operator and records the row."""
    t_ours = timed(lambda: bundle.launch(kernel, **args))
    t_theirs = timed(theirs)
    ROWS.append((what, name, t_ours, t_theirs))
    print(f"ok {what}: {t_ours * 1e3:.1f} us, {name} {t_theirs * 1e3:.1f} us "
          f"(PyTorch / tessel = {t_theirs / t_ours:.2f})")


def nan(*shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def matmul(b, dtype, s):
    t = DTYPES[dtype]
    a = torch.randn(s["M"], s["K"], dtype=t, device="cuda")
    w = torch.randn(s["K"], s["N"], dtype=t, device="cuda")
    c = nan(s["M"], s["N"], dtype=t)
    print(b.launch("matmul", a_ptr=a, b_ptr=w, c_ptr=c))
    b.synchronize()
    want = a.double() @ w.double()
    tol = 2e-3 * s["K"] ** 0.5 if dtype == "f32" else 2e-2 * s["K"] ** 0.5
    check(f"matmul {dtype}", c, want, tol, 4e-3 if dtype == "f32" else 1e-2)
    # tl.dot's default allows tf32: so does PyTorch's side of the comparison.
    torch.backends.cuda.matmul.allow_tf32 = True
    compare(f"matmul {dtype} {s['M']}x{s['N']}x{s['K']}", b, "matmul",
            {"a_ptr": a, "b_ptr": w, "c_ptr": c}, c, lambda: torch.matmul(a, w), "torch.matmul")


def softmax(b, dtype, s):
    x = torch.randn(s["rows"], s["cols"], device="cuda") * 3
    y = nan(s["rows"], s["cols"], dtype=torch.float32)
    print(b.launch("softmax", in_ptr=x, out_ptr=y))
    b.synchronize()
    check("softmax", y, torch.softmax(x.double(), dim=1), 1e-6, 1e-4)
    compare(f"softmax {s['rows']}x{s['cols']}", b, "softmax", {"in_ptr": x, "out_ptr": y}, y,
            lambda: torch.softmax(x, dim=1), "torch.softmax")


def layer_norm(b, dtype, s):
    rows, cols = s["rows"], s["cols"]
    x = torch.rand(rows, cols, device="cuda") * 6 - 3
    w, bias = torch.rand(cols, device="cuda") * 6 - 3, torch.rand(cols, device="cuda") * 6 - 3
    y, mean, rstd = nan(rows, cols, dtype=torch.float32), nan(rows, dtype=torch.float32), nan(rows, dtype=torch.float32)
    args = {"X": x, "Y": y, "W": w, "B": bias, "Mean": mean, "Rstd": rstd}
    print(b.launch("layer_norm", **args))
    b.synchronize()
    want = F.layer_norm(x.double(), (cols,), w.double(), bias.double(), 1e-5)
    check("layer_norm Y", y, want, 1e-4, 1e-4)
    check("layer_norm Mean", mean, x.double().mean(dim=1), 1e-5, 1e-5)
    compare(f"layer_norm {rows}x{cols}", b, "layer_norm", args, y,
            lambda: F.layer_norm(x, (cols,), w, bias, 1e-5), "F.layer_norm")


def attention(b, dtype, s):
    t = DTYPES[dtype]
    shape = (s["Z"], s["H"], s["N_CTX"], s["D"])
    q, k, v = (torch.rand(shape, dtype=t, device="cuda") * 2 - 1 for _ in range(3))
    out = nan(*shape, dtype=t)
    args = {"Q": q, "K": k, "V": v, "Out": out, "CAUSAL": s["CAUSAL"]}
    print(b.launch("attention", **args))
    b.synchronize()
    causal = bool(s["CAUSAL"])
    want = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)
    check(f"attention {dtype} causal={causal}", out, want, 2e-2, 1e-2)
    compare(f"attention {dtype} {'x'.join(map(str, shape))} causal={int(causal)}", b, "attention",
            args, out, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
            "F.scaled_dot_product_attention")


def rms_norm(b, dtype, s):
    t = DTYPES[dtype]
    rows, cols = s.get("ROWS", 4096), s["COLS"]  # the entries are keyed by COLS alone
    x = (torch.randn(rows, cols, device="cuda") * 2).to(t)
    w = (torch.rand(cols, device="cuda") + 0.5).to(t)
    y = nan(rows, cols, dtype=t)
    print(b.launch("rms_norm_kernel", x_ptr=x, w_ptr=w, y_ptr=y))
    b.synchronize()
    want = F.rms_norm(x.double(), (cols,), w.double(), 1e-6)
    check(f"rms_norm {dtype}", y, want, 1e-5 if dtype == "f32" else 2e-2, 1e-5 if dtype == "f32" else 1e-2)
    compare(f"rms_norm {dtype} {rows}x{cols}", b, "rms_norm_kernel",
            {"x_ptr": x, "w_ptr": w, "y_ptr": y}, y, lambda: F.rms_norm(x, (cols,), w, 1e-6),
            "F.rms_norm")


def bad_calls(b):
    x = torch.zeros(64, 1024, device="cuda")
    for what, args, needle in [
        ("host memory", {"x_ptr": x.cpu(), "w_ptr": x[0], "y_ptr": x}, "host memory"),
        ("wrong dtype", {"x_ptr": x.double(), "w_ptr": x[0], "y_ptr": x}, "f64"),
        ("column-major", {"x_ptr": x.t().contiguous().t(), "w_ptr": x[0], "y_ptr": x}, "x_ptr"),
    ]:
        try:
            b.launch("rms_norm_kernel", **args)
        except ValueError as e:
            assert needle in str(e), (what, str(e))
            print(f"ok refused ({what}): {e}")
            continue
        sys.exit(f"FAIL {what} was accepted")

    class HostMemoryClaimingToBeCuda:
        """Host memory behind a __cuda_array_interface__: the runtime itself must refuse it."""
        def __init__(self, array):
            self.array = array
            self.__cuda_array_interface__ = {
                "shape": tuple(array.shape), "typestr": "<f4", "version": 3, "strides": None,
                "data": (array.data_ptr(), False)}
    host = torch.zeros(64, 1024)
    try:
        b.launch("rms_norm_kernel", x_ptr=HostMemoryClaimingToBeCuda(host), w_ptr=x[0], y_ptr=x)
        sys.exit("FAIL host memory behind __cuda_array_interface__ was launched on")
    except ValueError as e:
        assert "not memory the cuda device can address" in str(e), str(e)
        print(f"ok refused (host memory passed as device memory): {e}")


def stream_order(b):
    """Launches go to PyTorch's current stream: what a side stream queued before is seen."""
    x, w = torch.zeros(64, 1024, device="cuda"), torch.ones(1024, device="cuda")
    y = nan(64, 1024, dtype=torch.float32)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()  # PyTorch's streams do not wait for the default stream
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # the side stream is busy for a while
        x.fill_(2.0)
        b.launch("rms_norm_kernel", x_ptr=x, w_ptr=w, y_ptr=y)
    side.synchronize()
    check("rms_norm on a side stream", y, torch.ones_like(y, dtype=torch.float64), 1e-5, 1e-5)
    print("ok launched on PyTorch's current stream (a side stream)")
    b.stream = 0  # explicitly the default stream from now on
    assert b.stream == 0
    b.stream = None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundle", action="append", required=True)
    opts = p.parse_args()
    print("tessel", tessel.version(), "torch", torch.__version__, torch.cuda.get_device_name())
    run = {"matmul": matmul, "softmax": softmax, "layer_norm": layer_norm,
           "attention": attention, "rms_norm_kernel": rms_norm}
    for path in opts.bundle:
        b = tessel.Bundle(path)
        assert b.device_kind == "cuda", b.device_kind
        with open(path + "/manifest.json") as f:
            manifest = json.load(f)
        for kernel in manifest["kernels"]:
            for e in kernel["entries"]:
                run[kernel["name"]](b, e["dtype"], e["shape"])
        if "rms_norm_kernel" in b.kernels:
            bad_calls(b)
            stream_order(b)
    print("\n| kernel and shape | tessel (us) | PyTorch op | PyTorch (us) | PyTorch / tessel |")
    print("|---|---|---|---|---|")
    for what, name, ours, theirs in ROWS:
        print(f"| {what} | {ours * 1e3:.1f} | {name} | {theirs * 1e3:.1f} | {theirs / ours:.2f} |")
    print("PASS")


if __name__ == "__main__":
    main()
