//===- RowSum.cpp - the zoo's row sum -*- C++ -*-===//

#include "kernels/RowProblem.h"

namespace tessel::zoo {

TESSEL_ZOO_KERNELS(row_sum) {
  return {RowReductionKernel(
      "row_sum", "kernels/row_sum/row_sum.py", "row sum",
      [](const float *x, int64_t cols, double *want) {
        double sum = 0;
        for (int64_t c = 0; c < cols; ++c)
          sum += x[c];
        *want = sum;
      },
      // f32 sums in any order: error grows like sqrt(cols) times the element size.
      [](double want, int64_t cols) {
        return 1e-4 * (std::sqrt(double(cols)) + std::fabs(want));
      })};
}

} // namespace tessel::zoo
