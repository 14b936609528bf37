//===- Allocation.h - shared-memory offsets of tile buffers over the call graph -*- C++ -*-===//
//
// On a GPU all shared memory of a kernel is one arena. Each function's tile buffers (static
// memref.alloc outside parallel loops: what tessel-cuda-map-programs places in shared memory)
// get offsets in its part of the arena from their lifetimes, so buffers whose lifetimes do not
// overlap share bytes; a call is a *virtual* buffer as large as its callee's total, live at the
// call, and the callee's own offsets are relative to where the call site placed it (one
// callee, different bases from different call sites). Functions are analysed callees first;
// recursion is an error. Lifetimes are intervals in the order ops appear (pre-order): from a
// buffer's first use to its last through views, widened to the whole of any loop that uses it
// without allocating it (the previous and next iterations use it too). A buffer allocated
// inside a loop that the loop carries into its next iteration (yields) takes two slots for the
// whole loop: tessel-cuda-map-programs lets consecutive iterations take turns between them (the
// carried tile is read while that iteration allocates again); one the loop does not carry
// takes one slot, the same bytes in every iteration.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_ANALYSIS_ALLOCATION_H
#define TESSEL_COMPILER_ANALYSIS_ALLOCATION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseMap.h"

namespace tessel {

/// The bytes of a buffer of `type` in shared memory (elements of less than a byte take one).
int64_t sharedBufferBytes(mlir::MemRefType type, mlir::Operation *scope);

class SharedAllocation {
public:
  /// One buffer of a function: a tile buffer (`op` its memref.alloc) or a call's virtual
  /// buffer (`op` the call).
  struct Buffer {
    mlir::Operation *op = nullptr;
    bool isVirtual = false; ///< a call's: its callee's total
    int64_t bytes = 0;
    int64_t offset = 0;
    int64_t firstUse = 0, lastUse = 0; ///< the lifetime, in op positions of its function
  };

  /// Analyses every function of `module` with a body; offsets aligned to `alignment` bytes.
  /// Fails (with a diagnostic at the call) on recursion.
  static mlir::FailureOr<SharedAllocation> analyze(mlir::ModuleOp module, int64_t alignment = 16);
  /// The same for `roots` and the functions they call (found in the nearest symbol tables).
  static mlir::FailureOr<SharedAllocation>
  analyze(llvm::ArrayRef<mlir::FunctionOpInterface> roots, int64_t alignment = 16);

  /// The bytes of arena a function needs, its callees' included.
  int64_t totalBytes(mlir::FunctionOpInterface func) const;
  /// The function's buffers, in the order they appear.
  llvm::ArrayRef<Buffer> buffers(mlir::FunctionOpInterface func) const;
  /// The bytes of one slot of the tile buffer `alloc` (a memref.alloc), aligned: where a
  /// buffer allocated in a loop has its second slot, past its offset.
  static int64_t slotBytes(mlir::Operation *alloc, int64_t alignment = 16);
  /// Whether the tile buffer `alloc` takes two slots that consecutive iterations of its loop
  /// take turns in: allocated in an scf.for and yielded by a region terminator (through views),
  /// so an iteration may still read the previous iteration's buffer.
  static bool takesTurns(mlir::Operation *alloc);

  /// The offset of a tile buffer (its memref.alloc) or a call's virtual buffer, relative to its
  /// function's base; none for other ops.
  std::optional<int64_t> offsetOf(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::Operation *, std::vector<Buffer>> buffers_;
  llvm::DenseMap<mlir::Operation *, int64_t> totals_;
  llvm::DenseMap<mlir::Operation *, int64_t> offsets_;
};

} // namespace tessel

#endif // TESSEL_COMPILER_ANALYSIS_ALLOCATION_H
