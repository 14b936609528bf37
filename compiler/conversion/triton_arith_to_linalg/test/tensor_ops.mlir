// RUN: tessel-opt %s --triton-arith-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[BCAST:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @splat_range_broadcast
tt.func @splat_range_broadcast(%x: i32) -> tensor<4x8xi32> {
  // CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi32>)
  // CHECK: linalg.index 0 : index
  // CHECK: arith.index_cast
  // CHECK: arith.addi %{{.*}}, %c4_i32 : i32
  %r = tt.make_range {end = 12 : i32, start = 4 : i32} : tensor<8xi32>
  // CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xi32> into tensor<1x8xi32>
  %e = tt.expand_dims %r {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  // CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel"]}
  %b = tt.broadcast %e : tensor<1x8xi32> -> tensor<4x8xi32>
  // CHECK: linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<4x8xi32>)
  %s = tt.splat %x : i32 -> tensor<4x8xi32>
  // CHECK: arith.muli %{{.*}}, %{{.*}} : i32
  %m = arith.muli %b, %s : tensor<4x8xi32>
  tt.return %m : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @expand_last
tt.func @expand_last(%x: tensor<16xf32>) -> tensor<16x1xf32> {
  // CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 1]
  %e = tt.expand_dims %x {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  tt.return %e : tensor<16x1xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_trans
tt.func @reshape_trans(%x: tensor<4x8xf32>) -> tensor<16x2xf32> {
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  // CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
  %r = tt.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  // CHECK: linalg.transpose ins(%{{.*}} : tensor<2x16xf32>) outs(%{{.*}} : tensor<16x2xf32>) permutation = [1, 0]
  %t = tt.trans %r {order = array<i32: 1, 0>} : tensor<2x16xf32> -> tensor<16x2xf32>
  tt.return %t : tensor<16x2xf32>
}

// -----

// CHECK-LABEL: func.func @join_split_cat
tt.func @join_split_cat(%a: tensor<4xf32>, %b: tensor<4xf32>, %pair: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4xf32>, tensor<8xf32>) {
  // CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x2xf32>
  // CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x2xf32>
  %j = tt.join %a, %b : tensor<4xf32> -> tensor<4x2xf32>
  // CHECK: tensor.extract_slice %{{.*}}[0, 1] [4, 1] [1, 1] : tensor<4x2xf32> to tensor<4xf32>
  %lo, %hi = tt.split %pair : tensor<4x2xf32> -> tensor<4xf32>
  // CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %c = tt.cat %a, %b : tensor<4xf32> -> tensor<8xf32>
  tt.return %j, %hi, %c : tensor<4x2xf32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// tt elementwise math becomes arith/math inside linalg.generic.
// CHECK-LABEL: func.func @elementwise
tt.func @elementwise(%x: tensor<16xf32>, %y: tensor<16xf32>, %u: tensor<16xi32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xi32>, tensor<16xf16>, tensor<16xf32>, tensor<16xi32>) {
  // CHECK: arith.maximumf
  // CHECK: arith.minimumf
  %0 = tt.clampf %x, %y, %y, propagateNan = all : tensor<16xf32>
  // CHECK: math.sqrt
  %1 = tt.precise_sqrt %x : tensor<16xf32>
  // CHECK: arith.divf
  %2 = tt.precise_divf %x, %y : tensor<16xf32>
  // CHECK: arith.mului_extended
  %3 = tt.mulhiui %u, %u : tensor<16xi32>
  // CHECK: arith.truncf %{{.*}} toward_zero : f32 to f16
  %4 = tt.fp_to_fp %x, rounding = rtz : tensor<16xf32> -> tensor<16xf16>
  // CHECK: math.powf
  %5 = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // CHECK: arith.bitcast %{{.*}} : f32 to i32
  %6 = tt.bitcast %x : tensor<16xf32> -> tensor<16xi32>
  // CHECK-NOT: tt.
  tt.return %0, %1, %2, %3, %4, %5, %6 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xi32>, tensor<16xf16>, tensor<16xf32>, tensor<16xi32>
}

// -----

// Tensors of pointers are addresses: left for structured-to-memref.
// CHECK-LABEL: func.func @pointers_untouched
tt.func @pointers_untouched(%p: !tt.ptr<f32>, %o: tensor<8xi32>) -> tensor<8xf32> {
  // CHECK: tt.splat %{{.*}} : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  // CHECK: tt.addptr
  %a = tt.addptr %s, %o : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  // CHECK: tt.load
  %v = tt.load %a : tensor<8x!tt.ptr<f32>>
  tt.return %v : tensor<8xf32>
}
