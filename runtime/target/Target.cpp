//===- Target.cpp - where code runs: kind, architecture, features -*- C++ -*-===//

#include "runtime/target/Target.h"

#include "absl/strings/str_join.h"

#include <sys/utsname.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace tessel {

const char *TargetKindName(TargetKind kind) {
  switch (kind) {
  case TargetKind::Cpu:
    return "cpu";
  case TargetKind::Cuda:
    return "cuda";
  case TargetKind::Rocm:
    return "rocm";
  }
  return "cpu";
}

absl::StatusOr<TargetKind> ParseTargetKind(const std::string &name) {
  if (name == "cpu")
    return TargetKind::Cpu;
  if (name == "cuda")
    return TargetKind::Cuda;
  if (name == "rocm" || name == "hip")
    return TargetKind::Rocm;
  return absl::InvalidArgumentError("unknown target kind '" + name +
                                    "' (expected cpu, cuda or rocm)");
}

const std::vector<std::string> &CudaArchs() {
  static const std::vector<std::string> archs = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
  return archs;
}

const std::vector<std::string> &RocmArchs() {
  static const std::vector<std::string> archs = {"gfx90a", "gfx942", "gfx1100"};
  return archs;
}

Target Target::Host() {
  // Read once: this machine does not change, and compile cache keys and bundle checks ask
  // for it per candidate.
  static const Target host = [] {
    Target t;
    struct utsname u;
    if (uname(&u) == 0)
      t.arch = u.machine;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.rfind("flags", 0) != 0)
        continue;
      std::stringstream s(line.substr(line.find(':') + 1));
      std::string flag;
      while (s >> flag)
        t.features.push_back(flag);
      break;
    }
    return t;
  }();
  return host;
}

std::string Target::str() const {
  std::string text = TargetKindName(kind);
  if (kind == TargetKind::Cpu)
    return cpu.empty() ? text : text + ":" + cpu;
  return arch.empty() ? text : text + ":" + arch;
}

std::string Target::deviceKind() const {
  switch (kind) {
  case TargetKind::Cpu:
    return "cpu";
  case TargetKind::Cuda:
    return "cuda";
  case TargetKind::Rocm:
    return "hip";
  }
  return "cpu";
}

std::string CompileCacheTargetKey(const Target &target) {
  Target t = target;
  if (t.kind == TargetKind::Cpu && t.cpu.empty()) {
    Target host = Target::Host();
    t.arch = host.arch;
    t.features.insert(t.features.end(), host.features.begin(), host.features.end());
  }
  return t.str() + ";" + t.arch + ";" + absl::StrJoin(t.features, ",");
}

absl::StatusOr<Target> ParseTarget(const std::string &text) {
  size_t colon = text.find(':');
  std::string kindName = text.substr(0, colon);
  bool hasArch = colon != std::string::npos;
  std::string arch = hasArch ? text.substr(colon + 1) : "";
  const std::string expected =
      "expected cpu, cpu:<llvm-cpu>, cuda, cuda:{" + absl::StrJoin(CudaArchs(), ",") +
      "} or rocm:{" + absl::StrJoin(RocmArchs(), ",") + "}";
  absl::StatusOr<TargetKind> kind = ParseTargetKind(kindName);
  if (!kind.ok() || kindName == "hip")
    return absl::InvalidArgumentError("unknown target '" + text + "' (" + expected + ")");
  if (hasArch && arch.empty())
    return absl::InvalidArgumentError("target '" + text + "' names no chip after ':' (" +
                                      expected + ")");
  Target t;
  t.kind = *kind;
  switch (t.kind) {
  case TargetKind::Cpu:
    // LLVM's CPU names are letters, digits, '-', '_' and '.'; the CPU backend checks that LLVM
    // knows it.
    for (char c : arch)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        return absl::InvalidArgumentError("target '" + text + "': '" + arch +
                                          "' is not a CPU name (" + expected + ")");
    t.cpu = arch;
    return t;
  case TargetKind::Cuda:
    t.arch = hasArch ? arch : "sm_90";
    if (std::find(CudaArchs().begin(), CudaArchs().end(), t.arch) == CudaArchs().end())
      return absl::InvalidArgumentError("unknown CUDA chip '" + t.arch + "' in target '" +
                                        text + "' (" + expected + ")");
    return t;
  case TargetKind::Rocm:
    if (!hasArch)
      return absl::InvalidArgumentError("target 'rocm' needs a chip (" + expected + ")");
    t.arch = arch;
    if (std::find(RocmArchs().begin(), RocmArchs().end(), t.arch) == RocmArchs().end())
      return absl::InvalidArgumentError("unknown ROCm chip '" + t.arch + "' in target '" +
                                        text + "' (" + expected + ")");
    return t;
  }
  return t;
}

} // namespace tessel
