//===- tessel_run_test.cc - tessel-run on .npy files, and its errors -*- C++ -*-===//

#include "runtime/Npy.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

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


/// A .npy file with `header` (the dict) and `data` as its payload, written by hand.
void writeRawNpy(const std::string &path, std::string header, const std::string &data) {
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {char(header.size() & 0xff), char(header.size() >> 8)};
  out.write(len, 2);
  out << header << data;
}

TEST(TesselRun, HostileInputsAreRefused) {
  std::string v = tmp("v8.npy");
  ASSERT_TRUE(tessel::runtime::WriteNpy(v, floats(std::vector<float>(8, 1))).ok());
  // A shape whose element count overflows 64 bits to 8 elements (32 bytes of data follow).
  writeRawNpy(tmp("overflow.npy"),
              "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387906, 4), }",
              std::string(32, '\0'));
  // A string value that spells another dtype before the real, object, one.
  writeRawNpy(tmp("hidden.npy"),
              "{'note': \"'descr': '<f4', \", 'descr': '|O', 'fortran_order': False, "
              "'shape': (8,), }",
              std::string(32, '\0'));
  const std::string args = vaddSo() + " --entry vadd --grid 1 ";
  struct Case {
    std::string what, args, message;
  } cases[] = {
      {"overflowing shape",
       args + "--arg in:" + tmp("overflow.npy") + " --arg in:" + v +
           " --arg out:8:f32 --arg scalar:i32:8",
       "too large"},
      {"dtype hidden in a string",
       args + "--arg in:" + tmp("hidden.npy") + " --arg in:" + v +
           " --arg out:8:f32 --arg scalar:i32:8",
       "not a valid .npy file"},
      {"scalar out of its dtype's range",
       args + "--arg in:" + v + " --arg in:" + v + " --arg out:8:f32 --arg scalar:i32:4294968296",
       "does not fit i32"},
      {"too many threads",
       args + "--threads 100000 --arg in:" + v + " --arg in:" + v +
           " --arg out:8:f32 --arg scalar:i32:8",
       "--threads"},
      {"grid beyond the launch ABI",
       vaddSo() + " --entry vadd --grid 65536,65536 --arg in:" + v + " --arg in:" + v +
           " --arg out:8:f32 --arg scalar:i32:8",
       "2147483647"},
  };
  for (const Case &c : cases) {
    std::string out;
    EXPECT_EQ(run(c.args, out), 1) << c.what << ": " << c.args << "\n" << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.what << ": expected '" << c.message
                                                       << "' in:\n" << out;
  }
  // --help says what cannot be checked.
  std::string help;
  EXPECT_EQ(run("--help", help), 0);
  EXPECT_NE(help.find("cannot check"), std::string::npos) << help;
}

TEST(TesselRun, BuffersSmallerThanTheKernelReadsAreAnError) {
  // 8-element buffers with an element count the kernel believes: it reads and writes past
  // their ends, a little (the next page) or far (other programs, megabytes away). Either is a
  // clear error naming the argument, never a crash or a silently wrong result.
  std::string v = tmp("v8c.npy");
  ASSERT_TRUE(tessel::runtime::WriteNpy(v, floats(std::vector<float>(8, 1))).ok());
  struct Case {
    std::string grid, count, message;
  } cases[] = {
      {"1", "1000", ", past the end of its 32 bytes"},
      {"4000", "512000", "outside its buffers"},
  };
  for (const Case &c : cases) {
    for (const char *threads : {"1", "2"}) {
      std::string out;
      EXPECT_EQ(run(vaddSo() + " --entry vadd --grid " + c.grid + " --threads " + threads +
                        " --arg in:" + v + " --arg in:" + v +
                        " --arg out:8:f32 --arg scalar:i32:" + c.count + " --out-dir " +
                        std::string(getenv("TEST_TMPDIR")),
                    out),
                1)
          << c.count << " elements:\n" << out;
      EXPECT_NE(out.find(c.message), std::string::npos) << out;
      EXPECT_NE(out.find("outside its buffers"), std::string::npos) << out;
    }
  }
}

TEST(TesselRun, OutputsNeverFollowAPlantedLink) {
  // Someone who can write to the output directory plants links where tessel-run writes: the
  // files they point to must stay untouched.
  std::string dir = tmp("planted");
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::string victim = tmp("victim.txt");
  std::ofstream(victim) << "precious";
  std::string v = tmp("v8b.npy");
  ASSERT_TRUE(tessel::runtime::WriteNpy(v, floats(std::vector<float>(8, 1))).ok());
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/arg2.npy.tmp").c_str()), 0);
  std::string out;
  ASSERT_EQ(run(vaddSo() + " --entry vadd --grid 1 --arg in:" + v + " --arg in:" + v +
                    " --arg out:8:f32 --arg scalar:i32:8 --out-dir " + dir,
                out),
            0)
      << out;
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "precious");
  auto result = tessel::runtime::ReadNpy(dir + "/arg2.npy");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->elements(), 8);
}

TEST(TesselRun, OutDirIsMadeOrRefusedBeforeTheRun) {
  // A missing --out-dir is made (its last level); a file, or a missing parent, is a clear
  // error before the kernel runs.
  std::string v = tmp("v8c.npy"), dir = tmp("made-by-tessel-run");
  ASSERT_TRUE(tessel::runtime::WriteNpy(v, floats(std::vector<float>(8, 2))).ok());
  std::string args = vaddSo() + " --entry vadd --grid 1 --arg in:" + v + " --arg in:" + v +
                     " --arg out:8:f32 --arg scalar:i32:8 --out-dir ";
  std::string out;
  ASSERT_EQ(run(args + dir, out), 0) << out;
  auto result = tessel::runtime::ReadNpy(dir + "/arg2.npy");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(reinterpret_cast<const float *>(result->data.data())[7], 4.0f);
  std::ofstream(tmp("a-file")) << "x";
  out.clear();
  EXPECT_EQ(run(args + tmp("a-file"), out), 1);
  EXPECT_NE(out.find("is not a directory"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run(args + tmp("no-parent/child"), out), 1);
  EXPECT_NE(out.find("cannot create --out-dir"), std::string::npos) << out;
}

TEST(TesselRun, AFifoInputIsRefusedNotWaitedOn) {
  // Opening a FIFO for reading blocks until a writer comes. Under a timeout, so that a
  // tessel-run that waits fails the test rather than hanging it.
  std::string v = tmp("v-fifo.npy"), fifo = tmp("input.fifo");
  ASSERT_TRUE(tessel::runtime::WriteNpy(v, floats(std::vector<float>(8, 1))).ok());
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string out;
  EXPECT_EQ(runTool("timeout 10 tools/tessel-run",
                    vaddSo() + " --entry vadd --grid 1 --arg in:" + fifo + " --arg in:" + v +
                        " --arg out:8:f32 --arg scalar:i32:8",
                    out),
            1)
      << out;
  EXPECT_NE(out.find(fifo + " is not a regular file"), std::string::npos) << out;
}

} // namespace
