//===- GpuArtifact.cpp - the one file a GPU kernel ships as -*- C++ -*-===//

#include "runtime/target/GpuArtifact.h"
#include "runtime/target/JsonDepth.h"

#include "absl/strings/escaping.h"
#include "nlohmann/json.hpp"

#include <algorithm>

namespace tessel {

namespace {
constexpr const char *kFormat = "tessel-gpu-artifact";
constexpr int kVersion = 1;
} // namespace

namespace {
/// What tessel knows of each chip it builds for: the PTX ISA version it emits, and the most
/// shared memory a block may use (opt-in maximum, CUDA programming guide's compute capability
/// table).
struct Chip {
  const char *arch, *ptxVersion;
  int64_t maxSharedBytes;
};
constexpr Chip kChips[] = {{"sm_80", "7.0", 163 * 1024},
                           {"sm_86", "7.1", 99 * 1024},
                           {"sm_89", "7.8", 99 * 1024},
                           {"sm_90", "7.8", 227 * 1024},
                           {"sm_90a", "8.0", 227 * 1024}};

absl::StatusOr<const Chip *> findChip(const std::string &arch) {
  for (const Chip &chip : kChips)
    if (arch == chip.arch)
      return &chip;
  return absl::InvalidArgumentError("no PTX version for chip '" + arch +
                                    "' (tessel builds for sm_80, sm_86, sm_89, sm_90, sm_90a)");
}
} // namespace

namespace {
// VGPRs: 512 per lane on CDNA2/3 (256 architectural + 256 accumulation), 256 on RDNA3 wave32;
// SGPRs: 102 addressable plus VCC on GFX9, 106 on GFX10+.
constexpr RocmChip kRocmChips[] = {{"gfx90a", 64, 64 * 1024, true, false, 512, 104},
                                   {"gfx942", 64, 64 * 1024, true, false, 512, 104},
                                   {"gfx1100", 32, 64 * 1024, false, true, 256, 106}};
} // namespace

bool IsRocmArch(const std::string &arch) { return arch.rfind("gfx", 0) == 0; }

absl::StatusOr<RocmChip> RocmChipFor(const std::string &arch) {
  for (const RocmChip &chip : kRocmChips)
    if (arch == chip.arch)
      return chip;
  return absl::InvalidArgumentError("tessel does not build for AMD chip '" + arch +
                                    "' (it builds for gfx90a, gfx942, gfx1100)");
}

absl::StatusOr<std::string> PtxVersionFor(const std::string &arch) {
  absl::StatusOr<const Chip *> chip = findChip(arch);
  if (!chip.ok())
    return chip.status();
  return std::string((*chip)->ptxVersion);
}

absl::StatusOr<int64_t> MaxSharedBytesPerBlock(const std::string &arch) {
  absl::StatusOr<const Chip *> chip = findChip(arch);
  if (!chip.ok())
    return chip.status();
  return (*chip)->maxSharedBytes;
}

std::string SerializeGpuArtifact(const GpuArtifact &a) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const GpuKernelInfo &k : a.kernels) {
    kernels.push_back({{"name", k.name},
                       {"signature", k.signature},
                       {"block", {k.block[0], k.block[1], k.block[2]}},
                       {"shared_bytes", k.sharedBytes}});
    if (k.ldsBytes > 0)
      kernels.back()["lds_bytes"] = k.ldsBytes;
    if (k.persistent > 0)
      kernels.back()["persistent"] = k.persistent;
    if (!k.divisibility.empty())
      kernels.back()["divisibility"] = k.divisibility;
  }
  bool rocm = IsRocmArch(a.arch);
  nlohmann::json j = {{"format", kFormat},
                      {"version", kVersion},
                      {"target", (rocm ? "rocm:" : "cuda:") + a.arch},
                      {"arch", a.arch},
                      {"kernels", kernels}};
  if (!rocm) {
    j["ptx_version"] = a.ptxVersion;
    j["ptx"] = a.ptx;
  }
  if (!a.cubin.empty())
    j["cubin"] = absl::Base64Escape(a.cubin);
  if (!a.hsaco.empty())
    j["hsaco"] = absl::Base64Escape(a.hsaco);
  if (!a.buildInfo.empty())
    j["build_info"] = a.buildInfo;
  return j.dump(1) + "\n";
}

