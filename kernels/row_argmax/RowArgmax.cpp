//===- RowArgmax.cpp - the C++ reference of the zoo's row argmax -*- C++ -*-===//

#include "kernels/ProblemData.h"

namespace tessel::zoo {
namespace {

/// Each row's first maximum: its index and its value, exactly.
absl::Status CheckRowArgmax(const Tensors &t, const Shape &s, const std::string &, uint64_t) {
  int64_t rows = s.at("rows"), cols = s.at("cols");
  std::vector<float> x = floats(t.at("x_ptr"));
  const HostTensor &idx = t.at("idx_ptr"), &max = t.at("max_ptr");
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = &x[size_t(r * cols)];
    int64_t best = std::max_element(row, row + cols) - row;
    if (idx.at(size_t(r)) != double(best))
      return mismatch("argmax", size_t(r), idx.at(size_t(r)), double(best));
    if (max.at(size_t(r)) != double(row[best]))
      return mismatch("max", size_t(r), max.at(size_t(r)), row[best]);
  }
  return absl::OkStatus();
}

} // namespace

TESSEL_ZOO_REFERENCES(row_argmax) { return {{"row_argmax", CheckRowArgmax}}; }

} // namespace tessel::zoo
