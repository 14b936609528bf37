//===- tessel_run_test.cc - tessel-run on .npy files, and its errors -*- C++ -*-===//

#include "runtime/Npy.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace {

using tessel::runtime::NpyArray;

std::string tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

NpyArray floats(const std::vector<float> &v) {
  NpyArray a;
  a.dtype = "f32";
  a.shape = {int64_t(v.size())};
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

/// Runs `tool` with `args`; returns its exit code and fills `output` with stdout+stderr.
int runTool(const std::string &tool, const std::string &args, std::string &output) {
  std::string log = tmp("run.log");
  std::string cmd = tool + " " + args + " > " + log + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  output = ss.str();
  return WEXITSTATUS(rc);
}

/// The vector-add kernel compiled by tessel-compile, once per test process.
const std::string &vaddSo() {
  static const std::string path = [] {
    std::string out, so = tmp("vadd.so");
    int rc = runTool("tools/tessel-compile",
                     "compiler/dialect/triton/test/triton_printed/vadd_block128.ttir "
                     "--entry vadd --emit so -o " + so,
                     out);
    EXPECT_EQ(rc, 0) << out;
    return so;
  }();
  return path;
}

int run(const std::string &args, std::string &output) {
  return runTool("tools/tessel-run", args, output);
}

TEST(TesselRun, VectorAddOnNpyFiles) {
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10, 10);
  const int n = 300;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = dist(gen), y[i] = dist(gen);
  ASSERT_TRUE(tessel::runtime::WriteNpy(tmp("x.npy"), floats(x)).ok());
  ASSERT_TRUE(tessel::runtime::WriteNpy(tmp("y.npy"), floats(y)).ok());
  std::string out;
  int rc = run(vaddSo() + " --entry vadd --grid 3 --arg in:" + tmp("x.npy") +
                   " --arg in:" + tmp("y.npy") + " --arg out:300:f32 --arg scalar:i32:300" +
                   " --out-dir " + std::string(getenv("TEST_TMPDIR")),
               out);
  ASSERT_EQ(rc, 0) << out;
  auto result = tessel::runtime::ReadNpy(tmp("arg2.npy"));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->shape, std::vector<int64_t>{n});
  const float *got = reinterpret_cast<const float *>(result->data.data());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(got[i], x[i] + y[i]) << i;
}

TEST(TesselRun, ClearErrors) {
  ASSERT_TRUE(tessel::runtime::WriteNpy(tmp("v.npy"), floats(std::vector<float>(8, 1))).ok());
  NpyArray ints;
  ints.dtype = "i32";
  ints.shape = {8};
  ints.data.assign(32, 0);
  ASSERT_TRUE(tessel::runtime::WriteNpy(tmp("ints.npy"), ints).ok());
  std::ofstream(tmp("junk.npy")) << "not numpy";
  struct Case {
    std::string args, message;
  } cases[] = {
      {vaddSo() + " --entry vadd --grid 1 --arg in:" + tmp("v.npy"),
       "kernel 'vadd' takes 4 arguments, got 1 --arg"},
      {vaddSo() + " --entry vadd --grid 1 --arg in:" + tmp("ints.npy") +
           " --arg in:x --arg out:8:f32 --arg scalar:i32:8",
       "the array holds i32"},
      {vaddSo() + " --entry vadd --grid 1 --arg in:" + tmp("junk.npy") +
           " --arg in:x --arg out:8:f32 --arg scalar:i32:8",
       "not a valid .npy file"},
      {vaddSo() + " --entry vadd --grid 1 --arg in:/missing.npy --arg in:x "
       "--arg out:8:f32 --arg scalar:i32:8",
       "cannot open /missing.npy"},
      {vaddSo() + " --entry vadd --grid 1 --arg in:" + tmp("v.npy") + " --arg in:" +
           tmp("v.npy") + " --arg out:8:f32 --arg scalar:f32:8",
       "the scalar is f32"},
      {vaddSo() + " --entry vadd --grid 0 --arg in:x", "bad --grid '0'"},
      {vaddSo() + " --entry nope --grid 1", "no kernel 'nope'"},
      {"/missing.so --entry vadd --grid 1", "cannot open /missing.so"},
  };
  for (const Case &c : cases) {
    std::string out;
    EXPECT_EQ(run(c.args, out), 1) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << "expected '" << c.message << "' in:\n"
                                                       << out;
  }
}

} // namespace
