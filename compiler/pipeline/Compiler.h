//===- Compiler.h - compile a kernel from TTIR to any stage -------*- C++ -*-===//
//
// The compiler driver behind tessel-compile and the autotuner's builder: parses TTIR, keeps the
// requested entry kernel, runs the structured pipeline and the target's backend (looked up in
// compiler/backend/Registry.h), and returns the requested stage. Re-entrant: every call uses its own MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_PIPELINE_COMPILER_H
#define TESSEL_COMPILER_PIPELINE_COMPILER_H

#include "compiler/backend/Backend.h"
#include "compiler/frontend/CodeGen.h"

#include "absl/status/statusor.h"

#include <map>
#include <string>

namespace tessel {

/// The compiler's version, as compile cache keys, records and bundles name it.
inline constexpr const char *kCompilerVersion = "tessel 0.3";

/// The stages every compile passes before its target's backend (--emit ttir, structured,
/// linalg); any other --emit names one of the backend's artifact kinds (llvm, asm, obj, so,
/// artifact for the cpu backend; `tessel-compile --target T --list-knobs` lists them).
inline constexpr const char *kSharedStages[] = {"ttir", "structured", "linalg"};

struct CompileOptions {
  /// The kernel to compile; other public functions become private (and disappear if unused).
  std::string entry;
  /// Where the code runs (default: this machine's CPU).
  Target target;
  /// The backend's knobs by name (see Backend::knobs); unknown or out-of-range knobs are an
  /// error, missing ones take their defaults.
  KnobMap knobs;
  /// A shared stage or one of the backend's artifact kinds; "artifact" is what the runtime
  /// loads.
  std::string emit = "artifact";
  /// Where a file artifact (a shared object) is written.
  std::string outputPath;
  /// GPU targets: the toolkit's root (CUDA: ptxas); empty: found automatically ($CUDA_PATH,
  /// /usr/local/cuda); "none": none, PTX only.
  std::string toolkit;
  /// The specialization's constexprs, recorded in the artifact's build info (with the entry,
  /// the target and the knobs) so a runner can check an artifact is the configuration it is
  /// told; compilePython fills them from its KernelSpec.
  std::map<std::string, std::string> constexprs;
};

/// An error unless `options` names a target a backend builds for, knobs that backend accepts
/// and a stage or artifact kind it emits.
absl::Status validateCompileOptions(const CompileOptions &options);

/// Compiles TTIR `source` (named `filename` in diagnostics). Returns the artifact's bytes
/// (for an artifact written to a file: its path). Errors carry file:line:col diagnostics.
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
