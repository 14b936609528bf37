//===- DeviceMath.cpp - device-library math calls the GPU has instructions for -*- C++ -*-===//

#include "compiler/backend/DeviceMath.h"

llvm::Intrinsic::ID tessel::exactMathIntrinsic(llvm::StringRef base) {
  static const std::pair<const char *, llvm::Intrinsic::ID> kIntrinsics[] = {
      {"floor", llvm::Intrinsic::floor},         {"ceil", llvm::Intrinsic::ceil},
      {"fabs", llvm::Intrinsic::fabs},           {"sqrt", llvm::Intrinsic::sqrt},
      {"fmax", llvm::Intrinsic::maxnum},         {"fmin", llvm::Intrinsic::minnum},
      {"copysign", llvm::Intrinsic::copysign},   {"trunc", llvm::Intrinsic::trunc},
      {"round", llvm::Intrinsic::round},         {"rint", llvm::Intrinsic::rint},
      {"nearbyint", llvm::Intrinsic::nearbyint}, {"fma", llvm::Intrinsic::fma},
  };
  for (auto [name, intrinsic] : kIntrinsics)
    if (base == name)
      return intrinsic;
  return llvm::Intrinsic::not_intrinsic;
}
