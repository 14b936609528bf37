// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4},tessel-cuda-pipeline-tile-loads{num-stages=2}))' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4},tessel-cuda-pipeline-tile-loads{num-stages=1}))' | FileCheck %s --check-prefix=ONE
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4},tessel-cuda-pipeline-tile-loads{num-stages=3}),convert-linalg-to-parallel-loops,canonicalize,cse,tessel-cuda-map-programs{num-warps=4})' | FileCheck %s --check-prefix=MAP

// A K loop loading both operand tiles from global memory (A zero-filled first, as a masked
// load with other=0 is): each tile's writes become one async-copy region (a cp.async of 16
// bytes a chunk, zero-filling what the copy does not cover), a commit closes each tile's
// group, and a wait comes before the matmul. Pipelined over 2 stages: each tile has 2 slots,
// the copies of the first iteration run before the loop (only if it exists), those of
// iteration k + 1 before the matmul of iteration k, which waits for all but the newest 2
// groups (two commits an iteration). Only these regions write the tiles and only the matmul
// reads them, so their 16-byte chunks are stored swizzled (chunk XOR the row's group) and the
// ldmatrix addresses follow.
// CHECK-LABEL: func.func public @k_loop(
// CHECK-DAG: %[[A2:.*]] = memref.alloc() {tessel.swizzled} : memref<2x32x16xf16>
// CHECK-DAG: %[[B2:.*]] = memref.alloc() {tessel.swizzled} : memref<2x16x32xf16>
// CHECK: scf.execute_region no_inline {
// CHECK: scf.if %{{.*}} {
// CHECK: memref.subview %[[A2]][%{{.*}}, 0, 0] [1, 32, 16] [1, 1, 1]
// CHECK: %[[SW:.*]] = arith.xori
// CHECK: arith.muli %[[SW]], %c8
// CHECK: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: } {tessel.async_copy, tessel.per_thread}
// CHECK: nvvm.cp.async.commit.group
// CHECK: } {tessel.async_commit, tessel.per_thread}
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: scf.execute_region no_inline {
// CHECK: scf.if %{{.*}} {
// CHECK: memref.subview %[[A2]]
// CHECK: nvgpu.device_async_copy
// CHECK: } {tessel.async_copy, tessel.per_thread}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.device_async_copy
// CHECK: } {tessel.async_copy, tessel.per_thread}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: } {tessel.async_wait, tessel.per_thread}
// CHECK: scf.execute_region -> (vector<4xf32>
// CHECK: memref.subview %[[B2]]
// CHECK: memref.subview %[[A2]]
// CHECK: arith.xori
// CHECK: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: linalg.matmul

// One stage: the tiles stay single, each iteration waits for its own copies.
// ONE-LABEL: func.func public @k_loop(
// ONE-NOT: memref<2x
// ONE: scf.for
// ONE: nvgpu.device_async_copy
// ONE: nvvm.cp.async.commit.group
// ONE: nvgpu.device_async_copy
// ONE: nvvm.cp.async.commit.group
// ONE: nvvm.cp.async.wait.group 0
// ONE: nvvm.mma.sync

// On the GPU: one barrier before the copies of an iteration (none between the tiles' copy
// regions, none after the copies, commits or wait) and one before the matmul, none after it
// (it writes no memory).
// MAP-LABEL: gpu.func @k_loop(
// MAP-SAME: workgroup(%{{.*}} : memref<3x32x16xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<3x16x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// MAP: scf.for %{{.*}} iter_args(
// MAP-NOT: gpu.barrier
// MAP: gpu.barrier
// MAP-NEXT: scf.execute_region no_inline {
// MAP: } {tessel.async_copy, tessel.per_thread}
// MAP-NOT: gpu.barrier
// MAP: } {tessel.async_copy, tessel.per_thread}
// MAP-NOT: gpu.barrier
// MAP: nvvm.cp.async.wait.group 4
// MAP: } {tessel.async_wait, tessel.per_thread}
// MAP-NEXT: gpu.barrier
// MAP-NEXT: scf.execute_region
// MAP-NOT: gpu.barrier
// MAP: nvvm.mma.sync
// MAP-NOT: gpu.barrier
// MAP: } {tessel.per_thread}
// MAP-NEXT: scf.yield

func.func public @k_loop(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                         %b: memref<?x?xf16, strided<[?, 1], offset: ?>>, %out: memref<?xf32>,
                         %n: index, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %h0 = arith.constant 0.0 : f16
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %acc = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
  scf.for %k = %c0 to %n step %c1 {
    %col = arith.muli %k, %c16 : index
    %va = memref.subview %a[0, %col] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.fill ins(%h0 : f16) outs(%ta : memref<32x16xf16>)
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x16xf16>)
    %vb = memref.subview %b[%col, 0] [16, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<16x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<16x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<16x32xf16>)
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<32x32xf32> into memref<1024xf32>
  %view = memref.subview %out[0] [1024] [1] : memref<?xf32> to memref<1024xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<1024xf32>) outs(%view : memref<1024xf32, strided<[1]>>)
  return
}

