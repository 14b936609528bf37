// Unsupported IR gets a diagnostic, never a crash.
// RUN: tessel-opt %s --structured-to-memref -split-input-file -verify-diagnostics

func.func @pointer_to_pointer_from_int(%i: i64) -> !tt.ptr<f32> {
  // expected-error @+1 {{structured-to-memref: an address converted to a pointer to a pointer or a block has no memory to view}}
  %p = tt.int_to_ptr %i : i64 -> !tt.ptr<!tt.ptr<f32>>
  %v = tt.load %p : !tt.ptr<!tt.ptr<f32>>
  return %v : !tt.ptr<f32>
}

// -----

func.func @pointers_from_ints(%i: tensor<8xi64>) -> tensor<8xf32> {
  // expected-error @+1 {{structured-to-memref: a tensor of addresses converted to pointers has no root memory}}
  %p = tt.int_to_ptr %i : tensor<8xi64> -> tensor<8x!tt.ptr<f32>>
  %v = tt.load %p : tensor<8x!tt.ptr<f32>>
  return %v : tensor<8xf32>
}

// -----

func.func @reduce_left(%x: tensor<4xf32>) -> f32 {
  // expected-error @+1 {{structured-to-memref: 'tt.reduce' is not supported here}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4xf32>) -> f32
  return %0 : f32
}

// -----

func.func @pointer_through_select(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: i1) -> f32 {
  // expected-error @+1 {{structured-to-memref: pointers carried through 'arith.select' are not supported}}
  %p = arith.select %c, %a, %b : !tt.ptr<f32>
  %v = tt.load %p : !tt.ptr<f32>
  return %v : f32
}

// -----

func.func @print_pointer(%p: !tt.ptr<f32>) {
  %c1 = arith.constant 1 : i32
  %q = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
  // expected-error @+1 {{structured-to-memref: printing a pointer is not supported}}
  tt.print " q: " {hex = false, isSigned = array<i32: 0>} : %q : !tt.ptr<f32>
  return
}
