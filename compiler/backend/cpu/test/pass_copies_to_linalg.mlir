// memref.copy lowers to a call into MLIR's C runner library (memrefCopy), which tessel's shared
// objects must not depend on: every memref.copy becomes a linalg.copy of the same operands
// (plain loops after convert-linalg-to-loops), wherever it is.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-copies-to-linalg | FileCheck %s

// CHECK-LABEL: func.func public @store_row(
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?xf32, strided<[1], offset: ?>>, %[[TILE:[a-z0-9]+]]: memref<256xf32>, %[[N:[a-z0-9]+]]: index)
// CHECK:         %[[SRC:.*]] = memref.subview %[[TILE]][0] [%[[N]]] [1]
// CHECK:         %[[DST:.*]] = memref.subview %[[OUT]][0] [%[[N]]] [1]
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%[[SRC]] : memref<?xf32, strided<[1]>>) outs(%[[DST]] : memref<?xf32, strided<[1], offset: ?>>)
// CHECK:         scf.for
// CHECK:           %[[PIECE:.*]] = memref.subview %[[TILE]]
// CHECK-NEXT:      linalg.copy ins(%[[PIECE]] : memref<16xf32, strided<[1], offset: ?>>) outs(%[[PIECE]] : memref<16xf32, strided<[1], offset: ?>>)
// CHECK-NOT:     memref.copy
func.func public @store_row(%out: memref<?xf32, strided<[1], offset: ?>>, %tile: memref<256xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %src = memref.subview %tile[0] [%n] [1] : memref<256xf32> to memref<?xf32, strided<[1]>>
  %dst = memref.subview %out[0] [%n] [1] : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  memref.copy %src, %dst : memref<?xf32, strided<[1]>> to memref<?xf32, strided<[1], offset: ?>>
  // The self-copies bufferization leaves behind in vectorized loops are converted too.
  scf.for %i = %c0 to %c256 step %c16 {
    %piece = memref.subview %tile[%i] [16] [1] : memref<256xf32> to memref<16xf32, strided<[1], offset: ?>>
    memref.copy %piece, %piece : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A linalg.copy (or any other op) is left as it is.
// CHECK-LABEL: func.func @already_linalg(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<4x8xi32>, %[[B:[a-z0-9]+]]: memref<4x8xi32>)
// CHECK-NEXT:    linalg.copy ins(%[[A]] : memref<4x8xi32>) outs(%[[B]] : memref<4x8xi32>)
// CHECK-NEXT:    return
func.func @already_linalg(%a: memref<4x8xi32>, %b: memref<4x8xi32>) {
  linalg.copy ins(%a : memref<4x8xi32>) outs(%b : memref<4x8xi32>)
  return
}