// -----

// An iter_arg the loop yields unchanged (tessel-cuda-tensor-core-dots leaves such where
// registers now carry what a buffer did) goes before pipelining (the pipeliner carries each
// loop value from an op of the body); the loop is then pipelined as k_loop is.
// CHECK-LABEL: func.func public @passed_through(
// CHECK-DAG: memref.alloc() {tessel.swizzled} : memref<2x32x16xf16>
// CHECK-DAG: %[[KEEP:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-NOT: memref<4xf32>
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: nvvm.mma.sync
// CHECK: memref.load %[[KEEP]]
func.func public @passed_through(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                                 %b: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                                 %out: memref<?xf32>, %n: index, %p0: i32, %p1: i32, %p2: i32,
                                 %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %acc = memref.alloc() : memref<32x32xf32>
  %keep = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%kept = %keep) -> (memref<4xf32>) {
    %col = arith.muli %k, %c16 : index
    %va = memref.subview %a[0, %col] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x16xf16>)
    %vb = memref.subview %b[%col, 0] [16, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<16x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<16x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<16x32xf16>)
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
    scf.yield %kept : memref<4xf32>
  }
  %x = memref.load %r[%c1] : memref<4xf32>
  memref.store %x, %out[%c0] : memref<?xf32>
  %y = memref.load %acc[%c1, %c1] : memref<32x32xf32>
  memref.store %y, %out[%c1] : memref<?xf32>
  return
}

// -----

// Two loops in a row, the second carrying what the first yields (attention's key blocks
// without a mask, then those with one), each passing an iter_arg through: the first's rewrite
// replaces the second too (its init value changed); both are then pipelined.
// CHECK-LABEL: func.func public @two_loops(
// CHECK-COUNT-4: memref.alloc() {tessel.swizzled} : memref<2x
// CHECK: %[[KEEP:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %{{.*}} iter_args(
// CHECK-NOT: memref<4xf32>
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: nvvm.mma.sync
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-NOT: memref<4xf32>
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: nvvm.mma.sync
// CHECK: memref.load %[[KEEP]]
func.func public @two_loops(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                            %b: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                            %out: memref<?xf32>, %n: index, %end: index, %p0: i32, %p1: i32,
                            %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %ta2 = memref.alloc() : memref<32x16xf16>
  %tb2 = memref.alloc() : memref<16x32xf16>
  %acc = memref.alloc() : memref<32x32xf32>
  %keep = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%kept = %keep) -> (memref<4xf32>) {
    %col = arith.muli %k, %c16 : index
    %va = memref.subview %a[0, %col] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x16xf16>)
    %vb = memref.subview %b[%col, 0] [16, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<16x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<16x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<16x32xf16>)
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
    scf.yield %kept : memref<4xf32>
  }
  %r2 = scf.for %k = %n to %end step %c1 iter_args(%kept = %r) -> (memref<4xf32>) {
    %col = arith.muli %k, %c16 : index
    %va = memref.subview %a[0, %col] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta2 : memref<32x16xf16>)
    %vb = memref.subview %b[%col, 0] [16, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<16x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<16x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb2 : memref<16x32xf16>)
    linalg.matmul ins(%ta2, %tb2 : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
    scf.yield %kept : memref<4xf32>
  }
  %x = memref.load %r2[%c1] : memref<4xf32>
  memref.store %x, %out[%c0] : memref<?xf32>
  %y = memref.load %acc[%c1, %c1] : memref<32x32xf32>
  memref.store %y, %out[%c1] : memref<?xf32>
  return
}

// -----

