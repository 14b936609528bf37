//===- HeapDeallocation.cpp - deallocate tile buffers left on the heap -*- C++ -*-===//
//
// Tile buffers over the stack limit stay heap allocations and need deallocations; clones that
// deallocation inserts (a noinline callee returning a tensor) become copies. Only where a heap
// buffer is left: deallocation analysis does not handle every op with regions
// (memref.generic_atomic_rmw, from tl.atomic_cas), and it has nothing to do without one.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CPUDEALLOCATEHEAPBUFFERS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {

/// Whether `module` keeps a tile buffer on the heap (an allocation, or a memref returned).
bool hasHeapBuffers(ModuleOp module) {
  bool heap = false;
  module.walk([&](Operation *op) {
    heap |= isa<memref::AllocOp, memref::ReallocOp>(op) ||
            (isa<func::ReturnOp>(op) && llvm::any_of(op->getOperandTypes(), [](Type t) {
               return isa<BaseMemRefType>(t);
             }));
  });
  return heap;
}

struct CpuDeallocateHeapBuffersPass
    : tessel::impl::CpuDeallocateHeapBuffersBase<CpuDeallocateHeapBuffersPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasHeapBuffers(module))
      return;
    // Neither that op nor its compare-and-swap loop (LLVM ops of unknown memory effects) is
    // something deallocation analysis accepts.
    WalkResult atomics = module.walk([](memref::GenericAtomicRMWOp op) {
      op.emitError() << "tl.atomic_cas in a kernel whose tiles need heap buffers (over 64 KiB) "
                        "is not supported; use smaller blocks";
      return WalkResult::interrupt();
    });
    if (atomics.wasInterrupted())
      return signalPassFailure();
    OpPassManager pm(ModuleOp::getOperationName());
    std::string error;
    llvm::raw_string_ostream os(error);
    if (failed(parsePassPipeline(
            "buffer-deallocation-pipeline,convert-bufferization-to-memref", pm, os))) {
      module.emitError() << "internal error: " << error;
      return signalPassFailure();
    }
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

} // namespace
