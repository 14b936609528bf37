// A static linalg.matmul on tensors is tiled by the register tile (tile-m x tile-n x tile-k,
// each halved until it divides the matmul's bound) and each tile becomes a vector.contract
// (later rows of outer-product FMAs on vectors of tile-n elements). tile-m=0 leaves every
// matmul as it is (plain loops later); dynamic or bufferized matmuls are never tiled.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-tile-matmuls \
// RUN:   | FileCheck %s --check-prefixes=CHECK,DEFAULT
// RUN: tessel-opt %s --split-input-file --tessel-cpu-tile-matmuls='tile-m=4 tile-n=16 tile-k=8' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,FIT
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(tessel-cpu-tile-matmuls{tile-m=0})' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,OFF

// 8x16 times 16x64: the default tile (4, 64, 1) divides it; m, n, k loops around one contract.
// CHECK-LABEL:   func.func @mm_8x64x16(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: tensor<8x16xf32>, %[[B:[a-z0-9]+]]: tensor<16x64xf32>, %[[C:[a-z0-9]+]]: tensor<8x64xf32>)
// DEFAULT-DAG:     %[[C4:.*]] = arith.constant 4 : index
// DEFAULT-DAG:     %[[C64:.*]] = arith.constant 64 : index
// DEFAULT-DAG:     %[[C1:.*]] = arith.constant 1 : index
// DEFAULT:         %[[RES:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C4]] iter_args(%{{.*}} = %[[C]])
// DEFAULT:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C64]]
// DEFAULT:             scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[C1]]
// DEFAULT:               tensor.extract_slice %[[A]][%[[I]], %[[K]]] [4, 1] [1, 1]
// DEFAULT:               tensor.extract_slice %[[B]][%[[K]], %[[J]]] [1, 64] [1, 1]
// DEFAULT:               vector.transfer_read
// DEFAULT:               vector.contract {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>
// DEFAULT:               vector.transfer_write
// DEFAULT:               tensor.insert_slice
// DEFAULT-NOT:     linalg.matmul
// DEFAULT:         return %[[RES]]
// FIT:             vector.contract {{.*}} : vector<4x8xf32>, vector<8x16xf32> into vector<4x16xf32>
// FIT-NOT:         linalg.matmul
// OFF-NOT:         scf.for
// OFF-NOT:         vector.contract
// OFF:             %[[RES:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<8x16xf32>, tensor<16x64xf32>) outs(%[[C]] : tensor<8x64xf32>)
// OFF:             return %[[RES]]
func.func @mm_8x64x16(%a: tensor<8x16xf32>, %b: tensor<16x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// 6x12 times 12x24: no tile dimension divides its bound, each is halved until it does
// (default: 4 -> 2, 64 -> 8; tile-m=4 tile-n=16 tile-k=8: 2, 8, 4).
// CHECK-LABEL:   func.func @mm_6x24x12(
// DEFAULT:         vector.contract {{.*}} : vector<2x1xf32>, vector<1x8xf32> into vector<2x8xf32>
// FIT:             vector.contract {{.*}} : vector<2x4xf32>, vector<4x8xf32> into vector<2x8xf32>
// OFF:             linalg.matmul
// OFF-NOT:         vector.contract
func.func @mm_6x24x12(%a: tensor<6x12xf32>, %b: tensor<12x24xf32>, %c: tensor<6x24xf32>) -> tensor<6x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<6x12xf32>, tensor<12x24xf32>) outs(%c : tensor<6x24xf32>) -> tensor<6x24xf32>
  return %r : tensor<6x24xf32>
}

// -----

// A dynamic bound, or a matmul already on buffers: left for the loop lowering.
// CHECK-LABEL:   func.func @mm_dynamic(
// CHECK-NOT:       scf.for
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<16x64xf32>)
// CHECK-LABEL:   func.func @mm_on_buffers(
// CHECK-NOT:       scf.for
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xf32>, memref<16x64xf32>)
// CHECK-NOT:       vector.contract
func.func @mm_dynamic(%a: tensor<?x16xf32>, %b: tensor<16x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
func.func @mm_on_buffers(%a: memref<8x16xf32>, %b: memref<16x64xf32>, %c: memref<8x64xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x64xf32>) outs(%c : memref<8x64xf32>)
  return
}
