// Matmuls on Hopper's warpgroups (WarpgroupDots.cpp, tessel-cuda-tensor-core-dots with
// wgmma=true). A K loop copies A (64 x 32 bf16: rows of 64 bytes) and B (32 x 128: rows of 256
// bytes) from global memory with cp.async, so both tiles are stored swizzled; 4 warps are one
// warpgroup, which takes all of the 64 x 128 accumulator: per k step of 16 one
// wgmma.mma_async.m64n128k16, A K-major through a descriptor of the 64-byte swizzle (stride 8
// rows = 512 bytes), B N-major (wgmma transposes it) through one of the 128-byte swizzle with
// its two 64-column blocks 32 x 128 = 4096 bytes apart (leading offset) and 8 k rows 1024
// bytes apart (stride). The wait for the copies is followed by a proxy fence (wgmma reads
// shared memory through the async proxy). Pipelined over 2 stages, the loop's wgmma group stays
// in flight into the next iteration (wait 1), its tiles taking 3 slots (the copies of
// iteration i + 1 go into the slot of iteration i - 2), and the accumulators are waited for
// (wait 0) after the loop, inside a guard that the loop runs (so that the wait is on the way
// out of the loop only), before the barrier that precedes their store (C's bytes may be the
// tiles', which the other warpgroups' wgmma read until their wait).
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4 wgmma=true},tessel-cuda-pipeline-tile-loads{num-stages=2}))' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4 wgmma=true},tessel-cuda-pipeline-tile-loads{num-stages=2}),convert-linalg-to-parallel-loops,canonicalize,cse,tessel-cuda-map-programs{num-warps=4})' | FileCheck %s --check-prefix=MAP
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4 wgmma=true},tessel-cuda-pipeline-tile-loads{num-stages=2 max-shared-bytes=30000}))' | FileCheck %s --check-prefix=FIT
// With 8 warps (two warpgroups, 64 columns each) and 3 stages, each iteration issues its
// copies after its step (while the tensor cores run it) with no barrier of their own: their
// slot was released by every warpgroup's wait at the end of the previous step, before the one
// barrier of the iteration; the wait before the step leaves one iteration's groups pending. One
// warpgroup (4 warps) keeps the copies first.
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 wgmma=true},tessel-cuda-pipeline-tile-loads{num-stages=3}),convert-linalg-to-parallel-loops,canonicalize,cse,tessel-cuda-map-programs{num-warps=8})' | FileCheck %s --check-prefix=AFTER
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4 wgmma=true},tessel-cuda-pipeline-tile-loads{num-stages=3}))' | FileCheck %s --check-prefix=ONEGROUP
// AFTER-LABEL: gpu.func @k_loop(
// AFTER: gpu.barrier
// AFTER: } {tessel.async_copy, tessel.per_thread, tessel.slots_released}
// AFTER: scf.while
// AFTER: } do {
// AFTER: nvvm.cp.async.wait.group 2
// AFTER: gpu.barrier
// AFTER-NOT: gpu.barrier
// AFTER: } {tessel.per_thread, tessel.warpgroup_step = 2 : i64}
// AFTER-NOT: gpu.barrier
// AFTER: } {tessel.async_copy, tessel.per_thread, tessel.slots_released}
// AFTER-NOT: gpu.barrier
// AFTER: scf.for
// ONEGROUP-LABEL: func.func public @k_loop(
// ONEGROUP-NOT: tessel.slots_released
// ONEGROUP: scf.for
// ONEGROUP: } {tessel.async_copy, tessel.per_thread}
// ONEGROUP: nvvm.cp.async.wait.group 4
// ONEGROUP: } {tessel.per_thread, tessel.warpgroup_step = 1 : i64}
// RUN: tessel-compile %s --entry k_loop --target cuda:sm_90a --emit ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tessel-compile %s --entry k_loop --target cuda:sm_90 --emit ptx -o - | FileCheck %s --check-prefix=SM90

