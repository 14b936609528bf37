//===- GpuArtifact.cpp - the one file a GPU kernel ships as -*- C++ -*-===//

#include "runtime/target/GpuArtifact.h"
#include "runtime/target/JsonDepth.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
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
    for (const GpuTensorMap &m : k.tensorMaps) {
      nlohmann::json map = {{"pointer", m.pointer},
                            {"element_bytes", m.elementBytes},
                            {"box", {m.box[0], m.box[1]}},
                            {"swizzle", m.swizzle}};
      if (m.pitchArgument >= 0)
        map["pitch_argument"] = m.pitchArgument;
      else
        map["pitch"] = m.pitch;
      kernels.back()["tensor_maps"].push_back(map);
    }
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

namespace {

/// The kernel's tensor maps from `maps`, each checked against its signature.
absl::Status parseTensorMaps(const nlohmann::json &maps, GpuKernelInfo &info) {
  std::vector<std::string> args;
  if (!info.signature.empty())
    args = absl::StrSplit(info.signature, ',');
  auto bad = [](const std::string &what) { return absl::InvalidArgumentError(what); };
  constexpr size_t kMost = 8;
  if (!maps.is_array() || maps.size() > kMost)
    return bad("tensor_maps is not a list of at most " + std::to_string(kMost));
  auto integer = [](const nlohmann::json &m, const char *key, int64_t lo, int64_t hi,
                    int64_t &out) {
    if (!m.contains(key) || !m[key].is_number_integer() || m[key].get<int64_t>() < lo ||
        m[key].get<int64_t>() > hi)
      return false;
    out = m[key].get<int64_t>();
    return true;
  };
  for (const nlohmann::json &m : maps) {
    GpuTensorMap map;
    int64_t pointer = 0, bytes = 0, swizzle = 0, rows = 0, columns = 0;
    if (!m.is_object() || !integer(m, "pointer", 0, int64_t(args.size()) - 1, pointer) ||
        args[pointer].rfind("ptr:", 0) != 0)
      return bad("a tensor map's \"pointer\" is not a pointer argument");
    map.pointer = int32_t(pointer);
    if (m.contains("pitch_argument")) {
      int64_t pitchArgument = 0;
      if (!integer(m, "pitch_argument", 0, int64_t(args.size()) - 1, pitchArgument) ||
          (args[pitchArgument] != "i32" && args[pitchArgument] != "i64"))
        return bad("a tensor map's \"pitch_argument\" is not an integer argument");
      map.pitchArgument = int32_t(pitchArgument);
    } else if (!integer(m, "pitch", 1, int64_t(1) << 40, map.pitch)) {
      return bad("a tensor map has neither a \"pitch_argument\" nor a positive \"pitch\"");
    }
    if (!integer(m, "element_bytes", 1, 8, bytes) || (bytes & (bytes - 1)) != 0)
      return bad("a tensor map's \"element_bytes\" is not 1, 2, 4 or 8");
    map.elementBytes = int32_t(bytes);
    if (!integer(m, "swizzle", 0, 128, swizzle) ||
        (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128))
      return bad("a tensor map's \"swizzle\" is not 0, 32, 64 or 128 bytes");
    map.swizzle = int32_t(swizzle);
    auto side = [&](int d, int64_t &out) {
      const nlohmann::json &v = m["box"][d];
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 256)
        return false;
      out = v.get<int64_t>();
      return true;
    };
    if (!m.contains("box") || !m["box"].is_array() || m["box"].size() != 2 || !side(0, rows) ||
        !side(1, columns))
      return bad("a tensor map's \"box\" is not [rows, columns] of 1..256");
    map.box = {int32_t(rows), int32_t(columns)};
    if ((columns * bytes) % 16 != 0 || (swizzle != 0 && columns * bytes > swizzle))
      return bad("a tensor map's box rows are not whole 16-byte chunks within its swizzle");
    info.tensorMaps.push_back(map);
  }
  return absl::OkStatus();
}

} // namespace

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
    if (k.contains("tensor_maps")) {
      if (absl::Status s = parseTensorMaps(k["tensor_maps"], info); !s.ok())
        return bad("kernel " + info.name + ": " + std::string(s.message()));
    }
    a.kernels.push_back(info);
  }
  if (!rocm && !PtxVersionFor(a.arch).ok())
    return bad("unknown chip '" + a.arch + "'");
  return a;
}

} // namespace tessel
