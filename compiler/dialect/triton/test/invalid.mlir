// Verifier diagnostics of the tt dialect.
// RUN: tessel-opt %s -split-input-file -verify-diagnostics

tt.func @load_mask_shape(%p: tensor<64x!tt.ptr<f32>>, %m: tensor<32xi1>) {
  // expected-error @+1 {{mask is i1 with the shape of ptr}}
  %0 = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<64x!tt.ptr<f32>>, tensor<32xi1>) -> tensor<64xf32>
  tt.return
}

// -----

tt.func @load_result_type(%p: tensor<64x!tt.ptr<f32>>) {
  // expected-error @+1 {{result type is what ptr points to}}
  %0 = "tt.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<64x!tt.ptr<f32>>) -> tensor<64xf16>
  tt.return
}

// -----

tt.func @store_value_type(%p: tensor<64x!tt.ptr<f32>>, %v: tensor<64xi32>) {
  // expected-error @+1 {{value is what ptr points to}}
  "tt.store"(%p, %v) : (tensor<64x!tt.ptr<f32>>, tensor<64xi32>) -> ()
  tt.return
}

// -----

tt.func @load_through_int(%p: tensor<64xi32>) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = "tt.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<64xi32>) -> tensor<64xi32>
  tt.return
}

// -----

tt.func @block_load_with_mask(%p: !tt.ptr<tensor<8x8xf32>>, %m: tensor<8x8xi1>) {
  // expected-error @+1 {{a block-pointer load takes boundaryCheck/padding, not mask/other}}
  %0 = tt.load %p, %m : !tt.ptr<tensor<8x8xf32>>
  tt.return
}

// -----

tt.func @boundary_check_needs_block_ptr(%p: tensor<8x!tt.ptr<f32>>) {
  // expected-error @+1 {{boundaryCheck needs a block pointer}}
  %0 = tt.load %p {boundaryCheck = array<i32: 0>} : tensor<8x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @boundary_check_range(%p: !tt.ptr<tensor<8x8xf32>>) {
  // expected-error @+1 {{boundaryCheck dimension 2 out of range for rank 2}}
  %0 = tt.load %p {boundaryCheck = array<i32: 2>} : !tt.ptr<tensor<8x8xf32>>
  tt.return
}

// -----

tt.func @addptr_shape(%p: tensor<64x!tt.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{offset shape 32 differs from pointer shape 64}}
  %0 = tt.addptr %p, %o : tensor<64x!tt.ptr<f32>>, tensor<32xi32>
  tt.return
}

// -----

tt.func @addptr_scalar_tensor(%p: !tt.ptr<f32>, %o: tensor<32xi32>) {
  // expected-error @+1 {{must both be scalars or both be tensors}}
  %0 = tt.addptr %p, %o : !tt.ptr<f32>, tensor<32xi32>
  tt.return
}

// -----

tt.func @make_range_size() {
  // expected-error @+1 {{result must be tensor<16xi32> for [0, 16)}}
  %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<32xi32>
  tt.return
}

// -----

tt.func @make_range_empty() {
  // expected-error @+1 {{needs start < end, got [8, 8)}}
  %0 = tt.make_range {end = 8 : i32, start = 8 : i32} : tensor<1xi32>
  tt.return
}

// -----

tt.func @splat_element(%x: i32) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = tt.splat %x : i32 -> tensor<8xi64>
  tt.return
}

// -----

tt.func @broadcast_shape(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{dimension 0 of size 2 can only broadcast if it is 1 or 4}}
  %0 = tt.broadcast %x : tensor<2x8xf32> -> tensor<4x8xf32>
  tt.return
}

// -----

tt.func @expand_dims_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{result shape 8x1 should be 1x8}}
  %0 = tt.expand_dims %x {axis = 0 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  tt.return
}

// -----

tt.func @reshape_count(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{cannot reshape 8x4 (32 elements) to 16 (16 elements)}}
  %0 = tt.reshape %x : tensor<8x4xf32> -> tensor<16xf32>
  tt.return
}

// -----

tt.func @trans_order(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{order must be a permutation of 0..1}}
  %0 = tt.trans %x {order = array<i32: 0, 0>} : tensor<8x4xf32> -> tensor<8x4xf32>
  tt.return
}

// -----

tt.func @split_last_dim(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{source's last dimension must be 2}}
  %a, %b = tt.split %x : tensor<8x4xf32> -> tensor<8xf32>
  tt.return
}

// -----

tt.func @dot_inner(%a: tensor<32x16xf16>, %b: tensor<32x64xf16>, %c: tensor<32x64xf32>) {
  // expected-error @+1 {{a is 32x16 and b is 32x64: their inner dimensions differ}}
  %0 = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<32x64xf16> -> tensor<32x64xf32>
  tt.return
}

// -----

tt.func @dot_acc(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{accumulator is 32x32 but a*b is 32x64}}
  %0 = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x32xf32>
  tt.return
}