// CHECK-LABEL: func.func public @k_loop(
// CHECK-DAG: memref.alloc() {tessel.swizzled, tessel.tile_alignment = 1024 : i64} : memref<3x64x32xbf16>
// CHECK-DAG: memref.alloc() {tessel.swizzled, tessel.tile_alignment = 1024 : i64} : memref<3x32x128xbf16>
// The loop under a guard that it runs. Its iterations whose copies all take their fast path
// first: an scf.while whose condition region evaluates the fast paths' conditions, its body
// the loop's with them true (no general or unaligned path in it). Then the loop from where
// that one stopped, with every path.
// CHECK: scf.if
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: } do {
// CHECK: scf.if %true
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: } {tessel.per_thread, tessel.warpgroup_step = 1 : i64}
// CHECK: scf.for %{{.*}} = %{{.*}}#0 to
// CHECK: nvvm.cp.async.wait.group 2
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: } {tessel.async_wait, tessel.per_thread}
// CHECK: scf.execute_region -> (vector<4xf32>
// CHECK: nvvm.wgmma.fence.aligned
// The descriptors' fields past the address: A's (leading 16, stride 512, 64-byte swizzle) and
// B's (leading 4096, stride 1024, 128-byte swizzle).
// CHECK-DAG: arith.constant 4611686293322072064 : i64
// CHECK-DAG: arith.constant -9223371899415756800 : i64
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: } {tessel.per_thread, tessel.warpgroup_step = 1 : i64}
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tessel.per_thread}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.execute_region
// CHECK-NOT: nvvm.wgmma.wait
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<{{.*}}xf32>, vector<2xf32>
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: linalg.matmul

// Where the third slots would not fit the block's shared memory (here 30000 bytes; 3 slots of
// both tiles take 37888), the tiles keep 2 slots and each step waits for its group.
// FIT-LABEL: func.func public @k_loop(
// FIT-DAG: memref.alloc() {tessel.swizzled, tessel.tile_alignment = 1024 : i64} : memref<2x64x32xbf16>
// FIT-DAG: memref.alloc() {tessel.swizzled, tessel.tile_alignment = 1024 : i64} : memref<2x32x128xbf16>
// FIT: nvvm.wgmma.commit.group.sync.aligned
// FIT-NEXT: nvvm.wgmma.wait.group.sync.aligned 0

// The tiles are views of the arena at 1024-byte boundaries: its start rounded up at run time
// (the kernel asks for 1024 bytes more). A kernel without wgmma keeps its static tiles.
// MAP: tessel.dynamic_shared_bytes = {k_loop = 37888 : i64
// MAP-LABEL: gpu.func @k_loop(
// MAP: %[[ARENA:.*]] = gpu.dynamic_shared_memory
// MAP: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[ARENA]]
// MAP: %[[MIS:.*]] = arith.remui %[[BASE]], %c1024
// MAP: %[[UP:.*]] = arith.subi %c1024, %[[MIS]]
// MAP: %[[PAD:.*]] = arith.remui %[[UP]], %c1024
// MAP-DAG: memref.view %[[ARENA]][%[[PAD]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x128xbf16
// MAP-DAG: memref.view %[[ARENA]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x64x32xbf16
// MAP: nvvm.wgmma.wait.group.sync.aligned 0
// MAP-NEXT: scf.yield
// MAP-NEXT: } {tessel.per_thread}
// MAP-NEXT: scf.yield
// MAP-NEXT: } else {
// MAP-NEXT: scf.yield
// MAP-NEXT: }
// MAP-NEXT: gpu.barrier
// MAP-LABEL: gpu.func @short_m(
// MAP-NOT: gpu.dynamic_shared_memory
// MAP: workgroup(

// PTX-LABEL: .entry k_loop(
// PTX: cp.async.wait_group 2;
// PTX-NEXT: fence.proxy.async.shared::cta;
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX: wgmma.wait_group.sync.aligned 0;

