# A kernel file imported by frontend_kernels.py: its functions return early and use this
# file's own imports and constants.
import triton
import triton.language as tl

OFFSET = 0.5


@triton.jit
def shifted_clamp(x, hi, USE_OFFSET: tl.constexpr):
    if USE_OFFSET:
        return tl.minimum(x + OFFSET, hi)  # a return after a folded branch: the rest is dropped
    return tl.minimum(x, hi)


@triton.jit
def sign_of(v):
    if v > 0.0:
        return 1.0
    else:
        return -1.0


@triton.jit(noinline=True)
def scaled(x):
    # frontend_kernels.py has a noinline function of the same name and argument types.
    return x * 3.0
