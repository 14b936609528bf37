// A masked tl.load of a 1-D block is, after bufferization, a fill of the tile past the mask
// (`other`) and a copy of the valid prefix: a memcpy call and a second pass. The pass makes it
// one loop of vector masked loads (lanes past the valid count take the fill value) and vector
// stores into the tile; an unmasked copy of a whole block is the same loop. When the next thing
// that reads the tile is a reduction of all of it with one arith op (softmax's row max), the
// loop moves there and computes the reduction too, in vector accumulators.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-load-tiles-by-vectors | FileCheck %s

// CHECK-LABEL: func.func public @masked_row(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<?xf32, strided<[1], offset: ?>>, %[[OFF:[a-z0-9]+]]: index, %[[VALID:[a-z0-9]+]]: index)
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[BLOCK:.*]] = memref.reinterpret_cast %[[IN]]
// CHECK:         %[[TILE:.*]] = memref.alloca() : memref<256xf32>
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.copy
// CHECK:         %[[OTHER:.*]] = vector.broadcast %[[NINF]] : f32 to vector<16xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[C256]] step %[[C16]] {
// CHECK-NEXT:      %[[LEFT:.*]] = arith.subi %[[VALID]], %[[I]] : index
// CHECK-NEXT:      %[[MASK:.*]] = vector.create_mask %[[LEFT]] : vector<16xi1>
// CHECK-NEXT:      %[[V:.*]] = vector.maskedload %[[BLOCK]][%[[I]]], %[[MASK]], %[[OTHER]]
// CHECK-NEXT:      vector.store %[[V]], %[[TILE]][%[[I]]] : memref<256xf32>, vector<16xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.copy
// CHECK:         return %[[TILE]]
func.func public @masked_row(%in: memref<?xf32, strided<[1], offset: ?>>, %off: index, %valid: index) -> memref<256xf32> {
  %c256 = arith.constant 256 : index
  %ninf = arith.constant 0xFF800000 : f32
  %block = memref.reinterpret_cast %in to offset: [%off], sizes: [256], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<256xf32, strided<[1], offset: ?>>
  %tile = memref.alloca() : memref<256xf32>
  %rest_n = arith.subi %c256, %valid : index
  %rest = memref.subview %tile[%valid] [%rest_n] [1] : memref<256xf32> to memref<?xf32, strided<[1], offset: ?>>
  linalg.fill ins(%ninf : f32) outs(%rest : memref<?xf32, strided<[1], offset: ?>>)
  %src = memref.subview %block[0] [%valid] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  %dst = memref.subview %tile[0] [%valid] [1] : memref<256xf32> to memref<?xf32, strided<[1]>>
  linalg.copy ins(%src : memref<?xf32, strided<[1], offset: ?>>) outs(%dst : memref<?xf32, strided<[1]>>)
  return %tile : memref<256xf32>
}

// -----

