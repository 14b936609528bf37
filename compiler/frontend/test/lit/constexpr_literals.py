# --constexpr NAME=VALUE takes VALUE as a Python literal: strings (quoted, or empty), True,
# floats, negative ints, None and tuples, as a call would pass them.
# RUN: tessel-compile %s --entry act --constexpr "ACTIVATION='leaky_relu'" --constexpr SLOPE=0.25 --constexpr SHAPE='(4, 32)' --constexpr OFFSET=-3 --constexpr FLAG=None --signature '*fp32' --emit ttir -o - | FileCheck %s --check-prefix=LEAKY
# RUN: tessel-compile %s --entry act --constexpr 'ACTIVATION=""' --constexpr SLOPE=0.25 --constexpr SHAPE='(4, 32)' --constexpr OFFSET=-3 --constexpr FLAG=None --signature '*fp32' --emit ttir -o - | FileCheck %s --check-prefix=NONE
# RUN: not tessel-compile %s --entry act --constexpr 'ACTIVATION=leaky_relu' --constexpr SLOPE=0.25 --constexpr SHAPE='(4, 32)' --constexpr OFFSET=-3 --constexpr FLAG=None --signature '*fp32' --emit ttir -o - 2>&1 | FileCheck %s --check-prefix=NAME
# RUN: not tessel-compile %s --entry act --constexpr "ACTIVATION='x'" --constexpr SLOPE='len(3)' --constexpr SHAPE='(4, 32)' --constexpr OFFSET=-3 --constexpr FLAG=None --signature '*fp32' --emit ttir -o - 2>&1 | FileCheck %s --check-prefix=CALL
import triton
import triton.language as tl


@triton.jit
def act(out_ptr, ACTIVATION: tl.constexpr, SLOPE: tl.constexpr, SHAPE: tl.constexpr,
        OFFSET: tl.constexpr, FLAG: tl.constexpr):
    x = tl.arange(0, SHAPE[1]) + OFFSET
    y = x.to(tl.float32)
    if ACTIVATION == "leaky_relu":
        y = tl.where(y > 0, y, y * SLOPE)
    if FLAG is None:
        y = y + SHAPE[0]
    tl.store(out_ptr + tl.arange(0, SHAPE[1]), y)

# LEAKY-LABEL: tt.func public @act
# LEAKY: tt.make_range {end = 32 : i32, start = 0 : i32}
# LEAKY: arith.constant -3 : i32
# LEAKY: arith.constant 2.500000e-01 : f32
# LEAKY: arith.select
# LEAKY: arith.constant 4 : i32
# LEAKY: tt.store
# NONE-LABEL: tt.func public @act
# NONE-NOT: arith.select
# NONE: tt.store
# NAME: cannot read the value 'leaky_relu' given for 'ACTIVATION' (a Python literal
# CALL: cannot read the value 'len(3)' given for 'SLOPE' (a Python literal
