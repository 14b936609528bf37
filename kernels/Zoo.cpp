//===- Zoo.cpp - the kernel zoo: the registry's kernels, shapes, signatures -*- C++ -*-===//

#include "kernels/Zoo.h"

#include "kernels/spec/Spec.h"
#include "runtime/target/Knobs.h"

#include "absl/strings/str_split.h"

#include <algorithm>
#include <filesystem>
#include <deque>
#include <mutex>

#include <sstream>

namespace tessel::zoo {

namespace {

/// The zoo as read: its kernels, and the first error of one that did not load.
struct Zoo {
  std::vector<Kernel> kernels;
  absl::Status status;
};

/// The specs of kernels/<folder>/: the one named after the folder first, then the others by
/// name.
std::vector<std::string> FolderSpecs(const std::string &folder) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("kernels/" + folder, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".toml")
      out.push_back(it->path().string());
  std::sort(out.begin(), out.end(), [&](const std::string &a, const std::string &b) {
    bool aFirst = std::filesystem::path(a).stem() == folder;
    bool bFirst = std::filesystem::path(b).stem() == folder;
    return aFirst != bFirst ? aFirst : a < b;
  });
  return out;
}

Zoo ReadZoo() {
  Zoo zoo;
  const References references = registry::All();
  // The cpu space and problems from the spec read for a cpu, the GPU ones from it read for
  // cuda (rocm's space is the GPU one less the cuda-only knobs: Kernel::For).
  const Target cpu;
  const Target cuda = *ParseTarget("cuda:sm_90a");
  for (const std::string &folder : registry::Folders()) {
    std::vector<std::string> specs = FolderSpecs(folder);
    if (specs.empty() && zoo.status.ok())
      zoo.status = absl::NotFoundError("no kernel spec in kernels/" + folder +
                                       " (run from the workspace or a tool's runfiles)");
    for (const std::string &path : specs) {
      absl::StatusOr<Kernel> k =
          spec::LoadSpec(path, cpu, KnobNames(TargetKind::Cpu), nullptr, "", &references);
      absl::StatusOr<Kernel> g =
          k.ok() ? spec::LoadSpec(path, cuda, KnobNames(TargetKind::Cuda), nullptr, "", &references)
                 : k;
      if (!g.ok()) {
        if (zoo.status.ok())
          zoo.status = g.status();
        continue;
      }
      k->gpu = g->gpu;
      k->inZoo = true;
      zoo.kernels.push_back(*std::move(k));
    }
  }
  return zoo;
}

const Zoo &TheZoo() {
  static const Zoo zoo = ReadZoo();
  return zoo;
}

} // namespace

const std::vector<Kernel> &Kernels() { return TheZoo().kernels; }

absl::Status ZooStatus() { return TheZoo().status; }

namespace {
/// Kernels read from specs: a deque, so pointers handed out stay valid as it grows.
struct SpecKernels {
  std::mutex mutex;
  std::deque<Kernel> kernels;
};
SpecKernels &specKernels() {
  static SpecKernels s;
  return s;
}
} // namespace

const Kernel *Find(const std::string &name) {
  for (const Kernel &k : Kernels())
    if (k.name == name)
      return &k;
  SpecKernels &s = specKernels();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const Kernel &k : s.kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

absl::Status AddSpecKernel(Kernel kernel) {
  if (const Kernel *k = Find(kernel.name))
    return absl::AlreadyExistsError(
        "kernel name '" + kernel.name + "' of " + kernel.specPath + " is taken by " +
        (k->specPath.empty() ? std::string("the zoo's kernel") : k->specPath) +
        " (set `name` in the spec)");
  SpecKernels &s = specKernels();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.kernels.push_back(std::move(kernel));
  return absl::OkStatus();
}

absl::StatusOr<Shape> ParseShape(const Kernel &kernel, const std::string &text) {
  Shape shape;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    size_t eq = item.find('=');
    char *end = nullptr;
    long long v = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &end, 10);
    // Zero is a value too: flag dimensions such as attention's CAUSAL.
    if (eq == std::string::npos || !end || *end || end == item.c_str() + eq + 1 || v < 0 ||
        v > (1LL << 30))
      return absl::InvalidArgumentError("bad shape item '" + item +
                                        "' (expected DIM=non-negative int)");
    if (!shape.emplace(item.substr(0, eq), v).second)
      return absl::InvalidArgumentError("shape '" + text + "' gives " + item.substr(0, eq) +
                                        " twice");
  }
  for (const std::string &d : kernel.dims)
    if (!shape.count(d))
      return absl::InvalidArgumentError("shape '" + text + "' lacks " + d + " for " + kernel.name);
  if (shape.size() != kernel.dims.size())
    return absl::InvalidArgumentError("shape '" + text + "' has dimensions " + kernel.name +
                                      " does not have");
  return shape;
}

TargetSpec Kernel::For(TargetKind kind) const {
  if (kind == TargetKind::Cpu)
    return cpu;
  TargetSpec spec = gpu;
  if (kind == TargetKind::Rocm)
    spec.space.params.erase(
        std::remove_if(spec.space.params.begin(), spec.space.params.end(),
                       [](const auto &param) {
                         return std::find(std::begin(kCudaOnlyKnobs), std::end(kCudaOnlyKnobs),
                                          param.first) != std::end(kCudaOnlyKnobs);
                       }),
        spec.space.params.end());
  return spec;
}

std::string RuntimeSignature(const std::string &tritonSignature) {
  std::string out;
  for (absl::string_view item : absl::StrSplit(tritonSignature, ',')) {
    std::string type(item.substr(0, item.find(':'))); // drop ":16" (divisibility)
    bool pointer = !type.empty() && type[0] == '*';
    if (pointer)
      type = type.substr(1);
    if (type.rfind("fp", 0) == 0)
      type = "f" + type.substr(2);
    out += (out.empty() ? "" : ",") + (pointer ? "ptr:" + type : type);
  }
  return out;
}

} // namespace tessel::zoo
