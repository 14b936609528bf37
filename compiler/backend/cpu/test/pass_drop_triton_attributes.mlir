// Triton's analysis hints on kernel arguments (tt.divisibility, tt.pointer_range, ...) mean
// nothing to LLVM and would fail the LLVM translation: the pass removes every argument
// attribute whose name starts with "tt." from every function, and keeps all others (llvm.*,
// function attributes such as noinline).
// RUN: tessel-opt %s --split-input-file --tessel-cpu-drop-triton-attributes | FileCheck %s

// CHECK-LABEL: func.func public @vadd(
// CHECK-SAME:    %{{[^:]*}}: memref<?xf32, strided<[1], offset: ?>>,
// CHECK-SAME:    %{{[^:]*}}: memref<?xf32, strided<[1], offset: ?>> {llvm.noalias},
// CHECK-SAME:    %{{[^:]*}}: i32,
// CHECK-NOT:     tt.
// CHECK-SAME:    attributes {noinline = false}
func.func public @vadd(%x: memref<?xf32, strided<[1], offset: ?>> {tt.divisibility = 16 : i32},
                       %y: memref<?xf32, strided<[1], offset: ?>> {llvm.noalias, tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32},
                       %n: i32 {tt.divisibility = 16 : i32},
                       %pid_x: i32, %pid_y: i32, %pid_z: i32,
                       %grid_x: i32, %grid_y: i32, %grid_z: i32) attributes {noinline = false} {
  return
}

// -----

// Functions other than kernels (a noinline callee, a declaration) lose them too.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME:    %{{[^:]*}}: memref<128xf32>)
// CHECK-LABEL: func.func private @external(
// CHECK-SAME:    i32 {llvm.signext})
// CHECK-NOT:   tt.
func.func private @callee(%t: memref<128xf32> {tt.divisibility = 16 : i32}) {
  return
}
func.func private @external(i32 {llvm.signext, tt.divisibility = 8 : i32})
