// The warps' grid over a matmul's C as the knob warp_m asks (tessel-cuda-tensor-core-dots
// warp-m): warp-m rows of warps, num-warps / warp-m columns. A 128 x 128 C on 8 warps: by
// default the grid with the fewest fragment loads (2 rows of 4 warps, 64 x 32 a warp); warp-m=8
// takes 8 rows of one warp (16 x 128 a warp). Each warp finds its part of C from its index:
// row (warp / columns) * tileM, column (warp % columns) * tileN.
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8}))' | FileCheck %s --check-prefix=AUTO
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 warp-m=8}))' | FileCheck %s --check-prefix=ROWS8
// On warpgroups a warpgroup's 4 warps stack along M, so warp-m counts 4 a warpgroup: by
// default the two warpgroups take 64 rows each (one m64n128k16 a k step), warp-m=4 puts them
// side by side (each the 128 rows in two m64n64k16, 64 columns), and warp-m=2, no grid of
// warpgroups, keeps mma.sync with 2 rows of 4 warps.
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 wgmma=true}))' | FileCheck %s --check-prefix=WGAUTO
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 warp-m=4 wgmma=true}))' | FileCheck %s --check-prefix=WG4
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 warp-m=2 wgmma=true}))' | FileCheck %s --check-prefix=WG2
// A grid that does not fit is an error at the matmul.
// RUN: not tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 warp-m=16}))' 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=16 warp-m=16}))' 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-cuda-tensor-core-dots{num-warps=8 warp-m=-2}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// Through the compiler's knob.
// RUN: tessel-compile %s --entry grid --target cuda:sm_90a --knob num_warps=8 --knob warp_m=4 --emit ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: not tessel-compile %s --entry grid --target cuda:sm_90a --knob num_warps=8 --knob warp_m=3 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=KNOB

// AUTO-LABEL: func.func public @grid(
// AUTO: scf.execute_region -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) no_inline
// AUTO: %[[WARP:.*]] = arith.remui %{{.*}}, %c8 : index
// AUTO: %[[R:.*]] = arith.divui %[[WARP]], %c4{{(_[0-9]+)?}} : index
// AUTO-NEXT: arith.muli %[[R]], %c64{{(_[0-9]+)?}} : index
// AUTO: %[[C:.*]] = arith.remui %[[WARP]], %c4{{(_[0-9]+)?}} : index
// AUTO-NEXT: arith.muli %[[C]], %c32{{(_[0-9]+)?}} : index
// AUTO-COUNT-32: nvvm.mma.sync

// ROWS8-LABEL: func.func public @grid(
// ROWS8: scf.execute_region -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) no_inline
// ROWS8: %[[WARP:.*]] = arith.remui %{{.*}}, %c8 : index
// ROWS8: %[[R:.*]] = arith.divui %[[WARP]], %c1{{(_[0-9]+)?}} : index
// ROWS8-NEXT: arith.muli %[[R]], %c16{{(_[0-9]+)?}} : index
// ROWS8: %[[C:.*]] = arith.remui %[[WARP]], %c1{{(_[0-9]+)?}} : index
// ROWS8-NEXT: arith.muli %[[C]], %c128{{(_[0-9]+)?}} : index
// ROWS8-COUNT-32: nvvm.mma.sync

// WGAUTO-LABEL: func.func public @grid(
// WGAUTO-COUNT-2: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>
// WGAUTO-NOT: nvvm.wgmma.mma_async
// WGAUTO-NOT: nvvm.mma.sync

// WG4-LABEL: func.func public @grid(
// WG4-COUNT-4: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>
// WG4-NOT: nvvm.wgmma.mma_async
// WG4-NOT: nvvm.mma.sync

// WG2-LABEL: func.func public @grid(
// WG2-NOT: nvvm.wgmma
// WG2: scf.execute_region -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) no_inline
// WG2: %[[WARP:.*]] = arith.remui %{{.*}}, %c8 : index
// WG2: %[[R:.*]] = arith.divui %[[WARP]], %c4{{(_[0-9]+)?}} : index
// WG2-NEXT: arith.muli %[[R]], %c64{{(_[0-9]+)?}} : index
// WG2-COUNT-32: nvvm.mma.sync
// WG2-NOT: nvvm.wgmma

// NEGATIVE: error: warp-m=-2 is negative
// PTX-LABEL: .entry grid(
// PTX-NOT: wgmma.mma_async.sync.aligned.m64n128
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-NOT: wgmma.mma_async.sync.aligned.m64n128
// KNOB: warp_m
func.func public @grid(%a: memref<?xbf16>, %b: memref<?xbf16>, %out: memref<?xf32>, %n: i32,
                       %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32, %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %steps = arith.index_cast %n : i32 to index
  %depth = arith.muli %steps, %c32 : index
  %rows = memref.reinterpret_cast %a to offset: [0], sizes: [128, %depth], strides: [%depth, 1]
      : memref<?xbf16> to memref<128x?xbf16, strided<[?, 1]>>
  %cols = memref.reinterpret_cast %b to offset: [0], sizes: [%depth, 128], strides: [128, 1]
      : memref<?xbf16> to memref<?x128xbf16, strided<[128, 1]>>
  %lhs = memref.alloc() : memref<128x32xbf16>
  %rhs = memref.alloc() : memref<32x128xbf16>
  %sum = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<128x128xf32>)
  scf.for %i = %c0 to %steps step %c1 {
    %at = arith.muli %i, %c32 : index
    %pa = memref.subview %rows[0, %at] [128, 32] [1, 1]
        : memref<128x?xbf16, strided<[?, 1]>> to memref<128x32xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%pa : memref<128x32xbf16, strided<[?, 1], offset: ?>>)
                outs(%lhs : memref<128x32xbf16>)
    %pb = memref.subview %cols[%at, 0] [32, 128] [1, 1]
        : memref<?x128xbf16, strided<[128, 1]>> to memref<32x128xbf16, strided<[128, 1], offset: ?>>
    linalg.copy ins(%pb : memref<32x128xbf16, strided<[128, 1], offset: ?>>)
                outs(%rhs : memref<32x128xbf16>)
    // DIVIDE: warp_grid.mlir:[[@LINE+2]]:5: error: warp_m=16 does not divide the block's 8 warps
    // SPLIT: warp_grid.mlir:[[@LINE+1]]:5: error: warp_m=16 does not split this 128 x 128 matmul over 16 warps: each warp's part must be whole 16 x 8 pieces (16 rows of 1 warps)
    linalg.matmul ins(%lhs, %rhs : memref<128x32xbf16>, memref<32x128xbf16>)
                  outs(%sum : memref<128x128xf32>)
  }
  %flat = memref.collapse_shape %sum [[0, 1]] : memref<128x128xf32> into memref<16384xf32>
  %dst = memref.subview %out[0] [16384] [1] : memref<?xf32> to memref<16384xf32, strided<[1]>>
  linalg.copy ins(%flat : memref<16384xf32>) outs(%dst : memref<16384xf32, strided<[1]>>)
  return
}
