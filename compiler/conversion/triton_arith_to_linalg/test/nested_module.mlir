// RUN: not tessel-opt %s --triton-arith-to-linalg 2>&1 | FileCheck %s
// RUN: not tessel-opt %s --tessel-structured-pipeline 2>&1 | FileCheck %s

// Two top-level operations: the parser wraps them in a module, so the kernel sits in a
// nested module. That is an error naming it, not a crash (a mutated Triton dump found it).
// CHECK: error: kernels are functions at the top level of the module; 'k' is in a nested builtin.module
arith.constant 128 : i32
module {
  tt.func public @k(%p: !tt.ptr<i32>) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    tt.return
  }
}
