//===- bundle_consumer.cc - an application using a tuned bundle through the runtime only -*- C++ -*-===//
//
// bundle_consumer BUNDLE_DIR
//
// Opens a bundle (verified: schema, target, checksums) and runs its matmul and softmax on its own
// random data through runtime::Launcher: tensors by argument name, and the bundle's launch
// contract picks the entry (tuned for these sizes or the nearest, and says which), computes the
// scalars and the grid. No per-kernel grid or argument code here. Checks the results against
// straightforward C++. Links only the runtime: no compiler, no LLVM. Exit status 0 when both
// results are right.
//
//===----------------------------------------------------------------------===//

#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/Launcher.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <random>

using tessel::runtime::Bundle;
using tessel::runtime::Device;
using tessel::runtime::Launcher;
using tessel::runtime::TensorArg;

namespace {

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

/// Launches `kernel` on `tensors` through the bundle's launch contract (no grid or argument
/// code here), waits and copies `result` back into `host`.
bool launch(Launcher &launcher, Device &device, const std::string &kernel,
            const std::map<std::string, TensorArg> &tensors, tessel::runtime::Buffer &result,
            std::vector<float> &host) {
  tessel::runtime::LaunchRequest request;
  request.tensors = tensors;
  absl::StatusOr<tessel::runtime::LaunchReport> report = launcher.Launch(kernel, request);
  absl::Status s = report.ok() ? device.Synchronize() : report.status();
  if (s.ok())
    s = result.CopyToHost(host.data(), host.size() * sizeof(float));
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", kernel.c_str(), std::string(s.message()).c_str());
    return false;
  }
  std::printf("%s: %s, grid %d\n", kernel.c_str(), report->choice.explanation.c_str(),
              report->grid.x * report->grid.y * report->grid.z);
  return true;
}

std::vector<float> randomFloats(size_t n, std::mt19937 &gen) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(gen);
  return v;
}

bool runMatmul(Launcher &launcher, Device &device, std::mt19937 &gen) {
  const int64_t M = 200, N = 150, K = 120;
  std::vector<float> a = randomFloats(size_t(M) * K, gen), b = randomFloats(size_t(K) * N, gen);
  std::vector<float> c(size_t(M) * N, NAN);
  auto da = onDevice(device, a), db = onDevice(device, b), dc = onDevice(device, c);
  if (!da || !db || !dc ||
      !launch(launcher, device, "matmul",
              {{"a_ptr", {da->data(), "f32", {M, K}, {}}},
               {"b_ptr", {db->data(), "f32", {K, N}, {}}},
               {"c_ptr", {dc->data(), "f32", {M, N}, {}}}},
              *dc, c))
    return false;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k)
        want += double(a[i * K + k]) * b[k * N + j];
      // tl.dot's default precision allows tf32 on GPUs (10-bit mantissas), as the zoo's
      // reference does: products off by 2^-10 relative, summed over K.
      if (!(std::fabs(c[i * N + j] - want) <= 2e-3 * (std::sqrt(double(K)) + std::fabs(want)))) {
        std::fprintf(stderr, "matmul: c[%lld][%lld] = %g, expected %g\n", (long long)i,
                     (long long)j, c[i * N + j], want);
        return false;
      }
    }
  std::printf("matmul: correct\n");
  return true;
}

bool runSoftmax(Launcher &launcher, Device &device, std::mt19937 &gen) {
  const int64_t rows = 37, cols = 700;
  std::vector<float> in = randomFloats(size_t(rows) * cols, gen), out(in.size(), NAN);
  auto din = onDevice(device, in), dout = onDevice(device, out);
  if (!din || !dout ||
      !launch(launcher, device, "softmax",
              {{"in_ptr", {din->data(), "f32", {rows, cols}, {}}},
               {"out_ptr", {dout->data(), "f32", {rows, cols}, {}}}},
              *dout, out))
    return false;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, double(in[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(in[r * cols + c] - mx);
    for (int64_t c = 0; c < cols; ++c) {
      double want = std::exp(in[r * cols + c] - mx) / sum;
      if (!(std::fabs(out[r * cols + c] - want) <= 1e-5 * (1 + want))) {
        std::fprintf(stderr, "softmax: out[%lld][%lld] = %g, expected %g\n", (long long)r,
                     (long long)c, out[r * cols + c], want);
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
  Launcher launcher(**bundle, **device);
  bool ok = runMatmul(launcher, **device, gen);
  ok = runSoftmax(launcher, **device, gen) && ok;
  return ok ? 0 : 1;
}
