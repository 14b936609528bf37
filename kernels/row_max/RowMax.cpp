//===- RowMax.cpp - the zoo's row max -*- C++ -*-===//

#include "kernels/RowProblem.h"

namespace tessel::zoo {

namespace registry {
std::vector<Kernel> row_max();
} // namespace registry

std::vector<Kernel> registry::row_max() {
  Kernel k = RowKernel("row_max", "kernels/row_max/row_max.py");
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,i32,i32"); };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) {
    return 4.0 * s.at("rows") * (s.at("cols") + 1);
  };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    RowProblemSpec spec;
    spec.what = "row max";
    spec.reference = [](const float *x, int64_t cols, double *want) {
      *want = *std::max_element(x, x + cols);
    };
    // A maximum is one of the inputs: exact.
    spec.tolerance = [](double, int64_t) { return 0.0; };
    spec.args = [](void *in, void *out, int32_t cols) {
      return std::vector<Arg>{in, out, cols, cols};
    };
    return std::unique_ptr<Problem>(new RowProblem(s, seed, spec));
  };
  return {k};
}

} // namespace tessel::zoo