// sm_90 has no wgmma: mma.sync.
// SM90-LABEL: .entry k_loop(
// SM90-NOT: wgmma
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func public @k_loop(%a: memref<?xbf16>, %b: memref<?xbf16>, %out: memref<?xf32>, %n: i32,
                         %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %steps = arith.index_cast %n : i32 to index
  %kk = arith.muli %steps, %c32 : index
  %a2 = memref.reinterpret_cast %a to offset: [0], sizes: [64, %kk], strides: [%kk, 1]
      : memref<?xbf16> to memref<64x?xbf16, strided<[?, 1]>>
  %b2 = memref.reinterpret_cast %b to offset: [0], sizes: [%kk, 128], strides: [128, 1]
      : memref<?xbf16> to memref<?x128xbf16, strided<[128, 1]>>
  %ta = memref.alloc() : memref<64x32xbf16>
  %tb = memref.alloc() : memref<32x128xbf16>
  %acc = memref.alloc() : memref<64x128xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x128xf32>)
  scf.for %k = %c0 to %steps step %c1 {
    %col = arith.muli %k, %c32 : index
    %va = memref.subview %a2[0, %col] [64, 32] [1, 1]
        : memref<64x?xbf16, strided<[?, 1]>> to memref<64x32xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<64x32xbf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<64x32xbf16>)
    %vb = memref.subview %b2[%col, 0] [32, 128] [1, 1]
        : memref<?x128xbf16, strided<[128, 1]>> to memref<32x128xbf16, strided<[128, 1], offset: ?>>
    linalg.copy ins(%vb : memref<32x128xbf16, strided<[128, 1], offset: ?>>)
                outs(%tb : memref<32x128xbf16>)
    linalg.matmul ins(%ta, %tb : memref<64x32xbf16>, memref<32x128xbf16>)
                  outs(%acc : memref<64x128xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<64x128xf32> into memref<8192xf32>
  %view = memref.subview %out[0] [8192] [1] : memref<?xf32> to memref<8192xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<8192xf32>) outs(%view : memref<8192xf32, strided<[1]>>)
  return
}

// -----

// M = 32 is no whole warpgroup's 64 rows: mma.sync, and the tiles keep static shared
// variables (no alignment asked for).
// CHECK-LABEL: func.func public @short_m(
// CHECK-NOT: tessel.tile_alignment
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.fence.proxy
func.func public @short_m(%a: memref<?x?xbf16, strided<[?, 1], offset: ?>>,
                          %b: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %out: memref<?xf32>,
                          %n: index, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                          %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<32x32xbf16>
  %tb = memref.alloc() : memref<32x64xbf16>
  %acc = memref.alloc() : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<32x64xf32>)
  scf.for %k = %c0 to %n step %c1 {
    %col = arith.muli %k, %c32 : index
    %va = memref.subview %a[0, %col] [32, 32] [1, 1]
        : memref<?x?xbf16, strided<[?, 1], offset: ?>> to memref<32x32xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<32x32xbf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<32x32xbf16>)
    %vb = memref.subview %b[%col, 0] [32, 64] [1, 1]
        : memref<?x?xbf16, strided<[?, 1], offset: ?>> to memref<32x64xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%vb : memref<32x64xbf16, strided<[?, 1], offset: ?>>)
                outs(%tb : memref<32x64xbf16>)
    linalg.matmul ins(%ta, %tb : memref<32x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<32x64xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<32x64xf32> into memref<2048xf32>
  %view = memref.subview %out[0] [2048] [1] : memref<?xf32> to memref<2048xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<2048xf32>) outs(%view : memref<2048xf32, strided<[1]>>)
  return
}

// -----