absl::StatusOr<GpuArtifact> ParseGpuArtifact(const std::string &text) {
  if (std::string why = JsonNestingProblem(text); !why.empty())
    return absl::InvalidArgumentError("not a GPU artifact: " + why);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [](const std::string &what) {
    return absl::InvalidArgumentError("not a tessel GPU artifact: " + what);
  };
  if (j.is_discarded() || !j.is_object())
    return bad("not a JSON object");
  if (!j.contains("format") || !j["format"].is_string() || j["format"] != kFormat)
    return bad("\"format\" is not \"" + std::string(kFormat) + "\"");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != kVersion)
    return bad("version is not " + std::to_string(kVersion));
  GpuArtifact a;
  if (!j.contains("arch") || !j["arch"].is_string())
    return bad("\"arch\" is missing or not a string");
  a.arch = j["arch"].get<std::string>();
  bool rocm = IsRocmArch(a.arch);
  if (rocm) {
    if (!RocmChipFor(a.arch).ok())
      return bad("unknown chip '" + a.arch + "'");
    if (!j.contains("hsaco") || !j["hsaco"].is_string() ||
        !absl::Base64Unescape(j["hsaco"].get<std::string>(), &a.hsaco) || a.hsaco.empty())
      return bad("\"hsaco\" is missing or not base64");
  } else {
    for (auto [key, field] : {std::pair<const char *, std::string *>{"ptx_version", &a.ptxVersion},
                              {"ptx", &a.ptx}}) {
      if (!j.contains(key) || !j[key].is_string())
        return bad(std::string("\"") + key + "\" is missing or not a string");
      *field = j[key].get<std::string>();
    }
    if (j.contains("cubin")) {
      if (!j["cubin"].is_string() ||
          !absl::Base64Unescape(j["cubin"].get<std::string>(), &a.cubin))
        return bad("\"cubin\" is not base64");
    }
  }
  if (j.contains("build_info")) {
    if (!j["build_info"].is_string())
      return bad("\"build_info\" is not a string");
    a.buildInfo = j["build_info"].get<std::string>();
  }
  if (!j.contains("kernels") || !j["kernels"].is_array() || j["kernels"].empty())
    return bad("\"kernels\" is missing or empty");
  for (const nlohmann::json &k : j["kernels"]) {
    GpuKernelInfo info;
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string() ||
        !k.contains("signature") || !k["signature"].is_string() || !k.contains("block") ||
        !k["block"].is_array() || k["block"].size() != 3)
      return bad("a kernel lacks its name, signature or block");
    info.name = k["name"].get<std::string>();
    info.signature = k["signature"].get<std::string>();
    for (int d = 0; d < 3; ++d) {
      if (!k["block"][d].is_number_integer() || k["block"][d].get<int64_t>() < 1 ||
          k["block"][d].get<int64_t>() > 1024)
        return bad("kernel " + info.name + ": block sizes are 1..1024");
      info.block[d] = k["block"][d].get<int32_t>();
    }
    if (k.contains("shared_bytes")) {
      if (!k["shared_bytes"].is_number_integer() || k["shared_bytes"].get<int64_t>() < 0)
        return bad("kernel " + info.name + ": shared_bytes is not a size");
      info.sharedBytes = k["shared_bytes"].get<int64_t>();
    }
    if (k.contains("persistent")) {
      if (!k["persistent"].is_number_integer() || k["persistent"].get<int64_t>() < 0 ||
          k["persistent"].get<int64_t>() > 32)
        return bad("kernel " + info.name + ": persistent is not 0..32 blocks an SM");
      info.persistent = k["persistent"].get<int64_t>();
    }
    if (k.contains("lds_bytes")) {
      if (!k["lds_bytes"].is_number_integer() || k["lds_bytes"].get<int64_t>() < 0)
        return bad("kernel " + info.name + ": lds_bytes is not a size");
      info.ldsBytes = k["lds_bytes"].get<int64_t>();
    }
    if (k.contains("divisibility")) {
      const nlohmann::json &d = k["divisibility"];
      const std::string &sig = info.signature;
      size_t arguments = sig.empty() ? 0 : size_t(std::count(sig.begin(), sig.end(), ',')) + 1;
      if (!d.is_array() || d.size() != arguments)
        return bad("kernel " + info.name + ": divisibility is not one number per argument");
      for (const nlohmann::json &v : d) {
        if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > (1 << 30) ||
            (v.get<int64_t>() & (v.get<int64_t>() - 1)) != 0)
          return bad("kernel " + info.name + ": divisibility " + v.dump() +
                     " is not a power of two");
        info.divisibility.push_back(v.get<int64_t>());
      }
    }
    a.kernels.push_back(info);
  }
  if (!rocm && !PtxVersionFor(a.arch).ok())
    return bad("unknown chip '" + a.arch + "'");
  return a;
}

} // namespace tessel
