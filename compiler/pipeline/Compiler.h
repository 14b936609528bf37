//===- Compiler.h - compile a kernel from TTIR to any stage -------*- C++ -*-===//
//
// The compiler driver behind tessel-compile and the autotuner's builder: parses TTIR, keeps the
// requested entry kernel, runs the structured pipeline and the CPU backend, and returns the
// requested stage. Re-entrant: every call uses its own MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_PIPELINE_COMPILER_H
#define TESSEL_COMPILER_PIPELINE_COMPILER_H

#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/frontend/CodeGen.h"

#include "absl/status/statusor.h"

#include <string>

namespace tessel {

/// The stages a compile can stop at.
enum class EmitKind {
  TTIR,       ///< the parsed, verified input
  Structured, ///< after triton-to-structured
  Linalg,     ///< after the whole structured pipeline (memref/linalg/scf)
  LLVMIR,     ///< optimized LLVM IR
  Assembly,   ///< target assembly
  Object,     ///< object file
  SharedObject ///< what the runtime loads
};

/// Parses "ttir", "structured", "linalg", "llvm", "asm", "obj", "so".
absl::StatusOr<EmitKind> parseEmitKind(const std::string &name);

struct CompileOptions {
  /// The kernel to compile; other public functions become private (and disappear if unused).
  std::string entry;
  CpuTarget target;
  CpuKnobs knobs;
  EmitKind emit = EmitKind::SharedObject;
  /// Where the shared object goes (EmitKind::SharedObject only).
  std::string outputPath;
};

/// Compiles TTIR `source` (named `filename` in diagnostics). Returns the artifact's bytes
/// (for SharedObject: the path written). Errors carry file:line:col diagnostics.
absl::StatusOr<std::string> compileTTIR(const std::string &source, const std::string &filename,
                                        const CompileOptions &options);

/// Compiles a Triton-language source: generates the tt IR of `options.entry` specialized by
/// `spec` (constexpr values, argument types), then continues as compileTTIR. Frontend errors
/// are "file:line:col: error: ..." with the source line and a caret.
absl::StatusOr<std::string> compilePython(const std::string &source, const std::string &filename,
                                          const frontend::KernelSpec &spec,
                                          const CompileOptions &options);

/// The tt IR text (with locations) of a Triton-language kernel.
absl::StatusOr<std::string> generateTTIR(const std::string &source, const std::string &filename,
                                         const frontend::KernelSpec &spec);

} // namespace tessel

#endif // TESSEL_COMPILER_PIPELINE_COMPILER_H
