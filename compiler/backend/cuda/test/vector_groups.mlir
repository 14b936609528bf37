// Vector global accesses (ThreadTiles.cpp, chooseVectorWidth): where every global access of
// the loops over kept tiles is proven contiguous and aligned (unit innermost stride, down to
// a memref.assume_alignment of 16 bytes, the structured lowering's AxisInfo proof), each
// thread owns groups of 4 consecutive f32 elements (element 4 * tid + lane, then + 256 with
// 64 threads), and a masked access tests the whole group once: all four in bounds, one
// 16-byte vector load (then the four slots), otherwise each alone. Without the alignment
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
// CHECK-NEXT: %[[V:.*]] = vector.load %{{.*}}[%[[E0]]] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
// CHECK-NEXT: vector.extract %[[V]][0]
// CHECK-NEXT: vector.extract %[[V]][1]
// CHECK-NEXT: vector.extract %[[V]][2]
// CHECK-NEXT: vector.extract %[[V]][3]
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

// -----

// An attention epilogue: rows of an f32 tile in shared memory (not kept: written transposed)
// scaled by their row's factor (also shared), kept as bf16, then stored into rows of the
// output whose stride is a kernel argument Triton specialized as divisible by 16
// (tessel.arg_divisibility): groups of 8 (16 bytes of bf16), the f32 reads one 32-byte vector
// load of the shared tile (16-byte aligned, as MapPrograms places tiles), the row factor read
// per lane (one element for all), the stores one 16-byte vector store where the group's rows
// are all in range (vector-bytes=4: groups of 2). Without the divisibility the stride may
// break the groups: one element at a time.
// CHECK-LABEL: gpu.func @scaled_rows(
// CHECK: %[[O:.*]] = memref.alloca() : memref<16xbf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x64xf32>, vector<8xf32>
// CHECK-COUNT-8: memref.load %{{.*}} : memref<16xf32>
// CHECK: memref.store %{{.*}}, %[[O]][%c7]
// CHECK: %[[V:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
// CHECK: vector.store %[[V]], %{{.*}} {alignment = 16 : i64} : memref<?x64xbf16, strided<[?, 1]>>, vector<8xbf16>
// SCALAR-LABEL: gpu.func @scaled_rows(
// SCALAR: vector.load %{{.*}} {alignment = 8 : i64} : memref<16x64xf32>, vector<2xf32>
// SCALAR: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x64xbf16, strided<[?, 1]>>, vector<2xbf16>
module {
  func.func public @scaled_rows(%acc_g: memref<?xf32>, %l_g: memref<?xf32>, %out: memref<?xbf16>,
                                %stride: i32, %rows: index, %pid_x: i32, %pid_y: i32,
                                %pid_z: i32, %gx: i32, %gy: i32, %gz: i32)
      attributes {tessel.arg_divisibility = array<i64: 16, 16, 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %acc = memref.alloc() : memref<16x64xf32>
    %l = memref.alloc() : memref<16xf32>
    %o = memref.alloc() : memref<16x64xbf16>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c16) step (%c1, %c1) {
      %k = arith.muli %i, %c16 : index
      %e = arith.addi %k, %j : index
      %v = memref.load %acc_g[%e] : memref<?xf32>
      memref.store %v, %acc[%j, %i] : memref<16x64xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %l_g[%i] : memref<?xf32>
      %r = arith.subi %c15, %i : index
      memref.store %v, %l[%r] : memref<16xf32>
      scf.reduce
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %a = memref.load %acc[%r, %c] : memref<16x64xf32>
      %s = memref.load %l[%r] : memref<16xf32>
      %d = arith.divf %one, %s : f32
      %m = arith.mulf %a, %d : f32
      %t = arith.truncf %m : f32 to bf16
      memref.store %t, %o[%r, %c] : memref<16x64xbf16>
      scf.reduce
    }
    %st = arith.index_cast %stride : i32 to index
    %ov = memref.reinterpret_cast %out to offset: [0], sizes: [16, 64], strides: [%st, 1] : memref<?xbf16> to memref<16x64xbf16, strided<[?, 1]>>
    %oa = memref.assume_alignment %ov, 16 : memref<16x64xbf16, strided<[?, 1]>>
    %os = memref.subview %oa[0, 0] [%rows, 64] [1, 1] : memref<16x64xbf16, strided<[?, 1]>> to memref<?x64xbf16, strided<[?, 1]>>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %in = arith.cmpi slt, %r, %rows : index
      scf.if %in {
        %v = memref.load %o[%r, %c] : memref<16x64xbf16>
        memref.store %v, %os[%r, %c] : memref<?x64xbf16, strided<[?, 1]>>
      }
      scf.reduce
    }
    return
  }
}

// -----

