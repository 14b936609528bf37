//===- VectorAdd.cpp - the zoo's vector add -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

class VectorAddProblem : public Problem {
public:
  VectorAddProblem(const Shape &s, uint64_t seed)
      : n_(s.at("n")), x_(randomMatrix(1, n_, seed)), y_(randomMatrix(1, n_, seed + 1)),
        out_(n_) {}

protected:
  std::vector<Arg> HostArgs() override {
    return {x_.data(), y_.data(), out_.data(), int32_t(n_)};
  }
  std::vector<HostBuffer> Buffers() override { return {in(x_), in(y_), out(out_)}; }

public:
  absl::StatusOr<Grid> GridFor(const Point &c) const override {
    return Grid{int32_t(cdiv(n_, c.at("BLOCK"))), 1, 1};
  }
  void Poison() override { std::fill(out_.begin(), out_.end(), NAN); }
  absl::Status Check() const override {
    // Exact: one float addition per element.
    for (int64_t i = 0; i < n_; ++i)
      if (!(out_[i] == x_[i] + y_[i]))
        return mismatch("out", i, out_[i], double(x_[i] + y_[i]));
    return absl::OkStatus();
  }

private:
  int64_t n_;
  std::vector<float> x_, y_, out_;
};

Kernel vectorAddKernel() {
  Kernel k;
  k.name = k.entry = "vector_add";
  k.source = "kernels/vector_add/vector_add.py";
  k.dims = {"n"};
  // Not multiples of the blocks: the last program is masked.
  k.cpu.defaultShapes = {{{"n", (1 << 20) + 3}}};
  k.cpu.largeShapes = {{{"n", (1 << 24) + 3}}};
  k.cpu.dtypes = {"f32"};
  k.cpu.space.params = {{"BLOCK", {1024, 4096, 16384}}};
  // GPUs: 805 MB moved at the default shape, 1.6 GB at the large one.
  k.gpu.defaultShapes = {{{"n", (1 << 26) + 3}}};
  k.gpu.largeShapes = {{{"n", (1 << 27) + 3}}};
  k.gpu.dtypes = {"f32"};
  // vector_bytes 4: one element a thread at a time; 16: four, as 128-bit accesses.
  k.gpu.space.params = {{"BLOCK", {512, 1024, 2048, 4096}},
                        {"knob.num_warps", {4, 8}},
                        {"knob.vector_bytes", {4, 16}}};
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,*fp32:16,i32"); };
  k.constexprs = [](const Point &p, const Shape &) {
    return std::map<std::string, std::string>{{"BLOCK", std::to_string(p.at("BLOCK"))}};
  };
  k.flops = [](const Shape &s) { return double(s.at("n")); };
  k.bytes = [](const Shape &s, const std::string &) { return 12.0 * s.at("n"); };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new VectorAddProblem(s, seed));
  };
  return k;
}

} // namespace

TESSEL_ZOO_KERNELS(vector_add) { return {vectorAddKernel()}; }

} // namespace tessel::zoo
