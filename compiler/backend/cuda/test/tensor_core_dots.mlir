// Matmuls of 16-bit floats into f32 on tensor cores (TensorCoreDots.cpp). A K loop whose only
// access of the accumulator is the matmul keeps the accumulators in registers: read from C
// before the loop, carried by it, written back after it. 4 warps over a 64 x 32 accumulator:
// a 2 x 2 grid of 32 x 16 warp tiles, each 2 x 2 pieces of 16 x 8 (4 mma per k step of 16;
// A by two ldmatrix.x4, B by one transposed ldmatrix.x4). Then map-programs keeps the regions
// (canonicalize, which runs in between, must not inline them: the whole warp runs them, never
// thread 0 alone) and puts barriers around them (they read shared memory), and the whole
// pipeline gives PTX with mma.sync and ldmatrix.
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4}))' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4}))' | FileCheck %s --check-prefix=TF32
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=4}),convert-linalg-to-parallel-loops,canonicalize,cse,tessel-cuda-map-programs{num-warps=4})' | FileCheck %s --check-prefix=MAP
// RUN: tessel-compile %s --entry k_loop --target cuda:sm_90 --emit ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tessel-compile %s --entry tf32_k_loop --target cuda:sm_90 --emit ptx -o - | FileCheck %s --check-prefix=TF32PTX

// C is all zeros before the loop (a fill): the accumulators start from that constant, and the
// fill goes (C's lifetime then begins after the loop, where its bytes can be the operand
// tiles').
// CHECK-LABEL: func.func public @k_loop(
// CHECK: %[[C:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK-NOT: linalg.fill ins(%{{.*}} : f32)
// CHECK: %[[Z0:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NOT: memref.load %[[C]]
// CHECK: %[[LOOP:.*]]:4 = scf.for {{.*}} iter_args(%{{.*}} = %[[Z0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// The operand tiles' fills: 16-byte stores of 8 elements, 64 x 32 / 8 = 256 chunks over 128
// threads (2 each, unrolled).
// CHECK: scf.execute_region no_inline {
// CHECK: vector.broadcast %{{.*}} : bf16 to vector<8xbf16>
// CHECK: gpu.thread_id x
// CHECK-COUNT-2: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x32xbf16>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.fill
// The two k steps of 16 unrolled, each its fragments then its mma.
// CHECK: %[[STEP:.*]]:4 = scf.execute_region
// CHECK-NOT: scf.for
// CHECK-COUNT-2: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-4: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK-NOT: scf.for
// CHECK-COUNT-2: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-4: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK-NOT: nvvm.mma.sync
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.matmul
// CHECK: scf.yield %[[STEP]]#0, %[[STEP]]#1, %[[STEP]]#2, %[[STEP]]#3
// The accumulators into C after the loop, each lane's two adjacent columns one 8-byte store.
// CHECK: scf.execute_region no_inline {
// CHECK-COUNT-8: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x32xf32>, vector<2xf32>
// CHECK-NOT: memref.store
// CHECK: } {tessel.per_thread}

// Regions that write no memory (the mma steps) need no barrier after them: every writer of
// shared memory has one before it.
// MAP-LABEL: gpu.func @k_loop(
// MAP: scf.for {{.*}} iter_args(
// MAP: gpu.barrier
// MAP: scf.execute_region -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) no_inline {
// MAP-NOT: scf.if
// MAP: nvvm.mma.sync
// MAP: } {tessel.per_thread}
// MAP-NEXT: scf.yield

// PTX-LABEL: .entry k_loop(
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func public @k_loop(%a: memref<?xbf16>, %b: memref<?xbf16>, %out: memref<?xf32>, %n: i32,
                         %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %ta = memref.alloc() : memref<64x32xbf16>
  %tb = memref.alloc() : memref<32x32xbf16>
  %acc = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x32xf32>)
  scf.for %k = %c0 to %c4 step %c1 {
    linalg.fill ins(%one : bf16) outs(%ta : memref<64x32xbf16>)
    linalg.fill ins(%one : bf16) outs(%tb : memref<32x32xbf16>)
    linalg.matmul ins(%ta, %tb : memref<64x32xbf16>, memref<32x32xbf16>)
                  outs(%acc : memref<64x32xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<64x32xf32> into memref<2048xf32>
  %view = memref.subview %out[0] [2048] [1] : memref<?xf32> to memref<2048xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<2048xf32>) outs(%view : memref<2048xf32, strided<[1]>>)
  return
}

// -----

