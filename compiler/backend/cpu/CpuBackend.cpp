//===- CpuBackend.cpp - memref/linalg IR to native code for the host -*- C++ -*-===//

#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/backend/cpu/LaunchEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;

#ifndef TESSEL_LLVM_PREFIX
#define TESSEL_LLVM_PREFIX "/usr/lib/llvm-22"
#endif

static void initializeNativeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

bool tessel::isPlainArithmetic(Block &block) {
  return llvm::all_of(block.without_terminator(), [](Operation &op) {
    return op.getNumRegions() == 0 && isMemoryEffectFree(&op);
  });
}

bool tessel::setKnob(CpuKnobs &knobs, const std::string &name, int64_t value) {
  int64_t *knob = name == "tile_m"         ? &knobs.matmulTileM
                  : name == "tile_n"       ? &knobs.matmulTileN
                  : name == "tile_k"       ? &knobs.matmulTileK
                  : name == "vector_width" ? &knobs.vectorWidth
                  : name == "unroll"       ? &knobs.unroll
                  : name == "prefetch"     ? &knobs.prefetch
                                           : nullptr;
  if (knob)
    *knob = value;
  return knob != nullptr;
}

tessel::CpuTarget tessel::resolveCpuTarget(const CpuTarget &target) {
  CpuTarget r = target;
  if (r.triple.empty())
    r.triple = llvm::sys::getDefaultTargetTriple();
  if (r.cpu.empty()) {
    r.cpu = llvm::sys::getHostCPUName().str();
    if (r.features.empty()) {
      std::string features;
      for (const auto &f : llvm::sys::getHostCPUFeatures()) {
        if (!features.empty())
          features += ",";
        features += (f.second ? "+" : "-") + f.first().str();
      }
      // LLVM's tuning for AVX-512 server parts keeps vectors at 256 bits; the tile kernels are
      // all vector work, so use the full width.
      if (features.find("+avx512f") != std::string::npos)
        features += ",-prefer-256-bit";
      r.features = features;
    }
  } else if (r.features.empty()) {
    // A named CPU with AVX-512 (a bundle built for another machine): full-width vectors too.
    initializeNativeTargetOnce();
    llvm::Triple triple(r.triple);
    std::string error;
    if (const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error)) {
      std::unique_ptr<llvm::MCSubtargetInfo> info(t->createMCSubtargetInfo(triple, r.cpu, ""));
      if (info && info->isCPUStringValid(r.cpu) && info->checkFeatures("+avx512f"))
        r.features = "-prefer-256-bit";
    }
  }
  return r;
}

/// Memref-level lowering before the launch entry points are added, then the conversion to the
/// LLVM dialect after (pass lists for a module-anchored pass manager).
// Elementwise producers (splats, sub, exp, ...) fuse into their consumers: one pass over a
// tile instead of one per op.
static constexpr const char *kFusePipeline = "linalg-fuse-elementwise-ops,canonicalize";

static constexpr const char *kBufferizePipeline =
    "one-shot-bufferize{bufferize-function-boundaries=true "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops=true},"
    "canonicalize,cse,"
    // Tile buffers: out of loops, then onto the stack (no malloc per program) up to 64 KiB.
    "func.func(buffer-hoisting,buffer-loop-hoisting,"
    "promote-buffers-to-stack{max-alloc-size-in-bytes=65536})";

// Heap buffers left after promotion to the stack get deallocations. Clones that deallocation
// inserts (a noinline callee returning a tensor) become copies.
static constexpr const char *kDeallocPipeline =
    "buffer-deallocation-pipeline,convert-bufferization-to-memref";

static constexpr const char *kLoopsPipeline =
    "convert-linalg-to-loops,"
    "convert-vector-to-scf{full-unroll=true},"
    "expand-strided-metadata,lower-affine,canonicalize,cse";

static constexpr const char *kToLLVMPipeline =
    "convert-scf-to-cf,"
    "finalize-memref-to-llvm,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct "
    "reassociate-fp-reductions=true},"
    "convert-math-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,convert-ub-to-llvm,"
    "convert-cf-to-llvm,convert-func-to-llvm,"
    "reconcile-unrealized-casts,canonicalize";

