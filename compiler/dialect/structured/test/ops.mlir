// Round trip of the tts operations.
// RUN: tessel-opt %s -split-input-file --mlir-print-op-generic > %t.generic
// RUN: tessel-opt %s -split-input-file | tessel-opt -split-input-file --mlir-print-op-generic > %t.roundtrip
// RUN: diff %t.generic %t.roundtrip
// RUN: tessel-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: tt.func @tile_2d
tt.func @tile_2d(%base: !tt.ptr<f32>, %stride: index, %off: index, %m: index, %rows: index) {
  // CHECK: tts.make_tptr %{{.*}} to sizes: [128, 64], strides: [%{{.*}}, 1], offsets: [%{{.*}}, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<128x64x!tt.ptr<f32>>
  %p = tts.make_tptr %base to sizes: [128, 64], strides: [%stride, 1], offsets: [%off, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<128x64x!tt.ptr<f32>>
  // CHECK: tts.load %{{.*}} : tensor<128x64x!tt.ptr<f32>> -> tensor<128x64xf32>
  %v = tts.load %p : tensor<128x64x!tt.ptr<f32>> -> tensor<128x64xf32>
  // CHECK: tts.load %{{.*}} mask: [%{{.*}}, 64] other = %{{.*}} : tensor<128x64x!tt.ptr<f32>> -> tensor<128x64xf32>
  %zero = arith.constant 0.0 : f32
  %w = tts.load %p mask: [%rows, 64] other = %zero : tensor<128x64x!tt.ptr<f32>> -> tensor<128x64xf32>
  // CHECK: tts.load %{{.*}} mask: [%{{.*}}, 32] : tensor<128x64x!tt.ptr<f32>> -> tensor<128x64xf32>
  %x = tts.load %p mask: [%rows, 32] : tensor<128x64x!tt.ptr<f32>> -> tensor<128x64xf32>
  // CHECK: tts.store %{{.*}}, %{{.*}} : tensor<128x64x!tt.ptr<f32>>
  tts.store %p, %v : tensor<128x64x!tt.ptr<f32>>
  // CHECK: tts.store %{{.*}}, %{{.*}} mask: [%{{.*}}, 64] : tensor<128x64x!tt.ptr<f32>>
  tts.store %p, %w mask: [%rows, 64] : tensor<128x64x!tt.ptr<f32>>
  tt.return
}

// -----

// Wrap-around along the rows (a `% M` on the row offsets): parent size %m.
// CHECK-LABEL: tt.func @wrap_rows
tt.func @wrap_rows(%base: !tt.ptr<f16>, %stride: index, %off: index, %m: index) {
  // CHECK: parent_sizes: [%{{.*}}, 0]
  %p = tts.make_tptr %base to sizes: [32, 16], strides: [%stride, 1], offsets: [%off, 0], parent_sizes: [%m, 0] : !tt.ptr<f16> to tensor<32x16x!tt.ptr<f16>>
  %v = tts.load %p : tensor<32x16x!tt.ptr<f16>> -> tensor<32x16xf16>
  tt.return
}

// -----

// A block pointer (from tt.make_tensor_ptr): order given, the result is !tt.ptr<tensor<...>>.
// CHECK-LABEL: tt.func @block_pointer
tt.func @block_pointer(%base: !tt.ptr<bf16>, %m: index, %k: index, %sm: index, %o: index) {
  // CHECK: tts.make_tptr %{{.*}} to sizes: [64, 32], strides: [%{{.*}}, 1], offsets: [%{{.*}}, 0], parent_sizes: [%{{.*}}, %{{.*}}], order: [1, 0] : !tt.ptr<bf16> to !tt.ptr<tensor<64x32xbf16>>
  %p = tts.make_tptr %base to sizes: [64, 32], strides: [%sm, 1], offsets: [%o, 0], parent_sizes: [%m, %k], order: [1, 0] : !tt.ptr<bf16> to !tt.ptr<tensor<64x32xbf16>>
  // CHECK: tts.load %{{.*}} mask: [%{{.*}}, 32] : !tt.ptr<tensor<64x32xbf16>> -> tensor<64x32xbf16>
  %v = tts.load %p mask: [%m, 32] : !tt.ptr<tensor<64x32xbf16>> -> tensor<64x32xbf16>
  tts.store %p, %v : !tt.ptr<tensor<64x32xbf16>>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @one_d
tt.func @one_d(%base: !tt.ptr<i32>, %n: index) {
  // CHECK: tts.make_tptr %{{.*}} to sizes: [1024], strides: [1], offsets: [%{{.*}}], parent_sizes: [0] : !tt.ptr<i32> to tensor<1024x!tt.ptr<i32>>
  %p = tts.make_tptr %base to sizes: [1024], strides: [1], offsets: [%n], parent_sizes: [0] : !tt.ptr<i32> to tensor<1024x!tt.ptr<i32>>
  %c = arith.constant -1 : i32
  // CHECK: tts.load %{{.*}} mask: [%{{.*}}] other = %{{.*}} : tensor<1024x!tt.ptr<i32>> -> tensor<1024xi32>
  %v = tts.load %p mask: [%n] other = %c : tensor<1024x!tt.ptr<i32>> -> tensor<1024xi32>
  tt.return
}
