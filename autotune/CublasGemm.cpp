//===- CublasGemm.cpp - cuBLAS's GEMM through dlopen -----------------*- C++ -*-===//

#include "autotune/CublasGemm.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <vector>

namespace tessel::autotune {
namespace {

// cuBLAS's and CUDA's constants (cublas_api.h, library_types.h), which the build may not have.
constexpr int kOpN = 0;
constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;
constexpr int kCompute32F = 68, kCompute32FFastTf32 = 77;
constexpr int kGemmDefault = -1;

} // namespace

struct CublasGemm::Api {
  void *library = nullptr;
  int (*create)(void **) = nullptr;
  int (*destroy)(void *) = nullptr;
  int (*getVersion)(void *, int *) = nullptr;
  int (*gemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                const void *, int, int, const void *, void *, int, int, int, int) = nullptr;
};

absl::StatusOr<std::unique_ptr<CublasGemm>> CublasGemm::Open() {
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("TESSEL_CUBLAS"); path && *path) {
    candidates.push_back(path);
  } else {
    for (const char *name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
      candidates.push_back(name);
    std::vector<std::string> roots;
    if (const char *home = std::getenv("CUDA_HOME"); home && *home)
      roots.push_back(home);
    roots.push_back("/usr/local/cuda");
    for (const std::string &root : roots)
      for (const char *name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
        candidates.push_back(root + "/lib64/" + name);
  }
  std::unique_ptr<CublasGemm> gemm(new CublasGemm());
  gemm->api_ = std::make_unique<Api>();
  Api &api = *gemm->api_;
  std::string tried;
  for (const std::string &c : candidates) {
    api.library = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.library) {
      gemm->library_ = c;
      break;
    }
    tried += (tried.empty() ? "" : ", ") + c;
  }
  if (!api.library)
    return absl::NotFoundError("cuBLAS not found (tried " + tried +
                               "; set TESSEL_CUBLAS to the library's path)");
  auto resolve = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api.library, name));
    return fn != nullptr;
  };
  if (!resolve(api.create, "cublasCreate_v2") || !resolve(api.destroy, "cublasDestroy_v2") ||
      !resolve(api.getVersion, "cublasGetVersion_v2") || !resolve(api.gemmEx, "cublasGemmEx"))
    return absl::NotFoundError(gemm->library_ + " lacks cublasCreate_v2, cublasDestroy_v2, "
                                                "cublasGetVersion_v2 or cublasGemmEx");
  if (int s = api.create(&gemm->handle_); s != 0)
    return absl::InternalError("cublasCreate failed with status " + std::to_string(s));
  int version = 0;
  if (api.getVersion(gemm->handle_, &version) == 0)
    gemm->library_ += " (version " + std::to_string(version) + ")";
  return gemm;
}

CublasGemm::~CublasGemm() {
  if (api_ && handle_)
    api_->destroy(handle_);
  // The library stays loaded: the CUDA runtime inside it may have registered exit handlers.
}

absl::Status CublasGemm::Run(const std::string &dtype, bool tf32, int64_t m, int64_t n,
                             int64_t k, const void *a, const void *b, void *c) {
  int type = dtype == "f32" ? kR32F : dtype == "f16" ? kR16F : dtype == "bf16" ? kR16BF : -1;
  if (type < 0)
    return absl::InvalidArgumentError("cuBLAS baseline: no GEMM for dtype '" + dtype + "'");
  if (m <= 0 || n <= 0 || k <= 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return absl::InvalidArgumentError("cuBLAS baseline: sizes out of range");
  float alpha = 1.f, beta = 0.f;
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's (n x m) = (n x k)(k x m).
  int s = api_->gemmEx(handle_, kOpN, kOpN, int(n), int(m), int(k), &alpha, b, type, int(n), a,
                       type, int(k), &beta, c, type, int(n),
                       tf32 && type == kR32F ? kCompute32FFastTf32 : kCompute32F, kGemmDefault);
  if (s != 0)
    return absl::InternalError("cublasGemmEx failed with status " + std::to_string(s));
  return absl::OkStatus();
}

} // namespace tessel::autotune
