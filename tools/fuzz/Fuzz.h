//===- Fuzz.h - mutation fuzzing as ordinary tests -*- C++ -*-===//
//
// Every parser a user can feed (Triton-language source, TTIR, .npy, records, manifests,
// configurations, command lines) has a fuzz test: seed inputs plus random mutations of them,
// fed to the parser in a loop for a fixed time. Bad input must give an error; a crash, a hang
// (the test's timeout) or an exception escaping fails the test. Each run draws a fresh seed and
// prints it first (TESSEL_FUZZ_SEED=N repeats a run); the input being tried is written to
// $TEST_UNDECLARED_OUTPUTS_DIR/fuzz-current-input (or the test's temporary directory) before
// it is tried, so a crash leaves it behind. The tests are tagged "external": a cached result
// never stands in for a new run. TESSEL_FUZZ_SECONDS=N runs each longer (a campaign:
// bazel test ... --test_env=TESSEL_FUZZ_SECONDS=600).
//
// A parser's fuzz entry (a function of the input bytes that returns whether they were accepted,
// and one giving its seeds) is shared by the test and the libFuzzer build: TESSEL_FUZZ_ENTRY
// in the entry's file defines LLVMFuzzerTestOneInput when tools/build_fuzzers.sh compiles it
// with clang (-DTESSEL_LIBFUZZER); under gcc it defines nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_FUZZ_FUZZ_H
#define TESSEL_TOOLS_FUZZ_FUZZ_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace tessel::fuzz {

/// What an entry found wrong with input it accepted (a parser's result that does not read back
/// the same): printed, then abort(), which libFuzzer and the test both report as a failure.
inline void Check(bool ok, const char *what) {
  if (ok)
    return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

/// A directory for an entry's files (a parser that reads paths): the test's temporary directory,
/// else one made for this process.
inline const std::string &ScratchDir() {
  static const std::string dir = [] {
    if (const char *t = std::getenv("TEST_TMPDIR"))
      return std::string(t);
    std::string pattern = "/tmp/tessel-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("tessel fuzz: mkdtemp");
      std::abort();
    }
    return pattern;
  }();
  return dir;
}

/// The whole of a file, or "" when it cannot be read.
inline std::string ReadFileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Writes `bytes` to `path` (truncating).
inline void WriteFileBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Tokens worth inserting: numbers at type boundaries, JSON and Python and MLIR punctuation.
inline const std::vector<std::string> &Dictionary() {
  static const std::vector<std::string> words = {
      "0", "-1", "1", "2147483647", "2147483648", "4294967296", "-9223372036854775808",
      "18446744073709551616", "1e308", "1e999", "NaN", "-0.0", "null", "true", "false",
      "\"\"", "[]", "{}", "[[[[", "]]]]", "{\"a\":", "}", ",", ":", "\\", "\\u0000", "'",
      "(", ")", "((((", "))))", "<", ">", "->", "%0", "^bb0", "tt.func", "scf.for", "{{{{",
      "tensor<", "!tt.ptr<", "x", "i1", "f32", "bf16", "def ", "@triton.jit\n", "    ",
      "\n", "\t", "tl.", "tl.arange(0, ", "lambda", "**", "//", "#", "True", "None",
      "\xff\xfe", "\x00"};
  return words;
}

/// One random mutation of `input` (or a splice with `other`): byte flips, insertions of random
/// bytes or dictionary words, deletions, duplications, truncation.
inline std::string Mutate(std::string s, const std::string &other, std::mt19937_64 &rng) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  int steps = 1 + int(rng() % 4);
  for (int k = 0; k < steps; ++k) {
    size_t at = pick(s.size() + 1);
    switch (rng() % 8) {
    case 0: // flip a bit
      if (!s.empty())
        s[pick(s.size())] ^= char(1 << (rng() % 8));
      break;
    case 1: // a random byte
      s.insert(s.begin() + at, char(rng() % 256));
      break;
    case 2:
    case 3: // a dictionary word
      s.insert(at, Dictionary()[pick(Dictionary().size())]);
      break;
    case 4: { // delete a range
      size_t n = 1 + pick(16);
      s.erase(at, n);
      break;
    }
    case 5: { // duplicate a range
      if (s.empty())
        break;
      size_t from = pick(s.size()), n = 1 + pick(std::min<size_t>(64, s.size() - from));
      s.insert(at, s.substr(from, n));
      break;
    }
    case 6: // truncate
      s.resize(at);
      break;
    case 7: { // splice a piece of another input
      if (other.empty())
        break;
      size_t from = pick(other.size()), n = 1 + pick(std::min<size_t>(256, other.size() - from));
      s.insert(at, other.substr(from, n));
      break;
    }
    }
  }
  return s;
}

