//===- ColSum.cpp - the C++ reference of the zoo's column sum -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <cmath>

namespace tessel::zoo {
namespace {

/// Each column's sum in double; f32 sums in any order within 1e-4 (3 sqrt(rows) + |sum|).
absl::Status CheckColSum(const Tensors &t, const Shape &s, const std::string &, uint64_t) {
  int64_t rows = s.at("rows"), cols = s.at("cols");
  const HostTensor &x = t.at("x_ptr"), &out = t.at("out_ptr");
  std::vector<double> want(size_t(cols), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      want[size_t(c)] += x.at(size_t(r * cols + c));
  for (int64_t c = 0; c < cols; ++c) {
    double got = out.at(size_t(c)), w = want[size_t(c)];
    if (!(std::fabs(got - w) <= 1e-4 * (std::sqrt(double(rows)) * 3 + std::fabs(w))))
      return mismatch("column sum", size_t(c), got, w);
  }
  return absl::OkStatus();
}

} // namespace

TESSEL_ZOO_REFERENCES(col_sum) { return {{"col_sum", CheckColSum}}; }

} // namespace tessel::zoo
