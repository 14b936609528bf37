//===- artifact_symbols_test.cc - CPU artifacts need nothing a fresh machine lacks -*- C++ -*-===//
//
// Every zoo kernel in every CPU dtype, and every kernel of the CPU end-to-end test (the TTIR
// corpus), is compiled for LLVM CPUs from the x86-64 baseline to Sapphire Rapids. Each shared
// object's undefined symbols must be libc's or libm's (the only libraries a kernel may count
// on): anything else, such as a compiler-rt call (__truncsfbf2 for an f32 -> bf16 conversion on
// a CPU without AVX512-BF16), fails with its name, the kernel and the CPU. The artifacts built
// for a CPU this machine can execute are also loaded, and the zoo's are run and checked against
// their C++ references on fresh random inputs with poisoned outputs.
//
//===----------------------------------------------------------------------===//

#include "autotune/Builder.h"
#include "compiler/backend/cpu/test/HalfFloats.h"
#include "compiler/backend/cpu/test/TestRandom.h"
#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/frontend/test/CorpusSpecs.h"
#include "compiler/pipeline/Compiler.h"
#include "kernels/Zoo.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

namespace {

using namespace tessel;

/// The CPUs every artifact is built for: the x86-64 baseline (no F16C, no AVX), AVX2 (what
/// x86-64-v3 and Zen 3 have, no AVX-512), AVX-512 without BF16, and AVX-512 with BF16 and FP16.
const std::vector<std::string> kCpus = {"x86-64", "x86-64-v3", "znver3", "skylake-avx512",
                                        "sapphirerapids"};

/// What an artifact may import: libc's and libm's functions, which every Linux process has.
/// The runtime calls into the artifact, never the other way round.
bool allowed(const std::string &symbol) {
  static const std::set<std::string> kAllowed = {
      // libc: memory, printing (tl.device_print), aborting (tl.device_assert).
      "memcpy", "memmove", "memset", "malloc", "free", "aligned_alloc", "posix_memalign",
      "printf", "fprintf", "fflush", "puts", "putchar", "abort", "stderr", "stdout",
      "__assert_fail",
      // libm.
      "expf", "exp", "exp2f", "exp2", "expm1f", "expm1", "logf", "log", "log2f", "log2",
      "log10f", "log10", "log1pf", "log1p", "powf", "pow", "sqrtf", "sqrt", "cbrtf", "cbrt",
      "sinf", "sin", "cosf", "cos", "tanf", "tan", "asinf", "asin", "acosf", "acos", "atanf",
      "atan", "atan2f", "atan2", "sinhf", "sinh", "coshf", "cosh", "tanhf", "tanh", "asinhf",
      "asinh", "acoshf", "acosh", "atanhf", "atanh", "erff", "erf", "erfcf", "erfc", "fmodf",
      "fmod", "floorf", "floor", "ceilf", "ceil", "roundf", "round", "roundevenf",
      "roundeven", "truncf", "trunc", "rintf", "rint", "nearbyintf", "nearbyint", "fmaf",
      "fma", "fminf", "fmin", "fmaxf", "fmax", "ldexpf", "ldexp", "frexpf", "frexp",
      "copysignf", "copysign", "fabsf", "fabs", "sincosf", "sincos"};
  return kAllowed.count(symbol) > 0;
}

/// The shared object's undefined dynamic symbols (what the loader must find elsewhere).
std::vector<std::string> undefinedSymbols(const std::string &path) {
  std::vector<std::string> names;
  auto binary = llvm::object::ObjectFile::createObjectFile(path);
  if (!binary) {
    ADD_FAILURE() << path << ": " << llvm::toString(binary.takeError());
    return names;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(binary->getBinary());
  if (!elf) {
    ADD_FAILURE() << path << ": not an ELF file";
    return names;
  }
  for (const llvm::object::ELFSymbolRef &symbol : elf->getDynamicSymbolIterators()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!flags || !name) {
      ADD_FAILURE() << path << ": unreadable symbol";
      if (!flags)
        llvm::consumeError(flags.takeError());
      if (!name)
        llvm::consumeError(name.takeError());
      continue;
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) && !name->empty())
      names.push_back(name->str());
  }
  return names;
}