/// Feeds `target` the seeds, then mutations of them, for `seconds` (at least `minInputs`
/// inputs). Returns how many inputs were tried.
inline int Run(const std::string &name, const std::vector<std::string> &seeds,
               const std::function<void(const std::string &)> &target, double seconds = 8,
               int minInputs = 200) {
  if (const char *longer = std::getenv("TESSEL_FUZZ_SECONDS"))
    seconds = std::strtod(longer, nullptr);
  uint64_t seed = std::random_device{}();
  if (const char *fixed = std::getenv("TESSEL_FUZZ_SEED"))
    seed = std::strtoull(fixed, nullptr, 10);
  std::printf("fuzz %s: seed %llu (TESSEL_FUZZ_SEED=%llu repeats this run)\n", name.c_str(),
              (unsigned long long)seed, (unsigned long long)seed);
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  const char *dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (!dir)
    dir = std::getenv("TEST_TMPDIR");
  std::string current = std::string(dir ? dir : "/tmp") + "/fuzz-current-input";
  auto tryOne = [&](const std::string &input) {
    std::ofstream(current, std::ios::binary | std::ios::trunc) << input;
    target(input);
  };
  for (const std::string &s : seeds)
    tryOne(s);
  auto start = std::chrono::steady_clock::now();
  int tried = int(seeds.size());
  while (tried < minInputs ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds) {
    const std::string &base = seeds[rng() % seeds.size()];
    const std::string &other = seeds[rng() % seeds.size()];
    std::string input = Mutate(base, other, rng);
    // Now and then mutate further from the mutation (deeper changes).
    for (int more = int(rng() % 3); more > 0; --more)
      input = Mutate(input, other, rng);
    tryOne(input);
    ++tried;
  }
  std::printf("fuzz %s: %d inputs, none crashed\n", name.c_str(), tried);
  return tried;
}

/// Runs a fuzz entry (which returns whether it accepted its input) over `seeds`, which it must
/// all accept, and their mutations. Returns how many inputs it accepted.
inline int RunEntry(const std::string &name, const std::vector<std::string> &seeds,
                    bool (*entry)(const std::string &), double seconds = 8, int minInputs = 200) {
  Check(!seeds.empty(), "an entry has no seeds");
  for (const std::string &s : seeds)
    if (!entry(s)) {
      std::fprintf(stderr, "fuzz %s: a seed is refused:\n%s\n", name.c_str(), s.c_str());
      Check(false, "every seed is accepted");
    }
  int accepted = 0;
  Run(name, seeds, [&](const std::string &input) { accepted += entry(input); }, seconds,
      minInputs);
  return accepted;
}

} // namespace tessel::fuzz

/// The libFuzzer entry for `entry` (bool(const std::string &)) with seeds from `seeds`
/// (std::vector<std::string>()): TESSEL_FUZZ_WRITE_SEEDS=DIR makes the binary write them there
/// as a starting corpus and exit (tools/build_fuzzers.sh does).
#ifdef TESSEL_LIBFUZZER
#define TESSEL_FUZZ_ENTRY(entry, seeds)                                                        \
  extern "C" int LLVMFuzzerInitialize(int *, char ***) {                                      \
    if (const char *dir = std::getenv("TESSEL_FUZZ_WRITE_SEEDS")) {                           \
      int k = 0;                                                                               \
      for (const std::string &s : seeds())                                                     \
        tessel::fuzz::WriteFileBytes(std::string(dir) + "/seed" + std::to_string(k++), s);     \
      std::exit(0);                                                                            \
    }                                                                                          \
    return 0;                                                                                  \
  }                                                                                            \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {                   \
    (void)entry(std::string(reinterpret_cast<const char *>(data), size));                      \
    return 0;                                                                                  \
  }
#else
#define TESSEL_FUZZ_ENTRY(entry, seeds)
#endif

#endif // TESSEL_TOOLS_FUZZ_FUZZ_H
