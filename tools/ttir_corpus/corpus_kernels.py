"""The TTIR corpus's kernels that are not zoo kernels, in the Triton language.

tools/ttir_corpus/dump_ttir.py launches these and the zoo's own kernels (kernels/<name>/<name>.py:
matmul, block-pointer matmul, layer norm, attention, column sum) with Triton on a GPU and keeps
the TTIR Triton prints (compiler/dialect/triton/test/triton_printed/); tessel's frontend
compiles the same sources and its tests compare the two (compiler/frontend/test/corpus_test.cc).
"""
import triton
import triton.language as tl


@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def row_argmax(x_ptr, idx_ptr, max_ptr, sum_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))
    tl.store(sum_ptr + row, tl.sum(tl.where(offs < n_cols, x, 0.0), axis=0))


@triton.jit
def row_cumsum(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
    tl.store(out_ptr + row * stride + offs, tl.cumsum(x, axis=0), mask=offs < n_cols)


@triton.jit
def atomic_histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    bins = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=m)


@triton.jit
def tile_histogram(x_ptr, hist_ptr, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    h = tl.histogram(tl.load(x_ptr + offs), NUM_BINS)
    tl.store(hist_ptr + tl.arange(0, NUM_BINS), h)


@triton.jit(noinline=True)
def scale_add(x, y, alpha):
    # Triton 3.6 allows only scalar arguments to noinline functions.
    return x * alpha + y


@triton.jit
def noinline_axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    coef = scale_add(alpha, 2.0, 0.5)
    tl.store(out_ptr + offs, x * coef + y, mask=m)


@triton.jit
def shapes_zoo(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    two = tl.reshape(x, (BLOCK // 2, 2))
    a, b = tl.split(two)
    j = tl.join(b, a)
    t = tl.trans(tl.reshape(j, (BLOCK // 2, 2)))
    c = tl.cat(a, b, can_reorder=True)
    idx = tl.load(idx_ptr + offs)
    g = tl.gather(x, idx, axis=0)
    s = tl.sum(t, axis=0) + tl.sum(c, axis=0)
    tl.device_assert(g == g, "gather produced NaN")
    tl.store(out_ptr + offs, g + tl.sum(s, axis=0) + tl.cumprod(x, axis=0))
