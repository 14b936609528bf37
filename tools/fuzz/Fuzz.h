//===- Fuzz.h - mutation fuzzing as ordinary tests -*- C++ -*-===//
//
// Every parser a user can feed (Triton-language source, TTIR, .npy, records, manifests,
// configurations, command lines) has a fuzz test: seed inputs plus random mutations of them,
// fed to the parser in a loop for a fixed time. Bad input must give an error; a crash, a hang
// (the test's timeout) or an exception escaping fails the test. Each run draws a fresh seed and
// prints it first (TESSEL_FUZZ_SEED=N repeats a run); the input being tried is written to
// $TEST_UNDECLARED_OUTPUTS_DIR/fuzz-current-input (or the test's temporary directory) before
// it is tried, so a crash leaves it behind. The tests are tagged "external": a cached result
// never stands in for a new run.
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

namespace tessel::fuzz {

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

} // namespace tessel::fuzz

#endif // TESSEL_TOOLS_FUZZ_FUZZ_H
