//===- PtrAnalysis.h - structured views of offsets, pointers and masks -*- C++ -*-===//
//
// Describes integer tensors, tensors of pointers and i1 masks in closed form, when they have
// one:
//   offset(i) = scalar + sum_d term_d(i_d),   term_d(i) = i * stride_d, or, along a
//               wrap-around dimension, ((wrapOffset_d + i) mod wrap_d) * stride_d
//   pointer(i) = base + offset(i)
//   mask(i)    = AND_d (i_d < bound_d)
// Every component is an index-typed OpFoldResult built right after the op that defines the
// described value, so it dominates every use of that value.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_CONVERSION_TRITON_TO_STRUCTURED_PTRANALYSIS_H
#define TESSEL_COMPILER_CONVERSION_TRITON_TO_STRUCTURED_PTRANALYSIS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace tessel {

/// offset(i) = scalar + sum_d term_d(i_d), see the file comment.
struct OffsetState {
  llvm::SmallVector<int64_t> shape;
  mlir::OpFoldResult scalar;
  llvm::SmallVector<mlir::OpFoldResult> strides;
  /// Parent size of a wrap-around dimension, or null.
  llvm::SmallVector<mlir::OpFoldResult> wraps;
  /// Offset added before the wrap-around; meaningful where wraps[d] is set.
  llvm::SmallVector<mlir::OpFoldResult> wrapOffsets;

  int64_t rank() const { return shape.size(); }
  bool hasWrap() const;
  /// True when no dimension contributes: the same value everywhere.
  bool isUniform() const;
  /// The one dimension along which the offset varies, by a stride of exactly 1 (a shifted
  /// range); kNoVaryingDim when none varies, kNotARange when several or another stride do.
  static constexpr int64_t kNoVaryingDim = -1, kNotARange = -2;
  int64_t unitStrideDim() const;
};

/// A tensor of pointers (or a scalar pointer, rank 0) as base + offset; or a block pointer
/// (from tt.make_tensor_ptr) as base, strides, block offsets and the parent shape.
struct PtrState {
  mlir::Value base;
  OffsetState offset;
  /// Block pointers only: order, per-dimension block offsets and the parent tensor's shape.
  std::optional<llvm::SmallVector<int32_t>> order;
  llvm::SmallVector<mlir::OpFoldResult> blockOffsets;
  llvm::SmallVector<mlir::OpFoldResult> parentShape;

  bool isBlockPointer() const { return order.has_value(); }
};

/// mask(i) = AND_d (i_d < bounds[d]); bounds are clamped to [0, shape[d]].
struct MaskState {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<mlir::OpFoldResult> bounds;
};

/// Computes and caches the states above. Components are created with `builder`; values that
/// have no closed form get std::nullopt and a reason (see `lastFailure`).
class PtrAnalysis {
public:
  explicit PtrAnalysis(mlir::MLIRContext *ctx) : builder(ctx) {}

  std::optional<OffsetState> getOffset(mlir::Value value);
  std::optional<PtrState> getPtr(mlir::Value value);
  std::optional<MaskState> getMask(mlir::Value value);
  /// A scalar `other` value for a load: the splatted scalar or the splat constant.
  std::optional<mlir::Value> getScalarOther(mlir::Value other, mlir::OpBuilder &at);

  /// Records the state of a value the caller defines (loop-carried pointers).
  void setPtr(mlir::Value value, PtrState state) { ptrs[value] = std::move(state); }

  /// Why the last query failed, for remarks.
  const std::string &lastFailure() const { return failure; }

  /// Index arithmetic on OpFoldResults, folding constants; created at `b`'s insertion point.
  static mlir::OpFoldResult add(mlir::OpBuilder &b, mlir::Location loc, mlir::OpFoldResult x,
                                mlir::OpFoldResult y);
  static mlir::OpFoldResult sub(mlir::OpBuilder &b, mlir::Location loc, mlir::OpFoldResult x,
                                mlir::OpFoldResult y);
  static mlir::OpFoldResult mul(mlir::OpBuilder &b, mlir::Location loc, mlir::OpFoldResult x,
                                mlir::OpFoldResult y);
  static mlir::OpFoldResult clamp(mlir::OpBuilder &b, mlir::Location loc, mlir::OpFoldResult x,
                                  int64_t hi);
  static mlir::OpFoldResult minimum(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::OpFoldResult x, mlir::OpFoldResult y);
  /// `value` (any integer or index type) as an index OpFoldResult.
  static mlir::OpFoldResult toIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);
  static bool isZero(mlir::OpFoldResult v);
  static bool same(mlir::OpFoldResult x, mlir::OpFoldResult y);

private:
  std::optional<OffsetState> computeOffset(mlir::Value value);
  std::optional<PtrState> computePtr(mlir::Value value);
  std::optional<MaskState> computeMask(mlir::Value value);
  std::nullopt_t fail(const llvm::Twine &why);
  /// Positions the builder right after the definition of `value`.
  void placeAfter(mlir::Value value);

  mlir::OpBuilder builder;
  llvm::DenseMap<mlir::Value, OffsetState> offsets;
  llvm::DenseMap<mlir::Value, PtrState> ptrs;
  llvm::DenseMap<mlir::Value, MaskState> masks;
  std::string failure;
};

} // namespace tessel

#endif // TESSEL_COMPILER_CONVERSION_TRITON_TO_STRUCTURED_PTRANALYSIS_H