// The copy of a masked load into an operand tile (a subview at a dynamic row offset, from a view
// of global memory with contiguous rows): 32 x 16 / 8 = 64 chunks over 128 threads (guarded);
// a chunk inside the copied part, from a 16-byte aligned address (checked at run time: the
// view's start, row stride and column offset), is one 16-byte load, issued before the
// thread's stores, and one 16-byte store; others go element by element where they lie inside.
// The second case: 32 x 64 has 256 chunks, two rounds: both loads come before either store.
// CHECK-LABEL: func.func public @operand_copy(
// CHECK: scf.execute_region no_inline {
// CHECK: memref.extract_strided_metadata
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: arith.cmpi ult, %{{.*}}, %c64
// CHECK: scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK: } else {
// CHECK: ub.poison : vector<8xf16>
// CHECK: scf.if %{{.*}} {
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<32x16xf16>, vector<8xf16>
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c1
// CHECK: memref.load %{{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.copy
// CHECK: nvvm.mma.sync
func.func public @operand_copy(%g: memref<?x?xf16, strided<[?, 1], offset: ?>>, %row: index,
                               %rows: index, %cols: index, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                               %g2: i32) {
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x8xf16>
  %acc = memref.alloc() : memref<32x8xf32>
  %part = memref.subview %ta[%row, 0] [%rows, %cols] [1, 1]
      : memref<32x16xf16> to memref<?x?xf16, strided<[16, 1], offset: ?>>
  %src = memref.subview %g[0, 0] [%rows, %cols] [1, 1]
      : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<?x?xf16, strided<[?, 1], offset: ?>>
  linalg.copy ins(%src : memref<?x?xf16, strided<[?, 1], offset: ?>>)
              outs(%part : memref<?x?xf16, strided<[16, 1], offset: ?>>)
  linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x8xf16>) outs(%acc : memref<32x8xf32>)
  return
}

// CHECK-LABEL: func.func public @operand_copy_rounds(
// CHECK: scf.execute_region no_inline {
// CHECK-COUNT-2: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK-NOT: vector.load
// CHECK-COUNT-2: vector.store %{{.*}} {alignment = 16 : i64} : memref<32x64xf16>, vector<8xf16>
// CHECK: } {tessel.per_thread}
func.func public @operand_copy_rounds(%g: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                                      %rows: index, %cols: index, %p0: i32, %p1: i32,
                                      %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %ta = memref.alloc() : memref<32x64xf16>
  %tb = memref.alloc() : memref<64x8xf16>
  %acc = memref.alloc() : memref<32x8xf32>
  %part = memref.subview %ta[0, 0] [%rows, %cols] [1, 1]
      : memref<32x64xf16> to memref<?x?xf16, strided<[64, 1]>>
  %src = memref.subview %g[0, 0] [%rows, %cols] [1, 1]
      : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<?x?xf16, strided<[?, 1], offset: ?>>
  linalg.copy ins(%src : memref<?x?xf16, strided<[?, 1], offset: ?>>)
              outs(%part : memref<?x?xf16, strided<[64, 1]>>)
  linalg.matmul ins(%ta, %tb : memref<32x64xf16>, memref<64x8xf16>) outs(%acc : memref<32x8xf32>)
  return
}

// -----

// A matmul whose accumulator the loop also reads: loaded, multiplied and stored in place, two
// adjacent columns an access.
// CHECK-LABEL: func.func public @c_read_in_loop(
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: scf.execute_region no_inline {
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<16x8xf32>, vector<2xf32>
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<16x8xf32>, vector<2xf32>
// CHECK: } {tessel.per_thread}
// CHECK: memref.load %{{.*}} : memref<16x8xf32>
func.func public @c_read_in_loop(%o: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                                 %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ta = memref.alloc() : memref<16x16xf16>
  %tb = memref.alloc() : memref<16x8xf16>
  %acc = memref.alloc() : memref<16x8xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    linalg.matmul ins(%ta, %tb : memref<16x16xf16>, memref<16x8xf16>)
                  outs(%acc : memref<16x8xf32>)
    %x = memref.load %acc[%c0, %c0] : memref<16x8xf32>
    memref.store %x, %o[%k] : memref<?xf32>
  }
  return
}

// -----

// A matmul the loop's other code also reads, whose C a constant fill sets just before it
// (attention's scores): the accumulators start from the constant (no fill, no loads of C), and
// the elementwise op on C right after it (the scores scaled, the columns past a bound masked:
// linalg.index) runs on them before they are stored.
// CHECK-LABEL: func.func public @fill_then_dot(
// CHECK: scf.for
// CHECK-NOT: linalg.fill ins(%{{.*}} : f32)
// CHECK: scf.execute_region no_inline {
// CHECK-NOT: vector.load %{{.*}} : memref<16x8xf32>
// CHECK: arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NOT: vector.load %{{.*}} : memref<16x8xf32>
// CHECK: nvvm.mma.sync
// CHECK: arith.mulf
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: vector.store %{{.*}} : memref<16x8xf32>, vector<2xf32>
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.generic
// CHECK: memref.load %{{.*}} : memref<16x8xf32>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func public @fill_then_dot(%o: memref<?xf32>, %bound: index, %scale: f32, %p0: i32,
                                %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -1.0e6 : f32
  %ta = memref.alloc() : memref<16x16xf16>
  %tb = memref.alloc() : memref<16x8xf16>
  %acc = memref.alloc() : memref<16x8xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    linalg.fill ins(%zero : f32) outs(%acc : memref<16x8xf32>)
    linalg.matmul ins(%ta, %tb : memref<16x16xf16>, memref<16x8xf16>)
                  outs(%acc : memref<16x8xf32>)
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<16x8xf32>) outs(%acc : memref<16x8xf32>) {
    ^bb0(%x: f32, %y: f32):
      %col = linalg.index 1 : index
      %in = arith.cmpi slt, %col, %bound : index
      %scaled = arith.mulf %x, %scale : f32
      %v = arith.select %in, %scaled, %low : f32
      linalg.yield %v : f32
    }
    %x = memref.load %acc[%k, %c0] : memref<16x8xf32>
    memref.store %x, %o[%k] : memref<?xf32>
  }
  return
}

// -----

