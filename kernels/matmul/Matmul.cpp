//===- Matmul.cpp - the C++ reference of the zoo's matmuls -*- C++ -*-===//
//
// matmul.toml and block_ptr_matmul.toml (kernels/matmul/) attach it as "matmul".
//
//===----------------------------------------------------------------------===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

/// C = A B (A: M x K, B: K x N) in double for the rows referenceRows picks (all of them for
/// small problems), over the host's threads. f32 accumulation of K products, then one rounding
/// to the output type: tl.dot allows tf32 (Triton's default), so f32 operands may be rounded
/// to 10 mantissa bits, products off by up to 2^-10 relative, as f16's output rounding.
absl::Status CheckMatmul(const Tensors &t, const Shape &s, const std::string &dtype,
                         uint64_t seed) {
  int64_t m = s.at("M"), n = s.at("N"), k = s.at("K");
  const HostTensor &a = t.at("a_ptr"), &c = t.at("c_ptr");
  std::vector<float> b = floats(t.at("b_ptr"));
  std::mt19937_64 gen(seed);
  std::vector<int64_t> rows = referenceRows(m, m, double(n) * k, gen);
  std::vector<double> want(rows.size() * size_t(n), 0.0);
  parallelRows(rows.size(), [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      double *row = &want[r * size_t(n)];
      for (int64_t l = 0; l < k; ++l) {
        double x = a.at(size_t(rows[r] * k + l));
        const float *bl = &b[size_t(l * n)];
        for (int64_t j = 0; j < n; ++j)
          row[j] += x * bl[j];
      }
    }
  });
  double rel = dtype == "bf16" ? 1e-2 : 2e-3;
  return checkReferenceRows("C", c, rows, n, want, [&](double w) {
    return rel * (std::sqrt(double(k)) + std::fabs(w));
  });
}

} // namespace

TESSEL_ZOO_REFERENCES(matmul) { return {{"matmul", CheckMatmul}}; }

} // namespace tessel::zoo
