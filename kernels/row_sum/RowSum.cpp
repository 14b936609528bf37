//===- RowSum.cpp - the zoo's row sum -*- C++ -*-===//

#include "kernels/RowProblem.h"

namespace tessel::zoo {

namespace registry {
std::vector<Kernel> row_sum();
} // namespace registry

std::vector<Kernel> registry::row_sum() {
  Kernel k = RowKernel("row_sum", "kernels/row_sum/row_sum.py");
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,i32,i32"); };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) {
    return 4.0 * s.at("rows") * (s.at("cols") + 1);
  };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    RowProblemSpec spec;
    spec.what = "row sum";
    spec.reference = [](const float *x, int64_t cols, double *want) {
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        sum += x[c];
      *want = sum;
    };
    // f32 sums in any order: error grows like sqrt(cols) times the element size.
    spec.tolerance = [](double want, int64_t cols) {
      return 1e-4 * (std::sqrt(double(cols)) + std::fabs(want));
    };
    spec.args = [](void *in, void *out, int32_t cols) {
      return std::vector<Arg>{in, out, cols, cols};
    };
    return std::unique_ptr<Problem>(new RowProblem(s, seed, spec));
  };
  return {k};
}

} // namespace tessel::zoo