static LogicalResult runPipeline(ModuleOp module, StringRef text) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(text, pm, os)))
    return module.emitError() << "internal error: bad CPU pipeline: " << error;
  return pm.run(module);
}

/// A linalg.generic output that is a fresh tensor (tensor.empty) written element by element
/// (identity map, not read by the payload), of the type of an identity-mapped input that
/// nothing reads after the op, takes that input's place: the payload reads the element through
/// the output and bufferization updates the input's buffer in place rather than allocating a
/// second tile buffer (softmax's exp and division reuse the loaded row; reading through the
/// output keeps that in place where the op also reduces). Fewer buffers also means no 4
/// KiB-aliased pairs of stack buffers, which stall loads behind unrelated stores.
static void reuseDeadInputsAsOutputs(ModuleOp module) {
  SmallVector<linalg::GenericOp> ops;
  module.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics())
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : ops) {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (!init.get().getDefiningOp<tensor::EmptyOp>() || op.payloadUsesValueFromOperand(&init) ||
          !op.getMatchingIndexingMap(&init).isIdentity())
        continue;
      OpOperand *reused = nullptr;
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        // A function argument belongs to the caller (a noinline callee's tensor argument).
        if (isa<BlockArgument>(value) &&
            isa<FunctionOpInterface>(cast<BlockArgument>(value).getOwner()->getParentOp()))
          continue;
        if (value.getType() != init.get().getType() ||
            !op.getMatchingIndexingMap(input).isIdentity())
          continue;
        // Every other reader must come before `op` in its block (or the buffer would be
        // needed afterwards and bufferization would copy it).
        bool deadAfter = llvm::all_of(value.getUsers(), [&](Operation *user) {
          return user == op || (user->getBlock() == op->getBlock() && user->isBeforeInBlock(op));
        });
        if (deadAfter && llvm::count(op->getOperands(), value) == 1) {
          reused = input;
          break;
        }
      }
      if (!reused)
        continue;
      unsigned inputIndex = reused->getOperandNumber();
      unsigned initIndex = init.getOperandNumber();
      SmallVector<Value> inputs, inits(op.getDpsInits());
      SmallVector<AffineMap> maps;
      for (OpOperand *input : op.getDpsInputOperands())
        if (input != reused) {
          inputs.push_back(input->get());
          maps.push_back(op.getMatchingIndexingMap(input));
        }
      for (OpOperand &out : op.getDpsInitsMutable())
        maps.push_back(op.getMatchingIndexingMap(&out));
      inits[initIndex - op.getNumDpsInputs()] = reused->get();
      rewriter.setInsertionPoint(op);
      auto fresh = linalg::GenericOp::create(rewriter, op.getLoc(), op.getResultTypes(), inputs,
                                             inits, maps, op.getIteratorTypesArray());
      rewriter.inlineRegionBefore(op.getRegion(), fresh.getRegion(), fresh.getRegion().end());
      Block &body = fresh.getRegion().front();
      // Block arguments follow the operands: the input's element is now the output's.
      rewriter.replaceAllUsesWith(body.getArgument(inputIndex), body.getArgument(initIndex));
      body.eraseArgument(inputIndex);
      rewriter.replaceOp(op, fresh.getResults());
      break; // one input per op: `op` is gone
    }
  }
}

/// memref.copy would lower to a call into MLIR's C runner library, which shared objects must
/// not depend on; as linalg.copy it becomes plain loops.
static void copiesToLinalg(ModuleOp module) {
  module.walk([](memref::CopyOp copy) {
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
    copy.erase();
  });
}