/// Whether this machine has every feature code built for `cpu` may use (AMD's SSE4a, which
/// the backend does not record, included).
bool hostExecutes(const std::string &cpu) {
  const std::vector<std::string> host = Target::Host().features;
  CpuTarget target;
  target.cpu = cpu;
  std::vector<std::string> needed = cpuinfoFeatures(target);
  if (cpuTargetHasFeature(target, "sse4a"))
    needed.push_back("sse4a");
  for (const std::string &feature : needed)
    if (std::find(host.begin(), host.end(), feature) == host.end())
      return false;
  return true;
}

Target cpuTarget(const std::string &cpu) {
  Target target;
  target.kind = TargetKind::Cpu;
  target.cpu = cpu;
  return target;
}

std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The symbols of `so` that are not allowed, as "name, name".
std::string disallowed(const std::string &so) {
  std::string bad;
  for (const std::string &symbol : undefinedSymbols(so))
    if (!allowed(symbol))
      bad += (bad.empty() ? "" : ", ") + symbol;
  return bad;
}

class ArtifactSymbols : public ::testing::TestWithParam<std::string> {};

TEST_P(ArtifactSymbols, ZooKernelsImportOnlyLibcAndLibm) {
  const std::string cpu = GetParam();
  const bool run = hostExecutes(cpu);
  std::printf("%s: %s\n", cpu.c_str(),
              run ? "this machine executes it: kernels run" : "symbols only");
  autotune::Builder builder(cpuTarget(cpu), std::string(getenv("TEST_TMPDIR")) + "/" + cpu);
  const std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  absl::StatusOr<std::unique_ptr<runtime::Device>> device = runtime::Device::Create("cpu");
  ASSERT_TRUE(device.ok()) << device.status();
  uint64_t seed = std::random_device{}();
  std::printf("random seed %llu\n", (unsigned long long)seed);
  int built = 0;
  for (const zoo::Kernel &k : zoo::Kernels()) {
    std::vector<autotune::Point> points = k.cpu.space.Enumerate();
    ASSERT_FALSE(points.empty()) << k.name;
    for (const std::string &dtype : k.cpu.dtypes) {
      const zoo::Shape &shape = k.cpu.defaultShapes.front();
      const autotune::Point &config = points.front();
      SCOPED_TRACE(k.name + " " + dtype + " for " + cpu);
      autotune::Built b = builder.Build({&k, dtype, shape, config}, sources.at(k.name));
      ASSERT_TRUE(b.artifact.ok()) << b.artifact.status();
      ++built;
      std::string bad = disallowed(*b.artifact);
      EXPECT_TRUE(bad.empty()) << k.name << " " << dtype << " built for " << cpu
                               << " imports " << bad;
      if (!run || !bad.empty())
        continue;
      auto module = (*device)->Load(*b.artifact);
      ASSERT_TRUE(module.ok()) << module.status();
      auto kernel = (*module)->GetKernel(k.entry);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      auto made = k.makeProblem(shape, dtype, seed + built);
      ASSERT_TRUE(made.ok()) << made.status();
      auto problem = *std::move(made);
      absl::Status check = problem->RunAndCheck(**device, *kernel, config);
      EXPECT_TRUE(check.ok()) << check;
    }
  }
  EXPECT_GE(built, 10);
}

/// The kernel a Triton-printed TTIR file defines: its first public function.
std::string publicFunction(const std::string &ttir) {
  const std::string marker = "tt.func public @";
  std::istringstream lines(ttir);
  for (std::string line; std::getline(lines, line);) {
    size_t at = line.find(marker);
    if (line.rfind("//", 0) == 0 || at == std::string::npos)
      continue;
    size_t begin = at + marker.size(), end = begin;
    while (end < line.size() && (std::isalnum((unsigned char)line[end]) || line[end] == '_'))
      ++end;
    return line.substr(begin, end - begin);
  }
  return "";
}

