//===- RowArgmax.cpp - the zoo's row argmax -*- C++ -*-===//

#include "kernels/RowProblem.h"

namespace tessel::zoo {
namespace {

class ArgmaxProblem : public Problem {
public:
  ArgmaxProblem(const Shape &s, uint64_t seed)
      : rows_(s.at("rows")), cols_(s.at("cols")), x_(randomMatrix(rows_, cols_, seed)),
        idx_(rows_), max_(rows_) {}
protected:
  std::vector<Arg> HostArgs() override {
    return {x_.data(), idx_.data(), max_.data(), int32_t(cols_), int32_t(cols_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(x_), out(idx_), out(max_)};
  }

public:
  absl::StatusOr<Grid> GridFor(const Point &) const override { return Grid{int32_t(rows_), 1, 1}; }
  void Poison() override {
    std::fill(idx_.begin(), idx_.end(), -1);
    std::fill(max_.begin(), max_.end(), NAN);
  }
  absl::Status Check() const override {
    for (int64_t r = 0; r < rows_; ++r) {
      const float *x = &x_[r * cols_];
      int64_t best = std::max_element(x, x + cols_) - x; // the first maximum
      if (idx_[r] != best)
        return mismatch("argmax", r, idx_[r], best);
      if (max_[r] != x[best])
        return mismatch("max", r, max_[r], x[best]);
    }
    return absl::OkStatus();
  }

private:
  int64_t rows_, cols_;
  std::vector<float> x_;
  std::vector<int32_t> idx_;
  std::vector<float> max_;
};

} // namespace

TESSEL_ZOO_KERNELS(row_argmax) {
  Kernel k = RowKernel("row_argmax", "kernels/row_argmax/row_argmax.py");
  k.signature = [](const std::string &) { return std::string("*fp32:16,*i32:16,*fp32:16,i32,i32"); };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) { return 4.0 * s.at("rows") * (s.at("cols") + 2); };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new ArgmaxProblem(s, seed));
  };
  return {k};
}

} // namespace tessel::zoo
