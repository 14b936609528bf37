//===- LaunchEntry.h - the C launch entry point of each kernel -----*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_LAUNCHENTRY_H
#define TESSEL_COMPILER_BACKEND_CPU_LAUNCHENTRY_H

#include "mlir/IR/BuiltinOps.h"

namespace tessel {
/// Adds the `<kernel>__tessel_launch` entry point of every public kernel (see CpuBackend.h).
mlir::LogicalResult addLaunchEntryPoints(mlir::ModuleOp module);
} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CPU_LAUNCHENTRY_H
