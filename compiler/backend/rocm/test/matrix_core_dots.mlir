// Matmuls of 16-bit floats into f32 on AMD matrix cores (MatrixCoreDots.cpp), planned as the
// cuda backend's (MatrixDots.h): 4 wavefronts over a 64 x 32 accumulator are a 2 x 2 grid of
// 32 x 16 warp tiles, each 2 x 1 pieces of 16 x 16 (2 matrix instructions per k step of 16),
// the accumulators starting from C's constant fill, carried by the K loop and written to C after it;
// the operand tiles' fills in 16-byte chunks. CDNA (gfx942, 64 lanes): amdgpu.mfma with 4
// elements of A, B and C a lane; RDNA3 (gfx1100, 32 lanes): amdgpu.wmma with 16 of A and B
// and 8 of C. The whole rocm pipeline gives the chips' instructions, and LDS laid out by the
// Allocation analysis: C (64 x 32 f32, 8192 bytes) is first used after the K loop, so it takes
// the operand tiles' bytes (64 x 32 + 32 x 32 bf16, 6144): 8192 bytes, not 14336.
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-rocm-matrix-core-dots{num-warps=4 chipset=gfx942}))' | FileCheck %s --check-prefix=MFMA
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-rocm-matrix-core-dots{num-warps=4 chipset=gfx1100}))' | FileCheck %s --check-prefix=WMMA
// RUN: tessel-compile %s --entry k_loop --target rocm:gfx942 --emit isa -o - | FileCheck %s --check-prefix=CDNA
// RUN: tessel-compile %s --entry k_loop --target rocm:gfx1100 --emit isa -o - | FileCheck %s --check-prefix=RDNA
// RUN: not tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-rocm-matrix-core-dots{chipset=gfx908}))' 2>&1 | FileCheck %s --check-prefix=CHIP

// MFMA-LABEL: func.func public @k_loop(
// MFMA: %[[C:.*]] = memref.alloc() : memref<64x32xf32>
// MFMA: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// MFMA-NOT: memref.load %[[C]]
// MFMA: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]], %{{.*}} = %{{.*}})
// MFMA: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x32xbf16>, vector<8xbf16>
// MFMA: vector.store %{{.*}} {alignment = 16 : i64} : memref<32x32xbf16>, vector<8xbf16>
// MFMA: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c16{{.*}} iter_args(
// MFMA-COUNT-2: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// MFMA: } {tessel.per_thread}
// MFMA-NOT: linalg.matmul
// MFMA: scf.execute_region no_inline {
// MFMA-COUNT-8: memref.store %{{.*}}, %[[C]]

// WMMA-LABEL: func.func public @k_loop(
// WMMA: arith.constant dense<0.000000e+00> : vector<8xf32>
// WMMA-COUNT-2: amdgpu.wmma 16x16x16 {{.*}} : vector<16xbf16>, vector<16xbf16>, vector<8xf32>
// WMMA-NOT: linalg.matmul

// CDNA: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// CDNA: v_mfma_f32_16x16x16_bf16
// CDNA: .amdhsa_group_segment_fixed_size 8192
// CDNA: .wavefront_size: 64

// RDNA: .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// RDNA: v_wmma_f32_16x16x16_bf16
// RDNA: .amdhsa_group_segment_fixed_size 8192
// RDNA: .wavefront_size: 32

// CHIP: tessel does not build for AMD chip 'gfx908'
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

// C converted to 16 bits after the loop: each accumulator element converted in registers and
// then stored into the converted tile (its rows padded) on its own, since a lane's elements of a
// piece lie in different rows of one column here (two of them as one two-column store would
// write a neighbour's element).
// MFMA-LABEL: func.func public @k_loop_converted(
// MFMA: amdgpu.mfma
// MFMA: scf.execute_region no_inline {
// MFMA-NOT: vector<2xbf16>
// MFMA: %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// MFMA: %[[V:.*]] = vector.from_elements %[[T]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xbf16>
// MFMA: %[[E:.*]] = vector.extract %[[V]][0] : bf16 from vector<4xbf16>
// MFMA-NEXT: memref.store %[[E]], %{{.*}} : memref<64x32xbf16, strided<[40, 1]>>
// MFMA-NOT: vector<2xbf16>
// MFMA: } {tessel.per_thread}
// MFMA-NOT: linalg.generic
#identity = affine_map<(d0, d1) -> (d0, d1)>
func.func public @k_loop_converted(%out: memref<?xbf16>, %p0: i32, %p1: i32, %p2: i32,
                                   %g0: i32, %g1: i32, %g2: i32) {
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
  %conv = memref.alloc() : memref<64x32xbf16>
  linalg.generic {indexing_maps = [#identity, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<64x32xf32>) outs(%conv : memref<64x32xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  %o2 = memref.reinterpret_cast %out to offset: [0], sizes: [64, 32], strides: [32, 1]
      : memref<?xbf16> to memref<64x32xbf16, strided<[32, 1]>>
  linalg.copy ins(%conv : memref<64x32xbf16>) outs(%o2 : memref<64x32xbf16, strided<[32, 1]>>)
  return
}
