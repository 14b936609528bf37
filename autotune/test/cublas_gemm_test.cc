//===- cublas_gemm_test.cc - the cuBLAS baseline's errors without a GPU -*- C++ -*-===//
//
// The GEMM itself runs on the GPU host (tessel-bench --baseline on --device cuda); here, what a
// machine without cuBLAS, or with the wrong library named, is told.

#include "autotune/CublasGemm.h"

#include "gtest/gtest.h"

#include <cstdlib>

namespace {

TEST(CublasGemm, AMissingLibraryIsAClearError) {
  setenv("TESSEL_CUBLAS", "/nonexistent/libcublas.so.13", 1);
  auto gemm = tessel::autotune::CublasGemm::Open();
  unsetenv("TESSEL_CUBLAS");
  ASSERT_FALSE(gemm.ok());
  EXPECT_EQ(gemm.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(gemm.status().message().find("/nonexistent/libcublas.so.13"), std::string::npos);
  EXPECT_NE(gemm.status().message().find("TESSEL_CUBLAS"), std::string::npos);
}

TEST(CublasGemm, ALibraryWithoutTheGemmIsRefused) {
  setenv("TESSEL_CUBLAS", "libm.so.6", 1);
  auto gemm = tessel::autotune::CublasGemm::Open();
  unsetenv("TESSEL_CUBLAS");
  ASSERT_FALSE(gemm.ok());
  EXPECT_NE(gemm.status().message().find("lacks cublasCreate_v2"), std::string::npos)
      << gemm.status();
}

} // namespace