/// Tiles `op` by `tile` and vectorizes the tiles; an op that cannot be tiled stays as it is
/// (and becomes loops), a tile that cannot be vectorized stays a tiled linalg op.
static void tileAndVectorize(IRRewriter &rewriter, Operation *op, ArrayRef<int64_t> tile,
                             bool namedContraction) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), tile));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return;
  rewriter.replaceOp(op, tiled->replacements);
  for (Operation *t : tiled->tiledOps) {
    rewriter.setInsertionPoint(t);
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, t, /*inputVectorSizes=*/{}, /*scalableDims=*/{},
                          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
                          /*assumeDynamicDimsMatchVecSizes=*/false, namedContraction);
    if (succeeded(vectorized))
      rewriter.replaceOp(t, vectorized->replacements);
  }
}

/// Halves each tile dimension until it divides the static loop bound.
static SmallVector<int64_t> fitTile(ArrayRef<int64_t> tile, ArrayRef<int64_t> bounds) {
  SmallVector<int64_t> fitted(tile);
  for (size_t d = 0; d < fitted.size(); ++d)
    while (fitted[d] > 1 && bounds[d] % fitted[d] != 0)
      fitted[d] /= 2;
  return fitted;
}

/// Tiles every static linalg.matmul by the register tile (each dimension halved until it
/// divides the block) and vectorizes the tiles into vector.contract ops, lowered to outer
/// products: rows of FMAs on vectors of tileN elements.
static void tileAndVectorizeMatmuls(ModuleOp module, const tessel::CpuKnobs &knobs) {
  if (knobs.matmulTileM <= 0)
    return;
  MLIRContext *ctx = module.getContext();
  SmallVector<int64_t> tile{knobs.matmulTileM, knobs.matmulTileN, knobs.matmulTileK};
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  IRRewriter rewriter(ctx);
  for (linalg::MatmulOp matmul : matmuls) {
    if (!matmul.hasPureTensorSemantics())
      continue;
    SmallVector<int64_t> bounds = matmul.getStaticLoopRanges();
    if (bounds.size() != 3 || llvm::any_of(bounds, ShapedType::isDynamic))
      continue;
    tileAndVectorize(rewriter, matmul, fitTile(tile, bounds), /*namedContraction=*/true);
  }
}

/// Tiles every static all-parallel linalg op to `unroll` x `vectorWidth` along its two
/// innermost loops and vectorizes the tiles.
static void tileAndVectorizeElementwise(ModuleOp module, const tessel::CpuKnobs &knobs) {
  if (knobs.vectorWidth <= 0)
    return;
  MLIRContext *ctx = module.getContext();
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
        !op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
        op.getNumLoops() != op.getNumParallelLoops() ||
        op->getParentOfType<linalg::LinalgOp>())
      return;
    // i1 vectors are bit-packed in memory while scalar i1 accesses use bytes: keep boolean
    // tensors scalar.
    for (Value v : op->getOperands())
      if (getElementTypeOrSelf(v.getType()).isInteger(1))
        return;
    // Only pure arithmetic bodies: gathers (tensor.extract) and per-element memory accesses
    // (loads, atomics, scf.if) stay scalar.
    if (!tessel::isPlainArithmetic(*op.getBlock()) ||
        !op.getBlock()->getOps<tensor::ExtractOp>().empty())
      return;
    ops.push_back(op);
  });
  IRRewriter rewriter(ctx);
  for (linalg::LinalgOp op : ops) {
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    if (llvm::any_of(bounds, ShapedType::isDynamic))
      continue;
    size_t rank = bounds.size();
    SmallVector<int64_t> tile(rank, 1);
    tile[rank - 1] = knobs.vectorWidth;
    if (rank > 1)
      tile[rank - 2] = std::max<int64_t>(1, knobs.unroll);
    tile = fitTile(tile, bounds);
    if (tile[rank - 1] < 4)
      continue; // too narrow to be worth vectors
    tileAndVectorize(rewriter, op, tile, /*namedContraction=*/false);
  }
}

/// exp, log, tanh, erf, ... become polynomial approximations in arith ops: no libm calls in the
/// loops, so LLVM vectorizes them (softmax's exp, layer norm's rsqrt).
/// Where ldexp is one instruction (AVX-512), exp/exp2 on f32 use a shorter sequence built on
/// it.
static void approximateMath(ModuleOp module, bool fastExp) {
  RewritePatternSet patterns(module.getContext());
  if (fastExp)
    tessel::populateFastExpPatterns(patterns);
  populateMathPolynomialApproximationPatterns(patterns);
  (void)applyPatternsGreedily(module, std::move(patterns));
}

