//===- CublasGemm.h - cuBLAS's GEMM, the GPU baseline of GEMM-like kernels -------*- C++ -*-===//
//
// tessel-bench times a GPU candidate whose baseline is a GEMM next to cuBLAS on the same device. cuBLAS is
// opened with dlopen (the runner stays free of the CUDA toolkit at build time, and a host
// without it gets a clear error only when it asks for this baseline).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_CUBLASGEMM_H
#define TESSEL_AUTOTUNE_CUBLASGEMM_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tessel::autotune {

/// C = A B of row-major matrices in a cuda device's memory (A: m x k, B: k x n, C: m x n), in
/// f32, f16 or bf16 with f32 accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F; with `tf32`, f32
/// inputs on tensor cores as TF32). Uses the CUDA primary context and the default stream, as
/// the cuda device does, so the device's timing events bracket it.
class CublasGemm {
public:
  /// Opens libcublas: $TESSEL_CUBLAS if set, else libcublas.so.13, .so.12 and libcublas.so on
  /// the library path, then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64.
  static absl::StatusOr<std::unique_ptr<CublasGemm>> Open();
  ~CublasGemm();

  absl::Status Run(const std::string &dtype, bool tf32, int64_t m, int64_t n, int64_t k,
                   const void *a, const void *b, void *c);
  /// The library opened and its version, for records.
  const std::string &library() const { return library_; }

private:
  CublasGemm() = default;
  struct Api;
  std::unique_ptr<Api> api_;
  void *handle_ = nullptr;
  std::string library_;
};

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_CUBLASGEMM_H
