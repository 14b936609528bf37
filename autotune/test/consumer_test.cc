//===- consumer_test.cc - the example application on a bundle built from the .py kernels -*- C++ -*-===//
//
// Compiles the matmul (f32, 64x64x32 blocks) and softmax (1024-wide rows) kernels from their
// Triton-language sources, writes them as a bundle, and runs runtime/examples/bundle_consumer
// on it: it must find the nearest tuned shapes, run them on its own data and check them. Then
// the same bundle with a tampered artifact must be refused by the consumer.
//
//===----------------------------------------------------------------------===//

#include "autotune/BundleWriter.h"
#include "autotune/test/RunCommand.h"
#include "kernels/Zoo.h"
#include "compiler/pipeline/Compiler.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace {

std::string read(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string compile(const std::string &source, const std::string &entry,
                    std::map<std::string, std::string> constexprs, const std::string &signature,
                    const std::string &out) {
  tessel::frontend::KernelSpec spec;
  spec.constexprs = std::move(constexprs);
  spec.signature = tessel::frontend::SplitSignature(signature);
  tessel::CompileOptions options;
  options.entry = entry;
  options.outputPath = out;
  auto so = tessel::compilePython(read(source), source, spec, options);
  EXPECT_TRUE(so.ok()) << so.status();
  return out;
}

int runConsumer(const std::string &bundle, std::string &output) {
  return tessel::test::RunCommand("runtime/examples/bundle_consumer " + bundle, output);
}

TEST(Consumer, RunsMatmulAndSoftmaxFromABundle) {
  std::string tmp = getenv("TEST_TMPDIR");
  std::string matmul = compile("kernels/matmul/matmul.py", "matmul",
                               {{"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"BLOCK_K", "32"},
                                {"GROUP_M", "8"}, {"stride_ak", "1"}, {"stride_bn", "1"},
                                {"stride_cn", "1"}},
                               "*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,i32,i32",
                               tmp + "/matmul.so");
  std::string softmax = compile("kernels/softmax/softmax.py", "softmax", {{"BLOCK", "1024"}},
                                "*fp32:16,*fp32:16,i32,i32,i32", tmp + "/softmax.so");
  auto entry = [](const std::string &kernel, const std::string &sig, const std::string &sym,
                  std::map<std::string, int64_t> shape, const std::string &so,
                  const std::string &config) {
    tessel::autotune::TunedEntry e;
    e.kernel = kernel;
    e.signature = sig;
    e.entry = sym;
    e.dtype = "f32";
    e.shape = std::move(shape);
    e.artifact = so;
    e.configJson = config;
    // The zoo kernel's launch contract, as a sweep writes it.
    e.launchJson = tessel::zoo::Find(kernel)->launchJson;
    return e;
  };
  const std::string mmSig = "ptr:f32,ptr:f32,ptr:f32,i32,i32,i32,i32,i32,i32";
  const std::string mmConfig = R"({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8})";
  std::string dir = tmp + "/bundle";
  tessel::Target host = tessel::Target::Host();
  host.features = {"sse2"};
  ASSERT_TRUE(tessel::autotune::WriteBundle(
                  dir, host, "tessel test",
                  {entry("matmul", mmSig, "matmul", {{"M", 256}, {"N", 256}, {"K", 256}},
                         matmul, mmConfig),
                   entry("matmul", mmSig, "matmul", {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                         matmul, mmConfig),
                   entry("softmax", "ptr:f32,ptr:f32,i32,i32,i32", "softmax",
                         {{"rows", 4096}, {"cols", 1000}}, softmax, R"({"BLOCK": 1024})")})
                  .ok());
  std::string output;
  EXPECT_EQ(runConsumer(dir, output), 0) << output;
  EXPECT_NE(output.find("matmul: nearest tuned shape K=256,M=256,N=256 for K=120,M=200,N=150"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("matmul: correct"), std::string::npos) << output;
  EXPECT_NE(output.find("softmax: correct"), std::string::npos) << output;

  // A tampered artifact: the consumer refuses the bundle.
  std::string artifacts = dir + "/artifacts";
  std::string victim;
  FILE *ls = popen(("ls " + artifacts).c_str(), "r");
  char buf[256];
  if (ls && fgets(buf, sizeof buf, ls))
    victim = artifacts + "/" + std::string(buf).substr(0, std::string(buf).find('\n'));
  if (ls)
    pclose(ls);
  ASSERT_FALSE(victim.empty());
  std::string bytes = read(victim);
  bytes[bytes.size() / 3] ^= 1;
  std::ofstream(victim, std::ios::binary) << bytes;
  output.clear();
  EXPECT_EQ(runConsumer(dir, output), 1) << output;
  EXPECT_NE(output.find("does not match its checksum"), std::string::npos) << output;
}

} // namespace