/// Drops the tt.* argument attributes (analysis hints) that LLVM IR has no meaning for.
static void dropTritonArgumentAttributes(ModuleOp module) {
  module.walk([](FunctionOpInterface fn) {
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : fn.getArgAttrs(i))
        if (attr.getName().getValue().starts_with("tt."))
          fn.removeArgAttr(i, attr.getName());
  });
}

LogicalResult tessel::lowerToLLVMDialect(ModuleOp module, const CpuKnobs &knobs,
                                         const CpuTarget &target) {
  // Library callers (the sweep, a benchmark) set knobs directly: a zero tile would divide by
  // zero when fitted to a block.
  if ((knobs.matmulTileM > 0 && (knobs.matmulTileN <= 0 || knobs.matmulTileK <= 0)) ||
      knobs.matmulTileM < 0 || knobs.vectorWidth < 0 || knobs.unroll < 1 ||
      knobs.prefetch < 0)
    return module.emitError() << "invalid CPU knobs: matmul tile " << knobs.matmulTileM << "x"
                              << knobs.matmulTileN << "x" << knobs.matmulTileK
                              << ", vector width " << knobs.vectorWidth << ", unroll "
                              << knobs.unroll << ", prefetch " << knobs.prefetch
                              << " (tile sizes positive, or rows 0 for loops; width >= 0; "
                                 "unroll >= 1; prefetch >= 0)";
  dropTritonArgumentAttributes(module);
  lowerPrints(module);
  tileAndVectorizeMatmuls(module, knobs);
  tileAndVectorizeElementwise(module, knobs);
  if (failed(runPipeline(module, kFusePipeline)))
    return failure();
  reduceByLanes(module);
  fuseTilePasses(module);
  reuseDeadInputsAsOutputs(module);
  if (failed(runPipeline(module, kBufferizePipeline)))
    return failure();
  // Only when something is left on the heap: deallocation analysis does not handle every op
  // with regions (memref.generic_atomic_rmw, from atomic_cas), and it has nothing to do
  // without heap buffers.
  bool heap = false;
  module.walk([&](Operation *op) {
    heap |= isa<memref::AllocOp, memref::ReallocOp>(op) ||
            isa<func::ReturnOp>(op) && llvm::any_of(op->getOperandTypes(), [](Type t) {
              return isa<BaseMemRefType>(t);
            });
  });
  if (heap) {
    // Neither that op nor its compare-and-swap loop (LLVM ops of unknown memory effects) is
    // something deallocation analysis accepts.
    WalkResult atomics = module.walk([](memref::GenericAtomicRMWOp op) {
      op.emitError() << "tl.atomic_cas in a kernel whose tiles need heap buffers (over 64 KiB) "
                        "is not supported; use smaller blocks";
      return WalkResult::interrupt();
    });
    if (atomics.wasInterrupted() || failed(runPipeline(module, kDeallocPipeline)))
      return failure();
  }
  loadTilesByVectors(module);
  copiesToLinalg(module);
  prefetchNextPrograms(module, knobs.prefetch);
  // Tile buffers on the stack start on a cache line: unaligned 64-byte vector accesses split
  // across two lines.
  module.walk([](memref::AllocaOp alloca) {
    if (!alloca.getAlignment())
      alloca.setAlignment(64);
  });
  lowerGenericAtomics(module);
  if (failed(runPipeline(module, kLoopsPipeline)))
    return failure();
  approximateMath(module, cpuTargetHasFeature(target, "avx512f"));
  if (failed(addLaunchEntryPoints(module)) ||
      failed(runPipeline(module, kToLLVMPipeline)))
    return failure();
  return success();
}


/// LLVM's description of `requested`'s CPU (empty fields: the host), or null.
static std::unique_ptr<llvm::MCSubtargetInfo> subtargetInfo(const tessel::CpuTarget &requested) {
  initializeNativeTargetOnce();
  tessel::CpuTarget target = tessel::resolveCpuTarget(requested);
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      llvmTarget->createMCSubtargetInfo(triple, target.cpu, target.features));
}

