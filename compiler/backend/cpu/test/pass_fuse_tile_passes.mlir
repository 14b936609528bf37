// Two rewrites that save whole passes over a tile before bufferization:
// - an elementwise linalg.generic and the linalg.reduce of its result become one generic with
//   a reduction loop (softmax's exp and its row sum in one loop); the elementwise tile is a
//   result only if something else reads it;
// - an elementwise result only stored (bufferization.materialize_in_destination, perhaps of a
//   masked extract_slice) is computed straight into the destination memref, on slices of its
//   inputs, instead of into a tile buffer copied out afterwards.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-fuse-tile-passes | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// Softmax's row: exp and its sum fused (the exp tile is still read by the scaling), and the
// scaling written into the output row.
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[TO_SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func public @softmax_row(
// CHECK-SAME:    %[[ROW:[a-z0-9]+]]: tensor<256xf32>, %[[MAX:[a-z0-9]+]]: f32, %[[OUT:[a-z0-9]+]]: memref<256xf32, strided<[1], offset: ?>>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<256xf32>
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK-NOT:     linalg.reduce
// CHECK:         %[[EXP_SUM:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[TO_SCALAR]]], iterator_types = ["reduction"]}
// CHECK-SAME:        ins(%[[ROW]] : tensor<256xf32>) outs(%[[EMPTY]], %[[ZERO]] : tensor<256xf32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[IN]], %[[MAX]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[E]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[E]], %[[S]] : f32, f32
// CHECK:         tensor.extract %[[EXP_SUM]]#1[] : tensor<f32>
// CHECK:         %[[DEST:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         %[[SCALED:.*]] = linalg.generic {{.*}} ins(%[[EXP_SUM]]#0 : tensor<256xf32>) outs(%[[DEST]] : tensor<256xf32>)
// CHECK:           arith.mulf
// CHECK:         bufferization.materialize_in_destination %[[SCALED]] in writable %[[OUT]]
func.func public @softmax_row(%row: tensor<256xf32>, %max: f32, %out: memref<256xf32, strided<[1], offset: ?>>) {
  %neg_zero = arith.constant -0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %empty = tensor.empty() : tensor<256xf32>
  %scalar = tensor.empty() : tensor<f32>
  %zero = linalg.fill ins(%neg_zero : f32) outs(%scalar : tensor<f32>) -> tensor<f32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%row : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %d = arith.subf %in, %max : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<256xf32>
  %sum = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} }
      ins(%exp : tensor<256xf32>) outs(%zero : tensor<f32>) dimensions = [0]
  %s = tensor.extract %sum[] : tensor<f32>
  %inv = arith.divf %one, %s : f32
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%exp : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  bufferization.materialize_in_destination %scaled in writable %out
      : (tensor<256xf32>, memref<256xf32, strided<[1], offset: ?>>) -> ()
  return
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Row sums of squares (tl.sum(x * x, axis=1)): the squares are read by nothing else, so the
// fused op has the sums alone and the reduced dimension (1) becomes a reduction loop.
// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @sum_of_squares(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x64xf32>, %[[ACC:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT:     linalg.reduce
// CHECK:         %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]] : tensor<4x64xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[SQ]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[SUMS]]
func.func @sum_of_squares(%x: tensor<4x64xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %empty = tensor.empty() : tensor<4x64xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%empty : tensor<4x64xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x64xf32>) outs(%acc : tensor<4xf32>) dimensions = [1]
  return %sum : tensor<4xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A masked store (the valid rows x cols of the tile): the generic runs on the same slice of
// each input, through the input's map (the bias is sliced along the columns only).
// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[COLS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func public @masked_store(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x64xf32>, %[[BIAS:[a-z0-9]+]]: tensor<64xf32>, %[[ROWS:[a-z0-9]+]]: index, %[[COLS_N:[a-z0-9]+]]: index, %[[OUT:[a-z0-9]+]]: memref<?x?xf32, strided<[?, 1], offset: ?>>)
// CHECK:         %[[DEST:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<?x?xf32, strided<[?, 1], offset: ?>> to tensor<?x?xf32>
// CHECK:         %[[X_VALID:.*]] = tensor.extract_slice %[[X]][0, 0] [%[[ROWS]], %[[COLS_N]]] [1, 1] : tensor<4x64xf32> to tensor<?x?xf32>
// CHECK:         %[[BIAS_VALID:.*]] = tensor.extract_slice %[[BIAS]][0] [%[[COLS_N]]] [1] : tensor<64xf32> to tensor<?xf32>
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COLS]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X_VALID]], %[[BIAS_VALID]] : tensor<?x?xf32>, tensor<?xf32>) outs(%[[DEST]] : tensor<?x?xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     tensor.extract_slice
// CHECK:         bufferization.materialize_in_destination %[[Y]] in writable %[[OUT]]
func.func public @masked_store(%x: tensor<4x64xf32>, %bias: tensor<64xf32>, %rows: index, %cols: index,
                               %out: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  %empty = tensor.empty() : tensor<4x64xf32>
  %y = linalg.generic {indexing_maps = [#id2, #cols, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<4x64xf32>, tensor<64xf32>) outs(%empty : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %unused: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x64xf32>
  %valid = tensor.extract_slice %y[0, 0] [%rows, %cols] [1, 1] : tensor<4x64xf32> to tensor<?x?xf32>
  bufferization.materialize_in_destination %valid in writable %out
      : (tensor<?x?xf32>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> ()
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Left as they are: a producer that reads its output (not elementwise), a producer read before
// the reduction (the fused op would come after that reader), a stored result that something
// else reads too, and a rank-reducing slice.
// CHECK-LABEL: func.func @not_fused(
// CHECK:         %[[ACCUM:.*]] = linalg.generic
// CHECK:         linalg.reduce { arith.addf } ins(%[[ACCUM]] : tensor<256xf32>)
// CHECK:         %[[EXP:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         tensor.extract %[[EXP]][%{{.*}}]
// CHECK:         linalg.reduce { arith.addf } ins(%[[EXP]] : tensor<256xf32>)
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         bufferization.materialize_in_destination %[[EXP]] in writable
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         %[[NEG:.*]] = linalg.generic
// CHECK:         %[[ROW:.*]] = tensor.extract_slice %[[NEG]][0, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
// CHECK:         bufferization.materialize_in_destination %[[ROW]] in writable
func.func @not_fused(%x: tensor<256xf32>, %init: tensor<256xf32>, %acc: tensor<f32>, %i: index,
                     %out: memref<256xf32>, %m: tensor<4x64xf32>, %row_out: memref<64xf32>)
    -> (tensor<f32>, tensor<f32>, f32) {
  %empty = tensor.empty() : tensor<256xf32>
  %accum = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: f32, %prev: f32):
    %s = arith.addf %in, %prev : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %sum0 = linalg.reduce { arith.addf } ins(%accum : tensor<256xf32>) outs(%acc : tensor<f32>) dimensions = [0]
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<256xf32>
  %first = tensor.extract %exp[%i] : tensor<256xf32>
  %sum1 = linalg.reduce { arith.addf } ins(%exp : tensor<256xf32>) outs(%acc : tensor<f32>) dimensions = [0]
  bufferization.materialize_in_destination %exp in writable %out : (tensor<256xf32>, memref<256xf32>) -> ()
  %empty2 = tensor.empty() : tensor<4x64xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x64xf32>) outs(%empty2 : tensor<4x64xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x64xf32>
  %row = tensor.extract_slice %neg[0, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
  bufferization.materialize_in_destination %row in writable %row_out : (tensor<64xf32>, memref<64xf32>) -> ()
  return %sum0, %sum1, %first : tensor<f32>, tensor<f32>, f32
}

// -----

// A producer that reads no input (tl.arange broadcast to 3-D and summed over its last axis,
// after elementwise fusion folded the broadcast into linalg.index): fused, the reduction's
// loop d2 would be named by no operand map (non-invertible maps, a verifier error); the
// producer and the reduction stay apart.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func public @index_broadcast_reduce(
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         linalg.index 1
// CHECK:         linalg.reduce
func.func public @index_broadcast_reduce() -> tensor<2x8xi32> {
  %c0 = arith.constant 0 : i32
  %e3 = tensor.empty() : tensor<2x8x2xi32>
  %b = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e3 : tensor<2x8x2xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 1 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  } -> tensor<2x8x2xi32>
  %e2 = tensor.empty() : tensor<2x8xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e2 : tensor<2x8xi32>) -> tensor<2x8xi32>
  %r = linalg.reduce { arith.addi } ins(%b : tensor<2x8x2xi32>) outs(%z : tensor<2x8xi32>) dimensions = [2]
  return %r : tensor<2x8xi32>
}
