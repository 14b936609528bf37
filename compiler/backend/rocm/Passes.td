//===- Passes.td - the rocm backend's passes ----------------------------===//
//
// The rest of its pipeline is shared with the cuda backend (compiler/backend/cuda/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_BACKEND_ROCM_PASSES_TD
#define TESSEL_BACKEND_ROCM_PASSES_TD

include "mlir/Pass/PassBase.td"

def RocmMatrixCoreDots : Pass<"tessel-rocm-matrix-core-dots", "::mlir::func::FuncOp"> {
  let summary = "Tile matmuls of f16/bf16 into f32 on AMD matrix cores (mfma, wmma)";
  let description = [{
    A kernel's linalg.matmul of static tile buffers (A: M x K, B: K x N of f16 or bf16, C: M x N
    of f32) reached by every thread runs on the chip's matrix instructions, 16 x 16 pieces of C
    16 deep: `amdgpu.mfma` 16x16x16 on CDNA (gfx90a, gfx942: 64-lane wavefronts, 4 elements of
    A, B and C a lane) and `amdgpu.wmma` 16x16x16 on RDNA3 (gfx1100: 32 lanes, 16 elements of A
    and B, 8 of C a lane). The workgroup's num-warps wavefronts split C into warp tiles
    (compiler/backend/cuda/MatrixDots.h: the planning and the accumulators carried in
    registers across the K loop are shared with the cuda backend's mma.sync); each lane reads
    its fragments from the tile buffers (LDS after tessel-cuda-map-programs), which are written
    in 16-byte chunks per thread. Other matmuls are left for the loop lowering.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", "4", "wavefronts per workgroup">,
    Option<"chipset", "chipset", "std::string", "\"gfx942\"",
           "the AMD chip (gfx90a, gfx942: mfma; gfx1100: wmma)">,
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect"];
}

#endif // TESSEL_BACKEND_ROCM_PASSES_TD
