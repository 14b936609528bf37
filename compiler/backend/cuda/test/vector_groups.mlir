// Vector global accesses (ThreadTiles.cpp, chooseVectorWidth): where every global access of
// the loops over kept tiles is proven contiguous and aligned (unit innermost stride, down to
// a memref.assume_alignment of 16 bytes, the structured lowering's AxisInfo proof), each
// thread owns groups of 4 consecutive f32 elements (element 4 * tid + lane, then + 256 with
// 64 threads), and a masked access tests the whole group once: all four in bounds run side
// by side, the four loads and then the four stores (LLVM makes them one 128-bit access),
// otherwise each alone. Without the alignment
// proof, or with vector-bytes=4, the elements stay one per thread (tid, tid + 64, ...).
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-whole-tile-loops),tessel-cuda-map-programs{num-warps=2})' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-whole-tile-loops),tessel-cuda-map-programs{num-warps=2 vector-bytes=4})' | FileCheck %s --check-prefix=SCALAR
// RUN: not tessel-opt %s --split-input-file --tessel-cuda-map-programs='vector-bytes=65' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: vector-bytes must be 0..64, got 65

// CHECK-LABEL: gpu.func @aligned_scale(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[X:.*]] = memref.alloca() : memref<8xf32>
// CHECK: scf.execute_region {
// CHECK: %[[E0:.*]] = arith.muli %[[TID]], %c4 : index
// CHECK: %[[E3:.*]] = arith.addi %{{.*}}, %c3 : index
// CHECK: %[[T0:.*]] = arith.cmpi slt, %[[E0]], %[[N:.*]] : index
// CHECK: %[[ALL:.*]] = arith.andi
// CHECK: arith.cmpi slt, %[[E3]], %[[N]] : index
// CHECK: %[[ALL4:.*]] = arith.andi
// CHECK: scf.if %[[ALL4]] {
// CHECK-NEXT: memref.load %{{.*}}[%[[E0]]]
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load %{{.*}}[%[[E3]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[X]][%c0]
// CHECK-NEXT: memref.store %{{.*}}, %[[X]][%c1]
// CHECK-NEXT: memref.store %{{.*}}, %[[X]][%c2]
// CHECK-NEXT: memref.store %{{.*}}, %[[X]][%c3]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK: arith.addi %{{.*}}, %c256 : index
// CHECK: } {tessel.per_thread}
// CHECK: gpu.return
// SCALAR-LABEL: gpu.func @aligned_scale(
// SCALAR: %[[TID:.*]] = gpu.thread_id x
// SCALAR: memref.alloca() : memref<8xf32>
// SCALAR-NOT: arith.muli %[[TID]]
// SCALAR: arith.cmpi slt, %[[TID]], %{{.*}} : index
// SCALAR: arith.addi %[[TID]], %c64 : index
// SCALAR: gpu.return
module {
  func.func public @aligned_scale(%x: memref<?xf32>, %out: memref<?xf32>, %off: index,
                                  %n: index, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                  %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c512 = arith.constant 512 : index
    %two = arith.constant 2.0 : f32
    %xv = memref.reinterpret_cast %x to offset: [%off], sizes: [512], strides: [1] : memref<?xf32> to memref<512xf32, strided<[1], offset: ?>>
    %xa = memref.assume_alignment %xv, 16 : memref<512xf32, strided<[1], offset: ?>>
    %xs = memref.subview %xa[0] [%n] [1] : memref<512xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    %tile = memref.alloc() : memref<512xf32>
    %ts = memref.subview %tile[0] [%n] [1] : memref<512xf32> to memref<?xf32, strided<[1]>>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %xs[%i] : memref<?xf32, strided<[1], offset: ?>>
      memref.store %v, %ts[%i] : memref<?xf32, strided<[1]>>
      scf.reduce
    }
    %ov = memref.reinterpret_cast %out to offset: [%off], sizes: [512], strides: [1] : memref<?xf32> to memref<512xf32, strided<[1], offset: ?>>
    %oa = memref.assume_alignment %ov, 16 : memref<512xf32, strided<[1], offset: ?>>
    %os = memref.subview %oa[0] [%n] [1] : memref<512xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    %ts2 = memref.subview %tile[0] [%n] [1] : memref<512xf32> to memref<?xf32, strided<[1]>>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %ts2[%i] : memref<?xf32, strided<[1]>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %os[%i] : memref<?xf32, strided<[1], offset: ?>>
      scf.reduce
    }
    return
  }
}

// -----

// The same without the alignment proof: one element per thread.
// CHECK-LABEL: gpu.func @unaligned_scale(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: memref.alloca() : memref<8xf32>
// CHECK-NOT: arith.muli %[[TID]]
// CHECK: arith.cmpi slt, %[[TID]], %{{.*}} : index
// CHECK: arith.addi %[[TID]], %c64 : index
// CHECK: gpu.return
module {
  func.func public @unaligned_scale(%x: memref<?xf32>, %out: memref<?xf32>, %off: index,
                                    %n: index, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                    %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2.0 : f32
    %xv = memref.reinterpret_cast %x to offset: [%off], sizes: [512], strides: [1] : memref<?xf32> to memref<512xf32, strided<[1], offset: ?>>
    %xs = memref.subview %xv[0] [%n] [1] : memref<512xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    %tile = memref.alloc() : memref<512xf32>
    %ts = memref.subview %tile[0] [%n] [1] : memref<512xf32> to memref<?xf32, strided<[1]>>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %xs[%i] : memref<?xf32, strided<[1], offset: ?>>
      memref.store %v, %ts[%i] : memref<?xf32, strided<[1]>>
      scf.reduce
    }
    %ov = memref.reinterpret_cast %out to offset: [%off], sizes: [512], strides: [1] : memref<?xf32> to memref<512xf32, strided<[1], offset: ?>>
    %os = memref.subview %ov[0] [%n] [1] : memref<512xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    %ts2 = memref.subview %tile[0] [%n] [1] : memref<512xf32> to memref<?xf32, strided<[1]>>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %ts2[%i] : memref<?xf32, strided<[1]>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %os[%i] : memref<?xf32, strided<[1], offset: ?>>
      scf.reduce
    }
    return
  }
}
