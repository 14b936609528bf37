// Tiles kept in the threads' registers (ThreadTiles.cpp), after tessel-cuda-whole-tile-loops
// has made the masked load's two loops over parts of the tile guarded loops over all of it.
// 64 threads, 128-element tiles: each thread keeps 2 slots of each (elements tid, tid + 64),
// every loop over a tile runs on each thread's slots without a barrier, the reduction into a
// scalar combines the slots and then the block (warp shuffles), and no tile is in shared
// memory. A column sum of an 8 x 32 tile: each thread sums its 4 slots of one column, the two
// partial sums of a column meet in a 2 x 32 shared buffer. A tile carried through a loop is
// copied into the carried slots at the end of each iteration. A column sum with more columns
// than threads needs no shared memory: each thread sums its own columns.
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-whole-tile-loops),tessel-cuda-map-programs{num-warps=2})' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-whole-tile-loops))' | FileCheck %s --check-prefix=WHOLE
// RUN: not tessel-opt %s --split-input-file --tessel-cuda-map-programs='thread-tile-elements=-1' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: thread-tile-elements must be 0..256, got -1

// WHOLE-LABEL: func.func public @scaled_max(
// WHOLE: scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%c128{{.*}}) step
// WHOLE: %[[LO:.*]] = arith.cmpi sge, %[[J]], %[[N:.*]] : index
// WHOLE: %[[IN:.*]] = arith.andi %[[LO]]
// WHOLE: scf.if %[[IN]] {
// WHOLE-NEXT: memref.store %{{.*}}, %[[TILE:.*]][%[[J]]] : memref<128xf32>
// WHOLE: scf.parallel (%[[K:.*]]) = (%{{.*}}) to (%c128{{.*}}) step
// WHOLE: arith.cmpi slt, %[[K]], %[[N]] : index

// CHECK-LABEL: gpu.func @scaled_max(
// CHECK-NOT: workgroup({{.*}}memref<128xf32
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[X:.*]] = memref.alloca() : memref<2xf32>
// CHECK: scf.execute_region {
// CHECK: memref.load %{{.*}}[%[[TID]]] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[X]][%c0] : memref<2xf32>
// CHECK: %[[SECOND:.*]] = arith.addi %[[TID]], %c64 : index
// CHECK: memref.load %{{.*}}[%[[SECOND]]] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[X]][%c1] : memref<2xf32>
// CHECK: } {tessel.per_thread}
// CHECK: scf.execute_region {
// CHECK: %[[A:.*]] = memref.load %[[X]][%c0]
// CHECK: %[[B:.*]] = memref.load %[[X]][%c1]
// CHECK: arith.maxnumf %[[A]], %[[B]]
// CHECK: gpu.shuffle xor
// CHECK: } {tessel.per_thread}
// CHECK: gpu.barrier
// CHECK: scf.execute_region {
// CHECK: memref.load %[[X]][%c0]
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK: } {tessel.per_thread}
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
module {
  func.func public @scaled_max(%x: memref<?xf32>, %out: memref<?xf32>, %n: index,
                               %pid_x: i32, %pid_y: i32, %pid_z: i32,
                               %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %ninf = arith.constant 0xFF800000 : f32
    %tile = memref.alloc() : memref<128xf32>
    %rest = arith.subi %c128, %n : index
    %pad = memref.subview %tile[%n] [%rest] [1] : memref<128xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.parallel (%i) = (%c0) to (%rest) step (%c1) {
      memref.store %ninf, %pad[%i] : memref<?xf32, strided<[1], offset: ?>>
      scf.reduce
    }
    %part = memref.subview %tile[0] [%n] [1] : memref<128xf32> to memref<?xf32, strided<[1]>>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %part[%i] : memref<?xf32, strided<[1]>>
      scf.reduce
    }
    %acc = memref.alloc() : memref<f32>
    memref.store %ninf, %acc[] : memref<f32>
    scf.for %i = %c0 to %c128 step %c1 {
      %v = memref.load %tile[%i] : memref<128xf32>
      %a = memref.load %acc[] : memref<f32>
      %m = arith.maxnumf %a, %v : f32
      memref.store %m, %acc[] : memref<f32>
    }
    %max = memref.load %acc[] : memref<f32>
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %v = memref.load %tile[%i] : memref<128xf32>
      %s = arith.mulf %v, %max : f32
      memref.store %s, %out[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }
}

// -----

