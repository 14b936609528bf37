// Loops of loads and stores over a shared tile spread in groups of consecutive elements
// (GroupedAccess.cpp): a tile staged in shared memory copied into a global view whose first
// element is proven 16-byte aligned (memref.assume_alignment) but whose row stride is known
// only at run time: if the stride is a multiple of 8 (bf16: 16 bytes), each thread copies
// groups of 8 elements with one 16-byte vector load and store, the masked edge element by
// element; otherwise the copy runs one element at a time. Without the alignment proof, with an outer index that moves with the
// innermost one, or with i1 elements (stored a byte each, a vector of them as bits), nothing
// is grouped. (thread-tile-elements=0: the tiles stay in shared memory, as a tile written by
// a tensor-core epilogue does.)
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-whole-tile-loops),tessel-cuda-map-programs{num-warps=2 thread-tile-elements=0})' | FileCheck %s

// CHECK-LABEL: gpu.func @staged_copy(
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<?xbf16, strided<[1], offset: ?>>, %[[STRIDE:[a-z0-9]+]]: index
// CHECK-SAME: {llvm.align = 16 : i64}
// CHECK: %[[ORIG:.*]] = memref.subview
// CHECK: %[[LOW:.*]] = arith.andi %[[STRIDE]], %c7 : index
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[LOW]], %c0 : index
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: scf.for
// CHECK: %[[ROW:.*]] = arith.divui
// CHECK: scf.if
// CHECK-NEXT: %[[V:.*]] = vector.load %{{.*}}[%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<16x64xbf16>, vector<8xbf16>
// CHECK-COUNT-8: vector.extract %[[V]]
// CHECK: vector.from_elements
// CHECK-NEXT: vector.store %{{.*}}, %[[ORIG]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<?x?xbf16, strided<[?, 1]>>, vector<8xbf16>
// CHECK-NEXT: } else {
// CHECK-COUNT-8: memref.store %{{.*}}, %[[ORIG]][
// The other stride: 4 elements a thread at a time (64 threads: steps of 256), no vectors.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256 {
// CHECK-NOT: vector.
// CHECK: memref.store %{{.*}}, %[[ORIG]][
// CHECK-NOT: vector.
// CHECK: gpu.return
module {
  func.func public @staged_copy(%c: memref<?xbf16, strided<[1], offset: ?>>, %stride: index,
                                %rows: index, %cols: index, %pid_x: i32, %pid_y: i32,
                                %pid_z: i32, %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : bf16
    %tile = memref.alloc() : memref<16x64xbf16>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      memref.store %one, %tile[%i, %j] : memref<16x64xbf16>
      scf.reduce
    }
    %view = memref.reinterpret_cast %c to offset: [0], sizes: [16, 64], strides: [%stride, 1]
        : memref<?xbf16, strided<[1], offset: ?>> to memref<16x64xbf16, strided<[?, 1]>>
    %aligned = memref.assume_alignment %view, 16 : memref<16x64xbf16, strided<[?, 1]>>
    %sub = memref.subview %aligned[0, 0] [%rows, %cols] [1, 1]
        : memref<16x64xbf16, strided<[?, 1]>> to memref<?x?xbf16, strided<[?, 1]>>
    %tsub = memref.subview %tile[0, 0] [%rows, %cols] [1, 1]
        : memref<16x64xbf16> to memref<?x?xbf16, strided<[64, 1]>>
    scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
      %v = memref.load %tsub[%i, %j] : memref<?x?xbf16, strided<[64, 1]>>
      memref.store %v, %sub[%i, %j] : memref<?x?xbf16, strided<[?, 1]>>
      scf.reduce
    }
    return
  }
}

// -----

// The tile's fill is grouped (a shared tile); its copy out is not.
// CHECK-LABEL: gpu.func @unaligned_copy(
// CHECK: vector.store %{{.*}} : memref<16x64xbf16>, vector<8xbf16>
// CHECK: gpu.barrier
// CHECK-NOT: vector.
// CHECK: memref.store %{{.*}} : memref<16x64xbf16, strided<[?, 1]>>
// CHECK-NOT: vector.
// CHECK: gpu.return
module {
  func.func public @unaligned_copy(%c: memref<?xbf16, strided<[1], offset: ?>>, %stride: index,
                                   %pid_x: i32, %pid_y: i32, %pid_z: i32, %gx: i32, %gy: i32,
                                   %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : bf16
    %tile = memref.alloc() : memref<16x64xbf16>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      memref.store %one, %tile[%i, %j] : memref<16x64xbf16>
      scf.reduce
    }
    %view = memref.reinterpret_cast %c to offset: [0], sizes: [16, 64], strides: [%stride, 1]
        : memref<?xbf16, strided<[1], offset: ?>> to memref<16x64xbf16, strided<[?, 1]>>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %v = memref.load %tile[%i, %j] : memref<16x64xbf16>
      memref.store %v, %view[%i, %j] : memref<16x64xbf16, strided<[?, 1]>>
      scf.reduce
    }
    return
  }
}

// -----

// The zeros grouped (a shared tile, rows of whole groups); the diagonal copy not: its row
// index moves with the column.
// CHECK-LABEL: gpu.func @diagonal(
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<16x16xf32>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK-NOT: vector.load
// CHECK: memref.load
// CHECK: gpu.return
module {
  func.func public @diagonal(%out: memref<16xf32>, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                             %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %tile = memref.alloc() : memref<16x16xf32>
    %diag = memref.alloc() : memref<16x16xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      memref.store %zero, %tile[%i, %j] : memref<16x16xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %v = memref.load %tile[%j, %j] : memref<16x16xf32>
      memref.store %v, %diag[%i, %j] : memref<16x16xf32>
      scf.reduce
    }
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %diag[%j, %j] : memref<16x16xf32>
      memref.store %v, %out[%j] : memref<16xf32>
      scf.reduce
    }
    return
  }
}

// -----

// CHECK-LABEL: gpu.func @flags(
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.*}} : memref<128xi1>
// CHECK: gpu.return
module {
  func.func public @flags(%n: index, %out: memref<128xi32>, %pid_x: i32, %pid_y: i32,
                          %pid_z: i32, %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %mask = memref.alloc() : memref<128xi1>
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %in = arith.cmpi slt, %i, %n : index
      memref.store %in, %mask[%i] : memref<128xi1>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %m = memref.load %mask[%i] : memref<128xi1>
      %v = arith.extui %m : i1 to i32
      memref.store %v, %out[%i] : memref<128xi32>
      scf.reduce
    }
    return
  }
}
