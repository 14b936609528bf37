// A reduction of several operands over a 1-D tensor (argmax: a value and its index) has no
// neutral element, so the structured lowering reduces it element after element, a chain LLVM
// cannot vectorize. The pass splits it: the first V elements (V = 512 bits of the widest
// operand) start V lane accumulators, the next rows of V are reduced into them column by
// column (a 2-D reduce over dimension 0, which LLVM vectorizes across lanes), then the lanes
// and what is left after the last full row are reduced into the original initial values.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-reduce-by-lanes | FileCheck %s

// 511 = 16 + 30 x 16 + 15 (f32 and i32: 16 lanes).
// CHECK-LABEL: func.func @argmax_511(
// CHECK-SAME:    %[[VALS:[a-z0-9]+]]: tensor<511xf32>, %[[IDXS:[a-z0-9]+]]: tensor<511xi32>, %[[V0:[a-z0-9]+]]: tensor<f32>, %[[I0:[a-z0-9]+]]: tensor<i32>)
// CHECK-DAG:     %[[LANE_V:.*]] = tensor.extract_slice %[[VALS]][0] [16] [1] : tensor<511xf32> to tensor<16xf32>
// CHECK-DAG:     %[[LANE_I:.*]] = tensor.extract_slice %[[IDXS]][0] [16] [1] : tensor<511xi32> to tensor<16xi32>
// CHECK-DAG:     %[[BODY_V:.*]] = tensor.extract_slice %[[VALS]][16] [480] [1] : tensor<511xf32> to tensor<480xf32>
// CHECK-DAG:     %[[BODY_I:.*]] = tensor.extract_slice %[[IDXS]][16] [480] [1] : tensor<511xi32> to tensor<480xi32>
// CHECK-DAG:     %[[ROWS_V:.*]] = tensor.expand_shape %[[BODY_V]] {{\[\[}}0, 1]] output_shape [30, 16] : tensor<480xf32> into tensor<30x16xf32>
// CHECK-DAG:     %[[ROWS_I:.*]] = tensor.expand_shape %[[BODY_I]] {{\[\[}}0, 1]] output_shape [30, 16] : tensor<480xi32> into tensor<30x16xi32>
// CHECK:         %[[LANES:.*]]:2 = linalg.reduce ins(%[[ROWS_V]], %[[ROWS_I]] : tensor<30x16xf32>, tensor<30x16xi32>) outs(%[[LANE_V]], %[[LANE_I]] : tensor<16xf32>, tensor<16xi32>) dimensions = [0]
// CHECK:             arith.cmpf ogt
// CHECK:             linalg.yield
// CHECK:         %[[JOINED:.*]]:2 = linalg.reduce ins(%[[LANES]]#0, %[[LANES]]#1 : tensor<16xf32>, tensor<16xi32>) outs(%[[V0]], %[[I0]] : tensor<f32>, tensor<i32>) dimensions = [0]
// CHECK:             arith.cmpf ogt
// CHECK-DAG:     %[[TAIL_V:.*]] = tensor.extract_slice %[[VALS]][496] [15] [1] : tensor<511xf32> to tensor<15xf32>
// CHECK-DAG:     %[[TAIL_I:.*]] = tensor.extract_slice %[[IDXS]][496] [15] [1] : tensor<511xi32> to tensor<15xi32>
// CHECK:         %[[RESULT:.*]]:2 = linalg.reduce ins(%[[TAIL_V]], %[[TAIL_I]] : tensor<15xf32>, tensor<15xi32>) outs(%[[JOINED]]#0, %[[JOINED]]#1 : tensor<f32>, tensor<i32>) dimensions = [0]
// CHECK:             arith.cmpf ogt
// CHECK:         return %[[RESULT]]#0, %[[RESULT]]#1
func.func @argmax_511(%vals: tensor<511xf32>, %idxs: tensor<511xi32>, %v0: tensor<f32>, %i0: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %r:2 = linalg.reduce ins(%vals, %idxs : tensor<511xf32>, tensor<511xi32>) outs(%v0, %i0 : tensor<f32>, tensor<i32>) dimensions = [0]
    (%in: f32, %in_idx: i32, %acc: f32, %acc_idx: i32) {
      %eq = arith.cmpf oeq, %acc, %in : f32
      %lower = arith.cmpi slt, %acc_idx, %in_idx : i32
      %tie = arith.andi %eq, %lower : i1
      %gt = arith.cmpf ogt, %acc, %in : f32
      %keep = arith.ori %gt, %tie : i1
      %v = arith.select %keep, %acc, %in : f32
      %i = arith.select %keep, %acc_idx, %in_idx : i32
      linalg.yield %v, %i : f32, i32
    }
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}

