//===- tessel_bench_test.cc - tessel-bench refuses bad command lines clearly -*- C++ -*-===//
//
// Every case here once crashed tessel-bench (an uncaught exception, SIGFPE, heap corruption) or
// was silently accepted; each must be a clear error with exit status 2.
//
//===----------------------------------------------------------------------===//

#include "autotune/Builder.h"
#include "autotune/test/RunCommand.h"

#include "gtest/gtest.h"

namespace {

using namespace tessel;
using tessel::test::RunCommand;

/// The artifact of `kernel` at its first valid CPU configuration, f32.
std::string build(const std::string &kernel, const zoo::Shape &shape, autotune::Point &point) {
  const zoo::Kernel *k = zoo::Find(kernel);
  EXPECT_TRUE(k);
  point = k->cpu.space.Enumerate().front();
  autotune::Builder builder(Target::Host(), std::string(getenv("TEST_TMPDIR")) + "/cache");
  autotune::Built built = builder.Build({k, "f32", shape, point},
                                        autotune::ReadZooSources().at(kernel));
  EXPECT_TRUE(built.artifact.ok()) << built.artifact.status();
  return built.artifact.ok() ? *built.artifact : "";
}

std::string quote(const std::string &s) { return "'" + s + "'"; }

TEST(TesselBench, BadCommandLinesAreClearErrors) {
  autotune::Point rowPoint, matmulPoint;
  std::string rowSum = build("row_sum", {{"rows", 64}, {"cols", 100}}, rowPoint);
  std::string matmul = build("matmul", {{"M", 64}, {"N", 64}, {"K", 64}}, matmulPoint);
  ASSERT_FALSE(rowSum.empty() || matmul.empty());
  const std::string rowArgs = "autotune/tessel-bench --kernel row_sum --shape rows=64,cols=100 "
                              "--min-time 0.001 --flush off --so " + rowSum;
  const std::string matmulArgs = "autotune/tessel-bench --kernel matmul --shape M=64,N=64,K=64 "
                                 "--min-time 0.001 --flush off --so " + matmul;
  std::string out;
  // The valid command measures.
  ASSERT_EQ(RunCommand(rowArgs + " --dtype f32 --config " + quote(autotune::PointJson(rowPoint)),
                       out), 0) << out;
  EXPECT_NE(out.find("\"status\":\"ok\""), std::string::npos) << out;

  autotune::Point zeroBlock = matmulPoint;
  zeroBlock["BLOCK_M"] = 0;
  autotune::Point unknownKey = rowPoint;
  unknownKey["BLOCK_Q"] = 8;
  autotune::Point outside = rowPoint;
  outside["knob.vector_width"] = 3;
  // Valid configurations of the space, but not the ones the artifacts were built with.
  autotune::Point otherKnob = rowPoint;
  otherKnob["knob.vector_width"] = rowPoint.at("knob.vector_width") == 0 ? 64 : 0;
  autotune::Point otherBlock;
  for (const autotune::Point &p : zoo::Find("matmul")->cpu.space.Enumerate())
    if (p.at("BLOCK_M") != matmulPoint.at("BLOCK_M")) {
      otherBlock = p;
      break;
    }
  ASSERT_FALSE(otherBlock.empty());
  const std::string rowConfig = " --config " + quote(autotune::PointJson(rowPoint));
  struct Case {
    std::string what, command, message;
  } cases[] = {
      {"empty config", rowArgs + " --dtype f32 --config '{}'", "lacks"},
      {"zero block", matmulArgs + " --dtype f32 --config " + quote(autotune::PointJson(zeroBlock)),
       "BLOCK_M"},
      {"unknown config key", rowArgs + " --dtype f32 --config " + quote(autotune::PointJson(unknownKey)),
       "BLOCK_Q"},
      {"value outside the space",
       rowArgs + " --dtype f32 --config " + quote(autotune::PointJson(outside)),
       "knob.vector_width"},
      {"dtype the kernel is not tuned in", rowArgs + " --dtype f16" + rowConfig, "f16"},
      {"empty dtype", rowArgs + " --dtype ''" + rowConfig, "dtype"},
      {"artifact of another dtype",
       matmulArgs + " --dtype bf16 --config " + quote(autotune::PointJson(matmulPoint)),
       "signature"},
      {"shape too large to allocate",
       "autotune/tessel-bench --kernel row_sum --shape rows=1073741824,cols=1073741824 "
       "--dtype f32 --so " + rowSum + rowConfig,
       "bytes"},
      {"knob the artifact was not built with",
       rowArgs + " --dtype f32 --config " + quote(autotune::PointJson(otherKnob)),
       "built with knob vector_width"},
      {"block size the artifact was not built with",
       matmulArgs + " --dtype f32 --config " + quote(autotune::PointJson(otherBlock)),
       "built with BLOCK_M"},
      {"unknown flag", rowArgs + " --dtype f32 --bogus 1" + rowConfig, "--bogus"},
      {"non-numeric seed", rowArgs + " --dtype f32 --seed abc" + rowConfig, "--seed"},
      {"non-numeric min-time", rowArgs + " --dtype f32 --min-time fast" + rowConfig, "--min-time"},
      {"negative min-time", rowArgs + " --dtype f32 --min-time -1" + rowConfig, "--min-time"},
      {"flag without value", rowArgs + " --dtype f32" + rowConfig + " --seed", "--seed"},
      {"a dimension given twice",
       "autotune/tessel-bench --kernel row_sum --shape rows=64,cols=100,rows=128 --min-time "
       "0.001 --flush off --so " + rowSum + " --dtype f32" + rowConfig,
       "rows"},
      {"a flag given twice", rowArgs + " --dtype f32 --min-time 0.002" + rowConfig, "--min-time"},
      {"a baseline beside an artifact", rowArgs + " --dtype f32 --baseline on", "--so"},
      {"a baseline beside a configuration",
       "autotune/tessel-bench --kernel row_sum --shape rows=64,cols=100 --dtype f32 "
       "--baseline on" + rowConfig,
       "--config"},
  };
  for (const Case &c : cases) {
    out.clear();
    EXPECT_EQ(RunCommand(c.command, out), 2) << c.what << ": " << out;
    EXPECT_NE(out.find("tessel-bench: "), std::string::npos) << c.what << ": " << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.what << ": " << out;
  }
  // A byte count past int64's range is said as such, never as a wrapped negative number.
  out.clear();
  EXPECT_EQ(RunCommand("autotune/tessel-bench --kernel row_sum --shape "
                       "rows=1073741824,cols=1073741824 --dtype f32 --baseline on",
                       out),
            2)
      << out;
  EXPECT_NE(out.find("more than 2^63 bytes"), std::string::npos) << out;
  EXPECT_EQ(out.find(" -"), std::string::npos) << out;
}

} // namespace
