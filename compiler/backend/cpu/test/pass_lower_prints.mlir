// tt.print (tl.device_print), which the structured lowering leaves on tensors and scalars, is
// lowered to printf calls, one line per element as Triton prints on GPUs:
// "pid (x, y, z) idx (i, j) <prefix> <value>". The program ids are the first three of the six
// trailing kernel arguments; a tensor is walked by scf.for loops of tensor.extract; floats are
// widened to f64, integers to i64 (signed, unsigned or hex as recorded; booleans as 0/1).
// RUN: tessel-opt %s --split-input-file --tessel-cpu-lower-prints | FileCheck %s

// A 2-D tile: two nested loops, one printf per element with both indices.
// CHECK:       llvm.mlir.global internal constant @[[FMT:__tessel_fmt_[0-9]+]]("pid (%d, %d, %d) idx (%lld, %lld) x: %f\0A\00")
// CHECK:       llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-LABEL: func.func public @print_tile(
// CHECK-SAME:    %[[PID_X:[a-z0-9]+]]: i32, %[[PID_Y:[a-z0-9]+]]: i32, %[[PID_Z:[a-z0-9]+]]: i32,
// CHECK:         %[[TILE:.*]] = bufferization.to_tensor
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[C4]]
// CHECK:           %[[C2:.*]] = arith.constant 2 : index
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C2]]
// CHECK:             %[[ELEM:.*]] = tensor.extract %[[TILE]][%[[I]], %[[J]]] : tensor<4x2xf32>
// CHECK:             %[[WIDE:.*]] = arith.extf %[[ELEM]] : f32 to f64
// CHECK:             %[[FMT_ADDR:.*]] = llvm.mlir.addressof @[[FMT]]
// CHECK:             %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:             %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK:             llvm.call @printf(%[[FMT_ADDR]], %[[PID_X]], %[[PID_Y]], %[[PID_Z]], %[[I64]], %[[J64]], %[[WIDE]])
// CHECK-NOT:     tt.print
func.func public @print_tile(%pid_x: i32, %pid_y: i32, %pid_z: i32,
                             %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %buf = memref.alloc() : memref<4x2xf32>
  %tile = bufferization.to_tensor %buf restrict writable : memref<4x2xf32> to tensor<4x2xf32>
  tt.print "x:" {hex = false, isSigned = array<i32: 1>} : %tile : tensor<4x2xf32>
  return
}

// -----

// Several scalar operands: one line each, tagged with the operand's number; the integer format
// follows isSigned (an i1 is zero-extended even when "signed", so true prints as 1) and hex.
// An operand-less print is the prefix alone.
// CHECK-DAG:   llvm.mlir.global internal constant @[[SIGNED:__tessel_fmt_[0-9]+]]("pid (%d, %d, %d) idx () s (operand 0) %lld\0A\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[UNSIGNED:__tessel_fmt_[0-9]+]]("pid (%d, %d, %d) idx () s (operand 1) %llu\0A\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[BOOL:__tessel_fmt_[0-9]+]]("pid (%d, %d, %d) idx () s (operand 2) %lld\0A\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[HEX:__tessel_fmt_[0-9]+]]("pid (%d, %d, %d) idx () h 0x%llx\0A\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[DONE:__tessel_fmt_[0-9]+]]("pid (%d, %d, %d) done\0A\00")
// CHECK-LABEL: func.func public @print_scalars(
// CHECK-SAME:    %[[N:[a-z0-9]+]]: i32, %[[U:[a-z0-9]+]]: i8, %[[B:[a-z0-9]+]]: i1,
// CHECK-SAME:    %[[PID_X:[a-z0-9]+]]: i32, %[[PID_Y:[a-z0-9]+]]: i32, %[[PID_Z:[a-z0-9]+]]: i32,
// CHECK:         %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK:         %[[F0:.*]] = llvm.mlir.addressof @[[SIGNED]]
// CHECK:         llvm.call @printf(%[[F0]], %[[PID_X]], %[[PID_Y]], %[[PID_Z]], %[[N64]])
// CHECK:         %[[U64:.*]] = arith.extui %[[U]] : i8 to i64
// CHECK:         %[[F1:.*]] = llvm.mlir.addressof @[[UNSIGNED]]
// CHECK:         llvm.call @printf(%[[F1]], %[[PID_X]], %[[PID_Y]], %[[PID_Z]], %[[U64]])
// CHECK:         %[[B64:.*]] = arith.extui %[[B]] : i1 to i64
// CHECK:         %[[F2:.*]] = llvm.mlir.addressof @[[BOOL]]
// CHECK:         llvm.call @printf(%[[F2]], %[[PID_X]], %[[PID_Y]], %[[PID_Z]], %[[B64]])
// CHECK:         %[[H64:.*]] = arith.extui %[[N]] : i32 to i64
// CHECK:         %[[F3:.*]] = llvm.mlir.addressof @[[HEX]]
// CHECK:         llvm.call @printf(%[[F3]], %[[PID_X]], %[[PID_Y]], %[[PID_Z]], %[[H64]])
// CHECK:         %[[F4:.*]] = llvm.mlir.addressof @[[DONE]]
// CHECK:         llvm.call @printf(%[[F4]], %[[PID_X]], %[[PID_Y]], %[[PID_Z]]) vararg
// CHECK-NOT:     tt.print
func.func public @print_scalars(%n: i32, %u: i8, %b: i1,
                                %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  tt.print "s" {hex = false, isSigned = array<i32: 1, 0, 1>} : %n, %u, %b : i32, i8, i1
  tt.print "h" {hex = true, isSigned = array<i32: 1>} : %n : i32
  tt.print "done" {hex = false, isSigned = array<i32>}
  return
}

// -----

// A function without the six program-id arguments prints program (0, 0, 0); an f64 is passed
// as it is.
// CHECK-LABEL: func.func private @no_grid_arguments(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: f64)
// CHECK-DAG:     %[[Z0:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[Z2:.*]] = arith.constant 0 : i32
// CHECK:         llvm.call @printf(%{{.*}}, %[[Z0]], %[[Z1]], %[[Z2]], %[[X]])
func.func private @no_grid_arguments(%x: f64) {
  tt.print "x" {hex = false, isSigned = array<i32: 1>} : %x : f64
  return
}

// -----

// A tensor argument printed with nothing else loading the tensor dialect: the pass loads it
// (it crashed when run alone).
// CHECK-LABEL: func.func public @tensor_argument(
// CHECK:         scf.for
// CHECK:           tensor.extract %{{.*}}[%{{.*}}] : tensor<4xf32>
// CHECK:           llvm.call @printf(
func.func public @tensor_argument(%w: tensor<4xf32>, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                  %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  tt.print "v" {hex = false, isSigned = array<i32: 0>} : %w : tensor<4xf32>
  return
}

// -----

// Nothing to print: no printf declaration is added.
// CHECK-NOT:   printf
// CHECK-LABEL: func.func public @no_print(
// CHECK-NOT:   printf
func.func public @no_print(%pid_x: i32, %pid_y: i32, %pid_z: i32,
                           %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  return
}
