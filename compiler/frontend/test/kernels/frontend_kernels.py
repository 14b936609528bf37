# Kernels for the frontend's end-to-end test (py_e2e_test.cc): each runs on the CPU against
# a C++ reference.
import triton
import triton.language as tl
from helpers import shifted_clamp
import helpers as h

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


@tl.aggregate
class Stats:
    total: tl.tensor
    count: tl.tensor
    scale: tl.constexpr

    def __init__(self, total, count, scale: tl.constexpr):
        self.total = total
        self.count = count
        self.scale = scale

    def add(self, x, m):
        self.total += tl.sum(tl.where(m, x, 0.0), axis=0) * self.scale
        self.count += tl.sum(m.to(tl.int32), axis=0)


@tl.aggregate
class Pair:
    first: Stats
    second: Stats


@triton.jit
def new_stats(scale: tl.constexpr):
    return Stats(tl.zeros((), dtype=tl.float32), tl.zeros((), dtype=tl.int32), scale)


@triton.jit
def bump(s, x, m):
    s.add(x, m)  # a mutation in an inlined callee: visible to the caller


@triton.jit
def rebind(s, x, m):
    s = new_stats(1)  # rebinding the parameter: the caller's object is untouched
    s.add(x, m)


@triton.jit(noinline=True)
def add_noinline(s, x, m):
    s.add(x, m)  # written back through the call's extra results
    return s.count


@triton.jit
def aggregate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out[0] = sum(x) * 2 over a loop of method calls, through an alias and a noinline call;
    # out[1] = the element count; out[2] = sum(x) * 3 from a nested aggregate updated in a
    # runtime if; out[3] = the count returned by the last noinline call.
    p = Pair(new_stats(2), new_stats(3))
    alias = p.first
    last = tl.zeros((), dtype=tl.int32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        if (start // BLOCK) % 2 == 0:
            bump(alias, x, m)
        else:
            last = add_noinline(p.first, x, m)
        rebind(p.first, x, m)
        new_stats(5).add(x, m)  # an r-value's mutation is discarded
        if start >= 0:
            p.second.add(x, m)
    tl.store(out_ptr, p.first.total)
    tl.store(out_ptr + 1, p.first.count.to(tl.float32))
    tl.store(out_ptr + 2, p.second.total)
    tl.store(out_ptr + 3, last.to(tl.float32))


@triton.jit
def imported_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = shifted_clamp(x, 1.0, True)
    s = h.sign_of(tl.sum(x, axis=0))
    tl.store(out_ptr + offs, y * s, mask=m)


@triton.jit
def column_max_kernel(x_ptr, out_ptr, rows, stride, BLOCK: tl.constexpr):
    # A masked load of every stride-th element (one column), reduced.
    col = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + col + offs * stride, mask=offs < rows, other=-float("inf"))
    tl.store(out_ptr + col, tl.max(x, axis=0))


@triton.jit(noinline=True)
def scaled(x):
    # helpers.py has a noinline function of the same name and argument types: two functions.
    return x * 2.0


@triton.jit
def same_name_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, scaled(x) * 10.0 + h.scaled(x), mask=m)