// A tile written once before the K loop (attention's Q: a masked load, a zero fill of the rows
// past the end and a copy of the others) and read only by the matmul: its synchronous 16-byte
// chunks are stored swizzled too, the row fill as chunks of those rows, so wgmma reads it as
// the K loop's tiles; a proxy fence ends each region that writes it.
// CHECK-LABEL: func.func public @tile_before_loop(
// CHECK: memref.alloc() {tessel.swizzled, tessel.tile_alignment = 1024 : i64} : memref<64x64xbf16>
// CHECK-NOT: linalg.fill ins(%{{.*}} : bf16)
// CHECK: scf.execute_region no_inline {
// CHECK: arith.cmpi uge
// CHECK: arith.xori
// CHECK: vector.store
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: scf.yield
// CHECK: } {tessel.per_thread}
// CHECK: nvvm.wgmma.mma_async
func.func public @tile_before_loop(%a: memref<?xbf16>, %b: memref<?xbf16>, %out: memref<?xf32>,
                                   %n: i32, %rows: index, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                                   %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %h0 = arith.constant 0.0 : bf16
  %steps = arith.index_cast %n : i32 to index
  %kk = arith.muli %steps, %c64 : index
  %a2 = memref.reinterpret_cast %a to offset: [0], sizes: [64, 64], strides: [64, 1]
      : memref<?xbf16> to memref<64x64xbf16, strided<[64, 1]>>
  %b2 = memref.reinterpret_cast %b to offset: [0], sizes: [%kk, 64], strides: [64, 1]
      : memref<?xbf16> to memref<?x64xbf16, strided<[64, 1]>>
  %ta = memref.alloc() : memref<64x64xbf16>
  %tb = memref.alloc() : memref<64x64xbf16>
  %acc = memref.alloc() : memref<64x64xf32>
  %pad = arith.subi %c64, %rows : index
  %fillRows = memref.subview %ta[%rows, 0] [%pad, 64] [1, 1]
      : memref<64x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  linalg.fill ins(%h0 : bf16) outs(%fillRows : memref<?x64xbf16, strided<[64, 1], offset: ?>>)
  %src = memref.subview %a2[0, 0] [%rows, 64] [1, 1]
      : memref<64x64xbf16, strided<[64, 1]>> to memref<?x64xbf16, strided<[64, 1]>>
  %dst = memref.subview %ta[0, 0] [%rows, 64] [1, 1]
      : memref<64x64xbf16> to memref<?x64xbf16, strided<[64, 1]>>
  linalg.copy ins(%src : memref<?x64xbf16, strided<[64, 1]>>)
              outs(%dst : memref<?x64xbf16, strided<[64, 1]>>)
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  scf.for %k = %c0 to %steps step %c1 {
    %row = arith.muli %k, %c64 : index
    %vb = memref.subview %b2[%row, 0] [64, 64] [1, 1]
        : memref<?x64xbf16, strided<[64, 1]>> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
    linalg.copy ins(%vb : memref<64x64xbf16, strided<[64, 1], offset: ?>>)
                outs(%tb : memref<64x64xbf16>)
    linalg.matmul ins(%ta, %tb : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<64x64xf32> into memref<4096xf32>
  %view = memref.subview %out[0] [4096] [1] : memref<?xf32> to memref<4096xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<4096xf32>) outs(%view : memref<4096xf32, strided<[1]>>)
  return
}

// -----

// C converted to bf16 before it goes on (as the structured lowering leaves a matmul's
// epilogue): the conversion runs on the accumulators and they are stored into the bf16 tile, each
// lane's two adjacent columns as one 4-byte vector store; the f32 tile and the conversion are
// gone, the copy of the tile's in-bounds part stays. The tile's rows are 8 elements longer
// (the first 128 columns of a 64 x 136 buffer): a warp's store then spreads over the banks.
// CHECK-LABEL: func.func public @converted_epilogue(
// CHECK-NOT: memref<64x128xf32>
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: } else {
// CHECK: %[[WIDE:.*]] = memref.alloc() : memref<64x136xbf16>
// CHECK-NEXT: %[[T:.*]] = memref.subview %[[WIDE]][0, 0] [64, 128] [1, 1] : memref<64x136xbf16> to memref<64x128xbf16, strided<[136, 1]>>
// CHECK-NEXT: scf.execute_region
// CHECK: %[[L0:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: vector.extract
// CHECK-NEXT: %[[H0:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[V:.*]] = vector.from_elements %[[L0]], %[[H0]], %{{.*}}, %{{.*}} : vector<4xbf16>
// CHECK: %[[LO:.*]] = vector.extract %[[V]][0] : bf16 from vector<4xbf16>
// CHECK-NEXT: %[[HI:.*]] = vector.extract %[[V]][1] : bf16 from vector<4xbf16>
// CHECK-NEXT: %[[PAIR:.*]] = vector.from_elements %[[LO]], %[[HI]] : vector<2xbf16>
// CHECK-NEXT: vector.store %[[PAIR]], %[[T]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x128xbf16, strided<[136, 1]>>, vector<2xbf16>
// CHECK-COUNT-31: vector.store %{{.*}}, %[[T]]
// CHECK-NOT: vector.store
// CHECK-NOT: linalg.generic
// CHECK: } {tessel.per_thread}
// CHECK: linalg.copy ins(%{{.*}} : memref<?x?xbf16, strided<[136, 1]>>)
func.func public @converted_epilogue(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                                     %n: i32, %h: index, %w: index, %p0: i32, %p1: i32,
                                     %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %steps = arith.index_cast %n : i32 to index
  %kk = arith.muli %steps, %c32 : index
  %a2 = memref.reinterpret_cast %a to offset: [0], sizes: [64, %kk], strides: [%kk, 1]
      : memref<?xbf16> to memref<64x?xbf16, strided<[?, 1]>>
  %b2 = memref.reinterpret_cast %b to offset: [0], sizes: [%kk, 128], strides: [128, 1]
      : memref<?xbf16> to memref<?x128xbf16, strided<[128, 1]>>
  %c2 = memref.reinterpret_cast %c to offset: [0], sizes: [64, 128], strides: [%kk, 1]
      : memref<?xbf16> to memref<64x128xbf16, strided<[?, 1]>>
  %ta = memref.alloc() : memref<64x32xbf16>
  %tb = memref.alloc() : memref<32x128xbf16>
  %acc = memref.alloc() : memref<64x128xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x128xf32>)
  scf.for %k = %c0 to %steps step %c1 {
    %col = arith.muli %k, %c32 : index
    %va = memref.subview %a2[0, %col] [64, 32] [1, 1]
        : memref<64x?xbf16, strided<[?, 1]>> to memref<64x32xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%va : memref<64x32xbf16, strided<[?, 1], offset: ?>>)
                outs(%ta : memref<64x32xbf16>)
    %vb = memref.subview %b2[%col, 0] [32, 128] [1, 1]
        : memref<?x128xbf16, strided<[128, 1]>> to memref<32x128xbf16, strided<[128, 1], offset: ?>>
    linalg.copy ins(%vb : memref<32x128xbf16, strided<[128, 1], offset: ?>>)
                outs(%tb : memref<32x128xbf16>)
    linalg.matmul ins(%ta, %tb : memref<64x32xbf16>, memref<32x128xbf16>)
                  outs(%acc : memref<64x128xf32>)
  }
  %t = memref.alloc() : memref<64x128xbf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<64x128xf32>) outs(%t : memref<64x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  }
  %part = memref.subview %t[0, 0] [%h, %w] [1, 1] : memref<64x128xbf16> to memref<?x?xbf16, strided<[128, 1]>>
  %dst = memref.subview %c2[0, 0] [%h, %w] [1, 1]
      : memref<64x128xbf16, strided<[?, 1]>> to memref<?x?xbf16, strided<[?, 1]>>
  linalg.copy ins(%part : memref<?x?xbf16, strided<[128, 1]>>) outs(%dst : memref<?x?xbf16, strided<[?, 1]>>)
  return
}

