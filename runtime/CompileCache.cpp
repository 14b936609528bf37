//===- CompileCache.cpp - on-disk cache of compiled kernels ---------*- C++ -*-===//

#include "runtime/CompileCache.h"

#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "absl/strings/str_cat.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace tessel::runtime {

namespace {


absl::Status makeDirectories(const std::string &path) {
  std::string prefix;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!prefix.empty() && mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
        return absl::PermissionDeniedError(absl::StrCat("cannot create ", prefix, ": ",
                                                        std::strerror(errno)));
    }
    if (i < path.size())
      prefix.push_back(path[i]);
  }
  return absl::OkStatus();
}

} // namespace

std::string CacheKey::canonical() const {
  // Length-prefixed fields: no field can impersonate another.
  return absl::StrCat("tessel-cache-v1\n", "source-sha256 ", Sha256Hex(source), "\n", "entry ",
                      entry.size(), ":", entry, "\n", "specialization ", specialization.size(),
                      ":", specialization, "\n", "target ", target.size(), ":", target, "\n",
                      "compiler ", compilerVersion.size(), ":", compilerVersion, "\n");
}

std::string CacheKey::digest() const { return Sha256Hex(canonical()); }

CompileCache::CompileCache(std::string directory) : directory_(std::move(directory)) {
  if (!directory_.empty())
    return;
  if (const char *env = std::getenv("TESSEL_CACHE_DIR"); env && *env)
    directory_ = env;
  else if (const char *home = std::getenv("HOME"); home && *home)
    directory_ = std::string(home) + "/.cache/tessel/kernels";
  else
    directory_ = "/tmp/tessel-cache";
}

absl::StatusOr<std::string> CompileCache::GetOrCompile(
    const CacheKey &key, const std::function<absl::Status(const std::string &path)> &compile) {
  lastHit_ = false;
  if (absl::Status s = makeDirectories(directory_); !s.ok())
    return s;
  std::string digest = key.digest();
  std::string so = absl::StrCat(directory_, "/", digest, ".so");
  std::string meta = absl::StrCat(directory_, "/", digest, ".meta");
  std::string canonical = key.canonical();

  std::string recorded, artifact;
  if (ReadWholeFile(meta, recorded)) {
    bool soOk = ReadWholeFile(so, artifact);
    // The metadata is the canonical key followed by the artifact's checksum.
    if (soOk && recorded == absl::StrCat(canonical, "artifact-sha256 ", Sha256Hex(artifact), "\n")) {
      lastHit_ = true;
      return so;
    }
  }
  // Miss, or an entry that is corrupt or belongs to another key: rebuild it.
  // Unique per process and call: two threads of one process may build the same entry.
  static std::atomic<unsigned long> builds{0};
  std::string tmp = absl::StrCat(so, ".build.", getpid(), ".", builds++);
  if (absl::Status s = compile(tmp); !s.ok()) {
    std::remove(tmp.c_str());
    return s;
  }
  if (!ReadWholeFile(tmp, artifact) || artifact.empty()) {
    std::remove(tmp.c_str());
    return absl::InternalError(absl::StrCat("the compiler wrote no artifact to ", tmp));
  }
  if (std::rename(tmp.c_str(), so.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(absl::StrCat("cannot move ", tmp, " into the cache"));
  }
  if (absl::Status s = WriteFileAtomically(
          meta, absl::StrCat(canonical, "artifact-sha256 ", Sha256Hex(artifact), "\n"));
      !s.ok())
    return s;
  return so;
}

} // namespace tessel::runtime
