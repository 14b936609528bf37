//===- BundleWriter.cpp - write a tuned kernel bundle atomically -*- C++ -*-===//

#include "autotune/BundleWriter.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "nlohmann/json.hpp"

#include <fcntl.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace tessel::autotune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  return bool(out);
}

std::string randomSuffix() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

} // namespace

absl::Status WriteBundle(const std::string &dir, const Target &target,
                         const std::string &compilerVersion,
                         const std::vector<TunedEntry> &entries) {
  std::error_code ec;
  fs::path final = fs::absolute(dir, ec);
  if (ec)
    return absl::InvalidArgumentError("bad bundle path " + dir + ": " + ec.message());
  fs::path tmp = final;
  tmp += ".tmp-" + randomSuffix();
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ignored;
      if (!path.empty())
        fs::remove_all(path, ignored);
    }
  } cleanup{tmp};
  fs::create_directories(tmp / "artifacts", ec);
  if (ec)
    return absl::InternalError("cannot create " + tmp.string() + ": " + ec.message());

  json manifest;
  manifest["schema_version"] = runtime::kBundleSchemaVersion;
  manifest["compiler_version"] = compilerVersion;
  manifest["target"] = target;
  json kernels = json::array();
  std::map<std::string, size_t> kernelIndex;
  for (const TunedEntry &e : entries) {
    std::string bytes;
    if (!runtime::ReadWholeFile(e.artifact, bytes))
      return absl::NotFoundError("cannot read the artifact " + e.artifact + " of '" +
                                 e.kernel + "'");
    std::string sha = runtime::Sha256Hex(bytes);
    // Artifacts are named by content: identical objects are stored once.
    std::string name = "artifacts/" + e.kernel + "-" + sha.substr(0, 16) + ".so";
    if (!fs::exists(tmp / name) && !writeFile((tmp / name).string(), bytes))
      return absl::InternalError("cannot write " + (tmp / name).string());
    json entry = {{"shape", e.shape},  {"dtype", e.dtype},   {"entry", e.entry},
                  {"artifact", name},  {"sha256", sha},   {"signature", e.signature}};
    json config = json::parse(e.configJson, nullptr, /*allow_exceptions=*/false);
    json metrics = json::parse(e.metricsJson, nullptr, /*allow_exceptions=*/false);
    if (config.is_discarded() || metrics.is_discarded())
      return absl::InvalidArgumentError("the config or metrics of '" + e.kernel +
                                        "' is not valid JSON");
    entry["config"] = config;
    entry["metrics"] = metrics;
    if (e.ties.size() > 1) {
      json ties = json::array();
      for (const std::string &t : e.ties) {
        json c = json::parse(t, nullptr, /*allow_exceptions=*/false);
        if (c.is_discarded())
          return absl::InvalidArgumentError("a tied configuration of '" + e.kernel +
                                            "' is not valid JSON");
        ties.push_back(c);
      }
      entry["ties"] = ties;
    }
    if (!e.serves.empty()) {
      json serves = json::object();
      for (const auto &[dim, range] : e.serves)
        serves[dim] = {range.first, range.second};
      entry["serves"] = serves;
    }
    auto [it, fresh] = kernelIndex.emplace(e.kernel, kernels.size());
    // The kernel's signature is its first entry's; entries of other dtypes carry their own.
    if (fresh)
      kernels.push_back({{"name", e.kernel}, {"signature", e.signature}, {"entries", json::array()}});
    kernels[it->second]["entries"].push_back(entry);
    if (!e.launchJson.empty() && !kernels[it->second].contains("launch")) {
      json launch = json::parse(e.launchJson, nullptr, /*allow_exceptions=*/false);
      if (launch.is_discarded())
        return absl::InvalidArgumentError("the launch contract of '" + e.kernel +
                                          "' is not valid JSON");
      kernels[it->second]["launch"] = launch;
    }
  }
  manifest["kernels"] = kernels;
  if (!writeFile((tmp / "manifest.json").string(), manifest.dump(2) + "\n"))
    return absl::InternalError("cannot write " + (tmp / "manifest.json").string());

  // Swap in atomically: exchange with an existing bundle, or a plain rename.
  if (fs::exists(final)) {
    if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, final.c_str(), RENAME_EXCHANGE) != 0)
      return absl::InternalError("cannot replace " + final.string() + ": " +
                                 std::string(strerror(errno)));
    // `tmp` now holds the old bundle; the cleanup removes it.
  } else {
    fs::rename(tmp, final, ec);
    if (ec)
      return absl::InternalError("cannot move the bundle to " + final.string() + ": " +
                                 ec.message());
    cleanup.path.clear();
  }
  return absl::OkStatus();
}

} // namespace tessel::autotune