TEST_P(ArtifactSymbols, EndToEndTestKernelsImportOnlyLibcAndLibm) {
  const std::string cpu = GetParam();
  const bool load = hostExecutes(cpu);
  int built = 0;
  // Each kernel as Triton printed it and from its Triton-language source, as the end-to-end
  // test compiles it.
  for (const test::CorpusSpec &spec : test::corpusSpecs()) {
    std::string path = spec.dump.find('/') != std::string::npos
                           ? spec.dump
                           : "compiler/dialect/triton/test/triton_printed/" + spec.dump +
                                 ".ttir";
    for (bool fromPython : {false, true}) {
      SCOPED_TRACE(spec.dump + (fromPython ? " (.py)" : " (TTIR)") + " for " + cpu);
      CompileOptions options;
      options.target = cpuTarget(cpu);
      options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/" + cpu + "_" +
                           std::to_string(built) + ".so";
      absl::StatusOr<std::string> so;
      if (fromPython) {
        frontend::KernelSpec kernel;
        kernel.constexprs = spec.constexprs;
        kernel.signature = frontend::SplitSignature(spec.signature);
        options.entry = spec.entry;
        std::string source = readText(spec.source);
        ASSERT_FALSE(source.empty()) << "missing " << spec.source;
        so = compilePython(source, spec.source, kernel, options);
      } else {
        std::string text = readText(path);
        ASSERT_FALSE(text.empty()) << "missing " << path;
        options.entry = publicFunction(text);
        so = compileTTIR(text, path, options);
      }
      ASSERT_TRUE(so.ok()) << so.status();
      ++built;
      std::string bad = disallowed(*so);
      EXPECT_TRUE(bad.empty()) << spec.dump << " built for " << cpu << " imports " << bad;
      if (load && bad.empty()) {
        // The loader resolves every symbol at once: a missing one fails here.
        auto module = runtime::Module::Open(*so);
        EXPECT_TRUE(module.ok()) << module.status();
      }
    }
  }
  EXPECT_GE(built, 20);
}

/// Conversions to 16-bit floats (expanded into integer arithmetic where the CPU has no
/// instruction for them) on the values where rounding is hard, and on random bits.
constexpr const char *kConversions = R"(
import triton
import triton.language as tl


@triton.jit
def conversions(x_ptr, d_ptr, h_ptr, bf_ptr, hx_ptr, hd_ptr, wide_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(bf_ptr + offs, x.to(tl.bfloat16), mask=m)
    tl.store(hx_ptr + offs, x.to(tl.float16), mask=m)
    tl.store(hd_ptr + offs, tl.load(d_ptr + offs, mask=m).to(tl.float16), mask=m)
    tl.store(wide_ptr + offs, tl.load(h_ptr + offs, mask=m).to(tl.float32), mask=m)
)";

