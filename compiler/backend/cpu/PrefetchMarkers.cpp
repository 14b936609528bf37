//===- PrefetchMarkers.cpp - mark the blocks of the program that runs next -*- C++ -*-===//
//
// A CPU thread runs its programs one after the other in program-id order (LaunchEntry.cpp),
// so while program x computes, the blocks program x + d will load and store are known: the
// same address arithmetic with x + d. A row kernel such as softmax otherwise waits for each
// row to arrive from memory before its arithmetic starts, and the next row's transfer does
// not overlap this row's arithmetic (each row is a separate stream to the hardware
// prefetcher).
//
// Two steps:
// - On memrefs (this pass, tessel-cpu-prefetch-next-programs): for each block of a kernel argument (a
//   memref.reinterpret_cast of an argument, at the kernel's top level) whose offset depends on
//   the x program id through pure arithmetic, the offset is recomputed for x + d and a call to
//   the marker `__tessel_prefetch(address, rows, row bytes, row stride bytes, write)` records
//   the block's lines.
// - On LLVM IR after the optimization pipeline (placePrefetches, PrefetchPlacement.cpp): each
//   marker becomes software prefetches spread over the iterations of the loop that does the
//   most work after it in the same program (a few per iteration, where they overlap the
//   arithmetic), not issued back to back, where they would occupy every line-fill buffer and
//   stall this program's own loads. A marker with no such loop is dropped.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/backend/cpu/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"


using namespace mlir;

namespace {

/// Larger blocks are not prefetched: more lines than the first-level cache holds would evict
/// the current program's own tiles.
constexpr int64_t kMaxLines = 512;

/// Whether `value`, seen through views of it, is written by one of its users.
bool isWritten(Value value) {
  for (Operation *user : value.getUsers()) {
    // Views (subview, assume_alignment, ...): what is written through them.
    if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == value) {
      if (isWritten(user->getResult(0)))
        return true;
      continue;
    }
    if (!isMemoryEffectFree(user) && !hasEffect<MemoryEffects::Read>(user, value))
      return true;
    if (hasEffect<MemoryEffects::Write>(user, value))
      return true;
  }
  return false;
}

/// The marker's declaration in `module` (added on first use).
func::FuncOp markerDeclaration(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(tessel::kPrefetchMarker))
    return f;
  OpBuilder b(module.getBodyRegion());
  Type index = b.getIndexType();
  auto f = func::FuncOp::create(b, module.getLoc(), tessel::kPrefetchMarker,
                                b.getFunctionType({index, index, index, index, index}, {}));
  f.setPrivate();
  return f;
}

/// Adds the marker for `cast`'s block in the program `distance` after this one, if its offset
/// is pure arithmetic on the kernel's arguments that involves `pidX`.
void markNextBlock(memref::ReinterpretCastOp cast, BlockArgument pidX, int64_t distance) {
  auto type = cast.getType();
  if (cast.getOffsets().size() != 1 || !type.hasStaticShape() || type.getRank() > 2 ||
      type.getRank() == 0 || !type.getElementType().isIntOrFloat())
    return;
  SmallVector<OpFoldResult> strides = cast.getMixedStrides();
  if (getConstantIntValue(strides.back()) != std::optional<int64_t>(1))
    return;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return;
  int64_t elementBytes = bits / 8;
  int64_t rows = type.getRank() == 2 ? type.getDimSize(0) : 1;
  int64_t rowBytes = type.getShape().back() * elementBytes;
  int64_t lines = rows * ((rowBytes + tessel::kCacheLineBytes - 1) / tessel::kCacheLineBytes);
  if (lines == 0 || lines > kMaxLines)
    return;

  // The offset's (and a dynamic row stride's) computation: pure ops at the kernel's top level,
  // down to its arguments (the kernel is isolated from above: operands of ops in its entry
  // block are its arguments or results of ops there).
  Block *top = pidX.getOwner();
  Value offset = cast.getOffsets()[0];
  BackwardSliceOptions options;
  options.inclusive = true;
  bool pure = true;
  options.filter = [&](Operation *op) {
    bool ok = op->getBlock() == top && op->getNumRegions() == 0 && isMemoryEffectFree(op);
    pure &= ok;
    return ok;
  };
  Operation *offsetDef = offset.getDefiningOp();
  SetVector<Operation *> slice;
  if (!offsetDef || failed(getBackwardSlice(offsetDef, &slice, options)) || !pure)
    return;
  if (!llvm::any_of(slice, [&](Operation *op) {
        return llvm::is_contained(op->getOperands(), Value(pidX));
      }))
    return; // the same block for every program
  if (rows > 1)
    if (auto stride = dyn_cast<Value>(strides.front()))
      if (Operation *def = stride.getDefiningOp())
        if (failed(getBackwardSlice(def, &slice, options)) || !pure)
          return;

  // At the kernel's start (everything the offset needs is an argument or in the slice): the
  // loop the prefetches go into must come after the mark.
  OpBuilder b = OpBuilder::atBlockBegin(top);
  Location loc = cast.getLoc();
  IRMapping next;
  Value step = arith::ConstantIntOp::create(b, loc, pidX.getType(), distance);
  next.map(pidX, arith::AddIOp::create(b, loc, pidX, step).getResult());
  // Clones in the order of the original ops (a slice per root is topological, their union
  // not necessarily).
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  for (Operation *op : ordered)
    b.clone(*op, next);
  Value nextOffset = next.lookupOrDefault(offset);

  auto constant = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, cast.getSource());
  Value address = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, nextOffset, constant(elementBytes)));
  Value rowStride = constant(0);
  if (rows > 1)
    rowStride = arith::MulIOp::create(
        b, loc, next.lookupOrDefault(getValueOrCreateConstantIndexOp(b, loc, strides.front())),
        constant(elementBytes));
  func::CallOp::create(b, loc, markerDeclaration(cast->getParentOfType<ModuleOp>()),
                       ValueRange{address, constant(rows), constant(rowBytes), rowStride,
                                  constant(isWritten(cast.getResult()) ? 1 : 0)});
}

} // namespace

static void prefetchNextPrograms(ModuleOp module, int64_t distance) {
  if (distance <= 0)
    return;
  SmallVector<std::pair<memref::ReinterpretCastOp, BlockArgument>> casts;
  for (auto f : module.getOps<func::FuncOp>()) {
    // Kernels: public, with the six program-id arguments last (x first).
    if (f.isExternal() || !f.isPublic() || f.getNumArguments() < 6)
      continue;
    BlockArgument pidX = f.getArgument(f.getNumArguments() - 6);
    if (!pidX.getType().isSignlessInteger())
      continue;
    for (auto cast : f.getBody().front().getOps<memref::ReinterpretCastOp>())
      if (auto source = dyn_cast<BlockArgument>(cast.getSource());
          source && source.getOwner() == &f.getBody().front())
        casts.push_back({cast, pidX});
  }
  for (auto [cast, pidX] : casts)
    markNextBlock(cast, pidX, distance);
}

namespace tessel {
#define GEN_PASS_DEF_CPUPREFETCHNEXTPROGRAMS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuPrefetchNextProgramsPass
    : tessel::impl::CpuPrefetchNextProgramsBase<CpuPrefetchNextProgramsPass> {
  using Base::Base;
  void runOnOperation() override { prefetchNextPrograms(getOperation(), distance); }
};
} // namespace
