//===- DeviceMath.h - device-library math calls the GPU has instructions for -*- C++ -*-===//
//
// MLIR's GPU lowerings turn math ops into calls of the vendor's device library (NVIDIA's
// libdevice: __nv_floorf; AMD's ocml: __ocml_floor_f32). Many of those functions are single
// instructions LLVM's NVPTX and AMDGPU backends select for the corresponding LLVM intrinsics:
// both backends replace those calls with the intrinsics (cuda: NvvmMath.cpp; rocm:
// RocmCodeGen.cpp), so no device library is needed for them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_DEVICEMATH_H
#define TESSEL_COMPILER_BACKEND_DEVICEMATH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Intrinsics.h"

namespace tessel {

/// The LLVM intrinsic of the device-library function `base` (the name without vendor prefix
/// and type suffix: "floor", "fmax", "sqrt", "fma", ...) that both GPU backends select as
/// instructions; not_intrinsic for others.
llvm::Intrinsic::ID exactMathIntrinsic(llvm::StringRef base);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_DEVICEMATH_H
