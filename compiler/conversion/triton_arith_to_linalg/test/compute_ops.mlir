// RUN: tessel-opt %s --triton-arith-to-linalg -split-input-file | FileCheck %s

// A constant-splat accumulator becomes a fill; mixed precision stays in linalg.matmul.
// CHECK-LABEL: func.func @dot_zero_acc
tt.func @dot_zero_acc(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>) -> tensor<32x64xf32> {
  %zero = arith.constant dense<0.000000e+00> : tensor<32x64xf32>
  // CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32x64xf32>)
  // CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<16x64xf16>) outs(%[[F]] : tensor<32x64xf32>)
  // CHECK-NOT: tessel.tf32
  %d = tt.dot %a, %b, %zero, inputPrecision = tf32 : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  tt.return %d : tensor<32x64xf32>
}

// -----

// An accumulator from a loop is accumulated into directly. f32 operands with the default
// (ieee) precision: full f32, no tf32 mark.
// CHECK-LABEL: func.func @dot_acc
// CHECK-SAME: %[[C:[^:]*]]: tensor<32x64xf32>
tt.func @dot_acc(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  // CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>) outs(%[[C]] : tensor<32x64xf32>)
  %d = tt.dot %a, %b, %c : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
  tt.return %d : tensor<32x64xf32>
}

// -----

// f32 operands a dot allows as tf32 mark their matmul; tf32x3 (f32 accuracy) does not.
// CHECK-LABEL: func.func @dot_tf32
// CHECK: linalg.matmul {tessel.tf32} ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>)
// CHECK-NOT: tessel.tf32
// CHECK: return
tt.func @dot_tf32(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
  %e = tt.dot %a, %b, %d, inputPrecision = tf32x3 : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
  tt.return %e : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: func.func @batched_dot
tt.func @batched_dot(%a: tensor<2x8x4xf32>, %b: tensor<2x4x8xf32>, %c: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  // CHECK: linalg.batch_matmul
  %d = tt.dot %a, %b, %c : tensor<2x8x4xf32> * tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  tt.return %d : tensor<2x8x8xf32>
}

// -----

// Reduction along axis 1 with a known neutral element (-0.0 for addf): the accumulators
// start filled with it and the whole row is reduced.
// CHECK-LABEL: func.func @row_sum
tt.func @row_sum(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  // CHECK: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8xf32>)
  // Reductions may be reordered (Triton leaves their order unspecified): reassoc.
  // CHECK: linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%{{.*}} : tensor<8x16xf32>) outs(%[[INIT]] : tensor<8xf32>) dimensions = [1]
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<8x16xf32>) -> tensor<8xf32>
  tt.return %0 : tensor<8xf32>
}

// -----

// Reduction along axis 0 of a 2-D tile; maxnumf's neutral element is NaN.
// CHECK-LABEL: func.func @col_max
tt.func @col_max(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  // CHECK: %[[NAN:.*]] = arith.constant 0x{{7|F}}FC00000 : f32
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NAN]] : f32) outs(%{{.*}} : tensor<16xf32>)
  // CHECK: linalg.reduce { arith.maxnumf {fastmath = #arith.fastmath<reassoc>} } ins(%{{.*}} : tensor<8x16xf32>) outs(%[[INIT]] : tensor<16xf32>) dimensions = [0]
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tt.reduce.return %m : f32
  }) : (tensor<8x16xf32>) -> tensor<16xf32>
  tt.return %0 : tensor<16xf32>
}

// -----

// A combine region without a known neutral element (sum of absolute values): the first
// column initializes the accumulators and the rest is reduced into them.
// CHECK-LABEL: func.func @row_abs_sum
tt.func @row_abs_sum(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  // CHECK: %[[INIT:.*]] = tensor.extract_slice %{{.*}}[0, 0] [8, 1] [1, 1] : tensor<8x16xf32> to tensor<8xf32>
  // CHECK: %[[REST:.*]] = tensor.extract_slice %{{.*}}[0, 1] [8, 15] [1, 1] : tensor<8x16xf32> to tensor<8x15xf32>
  // CHECK: linalg.reduce ins(%[[REST]] : tensor<8x15xf32>) outs(%[[INIT]] : tensor<8xf32>) dimensions = [1]
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %ab = math.absf %b : f32
    %s = arith.addf %a, %ab : f32
    tt.reduce.return %s : f32
  }) : (tensor<8x16xf32>) -> tensor<8xf32>
  tt.return %0 : tensor<8xf32>
}

// -----

