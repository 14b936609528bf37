// A linalg.generic that writes a fresh tensor (tensor.empty) element by element takes as that
// output an identity-mapped input of the same type that nothing reads afterwards, and reads the
// element through the output: bufferization then updates the input's tile buffer in place
// instead of allocating another one (softmax's exp and scaling reuse the loaded row).
// RUN: tessel-opt %s --split-input-file --tessel-cpu-reuse-dead-inputs | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func public @exp_in_place(
// CHECK-SAME:    %[[BUF:[a-z0-9]+]]: memref<256xf32>, %[[MAX:[a-z0-9]+]]: f32)
// CHECK:         %[[TILE:.*]] = bufferization.to_tensor %[[BUF]]
// CHECK:         %[[EXP:.*]] = linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel"]} outs(%[[TILE]] : tensor<256xf32>) {
// CHECK-NEXT:    ^bb0(%[[ELEM:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[ELEM]], %[[MAX]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[E]] : f32
// CHECK:         return %[[EXP]]
func.func public @exp_in_place(%buf: memref<256xf32>, %max: f32) -> tensor<256xf32> {
  %tile = bufferization.to_tensor %buf restrict writable : memref<256xf32> to tensor<256xf32>
  %empty = tensor.empty() : tensor<256xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%tile : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %d = arith.subf %in, %max : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<256xf32>
  return %exp : tensor<256xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#to_scalar = affine_map<(d0) -> ()>

// Softmax's fused exp and row sum (after tessel-cpu-fuse-tile-passes): the exp tile goes into
// the loaded row (read earlier by the row max, not afterwards); the sum's accumulator is not a
// tensor.empty and stays; the other input (the offsets, i32) has another type.
// CHECK-LABEL: func.func public @exp_and_sum(
// CHECK:         %[[ROW:.*]] = bufferization.to_tensor
// CHECK:         %[[OFFS:.*]] = bufferization.to_tensor
// CHECK:         linalg.reduce {{.*}} ins(%[[ROW]] : tensor<256xf32>)
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         %[[FUSED:.*]]:2 = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["reduction"]}
// CHECK-SAME:        ins(%[[OFFS]] : tensor<256xi32>) outs(%[[ROW]], %[[ZERO]] : tensor<256xf32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[OFF:.*]]: i32, %[[ELEM:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      arith.sitofp %[[OFF]]
// CHECK-NEXT:      arith.subf %[[ELEM]]
func.func public @exp_and_sum(%row_buf: memref<256xf32>, %offs_buf: memref<256xi32>) -> (tensor<256xf32>, tensor<f32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %neg_zero = arith.constant -0.000000e+00 : f32
  %row = bufferization.to_tensor %row_buf restrict writable : memref<256xf32> to tensor<256xf32>
  %offs = bufferization.to_tensor %offs_buf restrict writable : memref<256xi32> to tensor<256xi32>
  %scalar = tensor.empty() : tensor<f32>
  %minus_inf = linalg.fill ins(%ninf : f32) outs(%scalar : tensor<f32>) -> tensor<f32>
  %max_t = linalg.reduce { arith.maxnumf } ins(%row : tensor<256xf32>) outs(%minus_inf : tensor<f32>) dimensions = [0]
  %max = tensor.extract %max_t[] : tensor<f32>
  %empty = tensor.empty() : tensor<256xf32>
  %zero = linalg.fill ins(%neg_zero : f32) outs(%scalar : tensor<f32>) -> tensor<f32>
  %fused:2 = linalg.generic {indexing_maps = [#id, #id, #id, #to_scalar], iterator_types = ["reduction"]}
      ins(%offs, %row : tensor<256xi32>, tensor<256xf32>) outs(%empty, %zero : tensor<256xf32>, tensor<f32>) {
  ^bb0(%off: i32, %in: f32, %unused: f32, %acc: f32):
    %bias = arith.sitofp %off : i32 to f32
    %d = arith.subf %in, %max : f32
    %b = arith.addf %d, %bias : f32
    %e = math.exp %b : f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %e, %s : f32, f32
  } -> (tensor<256xf32>, tensor<f32>)
  return %fused#0, %fused#1 : tensor<256xf32>, tensor<f32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#first = affine_map<(d0) -> (0)>

// No input to reuse: a function argument (the caller's tensor), a tile read again after the
// op, the same tile read twice by the op, a broadcast (not identity-mapped) input, and an
// output that is not fresh.
// CHECK-LABEL: func.func @nothing_to_reuse(
// CHECK-SAME:    %[[ARG:[a-z0-9]+]]: tensor<256xf32>,
// CHECK-SAME:    %[[INIT:[a-z0-9]+]]: tensor<256xf32>, %{{[a-z0-9]+}}: index)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<256xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[ARG]] : tensor<256xf32>) outs(%[[EMPTY]] : tensor<256xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[LIVE:.*]] : tensor<256xf32>) outs(%[[EMPTY]] : tensor<256xf32>)
// CHECK:         tensor.extract %[[LIVE]]
// CHECK:         linalg.generic {{.*}} ins(%[[TWICE:.*]], %[[TWICE]] : tensor<256xf32>, tensor<256xf32>) outs(%[[EMPTY]] : tensor<256xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<256xf32>) outs(%[[EMPTY]] : tensor<256xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<256xf32>) outs(%[[INIT]] : tensor<256xf32>)
func.func @nothing_to_reuse(%arg: tensor<256xf32>, %b0: memref<256xf32>, %b1: memref<256xf32>,
                            %b2: memref<256xf32>, %b3: memref<256xf32>, %init: tensor<256xf32>, %i: index)
    -> (tensor<256xf32>, tensor<256xf32>, f32, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  %empty = tensor.empty() : tensor<256xf32>
  %from_arg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%arg : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<256xf32>
  %live = bufferization.to_tensor %b0 restrict writable : memref<256xf32> to tensor<256xf32>
  %neg_live = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%live : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<256xf32>
  %later = tensor.extract %live[%i] : tensor<256xf32>
  %twice = bufferization.to_tensor %b1 restrict writable : memref<256xf32> to tensor<256xf32>
  %square = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%twice, %twice : tensor<256xf32>, tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%a: f32, %b: f32, %unused: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  %bcast_src = bufferization.to_tensor %b2 restrict writable : memref<256xf32> to tensor<256xf32>
  %bcast = linalg.generic {indexing_maps = [#first, #id], iterator_types = ["parallel"]}
      ins(%bcast_src : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    linalg.yield %in : f32
  } -> tensor<256xf32>
  %not_fresh_src = bufferization.to_tensor %b3 restrict writable : memref<256xf32> to tensor<256xf32>
  %not_fresh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%not_fresh_src : tensor<256xf32>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<256xf32>
  return %from_arg, %neg_live, %later, %square, %bcast, %not_fresh
      : tensor<256xf32>, tensor<256xf32>, f32, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
}
