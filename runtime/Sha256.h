//===- Sha256.h - SHA-256 digests for cache keys and checksums ------*- C++ -*-===//

#ifndef TESSEL_RUNTIME_SHA256_H
#define TESSEL_RUNTIME_SHA256_H

#include <string>

namespace tessel::runtime {
/// The SHA-256 digest of `data` as 64 lowercase hex digits (FIPS 180-4).
std::string Sha256Hex(const std::string &data);
} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SHA256_H
