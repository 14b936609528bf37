//===- ProblemData.h - what the zoo's problems are made of -*- C++ -*-===//
//
// Helpers the kernels' C++ references share (sampled rows, row references, mismatch errors:
// absl::DataLoss, a wrong result as opposed to a launch the runtime refused), and the typed host
// buffers tessel-bench's GPU baseline fills.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_PROBLEMDATA_H
#define TESSEL_KERNELS_PROBLEMDATA_H

#include "kernels/Zoo.h"

#include "absl/status/status.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tessel::zoo {

using runtime::Arg;
using runtime::Grid;

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t nextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

// ---- element types as stored -----------------------------------------------------------------

inline size_t elementBytes(const std::string &dtype) { return dtype == "f32" ? 4 : 2; }

/// Rounds `x` to `dtype` and returns the stored bits (in 4 or 2 bytes).
inline uint32_t store(const std::string &dtype, float x) {
  uint32_t bits = 0; // little-endian: the element in the low bytes
  Encode(dtype == "f32" ? ElementType::F32 : dtype == "f16" ? ElementType::F16 : ElementType::BF16,
         x, reinterpret_cast<uint8_t *>(&bits));
  return bits;
}

inline float load(const std::string &dtype, uint32_t bits) {
  return float(Decode(dtype == "f32"   ? ElementType::F32
                      : dtype == "f16" ? ElementType::F16
                                       : ElementType::BF16,
                      reinterpret_cast<const uint8_t *>(&bits)));
}

/// A host buffer of `n` elements of `dtype` (f32, f16 or bf16), read and written as floats.
struct TypedBuffer {
  std::string dtype;
  std::vector<uint8_t> bytes;
  TypedBuffer(std::string d, size_t n) : dtype(std::move(d)), bytes(n * elementBytes(dtype)) {}
  size_t size() const { return bytes.size() / elementBytes(dtype); }
  void set(size_t i, float x) {
    uint32_t b = store(dtype, x);
    std::memcpy(&bytes[i * elementBytes(dtype)], &b, elementBytes(dtype));
  }
  float get(size_t i) const {
    uint32_t b = 0;
    std::memcpy(&b, &bytes[i * elementBytes(dtype)], elementBytes(dtype));
    return load(dtype, b);
  }
  void *data() { return bytes.data(); }
};

inline void fillRandom(TypedBuffer &b, std::mt19937_64 &gen) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (size_t i = 0; i < b.size(); ++i)
    b.set(i, d(gen));
}

inline std::string pointer(const std::string &dtype) {
  return "*" + std::string(dtype == "f32" ? "fp32" : dtype == "f16" ? "fp16" : "bf16") + ":16";
}

inline absl::Status mismatch(const std::string &what, size_t i, double got, double want) {
  std::ostringstream s;
  s << what << "[" << i << "] = " << got << ", expected " << want;
  return absl::DataLossError(s.str());
}

/// The rows of a `rows`-row output whose reference a problem computes: all of them where that
/// costs at most ~2^28 multiply-adds (`costPerRow` each), otherwise a random sample drawn
/// from `gen` (fresh with the inputs) of about that cost, always with the first and last row
/// of each group of `groupRows` (the edges masks guard). Checks of a sample also require every
/// output element to have been written (the poison is NaN).
inline std::vector<int64_t> referenceRows(int64_t rows, int64_t groupRows, double costPerRow,
                                          std::mt19937_64 &gen) {
  double cost = double(rows) * costPerRow;
  uint64_t stride = uint64_t(std::max(1.0, std::ceil(cost / double(1 << 28))));
  std::vector<int64_t> out;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t i = r % groupRows;
    if (stride == 1 || i == 0 || i == groupRows - 1 || gen() % stride == 0)
      out.push_back(r);
  }
  return out;
}

/// Checks `out`, whose rows are `width` wide, against a reference of some of its rows
/// (`rows`, from referenceRows; `want` holds their values in that order): every element must
/// have been written (finite: the poison is NaN), and each referenced one must lie within
/// `tolerance(want)` of its reference.
inline absl::Status checkReferenceRows(const std::string &name, const HostTensor &out,
                                       const std::vector<int64_t> &rows, int64_t width,
                                       const std::vector<double> &want,
                                       const std::function<double(double)> &tolerance) {
  for (size_t i = 0; i < out.count; ++i)
    if (!std::isfinite(out.at(i)))
      return mismatch(name, i, out.at(i), 0.0);
  for (size_t c = 0; c < rows.size(); ++c)
    for (int64_t j = 0; j < width; ++j) {
      size_t i = size_t(rows[c] * width + j);
      double got = out.at(i), w = want[c * width + j];
      if (!(std::fabs(got - w) <= tolerance(w)))
        return mismatch(name, i, got, w);
    }
  return absl::OkStatus();
}

/// The values of `t` as floats (what the references compute from).
inline std::vector<float> floats(const HostTensor &t) {
  std::vector<float> out(t.count);
  for (size_t i = 0; i < t.count; ++i)
    out[i] = float(t.at(i));
  return out;
}

/// A reference over the rows of a rows x cols f32 input `in`: `reference` computes a row's
/// expected output (cols values, or one with `rowOutput` false), each element of `out` must be
/// within `tolerance(want, cols)` of it.
inline Reference RowReference(std::string what, std::string in, std::string out, bool rowOutput,
                              std::function<void(const float *row, int64_t cols, double *want)> reference,
                              std::function<double(double want, int64_t cols)> tolerance) {
  return [=](const Tensors &t, const Shape &s, const std::string &, uint64_t) -> absl::Status {
    int64_t rows = s.at("rows"), cols = s.at("cols");
    std::vector<float> x = floats(t.at(in));
    const HostTensor &o = t.at(out);
    size_t perRow = rowOutput ? size_t(cols) : 1;
    std::vector<double> want(perRow);
    for (int64_t r = 0; r < rows; ++r) {
      reference(&x[size_t(r * cols)], cols, want.data());
      for (size_t j = 0; j < perRow; ++j) {
        size_t i = size_t(r) * perRow + j;
        if (!(std::fabs(o.at(i) - want[j]) <= tolerance(want[j], cols)))
          return mismatch(what, i, o.at(i), want[j]);
      }
    }
    return absl::OkStatus();
  };
}

/// fn(begin, end) over [0, n), split across the host's threads (a reference's rows).
inline void parallelRows(size_t n, const std::function<void(size_t, size_t)> &fn) {
  size_t threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
  size_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (size_t t = 0; t * chunk < n; ++t)
    pool.emplace_back(fn, t * chunk, std::min(n, (t + 1) * chunk));
  for (std::thread &t : pool)
    t.join();
}

} // namespace tessel::zoo

#endif // TESSEL_KERNELS_PROBLEMDATA_H
