# tl.where picks between pointers as Triton does (arith.select on pointers, no promotion); two
# pointers of different types are an error.
# RUN: tessel-compile %s --entry k --signature '*fp32,*fp32,*fp32,i32' --emit ttir -o - | FileCheck %s
# RUN: not tessel-compile %s --entry bad --signature '*fp32,*fp16' --emit ttir -o - 2>&1 | FileCheck %s --check-prefix=BAD
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, out_ptr, use_a):
    offs = tl.arange(0, 16)
    # CHECK-LABEL: tt.func public @k
    # CHECK: arith.select %{{.*}}, %arg0, %arg1 : !tt.ptr<f32>
    src = tl.where(use_a != 0, a_ptr, b_ptr)
    tl.store(out_ptr + offs, tl.load(src + offs))
    # CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<16xi1>, tensor<16x!tt.ptr<f32>>
    per = tl.where(offs < 8, a_ptr + offs, b_ptr + offs)
    tl.store(out_ptr + 16 + offs, tl.load(per))


@triton.jit
def bad(a_ptr, h_ptr):
    # BAD: error: tl.where on pointers takes two pointers of one type
    p = tl.where(True, a_ptr, h_ptr)
    tl.store(p, 1.0)
