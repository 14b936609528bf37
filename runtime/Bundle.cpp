//===- Bundle.cpp - tuned kernel bundles: open, verify, look up, load -*- C++ -*-===//

#include "runtime/Bundle.h"
#include "runtime/expr/Syntax.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"
#include "runtime/target/GpuArtifact.h"
#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace tessel::runtime {
namespace {

using nlohmann::json;

/// Errors while reading the manifest name the JSON path of the bad value.
class Reader {
public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  absl::Status error(const std::string &where, const std::string &what) const {
    return absl::InvalidArgumentError(file_ + ": " + where + ": " + what);
  }
  absl::StatusOr<const json *> member(const json &obj, const std::string &where,
                                      const std::string &key) const {
    if (!obj.is_object())
      return error(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end())
      return error(where, "missing \"" + key + "\"");
    return &*it;
  }
  absl::StatusOr<std::string> string(const json &obj, const std::string &where,
                                     const std::string &key) const {
    auto v = member(obj, where, key);
    if (!v.ok())
      return v.status();
    if (!(*v)->is_string())
      return error(where + "." + key, "expected a string");
    std::string text = (*v)->get<std::string>();
    // C calls would cut the text there (an artifact path would name another file).
    if (size_t nul = text.find('\0'); nul != std::string::npos)
      return error(where + "." + key, "expected a string without NUL characters, found one at "
                                      "character " + std::to_string(nul));
    return text;
  }

private:
  std::string file_;
};

/// A Python name (dims and parameters).
bool IsName(const std::string &s) {
  if (s.empty() || s.size() > 200 || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

/// A kernel's "launch" object: every field checked, every expression parsed.
absl::StatusOr<LaunchContract> ParseLaunch(const json &j, const Reader &r,
                                           const std::string &where) {
  LaunchContract c;
  if (!j.is_object())
    return r.error(where, "expected an object");
  auto names = [&](const char *key, std::vector<std::string> &out) -> absl::Status {
    auto v = r.member(j, where, key);
    if (!v.ok())
      return v.status();
    if (!(*v)->is_array())
      return r.error(where + "." + key, "expected an array of names");
    for (const json &n : **v) {
      if (!n.is_string() || !IsName(n.get<std::string>()))
        return r.error(where + "." + key, "expected an array of names, found " +
                                              n.dump().substr(0, 100));
      out.push_back(n.get<std::string>());
    }
    return absl::OkStatus();
  };
  if (absl::Status s = names("dims", c.dims); !s.ok())
    return s;
  if (absl::Status s = names("dispatch", c.dispatch); !s.ok())
    return s;
  for (const std::string &d : c.dispatch)
    if (std::find(c.dims.begin(), c.dims.end(), d) == c.dims.end())
      return r.error(where + ".dispatch", "'" + d + "' is not one of the dims");
  auto expression = [&](const std::string &at, const std::string &text) -> absl::Status {
    absl::StatusOr<expr::NodePtr> e = expr::ParseExpression(text, at);
    if (!e.ok())
      return r.error(at, std::string(e.status().message()));
    return absl::OkStatus();
  };
  auto grid = r.string(j, where, "grid");
  if (!grid.ok())
    return grid.status();
  c.grid = *grid;
  if (absl::Status s = expression(where + ".grid", c.grid); !s.ok())
    return s;
  auto args = r.member(j, where, "args");
  if (!args.ok())
    return args.status();
  if (!(*args)->is_array())
    return r.error(where + ".args", "expected an array");
  static const std::set<std::string> kKinds = {"tensor", "scalar", "constexpr", "meta"};
  static const std::set<std::string> kRoles = {"in", "out", "inout"};
  static const std::set<std::string> kTypes = {"i32", "i64", "fp32", "fp64"};
  static const std::set<std::string> kDtypes = {"{dtype}", "f32", "f16", "bf16", "f64",
                                                "i8",      "i16", "i32", "i64",  "u8"};
  for (size_t i = 0; i < (*args)->size(); ++i) {
    const json &a = (**args)[i];
    std::string at = where + ".args[" + std::to_string(i) + "]";
    LaunchArg arg;
    auto name = r.string(a, at, "name");
    auto kind = r.string(a, at, "kind");
    if (!name.ok())
      return name.status();
    if (!kind.ok())
      return kind.status();
    if (!IsName(*name))
      return r.error(at + ".name", "expected a Python name");
    if (!kKinds.count(*kind))
      return r.error(at + ".kind", "expected tensor, scalar, constexpr or meta, found '" + *kind +
                                       "'");
    arg.name = *name;
    arg.kind = *kind;
    if (arg.kind == "tensor") {
      auto dtype = r.string(a, at, "dtype");
      auto role = r.string(a, at, "role");
      auto shape = r.member(a, at, "shape");
      if (!dtype.ok())
        return dtype.status();
      if (!role.ok())
        return role.status();
      if (!shape.ok())
        return shape.status();
      if (!kDtypes.count(*dtype))
        return r.error(at + ".dtype", "unknown dtype '" + *dtype + "'");
      if (!kRoles.count(*role))
        return r.error(at + ".role", "expected in, out or inout, found '" + *role + "'");
      if (!(*shape)->is_array() || (*shape)->empty() || (*shape)->size() > 4)
        return r.error(at + ".shape", "expected one to four expressions");
      for (const json &d : **shape) {
        if (!d.is_string())
          return r.error(at + ".shape", "expected one to four expressions");
        if (absl::Status s = expression(at + ".shape", d.get<std::string>()); !s.ok())
          return s;
        arg.shape.push_back(d.get<std::string>());
      }
      arg.dtype = *dtype;
      arg.role = *role;
    } else if (arg.kind == "scalar" || arg.kind == "constexpr") {
      auto value = r.string(a, at, "value");
      if (!value.ok())
        return value.status();
      if (absl::Status s = expression(at + ".value", *value); !s.ok())
        return s;
      arg.value = *value;
      if (arg.kind == "scalar") {
        auto type = r.string(a, at, "type");
        if (!type.ok())
          return type.status();
        if (!kTypes.count(*type))
          return r.error(at + ".type", "expected i32, i64, fp32 or fp64, found '" + *type + "'");
        arg.type = *type;
        if (a.contains("divisible")) {
          if (!a["divisible"].is_number_integer() || a["divisible"].get<int64_t>() != 16)
            return r.error(at + ".divisible", "expected 16");
          arg.divisible = 16;
        }
      }
    }
    c.args.push_back(std::move(arg));
  }
  return c;
}

/// An artifact path must stay inside the bundle: relative, no "..".
bool insideBundle(const std::string &path) {
  if (path.empty() || path[0] == '/')
    return false;
  std::stringstream s(path);
  std::string part;
  while (std::getline(s, part, '/'))
    if (part == "..")
      return false;
  return true;
}

/// The number of parameters of a signature ("ptr:f32,i32": 2).
size_t parameterCount(const std::string &signature) {
  return signature.empty() ? 0 : size_t(std::count(signature.begin(), signature.end(), ',')) + 1;
}

/// A signature and its parameter count, for messages.
std::string signatureText(const std::string &signature) {
  return signature + " (" + std::to_string(parameterCount(signature)) + " parameters)";
}

/// What the artifact `bytes` of a bundle for `kind` says about its kernel `entry`, read
/// without loading it.
absl::StatusOr<ArtifactKernelInfo> artifactKernelInfo(TargetKind kind, const std::string &bytes,
                                                      const std::string &entry,
                                                      const std::string &name) {
  if (kind == TargetKind::Cpu)
    return ReadSharedObjectKernelInfo(bytes, entry, name);
  absl::StatusOr<GpuArtifact> gpu = ParseGpuArtifact(bytes);
  if (!gpu.ok())
    return absl::Status(gpu.status().code(), name + ": " + std::string(gpu.status().message()));
  for (const GpuKernelInfo &k : gpu->kernels)
    if (k.name == entry)
      return ArtifactKernelInfo{k.signature, gpu->buildInfo};
  return absl::NotFoundError("no kernel '" + entry + "' in " + name);
}

/// A constexpr's or configuration value as the compiler records constexprs ("128", "True").
std::string constexprText(const json &value) {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_boolean())
    return value.get<bool>() ? "True" : "False";
  return value.dump();
}

/// Why an entry's configuration is not what its artifact was built with ("" when it is, or
/// when the artifact records no build): each block size or other constexpr the build recorded
/// and each knob must have the configuration's value.
std::string buildMismatch(const json &config, const std::string &buildInfo) {
  if (buildInfo.empty() || config.is_null())
    return "";
  json info = JsonNestingProblem(buildInfo).empty()
                  ? json::parse(buildInfo, nullptr, /*allow_exceptions=*/false)
                  : json(json::value_t::discarded);
  if (info.is_discarded() || !info.is_object() || !info.contains("constexprs") ||
      !info["constexprs"].is_object() || !info.contains("knobs") || !info["knobs"].is_object())
    return "records a malformed build info";
  const json &constexprs = info["constexprs"], &knobs = info["knobs"];
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string &name = it.key();
    if (name.rfind("knob.", 0) == 0) {
      std::string knob = name.substr(5);
      if (!knobs.contains(knob) || knobs[knob] != it.value())
        return "was built with knob " + knob + " = " +
               (knobs.contains(knob) ? knobs[knob].dump() : std::string("(its default)")) +
               ", the config says " + it.value().dump();
    } else if (constexprs.contains(name) &&
               constexprText(constexprs[name]) != constexprText(it.value())) {
      return "was built with " + name + " = " + constexprText(constexprs[name]) +
             ", the config says " + name + " = " + constexprText(it.value());
    }
  }
  return "";
}

/// Whether `version` reads as a compiler version: printable ASCII, 1 to 200 characters.
bool isVersionText(const std::string &version) {
  return !version.empty() && version.size() <= 200 &&
         std::all_of(version.begin(), version.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

} // namespace

std::string ShapeText(const std::map<std::string, int64_t> &shape) {
  std::string out;
  for (const auto &[k, v] : shape)
    out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return out;
}

absl::StatusOr<std::unique_ptr<Bundle>> Bundle::Open(const std::string &dir,
                                                     const Target &host) {
  return Open(dir, BundleOpenOptions(), host);
}

absl::StatusOr<std::unique_ptr<Bundle>> Bundle::Open(const std::string &dir,
                                                     const BundleOpenOptions &options,
                                                     const Target &host) {
  absl::StatusOr<BundleTrust> trust =
      options.useEnvironment ? TrustFromEnvironment(options.trust) : options.trust;
  if (!trust.ok())
    return trust.status();
  // Read as the artifacts are: a regular file inside the bundle (no link, nothing that
  // blocks), of a bounded size.
  std::string manifestPath = dir + "/manifest.json";
  absl::StatusOr<std::string> read = ReadRegularFileBeneath(dir, "manifest.json", kMaxManifestBytes);
  if (absl::IsNotFound(read.status()))
    return absl::NotFoundError("cannot read " + manifestPath + ": " +
                               std::string(read.status().message()) + " (is " + dir +
                               " a bundle?)");
  if (!read.ok())
    return read.status();
  const std::string &text = *read;
  // The very bytes parsed below are the ones the signature covers.
  if (absl::Status s = VerifyBundleSignature(dir, text, *trust); !s.ok())
    return s;
  if (std::string why = JsonNestingProblem(text); !why.empty())
    return absl::InvalidArgumentError(manifestPath + ": " + why);
  json m;
  try {
    m = json::parse(text);
  } catch (const json::exception &e) {
    return absl::InvalidArgumentError(manifestPath + ": not valid JSON: " + e.what());
  }
  Reader r(manifestPath);
  auto bundle = std::make_unique<Bundle>();

  auto version = r.member(m, "manifest", "schema_version");
  if (!version.ok())
    return version.status();
  if (!(*version)->is_number_integer())
    return r.error("schema_version", "expected an integer");
  if ((*version)->get<int64_t>() < kOldestBundleSchemaVersion ||
      (*version)->get<int64_t>() > kBundleSchemaVersion)
    return absl::FailedPreconditionError(
        manifestPath + ": schema version " + std::to_string((*version)->get<int64_t>()) +
        " is not one this runtime reads (" + std::to_string(kOldestBundleSchemaVersion) + " to " +
        std::to_string(kBundleSchemaVersion) + "); rebuild the bundle with a matching tessel");
  auto compiler = r.string(m, "manifest", "compiler_version");
  if (!compiler.ok())
    return compiler.status();
  if (!isVersionText(*compiler))
    return r.error("compiler_version", "expected printable text of 1 to 200 characters, found " +
                                           std::to_string(compiler->size()) +
                                           " characters that are not");
  bundle->compilerVersion_ = *compiler;

  // The target: kind, architecture, CPU features.
  auto target = r.member(m, "manifest", "target");
  if (!target.ok())
    return target.status();
  auto kind = r.string(**target, "target", "kind");
  auto arch = r.string(**target, "target", "arch");
  if (!kind.ok())
    return kind.status();
  if (!arch.ok())
    return arch.status();
  absl::StatusOr<TargetKind> targetKind = ParseTargetKind(*kind);
  if (!targetKind.ok())
    return r.error("target.kind", std::string(targetKind.status().message()));
  bundle->target_.kind = *targetKind;
  bundle->target_.arch = *arch;
  if ((*target)->contains("cpu")) {
    auto cpu = r.string(**target, "target", "cpu");
    if (!cpu.ok())
      return cpu.status();
    bundle->target_.cpu = *cpu;
  }
  auto features = r.member(**target, "target", "features");
  if (!features.ok())
    return features.status();
  if (!(*features)->is_array())
    return r.error("target.features", "expected an array of strings");
  for (const json &f : **features) {
    if (!f.is_string())
      return r.error("target.features", "expected an array of strings");
    bundle->target_.features.push_back(f.get<std::string>());
  }
  // A GPU bundle opened on the CPU host: its chip is checked against the GPU when an artifact
  // is loaded (the device refuses code for another chip), since the host cannot know it.
  bool gpuBundle = host.kind == TargetKind::Cpu && *targetKind != TargetKind::Cpu;
  if (gpuBundle && *targetKind == TargetKind::Cuda && !PtxVersionFor(*arch).ok())
    return r.error("target.arch", "'" + *arch + "' is not a CUDA chip tessel builds for");
  if (!gpuBundle && (*targetKind != host.kind || *arch != host.arch))
    return absl::FailedPreconditionError(manifestPath + ": the bundle is for " +
                                         TargetKindName(*targetKind) + " " + *arch +
                                         ", this machine is " + TargetKindName(host.kind) + " " +
                                         host.arch + "; its artifacts cannot run here");
  std::set<std::string> have(host.features.begin(), host.features.end());
  std::string missing;
  for (const std::string &f : bundle->target_.features)
    if (!gpuBundle && !have.count(f))
      missing += (missing.empty() ? "" : ", ") + f;
  if (!missing.empty())
    return absl::FailedPreconditionError(manifestPath +
                                         ": the bundle was built for CPU features this machine "
                                         "lacks (" + missing + "); its artifacts cannot run here");

  // Kernels and their tuned entries; every artifact checked against its checksum.
  auto kernels = r.member(m, "manifest", "kernels");
  if (!kernels.ok())
    return kernels.status();
  if (!(*kernels)->is_array())
    return r.error("kernels", "expected an array");
  // Each artifact file is read and hashed once, however many entries share it.
  std::map<std::string, std::string> hashed, bytesOf;
  for (size_t k = 0; k < (*kernels)->size(); ++k) {
    const json &kernel = (**kernels)[k];
    std::string where = "kernels[" + std::to_string(k) + "]";
    auto name = r.string(kernel, where, "name");
    auto signature = r.string(kernel, where, "signature");
    auto entries = r.member(kernel, where, "entries");
    if (!name.ok())
      return name.status();
    if (!signature.ok())
      return signature.status();
    if (!entries.ok())
      return entries.status();
    if (!(*entries)->is_array())
      return r.error(where + ".entries", "expected an array");
    std::shared_ptr<const LaunchContract> launch;
    if (kernel.contains("launch")) {
      absl::StatusOr<LaunchContract> c = ParseLaunch(kernel["launch"], r, where + ".launch");
      if (!c.ok())
        return c.status();
      launch = std::make_shared<const LaunchContract>(*std::move(c));
    }
    for (size_t e = 0; e < (*entries)->size(); ++e) {
      const json &entry = (**entries)[e];
      std::string at = where + ".entries[" + std::to_string(e) + "]";
      BundleEntry b;
      b.kernel = *name;
      b.signature = *signature;
      b.launch = launch;
      auto shape = r.member(entry, at, "shape");
      if (!shape.ok())
        return shape.status();
      if (!(*shape)->is_object() || (*shape)->empty())
        return r.error(at + ".shape", "expected an object of integer dimensions");
      for (auto it = (*shape)->begin(); it != (*shape)->end(); ++it) {
        if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0)
          return r.error(at + ".shape." + it.key(), "expected a non-negative integer");
        b.shape[it.key()] = it.value().get<int64_t>();
      }
      for (auto [field, out] : {std::pair<const char *, std::string *>{"dtype", &b.dtype},
                                {"entry", &b.entry},
                                {"artifact", &b.artifact},
                                {"sha256", &b.sha256}}) {
        auto v = r.string(entry, at, field);
        if (!v.ok())
          return v.status();
        *out = *v;
      }
      if (entry.is_object() && entry.contains("signature")) { // per entry (dtype), optional
        auto sig = r.string(entry, at, "signature");
        if (!sig.ok())
          return sig.status();
        b.signature = *sig;
        // Another dtype of the same kernel: the same parameters.
        if (parameterCount(b.signature) != parameterCount(*signature))
          return r.error(at + ".signature", signatureText(b.signature) + " beside the kernel's " +
                                                signatureText(*signature));
      }
      json config;
      if (entry.contains("config")) {
        config = entry["config"];
        if (!config.is_object() ||
            !std::all_of(config.begin(), config.end(), [](const json &v) {
              return v.is_number() || v.is_boolean() || v.is_string();
            }))
          return r.error(at + ".config", "expected an object of numbers, booleans or strings, "
                                         "found " + config.dump().substr(0, 200));
        b.configJson = config.dump();
      }
      if (entry.contains("metrics")) {
        const json &metrics = entry["metrics"];
        if (!metrics.is_object() ||
            !std::all_of(metrics.begin(), metrics.end(), [](const json &v) { return v.is_number(); }))
          return r.error(at + ".metrics", "expected an object of numbers, found " +
                                              metrics.dump().substr(0, 200));
        b.metricsJson = metrics.dump();
      }
      if (entry.contains("serves")) {
        const json &serves = entry["serves"];
        if (!serves.is_object())
          return r.error(at + ".serves", "expected an object of [min, max] ranges");
        for (auto it = serves.begin(); it != serves.end(); ++it) {
          const json &range = it.value();
          if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() ||
              !range[1].is_number_integer() || range[0].get<int64_t>() > range[1].get<int64_t>() ||
              !b.shape.count(it.key()))
            return r.error(at + ".serves." + it.key(),
                           "expected [min, max] integers (min <= max) for a dimension of the "
                           "entry's shape");
          b.serves[it.key()] = {range[0].get<int64_t>(), range[1].get<int64_t>()};
        }
      }
      if (!insideBundle(b.artifact))
        return r.error(at + ".artifact", "\"" + b.artifact +
                                             "\" is not a relative path inside the bundle");
      std::string path = dir + "/" + b.artifact;
      auto known = hashed.find(path);
      if (known == hashed.end()) {
        absl::StatusOr<std::string> bytes = ReadRegularFileBeneath(dir, b.artifact);
        if (!bytes.ok())
          return absl::Status(bytes.status().code(), manifestPath + ": " + at + ": the artifact " +
                                                         std::string(bytes.status().message()));
        known = hashed.emplace(path, Sha256Hex(*bytes)).first;
        bytesOf[path] = *std::move(bytes);
      }
      const std::string &sha = known->second;
      if (sha != b.sha256)
        return absl::DataLossError(manifestPath + ": " + at + ": the artifact " + path +
                                   " does not match its checksum (sha256 " +
                                   sha + ", manifest says " + b.sha256 +
                                   "); it was modified or corrupted");
      // The manifest must say what the artifact is: its kernel's signature and the
      // configuration it was built with (the grid is computed from the config).
      absl::StatusOr<ArtifactKernelInfo> info =
          artifactKernelInfo(*targetKind, bytesOf[path], b.entry, b.artifact);
      if (!info.ok())
        return absl::Status(info.status().code(), manifestPath + ": " + at + ": the artifact " +
                                                      std::string(info.status().message()));
      if (info->signature != b.signature)
        return r.error(at, "the manifest's signature " + signatureText(b.signature) +
                               " is not the artifact's: kernel '" + b.entry + "' in " +
                               b.artifact + " takes " + signatureText(info->signature));
      if (std::string why = buildMismatch(config, info->buildInfo); !why.empty())
        return r.error(at + ".config", "the artifact " + b.artifact + " " + why);
      b.bundleDir = dir;
      b.artifactInBundle = b.artifact;
      b.artifact = path;
      bundle->entries_.push_back(std::move(b));
    }
  }
  return bundle;
}