// The same without the stride's divisibility.
// CHECK-LABEL: gpu.func @scaled_rows_any_stride(
// CHECK-NOT: vector.
// CHECK: gpu.return
module {
  func.func public @scaled_rows_any_stride(%acc_g: memref<?xf32>, %l_g: memref<?xf32>, %out: memref<?xbf16>,
                                %stride: i32, %rows: index, %pid_x: i32, %pid_y: i32,
                                %pid_z: i32, %gx: i32, %gy: i32, %gz: i32)
      {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %acc = memref.alloc() : memref<16x64xf32>
    %l = memref.alloc() : memref<16xf32>
    %o = memref.alloc() : memref<16x64xbf16>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c16) step (%c1, %c1) {
      %k = arith.muli %i, %c16 : index
      %e = arith.addi %k, %j : index
      %v = memref.load %acc_g[%e] : memref<?xf32>
      memref.store %v, %acc[%j, %i] : memref<16x64xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %l_g[%i] : memref<?xf32>
      %r = arith.subi %c15, %i : index
      memref.store %v, %l[%r] : memref<16xf32>
      scf.reduce
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %a = memref.load %acc[%r, %c] : memref<16x64xf32>
      %s = memref.load %l[%r] : memref<16xf32>
      %d = arith.divf %one, %s : f32
      %m = arith.mulf %a, %d : f32
      %t = arith.truncf %m : f32 to bf16
      memref.store %t, %o[%r, %c] : memref<16x64xbf16>
      scf.reduce
    }
    %st = arith.index_cast %stride : i32 to index
    %ov = memref.reinterpret_cast %out to offset: [0], sizes: [16, 64], strides: [%st, 1] : memref<?xbf16> to memref<16x64xbf16, strided<[?, 1]>>
    %oa = memref.assume_alignment %ov, 16 : memref<16x64xbf16, strided<[?, 1]>>
    %os = memref.subview %oa[0, 0] [%rows, 64] [1, 1] : memref<16x64xbf16, strided<[?, 1]>> to memref<?x64xbf16, strided<[?, 1]>>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %in = arith.cmpi slt, %r, %rows : index
      scf.if %in {
        %v = memref.load %o[%r, %c] : memref<16x64xbf16>
        memref.store %v, %os[%r, %c] : memref<?x64xbf16, strided<[?, 1]>>
      }
      scf.reduce
    }
    return
  }
}

// -----

// The epilogue as one loop over no kept tile (MapPrograms' distributeGroups): groups of 4
// elements (16 bytes of the widest, f32), the f32 reads one 16-byte vector load, the row
// factor (the same element for the group) read per lane, the bf16 stores one 8-byte vector.
// CHECK-LABEL: gpu.func @scaled_rows_direct(
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x64xf32>, vector<4xf32>
// CHECK-COUNT-4: memref.load %{{.*}} : memref<16xf32>
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<?x64xbf16, strided<[?, 1]>>, vector<4xbf16>
module {
  func.func public @scaled_rows_direct(%acc_g: memref<?xf32>, %l_g: memref<?xf32>,
                                       %out: memref<?xbf16>, %stride: i32, %rows: index,
                                       %pid_x: i32, %pid_y: i32, %pid_z: i32, %gx: i32,
                                       %gy: i32, %gz: i32)
      attributes {tessel.arg_divisibility = array<i64: 16, 16, 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %acc = memref.alloc() : memref<16x64xf32>
    %l = memref.alloc() : memref<16xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c16) step (%c1, %c1) {
      %k = arith.muli %i, %c16 : index
      %e = arith.addi %k, %j : index
      %v = memref.load %acc_g[%e] : memref<?xf32>
      memref.store %v, %acc[%j, %i] : memref<16x64xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %l_g[%i] : memref<?xf32>
      %r = arith.subi %c15, %i : index
      memref.store %v, %l[%r] : memref<16xf32>
      scf.reduce
    }
    %st = arith.index_cast %stride : i32 to index
    %ov = memref.reinterpret_cast %out to offset: [0], sizes: [16, 64], strides: [%st, 1] : memref<?xbf16> to memref<16x64xbf16, strided<[?, 1]>>
    %oa = memref.assume_alignment %ov, 16 : memref<16x64xbf16, strided<[?, 1]>>
    %os = memref.subview %oa[0, 0] [%rows, 64] [1, 1] : memref<16x64xbf16, strided<[?, 1]>> to memref<?x64xbf16, strided<[?, 1]>>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
      %in = arith.cmpi slt, %r, %rows : index
      scf.if %in {
        %a = memref.load %acc[%r, %c] : memref<16x64xf32>
        %s = memref.load %l[%r] : memref<16xf32>
        %d = arith.divf %one, %s : f32
        %m = arith.mulf %a, %d : f32
        %t = arith.truncf %m : f32 to bf16
        memref.store %t, %os[%r, %c] : memref<?x64xbf16, strided<[?, 1]>>
      }
      scf.reduce
    }
    return
  }
}
