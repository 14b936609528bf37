//===- cuda_headers_test.cc - the detected CUDA toolkit is usable -*- C++ -*-===//
//
// Built only where the CUDA toolkit was detected (skipped with a note otherwise): checks the
// headers the CUDA device will compile against are the ones found, and new enough.

#include <cuda.h>

#include "gtest/gtest.h"

TEST(CudaToolkit, DriverApiHeadersAreUsable) {
  // The CUDA device uses the driver API from CUDA 12 on (cuLaunchKernelEx, cuModuleLoadData).
  EXPECT_GE(CUDA_VERSION, 12000) << "CUDA toolkit too old: " << CUDA_VERSION;
  CUdevice_attribute attr = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
  EXPECT_EQ(static_cast<int>(attr), 16);
}
