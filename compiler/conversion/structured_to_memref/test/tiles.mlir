// RUN: tessel-opt %s --structured-to-memref -split-input-file | FileCheck %s

// Pointer arguments become memrefs; a masked tile load copies the valid sub-block into a
// buffer whose other rows are filled with `other`.
// CHECK-LABEL: func.func @masked_load
// CHECK-SAME: (%[[P:[^:]*]]: memref<?xf32, strided<[1], offset: ?>>, %[[N:[^:]*]]: index, %[[S:[^:]*]]: index)
func.func @masked_load(%p: !tt.ptr<f32>, %n: index, %s: index) -> tensor<32x64xf32> {
  // CHECK: %[[BUF:.*]], %[[OFF0:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[P]]
  %zero = arith.constant 0.0 : f32
  %t = tts.make_tptr %p to sizes: [32, 64], strides: [%s, 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<32x64x!tt.ptr<f32>>
  // CHECK: %[[V:.*]] = memref.reinterpret_cast %[[P]] to offset: [%{{.*}}], sizes: [32, 64], strides: [%[[S]], 1]
  // CHECK: %[[A:.*]] = memref.alloc() : memref<32x64xf32>
  // CHECK: %[[ROWS:.*]] = memref.subview %[[A]][%{{.*}}, 0] [%{{.*}}, 64] [1, 1]
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ROWS]] : {{.*}})
  // CHECK-NOT: linalg.fill
  // CHECK: %[[SRC:.*]] = memref.subview %[[V]][0, 0] [%{{.*}}, 64] [1, 1]
  // CHECK: %[[DST:.*]] = memref.subview %[[A]][0, 0] [%{{.*}}, 64] [1, 1]
  // CHECK: linalg.copy ins(%[[SRC]] : {{.*}}) outs(%[[DST]] : {{.*}})
  // CHECK: bufferization.to_tensor %[[A]] restrict writable
  %v = tts.load %t mask: [%n, 64] other = %zero : tensor<32x64x!tt.ptr<f32>> -> tensor<32x64xf32>
  return %v : tensor<32x64xf32>
}

// -----

// A mask in both dimensions: `other` goes to the rows past the box, then to the columns past
// it within the box's rows; the two slabs do not overlap and together cover the rest.
// CHECK-LABEL: func.func @masked_load_2d
func.func @masked_load_2d(%p: !tt.ptr<f32>, %n: index, %m: index, %s: index) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tts.make_tptr %p to sizes: [32, 64], strides: [%s, 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<32x64x!tt.ptr<f32>>
  // CHECK: %[[A:.*]] = memref.alloc() : memref<32x64xf32>
  // CHECK: %[[R:.*]] = memref.subview %[[A]][%[[BOX0:.*]], 0] [%{{.*}}, 64] [1, 1]
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[R]] : {{.*}})
  // CHECK: %[[C:.*]] = memref.subview %[[A]][0, %{{.*}}] [%[[BOX0]], %{{.*}}] [1, 1]
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : {{.*}})
  // CHECK-NOT: linalg.fill
  // CHECK: linalg.copy
  %v = tts.load %t mask: [%n, %m] other = %zero : tensor<32x64x!tt.ptr<f32>> -> tensor<32x64xf32>
  return %v : tensor<32x64xf32>
}

// -----

// A masked store materializes the valid slice into the view.
// CHECK-LABEL: func.func @masked_store
func.func @masked_store(%p: !tt.ptr<f16>, %n: index, %v: tensor<128xf16>) {
  %t = tts.make_tptr %p to sizes: [128], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f16> to tensor<128x!tt.ptr<f16>>
  // CHECK: %[[V:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [128], strides: [1]
  // CHECK: %[[DST:.*]] = memref.subview %[[V]][0] [%{{.*}}] [1]
  // CHECK: %[[SRC:.*]] = tensor.extract_slice %{{.*}}[0] [%{{.*}}] [1]
  // CHECK: bufferization.materialize_in_destination %[[SRC]] in writable %[[DST]]
  tts.store %t, %v mask: [%n] : tensor<128x!tt.ptr<f16>>
  return
}

// -----

// Wrap-around along the rows: two views (rows start..parent, then 0..the rest, at most the
// parent) and two copies; where the parent may be shorter than the tile less one row, the
// tile is then gathered, (offset + i) mod parent, if the rows wrap more than once.
// CHECK-LABEL: func.func @wrapped_rows
func.func @wrapped_rows(%p: !tt.ptr<f32>, %row0: index, %m: index, %ld: index) -> tensor<16x8xf32> {
  %t = tts.make_tptr %p to sizes: [16, 8], strides: [%ld, 1], offsets: [%row0, 0], parent_sizes: [%m, 0] : !tt.ptr<f32> to tensor<16x8x!tt.ptr<f32>>
  // CHECK: %[[START:.*]] = arith.remsi %{{.*}}, %[[M:.*]] : index
  // CHECK: %[[AVAIL:.*]] = arith.subi %[[M]], %[[START]] : index
  // CHECK: %[[FIRST:.*]] = arith.minsi %[[AVAIL]], %c16 : index
  // CHECK: %[[REST:.*]] = arith.subi %c16, %[[FIRST]] : index
  // CHECK: %[[TWICE:.*]] = arith.cmpi sgt, %[[REST]], %[[M]] : index
  // CHECK: %[[SECOND:.*]] = arith.minsi %[[REST]], %[[M]] : index
  // CHECK: %[[V1:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%[[FIRST]], 8]
  // CHECK: %[[V2:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%[[SECOND]], 8]
  // CHECK: %[[A:.*]] = memref.alloc() : memref<16x8xf32>
  // CHECK: memref.subview %[[A]][0, 0] [%[[FIRST]], 8]
  // CHECK: linalg.copy
  // CHECK: memref.subview %[[A]][%[[FIRST]], 0] [%[[SECOND]], 8]
  // CHECK: linalg.copy
  // CHECK: scf.if %[[TWICE]] {
  // CHECK: linalg.generic {{.*}} outs(%[[A]] : memref<16x8xf32>)
  // CHECK: %[[I:.*]] = linalg.index 0 : index
  // CHECK: %[[R:.*]] = arith.addi %{{.*}}, %[[I]] : index
  // CHECK: arith.remsi %[[R]], %[[M]] : index
  // CHECK: memref.load
  // CHECK: } {tessel.wrap_gather}
  // CHECK: bufferization.to_tensor %[[A]]
  %v = tts.load %t : tensor<16x8x!tt.ptr<f32>> -> tensor<16x8xf32>
  return %v : tensor<16x8xf32>
}

