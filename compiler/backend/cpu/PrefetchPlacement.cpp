//===- PrefetchPlacement.cpp - prefetch markers become prefetches in a loop -*- C++ -*-===//
//
// The LLVM IR half of prefetching (PrefetchMarkers.cpp marks the blocks of the program x + d
// on memrefs): after the optimization pipeline, each `__tessel_prefetch(address, rows, row
// bytes, row stride bytes, write)` marker becomes software prefetches spread over the
// iterations of the loop that does the most work after it in the same program (a few per
// iteration, where they overlap the arithmetic), not issued back to back, where they would
// occupy every line-fill buffer and stall this program's own loads. A marker with no such loop
// is dropped.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/CpuBackend.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

void tessel::declarePrefetchMarker(llvm::Module &module) {
  if (llvm::Function *f = module.getFunction(tessel::kPrefetchMarker)) {
    // Touches no memory the kernel can see: optimizations move loads and stores across it.
    f->setOnlyAccessesInaccessibleMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
    f->setNoSync();
  }
}

namespace {

/// The loop after `marker`, in the same program, where the most work happens: an innermost
/// loop directly inside the marker's loop (or at the top level), dominated by the marker, in
/// simplified form, with a known trip count; weighed by instructions times trips.
llvm::Loop *busiestLoopAfter(llvm::CallInst *marker, llvm::LoopInfo &loops,
                             llvm::DominatorTree &dominators, llvm::ScalarEvolution &scev,
                             unsigned &trips) {
  llvm::Loop *outer = loops.getLoopFor(marker->getParent());
  const std::vector<llvm::Loop *> &candidates =
      outer ? outer->getSubLoops() : loops.getTopLevelLoops();
  llvm::Loop *best = nullptr;
  uint64_t bestWork = 0;
  for (llvm::Loop *loop : candidates) {
    if (!loop->isInnermost() || !loop->getLoopPreheader() || !loop->getLoopLatch() ||
        !dominators.dominates(marker, loop->getHeader()))
      continue;
    unsigned count = scev.getSmallConstantTripCount(loop);
    if (count == 0)
      continue;
    uint64_t size = 0;
    for (llvm::BasicBlock *block : loop->blocks())
      size += block->size();
    if (size * count > bestWork) {
      bestWork = size * count;
      best = loop;
      trips = count;
    }
  }
  return best;
}

/// Replaces `marker` by prefetches of its lines spread over the iterations of `loop` (`trips`
/// of them): iteration i prefetches lines [i*k, i*k + k) (the last line again past the end).
void spreadOverLoop(llvm::CallInst *marker, llvm::Loop *loop, unsigned trips) {
  auto *rows = llvm::dyn_cast<llvm::ConstantInt>(marker->getArgOperand(1));
  auto *rowBytes = llvm::dyn_cast<llvm::ConstantInt>(marker->getArgOperand(2));
  auto *write = llvm::dyn_cast<llvm::ConstantInt>(marker->getArgOperand(4));
  if (!rows || !rowBytes || !write)
    return;
  uint64_t lineBytes = tessel::kCacheLineBytes;
  uint64_t rowLines = (rowBytes->getZExtValue() + lineBytes - 1) / lineBytes;
  uint64_t lines = rows->getZExtValue() * rowLines;
  if (lines == 0)
    return;
  uint64_t perTrip = (lines + trips - 1) / trips;

  llvm::BasicBlock *header = loop->getHeader();
  llvm::IRBuilder<> b(&*header->getFirstInsertionPt());
  llvm::Type *i64 = b.getInt64Ty();
  llvm::PHINode *iteration = llvm::PHINode::Create(i64, 2, "prefetch.iteration");
  iteration->insertBefore(header->begin());
  iteration->addIncoming(b.getInt64(0), loop->getLoopPreheader());
  llvm::Value *base = marker->getArgOperand(0), *rowStride = marker->getArgOperand(3);
  llvm::Value *first = b.CreateMul(iteration, b.getInt64(perTrip));
  for (uint64_t j = 0; j < perTrip; ++j) {
    llvm::Value *line = b.CreateAdd(first, b.getInt64(j));
    if (perTrip * trips != lines) // past the end: the last line again
      line = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, line, b.getInt64(lines - 1));
    llvm::Value *offset = b.CreateMul(b.CreateURem(line, b.getInt64(rowLines)),
                                      b.getInt64(lineBytes));
    if (rows->getZExtValue() > 1)
      offset = b.CreateAdd(offset,
                           b.CreateMul(b.CreateUDiv(line, b.getInt64(rowLines)), rowStride));
    llvm::Value *address = b.CreateIntToPtr(b.CreateAdd(base, offset), b.getPtrTy());
    b.CreateIntrinsic(llvm::Intrinsic::prefetch, {b.getPtrTy()},
                      {address, b.getInt32(write->isZero() ? 0 : 1), b.getInt32(3),
                       b.getInt32(1)});
  }
  llvm::BasicBlock *latch = loop->getLoopLatch();
  llvm::IRBuilder<> lb(latch->getTerminator());
  iteration->addIncoming(lb.CreateAdd(iteration, lb.getInt64(1)), latch);
}

} // namespace

void tessel::placePrefetches(llvm::Module &module) {
  llvm::Function *declaration = module.getFunction(tessel::kPrefetchMarker);
  if (!declaration)
    return;
  llvm::MapVector<llvm::Function *, llvm::SmallVector<llvm::CallInst *>> markersOf;
  for (llvm::User *user : declaration->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(user))
      markersOf[call->getFunction()].push_back(call);
  llvm::TargetLibraryInfoImpl libraryInfo(module.getTargetTriple());
  for (auto &[f, markers] : markersOf) {
    llvm::DominatorTree dominators(*f);
    llvm::LoopInfo loops(dominators);
    llvm::TargetLibraryInfo library(libraryInfo, f);
    llvm::AssumptionCache assumptions(*f);
    llvm::ScalarEvolution scev(*f, library, assumptions, dominators, loops);
    for (llvm::CallInst *marker : markers) {
      unsigned trips = 0;
      if (llvm::Loop *loop = busiestLoopAfter(marker, loops, dominators, scev, trips))
        spreadOverLoop(marker, loop, trips);
      // The loop's blocks keep their structure: analyses stay valid for the next marker.
    }
    for (llvm::CallInst *marker : markers)
      marker->eraseFromParent();
  }
  // Markers the optimizer left unused (or whose function was removed).
  for (llvm::User *user : llvm::make_early_inc_range(declaration->users()))
    llvm::cast<llvm::Instruction>(user)->eraseFromParent();
  declaration->eraseFromParent();
}
