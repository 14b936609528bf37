//===- Builder.cpp - compiles a sweep's candidates, through the compile cache -*- C++ -*-===//

#include "autotune/Builder.h"
#include "autotune/ChildProcess.h"

#include "compiler/backend/Registry.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/CompileCache.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "llvm/Config/llvm-config.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace tessel::autotune {

/// How long one GPU candidate may take to compile in its child process.
constexpr double kCompileTimeoutSeconds = 300;

std::map<std::string, KernelSource> ReadZooSources() {
  std::map<std::string, KernelSource> byPath, byKernel;
  for (const zoo::Kernel &k : zoo::Kernels()) {
    std::string path = k.source;
    if (const char *dir = std::getenv("TESSEL_ZOO_DIR"); dir && path.rfind("kernels/", 0) == 0)
      path = std::string(dir) + "/" + path.substr(8);
    auto it = byPath.find(path);
    if (it == byPath.end()) {
      KernelSource source;
      source.path = path;
      source.readable = runtime::ReadWholeFile(path, source.text);
      it = byPath.emplace(path, std::move(source)).first;
    }
    byKernel[k.name] = it->second;
  }
  return byKernel;
}

/// The digest of the file at `path` (16 hex digits), or "unreadable".
static std::string fileDigest(const std::string &path) {
  std::string bytes;
  if (!runtime::ReadWholeFile(path, bytes))
    return "unreadable";
  return runtime::Sha256Hex(bytes).substr(0, 16);
}

std::string Builder::compilerIdentity() const {
  // The version alone would let an artifact built by an older build of the same version be
  // reused: the running binary (it links the compiler), LLVM's version and the child
  // compiler, where one is used, name the build.
  static const std::string self = std::string(kCompilerVersion) + " llvm " +
                                  LLVM_VERSION_STRING + " build " +
                                  fileDigest("/proc/self/exe");
  return compiler_.empty() ? self : self + " compiler " + compilerDigest_;
}

Builder::Builder(Target target, std::string cacheDirectory)
    : target_(std::move(target)), cacheDirectory_(std::move(cacheDirectory)) {
  // The backend's external tools (ptxas) are part of what an artifact was built with.
  if (absl::StatusOr<const Backend *> backend = lookupBackend(target_.kind); backend.ok())
    if (std::string identity = (*backend)->toolchainIdentity(); !identity.empty())
      toolchain_ = "/" + identity;
}

Built Builder::Build(const Candidate &c, const KernelSource &source) const {
  auto start = std::chrono::steady_clock::now();
  Built built;
  auto finish = [&] {
    built.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return built;
  };
  if (!source.readable) {
    built.artifact = absl::NotFoundError("cannot read " + source.path);
    return finish();
  }
  frontend::KernelSpec spec;
  spec.constexprs = c.kernel->constexprs(c.point, c.shape);
  spec.signature = frontend::SplitSignature(c.kernel->signature(c.dtype));
  CompileOptions options;
  options.entry = c.kernel->entry;
  options.target = target_;
  for (const auto &[name, value] : c.point)
    if (name.rfind("knob.", 0) == 0)
      options.knobs[name.substr(5)] = value;
  // Everything that determines the artifact besides the source, the entry and the target.
  runtime::CacheKey key;
  key.source = source.text;
  key.entry = c.kernel->entry;
  key.specialization = "signature=" + c.kernel->signature(c.dtype);
  for (const auto &[name, value] : spec.constexprs)
    key.specialization += ";" + name + "=" + value;
  for (const auto &[name, value] : options.knobs)
    key.specialization += ";knob." + name + "=" + std::to_string(value);
  key.target = CompileCacheTargetKey(target_) + toolchain_;
  key.compilerVersion = compilerIdentity();
  // One cache object per build: its hit flag is per call, and builds run in parallel.
  runtime::CompileCache cache(cacheDirectory_);
  built.artifact = cache.GetOrCompile(key, [&](const std::string &path) {
    if (!compiler_.empty() && target_.kind != TargetKind::Cpu)
      return compileInChild(c, source, spec, options, path);
    CompileOptions at = options;
    at.outputPath = path;
    absl::StatusOr<std::string> out = compilePython(source.text, source.path, spec, at);
    return out.ok() ? absl::OkStatus() : out.status();
  });
  return finish();
}

void Builder::setCompiler(std::string compiler) {
  compiler_ = std::move(compiler);
  compilerDigest_ = compiler_.empty() ? "" : fileDigest(compiler_);
}

absl::Status Builder::compileInChild(const Candidate &c, const KernelSource &source,
                                     const frontend::KernelSpec &spec,
                                     const CompileOptions &options,
                                     const std::string &path) const {
  std::vector<std::string> args = {compiler_, source.path, "--entry", options.entry,
                                   "--signature", c.kernel->signature(c.dtype), "--target",
                                   target_.str(), "--emit", "artifact", "-o", path};
  for (const auto &[name, value] : spec.constexprs)
    args.insert(args.end(), {"--constexpr", name + "=" + value});
  for (const auto &[name, value] : options.knobs)
    args.insert(args.end(), {"--knob", name + "=" + std::to_string(value)});
  absl::StatusOr<ChildResult> child = RunChild(std::move(args), kCompileTimeoutSeconds);
  if (!child.ok())
    return child.status();
  if (child->timedOut)
    return absl::DeadlineExceededError("tessel-compile did not finish within " +
                                       std::to_string(int(kCompileTimeoutSeconds)) + " s");
  if (child->signal)
    return absl::InternalError(std::string("tessel-compile was killed by signal ") +
                               strsignal(child->signal) + ": " + OutputTail(child->output));
  if (child->exitCode != 0)
    return absl::InvalidArgumentError(OutputTail(child->output));
  return absl::OkStatus();
}

std::vector<Built> Builder::BuildAll(const std::vector<Candidate> &candidates,
                                     const std::map<std::string, KernelSource> &sources,
                                     const std::function<bool()> &stop,
                                     unsigned workers) const {
  std::vector<Built> built(candidates.size());
  std::atomic<size_t> next{0};
  if (workers == 0)
    workers = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < candidates.size();) {
        if (stop && stop()) {
          built[i].artifact = absl::DeadlineExceededError("stopped before it was built");
          continue;
        }
        auto source = sources.find(candidates[i].kernel->name);
        built[i] = source == sources.end()
                       ? Built{absl::NotFoundError("no source for " + candidates[i].kernel->name), 0}
                       : Build(candidates[i], source->second);
      }
    });
  for (std::thread &t : threads)
    t.join();
  return built;
}

} // namespace tessel::autotune
