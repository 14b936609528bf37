//===- ColSum.cpp - the zoo's column sum -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

class ColSumProblem : public Problem {
public:
  ColSumProblem(const Shape &s, uint64_t seed)
      : rows_(s.at("rows")), cols_(s.at("cols")), x_(randomMatrix(rows_, cols_, seed)),
        out_(cols_), want_(cols_, 0.0) {
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = 0; c < cols_; ++c)
        want_[c] += x_[r * cols_ + c];
  }
protected:
  std::vector<Arg> HostArgs() override {
    return {x_.data(), out_.data(), int32_t(rows_), int32_t(cols_), int32_t(cols_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(x_), out(out_)};
  }

public:
  absl::StatusOr<Grid> GridFor(const Point &c) const override {
    return Grid{int32_t(cdiv(cols_, c.at("BLOCK_N"))), 1, 1};
  }
  void Poison() override { std::fill(out_.begin(), out_.end(), NAN); }
  absl::Status Check() const override {
    for (int64_t c = 0; c < cols_; ++c)
      if (!(std::fabs(out_[c] - want_[c]) <= 1e-4 * (std::sqrt(double(rows_)) * 3 + std::fabs(want_[c]))))
        return mismatch("column sum", c, out_[c], want_[c]);
    return absl::OkStatus();
  }

private:
  int64_t rows_, cols_;
  std::vector<float> x_, out_;
  std::vector<double> want_;
};

Kernel colSumKernel() {
  Kernel k;
  k.name = k.entry = "col_sum";
  k.source = "kernels/col_sum/col_sum.py";
  k.dims = {"rows", "cols"};
  k.cpu.defaultShapes = {{{"rows", 1024}, {"cols", 1000}}};
  k.cpu.largeShapes = {{{"rows", 4096}, {"cols", 4096}}};
  k.cpu.dtypes = {"f32"};
  k.cpu.space.params = {{"BLOCK_M", {8, 16, 32, 64}}, {"BLOCK_N", {32, 64, 128, 256}}};
  k.cpu.space.constraints.push_back([](const Point &p) {
    return p.at("BLOCK_M") * p.at("BLOCK_N") * 4 <= 64 * 1024 ? "" : "the tile exceeds 64 KiB";
  });
  k.gpu.defaultShapes = {{{"rows", 16384}, {"cols", 8192}}};
  k.gpu.largeShapes = {{{"rows", 32768}, {"cols", 16384}}};
  k.gpu.dtypes = {"f32"};
  // Narrow strips give more programs (N / BLOCK_N of them fill the GPU), tall ones more loads
  // in flight per thread.
  k.gpu.space.params = {{"BLOCK_M", {16, 32, 64, 128}}, {"BLOCK_N", {16, 32, 64, 128, 256}},
                        {"knob.num_warps", {2, 4, 8}}};
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,i32,i32,i32"); };
  k.constexprs = [](const Point &p, const Shape &) {
    return std::map<std::string, std::string>{{"BLOCK_M", std::to_string(p.at("BLOCK_M"))},
                                              {"BLOCK_N", std::to_string(p.at("BLOCK_N"))}};
  };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) { return 4.0 * (s.at("rows") + 1) * s.at("cols"); };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new ColSumProblem(s, seed));
  };
  return k;
}

} // namespace

TESSEL_ZOO_KERNELS(col_sum) { return {colSumKernel()}; }

} // namespace tessel::zoo