// -----

// Attention's P.V on wgmma with A from registers: the softmax of Q.K^T's scores (one
// warpgroup's wgmma) runs on its accumulators, and P, their 16-bit exponentials, goes to P.V
// as A's fragment registers (m16n8k16's layout, which wgmma's register A shares: each warp
// its 16 rows), an inline wgmma.mma_async whose A operand is four 32-bit registers
// (MLIR's nvvm op takes descriptors only), built before the fence; B (V) comes by
// descriptor, N-major (transposed by wgmma: the last immediate 1). P is neither stored nor
// allocated. P.V's carried accumulator is rescaled in registers by the rescale factor the
// softmax made. The inline wgmma writes registers only (kRegistersOnlyAttr): the K and V tiles
// the loop copies are still pipelined over 2 stages (the copies of the next iteration pending
// at the wait). V's wait, after K's with no commit between them once both are committed an
// iteration ahead, waited for nothing more: it is dropped. P.V's group stays in flight into
// the next iteration (wait 1; V takes a third slot, so the next iteration's copies do not
// overwrite what it reads), where Q.K^T's wait covers it; the step waits for it (wait 0)
// before its rescale reads the accumulators all the same, and the loop's last group is waited
// for on the way out of the loop, under a guard that it runs.
// CHECK-LABEL: func.func public @p_from_registers(
// CHECK-NOT: memref.alloc() : memref<64x32xbf16>
// CHECK: memref.alloc() {{.*}} : memref<2x32x32xbf16>
// CHECK: memref.alloc() {{.*}} : memref<3x32x32xbf16>
// CHECK: scf.if
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.execute_region -> (f32, f32) no_inline {
// CHECK: gpu.shuffle
// CHECK: %[[ALPHA:.*]]:2 = scf.execute_region -> (f32, f32) no_inline {
// CHECK: math.exp2
// CHECK: } {tessel.per_thread}
// CHECK: %[[P:.*]]:4 = scf.execute_region -> (vector<4xbf16>, vector<4xbf16>, vector<4xbf16>, vector<4xbf16>) no_inline {
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: scf.execute_region -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) no_inline {
// CHECK-NOT: arith.mulf
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.*}}, %[[ALPHA]]#0 : f32
// A's first k step: pieces 0 and 1 (8 columns each), each lane's rows g and g + 8 of each:
// registers (g, 2t), (g + 8, 2t), (g, 2t + 8), (g + 8, 2t + 8), each an adjacent pair.
// CHECK: %[[A00:.*]] = vector.extract %[[P]]#0[0]
// CHECK-NEXT: %[[A01:.*]] = vector.extract %[[P]]#0[1]
// CHECK-NEXT: %[[A0:.*]] = vector.from_elements %[[A00]], %[[A01]] : vector<2xbf16>
// CHECK-NEXT: %[[A10:.*]] = vector.extract %[[P]]#0[2]
// CHECK-NEXT: %[[A11:.*]] = vector.extract %[[P]]#0[3]
// CHECK-NEXT: %[[A1:.*]] = vector.from_elements %[[A10]], %[[A11]] : vector<2xbf16>
// CHECK-NEXT: %[[A20:.*]] = vector.extract %[[P]]#1[0]
// CHECK-NEXT: %[[A21:.*]] = vector.extract %[[P]]#1[1]
// CHECK-NEXT: %[[A2:.*]] = vector.from_elements %[[A20]], %[[A21]] : vector<2xbf16>
// CHECK-NEXT: %[[A30:.*]] = vector.extract %[[P]]#1[2]
// CHECK-NEXT: %[[A31:.*]] = vector.extract %[[P]]#1[3]
// CHECK-NEXT: %[[A3:.*]] = vector.from_elements %[[A30]], %[[A31]] : vector<2xbf16>
// CHECK: vector.bitcast %[[A0]] : vector<2xbf16> to vector<1xi32>
// CHECK: vector.bitcast %[[A1]] : vector<2xbf16> to vector<1xi32>
// CHECK: vector.bitcast %[[A2]] : vector<2xbf16> to vector<1xi32>
// CHECK: vector.bitcast %[[A3]] : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: llvm.inline_asm has_side_effects {tessel.registers_only} "{\0A.reg .pred p;\0Asetp.ne.b32 p, $37, 0;\0Awgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {$0, $1, {{.*}}, $15}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}\0A", "=f,{{.*}},=f,0,1,{{.*}},15,r,r,r,r,l,n"
// The second k step's descriptor of V: the first's plus 16 rows of 64 bytes in 16-byte units.
// CHECK-NEXT: %[[K16:.*]] = arith.constant 64 : i64
// CHECK-NEXT: %[[B16:.*]] = arith.addi %{{.*}}, %[[K16]] : i64
// CHECK: llvm.inline_asm has_side_effects {tessel.registers_only} {{.*}}%[[B16]], %{{.*}} : (
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: } {tessel.per_thread, tessel.warpgroup_step = 1 : i64}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tessel.per_thread}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NOT: linalg.matmul
// CHECK: return
#rows4 = affine_map<(d0, d1) -> (d0, 0)>
#all4 = affine_map<(d0, d1) -> (d0, d1)>
#one4 = affine_map<(d0) -> (d0)>
func.func public @p_from_registers(%o: memref<?xf32>, %kv: memref<?xbf16>, %n: i32, %p0: i32,
                                   %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %steps = arith.index_cast %n : i32 to index
  %rows = arith.muli %steps, %c32 : index
  %kv2 = memref.reinterpret_cast %kv to offset: [0], sizes: [%rows, 32], strides: [32, 1]
      : memref<?xbf16> to memref<?x32xbf16, strided<[32, 1]>>
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %tq = memref.alloc() : memref<64x32xbf16>
  %tk = memref.alloc() : memref<32x32xbf16>
  %tv = memref.alloc() : memref<32x32xbf16>
  %s = memref.alloc() : memref<64x32xf32>
  %p16 = memref.alloc() : memref<64x32xbf16>
  %init = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%init : memref<64x32xf32>)
  %m = memref.alloc() : memref<64xf32>
  %mold = memref.alloc() : memref<64xf32>
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%prev = %init) -> (memref<64x32xf32>) {
    %row = arith.muli %k, %c32 : index
    %kvk = memref.subview %kv2[%row, 0] [32, 32] [1, 1]
        : memref<?x32xbf16, strided<[32, 1]>> to memref<32x32xbf16, strided<[32, 1], offset: ?>>
    linalg.copy ins(%kvk : memref<32x32xbf16, strided<[32, 1], offset: ?>>)
                outs(%tk : memref<32x32xbf16>)
    linalg.fill ins(%zero : f32) outs(%s : memref<64x32xf32>)
    linalg.matmul ins(%tq, %tk : memref<64x32xbf16>, memref<32x32xbf16>)
                  outs(%s : memref<64x32xf32>)
    linalg.fill ins(%low : f32) outs(%m : memref<64xf32>)
    linalg.reduce { arith.maximumf } ins(%s : memref<64x32xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
    %alpha = memref.alloc() : memref<64xf32>
    linalg.generic {indexing_maps = [#one4, #one4, #one4], iterator_types = ["parallel"]}
        ins(%mold, %m : memref<64xf32>, memref<64xf32>) outs(%alpha : memref<64xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %d = arith.subf %x, %y : f32
      %z = math.exp2 %d : f32
      linalg.yield %z : f32
    }
    %mm = memref.expand_shape %m [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
    linalg.generic {indexing_maps = [#all4, #rows4, #all4], iterator_types = ["parallel", "parallel"]}
        ins(%s, %mm : memref<64x32xf32>, memref<64x1xf32>) outs(%p16 : memref<64x32xbf16>) {
    ^bb0(%x: f32, %y: f32, %out: bf16):
      %d = arith.subf %x, %y : f32
      %e = math.exp2 %d : f32
      %t = arith.truncf %e : f32 to bf16
      linalg.yield %t : bf16
    }
    %next = memref.alloc() : memref<64x32xf32>
    %ae = memref.expand_shape %alpha [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
    linalg.generic {indexing_maps = [#all4, #rows4, #all4], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %ae : memref<64x32xf32>, memref<64x1xf32>) outs(%next : memref<64x32xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.copy ins(%kvk : memref<32x32xbf16, strided<[32, 1], offset: ?>>)
                outs(%tv : memref<32x32xbf16>)
    linalg.matmul ins(%p16, %tv : memref<64x32xbf16>, memref<32x32xbf16>)
                  outs(%next : memref<64x32xf32>)
    scf.yield %next : memref<64x32xf32>
  }
  %x = memref.load %acc[%c1, %c1] : memref<64x32xf32>
  memref.store %x, %o[%c0] : memref<?xf32>
  return
}
