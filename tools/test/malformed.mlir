// A malformed file gets a diagnostic with file:line:col and a non-zero exit, never a crash.
// RUN: not tessel-opt %s -split-input-file 2>&1 | FileCheck %s

tt.func @missing_operand(%p: !tt.ptr<f32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected SSA operand
  %0 = tt.addptr %p, : !tt.ptr<f32>, i32
  tt.return
}

// -----

tt.func @unknown_type(%p: !tt.pointer<f32>) {
  tt.return
}
// CHECK: malformed.mlir:[[@LINE-3]]:{{[0-9]+}}: error: unknown type `pointer` in dialect `tt`

// -----

tt.func @unknown_dialect() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: Dialect `nodialect' not found for custom op 'nodialect.frobnicate'
  nodialect.frobnicate
  tt.return
}

// -----

tt.func @unknown_tt_op() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'tt.frobnicate' is unknown
  tt.frobnicate
  tt.return
}

// -----

tt.func @bad_enum() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: custom op 'tt.get_program_id' expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]
  %0 = tt.get_program_id w : i32
  tt.return
}

// -----

tt.func @verifier(%x: tensor<8xf32>) {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'tt.bitcast' op cannot bitcast 32-bit elements to 16-bit ones
  %0 = tt.bitcast %x : tensor<8xf32> -> tensor<8xf16>
  tt.return
}

// -----

// A function cut off at the end of the file.
// CHECK: malformed.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected operation name in quotes
tt.func @unterminated(%x: i32) {
  %0 = arith.addi %x, %x : i32