absl::StatusOr<BundleChoice> Bundle::Find(const std::string &kernel,
                                          const std::map<std::string, int64_t> &shape,
                                          const std::string &dtype) const {
  BundleChoice best;
  double bestDistance = 0;
  bool anyKernel = false;
  std::string unserved; // why an entry with these dimensions could not serve them
  for (const BundleEntry &e : entries_) {
    if (e.kernel != kernel)
      continue;
    anyKernel = true;
    if ((!dtype.empty() && e.dtype != dtype) || e.shape.size() != shape.size())
      continue;
    bool serves = true;
    for (const auto &[dim, range] : e.serves) {
      auto it = shape.find(dim);
      if (it != shape.end() && (it->second < range.first || it->second > range.second)) {
        if (unserved.empty())
          unserved = "; the entry tuned for " + ShapeText(e.shape) + " was compiled for " + dim +
                     " in [" + std::to_string(range.first) + ", " +
                     std::to_string(range.second) + "]";
        serves = false;
      }
    }
    if (!serves)
      continue;
    double distance = 0;
    bool sameDims = true;
    for (const auto &[dim, value] : shape) {
      auto it = e.shape.find(dim);
      // A zero (a flag such as CAUSAL=0) has no "nearby" value: it must match exactly.
      if (it == e.shape.end() || value < 0 ||
          ((value == 0 || it->second == 0) && value != it->second)) {
        sameDims = false;
        break;
      }
      if (value > 0)
        distance += std::fabs(std::log2(double(it->second) / double(value)));
    }
    if (!sameDims)
      continue;
    if (!best.entry || distance < bestDistance) {
      best.entry = &e;
      bestDistance = distance;
    }
  }
  if (!best.entry)
    return absl::NotFoundError(anyKernel ? "no tuned entry of '" + kernel + "' serves " +
                                               ShapeText(shape) +
                                               (dtype.empty() ? "" : " and dtype " + dtype) +
                                               unserved
                                         : "the bundle has no kernel named '" + kernel + "'");
  best.exact = best.entry->shape == shape;
  best.explanation = best.exact ? "tuned for " + ShapeText(shape) + " (exact)"
                                : "nearest tuned shape " + ShapeText(best.entry->shape) +
                                      " for " + ShapeText(shape);
  return best;
}

