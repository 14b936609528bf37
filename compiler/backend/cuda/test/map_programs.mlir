// One program = one CUDA block (MapPrograms.cpp): the kernel becomes a gpu.func without its
// six grid arguments (block ids and grid sizes instead), its tile buffer lives in shared
// memory, the parallel loop is spread over the block's threads (start at the thread id, step
// the block size) between barriers, and the scalar store runs on thread 0.
// RUN: tessel-opt %s --tessel-cuda-map-programs='num-warps=2' | FileCheck %s
// RUN: not tessel-opt %s --tessel-cuda-map-programs='num-warps=0' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: num-warps must be 1..32, got 0

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @tessel_kernels
// CHECK-LABEL: gpu.func @scale(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: memref<f32>, %{{.*}}: f32)
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK: gpu.block_id x
// CHECK: memref.memory_space_cast %[[TILE]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %[[THREADS]]
// CHECK: arith.mulf
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq, %[[TID]], %{{.*}}
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
