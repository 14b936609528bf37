//===- Passes.td - the CUDA backend's passes ----------------*- tablegen -*-===//
//
// The MLIR-level transforms of the cuda backend, in pipeline order (CudaPipeline.cpp lists the
// pipeline). Each runs alone from tessel-opt and has a lit test in test/.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_BACKEND_CUDA_PASSES_TD
#define TESSEL_BACKEND_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CudaWholeTileLoops : Pass<"tessel-cuda-whole-tile-loops", "::mlir::func::FuncOp"> {
  let summary = "Loops over part of a tile buffer become guarded loops over all of it";
  let description = [{
    A parallel loop from 0 over the sizes of a unit-stride subview of a static tile buffer
    (the masked part of a masked load or store), whose every access of the view is at the
    loop's induction variables, becomes a parallel loop over the whole tile whose body runs
    where the element lies in the subview, accessing the tile directly. Then every loop over a
    tile has the tile's own iteration space, and tessel-cuda-map-programs gives each thread
    the same elements of it in every loop (so the tile may live in registers).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CudaTensorCoreDots : Pass<"tessel-cuda-tensor-core-dots", "::mlir::func::FuncOp"> {
  let summary = "Tile matmuls of f16/bf16 (f32 as tf32) into f32 on tensor cores (mma.sync)";
  let description = [{
    A linalg.matmul of static tile buffers in a kernel (A: M x K and B: K x N of f16 or bf16,
    or of f32 where it carries tessel.tf32; C: M x N of f32, K a multiple of 16, or 8 for
    tf32), reached by every thread (only loops and ifs around it), becomes warp-level code: the
    num-warps warps split C into a grid of warp tiles of whole 16 x 8 pieces, and each warp
    runs mma.sync.m16n8k16 (m16n8k8 on tf32) per piece and k step, its A and B fragments read
    by ldmatrix (B transposed by it; tf32's K x N B element by element). The code is already
    spread over the threads (scf.execute_region marked tessel.per_thread, which
    tessel-cuda-map-programs keeps with barriers around it). Where the matmul is the only
    access of C in the loop around it (a K loop), the accumulators live in registers across
    that loop: read from C before it, carried by it, written back after it; likewise where the
    loop carries C in buffers that an elementwise op rescales before each matmul (attention's
    accumulator: the rescale runs on the registers). Elsewhere a matmul starts from C's
    constant fill just before it, an elementwise op on C right after it runs on the
    accumulators, and a C of f32 rows a multiple of 128 bytes long gets padded rows. Where
    each row of such a C lies in one quad of one warp's lanes (a warp grid one warp wide),
    what follows it that reads C, or what is made from it, row by row or element for element
    runs on the registers (attention's softmax): row reductions as each lane's elements and
    two xor shuffles, elementwise ops on tiles and on 1-D row vectors (one value a lane a row,
    the ones a loop carries carried as values); a value is stored only where something reads
    it from memory; a 16-bit tile it makes is a later matmul's A from the registers, and row
    vectors that matmul's rescale reads come in registers too, where that matmul's warps hold
    the same rows (MatrixDots.h). The operand tiles' fills and copies from global memory
    become per-thread 16-byte chunks (TileCopies.h). Other matmuls are left to the scalar
    lowering.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", "4", "warps per block (32 threads each)">,
    Option<"warpM", "warp-m", "int64_t", "0",
           "rows of the warps' grid over each matmul's C (num-warps / warp-m columns; on "
           "warpgroups warp-m / 4 rows of them, and a warp-m not a multiple of 4 keeps "
           "mma.sync); a matmul whose C does not split so into whole pieces is an error. 0: "
           "chosen per matmul (the fewest fragment loads)">,
    Option<"wgmma", "wgmma", "bool", "false",
           "sm_90a: a matmul whose operand tiles are stored swizzled (written by cp.async in "
           "its loop) runs on warpgroups (wgmma.mma_async reading shared memory through "
           "matrix descriptors; WarpgroupDots.h); its tiles are marked to start at 1024-byte "
           "boundaries (tessel.tile_alignment, which tessel-cuda-map-programs follows)">,
    Option<"tma", "tma", "bool", "false",
           "sm_90a: a kernel's swizzled operand tiles whose copies read one argument at a "
           "known pitch are loaded by TMA where one copy covers the tile (lane 0 of the warps in "
           "turn issues the box loads, an mbarrier a slot says when they landed), with a tensor-map argument "
           "a source and their mask after them (TileCopies.h: TmaLoads)">,
    Option<"warpSpecialize", "warp-specialize", "bool", "false",
           "with tma: the box loads are issued by a producer warp after the num-warps warps "
           "(TmaLoads::specialized), which tessel-cuda-warp-specialize makes">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::ub::UBDialect"];
}

def CudaPipelineTileLoads : Pass<"tessel-cuda-pipeline-tile-loads", "::mlir::func::FuncOp"> {
  let summary = "Operand tiles copied num-stages - 1 loop iterations ahead of their use (cp.async)";
  let description = [{
    A loop whose body holds async-copy regions (tessel.async_copy, from
    tessel-cuda-tensor-core-dots: cp.async of an operand tile), their commits and a wait
    before the tiles' readers is software-pipelined over num-stages stages: the copies, the
    commits and the side-effect-free ops they need are stage 0, everything else the last
    stage. Each tile gets num-stages slots (one buffer of num-stages tiles; iteration i uses
    slot i mod num-stages), the copies of iteration i + num-stages - 1 are issued before the
    compute of iteration i, and the wait leaves the newer iterations' groups pending. The
    loop is left as it is where the other ops could write what the copies read (a store to
    global memory in the loop), a tile is touched other than read outside its copy, or stage 0
    would need an op with effects. num-stages 1: nothing changes (each iteration waits for
    its own copies). A K step on warpgroups (tessel.warpgroup_step) reading only such tiles
    keeps its wgmma group in flight into the next iteration (wait 1), its tiles taking
    num-stages + 1 slots, where those slots fit in max-shared-bytes (0: no limit); where the
    step runs on two warpgroups or more and num-stages >= 3, the copies follow the step in
    the loop body (issued while the tensor cores run it; tessel.slots_released: the slot they
    fill was released before the barrier ahead of the step, so tessel-cuda-map-programs puts
    no barrier before them) and the wait leaves num-stages - 2 iterations' groups pending.
    Iter_args a loop yields unchanged go first (the pipeliner carries each loop value from an
    op of the body).
  }];
  let options = [
    Option<"numStages", "num-stages", "int64_t", "2", "pipeline stages (1..8)">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", "0",
           "shared memory a block may use (0: no limit): the extra slot only where it fits">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect"];
}

def CudaMapPrograms : Pass<"tessel-cuda-map-programs", "::mlir::ModuleOp"> {
  let summary = "One program = one CUDA block: kernels become gpu.func, work spread over threads";
  let description = [{
    Each public kernel (func.func with the structured lowering's six trailing program-id and
    grid arguments) moves into a gpu.module as a gpu.func kernel: the program ids become
    gpu.block_id, the grid sizes gpu.grid_dim. Its tile buffers (memref.alloc) become
    workgroup (shared) variables while they fit in static-shared-bytes (47 KB) together, and
    otherwise views of one dynamic shared-memory arena (gpu.dynamic_shared_memory) at the
    offsets of compiler/analysis/Allocation.h (buffers whose lifetimes do not overlap share bytes), whose
    size per kernel the pass records in the module attribute `tessel.dynamic_shared_bytes` (the
    launch metadata; `tessel.total_shared_bytes`: with the static buffers);
    shared memory beyond max-shared-bytes is an error. The block's work is spread over
    num-warps * warp-size threads: every outermost scf.parallel loop is distributed cyclically over
    the threads (ThreadTiles.cpp: a tile every loop touches element for element, at most
    thread-tile-elements per thread, lives in the registers of the threads, element e with
    thread e mod T or, where the loops' global accesses are proven contiguous and aligned,
    groups of V consecutive elements (V * element bytes <= vector-bytes) with thread
    (e / V) mod T, which LLVM loads and stores as vectors; the loops and reductions over it
    run there without barriers; other loops: the innermost dimension fastest, so
    neighbouring threads touch neighbouring
    elements; `unroll` iterations per thread in flight at once; a loop of loads, stores and
    pure ops over a static space whose accesses are all of shared tiles with rows of whole
    groups or of global views proven aligned in groups (GroupedAccess.cpp; a row stride
    known only at run time is tested there) in groups of V consecutive iterations, each
    group's accesses one vector load or store, as a matmul's epilogue copies its staged tile
    to C) and followed by a barrier; a
    sequential loop around a parallel one whose iterations touch disjoint elements (a
    reduction over the outer dimension of a tile) is interchanged first, so the threads run
    it without a barrier per step; any other op that writes memory runs on thread 0 (its
    results are broadcast through shared memory) and is followed by a barrier; everything
    else is computed by every thread alike, so control flow stays uniform. Private functions
    the kernels call move into the gpu.module as device functions, run by one thread with
    private tile buffers.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", "4", "warps per block (warp-size threads each)">,
    Option<"warpSize", "warp-size", "int64_t", "32",
           "threads per warp: 32 (NVIDIA, AMD RDNA) or 64 (AMD CDNA wavefronts); the rocm "
           "backend maps programs to workgroups with this pass too">,
    Option<"unroll", "unroll", "int64_t", "4",
           "iterations of a distributed loop each thread runs at once (1..16)">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", "0",
           "shared memory a block may use (0: no limit)">,
    Option<"staticSharedBytes", "static-shared-bytes", "int64_t", "48128",
           "tile buffers of up to this many bytes in all are static shared variables; more "
           "take the arena laid out by the Allocation analysis (0: always the arena)">,
    Option<"threadTileElements", "thread-tile-elements", "int64_t", "64",
           "elements of a tile a thread may keep in registers (0: every tile in shared "
           "memory)">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "16",
           "bytes of consecutive elements a thread may own in a tile kept in registers, for "
           "vector global accesses, and may take at once in other loops (at most 16 there) "
           "(0..64; at most one element's bytes: one element)">,
    Option<"persistent", "persistent", "bool", "false",
           "blocks run programs in turn: each kernel takes the grid's sizes as three trailing "
           "i32 arguments (after the Triton signature's) and block b runs programs b, b + "
           "gridDim.x, ... of that grid (x fastest), with a barrier between them; the runtime "
           "launches fewer blocks than programs">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def CudaRedundantBarriers : Pass<"tessel-cuda-redundant-barriers", "::mlir::ModuleOp"> {
  let summary = "Barriers of the GPU kernels that order no conflicting accesses are removed";
  let description = [{
    tessel-cuda-map-programs puts a barrier around every piece of work that touches shared
    memory; this pass removes, in program order, each barrier between whose neighbouring
    accesses (back to the previous barrier, on to the next, around loops) no write meets a read
    or write of the same shared buffer or of global memory (compiler/analysis/Membar.h: the
    ops' declared effects; an op with undeclared effects touches everything).
  }];
}

def CudaWarpgroupTurns : Pass<"tessel-cuda-warpgroup-turns", "::mlir::ModuleOp"> {
  let summary = "Warpgroups issue a loop's first tensor-core product in turns (ping-pong)";
  let description = [{
    In a loop of a GPU kernel that issues two or more wgmma groups an iteration (a chain of
    products with other work between them: attention's Q.K^T, softmax, P.V), whose bounds and
    enclosing conditions are the same for every thread, the `warpgroups` warpgroups of the
    block issue the iteration's first group in turns: warpgroup g waits at named barrier 1 + g
    until warpgroup g - 1 has issued its group, and arrives at barrier 1 + (g + 1) mod G once
    it has issued its own. The tensor cores then run the warpgroups' products one after
    another, and each warpgroup's work between the products overlaps the other warpgroups'
    products instead of all of it running at once while the tensor cores idle. The last
    warpgroup arrives once before the loop and the first waits once after it, followed by a
    block barrier, so the barriers balance whatever the trip count and however many such loops
    follow one another. Nested loops that both qualify are left alone. Fewer than two
    warpgroups: nothing changes.
  }];
  let options = [
    Option<"warpgroups", "warpgroups", "int64_t", "0", "warpgroups of a block (128 threads each)">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect"];
}

def CudaWarpSpecialize : Pass<"tessel-cuda-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "A producer warp issues a kernel's TMA loads while the other warps compute";
  let description = [{
    For kernels whose TMA copies tessel-cuda-tensor-core-dots made warp specialized
    (TileCopies.h: TmaLoads::specialized), after the block mapping: the block gets a producer
    warpgroup after the consumer-warps warps (known_block_size), the mbarriers are made and
    initialized first, followed by the one barrier of the whole block, and then the consumer
    warps run the kernel without the regions marked tessel.warp_producer while each of the
    producer's first warps (one a tile, up to four) runs a copy of it keeping only its tiles'
    regions and what they need (the loops and conditions around them and the pure ops computing
    their operands; every other op with memory effects is dropped and what only it needed goes
    with it; a K loop's fast iterations run in the general loop after them). A producer waits
    for each slot's release by the consumer warps (tessel.slot_release) and issues its box
    loads; the consumers wait for the loads only, so the barrier a K loop's iteration had
    before its step (which kept a slot from being overwritten while warps still read it) is
    removed where no other access needs it (compiler/analysis/Membar.h), and the consumers'
    remaining barriers become named barrier 5 of their threads only. With two consumer
    warpgroups or more, setmaxnreg moves registers from the producer to the consumers. A
    kernel without such copies, whose copies' addresses depend on what only the consumers
    compute (memory they load), or with a tile whose slots no release region frees (its
    readers not a K loop's steps on warpgroups: attention's) is an error.
  }];
  let options = [
    Option<"consumerWarps", "consumer-warps", "int64_t", "4",
           "warps that compute (the kernel's num-warps); the producer is the warp after them">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::ub::UBDialect", "::mlir::nvgpu::NVGPUDialect"];
}

def CudaBarePointerKernels : Pass<"tessel-cuda-bare-pointer-kernels", "::mlir::ModuleOp"> {
  let summary = "Kernels take bare pointers and scalars: the launch ABI the runtime uses";
  let description = [{
    After the lowering to NVVM, a kernel takes each rank-1 memref argument as the five fields
    of MLIR's descriptor. This pass renames it to an internal function and adds, under the
    kernel's name, an entry taking one pointer per memref and the scalars in Triton's order,
    which builds the descriptors (offset 0, stride 1, unbounded size) and calls it: the
    runtime passes exactly the kernel's Triton signature.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // TESSEL_BACKEND_CUDA_PASSES_TD
