// Every public kernel `k` gets the CPU launch ABI (CpuBackend.h): a global
// `k__tessel_signature` naming its argument types for the runtime to check ("ptr:f32,i32,...")
// and an entry point `k__tessel_launch(args, begin, end, gx, gy, gz)` that unpacks one 8-byte
// slot per argument (a pointer becomes a rank-1 memref descriptor with offset 0, stride 1 and
// an unbounded size; an i1 is a byte) and calls `k` for each program id in [begin, end) with
// x = pid % gx, y = pid / gx % gy, z = pid / gx / gy and the grid as its six trailing
// arguments. Other functions get nothing; an argument the ABI cannot pass is an error.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-add-launch-entries -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func public @vadd(
// CHECK:       llvm.mlir.global external constant @vadd__tessel_signature("ptr:f32,ptr:i32,i32,f32,i1\00")
// CHECK-LABEL: func.func @vadd__tessel_launch(
// CHECK-SAME:    %[[ARGS:[a-z0-9]+]]: !llvm.ptr, %[[BEGIN:[a-z0-9]+]]: i32, %[[END:[a-z0-9]+]]: i32, %[[GX:[a-z0-9]+]]: i32, %[[GY:[a-z0-9]+]]: i32, %[[GZ:[a-z0-9]+]]: i32)
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<external>}
// Slot 0: a pointer, as the descriptor {base, base, 0, [1 << 62], [1]}.
// CHECK:         %[[SLOT0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[P0:.*]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[D0:.*]] = llvm.insertvalue %[[P0]], %{{.*}}[0]
// CHECK:         %[[D1:.*]] = llvm.insertvalue %[[P0]], %[[D0]][1]
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG:     %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG:     %[[HUGE:.*]] = llvm.mlir.constant(4611686018427387904 : i64) : i64
// CHECK:         %[[D2:.*]] = llvm.insertvalue %[[ZERO]], %[[D1]][2]
// CHECK:         %[[D3:.*]] = llvm.insertvalue %[[HUGE]], %[[D2]][3, 0]
// CHECK:         %[[D4:.*]] = llvm.insertvalue %[[ONE]], %[[D3]][4, 0]
// CHECK:         %[[X:.*]] = builtin.unrealized_conversion_cast %[[D4]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:         %[[Y:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xi32, strided<[1], offset: ?>>
// Scalars: loaded from their slots as themselves, an i1 from a byte.
// CHECK:         %[[SLOT2:.*]] = llvm.getelementptr %[[ARGS]][2]
// CHECK:         %[[N:.*]] = llvm.load %[[SLOT2]] : !llvm.ptr -> i32
// CHECK:         %[[SLOT3:.*]] = llvm.getelementptr %[[ARGS]][3]
// CHECK:         %[[S:.*]] = llvm.load %[[SLOT3]] : !llvm.ptr -> f32
// CHECK:         %[[SLOT4:.*]] = llvm.getelementptr %[[ARGS]][4]
// CHECK:         %[[BYTE:.*]] = llvm.load %[[SLOT4]] : !llvm.ptr -> i8
// CHECK:         %[[FLAG:.*]] = arith.trunci %[[BYTE]] : i8 to i1
// The programs.
// CHECK:         %[[LB:.*]] = arith.index_cast %[[BEGIN]] : i32 to index
// CHECK:         %[[UB:.*]] = arith.index_cast %[[END]] : i32 to index
// CHECK:         scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %{{.*}} {
// CHECK:           %[[PID:.*]] = arith.index_cast %[[IV]] : index to i32
// CHECK:           %[[PX:.*]] = arith.remui %[[PID]], %[[GX]] : i32
// CHECK:           %[[REST:.*]] = arith.divui %[[PID]], %[[GX]] : i32
// CHECK:           %[[PY:.*]] = arith.remui %[[REST]], %[[GY]] : i32
// CHECK:           %[[PZ:.*]] = arith.divui %[[REST]], %[[GY]] : i32
// CHECK:           func.call @vadd(%[[X]], %[[Y]], %[[N]], %[[S]], %[[FLAG]], %[[PX]], %[[PY]], %[[PZ]], %[[GX]], %[[GY]], %[[GZ]])
// CHECK:         }
// CHECK:         return
// CHECK-NOT:   __tessel_launch
// CHECK-NOT:   __tessel_signature
func.func public @vadd(%x: memref<?xf32, strided<[1], offset: ?>>, %y: memref<?xi32, strided<[1], offset: ?>>,
                       %n: i32, %s: f32, %flag: i1,
                       %pid_x: i32, %pid_y: i32, %pid_z: i32, %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  return
}
// A noinline callee (private) and a declaration: not kernels.
func.func private @helper(%v: f32, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                          %grid_x: i32, %grid_y: i32, %grid_z: i32) -> f32 {
  return %v : f32
}
func.func private @external(f32) -> f32

// -----

// A kernel with only the grid arguments: an empty signature, no slots read.
// CHECK:       llvm.mlir.global external constant @no_arguments__tessel_signature("\00")
// CHECK-LABEL: func.func @no_arguments__tessel_launch(
// CHECK-NOT:     llvm.load
// CHECK:         func.call @no_arguments(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32) -> ()
func.func public @no_arguments(%pid_x: i32, %pid_y: i32, %pid_z: i32,
                               %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  return
}

// -----

// A 2-D memref (not something the frontend passes to a kernel) has no 8-byte slot form.
// expected-error @below {{cannot pass argument #1 of type 'memref<4x4xf32>' through the launch ABI}}
func.func public @matrix_argument(%n: i32, %m: memref<4x4xf32>,
                                  %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                  %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  return
}

// -----

// A public function without the six trailing grid arguments is not a kernel of the structured
// lowering: an error, not a read past its argument list.
// expected-error @below {{a kernel needs six trailing i32 arguments (program ids x, y, z and grid sizes x, y, z) for its launch entry}}
func.func public @tiny(%a: i32) {
  return
}
