// A TMA tile's mbarriers (nvgpu.mbarrier.create: static shared variables, 8 bytes a barrier)
// count in what a block's shared memory must hold (MapPrograms.cpp): the 64-float tile (256
// bytes) and 9 barriers (72 bytes, a 16-byte slot: 80) make 336, refused where a block has 300
// (with a clear error, not a launch failure on the GPU).
// RUN: tessel-opt %s --tessel-cuda-map-programs='num-warps=2 thread-tile-elements=0' | FileCheck %s
// RUN: not tessel-opt %s --tessel-cuda-map-programs='num-warps=2 thread-tile-elements=0 max-shared-bytes=300' 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// CHECK: tessel.total_shared_bytes = {barriers = 336 : i64}
// TOO-BIG: error: the kernel needs 336 bytes of shared memory; a block of this GPU has 300
module {
  func.func public @barriers(%x: memref<?xf32>, %y: memref<?xf32>,
                             %pid_x: i32, %pid_y: i32, %pid_z: i32,
                             %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 9>
    %tile = memref.alloc() : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %tile[%i] : memref<64xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %j = arith.subi %c64, %i : index
      %k = arith.subi %j, %c1 : index
      %v = memref.load %tile[%k] : memref<64xf32>
      memref.store %v, %y[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }
}