// CHECK-LABEL: gpu.func @col_sum(
// CHECK-SAME: workgroup(%[[PARTS:.*]] : memref<2x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG: %[[X:.*]] = memref.alloca() : memref<4xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() : memref<1xf32>
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[GROUP:.*]] = arith.divui %[[TID]], %c32
// CHECK: memref.load %[[X]][%c0]
// CHECK: memref.load %[[X]][%c3]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[GROUP]], %[[COL]]] : memref<2x32xf32>
// CHECK: } {tessel.per_thread}
// CHECK-NEXT: gpu.barrier
// CHECK: scf.execute_region {
// CHECK: memref.load %{{.*}}[%c0{{.*}}, %[[TID]]] : memref<2x32xf32>
// CHECK: memref.load %{{.*}}[%c1{{.*}}, %[[TID]]] : memref<2x32xf32>
// CHECK: memref.store %{{.*}}, %[[ACC]][%c0] : memref<1xf32>
// CHECK: } {tessel.per_thread}
module {
  func.func public @col_sum(%x: memref<?xf32>, %out: memref<?xf32>,
                            %pid_x: i32, %pid_y: i32, %pid_z: i32,
                            %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %tile = memref.alloc() : memref<8x32xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
      %at = arith.muli %i, %c32 : index
      %k = arith.addi %at, %j : index
      %v = memref.load %x[%k] : memref<?xf32>
      memref.store %v, %tile[%i, %j] : memref<8x32xf32>
      scf.reduce
    }
    %acc = memref.alloc() : memref<32xf32>
    scf.parallel (%j) = (%c0) to (%c32) step (%c1) {
      memref.store %zero, %acc[%j] : memref<32xf32>
      scf.reduce
    }
    scf.for %i = %c0 to %c8 step %c1 {
      scf.parallel (%j) = (%c0) to (%c32) step (%c1) {
        %v = memref.load %tile[%i, %j] : memref<8x32xf32>
        %a = memref.load %acc[%j] : memref<32xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%j] : memref<32xf32>
        scf.reduce
      }
    }
    scf.parallel (%j) = (%c0) to (%c32) step (%c1) {
      %v = memref.load %acc[%j] : memref<32xf32>
      memref.store %v, %out[%j] : memref<?xf32>
      scf.reduce
    }
    return
  }
}

// -----

// CHECK-LABEL: gpu.func @carried(
// CHECK-NOT: workgroup
// CHECK: %[[INIT:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[NEXT:.*]] = memref.alloca() : memref<2xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.load %[[INIT]][%c0]
// CHECK: memref.store %{{.*}}, %[[NEXT]][%c0]
// CHECK: scf.execute_region {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[NEXT]][%c0]
// CHECK-NEXT: memref.store %[[V]], %[[INIT]][%c0]
// CHECK: } {tessel.per_thread}
// CHECK-NEXT: }
module {
  func.func public @carried(%x: memref<?xf32>, %out: memref<?xf32>, %n: index,
                            %pid_x: i32, %pid_y: i32, %pid_z: i32,
                            %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %init = memref.alloc() : memref<128xf32>
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      memref.store %zero, %init[%i] : memref<128xf32>
      scf.reduce
    }
    %sum = scf.for %r = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<128xf32>) {
      %next = memref.alloc() : memref<128xf32>
      %row = arith.muli %r, %c128 : index
      scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
        %k = arith.addi %row, %i : index
        %v = memref.load %x[%k] : memref<?xf32>
        %a = memref.load %acc[%i] : memref<128xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %next[%i] : memref<128xf32>
        scf.reduce
      }
      scf.yield %next : memref<128xf32>
    }
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %v = memref.load %sum[%i] : memref<128xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }
}

// -----

// A column sum whose columns outnumber the threads (4 x 128 tile, 64 threads): each thread
// owns columns tid and tid + 64 of every row and sums them alone, no shared memory.
// CHECK-LABEL: gpu.func @wide_col_sum(
// CHECK-NOT: workgroup
// CHECK-DAG: %[[X:.*]] = memref.alloca() : memref<8xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() : memref<2xf32>
// CHECK: memref.load %[[X]][%c0]
// CHECK: memref.load %[[X]][%c2]
// CHECK: memref.load %[[X]][%c4]
// CHECK: memref.load %[[X]][%c6]
// CHECK: memref.load %[[ACC]][%c0]
// CHECK: memref.store %{{.*}}, %[[ACC]][%c0]
// CHECK: memref.load %[[X]][%c1]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
module {
  func.func public @wide_col_sum(%x: memref<?xf32>, %out: memref<?xf32>,
                                 %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                 %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %tile = memref.alloc() : memref<4x128xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c128) step (%c1, %c1) {
      %at = arith.muli %i, %c128 : index
      %k = arith.addi %at, %j : index
      %v = memref.load %x[%k] : memref<?xf32>
      memref.store %v, %tile[%i, %j] : memref<4x128xf32>
      scf.reduce
    }
    %acc = memref.alloc() : memref<128xf32>
    scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
      memref.store %zero, %acc[%j] : memref<128xf32>
      scf.reduce
    }
    scf.for %i = %c0 to %c4 step %c1 {
      scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
        %v = memref.load %tile[%i, %j] : memref<4x128xf32>
        %a = memref.load %acc[%j] : memref<128xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%j] : memref<128xf32>
        scf.reduce
      }
    }
    scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
      %v = memref.load %acc[%j] : memref<128xf32>
      memref.store %v, %out[%j] : memref<?xf32>
      scf.reduce
    }
    return
  }
}

