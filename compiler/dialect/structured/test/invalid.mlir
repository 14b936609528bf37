// Verifier diagnostics of the tts dialect.
// RUN: tessel-opt %s -split-input-file -verify-diagnostics

tt.func @rank_mismatch(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{has 1 strides for rank 2}}
  %p = tts.make_tptr %b to sizes: [8, 8], strides: [1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<8x8x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @zero_size(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{size of dimension 1 must be positive, got 0}}
  %p = tts.make_tptr %b to sizes: [8, 0], strides: [1, 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<8x0x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @negative_parent(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{parent size of dimension 0 must be non-negative, got -4}}
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [-4] : !tt.ptr<f32> to tensor<8x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @result_shape(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{result shape must equal sizes}}
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f32> to tensor<16x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @result_element(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{result elements must be pointers to 'f32', got '!tt.ptr<f16>'}}
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f32> to tensor<8x!tt.ptr<f16>>
  tt.return
}

// -----

tt.func @order_needs_block_ptr(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{with an order the result must be a block pointer}}
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [8], order: [0] : !tt.ptr<f32> to tensor<8x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @order_permutation(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{order must be a permutation of 0..1}}
  %p = tts.make_tptr %b to sizes: [8, 8], strides: [8, 1], offsets: [0, 0], parent_sizes: [8, 8], order: [1, 1] : !tt.ptr<f32> to !tt.ptr<tensor<8x8xf32>>
  tt.return
}

// -----

tt.func @block_ptr_without_order(%b: !tt.ptr<f32>) {
  // expected-error @+1 {{without an order the result must be a tensor of pointers}}
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [8] : !tt.ptr<f32> to !tt.ptr<tensor<8xf32>>
  tt.return
}

// -----

tt.func @dynamic_count(%b: !tt.ptr<f32>, %i: index) {
  // expected-error @+1 {{offsets mark 0 dynamic entries but 1 values are given}}
  %p = "tts.make_tptr"(%b, %i) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, sizes = array<i64: 8>, static_offsets = array<i64: 0>, static_parent_sizes = array<i64: 0>, static_strides = array<i64: 1>}> : (!tt.ptr<f32>, index) -> tensor<8x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @mask_rank(%b: !tt.ptr<f32>, %n: index) {
  %p = tts.make_tptr %b to sizes: [8, 8], strides: [8, 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<8x8x!tt.ptr<f32>>
  // expected-error @+1 {{has 1 mask dims for rank 2}}
  %v = tts.load %p mask: [%n] : tensor<8x8x!tt.ptr<f32>> -> tensor<8x8xf32>
  tt.return
}

// -----

tt.func @mask_range(%b: !tt.ptr<f32>, %v: tensor<8x8xf32>) {
  %p = tts.make_tptr %b to sizes: [8, 8], strides: [8, 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<8x8x!tt.ptr<f32>>
  // expected-error @+1 {{mask of dimension 1 must be in [0, 8], got 9}}
  tts.store %p, %v mask: [8, 9] : tensor<8x8x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @load_result(%b: !tt.ptr<f32>) {
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f32> to tensor<8x!tt.ptr<f32>>
  // expected-error @+1 {{result must be 'tensor<8xf32>', got 'tensor<8xf16>'}}
  %v = tts.load %p : tensor<8x!tt.ptr<f32>> -> tensor<8xf16>
  tt.return
}

// -----

tt.func @other_without_mask(%b: !tt.ptr<f32>) {
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f32> to tensor<8x!tt.ptr<f32>>
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'other' only makes sense with a mask}}
  %v = tts.load %p other = %z : tensor<8x!tt.ptr<f32>> -> tensor<8xf32>
  tt.return
}

// -----

tt.func @other_type(%b: !tt.ptr<f32>, %n: index) {
  %p = tts.make_tptr %b to sizes: [8], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f32> to tensor<8x!tt.ptr<f32>>
  %z = arith.constant 0 : i32
  // expected-error @+1 {{other is the loaded element type}}
  %v = "tts.load"(%p, %n, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>, static_mask_dims = array<i64: -9223372036854775808>}> : (tensor<8x!tt.ptr<f32>>, index, i32) -> tensor<8xf32>
  tt.return
}
