//===- zoo_test.cc - every zoo kernel compiles from .py and passes its own reference check -*- C++ -*-===//
//
// For each kernel, dtype and default shape, the first configuration of its space (and the
// last) is compiled from the Triton-language source and run on fresh random inputs; the check
// against the C++ reference passes, and fails when the outputs are left poisoned.
//
//===----------------------------------------------------------------------===//

#include "kernels/Zoo.h"
#include "autotune/Builder.h"
#include "runtime/Module.h"

#include "gtest/gtest.h"

#include <fstream>
#include <random>
#include <sstream>

namespace {

using namespace tessel;

TEST(Zoo, EveryKernelMatchesItsReference) {
  absl::StatusOr<std::unique_ptr<runtime::Device>> device = runtime::Device::Create("cpu");
  const std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  autotune::Builder builder(Target(), std::string(getenv("TEST_TMPDIR")) + "/cache");
  ASSERT_TRUE(device.ok()) << device.status();
  // The zoo is its specs (kernels/<folder>/*.toml) with their C++ references: all of them load.
  ASSERT_TRUE(zoo::ZooStatus().ok()) << zoo::ZooStatus();
  ASSERT_EQ(zoo::Kernels().size(), 10u);
  uint64_t seed = std::random_device{}();
  std::printf("random seed %llu\n", (unsigned long long)seed);
  int runs = 0;
  for (const zoo::Kernel &k : zoo::Kernels()) {
    std::vector<autotune::Point> points = k.cpu.space.Enumerate();
    ASSERT_FALSE(points.empty()) << k.name;
    for (const std::string &dtype : k.cpu.dtypes) {
      for (const autotune::Point &config : {points.front(), points.back()}) {
        const zoo::Shape &shape = k.cpu.defaultShapes.front();
        SCOPED_TRACE(k.name + " " + dtype + " " + zoo::ShapeText(shape));
        // Compiled by the autotuner's builder, as the sweep compiles candidates.
        autotune::Built built = builder.Build({&k, dtype, shape, config}, sources.at(k.name));
        absl::StatusOr<std::string> so = built.artifact;
        ASSERT_TRUE(so.ok()) << so.status();
        auto module = (*device)->Load(*so);
        ASSERT_TRUE(module.ok()) << module.status();
        auto kernel = (*module)->GetKernel(k.entry);
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        std::string sig;
        for (const auto &t : kernel->signature())
          sig += (sig.empty() ? "" : ",") + t.str();
        EXPECT_EQ(sig, zoo::RuntimeSignature(k.signature(dtype)));
        auto made = k.makeProblem(shape, dtype, seed + runs);
        ASSERT_TRUE(made.ok()) << made.status();
        auto problem = *std::move(made);
        problem->Poison();
        EXPECT_FALSE(problem->Check().ok()) << "a poisoned output must fail the check";
        // RunAndCheck poisons the outputs again, uploads, launches, downloads and checks.
        absl::Status check = problem->RunAndCheck(**device, *kernel, config);
        EXPECT_TRUE(check.ok()) << check;
        EXPECT_GT(k.flops(shape), 0);
        EXPECT_GT(k.bytes(shape, dtype), 0);
        ++runs;
      }
    }
  }
  EXPECT_GE(runs, 10);
}

TEST(Zoo, Shapes) {
  const zoo::Kernel *mm = zoo::Find("matmul");
  ASSERT_TRUE(mm);
  auto s = zoo::ParseShape(*mm, "M=128,N=64,K=32");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(zoo::ShapeText(*s), "K=32,M=128,N=64");
  for (const char *bad : {"M=128,N=64", "M=1,N=2,K=3,Z=4", "M=-1,N=2,K=3", "M=x,N=1,K=1", "",
                          "M=256,M=512,N=1,K=1", "M=,N=1,K=1"})
    EXPECT_FALSE(zoo::ParseShape(*mm, bad).ok()) << bad;
  EXPECT_EQ(zoo::Find("nope"), nullptr);
  // Every shape of every kernel survives the text form the sweep hands tessel-bench
  // (attention's CAUSAL=0 included).
  for (const zoo::Kernel &k : zoo::Kernels())
    for (const auto *shapes : {&k.cpu.defaultShapes, &k.cpu.largeShapes, &k.gpu.defaultShapes, &k.gpu.largeShapes})
      for (const zoo::Shape &shape : *shapes) {
        auto back = zoo::ParseShape(k, zoo::ShapeText(shape));
        ASSERT_TRUE(back.ok()) << k.name << " " << zoo::ShapeText(shape) << ": " << back.status();
        EXPECT_EQ(*back, shape);
      }
}

} // namespace
