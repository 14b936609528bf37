//===- cli_fuzz_test.cc - tessel-run and tessel-bench on mutated command lines -*- C++ -*-===//
//
// Valid command lines and their mutations (tools/fuzz/Fuzz.h; arguments are the seed's lines,
// so mutations also split, join and drop them): every run exits with a status (0, 1 or 2),
// never a signal, within its time limit.
//
//===----------------------------------------------------------------------===//

#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

namespace {

std::string tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

/// Runs `program` with the lines of `args` as its arguments (output discarded); returns the
/// wait status, or -1 when it ran past `seconds` (and was killed).
int runArgs(const std::string &program, const std::string &args, double seconds = 20) {
  std::vector<std::string> argv = {program};
  std::stringstream s(args);
  for (std::string line; std::getline(s, line);)
    argv.push_back(line);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    std::vector<char *> raw;
    for (std::string &a : argv)
      raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(program.c_str(), raw.data());
    _exit(127);
  }
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return status;
}

void expectCleanExit(const std::string &tool, const std::string &args) {
  int status = runArgs(tool, args);
  ASSERT_NE(status, -1) << tool << " hung on:\n" << args;
  ASSERT_FALSE(WIFSIGNALED(status)) << tool << " died of signal " << WTERMSIG(status) << " on:\n"
                                    << args;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 2)
      << tool << " exited with " << WEXITSTATUS(status) << " on:\n" << args;
}

TEST(Fuzz, CommandLines) {
  setenv("OPENBLAS_CORETYPE", "Haswell", 1); // no re-exec in tessel-bench
  // A kernel to run: the corpus's vector add.
  std::string so = tmp("vadd.so");
  ASSERT_EQ(runArgs("tools/tessel-compile",
                    "compiler/dialect/triton/test/triton_printed/vadd_block128.ttir\n--entry\n"
                    "vadd\n--emit\nso\n-o\n" + so),
            0);
  std::string npy = tmp("x.npy");
  {
    // 8 float32 ones as a .npy file.
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += char(header.size() & 0xff);
    file += char(header.size() >> 8);
    file += header;
    float one = 1;
    for (int i = 0; i < 8; ++i)
      file.append(reinterpret_cast<const char *>(&one), 4);
    FILE *f = fopen(npy.c_str(), "wb");
    ASSERT_TRUE(f);
    fwrite(file.data(), 1, file.size(), f);
    fclose(f);
  }
  std::string runSeed = so + "\n--entry\nvadd\n--grid\n1\n--arg\nin:" + npy + "\n--arg\nin:" +
                        npy + "\n--arg\nout:8:f32\n--arg\nscalar:i32:8\n--out-dir\n" +
                        tmp("out") + "\n--threads\n2";
  mkdir(tmp("out").c_str(), 0755);
  ASSERT_EQ(runArgs("tools/tessel-run", runSeed), 0);
  tessel::fuzz::Run(
      "tessel-run", {runSeed},
      [](const std::string &args) { expectCleanExit("tools/tessel-run", args); }, 8, 50);

  std::string benchSeed = "--kernel\nrow_sum\n--shape\nrows=64,cols=100\n--dtype\nf32\n--so\n" +
                          so + "\n--config\n{\"knob.prefetch\":0,\"knob.vector_width\":0}\n"
                          "--min-time\n0.001\n--flush\noff\n--seed\n7";
  std::string baselineSeed = "--kernel\nrow_sum\n--shape\nrows=64,cols=100\n--dtype\nf32\n"
                             "--baseline\non\n--min-time\n0.001\n--flush\noff";
  tessel::fuzz::Run(
      "tessel-bench", {benchSeed, baselineSeed},
      [](const std::string &args) { expectCleanExit("autotune/tessel-bench", args); }, 8, 50);
}

} // namespace