bool tessel::cpuTargetHasFeature(const CpuTarget &requested, const std::string &feature) {
  std::unique_ptr<llvm::MCSubtargetInfo> info = subtargetInfo(requested);
  return info && info->checkFeatures("+" + feature);
}

bool tessel::cpuTargetIsKnown(const CpuTarget &target) {
  if (target.cpu.empty())
    return true;
  CpuTarget generic = target;
  generic.cpu = "generic";
  std::unique_ptr<llvm::MCSubtargetInfo> info = subtargetInfo(generic);
  return info && info->isCPUStringValid(target.cpu);
}

/// LLVM expands a horizontal min/max of a vector (llvm.vector.reduce.fmax and friends, left
/// after the loop vectorizer turns a max reduction into vector accumulators) into one scalar
/// step per lane unless NaNs are ruled out; maxnum/minnum/maximum/minimum are associative and
/// commutative with NaNs too, so a tree of vector ops on halves gives the same result in
/// log2(lanes) steps (16 serial scalar steps -> 4 vector steps for a row max on AVX-512).
static void treeMinMaxReductions(llvm::Module &module) {
  llvm::SmallVector<llvm::IntrinsicInst *> reductions;
  for (llvm::Function &f : module)
    for (llvm::Instruction &inst : llvm::instructions(f))
      if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
        switch (intrinsic->getIntrinsicID()) {
        case llvm::Intrinsic::vector_reduce_fmax:
        case llvm::Intrinsic::vector_reduce_fmin:
        case llvm::Intrinsic::vector_reduce_fmaximum:
        case llvm::Intrinsic::vector_reduce_fminimum:
          reductions.push_back(intrinsic);
          break;
        default:
          break;
        }
  for (llvm::IntrinsicInst *reduction : reductions) {
    llvm::Intrinsic::ID elementwise;
    switch (reduction->getIntrinsicID()) {
    case llvm::Intrinsic::vector_reduce_fmax:
      elementwise = llvm::Intrinsic::maxnum;
      break;
    case llvm::Intrinsic::vector_reduce_fmin:
      elementwise = llvm::Intrinsic::minnum;
      break;
    case llvm::Intrinsic::vector_reduce_fmaximum:
      elementwise = llvm::Intrinsic::maximum;
      break;
    default:
      elementwise = llvm::Intrinsic::minimum;
      break;
    }
    auto *type = llvm::dyn_cast<llvm::FixedVectorType>(reduction->getArgOperand(0)->getType());
    if (!type || !llvm::isPowerOf2_32(type->getNumElements()))
      continue;
    llvm::IRBuilder<> b(reduction);
    b.setFastMathFlags(reduction->getFastMathFlags());
    llvm::Value *v = reduction->getArgOperand(0);
    for (unsigned width = type->getNumElements(); width > 1; width /= 2) {
      llvm::SmallVector<int> low, high;
      for (unsigned i = 0; i < width / 2; ++i) {
        low.push_back(i);
        high.push_back(i + width / 2);
      }
      llvm::Value *a = b.CreateShuffleVector(v, low), *c = b.CreateShuffleVector(v, high);
      v = b.CreateBinaryIntrinsic(elementwise, a, c);
    }
    reduction->replaceAllUsesWith(b.CreateExtractElement(v, uint64_t(0)));
    reduction->eraseFromParent();
  }
}

/// Each launch entry point's kernel is inlined into its program loop (LLVM's cost model may
/// leave a large kernel a call): invariant address arithmetic leaves the loop, and the
/// prefetches of the next program (Prefetch.cpp) are placed in the loop's body.
static void inlineKernelsIntoLaunchEntries(llvm::Module &module) {
  for (llvm::Function &f : module)
    if (f.getName().ends_with(tessel::kLaunchSuffix))
      for (llvm::Instruction &inst : llvm::instructions(f))
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (llvm::Function *callee = call->getCalledFunction();
              callee && !callee->isDeclaration() &&
              !callee->hasFnAttribute(llvm::Attribute::NoInline))
            callee->addFnAttr(llvm::Attribute::AlwaysInline);
}

