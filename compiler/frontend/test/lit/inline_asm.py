# tl.inline_asm_elementwise: the arguments broadcast to one shape, one result per dtype (a list
# of dtypes gives a tuple), kept in the TTIR as tt.elementwise_inline_asm with its constraints,
# purity and packing. No target lowers inline assembly yet: compiling further is a clear error
# at the call's location, for the cpu (which cannot run GPU assembly) as for cuda.
# RUN: tessel-compile %s --entry k --signature '*i32,*i32,i32' --emit ttir -o - | FileCheck %s
# RUN: not tessel-compile %s --entry k --signature '*i32,*i32,i32' --emit artifact -o %t 2>&1 | FileCheck %s --check-prefix=CPU
# RUN: not tessel-compile %s --entry k --signature '*i32,*i32,i32' --target cuda --cuda-toolkit=none --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=CUDA
# RUN: not tessel-compile %s --entry bad_pack --signature '*i32' --emit ttir -o - 2>&1 | FileCheck %s --check-prefix=PACK
# RUN: not tessel-compile %s --entry bad_args --signature '*i32' --emit ttir -o - 2>&1 | FileCheck %s --check-prefix=ARGS
# CHECK-LABEL: tt.func public @k(
# CHECK: %[[R:.*]]:2 = tt.elementwise_inline_asm "shl.b32 $0, $2, 3; mov.b32 $1, $3;" {constraints = "=r,=r,r,r", packed_element = 1 : i32, pure = true} %{{.*}}, %{{.*}} : tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>, tensor<64xi32>
# CHECK: tt.elementwise_inline_asm "mov.u32 $0, %clock;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
# CPU: inline_asm.py:[[@LINE+12]]:{{[0-9]+}}: error: tl.inline_asm_elementwise: the cpu target cannot run GPU assembly (--emit ttir keeps it)
# CUDA: inline_asm.py:[[@LINE+11]]:{{[0-9]+}}: error: tl.inline_asm_elementwise: inline assembly is not supported on cuda:sm_90 yet
# PACK: inline_asm.py:[[@LINE+26]]:{{[0-9]+}}: error: tl.inline_asm_elementwise's pack must be 1..16, got 0
# ARGS: inline_asm.py:[[@LINE+33]]:{{[0-9]+}}: error: tl.inline_asm_elementwise takes its arguments as a list
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    shifted, same = tl.inline_asm_elementwise(
        "shl.b32 $0, $2, 3; mov.b32 $1, $3;",
        "=r,=r,r,r",
        [x, 7],
        dtype=[tl.int32, tl.int32],
        is_pure=True,
        pack=1,
    )
    clock = tl.inline_asm_elementwise("mov.u32 $0, %clock;", "=r", [], dtype=tl.int32,
                                      is_pure=False, pack=1)
    tl.store(out_ptr + offs, shifted + same + clock, mask=offs < n)


@triton.jit
def bad_pack(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32,
                                  is_pure=True, pack=0)
    tl.store(x_ptr + tl.arange(0, 4), y)


@triton.jit
def bad_args(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", x, dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(x_ptr + tl.arange(0, 4), y)
