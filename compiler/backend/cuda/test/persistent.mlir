// Persistent blocks (tessel-cuda-map-programs persistent): the kernel takes the grid's sizes as
// three i32 arguments after the signature's (the six program-id and grid arguments go), and
// block b runs programs b, b + gridDim.x, ... of that grid in a loop, x fastest: x = p mod gx,
// y = (p / gx) mod gy, z = p / (gx * gy); the program's ids and the grid's sizes replace
// gpu.block_id and gpu.grid_dim, and a barrier ends each program (the next one reuses the
// shared buffers). The artifact says so ("persistent": blocks an SM), for the runtime, which
// launches at most that many blocks an SM and passes the grid.
// RUN: tessel-opt %s --split-input-file --tessel-cuda-map-programs='num-warps=1 persistent=true' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-cuda-map-programs='num-warps=1' | FileCheck %s --check-prefix=ONE
// RUN: tessel-compile %s --entry programs --target cuda:sm_90 --knob persistent=2 --emit artifact -o - | FileCheck %s --check-prefix=ARTIFACT
// RUN: tessel-compile %s --entry programs --target cuda:sm_90 --emit artifact -o - | FileCheck %s --check-prefix=NOT-PERSISTENT

// CHECK-LABEL: gpu.func @programs(
// CHECK-SAME: %[[OUT:.*]]: memref<?xi32>, %[[GX:.*]]: i32, %[[GY:.*]]: i32, %[[GZ:.*]]: i32)
// CHECK-SAME: tessel.memref_ranks = array<i64: 1, -1, -1, -1>
// CHECK-DAG: %[[X:.*]] = arith.index_cast %[[GX]] : i32 to index
// CHECK-DAG: %[[Y:.*]] = arith.index_cast %[[GY]] : i32 to index
// CHECK-DAG: %[[Z:.*]] = arith.index_cast %[[GZ]] : i32 to index
// CHECK: %[[PLANE:.*]] = arith.muli %[[X]], %[[Y]] : index
// CHECK: %[[ALL:.*]] = arith.muli %[[PLANE]], %[[Z]] : index
// CHECK: %[[FIRST:.*]] = gpu.block_id x
// CHECK: %[[STEP:.*]] = gpu.grid_dim x
// A thread's private buffer stays outside the loop.
// CHECK: memref.alloca() : memref<1xi32>
// CHECK: scf.for %[[P:.*]] = %[[FIRST]] to %[[ALL]] step %[[STEP]] {
// CHECK-NEXT: %[[PX:.*]] = arith.remui %[[P]], %[[X]] : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.divui %[[P]], %[[X]] : index
// CHECK-NEXT: %[[PY:.*]] = arith.remui %[[ROWS]], %[[Y]] : index
// CHECK-NEXT: %[[PZ:.*]] = arith.divui %[[P]], %[[PLANE]] : index
// The program in an scf.execute_region (gpu.all_reduce's lowering splits blocks there).
// CHECK-NEXT: scf.execute_region {
// CHECK-NOT: gpu.block_id
// CHECK-NOT: gpu.grid_dim
// CHECK-DAG: arith.index_cast %[[PX]] : index to i32
// CHECK-DAG: arith.index_cast %[[PY]] : index to i32
// CHECK-DAG: arith.index_cast %[[PZ]] : index to i32
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return

// ONE-LABEL: gpu.func @programs(
// ONE-SAME: %{{.*}}: memref<?xi32>)
// ONE-NOT: scf.for
// ONE: gpu.block_id x
// ONE: gpu.block_id y
// ONE: gpu.block_id z
// ONE-NOT: scf.for
// ONE: gpu.return

// ARTIFACT: "persistent": 2
// NOT-PERSISTENT-NOT: "persistent"
func.func public @programs(%out: memref<?xi32>, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                           %gx: i32, %gy: i32, %gz: i32) {
  %row = arith.muli %pid_y, %gx : i32
  %at = arith.addi %row, %pid_x : i32
  %i = arith.index_cast %at : i32 to index
  %v = arith.addi %pid_z, %gy : i32
  %c0 = arith.constant 0 : index
  %scratch = memref.alloca() : memref<1xi32>
  memref.store %v, %scratch[%c0] : memref<1xi32>
  %w = memref.load %scratch[%c0] : memref<1xi32>
  memref.store %w, %out[%i] : memref<?xi32>
  return
}

// -----

// A kernel with a workgroup buffer (a gpu.func's attributions are entry-block arguments after
// its own): the grid's sizes are still its last three arguments.
// CHECK-LABEL: gpu.func @tiled(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %[[TX:.*]]: i32, %[[TY:.*]]: i32, %[[TZ:.*]]: i32)
// CHECK-SAME: workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-DAG: arith.index_cast %[[TX]] : i32 to index
// CHECK-DAG: arith.index_cast %[[TY]] : i32 to index
// CHECK-DAG: arith.index_cast %[[TZ]] : i32 to index
// CHECK: scf.for
// CHECK: gpu.return
func.func public @tiled(%x: memref<?xf32>, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                        %gx: i32, %gy: i32, %gz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tile = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %tile[%i] : memref<64xf32>
    scf.reduce
  }
  %p = arith.index_cast %pid_x : i32 to index
  %w = memref.load %tile[%c0] : memref<64xf32>
  memref.store %w, %x[%p] : memref<?xf32>
  return
}