namespace {
std::function<void(const std::string &)> &artifactVerifiedHook() {
  static std::function<void(const std::string &)> hook;
  return hook;
}
} // namespace

void SetArtifactVerifiedHookForTesting(std::function<void(const std::string &)> hook) {
  artifactVerifiedHook() = std::move(hook);
}

absl::StatusOr<std::unique_ptr<Executable>> Bundle::Load(const BundleEntry &entry,
                                                         Device &device) const {
  if (device.kind() != target_.deviceKind())
    return absl::FailedPreconditionError("the bundle is for " + target_.str() + ", which runs on a " +
                                         target_.deviceKind() + " device, not on " + device.name());
  // The bytes are read once (no symlink, nothing outside the bundle), verified, and those very
  // bytes are loaded: swapping the file afterwards changes nothing.
  absl::StatusOr<std::string> bytes = ReadRegularFileBeneath(entry.bundleDir, entry.artifactInBundle);
  if (!bytes.ok())
    return absl::Status(bytes.status().code(),
                        "the artifact " + std::string(bytes.status().message()));
  if (Sha256Hex(*bytes) != entry.sha256)
    return absl::DataLossError("the artifact " + entry.artifact +
                               " changed since the bundle was opened (checksum mismatch)");
  if (artifactVerifiedHook())
    artifactVerifiedHook()(entry.artifact);
  absl::StatusOr<std::unique_ptr<Executable>> module = device.LoadBytes(*bytes, entry.artifact);
  if (!module.ok())
    return module.status();
  absl::StatusOr<Kernel> kernel = (*module)->GetKernel(entry.entry);
  if (!kernel.ok())
    return kernel.status();
  std::string signature;
  for (const ArgType &t : kernel->signature())
    signature += (signature.empty() ? "" : ",") + t.str();
  if (signature != entry.signature)
    return absl::FailedPreconditionError("the artifact " + entry.artifact + " has kernel '" +
                                         entry.entry + "' with signature " + signature +
                                         ", the manifest says " + entry.signature);
  return module;
}

} // namespace tessel::runtime

namespace tessel {

void to_json(nlohmann::json &j, const Target &t) {
  j = {{"kind", TargetKindName(t.kind)}, {"arch", t.arch}, {"features", t.features}};
  if (!t.cpu.empty())
    j["cpu"] = t.cpu;
}

} // namespace tessel
