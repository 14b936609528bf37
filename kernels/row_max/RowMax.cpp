//===- RowMax.cpp - the zoo's row max -*- C++ -*-===//

#include "kernels/RowProblem.h"

namespace tessel::zoo {

TESSEL_ZOO_KERNELS(row_max) {
  return {RowReductionKernel(
      "row_max", "kernels/row_max/row_max.py", "row max",
      [](const float *x, int64_t cols, double *want) { *want = *std::max_element(x, x + cols); },
      // A maximum is one of the inputs: exact.
      [](double, int64_t) { return 0.0; })};
}

} // namespace tessel::zoo
