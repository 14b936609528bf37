//===- CompiledKernels.cc - kernels compiled once per benchmark process -*- C++ -*-===//

#include "benchmarks/CompiledKernels.h"

#include "compiler/pipeline/Compiler.h"
#include "runtime/CompileCache.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace tessel::bench {

runtime::Device &CpuDevice() {
  static std::unique_ptr<runtime::Device> device = [] {
    absl::StatusOr<std::unique_ptr<runtime::Device>> d = runtime::Device::Create("cpu");
    if (!d.ok()) {
      std::fprintf(stderr, "%s\n", std::string(d.status().message()).c_str());
      std::exit(1);
    }
    return *std::move(d);
  }();
  return *device;
}

const runtime::Kernel &CompiledKernel(const std::string &path, const std::string &entry,
                                      const KnobMap &knobs) {
  static std::map<std::string, std::pair<std::unique_ptr<runtime::Executable>,
                                         std::unique_ptr<runtime::Kernel>>>
      cache;
  std::string key = path + "|" + entry;
  for (const auto &[name, value] : knobs)
    key += "|" + name + "=" + std::to_string(value);
  if (auto it = cache.find(key); it != cache.end())
    return *it->second.second;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CompileOptions options;
  options.entry = entry;
  options.knobs = knobs;
  // Built once per source, entry, knobs and compiler version in tessel's compile cache
  // ($TESSEL_CACHE_DIR or ~/.cache/tessel/kernels).
  runtime::CacheKey cacheKey;
  cacheKey.source = text.str();
  cacheKey.entry = entry;
  for (const auto &[name, value] : knobs)
    cacheKey.specialization += "knob." + name + "=" + std::to_string(value) + ";";
  cacheKey.target = CompileCacheTargetKey(options.target);
  cacheKey.compilerVersion = kCompilerVersion;
  runtime::CompileCache compileCache;
  auto so = compileCache.GetOrCompile(cacheKey, [&](const std::string &out) {
    CompileOptions at = options;
    at.outputPath = out;
    absl::StatusOr<std::string> built = compileTTIR(text.str(), path, at);
    return built.ok() ? absl::OkStatus() : built.status();
  });
  if (!so.ok()) {
    std::fprintf(stderr, "%s\n", std::string(so.status().message()).c_str());
    std::exit(1);
  }
  auto module = CpuDevice().Load(*so);
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", std::string(module.status().message()).c_str());
    std::exit(1);
  }
  auto kernel = (*module)->GetKernel(entry);
  if (!kernel.ok()) {
    std::fprintf(stderr, "%s\n", std::string(kernel.status().message()).c_str());
    std::exit(1);
  }
  auto &slot = cache[key];
  slot.first = *std::move(module);
  slot.second = std::make_unique<runtime::Kernel>(*kernel);
  return *slot.second;
}

} // namespace tessel::bench
