//===- CompileCache.h - on-disk cache of compiled kernels -----------*- C++ -*-===//
//
// Compiled shared objects keyed by everything that determines them: source hash, entry,
// specialization (constexprs, argument dtypes, divisibility), target arch + features and
// compiler version. Entries are written atomically; an entry whose metadata does not match
// its key exactly, or whose artifact's checksum is wrong, is ignored and rebuilt, never loaded.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_COMPILECACHE_H
#define TESSEL_RUNTIME_COMPILECACHE_H

#include "absl/status/statusor.h"

#include <functional>
#include <string>

namespace tessel::runtime {

struct CacheKey {
  std::string source;         ///< the kernel source (hashed)
  std::string entry;
  std::string specialization; ///< e.g. "BLOCK=128;x:ptr<f32>:div16"
  std::string target;         ///< e.g. "x86_64-pc-linux-gnu/znver3/+avx2,+fma"
  std::string compilerVersion;

  /// The canonical text of the key (what the metadata file stores).
  std::string canonical() const;
  /// SHA-256 of canonical(): the entry's file name.
  std::string digest() const;
};

class CompileCache {
public:
  /// `directory` empty: $TESSEL_CACHE_DIR, else ~/.cache/tessel/kernels.
  explicit CompileCache(std::string directory = "");

  /// The cached shared object for `key`; on a miss (or a corrupt/foreign entry), calls
  /// `compile(path)` to write it to `path`, then records it. Returns the artifact's path.
  absl::StatusOr<std::string>
  GetOrCompile(const CacheKey &key,
               const std::function<absl::Status(const std::string &path)> &compile);

  /// Whether the last GetOrCompile was served from the cache.
  bool lastWasHit() const { return lastHit_; }
  const std::string &directory() const { return directory_; }

private:
  std::string directory_;
  bool lastHit_ = false;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_COMPILECACHE_H
