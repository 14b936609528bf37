//===- Passes.td - the CPU backend's passes -----------------*- tablegen -*-===//
//
// The MLIR-level transforms of the CPU backend, in pipeline order (CpuPipeline.cpp lists the
// pipeline). Each runs alone from tessel-opt and has a lit test in test/ on its own input.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_BACKEND_CPU_PASSES_TD
#define TESSEL_BACKEND_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CpuDropTritonAttributes : Pass<"tessel-cpu-drop-triton-attributes", "::mlir::ModuleOp"> {
  let summary = "Drop tt.* argument attributes (analysis hints LLVM IR has no meaning for)";
}

def CpuLowerPrints : Pass<"tessel-cpu-lower-prints", "::mlir::ModuleOp"> {
  let summary = "tt.print (tl.device_print) as printf calls, one line per element";
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::arith::ArithDialect"];
}

def CpuTileMatmuls : Pass<"tessel-cpu-tile-matmuls", "::mlir::ModuleOp"> {
  let summary = "Tile static linalg.matmul ops by the register tile and vectorize the tiles";
  let description = [{
    Each dimension of the tile is halved until it divides the matmul's static bound; the tiles
    become vector.contract ops that lower to rows of outer-product FMAs. tile-m = 0 leaves
    matmuls as loops.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "4", "rows of the register tile (0: no tiling)">,
    Option<"tileN", "tile-n", "int64_t", "64", "columns (vector elements)">,
    Option<"tileK", "tile-k", "int64_t", "1", "reduction depth">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"];
}

def CpuVectorizeElementwise : Pass<"tessel-cpu-vectorize-elementwise", "::mlir::ModuleOp"> {
  let summary = "Tile all-parallel linalg ops to unroll x vector-width and vectorize them";
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "vector width along the innermost loop (0: leave to LLVM)">,
    Option<"unroll", "unroll", "int64_t", "1", "rows per vector step">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"];
}

def CpuReduceByLanes : Pass<"tessel-cpu-reduce-by-lanes", "::mlir::ModuleOp"> {
  let summary = "Reductions of several operands over a 1-D tensor, lane by lane";
  let description = [{
    A reduction without a neutral element (argmax: value and index) reduces 16 lanes
    separately over the row, then the lanes: LLVM vectorizes the first loop.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def CpuFuseTilePasses : Pass<"tessel-cpu-fuse-tile-passes", "::mlir::ModuleOp"> {
  let summary = "Fewer passes over a tile: producer + reduction as one op, results stored in place";
}

def CpuReuseDeadInputs : Pass<"tessel-cpu-reuse-dead-inputs", "::mlir::ModuleOp"> {
  let summary = "An elementwise op writes into an input nothing reads afterwards";
  let description = [{
    A fresh output (tensor.empty) of a linalg.generic takes the place of an identity-mapped
    input of its type that nothing reads after the op, so bufferization updates that buffer in
    place instead of allocating another tile buffer.
  }];
}

def CpuDeallocateHeapBuffers : Pass<"tessel-cpu-deallocate-heap-buffers", "::mlir::ModuleOp"> {
  let summary = "Deallocations for tile buffers left on the heap, where there are any";
  let description = [{
    Runs buffer-deallocation-pipeline and convert-bufferization-to-memref only when a kernel
    keeps a heap buffer; tl.atomic_cas in such a kernel is an error (deallocation analysis
    does not accept its region op).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def CpuLoadTilesByVectors : Pass<"tessel-cpu-load-tiles-by-vectors", "::mlir::ModuleOp"> {
  let summary = "A masked load into a 1-D tile buffer as one loop of vector masked loads";
  let description = [{
    A fill of the tile followed by a copy of the valid prefix becomes one loop of masked vector
    loads that take the fill value past the mask, and stores; a reduction that first reads the
    tile is computed in the same loop.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CpuCopiesToLinalg : Pass<"tessel-cpu-copies-to-linalg", "::mlir::ModuleOp"> {
  let summary = "memref.copy as linalg.copy (plain loops, no call into MLIR's runner library)";
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CpuPrefetchNextPrograms : Pass<"tessel-cpu-prefetch-next-programs", "::mlir::ModuleOp"> {
  let summary = "Mark the blocks of the program `distance` ids ahead for prefetching";
  let description = [{
    For each block of a kernel argument whose offset is pure arithmetic of the x program id,
    the offset is recomputed with x + distance and a `__tessel_prefetch` marker call records
    the block's lines; after LLVM's pipeline, the markers become prefetches spread over the
    busiest loop (PrefetchPlacement.cpp). distance 0: nothing.
  }];
  let options = [
    Option<"distance", "distance", "int64_t", "0", "program ids ahead (0: no prefetch)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CpuAlignTileBuffers : Pass<"tessel-cpu-align-tile-buffers", "::mlir::ModuleOp"> {
  let summary = "Stack tile buffers start on a cache line";
  let options = [
    Option<"alignment", "alignment", "int64_t", "64", "bytes">,
  ];
}

def CpuLowerGenericAtomics : Pass<"tessel-cpu-lower-generic-atomics", "::mlir::ModuleOp"> {
  let summary = "memref.generic_atomic_rmw as a compare-and-swap loop on the element's address";
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def CpuApproximateMath : Pass<"tessel-cpu-approximate-math", "::mlir::ModuleOp"> {
  let summary = "exp, log, tanh, erf, ... as polynomials LLVM vectorizes";
  let description = [{
    MLIR's polynomial approximations; with fast-exp, exp/exp2 on f32 use a shorter sequence
    around llvm.ldexp (one instruction on AVX-512, vscalefps).
  }];
  let options = [
    Option<"fastExp", "fast-exp", "bool", "false", "exp/exp2 through ldexp (AVX-512)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def CpuAddLaunchEntries : Pass<"tessel-cpu-add-launch-entries", "::mlir::ModuleOp"> {
  let summary = "The <kernel>__tessel_launch entry point and signature of every public kernel";
  let description = [{
    The CPU launch ABI (CpuBackend.h): the entry point unpacks one 8-byte slot per argument and
    runs programs begin..end-1, passing each program's ids and the grid as the kernel's six
    trailing arguments.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}

#endif // TESSEL_BACKEND_CPU_PASSES_TD