// -----

// A loop over a tile inside a while loop: MapPrograms gives the while loop to thread 0, so the
// tile stays in shared memory (thread 0 then runs the whole loop over it).
// CHECK-LABEL: gpu.func @in_while(
// CHECK-SAME: workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: tessel.per_thread
// CHECK: gpu.return
module {
  func.func public @in_while(%x: memref<?xf32>, %n: index,
                             %pid_x: i32, %pid_y: i32, %pid_z: i32,
                             %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %tile = memref.alloc() : memref<128xf32>
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%i: index):
      scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
        %v = memref.load %x[%j] : memref<?xf32>
        memref.store %v, %tile[%j] : memref<128xf32>
        scf.reduce
      }
      scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
        %v = memref.load %tile[%j] : memref<128xf32>
        %w = arith.addf %v, %v : f32
        memref.store %w, %x[%j] : memref<?xf32>
        scf.reduce
      }
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    return
  }
}

// -----

// Two loops in a row, the first reading its carried tile reversed (not element for element):
// neither carried tile is kept, and the second loop's own tile, which it yields, is not kept
// alone (it was erased while the yield still used it).
// CHECK-LABEL: gpu.func @two_loops(
// CHECK-SAME: workgroup(
// CHECK: gpu.return
module {
  func.func public @two_loops(%x: memref<?xf32>, %n: index,
                              %pid_x: i32, %pid_y: i32, %pid_z: i32,
                              %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    %t = memref.alloc() : memref<128xf32>
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      memref.store %one, %t[%i] : memref<128xf32>
      scf.reduce
    }
    %r1 = scf.for %k = %c0 to %n step %c1 iter_args(%a1 = %t) -> (memref<128xf32>) {
      %n1 = memref.alloc() : memref<128xf32>
      scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
        %j = arith.subi %c127, %i : index
        %v = memref.load %a1[%j] : memref<128xf32>
        memref.store %v, %n1[%i] : memref<128xf32>
        scf.reduce
      }
      scf.yield %n1 : memref<128xf32>
    }
    %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%a2 = %r1) -> (memref<128xf32>) {
      %n2 = memref.alloc() : memref<128xf32>
      scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
        %v = memref.load %a2[%i] : memref<128xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %n2[%i] : memref<128xf32>
        scf.reduce
      }
      scf.yield %n2 : memref<128xf32>
    }
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %v = memref.load %r2[%i] : memref<128xf32>
      memref.store %v, %x[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }
}

// -----

// A column sum (more columns than threads) whose accumulator is also read by a loop over the
// tile (a broadcast, not element for element): the accumulator cannot be kept, so the tile is
// not kept either (it was kept alone, and the column reduction used a missing accumulator).
// CHECK-LABEL: gpu.func @col_sum_broadcast(
// CHECK-SAME: workgroup(
// CHECK: gpu.return
module {
  func.func public @col_sum_broadcast(%x: memref<?xf32>, %y: memref<?xf32>,
                                      %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                      %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %tile = memref.alloc() : memref<4x128xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c128) step (%c1, %c1) {
      %at = arith.muli %i, %c128 : index
      %k = arith.addi %at, %j : index
      %v = memref.load %x[%k] : memref<?xf32>
      memref.store %v, %tile[%i, %j] : memref<4x128xf32>
      scf.reduce
    }
    %acc = memref.alloc() : memref<128xf32>
    scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
      memref.store %zero, %acc[%j] : memref<128xf32>
      scf.reduce
    }
    scf.for %i = %c0 to %c4 step %c1 {
      scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
        %v = memref.load %tile[%i, %j] : memref<4x128xf32>
        %a = memref.load %acc[%j] : memref<128xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%j] : memref<128xf32>
        scf.reduce
      }
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c128) step (%c1, %c1) {
      %v = memref.load %tile[%i, %j] : memref<4x128xf32>
      %a = memref.load %acc[%j] : memref<128xf32>
      %d = arith.subf %v, %a : f32
      %at = arith.muli %i, %c128 : index
      %k = arith.addi %at, %j : index
      memref.store %d, %y[%k] : memref<?xf32>
      scf.reduce
    }
    return
  }
}

// -----

// A loop over a kept tile that writes global memory, then a loop that reads it back at other
// threads' elements: a barrier between them.
// CHECK-LABEL: gpu.func @store_then_reverse(
// CHECK: } {tessel.per_thread}
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: } {tessel.per_thread}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
module {
  func.func public @store_then_reverse(%x: memref<?xf32>, %out: memref<?xf32>,
                                       %pid_x: i32, %pid_y: i32, %pid_z: i32,
                                       %gx: i32, %gy: i32, %gz: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %tile = memref.alloc() : memref<128xf32>
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %tile[%i] : memref<128xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %v = memref.load %tile[%i] : memref<128xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %j = arith.subi %c127, %i : index
      %v = memref.load %out[%j] : memref<?xf32>
      memref.store %v, %x[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }
}
