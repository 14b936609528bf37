// Tile buffers too large for the stack stay memref.alloc (heap) after bufferization and
// promote-buffers-to-stack; this pass runs MLIR's buffer-deallocation-pipeline and
// convert-bufferization-to-memref only in a module that keeps such a buffer (an alloc, or a
// memref returned by a noinline callee), so that they are freed. Deallocation analysis cannot
// handle memref.generic_atomic_rmw (tl.atomic_cas): with a heap buffer around, that is an
// error that tells the user what to change, instead of a failure inside MLIR's pipeline.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-deallocate-heap-buffers -verify-diagnostics | FileCheck %s

// A 128 KiB tile on the heap: freed after its last use.
// CHECK-LABEL: func.func public @heap_tile(
// CHECK:         %[[TILE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x256xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[TILE]] : memref<128x256xf32>)
// CHECK:         %[[V:.*]] = memref.load %[[TILE]]
// CHECK:         memref.store %[[V]]
// CHECK-NEXT:    memref.dealloc %[[TILE]] : memref<128x256xf32>
// CHECK-NEXT:    return
func.func public @heap_tile(%out: memref<?xf32, strided<[1], offset: ?>>,
                            %pid_x: i32, %pid_y: i32, %pid_z: i32,
                            %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.000000e+00 : f32
  %tile = memref.alloc() {alignment = 64 : i64} : memref<128x256xf32>
  linalg.fill ins(%one : f32) outs(%tile : memref<128x256xf32>)
  %v = memref.load %tile[%c0, %c0] : memref<128x256xf32>
  memref.store %v, %out[%c0] : memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// A noinline callee that returns a tensor (a memref after bufferization): the caller frees
// what it gets; a returned argument is copied (the clone deallocation inserts becomes an
// alloc and a copy), so that the caller owns every returned buffer.
// CHECK-LABEL: func.func private @pass_through(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<64xf32>
// CHECK:         %[[COPY:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         memref.copy %[[X]], %[[COPY]]
// CHECK:         return %[[COPY]]
// CHECK-LABEL: func.func public @caller(
// CHECK:         %[[R:.*]] = call @pass_through(
// CHECK:         memref.copy %[[R]], %{{.*}}
// CHECK:         %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[R]]
// CHECK:         memref.dealloc %[[BASE]]
// CHECK-NOT:     bufferization.
func.func private @pass_through(%x: memref<64xf32>, %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                %grid_x: i32, %grid_y: i32, %grid_z: i32) -> memref<64xf32> {
  return %x : memref<64xf32>
}
func.func public @caller(%x: memref<64xf32>, %out: memref<64xf32>,
                         %pid_x: i32, %pid_y: i32, %pid_z: i32,
                         %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %r = call @pass_through(%x, %pid_x, %pid_y, %pid_z, %grid_x, %grid_y, %grid_z)
      : (memref<64xf32>, i32, i32, i32, i32, i32, i32) -> memref<64xf32>
  memref.copy %r, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

// Only stack buffers: nothing to free, and tl.atomic_cas is fine.
// CHECK-LABEL: func.func public @stack_only(
// CHECK:         %[[TILE:.*]] = memref.alloca() : memref<128xi32>
// CHECK:         memref.generic_atomic_rmw
// CHECK-NOT:     dealloc
// CHECK:         return
func.func public @stack_only(%p: memref<?xi32, strided<[1], offset: ?>>,
                             %pid_x: i32, %pid_y: i32, %pid_z: i32,
                             %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %c0 = arith.constant 0 : index
  %expected = arith.constant 0 : i32
  %desired = arith.constant 1 : i32
  %tile = memref.alloca() : memref<128xi32>
  %old = memref.generic_atomic_rmw %p[%c0] : memref<?xi32, strided<[1], offset: ?>> {
  ^bb0(%cur: i32):
    %eq = arith.cmpi eq, %cur, %expected : i32
    %new = arith.select %eq, %desired, %cur : i32
    memref.atomic_yield %new : i32
  }
  memref.store %old, %tile[%c0] : memref<128xi32>
  return
}

// -----

// tl.atomic_cas in a kernel with a heap tile: rejected.
func.func public @cas_with_heap_tile(%p: memref<?xi32, strided<[1], offset: ?>>,
                                     %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                     %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %c0 = arith.constant 0 : index
  %expected = arith.constant 0 : i32
  %desired = arith.constant 1 : i32
  %tile = memref.alloc() : memref<128x256xi32>
  // expected-error @below {{tl.atomic_cas in a kernel whose tiles need heap buffers (over 64 KiB) is not supported; use smaller blocks}}
  %old = memref.generic_atomic_rmw %p[%c0] : memref<?xi32, strided<[1], offset: ?>> {
  ^bb0(%cur: i32):
    %eq = arith.cmpi eq, %cur, %expected : i32
    %new = arith.select %eq, %desired, %cur : i32
    memref.atomic_yield %new : i32
  }
  memref.store %old, %tile[%c0, %c0] : memref<128x256xi32>
  return
}
