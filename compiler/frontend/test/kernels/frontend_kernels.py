# Kernels for the frontend's end-to-end test (py_e2e_test.cc): each runs on the CPU against
# a C++ reference.
import triton
import triton.language as tl

SCALE_DEFAULT = 2


@triton.jit(noinline=True)
def axpy(a, x, y):
    return a * x + y


@triton.jit(noinline=True)
def row_stats(x):
    return tl.min(x, axis=0), tl.max(x, axis=0)


@triton.jit
def noinline_kernel(x_ptr, y_ptr, out_ptr, stats_ptr, n, a, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    r = axpy(a, x, y)
    tl.store(out_ptr + offs, r, mask=m)
    lo, hi = row_stats(tl.where(m, r, 0.0))
    tl.store(stats_ptr + 2 * pid, lo)
    tl.store(stats_ptr + 2 * pid + 1, hi)


@triton.jit
def clipped(v, limit):
    if v > limit:
        return limit
    else:
        return v


@triton.jit
def loop_kernel(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr, SCALE: tl.constexpr = SCALE_DEFAULT):
    # Column sums over all rows (a loop carrying a tensor and a pointer), then a runtime if.
    pid = tl.program_id(0)
    cols = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    ptrs = x_ptr + cols
    for r in range(n_rows):
        acc += tl.load(ptrs, mask=cols < n_cols, other=0.0)
        ptrs += stride
    count = clipped(n_rows, 1000)
    if count > 0:
        acc = acc / count
    tl.store(out_ptr + cols, acc * SCALE, mask=cols < n_cols)
