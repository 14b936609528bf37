// One program = one CUDA block (MapPrograms.cpp): the kernel becomes a gpu.func without its
// six grid arguments (block ids and grid sizes instead), its tile buffer is a shared variable
// (a view of the dynamic arena when the tiles pass 47 KB: @big below), the parallel loop is
// spread over the block's threads (start at the thread id, step the block size) between
// barriers, and the scalar store runs on thread 0. A reduction of a tile into a scalar buffer
// is shared by the threads and finished with warp shuffles; one into several scalars at once
// (argmax) meets in a tree in shared memory.
// RUN: tessel-opt %s --split-input-file --tessel-cuda-map-programs='num-warps=2 thread-tile-elements=0' | FileCheck %s
// RUN: not tessel-opt %s --tessel-cuda-map-programs='num-warps=0' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: num-warps must be 1..32, got 0
// RUN: not tessel-opt %s --tessel-cuda-map-programs='unroll=0' 2>&1 | FileCheck %s --check-prefix=BAD-UNROLL
// BAD-UNROLL: unroll must be 1..16, got 0
// RUN: not tessel-opt %s --split-input-file --tessel-cuda-map-programs='max-shared-bytes=1024 thread-tile-elements=0' 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// TOO-BIG: error: the kernel needs 8448 bytes of shared memory; a block of this GPU has 1024

// CHECK: module attributes {gpu.container_module, tessel.dynamic_shared_bytes = {scale = 0 : i64}, tessel.total_shared_bytes = {scale = 256 : i64}}
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

// -----

// A column sum of a 32x64 tile: the loop over rows around the parallel loop over columns is
// interchanged (each column is one thread's, no barrier per row), and the copy of the tile
// (2048 elements over 64 threads) runs 4 elements per thread at a time: a main loop of 4
// bodies stepping 256, then the rest one at a time. The accumulator's zeros (a shared tile of
// 64 f32) are stored in groups of 4: one 16-byte vector store a thread, 16 threads.
// CHECK-LABEL: gpu.func @col_sum(
// CHECK-DAG: %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG: %[[STEP4:.*]] = arith.constant 256 : index
// CHECK: scf.for %[[BASE:.*]] = %[[TID]] to %{{.*}} step %[[STEP4]] {
// CHECK-COUNT-4: memref.load %{{.*}} : memref<?x64xf32>
// CHECK: }
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.load %{{.*}} : memref<?x64xf32>
// CHECK: }
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK-NEXT: scf.for %[[COL:.*]] = %[[TID]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<32x64xf32>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
module {
  func.func public @col_sum(%x: memref<?x64xf32>, %out: memref<64xf32>, %rows: index,
                            %pid_x: i32, %pid_y: i32, %pid_z: i32,
                            %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %tile = memref.alloc() : memref<32x64xf32>
    %acc = memref.alloc() : memref<64xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %c64) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<?x64xf32>
      memref.store %v, %tile[%i, %j] : memref<32x64xf32>
      scf.reduce
    }
    scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
      memref.store %zero, %acc[%j] : memref<64xf32>
      scf.reduce
    }
    scf.for %i = %c0 to %c32 step %c1 {
      scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
        %v = memref.load %tile[%i, %j] : memref<32x64xf32>
        %a = memref.load %acc[%j] : memref<64xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%j] : memref<64xf32>
        scf.reduce
      }
    }
    scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
      %a = memref.load %acc[%j] : memref<64xf32>
      memref.store %a, %out[%j] : memref<64xf32>
      scf.reduce
    }
    return
  }
}

// -----

// Not interchanged: each step reads the element its neighbour column wrote in the step
// before (acc[j] and acc[j + 1]), so the steps need the barrier between them.
// CHECK-LABEL: gpu.func @shift(
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.barrier
module {
  func.func public @shift(%out: memref<65xf32>,
                          %pid_x: i32, %pid_y: i32, %pid_z: i32,
                          %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %acc = memref.alloc() : memref<65xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
        %j1 = arith.addi %j, %c1 : index
        %a = memref.load %acc[%j1] : memref<65xf32>
        memref.store %a, %acc[%j] : memref<65xf32>
        scf.reduce
      }
    }
    memref.copy %acc, %out : memref<65xf32> to memref<65xf32>
    return
  }
}

