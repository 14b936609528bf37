// Static all-parallel linalg ops on tensors (elementwise generics, fills) are tiled to
// unroll x vector-width along their two innermost loops and the tiles vectorized, so that the
// vector width is tessel's choice rather than LLVM's. vector-width=0 (the default) leaves them
// to LLVM's loop vectorizer; boolean operands, gathers, reductions, dynamic shapes and bounds
// too narrow for a 4-lane vector stay scalar.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-vectorize-elementwise='vector-width=16 unroll=2' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,VEC
// RUN: tessel-opt %s --split-input-file --tessel-cpu-vectorize-elementwise='vector-width=16' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,ROW
// RUN: tessel-opt %s --split-input-file --tessel-cpu-vectorize-elementwise \
// RUN:   | FileCheck %s --check-prefixes=CHECK,OFF

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// 2-D: rows by `unroll` (1 by default), columns by the vector width.
// CHECK-LABEL: func.func @exp_rows(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x64xf32>)
// VEC-DAG:       %[[C2:.*]] = arith.constant 2 : index
// VEC-DAG:       %[[C16:.*]] = arith.constant 16 : index
// VEC:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C2]]
// VEC:             scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C16]]
// VEC:               %[[IN:.*]] = tensor.extract_slice %[[X]][%[[I]], %[[J]]] [2, 16] [1, 1]
// VEC:               %[[V:.*]] = vector.transfer_read %[[IN]]
// VEC:               %[[EXP:.*]] = math.exp %[[V]] : vector<2x16xf32>
// VEC:               vector.transfer_write %[[EXP]]
// VEC:               tensor.insert_slice
// VEC-NOT:       linalg.generic
// ROW:           math.exp %{{.*}} : vector<1x16xf32>
// ROW-NOT:       linalg.generic
// OFF-NOT:       scf.for
// OFF:           linalg.generic
// OFF:             math.exp %{{.*}} : f32
// OFF-NOT:       vector.
func.func @exp_rows(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %empty = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%empty : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// 1-D: a splat (linalg.fill) and a subtraction, each a loop of 16-wide vectors (unroll only
// applies to a second loop).
// CHECK-LABEL: func.func @sub_splat(
// VEC:           scf.for
// VEC:             vector.broadcast %{{.*}} : f32 to vector<16xf32>
// VEC:           scf.for
// VEC:             arith.subf %{{.*}}, %{{.*}} : vector<16xf32>
// VEC-NOT:       linalg.
// ROW:           vector.broadcast %{{.*}} : f32 to vector<16xf32>
// ROW:           arith.subf %{{.*}}, %{{.*}} : vector<16xf32>
// OFF:           linalg.fill
// OFF:           linalg.generic
// OFF-NOT:       vector.
func.func @sub_splat(%x: tensor<256xf32>, %m: f32) -> tensor<256xf32> {
  %empty = tensor.empty() : tensor<256xf32>
  %splat = linalg.fill ins(%m : f32) outs(%empty : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%x, %splat : tensor<256xf32>, tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// Left scalar at any width: a select on an i1 mask (i1 vectors are bit-packed in memory), a
// gather (tensor.extract in the body), a reduction, a bound of 6 (the width halves to 2, too
// narrow) and a dynamic bound.
// CHECK-LABEL: func.func @left_scalar(
// CHECK-NOT:     scf.for
// CHECK-NOT:     vector.
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<256xi1>, tensor<256xf32>, tensor<256xf32>)
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<256xindex>)
// CHECK:           tensor.extract
// CHECK:         linalg.reduce
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<6xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?xf32>)
// CHECK-NOT:     vector.
func.func @left_scalar(%mask: tensor<256xi1>, %x: tensor<256xf32>, %y: tensor<256xf32>,
                       %offsets: tensor<256xindex>, %short: tensor<6xf32>, %dyn: tensor<?xf32>)
    -> (tensor<256xf32>, tensor<256xf32>, tensor<f32>, tensor<6xf32>, tensor<?xf32>) {
  %empty = tensor.empty() : tensor<256xf32>
  %sel = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%mask, %x, %y : tensor<256xi1>, tensor<256xf32>, tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%c: i1, %a: f32, %b: f32, %out: f32):
    %v = arith.select %c, %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %gather = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%offsets : tensor<256xindex>) outs(%empty : tensor<256xf32>) {
  ^bb0(%i: index, %out: f32):
    %v = tensor.extract %x[%i] : tensor<256xf32>
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %zero = tensor.empty() : tensor<f32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<256xf32>) outs(%zero : tensor<f32>) dimensions = [0]
  %empty6 = tensor.empty() : tensor<6xf32>
  %neg6 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%short : tensor<6xf32>) outs(%empty6 : tensor<6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<6xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %dyn, %c0 : tensor<?xf32>
  %emptyn = tensor.empty(%n) : tensor<?xf32>
  %negn = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%dyn : tensor<?xf32>) outs(%emptyn : tensor<?xf32>) {
  ^bb0(%a: f32, %out: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %sel, %gather, %sum, %neg6, %negn : tensor<256xf32>, tensor<256xf32>, tensor<f32>, tensor<6xf32>, tensor<?xf32>
}
