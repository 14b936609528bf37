//===- LayerNorm.cpp - the C++ reference of the zoo's layer norm forward -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <cmath>

namespace tessel::zoo {
namespace {

/// y = (x - mean) / sqrt(var + 1e-5) * w + b per row, in double; the mean and rstd outputs
/// must be written (finite).
absl::Status CheckLayerNorm(const Tensors &t, const Shape &s, const std::string &, uint64_t) {
  int64_t rows = s.at("rows"), cols = s.at("cols");
  const HostTensor &y = t.at("Y"), &mean = t.at("Mean"), &rstd = t.at("Rstd");
  std::vector<float> x = floats(t.at("X")), w = floats(t.at("W")), b = floats(t.at("B"));
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = &x[size_t(r * cols)];
    double mu = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c)
      mu += row[c];
    mu /= double(cols);
    for (int64_t c = 0; c < cols; ++c)
      var += (row[c] - mu) * (row[c] - mu);
    double inv = 1 / std::sqrt(var / double(cols) + 1e-5);
    for (int64_t c = 0; c < cols; ++c) {
      size_t i = size_t(r * cols + c);
      double want = (row[c] - mu) * inv * w[size_t(c)] + b[size_t(c)];
      if (!(std::fabs(y.at(i) - want) <= 1e-4 * (1 + std::fabs(want))))
        return mismatch("y", i, y.at(i), want);
    }
    if (!std::isfinite(mean.at(size_t(r))) || !std::isfinite(rstd.at(size_t(r))))
      return mismatch("mean/rstd", size_t(r), mean.at(size_t(r)), 0);
  }
  return absl::OkStatus();
}

} // namespace

TESSEL_ZOO_REFERENCES(layer_norm) { return {{"layer_norm", CheckLayerNorm}}; }

} // namespace tessel::zoo