@triton.jit
def atomics_kernel(x_ptr, maxmin_ptr, counter_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    zeros = tl.zeros((BLOCK,), dtype=tl.int32)
    tl.atomic_max(maxmin_ptr + zeros, x, mask=m)
    tl.atomic_min(maxmin_ptr + 1 + zeros, x, mask=m)
    tl.atomic_add(counter_ptr, 1)
    tl.atomic_xchg(counter_ptr + 1, 7)
    # Exactly one program finds 0 and writes its id + 1; the others see that value.
    seen = tl.atomic_cas(flag_ptr, 0, pid + 1)
    tl.store(flag_ptr + 1 + pid, seen)


@triton.jit
def print_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.device_print("x =", x)
    tl.device_print("n", tl.program_id(0) + 41)
    tl.device_print("pos", x > 0)
    tl.static_print("compile time only")


@triton.jit
def broadcast_reduce_kernel(out_ptr, base, N: tl.constexpr):
    # A reduction of a 3-D broadcast built with a tuple expand_dims, then one over another axis.
    x = tl.broadcast_to(tl.expand_dims(tl.arange(0, N) + base, (0, 2)), (2, N, 2))
    tl.store(out_ptr + tl.arange(0, N), tl.sum(tl.sum(x, axis=2), axis=0))


@triton.jit
def scaled_or_zero(x, limit):
    # A return in only one branch of an if on a runtime condition, with a value.
    if limit < 0:
        return x * 0.0
    return x * limit


@triton.jit
def times(x, factor: tl.constexpr):
    # Called with a runtime factor: the constexpr annotation is ignored, as Triton does.
    return x * factor


@triton.jit
def early_return_kernel(x_ptr, out_ptr, n, limit, f, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if n > BLOCK // 2:
        tl.store(out_ptr + offs, times(x, f), mask=m)
        return
    tl.store(out_ptr + offs, scaled_or_zero(x, limit), mask=m)


@triton.jit
def interleave_kernel(a_ptr, b_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    # out[r, 2c] = a[r, c], out[r, 2c + 1] = b[r, c]
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    a = tl.load(a_ptr + r * COLS + c)
    b = tl.load(b_ptr + r * COLS + c)
    c2 = tl.arange(0, 2 * COLS)[None, :]
    tl.store(out_ptr + r * (2 * COLS) + c2, tl.interleave(a, b))


@triton.jit
def cat_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    # Concatenation (can_reorder: the order of the result is free, its elements are not).
    a = tl.load(a_ptr + tl.arange(0, N))
    b = tl.load(b_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, 2 * N), tl.cat(a, b, can_reorder=True))


@triton.jit
def philox_kernel(bits_ptr, wide_ptr, floats_ptr, hi_ptr, seed, n, BLOCK: tl.constexpr):
    # Per offset: randint4x's four words and randint (bits, 5 each); randint4x on 64-bit
    # offsets offs + offs * 2^32 (wide, 4 each); rand, randn, rand4x and randn4x (floats, 10
    # each); and umulhi of two words, and 7-round philox on them (hi, 2 each).
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
    tl.store(floats_ptr + offs * 10, tl.rand(seed, offs), mask=m)
    tl.store(floats_ptr + offs * 10 + 1, tl.randn(seed, offs), mask=m)
    u1, u2, u3, u4 = tl.rand4x(seed, offs)
    tl.store(floats_ptr + offs * 10 + 2, u1, mask=m)
    tl.store(floats_ptr + offs * 10 + 3, u2, mask=m)
    tl.store(floats_ptr + offs * 10 + 4, u3, mask=m)
    tl.store(floats_ptr + offs * 10 + 5, u4, mask=m)
    n1, n2, n3, n4 = tl.randn4x(seed, offs)
    tl.store(floats_ptr + offs * 10 + 6, n1, mask=m)
    tl.store(floats_ptr + offs * 10 + 7, n2, mask=m)
    tl.store(floats_ptr + offs * 10 + 8, n3, mask=m)
    tl.store(floats_ptr + offs * 10 + 9, n4, mask=m)
    tl.store(hi_ptr + offs * 2, tl.umulhi(a, b).to(tl.int32, bitcast=True), mask=m)
    r0, _, _, _ = tl.philox(seed, offs, offs + 1, 0, 0, n_rounds=7)
    tl.store(hi_ptr + offs * 2 + 1, r0.to(tl.int32, bitcast=True), mask=m)


@triton.jit
def math_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # x in (-1, 1), y in (1, 4): every function below in its domain; 20 results per element.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.5)
    y = tl.load(y_ptr + offs, mask=m, other=2.0)
    o = out_ptr + offs * 20
    tl.store(o, tl.math.asin(x), mask=m)
    tl.store(o + 1, tl.math.acos(x), mask=m)
    tl.store(o + 2, tl.math.atan(y), mask=m)
    tl.store(o + 3, tl.math.atan2(x, -y), mask=m)
    tl.store(o + 4, tl.math.sinh(y), mask=m)
    tl.store(o + 5, tl.math.cosh(x), mask=m)
    tl.store(o + 6, tl.math.tan(x), mask=m)
    tl.store(o + 7, tl.math.asinh(y), mask=m)
    tl.store(o + 8, tl.math.acosh(y), mask=m)
    tl.store(o + 9, tl.math.atanh(x), mask=m)
    tl.store(o + 10, tl.math.cbrt(x * 5), mask=m)
    tl.store(o + 11, tl.math.trunc(y * -2.5), mask=m)
    tl.store(o + 12, tl.extra.cuda.libdevice.roundf(x * 3.0), mask=m)
    tl.store(o + 13, tl.math.rint(y * 2.0), mask=m)
    tl.store(o + 14, tl.math.log10(y), mask=m)
    tl.store(o + 15, tl.math.copysign(y, x), mask=m)
    tl.store(o + 16, tl.math.hypot(x, y), mask=m)
    tl.store(o + 17, tl.extra.cuda.libdevice.asinf(x), mask=m)
    # hypot far from 1: no overflow or underflow in its squares.
    tl.store(o + 18, tl.math.hypot(x * 1e30, y * 1e30), mask=m)
    tl.store(o + 19, tl.math.hypot(x * 1e-30, y * 1e-30), mask=m)


@triton.jit
def descriptor_kernel(x_ptr, out_ptr, tiles_ptr, rows, cols, BM: tl.constexpr, BN: tl.constexpr):
    # out = 2 x + 1 through tensor descriptors (blocks at the edges cut to rows x cols); every
    # block as loaded, padding included, into tiles (a grid of whole blocks).
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_tensor_descriptor(x_ptr, shape=[rows, cols], strides=[cols, 1],
                                    block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(base=out_ptr, shape=(rows, cols), strides=(cols, 1),
                                    block_shape=(BM, BN))
    block = src.load([pm * BM, pn * BN])
    tl.store_tensor_descriptor(dst, [pm * BM, pn * BN], block * 2 + 1)
    r = pm * BM + tl.arange(0, BM)[:, None]
    c = pn * BN + tl.arange(0, BN)[None, :]
    again = tl.load_tensor_descriptor(src, [pm * BM, pn * BN])
    tl.store(tiles_ptr + r * (tl.num_programs(1) * BN) + c, again)


@triton.jit
def descriptor_arg_kernel(src, dst, tiles_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # descriptor_kernel's work on descriptors the host made (tensordesc<...> arguments: base,
    # shape and strides at run time, block shape in the type): dst = 2 src + 1 inside dst's
    # shape, every block of src as loaded (zero padded) into tiles.
    pm, pn = tl.program_id(0), tl.program_id(1)
    block = src.load([pm * BM, pn * BN])
    dst.store([pm * BM, pn * BN], (block * 2 + 1).to(dst.dtype))
    r = pm * src.block_shape[0] + tl.arange(0, BM)[:, None]
    c = pn * src.block_shape[1] + tl.arange(0, BN)[None, :]
    tl.store(tiles_ptr + r * (tl.num_programs(1) * BN) + c, block)


@triton.jit
def dot_scaled_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, out_ptr, M: tl.constexpr,
                      N: tl.constexpr, K: tl.constexpr, A_FORMAT: tl.constexpr,
                      B_FORMAT: tl.constexpr, A_PER_BYTE: tl.constexpr, B_PER_BYTE: tl.constexpr,
                      SCALED_A: tl.constexpr, GROUP: tl.constexpr):
    # out = (a * scale(a_scale)) @ (b * scale(b_scale)), a (M x K) and b (K x N) in
    # microscaling formats; e2m1 two a byte along K (A_PER_BYTE / B_PER_BYTE = 2). A scale is
    # e8m0 (uint8: 2^(s - 127)) for each GROUP = 32 of K, or e4m3 (fp8e4nv) for each 16 (NVFP4).
    # Without SCALED_A, a has no scale.
    rows, cols = tl.arange(0, M), tl.arange(0, N)
    a = tl.load(a_ptr + rows[:, None] * (K // A_PER_BYTE) + tl.arange(0, K // A_PER_BYTE)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // B_PER_BYTE)[:, None] * N + cols[None, :])
    groups = tl.arange(0, K // GROUP)
    a_scale = tl.load(a_scale_ptr + rows[:, None] * (K // GROUP) + groups[None, :])
    b_scale = tl.load(b_scale_ptr + cols[:, None] * (K // GROUP) + groups[None, :])
    if SCALED_A:
        c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT)
    else:
        c = tl.dot_scaled(a, None, A_FORMAT, b, b_scale, B_FORMAT, acc=tl.full((M, N), 1.0, tl.float32))
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], c)


@triton.jit
def flip_kernel(x_ptr, out_ptr, n, R: tl.constexpr, C: tl.constexpr):
    # out[0]: x (R x C) flipped along rows, out[1]: along columns (the default, last dim),
    # out[2]: the first row's values flipped as a 1-D tensor.
    tl.assume(n > 0)
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(out_ptr + r * C + c, tl.flip(x, 0))
    tl.store(out_ptr + R * C + r * C + c, tl.flip(x))
    row = tl.load(x_ptr + tl.arange(0, C))
    tl.store(out_ptr + 2 * R * C + tl.arange(0, C), tl.flip(row, dim=-1))


@triton.jit
def fp8_kernel(x_ptr, h_ptr, b_ptr, q_ptr, qh_ptr, qb_ptr, back_ptr, twice_ptr, n,
               FP8: tl.constexpr, ROUND: tl.constexpr, BLOCK: tl.constexpr):
    # float32 (rounded as ROUND says), float16 and bfloat16 values to FP8, stored; the stored
    # float32 conversions loaded back and widened; and doubled in FP8 arithmetic.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(q_ptr + offs, x.to(FP8, fp_downcast_rounding=ROUND), mask=m)
    tl.store(qh_ptr + offs, tl.load(h_ptr + offs, mask=m).to(FP8), mask=m)
    tl.store(qb_ptr + offs, tl.cast(tl.load(b_ptr + offs, mask=m), FP8), mask=m)
    stored = tl.load(q_ptr + offs, mask=m)
    tl.store(back_ptr + offs, stored.to(tl.float32), mask=m)
    tl.store(twice_ptr + offs, (stored + stored).to(tl.float32), mask=m)


@triton.jit
def sort_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, DESCENDING: tl.constexpr):
    # out[0]: each row of x (R x C) sorted (descending if DESCENDING); out[1]: the first row
    # sorted ascending as a 1-D tensor.
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(out_ptr + r * C + c, tl.sort(x, descending=DESCENDING))
    row = tl.load(x_ptr + tl.arange(0, C))
    tl.store(out_ptr + R * C + tl.arange(0, C), tl.sort(row, dim=-1))


@triton.jit
def _as_descriptor(x, n, BLOCK: tl.constexpr):
    # A pointer becomes a descriptor of its n elements; a descriptor is taken as it is.
    if isinstance(x, tl.tensor_descriptor):
        return x
    return tl.make_tensor_descriptor(x, shape=[n, 1], strides=[1, 1], block_shape=[BLOCK, 1])


@triton.jit
def isinstance_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out = x + the sum of the weights of the isinstance checks that hold (decided at compile
    # time), moved through descriptors the helper makes from a pointer or passes through.
    src = _as_descriptor(x_ptr, n, BLOCK)
    given = tl.make_tensor_descriptor(out_ptr, shape=[n, 1], strides=[1, 1],
                                      block_shape=[BLOCK, 1])
    dst = _as_descriptor(given, n, BLOCK)
    k = 0
    if isinstance(n, tl.tensor):
        k += 1
    if isinstance(BLOCK, int):
        k += 10
    if isinstance(BLOCK, (float, tl.tensor_descriptor)):
        k += 100
    if isinstance(tl.float32, tl.dtype):
        k += 1000
    if isinstance((n, BLOCK), tl.tuple):
        k += 10000
    if isinstance(x_ptr, tl.tensor_descriptor):
        k += 100000
    pid = tl.program_id(0)
    dst.store([pid * BLOCK, 0], src.load([pid * BLOCK, 0]) + k)


@triton.jit
def legacy_descriptor_kernel(src, dst, tiles_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # descriptor_arg_kernel's work through the API before tensor descriptors (Triton 3.2).
    pm, pn = tl.program_id(0), tl.program_id(1)
    block = tl._experimental_descriptor_load(src, [pm * BM, pn * BN], [BM, BN], tl.float32)
    tl._experimental_descriptor_store(dst, block * 2 + 1, [pm * BM, pn * BN])
    r = pm * BM + tl.arange(0, BM)[:, None]
    c = pn * BN + tl.arange(0, BN)[None, :]
    tl.store(tiles_ptr + r * (tl.num_programs(1) * BN) + c, block)

@triton.jit
def grouped_scale_kernel(x_addrs, y_addrs, sizes, alpha, BLOCK: tl.constexpr):
    # Program g scales array g of a group whose addresses the host wrote into int64 tables;
    # x's pointer is carried through the loop.
    g = tl.program_id(0)
    n = tl.load(sizes + g)
    x = tl.load(x_addrs + g).to(tl.pointer_type(tl.float32))
    y = tl.load(y_addrs + g).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    for start in range(0, n, BLOCK):
        m = start + offs < n
        tl.store(y + start + offs, tl.load(x + offs, mask=m, other=0.0) * alpha, mask=m)
        x += BLOCK


@triton.jit
def grouped_matmul_kernel(a_addrs, b_addrs, c_addrs, dims, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
    # C_g = A_g B_g for a group of row-major matrices of their own sizes (dims: m, n, k per
    # member), one program per member, the operands found through their addresses.
    g = tl.program_id(0)
    m = tl.load(dims + 3 * g)
    n = tl.load(dims + 3 * g + 1)
    k = tl.load(dims + 3 * g + 2)
    a = tl.load(a_addrs + g).to(tl.pointer_type(tl.float32))
    b = tl.load(b_addrs + g).to(tl.pointer_type(tl.float32))
    c = tl.load(c_addrs + g).to(tl.pointer_type(tl.float32))
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        a_mask = (rm[:, None] < m) & (k0 + rk[None, :] < k)
        b_mask = (k0 + rk[:, None] < k) & (rn[None, :] < n)
        a_tile = tl.load(a + rm[:, None] * k + k0 + rk[None, :], mask=a_mask, other=0.0)
        b_tile = tl.load(b + (k0 + rk[:, None]) * n + rn[None, :], mask=b_mask, other=0.0)
        acc += tl.dot(a_tile, b_tile)
    tl.store(c + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))


@triton.jit
def wrapped_rows_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A B with A's rows taken modulo M, hinted the way triton.ops.matmul hints them: a
    # block of BLOCK_M rows wraps around as many times as it is longer than M (every row at
    # M = 1). Each program stores its whole block (C has cdiv(M, BLOCK_M) * BLOCK_M rows), so
    # a wrongly wrapped row shows in C.
    pid = tl.program_id(0)
    rm = tl.max_contiguous(
        tl.multiple_of((pid * BLOCK_M + tl.arange(0, BLOCK_M)) % M, BLOCK_M), BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BLOCK_K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    rc = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(c_ptr + rc[:, None] * stride_cm + rn[None, :], acc, mask=rn[None, :] < N)