// Dropping the iter_args a loop yields unchanged runs scf.for's canonicalization on that loop,
// which may remove the loop itself (one iteration): its body stays, nothing is pipelined.
// CHECK-LABEL: func.func public @one_iteration(
// CHECK-NOT: iter_args
// CHECK-NOT: memref<2x
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.mma.sync
func.func public @one_iteration(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                                %out: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32,
                                %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %acc = memref.alloc() : memref<32x32xf32>
  %keep = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%kept = %keep) -> (memref<4xf32>) {
    %va = memref.subview %a[0, 0] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x16xf16>)
    %vb = memref.subview %a[0, 0] [16, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<16x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<16x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<16x32xf16>)
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
    scf.yield %kept : memref<4xf32>
  }
  %x = memref.load %r[%c1] : memref<4xf32>
  memref.store %x, %out[%c0] : memref<?xf32>
  %y = memref.load %acc[%c1, %c1] : memref<32x32xf32>
  memref.store %y, %out[%c1] : memref<?xf32>
  return
}

// -----

// A store to global memory inside the loop could change what a later iteration's copy reads:
// the loop is not pipelined (its copies are still asynchronous, waited for in the iteration).
// CHECK-LABEL: func.func public @store_in_loop(
// CHECK-NOT: memref<2x
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.mma.sync
// CHECK: memref.store
func.func public @store_in_loop(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                                %b: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                                %n: index, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                                %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %h1 = arith.constant 1.0 : f16
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %acc = memref.alloc() : memref<32x32xf32>
  scf.for %k = %c0 to %n step %c1 {
    %col = arith.muli %k, %c16 : index
    %va = memref.subview %a[0, %col] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x16xf16>)
    %vb = memref.subview %b[%col, 0] [16, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<16x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<16x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<16x32xf16>)
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
    memref.store %h1, %b[%k, %c0] : memref<?x?xf16, strided<[?, 1], offset: ?>>
  }
  return
}

// -----

// B loaded transposed (its view column-contiguous, as attention's K is), a zero fill of its
// masked-off part: the copy fills an N x K tile from the transposed view (contiguous rows,
// cp.async, swizzled), the fill joins it, and the matmul reads B with ldmatrix without
// transposing (both operands' loads: transpose = false).
// CHECK-LABEL: func.func public @transposed_b(
// CHECK-DAG: memref.alloc() {tessel.swizzled} : memref<2x32x16xf16>
// CHECK-DAG: memref.alloc() {tessel.swizzled} : memref<2x32x16xf16>
// CHECK-NOT: memref<16x32xf16>
// CHECK: scf.for
// CHECK: memref.transpose %{{.*}} (d0, d1) -> (d1, d0)
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 2
// CHECK-NOT: transpose = true
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-NOT: transpose = true
// CHECK: nvvm.mma.sync
func.func public @transposed_b(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                               %b: memref<?x?xf16, strided<[1, ?], offset: ?>>, %n: index,
                               %w: index, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                               %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %h0 = arith.constant 0.0 : f16
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %acc = memref.alloc() : memref<32x32xf32>
  %rest = arith.subi %c32, %w : index
  scf.for %k = %c0 to %n step %c1 {
    %col = arith.muli %k, %c16 : index
    %va = memref.subview %a[0, %col] [32, 16] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x16xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x16xf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x16xf16>)
    %masked = memref.subview %tb[0, %w] [16, %rest] [1, 1]
        : memref<16x32xf16> to memref<16x?xf16, strided<[32, 1], offset: ?>>
    linalg.fill ins(%h0 : f16) outs(%masked : memref<16x?xf16, strided<[32, 1], offset: ?>>)
    %vb = memref.subview %b[%col, 0] [16, %w] [1, 1]
        : memref<?x?xf16, strided<[1, ?], offset: ?>> to memref<16x?xf16, strided<[1, ?], offset: ?>>
    %part = memref.subview %tb[0, 0] [16, %w] [1, 1]
        : memref<16x32xf16> to memref<16x?xf16, strided<[32, 1]>>
    linalg.copy ins(%vb : memref<16x?xf16, strided<[1, ?], offset: ?>>)
                outs(%part : memref<16x?xf16, strided<[32, 1]>>)
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x32xf16>)
                  outs(%acc : memref<32x32xf32>)
  }
  return
}

// -----