// -----

// 64-bit operands: 8 lanes; 64 = 8 + 7 x 8, no tail reduction.
// CHECK-LABEL: func.func @argmin_f64_64(
// CHECK:         tensor.expand_shape %{{.*}} output_shape [7, 8] : tensor<56xf64> into tensor<7x8xf64>
// CHECK:         tensor.expand_shape %{{.*}} output_shape [7, 8] : tensor<56xi64> into tensor<7x8xi64>
// CHECK:         %[[LANES:.*]]:2 = linalg.reduce ins(%{{.*}}, %{{.*}} : tensor<7x8xf64>, tensor<7x8xi64>) outs(%{{.*}}, %{{.*}} : tensor<8xf64>, tensor<8xi64>) dimensions = [0]
// CHECK:         %[[RESULT:.*]]:2 = linalg.reduce ins(%[[LANES]]#0, %[[LANES]]#1 : tensor<8xf64>, tensor<8xi64>)
// CHECK-NOT:     linalg.reduce
// CHECK:         return %[[RESULT]]#0, %[[RESULT]]#1
func.func @argmin_f64_64(%vals: tensor<64xf64>, %idxs: tensor<64xi64>, %v0: tensor<f64>, %i0: tensor<i64>) -> (tensor<f64>, tensor<i64>) {
  %r:2 = linalg.reduce ins(%vals, %idxs : tensor<64xf64>, tensor<64xi64>) outs(%v0, %i0 : tensor<f64>, tensor<i64>) dimensions = [0]
    (%in: f64, %in_idx: i64, %acc: f64, %acc_idx: i64) {
      %lt = arith.cmpf olt, %acc, %in : f64
      %v = arith.select %lt, %acc, %in : f64
      %i = arith.select %lt, %acc_idx, %in_idx : i64
      linalg.yield %v, %i : f64, i64
    }
  return %r#0, %r#1 : tensor<f64>, tensor<i64>
}

// -----

// Left alone: a one-operand reduction (it has a neutral element and vectorizes as it is), a
// row shorter than two sets of lanes (31 f32), and a reduction over a 2-D tensor.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     tensor.extract_slice
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.reduce { arith.addf } ins(%{{.*}} : tensor<512xf32>)
// CHECK:         linalg.reduce ins(%{{.*}}, %{{.*}} : tensor<31xf32>, tensor<31xi32>)
// CHECK:         linalg.reduce ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<4x64xi32>)
// CHECK-NOT:     tensor.extract_slice
// CHECK-NOT:     tensor.expand_shape
func.func @left_alone(%x: tensor<512xf32>, %acc: tensor<f32>,
                      %short: tensor<31xf32>, %short_idx: tensor<31xi32>, %v0: tensor<f32>, %i0: tensor<i32>,
                      %rows: tensor<4x64xf32>, %rows_idx: tensor<4x64xi32>, %rv0: tensor<4xf32>, %ri0: tensor<4xi32>)
    -> (tensor<f32>, tensor<f32>, tensor<i32>, tensor<4xf32>, tensor<4xi32>) {
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<512xf32>) outs(%acc : tensor<f32>) dimensions = [0]
  %s:2 = linalg.reduce ins(%short, %short_idx : tensor<31xf32>, tensor<31xi32>) outs(%v0, %i0 : tensor<f32>, tensor<i32>) dimensions = [0]
    (%in: f32, %in_idx: i32, %a: f32, %a_idx: i32) {
      %gt = arith.cmpf ogt, %a, %in : f32
      %v = arith.select %gt, %a, %in : f32
      %i = arith.select %gt, %a_idx, %in_idx : i32
      linalg.yield %v, %i : f32, i32
    }
  %r:2 = linalg.reduce ins(%rows, %rows_idx : tensor<4x64xf32>, tensor<4x64xi32>) outs(%rv0, %ri0 : tensor<4xf32>, tensor<4xi32>) dimensions = [1]
    (%in: f32, %in_idx: i32, %a: f32, %a_idx: i32) {
      %gt = arith.cmpf ogt, %a, %in : f32
      %v = arith.select %gt, %a, %in : f32
      %i = arith.select %gt, %a_idx, %in_idx : i32
      linalg.yield %v, %i : f32, i32
    }
  return %sum, %s#0, %s#1, %r#0, %r#1 : tensor<f32>, tensor<f32>, tensor<i32>, tensor<4xf32>, tensor<4xi32>
}