uint16_t halfBits(_Float16 h) {
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

bool isNaN16(uint16_t bits, int mantissa) {
  uint16_t exp = uint16_t(((1u << (15 - mantissa)) - 1) << mantissa);
  return (bits & exp) == exp && (bits & ((1u << mantissa) - 1)) != 0;
}

TEST_P(ArtifactSymbols, SixteenBitConversionsRoundAsIEEE) {
  const std::string cpu = GetParam();
  if (!hostExecutes(cpu))
    GTEST_SKIP() << "this machine cannot execute code built for " << cpu;
  // Special values: zeros, infinities, NaNs, the largest finite values, the f16 overflow
  // threshold (65520 rounds to infinity, just below it to 65504), ties to even in the normal
  // and subnormal ranges, f32 subnormals, values below f16's smallest subnormal; then random
  // bit patterns.
  std::vector<float> x = {0.f, -0.f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX,
                          65504.f, 65519.99f, 65520.f, 65536.f, 1.f + 0x1p-11f,
                          1.f + 3 * 0x1p-11f, 1.f + 0x1p-8f, 1.f + 3 * 0x1p-8f, 0x1p-24f,
                          0x1p-25f, 3 * 0x1p-25f, 0x1.8p-24f, 0x1p-14f, 0x1.ffcp-15f,
                          FLT_MIN, 0x1p-149f, 0x1.fffffep-127f, 3.3895314e38f};
  std::vector<uint16_t> h(x.size());
  std::mt19937 &gen = test::rng();
  while (x.size() < 4096) {
    uint32_t bits = gen();
    float f;
    std::memcpy(&f, &bits, 4);
    x.push_back(f);
  }
  const size_t n = x.size();
  std::vector<double> d(n);
  h.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // The f32 values with low bits beyond f32's mantissa, and random doubles from f16's
    // subnormals to beyond its largest value.
    d[i] = std::isfinite(x[i]) ? double(x[i]) * (1 + 0x1p-40) : double(x[i]);
    if (i % 2)
      d[i] = std::ldexp(double(gen()) / 4294967296.0 + 1.0, int(gen() % 50) - 30) *
             (gen() % 2 ? 1 : -1);
    h[i] = uint16_t(gen());
  }
  std::vector<uint16_t> bf(n, 0xffff), hx(n, 0xffff), hd(n, 0xffff);
  std::vector<float> wide(n, NAN);

  frontend::KernelSpec spec;
  spec.constexprs = {{"BLOCK", "256"}};
  spec.signature = frontend::SplitSignature("*fp32,*fp64,*fp16,*bf16,*fp16,*fp16,*fp32,i32");
  CompileOptions options;
  options.entry = "conversions";
  options.target = cpuTarget(cpu);
  options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/conversions_" + cpu + ".so";
  absl::StatusOr<std::string> so = compilePython(kConversions, "conversions.py", spec, options);
  ASSERT_TRUE(so.ok()) << so.status();
  EXPECT_EQ(disallowed(*so), "");
  auto module = runtime::Module::Open(*so);
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = (*module)->GetKernel("conversions");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  runtime::ThreadPool pool(1);
  ASSERT_TRUE(runtime::Launch(*kernel, {int((n + 255) / 256), 1, 1},
                              {x.data(), d.data(), h.data(), bf.data(), hx.data(), hd.data(),
                               wide.data(), int(n)},
                              pool)
                  .ok());
  CpuTarget target;
  target.cpu = cpu;
  const bool hardwareBf16 = cpuTargetHasFeature(target, "avx512bf16");
  int failures = 0;
  for (size_t i = 0; i < n && failures < 10; ++i) {
    uint32_t xb;
    std::memcpy(&xb, &x[i], 4);
    auto report = [&](const char *what, uint32_t got, uint32_t want) {
      ++failures;
      ADD_FAILURE() << what << " of element " << i << " (f32 bits 0x" << std::hex << xb
                    << ", f64 " << std::hexfloat << d[i] << ", f16 bits 0x" << h[i]
                    << "): got 0x" << got << ", want 0x" << want;
    };
    // bf16 and f16 from f32: exact bits; a NaN is any NaN. AVX512-BF16's conversion reads an
    // f32 subnormal as zero (of its sign): allowed where the CPU converts in hardware.
    uint16_t wantBf = test::toBf16(x[i]), wantHx = halfBits(_Float16(x[i]));
    bool flushed = hardwareBf16 && std::fpclassify(x[i]) == FP_SUBNORMAL &&
                   bf[i] == uint16_t((xb >> 16) & 0x8000);
    if (std::isnan(x[i]) ? !isNaN16(bf[i], 7) : bf[i] != wantBf && !flushed)
      report("bf16(f32)", bf[i], wantBf);
    if (std::isnan(x[i]) ? !isNaN16(hx[i], 10) : hx[i] != wantHx)
      report("f16(f32)", hx[i], wantHx);
    uint16_t wantHd = halfBits(_Float16(d[i]));
    if (std::isnan(d[i]) ? !isNaN16(hd[i], 10) : hd[i] != wantHd)
      report("f16(f64)", hd[i], wantHd);
    // f32 from f16: exact.
    float want = test::fromHalf(h[i]);
    uint32_t gotBits, wantBits;
    std::memcpy(&gotBits, &wide[i], 4);
    std::memcpy(&wantBits, &want, 4);
    if (std::isnan(want) ? !std::isnan(wide[i]) : gotBits != wantBits)
      report("f32(f16)", gotBits, wantBits);
  }
  EXPECT_EQ(failures, 0);
}

// The allow-list itself: a compiler-rt conversion is not on it, libm's exp is.
TEST(ArtifactSymbolsAllowList, RefusesCompilerRuntimeCalls) {
  EXPECT_FALSE(allowed("__truncsfbf2"));
  EXPECT_FALSE(allowed("__extendhfsf2"));
  EXPECT_FALSE(allowed("__truncdfhf2"));
  EXPECT_TRUE(allowed("expf"));
}

INSTANTIATE_TEST_SUITE_P(Cpus, ArtifactSymbols, ::testing::ValuesIn(kCpus),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

} // namespace
