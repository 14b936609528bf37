# Triton's type promotion: int with float -> the float type; a Python literal adopts the
# tensor's type of its kind; int / int -> fp32; f16 with bf16 -> fp32; comparisons -> i1.
# RUN: tessel-compile %s --entry k --signature '*fp16,*bf16,*i32,*i64,*fp32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def k(h_ptr, b_ptr, i_ptr, l_ptr, out):
    offs = tl.arange(0, 16)
    h = tl.load(h_ptr + offs)
    b = tl.load(b_ptr + offs)
    i = tl.load(i_ptr + offs)
    l = tl.load(l_ptr + offs)
    # CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<16xf16>
    h2 = h * 2.0
    # CHECK: arith.sitofp %{{.*}} : tensor<16xi32> to tensor<16xf16>
    # CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<16xf16>
    hi = h + i
    # CHECK: arith.extf %{{.*}} : tensor<16xf16> to tensor<16xf32>
    # CHECK: arith.extf %{{.*}} : tensor<16xbf16> to tensor<16xf32>
    # CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<16xf32>
    hb = h + b
    # CHECK: arith.sitofp %{{.*}} : tensor<16xi32> to tensor<16xf32>
    # CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<16xf32>
    q = i / 3
    # CHECK: arith.extsi %{{.*}} : tensor<16xi32> to tensor<16xi64>
    # CHECK: arith.addi %{{.*}}, %{{.*}} : tensor<16xi64>
    il = i + l
    # Integer floor division and modulo are C-style on tensors (Triton's semantics).
    # CHECK: arith.divsi %{{.*}}, %{{.*}} : tensor<16xi32>
    # CHECK: arith.remsi %{{.*}}, %{{.*}} : tensor<16xi32>
    d = i // 5 + i % 7
    # CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : tensor<16xf16>
    c = h < 1.5
    tl.store(out + offs, h2 + hi + hb + q + il + d + c)
