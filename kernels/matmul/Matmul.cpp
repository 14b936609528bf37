//===- Matmul.cpp - the zoo's matmuls: Triton's grouped matmul and a block-pointer variant -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

class MatmulProblem : public Problem {
public:
  MatmulProblem(const Shape &shape, const std::string &dtype, uint64_t seed, bool grid2d = false)
      : grid2d_(grid2d), m_(shape.at("M")), n_(shape.at("N")), k_(shape.at("K")), dtype_(dtype),
        a_(dtype, m_ * k_), b_(dtype, k_ * n_), c_(dtype, m_ * n_) {
    std::mt19937_64 gen(seed);
    fillRandom(a_, gen);
    fillRandom(b_, gen);
    std::vector<float> a(a_.size()), b(b_.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = a_.get(i);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = b_.get(i);
    // The reference in double for the rows referenceRows picks, over the host's threads.
    checked_ = referenceRows(m_, m_, double(n_) * k_, gen);
    want_.assign(checked_.size() * n_, 0.0);
    parallelRows(checked_.size(), [&](size_t begin, size_t end) {
      std::vector<double> row(n_);
      for (size_t c = begin; c < end; ++c) {
        int64_t i = checked_[c];
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t l = 0; l < k_; ++l) {
          double x = a[i * k_ + l];
          const float *bl = &b[l * n_];
          for (int64_t j = 0; j < n_; ++j)
            row[j] += x * bl[j];
        }
        std::copy(row.begin(), row.end(), want_.begin() + c * n_);
      }
    });
  }
protected:
  std::vector<Arg> HostArgs() override {
    return {a_.data(), b_.data(), c_.data(), int32_t(m_), int32_t(n_), int32_t(k_),
            int32_t(k_), int32_t(n_), int32_t(n_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(a_.bytes), in(b_.bytes), out(c_.bytes)};
  }

public:
  absl::StatusOr<Grid> GridFor(const Point &c) const override {
    if (grid2d_) // block-pointer variant: (M blocks, N blocks)
      return Grid{int32_t(cdiv(m_, c.at("BLOCK_M"))), int32_t(cdiv(n_, c.at("BLOCK_N"))), 1};
    return Grid{int32_t(cdiv(m_, c.at("BLOCK_M")) * cdiv(n_, c.at("BLOCK_N"))), 1, 1};
  }
  void Poison() override {
    for (size_t i = 0; i < c_.size(); ++i)
      c_.set(i, NAN);
  }
  absl::Status Check() const override {
    // f32 accumulation of K products, then one rounding to the output type. The kernel's
    // tl.dot allows tf32 (Triton's default): f32 operands may be rounded to 10 mantissa bits
    // (GPU tensor cores), products off by up to 2^-10 relative, as f16's output rounding.
    double rel = dtype_ == "bf16" ? 1e-2 : 2e-3;
    return checkReferenceRows("C", c_, checked_, n_, want_, [&](double want) {
      return rel * (std::sqrt(double(k_)) + std::fabs(want));
    });
  }

private:
  bool grid2d_;
  int64_t m_, n_, k_;
  std::string dtype_;
  TypedBuffer a_, b_, c_;
  std::vector<int64_t> checked_; ///< the rows of C the reference covers
  std::vector<double> want_;     ///< their values, n_ per row
};

Kernel matmulKernel() {
  Kernel k;
  k.name = "matmul";
  k.source = "kernels/matmul/matmul.py";
  k.entry = "matmul";
  k.dims = {"M", "N", "K"};
  k.cpu.defaultShapes = {{{"M", 256}, {"N", 256}, {"K", 256}}};
  k.cpu.largeShapes = {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, {{"M", 2048}, {"N", 2048}, {"K", 2048}}};
  k.cpu.dtypes = {"f32", "f16", "bf16"};
  k.cpu.space.params = {{"BLOCK_M", {32, 64, 128}}, {"BLOCK_N", {32, 64, 128}},
                    {"BLOCK_K", {16, 32, 64}},  {"GROUP_M", {8}},
                    {"knob.tile_m", {4, 8}},    {"knob.tile_n", {16, 32, 64}}};
  k.cpu.space.constraints.push_back([](const Point &p) {
    return p.at("knob.tile_n") <= p.at("BLOCK_N") && p.at("knob.tile_m") <= p.at("BLOCK_M")
               ? ""
               : "the register tile is larger than the block";
  });
  k.cpu.space.constraints.push_back([](const Point &p) {
    return (p.at("BLOCK_M") + p.at("BLOCK_N")) * p.at("BLOCK_K") * 4 <= 64 * 1024
               ? ""
               : "the A and B tiles exceed 64 KiB";
  });
  // GPUs: tensor-core sizes to 8192, bf16/f16 (and f32 through tf32).
  // The default shape needs masks (not a multiple of the blocks) and keeps the C++ reference
  // quick; the large ones are what GPUs are tuned for.
  k.gpu.defaultShapes = {{{"M", 2000}, {"N", 1500}, {"K", 1000}}};
  k.gpu.largeShapes = {{{"M", 4096}, {"N", 4096}, {"K", 4096}}, {{"M", 8192}, {"N", 8192}, {"K", 8192}}};
  k.gpu.dtypes = {"bf16", "f16", "f32"};
  // f16/bf16 run on tensor cores (warp tiles of 16 x 8 pieces): blocks up to 256 x 256 and K
  // steps to 64, operand tiles loaded num_stages - 1 K steps ahead, the warps' grid over the
  // block tile chosen by the compiler (warp_m 0) or warp_m rows of warps (on warpgroups 4
  // warps a row of them; 2 keeps mma.sync there), one block a program or persistent blocks
  // (one an SM, running programs in turn); what does not fit in shared memory is a compile
  // error of that candidate.
  k.gpu.space.params = {{"BLOCK_M", {32, 64, 128, 256}}, {"BLOCK_N", {32, 64, 128, 256}},
                        {"BLOCK_K", {16, 32, 64}},         {"GROUP_M", {8}},
                        {"knob.num_warps", {4, 8}},        {"knob.num_stages", {1, 2, 3}},
                        {"knob.warp_m", {0, 2, 4, 8}},     {"knob.persistent", {0, 1}}};
  k.gpu.space.constraints.push_back([](const Point &p) {
    // (The rocm space has no warp_m.)
    int64_t rows = p.count("knob.warp_m") ? p.at("knob.warp_m") : 0;
    int64_t warps = p.at("knob.num_warps");
    if (!rows)
      return std::string();
    if (rows > warps)
      return std::string("more rows of warps than warps");
    return p.at("BLOCK_M") % (16 * rows) == 0 && p.at("BLOCK_N") % (8 * (warps / rows)) == 0
               ? std::string()
               : std::string("the block tile does not split into whole 16 x 8 pieces a warp");
  });
  k.signature = [](const std::string &d) {
    std::string p = pointer(d);
    return p + "," + p + "," + p + ",i32,i32,i32,i32,i32,i32";
  };
  k.constexprs = [](const Point &p, const Shape &) {
    return std::map<std::string, std::string>{
        {"BLOCK_M", std::to_string(p.at("BLOCK_M"))}, {"BLOCK_N", std::to_string(p.at("BLOCK_N"))},
        {"BLOCK_K", std::to_string(p.at("BLOCK_K"))}, {"GROUP_M", std::to_string(p.at("GROUP_M"))},
        {"stride_ak", "1"}, {"stride_bn", "1"}, {"stride_cn", "1"}};
  };
  k.flops = [](const Shape &s) { return 2.0 * s.at("M") * s.at("N") * s.at("K"); };
  k.bytes = [](const Shape &s, const std::string &d) {
    return double(elementBytes(d)) *
           (s.at("M") * s.at("K") + s.at("K") * s.at("N") + s.at("M") * s.at("N"));
  };
  k.flopBound = true;
  k.makeProblem = [](const Shape &s, const std::string &d, uint64_t seed) {
    return std::unique_ptr<Problem>(new MatmulProblem(s, d, seed));
  };
  return k;
}


Kernel blockPtrMatmulKernel() {
  Kernel k = matmulKernel();
  k.name = k.entry = "block_ptr_matmul";
  k.cpu.dtypes = {"f16"};
  k.gpu.dtypes = {"f16"};
  k.makeProblem = [](const Shape &s, const std::string &d, uint64_t seed) {
    return std::unique_ptr<Problem>(new MatmulProblem(s, d, seed, /*grid2d=*/true));
  };
  return k;
}


} // namespace

TESSEL_ZOO_KERNELS(matmul) { return {matmulKernel(), blockPtrMatmulKernel()}; }

} // namespace tessel::zoo
