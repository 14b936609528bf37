//===- bundle_consumer.cc - an application using a tuned bundle through the runtime only -*- C++ -*-===//
//
// bundle_consumer BUNDLE_DIR
//
// Opens a bundle (verified: schema, target, checksums), picks the matmul and softmax entries
// tuned for its own problem sizes (or the nearest tuned ones, and says which), runs them on its
// own random data and checks the results against straightforward C++. Links only the runtime:
// no compiler, no LLVM. Exit status 0 when both results are right.
//
//===----------------------------------------------------------------------===//

#include "runtime/Bundle.h"
#include "runtime/Device.h"

#include "nlohmann/json.hpp"

#include <cmath>
#include <cstdio>
#include <random>

using tessel::runtime::Bundle;
using tessel::runtime::BundleChoice;
using tessel::runtime::Device;
using tessel::runtime::Grid;

namespace {

int64_t configValue(const BundleChoice &c, const char *name) {
  nlohmann::json config = nlohmann::json::parse(c.entry->configJson, nullptr, false);
  if (config.is_discarded() || !config.contains(name) || !config[name].is_number_integer())
    return 0;
  return config[name].get<int64_t>();
}

/// `host` copied into a new buffer on `device` (null, with the error printed, on failure).
std::unique_ptr<tessel::runtime::Buffer> onDevice(Device &device, const std::vector<float> &host) {
  auto buffer = device.Allocate(host.size() * sizeof(float));
  absl::Status s = buffer.ok() ? (*buffer)->CopyFromHost(host.data(), host.size() * sizeof(float))
                               : buffer.status();
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return nullptr;
  }
  return *std::move(buffer);
}

/// Launches `kernel`, waits for it and copies `result` back into `host`.
bool launch(Device &device, const tessel::runtime::Kernel &kernel, Grid grid,
            const std::vector<tessel::runtime::Arg> &args, tessel::runtime::Buffer &result,
            std::vector<float> &host, const char *what) {
  absl::Status s = device.Launch(kernel, grid, args);
  if (s.ok())
    s = device.Synchronize();
  if (s.ok())
    s = result.CopyToHost(host.data(), host.size() * sizeof(float));
  if (!s.ok())
    std::fprintf(stderr, "%s: %s\n", what, std::string(s.message()).c_str());
  return s.ok();
}

std::vector<float> randomFloats(size_t n, std::mt19937 &gen) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(gen);
  return v;
}

bool runMatmul(const Bundle &bundle, Device &device, std::mt19937 &gen) {
  const int M = 200, N = 150, K = 120;
  auto choice = bundle.Find("matmul", {{"M", M}, {"N", N}, {"K", K}}, "f32");
  if (!choice.ok()) {
    std::fprintf(stderr, "matmul: %s\n", std::string(choice.status().message()).c_str());
    return false;
  }
  std::printf("matmul %dx%dx%d: %s\n", M, N, K, choice->explanation.c_str());
  auto module = bundle.Load(*choice->entry, device);
  if (!module.ok()) {
    std::fprintf(stderr, "matmul: %s\n", std::string(module.status().message()).c_str());
    return false;
  }
  auto kernel = (*module)->GetKernel(choice->entry->entry);
  int64_t bm = configValue(*choice, "BLOCK_M"), bn = configValue(*choice, "BLOCK_N");
  if (!kernel.ok() || bm <= 0 || bn <= 0) {
    std::fprintf(stderr, "matmul: the entry lacks a kernel or its block sizes\n");
    return false;
  }
  std::vector<float> a = randomFloats(size_t(M) * K, gen), b = randomFloats(size_t(K) * N, gen);
  std::vector<float> c(size_t(M) * N, NAN);
  Grid grid{int32_t(((M + bm - 1) / bm) * ((N + bn - 1) / bn)), 1, 1};
  auto da = onDevice(device, a), db = onDevice(device, b), dc = onDevice(device, c);
  if (!da || !db || !dc ||
      !launch(device, *kernel, grid, {da->data(), db->data(), dc->data(), M, N, K, K, N, N}, *dc,
              c, "matmul"))
    return false;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k)
        want += double(a[i * K + k]) * b[k * N + j];
      if (!(std::fabs(c[i * N + j] - want) <= 1e-4 * (1 + std::fabs(want)))) {
        std::fprintf(stderr, "matmul: c[%d][%d] = %g, expected %g\n", i, j, c[i * N + j], want);
        return false;
      }
    }
  std::printf("matmul: correct\n");
  return true;
}

bool runSoftmax(const Bundle &bundle, Device &device, std::mt19937 &gen) {
  const int rows = 37, cols = 700;
  auto choice = bundle.Find("softmax", {{"rows", rows}, {"cols", cols}}, "f32");
  if (!choice.ok()) {
    std::fprintf(stderr, "softmax: %s\n", std::string(choice.status().message()).c_str());
    return false;
  }
  std::printf("softmax %dx%d: %s\n", rows, cols, choice->explanation.c_str());
  auto module = bundle.Load(*choice->entry, device);
  if (!module.ok()) {
    std::fprintf(stderr, "softmax: %s\n", std::string(module.status().message()).c_str());
    return false;
  }
  auto kernel = (*module)->GetKernel(choice->entry->entry);
  if (!kernel.ok() || configValue(*choice, "BLOCK") < cols) {
    std::fprintf(stderr, "softmax: the entry's block does not cover %d columns\n", cols);
    return false;
  }
  std::vector<float> in = randomFloats(size_t(rows) * cols, gen), out(in.size(), NAN);
  auto din = onDevice(device, in), dout = onDevice(device, out);
  if (!din || !dout ||
      !launch(device, *kernel, Grid{rows, 1, 1}, {dout->data(), din->data(), cols, cols, cols},
              *dout, out, "softmax"))
    return false;
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      mx = std::max(mx, double(in[r * cols + c]));
    for (int c = 0; c < cols; ++c)
      sum += std::exp(in[r * cols + c] - mx);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(in[r * cols + c] - mx) / sum;
      if (!(std::fabs(out[r * cols + c] - want) <= 1e-5 * (1 + want))) {
        std::fprintf(stderr, "softmax: out[%d][%d] = %g, expected %g\n", r, c, out[r * cols + c], want);
        return false;
      }
    }
  }
  std::printf("softmax: correct\n");
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BUNDLE_DIR\n", argv[0]);
    return 2;
  }
  auto bundle = Bundle::Open(argv[1]);
  if (!bundle.ok()) {
    std::fprintf(stderr, "%s\n", std::string(bundle.status().message()).c_str());
    return 1;
  }
  std::printf("bundle %s (%s, %zu entries)\n", argv[1], (*bundle)->compilerVersion().c_str(),
              (*bundle)->entries().size());
  // The device the bundle's target runs on (cpu for a CPU bundle).
  auto device = Device::Create((*bundle)->target().deviceKind());
  if (!device.ok()) {
    std::fprintf(stderr, "%s\n", std::string(device.status().message()).c_str());
    return 1;
  }
  std::mt19937 gen(std::random_device{}());
  bool ok = runMatmul(**bundle, **device, gen);
  ok = runSoftmax(**bundle, **device, gen) && ok;
  return ok ? 0 : 1;
}
