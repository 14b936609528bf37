# Root-mean-square normalization of each row, y = x / sqrt(mean(x^2) + eps) * w, one program a
# row; the block covers the row, and the autotuned configs only change the warps.
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in (1, 2, 4, 8)],
                 key=["n_cols"])
@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})
@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, row_stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=inside, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    scale = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * row_stride + cols, (x * scale * w).to(y_ptr.dtype.element_ty),
             mask=inside)