// Argmax: values and indices reduced together with the region inlined; a 1-D reduction
// yields scalars.
// CHECK-LABEL: func.func @argmax
tt.func @argmax(%x: tensor<16xf32>, %i: tensor<16xi32>) -> i32 {
  // CHECK: %[[R:.*]]:2 = linalg.reduce ins(%{{.*}}, %{{.*}} : tensor<15xf32>, tensor<15xi32>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<i32>) dimensions = [0]
  // CHECK: (%[[IN_V:.*]]: f32, %[[IN_I:.*]]: i32, %[[ACC_V:.*]]: f32, %[[ACC_I:.*]]: i32)
  // CHECK: arith.cmpf ogt, %[[ACC_V]], %[[IN_V]] fastmath<reassoc> : f32
  // CHECK: linalg.yield
  // CHECK: tensor.extract %[[R]]#1[] : tensor<i32>
  %0:2 = "tt.reduce"(%x, %i) <{axis = 0 : i32}> ({
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %v = arith.select %gt, %va, %vb : f32
    %ix = arith.select %gt, %ia, %ib : i32
    tt.reduce.return %v, %ix : f32, i32
  }) : (tensor<16xf32>, tensor<16xi32>) -> (f32, i32)
  tt.return %0#1 : i32
}

// -----

// Cumulative sum: a loop carrying the running value.
// CHECK-LABEL: func.func @cumsum
tt.func @cumsum(%x: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: %[[FIRST:.*]] = tensor.extract %{{.*}}[%c0] : tensor<16xf32>
  // CHECK: scf.for %[[I:.*]] = %c1 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[FIRST]], %[[OUT:.*]] = %{{.*}}) -> (f32, tensor<16xf32>)
  // CHECK: %[[X:.*]] = tensor.extract %{{.*}}[%[[I]]]
  // CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
  // CHECK: tensor.insert %[[S]] into %[[OUT]][%[[I]]]
  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<16xf32>) -> tensor<16xf32>
  tt.return %0 : tensor<16xf32>
}

// -----

// A reverse scan along axis 1 of a 2-D tile loops over the rows.
// CHECK-LABEL: func.func @reverse_scan_rows
tt.func @reverse_scan_rows(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: scf.for %[[ROW:.*]] = %c0 to %c4
  // CHECK: tensor.extract %{{.*}}[%[[ROW]], %c7]
  // CHECK: scf.for
  // CHECK: arith.subi %c7, %{{.*}} : index
  // CHECK: arith.mulf
  %0 = "tt.scan"(%x) <{axis = 1 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    tt.scan.return %m : f32
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  tt.return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @histogram
tt.func @histogram(%v: tensor<128xi32>, %m: tensor<128xi1>) -> tensor<16xi32> {
  // CHECK: linalg.fill ins(%c0_i32 : i32) outs(%{{.*}} : tensor<16xi32>)
  // CHECK: scf.for
  // CHECK: arith.cmpi sge
  // CHECK: arith.cmpi slt
  // CHECK: scf.if
  // CHECK: arith.addi %{{.*}}, %c1_i32
  %0 = tt.histogram %v, %m : tensor<128xi32> -> tensor<16xi32>
  tt.return %0 : tensor<16xi32>
}

// -----

// CHECK-LABEL: func.func @gather
tt.func @gather(%src: tensor<4x8xf32>, %idx: tensor<4x3xi32>) -> tensor<4x3xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[I:.*]] = linalg.index 0 : index
  // CHECK: %[[J:.*]] = arith.index_cast %{{.*}} : i32 to index
  // CHECK: tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<4x8xf32>
  %0 = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  tt.return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @assert
tt.func @assert(%c: tensor<16xi1>) {
  // CHECK: linalg.reduce ins(%{{.*}} : tensor<16xi1>) outs(%{{.*}} : tensor<i1>) dimensions = [0]
  // CHECK: arith.andi
  // CHECK: cf.assert %{{.*}}, "values must be positive"
  tt.assert %c, "values must be positive" : tensor<16xi1>
  tt.return
}

// -----

// Division by a splat or a broadcast (f32 `/` is Triton's approximate division): one
// reciprocal of the small operand, then multiplications.
// CHECK-LABEL: func.func @divide_rows
tt.func @divide_rows(%x: tensor<4x8xf32>, %s: f32, %r: tensor<4x1xf32>) -> tensor<4x8xf32> {
  // CHECK: arith.divf %{{.*}}, %{{.*}} : f32
  // CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x1xf32>)
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: arith.divf
  // CHECK-NOT: arith.divf
  // CHECK: arith.mulf
  %sp = tt.splat %s : f32 -> tensor<4x8xf32>
  %a = arith.divf %x, %sp : tensor<4x8xf32>
  %b = tt.broadcast %r : tensor<4x1xf32> -> tensor<4x8xf32>
  %c = arith.divf %a, %b : tensor<4x8xf32>
  tt.return %c : tensor<4x8xf32>
}

// -----

// f64 division and IEEE division (tt.precise_divf) keep dividing element by element.
// CHECK-LABEL: func.func @divide_exact
tt.func @divide_exact(%x: tensor<8xf64>, %s: f64) -> tensor<8xf64> {
  // CHECK: linalg.generic
  // CHECK: arith.divf %{{.*}}, %{{.*}} : f64
  %sp = tt.splat %s : f64 -> tensor<8xf64>
  %a = arith.divf %x, %sp : tensor<8xf64>
  tt.return %a : tensor<8xf64>
}
