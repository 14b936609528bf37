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


@triton.jit
def skip_odd_programs(x_ptr, out_ptr, n, SKIP_ODD: tl.constexpr, BLOCK: tl.constexpr):
    # Doubles x; with SKIP_ODD the odd programs return at once and leave their blocks alone:
    # a return in one branch of an if on a runtime condition, inside an if on a constexpr.
    pid = tl.program_id(0)
    if SKIP_ODD:
        if pid % 2 == 1:
            return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


@triton.jit
def wrapped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                   stride_cm, stride_cn, HINTED: tl.constexpr, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A B where a block's rows and columns are taken modulo M and N (a block longer than M
    # wraps around several times), optionally with the hints of triton.ops.matmul; C is
    # stored unwrapped and masked.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    if HINTED:
        rm = tl.max_contiguous(tl.multiple_of(rm, BLOCK_M), BLOCK_M)
        rn = tl.max_contiguous(tl.multiple_of(rn, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn,
             acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))
