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

// The loop's accumulators read after it by one elementwise op into a bf16 tile of their own
// (attention's `(acc / l_i[:, None]).to(bf16)`): that op runs on the registers, its row operand
// loaded at each element's row, and the converted pairs are stored into the tile (rows padded
// by 8); neither C's f32 tile nor the op is left after the loop.
// CHECK-LABEL: func.func public @divided(
// CHECK: scf.if
// CHECK: nvvm.wgmma.mma_async
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[WIDE:.*]] = memref.alloc() : memref<64x40xbf16>
// CHECK-NEXT: %[[T:.*]] = memref.subview %[[WIDE]][0, 0] [64, 32] [1, 1]
// CHECK-NEXT: scf.execute_region
// CHECK: %[[SUM:.*]] = memref.load %[[SUMS:.*]][%{{.*}}, %{{.*}}] : memref<64x1xf32>
// CHECK-NEXT: %[[R:.*]] = arith.divf %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %{{.*}}, %[[R]] : f32
// CHECK-NEXT: arith.truncf %[[Y]] : f32 to bf16
// CHECK-COUNT-8: vector.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x32xbf16, strided<[40, 1]>>, vector<2xbf16>
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.generic
// CHECK: linalg.copy ins(%[[T]] : memref<64x32xbf16, strided<[40, 1]>>)
func.func public @divided(%o: memref<?xbf16>, %kv: memref<?xbf16>, %n: i32, %p0: i32,
                          %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %steps = arith.index_cast %n : i32 to index
  %rows = arith.muli %steps, %c64 : index
  %kv2 = memref.reinterpret_cast %kv to offset: [0], sizes: [%rows, 32], strides: [32, 1]
      : memref<?xbf16> to memref<?x32xbf16, strided<[32, 1]>>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ta = memref.alloc() : memref<64x32xbf16>
  %tv = memref.alloc() : memref<32x32xbf16>
  %alpha = memref.alloc() : memref<64x1xf32>
  %sums = memref.alloc() : memref<64x1xf32>
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
  %tile = memref.alloc() : memref<64x32xbf16>
  linalg.generic {indexing_maps = [#all5, #rows5, #all5], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %sums : memref<64x32xf32>, memref<64x1xf32>) outs(%tile : memref<64x32xbf16>) {
  ^bb0(%x: f32, %s: f32, %out: bf16):
    %r = arith.divf %one, %s : f32
    %y = arith.mulf %x, %r : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  }
  %dst = memref.reinterpret_cast %o to offset: [0], sizes: [64, 32], strides: [32, 1]
      : memref<?xbf16> to memref<64x32xbf16, strided<[32, 1]>>
  linalg.copy ins(%tile : memref<64x32xbf16>) outs(%dst : memref<64x32xbf16, strided<[32, 1]>>)
  return
}
