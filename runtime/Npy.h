//===- Npy.h - NumPy .npy arrays: read, write, dtypes ---------------*- C++ -*-===//
//
// The .npy format (version 1.0 and 2.0, C order) that tessel-run and tests use to exchange
// arrays with NumPy. Files are untrusted: every malformed header is a clear error.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_NPY_H
#define TESSEL_RUNTIME_NPY_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::runtime {

/// The largest array tessel reads or creates (64 GiB).
inline constexpr int64_t kMaxNpyBytes = int64_t(1) << 36;

struct NpyArray {
  /// tessel's element type name: "f32", "f16", "f64", "i8", "i16", "i32", "i64", "i1".
  std::string dtype;
  std::vector<int64_t> shape;
  /// Raw little-endian elements, C order.
  std::vector<uint8_t> data;

  int64_t elements() const;
};

/// Bytes per element of a tessel element type name (0 if unknown).
int64_t ElementBytes(const std::string &dtype);

absl::StatusOr<NpyArray> ReadNpy(const std::string &path);
/// Writes atomically (temporary file + rename).
absl::Status WriteNpy(const std::string &path, const NpyArray &array);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_NPY_H