// -----

// A parent of at least the tile's size less one wraps at most once: two copies, no gather.
// CHECK-LABEL: func.func @wrapped_rows_once
func.func @wrapped_rows_once(%p: !tt.ptr<f32>, %row0: index, %ld: index) -> tensor<16x8xf32> {
  %t = tts.make_tptr %p to sizes: [16, 8], strides: [%ld, 1], offsets: [%row0, 0], parent_sizes: [15, 0] : !tt.ptr<f32> to tensor<16x8x!tt.ptr<f32>>
  // CHECK: %[[FIRST:.*]] = arith.minsi %{{.*}}, %c16 : index
  // CHECK: %[[SECOND:.*]] = arith.subi %c16, %[[FIRST]] : index
  // CHECK-NOT: arith.cmpi
  // CHECK: memref.reinterpret_cast %{{.*}} sizes: [%[[SECOND]], 8]
  // CHECK-COUNT-2: linalg.copy
  // CHECK-NOT: scf.if
  // CHECK-NOT: linalg.generic
  %v = tts.load %t : tensor<16x8x!tt.ptr<f32>> -> tensor<16x8xf32>
  return %v : tensor<16x8xf32>
}

// -----

// Masked, along the columns, in a parent of 3 columns (a 32-column tile wraps up to 11 times):
// the gather reads only inside the mask; the other elements keep `other`.
// CHECK-LABEL: func.func @wrapped_cols_masked
func.func @wrapped_cols_masked(%p: !tt.ptr<f16>, %col0: index, %ld: index, %n: index) -> tensor<4x32xf16> {
  %zero = arith.constant 0.0 : f16
  %t = tts.make_tptr %p to sizes: [4, 32], strides: [%ld, 1], offsets: [0, %col0], parent_sizes: [0, 3] : !tt.ptr<f16> to tensor<4x32x!tt.ptr<f16>>
  // CHECK: %[[TWICE:.*]] = arith.cmpi sgt
  // CHECK: %[[A:.*]] = memref.alloc() : memref<4x32xf16>
  // CHECK: linalg.fill
  // CHECK-COUNT-2: linalg.copy
  // CHECK: scf.if %[[TWICE]] {
  // CHECK: linalg.generic {{.*}} outs(%[[A]] : memref<4x32xf16>)
  // CHECK: arith.remsi %{{.*}}, %c3{{.*}} : index
  // CHECK: %[[IN:.*]] = arith.andi
  // CHECK: scf.if %[[IN]] -> (f16)
  // CHECK: memref.load
  // CHECK: } {tessel.wrap_gather}
  %v = tts.load %t mask: [%n, 32] other = %zero : tensor<4x32x!tt.ptr<f16>> -> tensor<4x32xf16>
  return %v : tensor<4x32xf16>
}

// -----

// A store through rows that may wrap more than once: the second view stops at the parent's
// end (every row the tile addresses is still written); no gather.
// CHECK-LABEL: func.func @wrapped_store
func.func @wrapped_store(%p: !tt.ptr<f32>, %row0: index, %m: index, %ld: index, %v: tensor<16x8xf32>) {
  %t = tts.make_tptr %p to sizes: [16, 8], strides: [%ld, 1], offsets: [%row0, 0], parent_sizes: [%m, 0] : !tt.ptr<f32> to tensor<16x8x!tt.ptr<f32>>
  // CHECK: %[[REST:.*]] = arith.subi %c16, %{{.*}} : index
  // CHECK-NOT: arith.cmpi
  // CHECK: %[[SECOND:.*]] = arith.minsi %[[REST]], %{{.*}} : index
  // CHECK: memref.reinterpret_cast %{{.*}} sizes: [%[[SECOND]], 8]
  // CHECK-COUNT-2: bufferization.materialize_in_destination
  // CHECK-NOT: scf.if
  tts.store %t, %v : tensor<16x8x!tt.ptr<f32>>
  return
}

// -----

// A block pointer's offsets are block offsets times strides.
// CHECK-LABEL: func.func @block_pointer
func.func @block_pointer(%p: !tt.ptr<f32>, %r: index, %c: index, %m: index, %n: index, %ld: index) -> tensor<8x8xf32> {
  %t = tts.make_tptr %p to sizes: [8, 8], strides: [%ld, 1], offsets: [%r, %c], parent_sizes: [%m, %n], order: [1, 0] : !tt.ptr<f32> to !tt.ptr<tensor<8x8xf32>>
  // CHECK: %[[RS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
  // CHECK: %[[O:.*]] = arith.addi %{{.*}}, %[[RS]] : index
  // CHECK: arith.addi %[[O]], %{{.*}} : index
  // CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [8, 8], strides: [%{{.*}}, 1]
  %v = tts.load %t : !tt.ptr<tensor<8x8xf32>> -> tensor<8x8xf32>
  return %v : tensor<8x8xf32>
}
