# Row argmax: index and value of the first maximum, one program per row.
import triton
import triton.language as tl


@triton.jit
def row_argmax(x_ptr, idx_ptr, max_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))