// -----

// A masked copy: the number of columns is dynamic (min(columns left, 64)) but never above 64,
// so the threads delinearize over the whole row of 64 with a constant divisor, each body
// guarded by the dynamic count (no division by a run-time value); the rows keep their count.
// CHECK-LABEL: gpu.func @masked_copy(
// CHECK-NOT: arith.divui %{{.*}}, %{{.*}} : index
// CHECK: scf.for
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK: arith.divui %{{.*}}, %c64 : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[COL]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
module {
  func.func public @masked_copy(%x: memref<32x?xf32>, %left: index,
                                %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %tile = memref.alloc() : memref<32x64xf32>
    %m = arith.minsi %left, %c64 : index
    %cols = arith.maxsi %m, %c0 : index
    scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %cols) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<32x?xf32>
      memref.store %v, %tile[%i, %j] : memref<32x64xf32>
      scf.reduce
    }
    memref.copy %tile, %x : memref<32x64xf32> to memref<32x?xf32>
    return
  }
}

// -----

// Tiles of 64 KB: views of the dynamic arena at 16-byte aligned offsets, its size recorded.
// CHECK: tessel.dynamic_shared_bytes = {big = 65548 : i64}
// CHECK-LABEL: gpu.func @big(
// CHECK-DAG: %[[AT0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[AT1:.*]] = arith.constant 65536 : index
// CHECK-DAG: %[[ARENA:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[ARENA]][%[[AT0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[ARENA]][%[[AT1]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xf32, #gpu.address_space<workgroup>>
module {
  func.func public @big(%x: memref<128x128xf32>, %y: memref<3xf32>,
                        %pid_x: i32, %pid_y: i32, %pid_z: i32,
                        %gx: i32, %gy: i32, %gz: i32) {
    %tile = memref.alloc() : memref<128x128xf32>
    %small = memref.alloc() : memref<3xf32>
    memref.copy %x, %tile : memref<128x128xf32> to memref<128x128xf32>
    memref.copy %y, %small : memref<3xf32> to memref<3xf32>
    memref.copy %tile, %x : memref<128x128xf32> to memref<128x128xf32>
    memref.copy %small, %y : memref<3xf32> to memref<3xf32>
    return
  }
}

// -----

// In the arena, buffers whose lifetimes do not overlap share bytes (compiler/analysis/
// Allocation.h): %second is first used after %first's last use, so both are views at offset 0,
// and the arena is 64 KB, not 128.
// CHECK: tessel.dynamic_shared_bytes = {reuse = 65536 : i64}
// CHECK-LABEL: gpu.func @reuse(
// CHECK-DAG: %[[AT0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ARENA:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[ARENA]][%[[AT0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[ARENA]][%[[AT0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x128xf32, #gpu.address_space<workgroup>>
module {
  func.func public @reuse(%x: memref<128x128xf32>, %y: memref<128x128xf32>,
                          %pid_x: i32, %pid_y: i32, %pid_z: i32,
                          %gx: i32, %gy: i32, %gz: i32) {
    %first = memref.alloc() : memref<128x128xf32>
    %second = memref.alloc() : memref<128x128xf32>
    memref.copy %x, %first : memref<128x128xf32> to memref<128x128xf32>
    memref.copy %first, %x : memref<128x128xf32> to memref<128x128xf32>
    memref.copy %y, %second : memref<128x128xf32> to memref<128x128xf32>
    memref.copy %second, %y : memref<128x128xf32> to memref<128x128xf32>
    return
  }
}

// -----