// -----

tt.func @dot_element(%a: tensor<32x16xf16>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>) {
  // expected-error @+1 {{a and b must have the same element type, got 'f16' and 'f32'}}
  %0 = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x64xf32> -> tensor<32x64xf32>
  tt.return
}

// -----

tt.func @reduce_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{result #0 must be 'tensor<8xf32>', got 'tensor<16xf32>'}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<8x16xf32>) -> tensor<16xf32>
  tt.return
}

// -----

tt.func @reduce_axis(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %0 = "tt.reduce"(%x) <{axis = 2 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    tt.reduce.return %a : f32
  }) : (tensor<8x16xf32>) -> tensor<8xf32>
  tt.return
}

// -----

tt.func @reduce_region(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{combine region argument #1 must be 'f32', got 'i32'}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: i32):
    tt.reduce.return %a : f32
  }) : (tensor<8x16xf32>) -> tensor<8xf32>
  tt.return
}

// -----

tt.func @scan_yield(%x: tensor<16xf32>) {
  // expected-error @+1 {{combine region yields 'i32' as value #0, expected 'f32'}}
  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    tt.scan.return %c : i32
  }) : (tensor<16xf32>) -> tensor<16xf32>
  tt.return
}

// -----

tt.func @make_tensor_ptr_rank(%p: !tt.ptr<f16>, %s: i64, %o: i32) {
  // expected-error @+1 {{needs 2 shape, stride and offset values for a rank-2 block, got 1, 1 and 1}}
  %0 = tt.make_tensor_ptr %p, [%s], [%s], [%o] {order = array<i32: 0>} : <tensor<8x8xf16>>
  tt.return
}

// -----

tt.func @advance_rank(%p: !tt.ptr<tensor<8x8xf16>>, %o: i32) {
  // expected-error @+1 {{needs 2 offsets for a rank-2 block pointer, got 1}}
  %0 = tt.advance %p, [%o] : <tensor<8x8xf16>>
  tt.return
}

// -----

tt.func @atomic_fadd_int(%p: !tt.ptr<i32>, %v: i32) {
  // expected-error @+1 {{fadd needs floating-point values, got 'i32'}}
  %0 = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (!tt.ptr<i32>, i32) -> i32
  tt.return
}

// -----

tt.func @bitcast_width(%x: tensor<8xf32>) {
  // expected-error @+1 {{cannot bitcast 32-bit elements to 16-bit ones}}
  %0 = tt.bitcast %x : tensor<8xf32> -> tensor<8xf16>
  tt.return
}

// -----

tt.func @fp_to_fp_rounding(%x: tensor<8xf32>) {
  // expected-error @+1 {{narrowing from 32 to 16 bits needs a rounding mode}}
  %0 = tt.fp_to_fp %x : tensor<8xf32> -> tensor<8xf16>
  tt.return
}

// -----

tt.func @gather_shape(%s: tensor<4x8xf32>, %i: tensor<2x3xi32>) {
  // expected-error @+1 {{indices dimension 0 is 2 but the source's is 4}}
  %0 = tt.gather %s[%i] {axis = 1 : i32} : (tensor<4x8xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  tt.return
}

// -----

tt.func @print_signs(%x: i32) {
  // expected-error @+1 {{isSigned has 0 entries for 1 arguments}}
  tt.print "x" {hex = false, isSigned = array<i32>} : %x : i32
  tt.return
}

// -----

tt.func private @f(%a: i32) -> i32 {
  tt.return %a : i32
}
tt.func @call_types(%x: f32) {
  // expected-error @+1 {{operand #0 has type 'f32' but 'f' expects 'i32'}}
  %0 = tt.call @f(%x) : (f32) -> i32
  tt.return
}

// -----

tt.func @call_missing() {
  // expected-error @+1 {{'missing' does not name a tt.func}}
  tt.call @missing() : () -> ()
  tt.return
}

// -----

tt.func @return_count() -> i32 {
  // expected-error @+1 {{returns 0 values but 'return_count' declares 1 results}}
  tt.return
}

// -----

tt.func @bad_noinline() attributes {noinline = 1 : i32} {
  tt.return
}
// expected-error @-3 {{'noinline' must be a boolean}}

// -----

// expected-error @+1 {{a block pointer cannot point to a tensor of pointers}}
tt.func @bad_pointer(%p: !tt.ptr<tensor<8x!tt.ptr<f32>>>) {
  tt.return
}

// -----

tt.func @inline_asm_shapes(%x: tensor<16xi32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape}}
  %0 = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<16xi32> -> tensor<8xi32>
  tt.return
}

// -----

tt.func @inline_asm_pack(%x: tensor<16xi32>) {
  // expected-error @+1 {{packed_element must be at least 1, got 0}}
  %0 = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 0 : i32, pure = true} %x : tensor<16xi32> -> tensor<16xi32>
  tt.return
}