// A tile whose rows wrap around (Triton's `offs_am % M`): two copies from the same buffer, rows
// r0.. into the tile's first h1 rows and rows 0.. into the rest, after a zero fill. Each of the
// thread's 2 chunks (64 x 32 / 8 = 256 over 128 threads) is one cp.async from that buffer at
// the element the copy covering it starts at (a select of that element and one of the count
// per copy), zero-filling what no copy
// covers: one address a chunk. Where a source is not 16-byte aligned, the synchronous chunks
// store each chunk after its load (a rare path, in the loop with the accumulators).
// CHECK-LABEL: func.func public @wrapped_rows(
// CHECK: scf.execute_region no_inline {
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2147483647], strides: [1] : memref<f16> to memref<2147483647xf16>
// Every iteration whose two copies take whole rows of 32 columns and 64 rows between them:
// each chunk one cp.async of 16 bytes (no source size) from its row's copy.
// CHECK: arith.cmpi eq, %{{.*}}, %c32
// CHECK: %[[ROWS:.*]] = arith.cmpi eq, %{{.*}}, %c64
// CHECK: %[[WHOLE:.*]] = arith.andi %{{.*}}, %[[ROWS]] : i1
// CHECK: scf.if %[[WHOLE]] {
// CHECK: arith.select
// CHECK-NOT: arith.select
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8 {bypassL1} : memref<2147483647xf16>
// CHECK: arith.select
// CHECK-NOT: arith.select
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8 {bypassL1} : memref<2147483647xf16>
// CHECK: } else {
// The general path (the last iteration's masked columns): where the chunk's copy starts and
// how much of it that copy covers.
// CHECK-COUNT-4: arith.select
// CHECK-NOT: arith.select
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<2147483647xf16>
// CHECK-COUNT-4: arith.select
// CHECK-NOT: arith.select
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<2147483647xf16>
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: } else {
// CHECK: vector.load
// CHECK-NOT: vector.load
// CHECK: vector.store
// CHECK: vector.load
// CHECK: } {tessel.async_copy, tessel.per_thread}
// Not on warpgroups: the loop is not split (tessel-cuda-pipeline-tile-loads splits only the
// K loops of matmuls on warpgroups, warpgroup_dots.mlir).
// CHECK-NOT: scf.while
func.func public @wrapped_rows(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                               %b: memref<?x?xf16, strided<[?, 1], offset: ?>>, %out: memref<?xf32>,
                               %n: index, %r0: index, %h1: index, %p0: i32, %p1: i32, %p2: i32,
                               %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %h0 = arith.constant 0.0 : f16
  %ta = memref.alloc() : memref<64x32xf16>
  %tb = memref.alloc() : memref<32x32xf16>
  %acc = memref.alloc() : memref<64x32xf32>
  %h2 = arith.subi %c64, %h1 : index
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x32xf32>)
  scf.for %k = %c0 to %n step %c1 {
    %col = arith.muli %k, %c32 : index
    %va1 = memref.subview %a[%r0, %col] [%h1, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<?x32xf16, strided<[?, 1], offset: ?>>
    %va2 = memref.subview %a[0, %col] [%h2, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<?x32xf16, strided<[?, 1], offset: ?>>
    %ta1 = memref.subview %ta[0, 0] [%h1, 32] [1, 1]
        : memref<64x32xf16> to memref<?x32xf16, strided<[32, 1]>>
    %ta2 = memref.subview %ta[%h1, 0] [%h2, 32] [1, 1]
        : memref<64x32xf16> to memref<?x32xf16, strided<[32, 1], offset: ?>>
    linalg.fill ins(%h0 : f16) outs(%ta : memref<64x32xf16>)
    linalg.copy ins(%va1 : memref<?x32xf16, strided<[?, 1], offset: ?>>)
                outs(%ta1 : memref<?x32xf16, strided<[32, 1]>>)
    linalg.copy ins(%va2 : memref<?x32xf16, strided<[?, 1], offset: ?>>)
                outs(%ta2 : memref<?x32xf16, strided<[32, 1], offset: ?>>)
    %vb = memref.subview %b[%col, 0] [32, 32] [1, 1]
        : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<32x32xf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<32x32xf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<32x32xf16>)
    linalg.matmul ins(%ta, %tb : memref<64x32xf16>, memref<32x32xf16>)
                  outs(%acc : memref<64x32xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<64x32xf32> into memref<2048xf32>
  %view = memref.subview %out[0] [2048] [1] : memref<?xf32> to memref<2048xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<2048xf32>) outs(%view : memref<2048xf32, strided<[1]>>)
  return
}