// Attention's accumulator: the loop carries it in buffers, an elementwise op rescales the
// previous one into the matmul's C (`acc * alpha[:, None]`), the matmul accumulates, the loop
// yields C. The accumulators stay in registers: the loop carries them, the rescale runs on each
// lane's elements (alpha read at the element's row), the loop passes its first buffer through
// (whose fill goes), and after it the accumulators go into a buffer of their own, which the
// loop's result was. (2 of the 4 warps have a 16 x 8 piece of C.)
// CHECK-LABEL: func.func public @rescaled_in_loop(
// CHECK-NOT: linalg.fill
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[PREV:.*]] = %{{.*}}, %{{.*}} = %[[Z]])
// CHECK-NOT: linalg.generic
// CHECK: scf.execute_region
// CHECK: memref.load %{{.*}} : memref<32x1xf32>
// CHECK-NEXT: arith.mulf
// CHECK: nvvm.mma.sync
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.matmul
// CHECK: scf.yield %[[PREV]], %{{.*}} : memref<32x8xf32>, vector<4xf32>
// CHECK: %[[OWN:.*]] = memref.alloc() : memref<32x8xf32>
// CHECK: scf.execute_region no_inline {
// CHECK-COUNT-2: vector.store %{{.*}}, %[[OWN]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<32x8xf32>, vector<2xf32>
// CHECK: } {tessel.per_thread}
// CHECK: memref.load %[[OWN]]
#rows = affine_map<(d0, d1) -> (d0, 0)>
#all = affine_map<(d0, d1) -> (d0, d1)>
func.func public @rescaled_in_loop(%o: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                                   %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x8xf16>
  %alpha = memref.alloc() : memref<32x1xf32>
  %init = memref.alloc() : memref<32x8xf32>
  linalg.fill ins(%zero : f32) outs(%init : memref<32x8xf32>)
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (memref<32x8xf32>) {
    %next = memref.alloc() : memref<32x8xf32>
    linalg.generic {indexing_maps = [#all, #rows, #all], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %alpha : memref<32x8xf32>, memref<32x1xf32>) outs(%next : memref<32x8xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x8xf16>)
                  outs(%next : memref<32x8xf32>)
    scf.yield %next : memref<32x8xf32>
  }
  %x = memref.load %acc[%c1, %c1] : memref<32x8xf32>
  memref.store %x, %o[%c0] : memref<?xf32>
  return
}

// -----

// Two such loops, the second starting from the first's result (attention's unmasked key blocks,
// then the masked ones): the second starts from the first's accumulators in registers, so the
// first's are not stored (its buffer goes) and nothing loads them back; only the second's are
// stored after it.
// CHECK-LABEL: func.func public @rescaled_twice(
// CHECK: %[[FIRST:.*]]:2 = scf.for {{.*}} -> (memref<32x8xf32>, vector<4xf32>)
// CHECK-NOT: vector.store
// CHECK-NOT: vector.load
// CHECK: %[[SECOND:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[FIRST]]#1)
// CHECK: scf.yield %{{.*}}, %{{.*}} : memref<32x8xf32>, vector<4xf32>
// CHECK: %[[OWN:.*]] = memref.alloc() : memref<32x8xf32>
// CHECK: scf.execute_region no_inline {
// CHECK-COUNT-2: vector.store %{{.*}}, %[[OWN]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<32x8xf32>, vector<2xf32>
// CHECK: } {tessel.per_thread}
// CHECK: memref.load %[[OWN]]
#rows_twice = affine_map<(d0, d1) -> (d0, 0)>
#all_twice = affine_map<(d0, d1) -> (d0, d1)>
func.func public @rescaled_twice(%o: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                                 %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<32x16xf16>
  %tb = memref.alloc() : memref<16x8xf16>
  %alpha = memref.alloc() : memref<32x1xf32>
  %init = memref.alloc() : memref<32x8xf32>
  linalg.fill ins(%zero : f32) outs(%init : memref<32x8xf32>)
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (memref<32x8xf32>) {
    %next = memref.alloc() : memref<32x8xf32>
    linalg.generic {indexing_maps = [#all_twice, #rows_twice, #all_twice], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %alpha : memref<32x8xf32>, memref<32x1xf32>) outs(%next : memref<32x8xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x8xf16>)
                  outs(%next : memref<32x8xf32>)
    scf.yield %next : memref<32x8xf32>
  }
  %acc2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%prev = %acc) -> (memref<32x8xf32>) {
    %next = memref.alloc() : memref<32x8xf32>
    linalg.generic {indexing_maps = [#all_twice, #rows_twice, #all_twice], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %alpha : memref<32x8xf32>, memref<32x1xf32>) outs(%next : memref<32x8xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.matmul ins(%ta, %tb : memref<32x16xf16>, memref<16x8xf16>)
                  outs(%next : memref<32x8xf32>)
    scf.yield %next : memref<32x8xf32>
  }
  %x = memref.load %acc2[%c1, %c1] : memref<32x8xf32>
  memref.store %x, %o[%c0] : memref<?xf32>
  return
}

// -----

// Attention's softmax on the scores: where each row of C lies in one quad of one warp's lanes
// (4 warps over 64 x 8: a 4 x 1 grid), the ops that read the scores row by row or element for
// element run on the accumulators, and 1-D buffers of the rows they make are row vectors in
// registers (a value a row slot: a lane's rows r and r + 8): the row maximum and sum as each
// lane's elements of the row and then two shuffles across its quad, combined with the constant
// the fill set (the fill goes); the exponentials (the maximum from the registers) and the
// conversion to 16 bits as values. Nothing reads the scores, the f32 exponentials or the
// maximum from memory: they are not stored (the exponentials' tile goes); the sum and the
// 16-bit tile, which loads read, are (the sum by each quad's first lane, the tile two columns
// an access).
// CHECK-LABEL: func.func public @softmax_in_registers(
// CHECK-NOT: memref.alloc() : memref<64x8xf32>
// CHECK: %[[P16:.*]] = memref.alloc() : memref<64x8xf16>
// CHECK-NEXT: %[[M:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: %[[L:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.for
// CHECK: %[[S:.*]] = scf.execute_region -> vector<4xf32> no_inline {
// CHECK: nvvm.mma.sync
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.fill
// CHECK: %[[MAX:.*]]:2 = scf.execute_region -> (f32, f32) no_inline {
// CHECK: vector.extract %[[S]][0]
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: arith.maximumf %{{.*}}, %cst_0 : f32
// CHECK-NOT: memref.store
// CHECK: } {tessel.per_thread}
// CHECK: %[[P:.*]] = scf.execute_region -> vector<4xf32> no_inline {
// CHECK-NOT: memref.load
// CHECK: arith.subf %{{.*}}, %[[MAX]]#0
// CHECK: math.exp2
// CHECK: arith.subf %{{.*}}, %[[MAX]]#1
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK: scf.execute_region -> (f32, f32) no_inline {
// CHECK: vector.extract %[[P]][0]
// CHECK: arith.addf
// CHECK-COUNT-2: gpu.shuffle  xor
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[L]][%{{.*}}] : memref<64xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[L]][%{{.*}}] : memref<64xf32>
// CHECK: } {tessel.per_thread}
// CHECK: scf.execute_region -> vector<4xf16> no_inline {
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: vector.store %{{.*}}, %[[P16]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x8xf16>, vector<2xf16>
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.reduce
// CHECK-NOT: linalg.generic
// CHECK: memref.load %[[P16]]
#rows2 = affine_map<(d0, d1) -> (d0, 0)>
#all2 = affine_map<(d0, d1) -> (d0, d1)>
func.func public @softmax_in_registers(%o: memref<?xf32>, %h: memref<?xf16>, %p0: i32,
                                       %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %ta = memref.alloc() : memref<64x16xf16>
  %tb = memref.alloc() : memref<16x8xf16>
  %s = memref.alloc() : memref<64x8xf32>
  %p = memref.alloc() : memref<64x8xf32>
  %p16 = memref.alloc() : memref<64x8xf16>
  %m = memref.alloc() : memref<64xf32>
  %l = memref.alloc() : memref<64xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    linalg.fill ins(%zero : f32) outs(%s : memref<64x8xf32>)
    linalg.matmul ins(%ta, %tb : memref<64x16xf16>, memref<16x8xf16>)
                  outs(%s : memref<64x8xf32>)
    linalg.fill ins(%low : f32) outs(%m : memref<64xf32>)
    linalg.reduce { arith.maximumf } ins(%s : memref<64x8xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
    %mm = memref.expand_shape %m [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
    linalg.generic {indexing_maps = [#all2, #rows2, #all2], iterator_types = ["parallel", "parallel"]}
        ins(%s, %mm : memref<64x8xf32>, memref<64x1xf32>) outs(%p : memref<64x8xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %d = arith.subf %x, %y : f32
      %e = math.exp2 %d : f32
      linalg.yield %e : f32
    }
    linalg.fill ins(%zero : f32) outs(%l : memref<64xf32>)
    linalg.reduce { arith.addf } ins(%p : memref<64x8xf32>) outs(%l : memref<64xf32>)
        dimensions = [1]
    linalg.generic {indexing_maps = [#all2, #all2], iterator_types = ["parallel", "parallel"]}
        ins(%p : memref<64x8xf32>) outs(%p16 : memref<64x8xf16>) {
    ^bb0(%x: f32, %out: f16):
      %t = arith.truncf %x : f32 to f16
      linalg.yield %t : f16
    }
    %x = memref.load %p16[%k, %c0] : memref<64x8xf16>
    memref.store %x, %h[%k] : memref<?xf16>
    %y = memref.load %l[%k] : memref<64xf32>
    memref.store %y, %o[%k] : memref<?xf32>
  }
  return
}

// -----

// The 16-bit tile the softmax makes is a later matmul's A (attention's P.V): where that
// matmul's warps hold its A fragments at the rows the scores' pieces lie at (here both 4 x 1
// grids), it reads them from the registers (pieces 2 k and 2 k + 1 of 8 columns are a k step's
// 16) and the tile is neither stored nor allocated; B still comes by ldmatrix.
// Row vectors made from row vectors and 1-D buffers of the rows (the running maximum, the
// rescale factor) are computed a row slot at a time: the buffers loaded at the slot's rows,
// the row vectors from the registers. The rescale of P.V's carried accumulator reads the
// rescale factor from the registers too (P.V's rows are the scores' rows): it is not stored.
// CHECK-LABEL: func.func public @p_in_registers(
// CHECK-NOT: memref.alloc() : memref<64x16xbf16>
// CHECK: %[[MOLD:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.for
// CHECK: %[[MAX:.*]]:2 = scf.execute_region -> (f32, f32) no_inline {
// CHECK: gpu.shuffle
// CHECK: } {tessel.per_thread}
// CHECK: %[[MNEW:.*]]:2 = scf.execute_region -> (f32, f32) no_inline {
// CHECK: %[[OLD0:.*]] = memref.load %[[MOLD]][%{{.*}}] : memref<64xf32>
// CHECK: arith.maximumf %[[OLD0]], %[[MAX]]#0 : f32
// CHECK: memref.load %[[MOLD]]
// CHECK: arith.maximumf %{{.*}}, %[[MAX]]#1 : f32
// CHECK-NOT: memref.store
// CHECK: } {tessel.per_thread}
// CHECK: %[[ALPHA:.*]]:2 = scf.execute_region -> (f32, f32) no_inline {
// CHECK: arith.subf %{{.*}}, %[[MNEW]]#0 : f32
// CHECK: math.exp2
// CHECK-NOT: memref.store
// CHECK: } {tessel.per_thread}
// CHECK: %[[P:.*]]:2 = scf.execute_region -> (vector<4xbf16>, vector<4xbf16>) no_inline {
// CHECK-NOT: memref.load
// CHECK: arith.subf %{{.*}}, %[[MNEW]]#0 : f32
// CHECK: math.exp2
// CHECK: arith.truncf
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK: scf.execute_region -> (vector<4xf32>, vector<4xf32>) no_inline {
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.*}}, %[[ALPHA]]#0 : f32
// CHECK: arith.mulf %{{.*}}, %[[ALPHA]]#1 : f32
// CHECK: vector.extract %[[P]]#0[0]
// CHECK: vector.extract %[[P]]#0[1]
// CHECK: vector.extract %[[P]]#0[2]
// CHECK: vector.extract %[[P]]#0[3]
// CHECK: vector.extract %[[P]]#1[0]
// CHECK: vector.extract %[[P]]#1[2]
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<16x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.matmul
#rows3 = affine_map<(d0, d1) -> (d0, 0)>
#all3 = affine_map<(d0, d1) -> (d0, d1)>
#one3 = affine_map<(d0) -> (d0)>
func.func public @p_in_registers(%o: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                                 %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %tq = memref.alloc() : memref<64x16xbf16>
  %tk = memref.alloc() : memref<16x16xbf16>
  %tv = memref.alloc() : memref<16x16xbf16>
  %s = memref.alloc() : memref<64x16xf32>
  %p16 = memref.alloc() : memref<64x16xbf16>
  %init = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%init : memref<64x16xf32>)
  %m = memref.alloc() : memref<64xf32>
  %mold = memref.alloc() : memref<64xf32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (memref<64x16xf32>) {
    linalg.fill ins(%zero : f32) outs(%s : memref<64x16xf32>)
    linalg.matmul ins(%tq, %tk : memref<64x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<64x16xf32>)
    linalg.fill ins(%low : f32) outs(%m : memref<64xf32>)
    linalg.reduce { arith.maximumf } ins(%s : memref<64x16xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
    %mnew = memref.alloc() : memref<64xf32>
    linalg.generic {indexing_maps = [#one3, #one3, #one3], iterator_types = ["parallel"]}
        ins(%mold, %m : memref<64xf32>, memref<64xf32>) outs(%mnew : memref<64xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %z = arith.maximumf %x, %y : f32
      linalg.yield %z : f32
    }
    %alpha = memref.alloc() : memref<64xf32>
    linalg.generic {indexing_maps = [#one3, #one3, #one3], iterator_types = ["parallel"]}
        ins(%mold, %mnew : memref<64xf32>, memref<64xf32>) outs(%alpha : memref<64xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %d = arith.subf %x, %y : f32
      %z = math.exp2 %d : f32
      linalg.yield %z : f32
    }
    %mm = memref.expand_shape %mnew [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
    linalg.generic {indexing_maps = [#all3, #rows3, #all3], iterator_types = ["parallel", "parallel"]}
        ins(%s, %mm : memref<64x16xf32>, memref<64x1xf32>) outs(%p16 : memref<64x16xbf16>) {
    ^bb0(%x: f32, %y: f32, %out: bf16):
      %d = arith.subf %x, %y : f32
      %e = math.exp2 %d : f32
      %t = arith.truncf %e : f32 to bf16
      linalg.yield %t : bf16
    }
    %next = memref.alloc() : memref<64x16xf32>
    %ae = memref.expand_shape %alpha [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
    linalg.generic {indexing_maps = [#all3, #rows3, #all3], iterator_types = ["parallel", "parallel"]}
        ins(%prev, %ae : memref<64x16xf32>, memref<64x1xf32>) outs(%next : memref<64x16xf32>) {
    ^bb0(%x: f32, %a: f32, %out: f32):
      %y = arith.mulf %x, %a : f32
      linalg.yield %y : f32
    }
    linalg.matmul ins(%p16, %tv : memref<64x16xbf16>, memref<16x16xbf16>)
                  outs(%next : memref<64x16xf32>)
    scf.yield %next : memref<64x16xf32>
  }
  %x = memref.load %acc[%c1, %c1] : memref<64x16xf32>
  memref.store %x, %o[%c0] : memref<?xf32>
  return
}

// -----

// A row vector the key loop carries (attention's running maximum: an iter_arg of 64 rows that
// only register steps read, the loop yielding the one a step makes) is carried as one value a
// row slot: the loop gains f32 iter_args starting from the constant the buffer was filled
// with, nothing in the loop reads the buffer, and after the loop the last values go into a
// buffer of its own (each quad's first lane), which the load after the loop reads.
// CHECK-LABEL: func.func public @carried_rows(
// CHECK: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[NEG:.*]], %{{.*}} = %[[NEG]]) -> (memref<64xf32>, f32, f32)
// CHECK-NOT: memref.load %{{.*}} : memref<64xf32>
// CHECK: arith.maximumf
// CHECK: scf.yield %{{.*}}, %{{.*}}#0, %{{.*}}#1 : memref<64xf32>, f32, f32
// CHECK: %[[OWN:.*]] = memref.alloc() : memref<64xf32>
// CHECK: scf.execute_region no_inline {
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[LOOP]]#1, %[[OWN]]
// CHECK-NEXT: memref.store %[[LOOP]]#2, %[[OWN]]
// CHECK: memref.load %[[OWN]]
#one4 = affine_map<(d0) -> (d0)>
#all4 = affine_map<(d0, d1) -> (d0, d1)>
#rows4 = affine_map<(d0, d1) -> (d0, 0)>
func.func public @carried_rows(%o: memref<?xf32>, %h: memref<?xbf16>, %p0: i32, %p1: i32,
                               %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %tq = memref.alloc() : memref<64x16xbf16>
  %tk = memref.alloc() : memref<16x16xbf16>
  %s = memref.alloc() : memref<64x16xf32>
  %p16 = memref.alloc() : memref<64x16xbf16>
  %m0 = memref.alloc() : memref<64xf32>
  linalg.fill ins(%low : f32) outs(%m0 : memref<64xf32>)
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%mi = %m0) -> (memref<64xf32>) {
    linalg.fill ins(%zero : f32) outs(%s : memref<64x16xf32>)
    linalg.matmul ins(%tq, %tk : memref<64x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<64x16xf32>)
    %m = memref.alloc() : memref<64xf32>
    linalg.fill ins(%low : f32) outs(%m : memref<64xf32>)
    linalg.reduce { arith.maximumf } ins(%s : memref<64x16xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
    %mnew = memref.alloc() : memref<64xf32>
    linalg.generic {indexing_maps = [#one4, #one4, #one4], iterator_types = ["parallel"]}
        ins(%mi, %m : memref<64xf32>, memref<64xf32>) outs(%mnew : memref<64xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %z = arith.maximumf %x, %y : f32
      linalg.yield %z : f32
    }
    %mm = memref.expand_shape %mnew [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
    linalg.generic {indexing_maps = [#all4, #rows4, #all4], iterator_types = ["parallel", "parallel"]}
        ins(%s, %mm : memref<64x16xf32>, memref<64x1xf32>) outs(%p16 : memref<64x16xbf16>) {
    ^bb0(%x: f32, %y: f32, %out: bf16):
      %d = arith.subf %x, %y : f32
      %e = math.exp2 %d : f32
      %t = arith.truncf %e : f32 to bf16
      linalg.yield %t : bf16
    }
    %v = memref.load %p16[%k, %c0] : memref<64x16xbf16>
    memref.store %v, %h[%k] : memref<?xbf16>
    scf.yield %mnew : memref<64xf32>
  }
  %x = memref.load %r[%c1] : memref<64xf32>
  memref.store %x, %o[%c0] : memref<?xf32>
  return
}

// -----

// Elementwise ops in place on the scores (a bias added after the scaling) are steps on the
// same tile: nothing reads the scores from memory, and their buffer goes once.
// CHECK-LABEL: func.func public @in_place_steps(
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK: gpu.shuffle
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.generic
// CHECK: return
#all5 = affine_map<(d0, d1) -> (d0, d1)>
func.func public @in_place_steps(%o: memref<?xf32>, %scale: f32, %p0: i32, %p1: i32,
                                 %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %tq = memref.alloc() : memref<64x16xbf16>
  %tk = memref.alloc() : memref<16x16xbf16>
  %bias = memref.alloc() : memref<64x16xf32>
  %m = memref.alloc() : memref<64xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = memref.alloc() : memref<64x16xf32>
    linalg.fill ins(%zero : f32) outs(%s : memref<64x16xf32>)
    linalg.matmul ins(%tq, %tk : memref<64x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<64x16xf32>)
    linalg.generic {indexing_maps = [#all5, #all5], iterator_types = ["parallel", "parallel"]}
        ins(%s : memref<64x16xf32>) outs(%s : memref<64x16xf32>) {
    ^bb0(%x: f32, %out: f32):
      %y = arith.mulf %x, %scale : f32
      linalg.yield %y : f32
    }
    linalg.generic {indexing_maps = [#all5, #all5, #all5], iterator_types = ["parallel", "parallel"]}
        ins(%s, %bias : memref<64x16xf32>, memref<64x16xf32>) outs(%s : memref<64x16xf32>) {
    ^bb0(%x: f32, %b: f32, %out: f32):
      %y = arith.addf %x, %b : f32
      linalg.yield %y : f32
    }
    linalg.fill ins(%low : f32) outs(%m : memref<64xf32>)
    linalg.reduce { arith.maximumf } ins(%s : memref<64x16xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
    %x = memref.load %m[%k] : memref<64xf32>
    memref.store %x, %o[%k] : memref<?xf32>
  }
  return
}

// -----

// A C stored a step at a time whose rows are a multiple of 128 bytes (32 f32) and whose users
// all follow a view's layout gets rows 8 elements longer: a warp's two-column stores of 4 rows
// then hit different banks.
// CHECK-LABEL: func.func public @scores_padded(
// CHECK: %[[PAD:.*]] = memref.alloc() : memref<16x40xf32>
// CHECK: %[[VIEW:.*]] = memref.subview %[[PAD]][0, 0] [16, 32] [1, 1] : memref<16x40xf32> to memref<16x32xf32, strided<[40, 1]>>
// CHECK: scf.execute_region no_inline {
// CHECK: vector.store %{{.*}}, %[[VIEW]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x32xf32, strided<[40, 1]>>, vector<2xf32>
// CHECK: memref.load %[[VIEW]]
func.func public @scores_padded(%o: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                                %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.alloc() : memref<16x16xf16>
  %tb = memref.alloc() : memref<16x32xf16>
  %s = memref.alloc() : memref<16x32xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    linalg.fill ins(%zero : f32) outs(%s : memref<16x32xf32>)
    linalg.matmul ins(%ta, %tb : memref<16x16xf16>, memref<16x32xf16>)
                  outs(%s : memref<16x32xf32>)
    %x = memref.load %s[%k, %c0] : memref<16x32xf32>
    memref.store %x, %o[%k] : memref<?xf32>
  }
  return
}

// -----

// Left to the scalar lowering: f32 inputs its tt.dot did not allow as tf32 (no
// tessel.tf32), K not a multiple of 16, a device function (one thread runs it), a matmul
// inside a parallel loop.
// CHECK-LABEL: func.func public @not_on_tensor_cores(
// CHECK-NOT: nvvm.mma.sync
// CHECK-COUNT-2: linalg.matmul
// CHECK-LABEL: func.func private @device_function(
// CHECK-NOT: nvvm.mma.sync
// CHECK: linalg.matmul
func.func public @not_on_tensor_cores(%p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                                      %g2: i32) {
  %a = memref.alloc() : memref<16x16xf32>
  %b = memref.alloc() : memref<16x8xf32>
  %c = memref.alloc() : memref<16x8xf32>
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x8xf32>) outs(%c : memref<16x8xf32>)
  %a8 = memref.alloc() : memref<16x8xf16>
  %b8 = memref.alloc() : memref<8x8xf16>
  %c8 = memref.alloc() : memref<16x8xf32>
  linalg.matmul ins(%a8, %b8 : memref<16x8xf16>, memref<8x8xf16>) outs(%c8 : memref<16x8xf32>)
  return
}
func.func private @device_function() {
  %a = memref.alloc() : memref<16x16xf16>
  %b = memref.alloc() : memref<16x8xf16>
  %c = memref.alloc() : memref<16x8xf32>
  linalg.matmul ins(%a, %b : memref<16x16xf16>, memref<16x8xf16>) outs(%c : memref<16x8xf32>)
  return
}

// -----

// f32 operands a tt.dot allowed as tf32 (tessel.tf32): mma.sync.m16n8k8 on tf32. The same
// 2 x 2 grid of 32 x 16 warp tiles over 64 x 32, 2 x 2 pieces; the tiles filled in 16-byte
// chunks of 4 elements (64 x 32 / 4 = 512 chunks, 4 a thread); K = 32 in 4 steps of 8, each
// A by two ldmatrix.x4 of 32-bit elements (one f32 a lane and matrix), B (K x N) element by
// element (two a piece: rows t and t + 4) from the tile seen as one dimension (each lane's
// elements computed once, a k step a constant further on), every operand rounded to tf32
// (cvt.rna), then 4 mma.
// CHECK-LABEL: func.func public @tf32_k_loop(
// CHECK: scf.for
// CHECK: scf.execute_region no_inline {
// CHECK: vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x32xf32>, vector<4xf32>
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK: scf.execute_region
// CHECK-COUNT-16: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
// CHECK-NOT: nvvm.mma.sync
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.matmul
// One k step's operands: A's two ldmatrix.x4, each lane's 4 registers of each rounded; B's
// 2 pieces x 2 elements loaded and rounded.
// TF32-LABEL: func.func public @tf32_k_loop(
// TF32: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<32x32xf32, #gpu.address_space<workgroup>> into memref<1024xf32, #gpu.address_space<workgroup>>
// TF32: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// TF32-COUNT-4: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// TF32-COUNT-4: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32-NOT: nvgpu.ldmatrix
// TF32: memref.load %[[FLAT]][%{{.*}}] : memref<1024xf32, #gpu.address_space<workgroup>>
// TF32-NEXT: nvvm.convert.float.to.tf32
// TF32: memref.load %[[FLAT]][%{{.*}}] : memref<1024xf32, #gpu.address_space<workgroup>>
// TF32-NEXT: nvvm.convert.float.to.tf32
// TF32: memref.load %[[FLAT]][%{{.*}}] : memref<1024xf32, #gpu.address_space<workgroup>>
// TF32-NEXT: nvvm.convert.float.to.tf32
// TF32: memref.load %[[FLAT]][%{{.*}}] : memref<1024xf32, #gpu.address_space<workgroup>>
// TF32-NEXT: nvvm.convert.float.to.tf32
// TF32-NOT: nvgpu.ldmatrix
// TF32: nvvm.mma.sync
// TF32PTX-LABEL: .entry tf32_k_loop(
// TF32PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TF32PTX: cvt.rna.tf32.f32
// TF32PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
func.func public @tf32_k_loop(%out: memref<?xf32>, %p0: i32, %p1: i32, %p2: i32, %g0: i32,
                              %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ta = memref.alloc() : memref<64x32xf32>
  %tb = memref.alloc() : memref<32x32xf32>
  %acc = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x32xf32>)
  scf.for %k = %c0 to %c4 step %c1 {
    linalg.fill ins(%one : f32) outs(%ta : memref<64x32xf32>)
    linalg.fill ins(%one : f32) outs(%tb : memref<32x32xf32>)
    linalg.matmul {tessel.tf32} ins(%ta, %tb : memref<64x32xf32>, memref<32x32xf32>)
                  outs(%acc : memref<64x32xf32>)
  }
  %flat = memref.collapse_shape %acc [[0, 1]] : memref<64x32xf32> into memref<2048xf32>
  %view = memref.subview %out[0] [2048] [1] : memref<?xf32> to memref<2048xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<2048xf32>) outs(%view : memref<2048xf32, strided<[1]>>)
  return
}

// -----

// C read after its K loop by one elementwise op into an f32 tile of its own (a column scale and
// a constant bias): the op runs on the accumulators (the scale loaded at each element's column),
// and its f32 results go two columns a store into that tile, its rows padded by 8; C's own
// tile and the op are gone, the copy out stays.
// CHECK-LABEL: func.func public @scaled_epilogue(
// CHECK: scf.for
// CHECK: nvvm.mma.sync
// CHECK: memref.subview %{{.*}}[0] [64] [1] : memref<?xf32> to memref<64xf32, strided<[1]>>
// CHECK-NEXT: %[[WIDE:.*]] = memref.alloc() : memref<64x72xf32>
// CHECK-NEXT: %[[T:.*]] = memref.subview %[[WIDE]][0, 0] [64, 64] [1, 1] : memref<64x72xf32> to memref<64x64xf32, strided<[72, 1]>>
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK: %[[S:.*]] = memref.load %{{.*}}[%[[COL:.*]]] : memref<64xf32, strided<[1]>>
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NEXT: arith.addf %[[Y]], %{{.*}} : f32
// CHECK-COUNT-16: vector.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x64xf32, strided<[72, 1]>>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK: } {tessel.per_thread}
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref<64x64xf32>)
// CHECK: linalg.copy ins(%[[T]] : memref<64x64xf32, strided<[72, 1]>>)
#columns = affine_map<(d0, d1) -> (d1)>
#both = affine_map<(d0, d1) -> (d0, d1)>
func.func public @scaled_epilogue(%a: memref<?xbf16>, %b: memref<?xbf16>, %scale: memref<?xf32>,
                                  %out: memref<?xf32>, %n: i32, %p0: i32, %p1: i32, %p2: i32,
                                  %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %bias = arith.constant 0.5 : f32
  %steps = arith.index_cast %n : i32 to index
  %depth = arith.muli %steps, %c32 : index
  %rows = memref.reinterpret_cast %a to offset: [0], sizes: [64, %depth], strides: [%depth, 1]
      : memref<?xbf16> to memref<64x?xbf16, strided<[?, 1]>>
  %cols = memref.reinterpret_cast %b to offset: [0], sizes: [%depth, 64], strides: [64, 1]
      : memref<?xbf16> to memref<?x64xbf16, strided<[64, 1]>>
  %lhs = memref.alloc() : memref<64x32xbf16>
  %rhs = memref.alloc() : memref<32x64xbf16>
  %sum = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64x64xf32>)
  scf.for %i = %c0 to %steps step %c1 {
    %at = arith.muli %i, %c32 : index
    %pa = memref.subview %rows[0, %at] [64, 32] [1, 1]
        : memref<64x?xbf16, strided<[?, 1]>> to memref<64x32xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%pa : memref<64x32xbf16, strided<[?, 1], offset: ?>>)
                outs(%lhs : memref<64x32xbf16>)
    %pb = memref.subview %cols[%at, 0] [32, 64] [1, 1]
        : memref<?x64xbf16, strided<[64, 1]>> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    linalg.copy ins(%pb : memref<32x64xbf16, strided<[64, 1], offset: ?>>)
                outs(%rhs : memref<32x64xbf16>)
    linalg.matmul ins(%lhs, %rhs : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%sum : memref<64x64xf32>)
  }
  %factors = memref.subview %scale[0] [64] [1] : memref<?xf32> to memref<64xf32, strided<[1]>>
  %res = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#both, #columns, #both], iterator_types = ["parallel", "parallel"]}
      ins(%sum, %factors : memref<64x64xf32>, memref<64xf32, strided<[1]>>)
      outs(%res : memref<64x64xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %z = arith.addf %y, %bias : f32
    linalg.yield %z : f32
  }
  %dst = memref.reinterpret_cast %out to offset: [0], sizes: [64, 64], strides: [64, 1]
      : memref<?xf32> to memref<64x64xf32, strided<[64, 1]>>
  linalg.copy ins(%res : memref<64x64xf32>) outs(%dst : memref<64x64xf32, strided<[64, 1]>>)
  return
}
