//===- AlignTileBuffers.cpp - stack tile buffers start on a cache line -*- C++ -*-===//
//
// Unaligned 64-byte vector accesses split across two cache lines; tile buffers promoted to the
// stack get the alignment unless they already have one.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CPUALIGNTILEBUFFERS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuAlignTileBuffersPass
    : tessel::impl::CpuAlignTileBuffersBase<CpuAlignTileBuffersPass> {
  using Base::Base;
  void runOnOperation() override {
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
      getOperation().emitError() << "alignment must be a power of two, got " << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    getOperation().walk([&](memref::AllocaOp alloca) {
      if (!alloca.getAlignment())
        alloca.setAlignment(alignment);
    });
  }
};
} // namespace