// A row-wise reduction of a shared tile (one thread a row, the columns in sequence: softmax's
// max and sum over a score tile): thread p visits column (k + p) mod 64 at step k, so the
// threads of a warp read different banks (a 64-float row put them all on one).
// CHECK-LABEL: gpu.func @row_max(
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[K]], %[[ROW:.*]] : index
// CHECK-NEXT: %[[COL:.*]] = arith.remui %[[SUM]], %c64 : index
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<32x64xf32>
// CHECK: arith.maxnumf
module {
  func.func public @row_max(%x: memref<32x64xf32>, %out: memref<32xf32>,
                            %pid_x: i32, %pid_y: i32, %pid_z: i32,
                            %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %low = arith.constant -1.0e30 : f32
    %tile = memref.alloc() : memref<32x64xf32>
    %acc = memref.alloc() : memref<32xf32>
    memref.copy %x, %tile : memref<32x64xf32> to memref<32x64xf32>
    scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
      memref.store %low, %acc[%i] : memref<32xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
      scf.for %k = %c0 to %c64 step %c1 {
        %v = memref.load %tile[%i, %k] : memref<32x64xf32>
        %a = memref.load %acc[%i] : memref<32xf32>
        %m = arith.maxnumf %a, %v : f32
        memref.store %m, %acc[%i] : memref<32xf32>
      }
      scf.reduce
    }
    memref.copy %acc, %out : memref<32xf32> to memref<32xf32>
    return
  }
}

// -----

// A noinline device function named the way Triton names them: PTX names allow only
// [A-Za-z0-9_$] (LLVM aborted on this one), so it is renamed, calls too.
// CHECK: func.func private @__main___scale_add__fp32___1__(
// CHECK-LABEL: gpu.func @axpy(
// CHECK: func.call @__main___scale_add__fp32___1__(
module {
  func.func private @"__main__.scale_add__fp32__(1,)"(%x: f32) -> f32 {
    %r = arith.addf %x, %x : f32
    return %r : f32
  }
  func.func public @axpy(%out: memref<f32>, %a: f32,
                         %pid_x: i32, %pid_y: i32, %pid_z: i32,
                         %gx: i32, %gy: i32, %gz: i32) {
    %r = func.call @"__main__.scale_add__fp32__(1,)"(%a) : (f32) -> f32
    memref.store %r, %out[] : memref<f32>
    return
  }
}

// -----

// A reduction into two scalars at once (tl.argmax: the value and its index, the first element
// already in the accumulators): each thread combines its iterations (the first taken as it
// is), the partials halve in a tree in shared memory (64 threads: 32, 16, ..., 1), and thread
// 0 combines the total into both accumulators.
// CHECK-LABEL: gpu.func @argmax(
// CHECK-SAME: workgroup(
// CHECK-SAME: memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: memref<64xi32, #gpu.address_space<workgroup>>
// CHECK-SAME: memref<64xi1, #gpu.address_space<workgroup>>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %false) -> (f32, i32, i1)
// CHECK: arith.cmpi ult, %[[TID]], %c32
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[TID]], %c1
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq, %[[TID]]
// CHECK: scf.if
// CHECK: memref.store
// CHECK: memref.store
module {
  func.func public @argmax(%x: memref<?xf32>, %idx: memref<?xi32>, %out_v: memref<f32>,
                           %out_i: memref<i32>,
                           %pid_x: i32, %pid_y: i32, %pid_z: i32,
                           %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %v = memref.alloc() : memref<f32>
    %i = memref.alloc() : memref<i32>
    %v0 = memref.load %x[%c0] : memref<?xf32>
    memref.store %v0, %v[] : memref<f32>
    %i0 = memref.load %idx[%c0] : memref<?xi32>
    memref.store %i0, %i[] : memref<i32>
    scf.for %k = %c1 to %c1000 step %c1 {
      %ev = memref.load %x[%k] : memref<?xf32>
      %ei = memref.load %idx[%k] : memref<?xi32>
      %av = memref.load %v[] : memref<f32>
      %ai = memref.load %i[] : memref<i32>
      %eq = arith.cmpf oeq, %av, %ev : f32
      %gt = arith.cmpf ogt, %av, %ev : f32
      %lt = arith.cmpi slt, %ai, %ei : i32
      %tie = arith.andi %eq, %lt : i1
      %keep = arith.ori %gt, %tie : i1
      %nv = arith.select %keep, %av, %ev : f32
      %ni = arith.select %keep, %ai, %ei : i32
      memref.store %nv, %v[] : memref<f32>
      memref.store %ni, %i[] : memref<i32>
    }
    %rv = memref.load %v[] : memref<f32>
    memref.store %rv, %out_v[] : memref<f32>
    %ri = memref.load %i[] : memref<i32>
    memref.store %ri, %out_i[] : memref<i32>
    return
  }
}