// Softmax's row max reads the tile first: the loop goes to the reduction and keeps four
// chains of 16-lane max accumulators (from maxnumf's neutral element, NaN); the lanes are
// reduced after the loop and the accumulator's initial value joins once.
// CHECK-LABEL: func.func public @row_max(
// CHECK-SAME:    %[[BLOCK:[a-z0-9]+]]: memref<256xf32, strided<[1], offset: ?>>, %[[VALID:[a-z0-9]+]]: index)
// CHECK:         %[[TILE:.*]] = memref.alloca() : memref<256xf32>
// CHECK:         %[[ACC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<f32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<f32>)
// CHECK-NOT:     linalg.copy
// CHECK:         %[[NAN:.*]] = arith.constant 0xFFC00000 : f32
// CHECK:         %[[START:.*]] = vector.broadcast %[[NAN]] : f32 to vector<16xf32>
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[LANES:.*]]:4 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C64]] iter_args(%[[A0:.*]] = %[[START]], %[[A1:.*]] = %[[START]], %[[A2:.*]] = %[[START]], %[[A3:.*]] = %[[START]])
// CHECK:           %[[V0:.*]] = vector.maskedload %[[BLOCK]][%[[I]]]
// CHECK:           vector.store %[[V0]], %[[TILE]][%[[I]]]
// CHECK:           %[[M0:.*]] = arith.maxnumf %[[V0]], %[[A0]] fastmath<reassoc> : vector<16xf32>
// CHECK-COUNT-3:   vector.maskedload %[[BLOCK]]
// CHECK:           scf.yield %[[M0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
// CHECK:         %[[J1:.*]] = arith.maxnumf %[[LANES]]#1, %[[LANES]]#0
// CHECK:         %[[J2:.*]] = arith.maxnumf %[[LANES]]#2, %[[J1]]
// CHECK:         %[[J3:.*]] = arith.maxnumf %[[LANES]]#3, %[[J2]]
// CHECK:         %[[R:.*]] = vector.reduction <maxnumf>, %[[J3]] : vector<16xf32> into f32
// CHECK:         %[[INIT:.*]] = memref.load %[[ACC]][] : memref<f32>
// CHECK:         %[[MAX:.*]] = arith.maxnumf %[[R]], %[[INIT]] fastmath<reassoc> : f32
// CHECK:         memref.store %[[MAX]], %[[ACC]][] : memref<f32>
// CHECK-NOT:     linalg.reduce
func.func public @row_max(%block: memref<256xf32, strided<[1], offset: ?>>, %valid: index) -> f32 {
  %c256 = arith.constant 256 : index
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0xFFC00000 : f32
  %tile = memref.alloca() : memref<256xf32>
  %rest_n = arith.subi %c256, %valid : index
  %rest = memref.subview %tile[%valid] [%rest_n] [1] : memref<256xf32> to memref<?xf32, strided<[1], offset: ?>>
  linalg.fill ins(%ninf : f32) outs(%rest : memref<?xf32, strided<[1], offset: ?>>)
  %src = memref.subview %block[0] [%valid] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  %dst = memref.subview %tile[0] [%valid] [1] : memref<256xf32> to memref<?xf32, strided<[1]>>
  linalg.copy ins(%src : memref<?xf32, strided<[1], offset: ?>>) outs(%dst : memref<?xf32, strided<[1]>>)
  %acc = memref.alloca() {alignment = 64 : i64} : memref<f32>
  linalg.fill ins(%nan : f32) outs(%acc : memref<f32>)
  linalg.reduce { arith.maxnumf {fastmath = #arith.fastmath<reassoc>} }
      ins(%tile : memref<256xf32>) outs(%acc : memref<f32>) dimensions = [0]
  %max = memref.load %acc[] : memref<f32>
  return %max : f32
}

// -----

// An unmasked load of a whole block (memref.copy of the same size): every lane valid, no fill.
// 64 i8 are one 64-byte vector.
// CHECK-LABEL: func.func public @whole_block(
// CHECK-SAME:    %[[BLOCK:[a-z0-9]+]]: memref<64xi8, strided<[1], offset: ?>>)
// CHECK:         %[[TILE:.*]] = memref.alloca() : memref<64xi8>
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK:         scf.for %[[I:.*]] =
// CHECK-NEXT:      %[[LEFT:.*]] = arith.subi %[[C64]], %[[I]] : index
// CHECK-NEXT:      %[[MASK:.*]] = vector.create_mask %[[LEFT]] : vector<64xi1>
// CHECK-NEXT:      %[[V:.*]] = vector.maskedload %[[BLOCK]][%[[I]]], %[[MASK]]
// CHECK-NEXT:      vector.store %[[V]], %[[TILE]][%[[I]]] : memref<64xi8>, vector<64xi8>
// CHECK-NOT:     memref.copy
func.func public @whole_block(%block: memref<64xi8, strided<[1], offset: ?>>) -> memref<64xi8> {
  %tile = memref.alloca() : memref<64xi8>
  memref.copy %block, %tile : memref<64xi8, strided<[1], offset: ?>> to memref<64xi8>
  return %tile : memref<64xi8>
}

// -----

// A store to memory between the load and the reduction: the loop stays at the copy and the
// reduction is left as it is.
// CHECK-LABEL: func.func public @store_in_between(
// CHECK:         scf.for
// CHECK-NOT:       iter_args
// CHECK:           vector.maskedload
// CHECK:         memref.store
// CHECK:         linalg.reduce
func.func public @store_in_between(%block: memref<256xf32, strided<[1], offset: ?>>, %valid: index,
                                   %flag: memref<i32>) -> f32 {
  %c256 = arith.constant 256 : index
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1 : i32
  %tile = memref.alloca() : memref<256xf32>
  %rest_n = arith.subi %c256, %valid : index
  %rest = memref.subview %tile[%valid] [%rest_n] [1] : memref<256xf32> to memref<?xf32, strided<[1], offset: ?>>
  linalg.fill ins(%ninf : f32) outs(%rest : memref<?xf32, strided<[1], offset: ?>>)
  %src = memref.subview %block[0] [%valid] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  %dst = memref.subview %tile[0] [%valid] [1] : memref<256xf32> to memref<?xf32, strided<[1]>>
  linalg.copy ins(%src : memref<?xf32, strided<[1], offset: ?>>) outs(%dst : memref<?xf32, strided<[1]>>)
  memref.store %one, %flag[] : memref<i32>
  %acc = memref.alloca() : memref<f32>
  linalg.reduce { arith.maxnumf } ins(%tile : memref<256xf32>) outs(%acc : memref<f32>) dimensions = [0]
  %max = memref.load %acc[] : memref<f32>
  return %max : f32
}

// -----

// Not this pattern: a strided block (vector loads need consecutive elements), a partial copy
// with the rest of the tile not filled, and a 2-D tile.
// CHECK-LABEL: func.func public @left_alone(
// CHECK-NOT:     vector.
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<256xf32, strided<[2], offset: ?>> to memref<256xf32>
// CHECK:         linalg.copy ins(%{{.*}} : memref<?xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<?xf32, strided<[1]>>)
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<4x64xf32, strided<[?, 1], offset: ?>> to memref<4x64xf32>
// CHECK-NOT:     vector.
func.func public @left_alone(%strided: memref<256xf32, strided<[2], offset: ?>>,
                             %block: memref<256xf32, strided<[1], offset: ?>>, %valid: index,
                             %rows: memref<4x64xf32, strided<[?, 1], offset: ?>>)
    -> (memref<256xf32>, memref<256xf32>, memref<4x64xf32>) {
  %t0 = memref.alloca() : memref<256xf32>
  memref.copy %strided, %t0 : memref<256xf32, strided<[2], offset: ?>> to memref<256xf32>
  %t1 = memref.alloca() : memref<256xf32>
  %src = memref.subview %block[0] [%valid] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  %dst = memref.subview %t1[0] [%valid] [1] : memref<256xf32> to memref<?xf32, strided<[1]>>
  linalg.copy ins(%src : memref<?xf32, strided<[1], offset: ?>>) outs(%dst : memref<?xf32, strided<[1]>>)
  %t2 = memref.alloca() : memref<4x64xf32>
  memref.copy %rows, %t2 : memref<4x64xf32, strided<[?, 1], offset: ?>> to memref<4x64xf32>
  return %t0, %t1, %t2 : memref<256xf32>, memref<256xf32>, memref<4x64xf32>
}
