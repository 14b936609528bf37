// The output accumulators handed from one rescaled loop to the next in registers, on
// warpgroups (tessel-cuda-tensor-core-dots with wgmma; attention's unmasked key loop, then its
// masked one). Each loop runs under a guard that it runs (its last wgmma group waited for on
// the way out). The second starts from the first guard's accumulators: the first's are neither
// stored after it nor loaded back before the second, whose passed-through buffer is a fresh
// one nothing reads (in the loop and on the guard's other path, which yields the first's
// accumulators). Only the second's accumulators are stored, into the buffer its result was.
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4 wgmma=true}))' | FileCheck %s

// CHECK-LABEL: func.func public @handover(
// CHECK: %[[FIRST:.*]]:5 = scf.if
// CHECK: nvvm.wgmma.mma_async
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: vector.store
// CHECK-NOT: vector.load
// CHECK: %[[UNREAD:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[UNREAD]], %{{.*}} = %[[FIRST]]#1, %{{.*}} = %[[FIRST]]#2, %{{.*}} = %[[FIRST]]#3, %{{.*}} = %[[FIRST]]#4)
// CHECK: nvvm.wgmma.mma_async
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[UNREAD]], %[[FIRST]]#1, %[[FIRST]]#2, %[[FIRST]]#3, %[[FIRST]]#4
// CHECK: %[[OWN:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK: vector.store %{{.*}}, %[[OWN]]
// CHECK: memref.load %[[OWN]]
#rows5 = affine_map<(d0, d1) -> (d0, 0)>
#all5 = affine_map<(d0, d1) -> (d0, d1)>
func.func public @handover(%o: memref<?xf32>, %kv: memref<?xbf16>, %n: i32, %p0: i32,
                           %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %steps = arith.index_cast %n : i32 to index
  %rows = arith.muli %steps, %c64 : index
  %kv2 = memref.reinterpret_cast %kv to offset: [0], sizes: [%rows, 32], strides: [32, 1]
      : memref<?xbf16> to memref<?x32xbf16, strided<[32, 1]>>
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<64x32xbf16>
  %tv = memref.alloc() : memref<32x32xbf16>
  %alpha = memref.alloc() : memref<64x1xf32>
  %init = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%init : memref<64x32xf32>)
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%prev = %init) -> (memref<64x32xf32>) {
    %row = arith.muli %k, %c64 : index
    %ak = memref.subview %kv2[%row, 0] [64, 32] [1, 1]
        : memref<?x32xbf16, strided<[32, 1]>> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
    %vk = memref.subview %kv2[%row, 0] [32, 32] [1, 1]
        : memref<?x32xbf16, strided<[32, 1]>> to memref<32x32xbf16, strided<[32, 1], offset: ?>>
    linalg.copy ins(%ak : memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%ta : memref<64x32xbf16>)
    linalg.copy ins(%vk : memref<32x32xbf16, strided<[32, 1], offset: ?>>) outs(%tv : memref<32x32xbf16>)
    %next = memref.alloc() : memref<64x32xf32>
    linalg.generic {indexing_maps = [#all5, #rows5, #all5], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %alpha : memref<64x32xf32>, memref<64x1xf32>) outs(%next : memref<64x32xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.matmul ins(%ta, %tv : memref<64x32xbf16>, memref<32x32xbf16>) outs(%next : memref<64x32xf32>)
    scf.yield %next : memref<64x32xf32>
  }
  %acc2 = scf.for %k = %c0 to %steps step %c1 iter_args(%prev = %acc) -> (memref<64x32xf32>) {
    %row = arith.muli %k, %c64 : index
    %ak = memref.subview %kv2[%row, 0] [64, 32] [1, 1]
        : memref<?x32xbf16, strided<[32, 1]>> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
    %vk = memref.subview %kv2[%row, 0] [32, 32] [1, 1]
        : memref<?x32xbf16, strided<[32, 1]>> to memref<32x32xbf16, strided<[32, 1], offset: ?>>
    linalg.copy ins(%ak : memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%ta : memref<64x32xbf16>)
    linalg.copy ins(%vk : memref<32x32xbf16, strided<[32, 1], offset: ?>>) outs(%tv : memref<32x32xbf16>)
    %next = memref.alloc() : memref<64x32xf32>
    linalg.generic {indexing_maps = [#all5, #rows5, #all5], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %alpha : memref<64x32xf32>, memref<64x1xf32>) outs(%next : memref<64x32xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.matmul ins(%ta, %tv : memref<64x32xbf16>, memref<32x32xbf16>) outs(%next : memref<64x32xf32>)
    scf.yield %next : memref<64x32xf32>
  }
  %x = memref.load %acc2[%c1, %c1] : memref<64x32xf32>
  memref.store %x, %o[%c0] : memref<?xf32>
  return
}