std::string tessel::emitCpuCode(ModuleOp module, const CpuTarget &requested, CpuEmitKind kind,
                                std::string &error) {
  initializeNativeTargetOnce();
  CpuTarget target = resolveCpuTarget(requested);
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return "";
  }
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return "";
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt,
      target.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : target.optLevel == 0 ? llvm::CodeGenOptLevel::None
                             : llvm::CodeGenOptLevel::Default));
  if (!machine) {
    error = "cannot create a target machine for " + target.triple + " / " + target.cpu;
    return "";
  }
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  declarePrefetchMarker(*llvmModule);
  inlineKernelsIntoLaunchEntries(*llvmModule);
  if (llvm::Error e = makeOptimizingTransformer(target.optLevel, 0, machine.get())(
          llvmModule.get())) {
    error = llvm::toString(std::move(e));
    return "";
  }
  treeMinMaxReductions(*llvmModule);
  placePrefetches(*llvmModule);
  std::string out;
  if (kind == CpuEmitKind::LLVMIR) {
    llvm::raw_string_ostream os(out);
    llvmModule->print(os, nullptr);
    return out;
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  auto fileType = kind == CpuEmitKind::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                : llvm::CodeGenFileType::ObjectFile;
  if (machine->addPassesToEmitFile(pm, os, nullptr, fileType)) {
    error = "the target machine cannot emit this file type";
    return "";
  }
  pm.run(*llvmModule);
  return std::string(buffer.str());
}

std::string tessel::linkSharedObject(const std::string &objectBytes,
                                     const std::string &outputPath) {
  llvm::SmallString<128> objPath, tmpOut;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tessel", "o", objPath))
    return "cannot create a temporary object file: " + ec.message();
  auto removeObj = llvm::make_scope_exit([&] { llvm::sys::fs::remove(objPath); });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return "cannot write " + objPath.str().str() + ": " + ec.message();
    os << objectBytes;
  }
  // Link next to the destination, then rename: readers never see a partial file.
  tmpOut = outputPath;
  tmpOut += ".tmp-%%%%%%";
  llvm::SmallString<128> uniqueOut;
  llvm::sys::fs::createUniquePath(tmpOut, uniqueOut, /*MakeAbsolute=*/false);
  std::string lld = std::string(TESSEL_LLVM_PREFIX) + "/bin/ld.lld";
  std::string linker = llvm::sys::fs::can_execute(lld) ? lld : "";
  if (linker.empty()) {
    llvm::ErrorOr<std::string> ld = llvm::sys::findProgramByName("ld");
    if (!ld)
      return "no linker found: neither " + lld + " nor ld on PATH";
    linker = *ld;
  }
  llvm::SmallVector<llvm::StringRef> args{linker, "-shared", "-o", uniqueOut, objPath};
  // LLVM turns copy loops into memcpy/memset calls. Linked against the C library, they bind to
  // its current versions (memcpy@GLIBC_2.14: the CPU-tuned implementation); an unversioned
  // reference binds to the oldest one (memcpy@GLIBC_2.2.5, plain SSE2), several times slower
  // for tile-sized copies. Without a C library to link against, the references stay
  // unversioned, which is still correct.
  for (const char *libc : {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                           "/lib64/libc.so.6", "/usr/lib64/libc.so.6"})
    if (llvm::sys::fs::exists(libc)) {
      args.push_back("--as-needed");
      args.push_back(libc);
      break;
    }
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    llvm::sys::fs::remove(uniqueOut);
    return "linking " + outputPath + " failed (" + linker + " exited with " +
           std::to_string(rc) + ")" + (message.empty() ? "" : ": " + message);
  }
  if (std::error_code ec = llvm::sys::fs::rename(uniqueOut, outputPath)) {
    llvm::sys::fs::remove(uniqueOut);
    return "cannot move the shared object to " + outputPath + ": " + ec.message();
  }
  return "";
}
