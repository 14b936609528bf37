// One program = one CUDA block (MapPrograms.cpp): the kernel becomes a gpu.func without its
// six grid arguments (block ids and grid sizes instead), its tile buffer lives in shared
// memory, the parallel loop is spread over the block's threads (start at the thread id, step
// the block size) between barriers, and the scalar store runs on thread 0. A reduction of a
// tile into a scalar buffer is shared by the threads and finished with warp shuffles.
// RUN: tessel-opt %s --split-input-file --tessel-cuda-map-programs='num-warps=2' | FileCheck %s
// RUN: not tessel-opt %s --tessel-cuda-map-programs='num-warps=0' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: num-warps must be 1..32, got 0

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @tessel_kernels
// CHECK-LABEL: gpu.func @scale(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<f32>, %{{.*}}: f32)
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[TID:.*]] = gpu.thread_id x
// CHECK: memref.memory_space_cast %[[TILE]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %[[THREADS]]
// CHECK: arith.mulf
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq, %[[TID]], %[[ZERO]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
// CHECK: gpu.return
module {
  func.func public @scale(%x: memref<?xf32>, %flag: memref<f32>, %s: f32,
                          %pid_x: i32, %pid_y: i32, %pid_z: i32,
                          %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tile = memref.alloc() : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %tile[%i] : memref<64xf32>
      scf.reduce
    }
    memref.store %s, %flag[] : memref<f32>
    memref.dealloc %tile : memref<64xf32>
    return
  }
}

// -----

// CHECK-LABEL: gpu.func @row_max(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.maxnumf %[[P]]
// CHECK: gpu.shuffle xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK-NOT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: gpu.return
module {
  func.func public @row_max(%x: memref<1024xf32>, %out: memref<f32>,
                            %pid_x: i32, %pid_y: i32, %pid_z: i32,
                            %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %nan = arith.constant 0xFFC00000 : f32
    memref.store %nan, %out[] : memref<f32>
    scf.for %i = %c0 to %c1024 step %c1 {
      %v = memref.load %x[%i] : memref<1024xf32>
      %acc = memref.load %out[] : memref<f32>
      %m = arith.maxnumf %acc, %v : f32
      memref.store %m, %out[] : memref<f32>
    }
    return
  }
}
