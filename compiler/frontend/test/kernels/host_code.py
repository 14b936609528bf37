"""A kernel file as people write them: kernels among host code of every kind.

tessel reads the host code for its structure only; the kernels, the constants they use and
the kernels nested in test functions compile. Nothing here is run by Python in the tests.
"""
from __future__ import annotations

import os, sys
import math as m
import numba
from dataclasses import dataclass, field
from typing import *
from . import sibling_module_that_does_not_exist

import triton
import triton.language as tl

try:
    import torch
except ImportError:  # a machine without torch
    torch = None
finally:
    pass

DEVICE: str = os.environ.get("DEVICE", "cpu")
SCALE = 3
OFFSET = SCALE * 2 + 1  # 7: constants may use constants
NAMES = [f"{n!r:>{8}}" for n in ("a", 'b')]
TABLE = {k: v ** 2 for k, v in zip("xyz", range(3))}
UNIQUE = {x for x in range(4) if x % 2}
square = lambda v: v * v
if sys.platform.startswith("linux"):
    BLOCK_DEFAULT = 64
else:
    BLOCK_DEFAULT = 32
complex_value = 1 + 2j
π = m.pi


@dataclass
class Problem:
    n: int = 1024
    dtype: str = "float32"
    tags: list[str] = field(default_factory=list)

    def elements(self) -> int:
        return self.n if self.n > 0 else (_ for _ in ()).throw(ValueError("n"))

    @property
    def bytes(self):
        return 4 * self.n


def configs():
    return [triton.Config({"BLOCK": b}, num_warps=w) for b in (32, 64) for w in [1, 2]
            if not (b == 64 and w == 1)]


@triton.jit
def _shift(x, by: tl.constexpr):
    return x + by


@triton.autotune(configs=configs(), key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr = False):
    """out = SCALE * x + y + OFFSET."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _shift(SCALE * x + y, OFFSET), mask=mask)


@triton.jit
def uses_host_value_kernel(out_ptr):
    tl.store(out_ptr, BLOCK_DEFAULT)


async def fetch(url, *args, timeout=None, **kwargs):
    async with open(url) as f:
        async for line in f:
            yield line
    await something(*args, **kwargs)


def run(problem: Problem, *, check: bool = True) -> "torch.Tensor":
    global SCALE
    assert problem.n > 0, f"bad n {problem.n}"
    x = torch.randn(problem.n, device=DEVICE)
    y, out = torch.randn_like(x), torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(problem.n, meta["BLOCK"]),)
    scaled_add_kernel[grid](x, y, out, problem.n)
    out[0:2] = 0
    del x
    if (k := len(NAMES)) > 1 and "a" in NAMES[0] and y is not None:
        pass
    with torch.no_grad(), open(os.devnull, "w") as sink:
        print(*NAMES, sep=", ", file=sink)
    while False:
        break
    else:
        pass
    for i, name in enumerate(NAMES):
        continue
    try:
        raise RuntimeError("never") from None
    except (RuntimeError, ValueError) as error:
        pass
    try:
        pass
    except* TypeError:
        pass
    match problem.dtype:
        case "float32" | "f32":
            pass
        case _:
            raise ValueError(problem.dtype)
    return out if check else None


def test_square(n=100):
    FACTOR = 2  # a constant of this test, visible to its kernel

    @triton.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x * x * FACTOR, mask=mask)

    assert [v for v in range(n)][-1] == n - 1


class TestCube:
    def _shift(self):  # a class attribute: not what negate_kernel's _shift names
        return None

    def test_cube(self):
        @triton.jit
        def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask)
            tl.store(out_ptr + offs, x * x * x, mask=mask)

        @triton.jit
        def negate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, -_shift(tl.load(x_ptr + offs, mask=mask), 1), mask=mask)


@numba.jit(nopython=True)
def not_a_kernel(*values):  # numba's jit, not Triton's: host code
    return values


def test_parameters(SCALE=5, *sizes, **options):
    for OFFSET in sizes:  # a loop variable of host code
        pass

    @triton.jit
    def kernel(out_ptr):
        tl.store(out_ptr, SCALE + OFFSET)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    run(Problem(n=n, tags=["demo"]))
