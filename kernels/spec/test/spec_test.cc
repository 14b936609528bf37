//===- spec_test.cc - kernel specs: the examples read per target, and bad specs refused -===//

#include "kernels/spec/Spec.h"
#include "runtime/target/Knobs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <random>

namespace tessel::spec {
namespace {

using ::testing::HasSubstr;

std::string Tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

void Write(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

absl::StatusOr<zoo::Kernel> Load(const std::string &path, const std::string &target = "cpu",
                                 std::vector<std::string> *notes = nullptr) {
  absl::StatusOr<Target> t = ParseTarget(target);
  EXPECT_TRUE(t.ok()) << t.status();
  return LoadSpec(path, *t, KnobNames(t->kind), notes);
}

TEST(Spec, ExampleMatmulReadsItsOwnConfigsPerTarget) {
  const std::string spec = "examples/matmul/matmul.toml";
  std::vector<std::string> notes;
  absl::StatusOr<zoo::Kernel> cpu = Load(spec, "cpu", &notes);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->name, "matmul_kernel");
  EXPECT_EQ(cpu->dispatchDims, (std::vector<std::string>{"M", "N", "K"}));
  // is_cuda() is False on a cpu target: the file's other_configs(), num_warps and num_stages
  // dropped (no such cpu knobs), 4 points.
  std::vector<autotune::Point> points = cpu->cpu.space.Enumerate();
  EXPECT_EQ(points.size(), 4u);
  for (const autotune::Point &p : points) {
    EXPECT_EQ(p.at("BLOCK_K"), 32);
    EXPECT_EQ(p.at("GROUP_M"), 4);
    EXPECT_FALSE(p.count("knob.num_warps"));
  }
  EXPECT_EQ(notes.size(), 2u);
  // On cuda: cuda_configs(), whose num_warps and num_stages are knobs there.
  absl::StatusOr<zoo::Kernel> cuda = Load(spec, "cuda:sm_90a");
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  points = cuda->gpu.space.Enumerate();
  ASSERT_EQ(points.size(), 4u);
  std::set<int64_t> stages;
  for (const autotune::Point &p : points) {
    EXPECT_EQ(p.at("GROUP_M"), 8);
    stages.insert(p.at("knob.num_stages"));
  }
  EXPECT_EQ(stages, (std::set<int64_t>{3, 4}));
  EXPECT_EQ(cuda->gpu.dtypes, (std::vector<std::string>{"f16", "bf16"}));
  // rocm has num_warps but not num_stages.
  absl::StatusOr<zoo::Kernel> rocm = Load(spec, "rocm:gfx942");
  ASSERT_TRUE(rocm.ok()) << rocm.status();
  for (const autotune::Point &p : rocm->gpu.space.Enumerate()) {
    EXPECT_TRUE(p.count("knob.num_warps"));
    EXPECT_FALSE(p.count("knob.num_stages"));
  }
}

TEST(Spec, HeuristicsAppliedPerShape) {
  absl::StatusOr<zoo::Kernel> k = Load("examples/matmul/matmul.toml");
  ASSERT_TRUE(k.ok()) << k.status();
  autotune::Point p = k->cpu.space.Enumerate().front();
  std::mt19937_64 gen(std::random_device{}());
  for (int trial = 0; trial < 20; ++trial) {
    int64_t kk = 1 + int64_t(gen() % 4096);
    zoo::Shape s{{"M", 64}, {"N", 64}, {"K", kk}};
    std::map<std::string, std::string> c = k->constexprs(p, s);
    EXPECT_EQ(c.at("EVEN_K"), kk % p.at("BLOCK_K") == 0 ? "True" : "False") << kk;
    EXPECT_EQ(c.at("stride_ak"), "1"); // baked in, as the spec says
    EXPECT_FALSE(c.count("stride_am"));
  }
  EXPECT_EQ(k->signature("f32"), "*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,i32,i32");
  EXPECT_DOUBLE_EQ(k->flops({{"M", 2}, {"N", 3}, {"K", 5}}), 60);
}

TEST(Spec, ProblemsRunFreshInputsAndCheckAgainstTheReference) {
  absl::StatusOr<zoo::Kernel> k = Load("examples/rms_norm/rms_norm.toml");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->dispatchDims, (std::vector<std::string>{"COLS"}));
  autotune::Point p = k->cpu.space.Enumerate().front();
  zoo::Shape s{{"ROWS", 7}, {"COLS", 300}};
  EXPECT_EQ(k->constexprs(p, s).at("BLOCK"), "512");
  auto problem = k->makeProblem(s, "f32", std::random_device{}());
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_TRUE((*problem)->NeedsReference());
  absl::StatusOr<runtime::Grid> grid = (*problem)->GridFor(p);
  ASSERT_TRUE(grid.ok()) << grid.status();
  EXPECT_EQ(grid->x, 7);
  // No reference yet: nothing to check against.
  EXPECT_FALSE((*problem)->Check().ok());
  // A reference that left its output poisoned cannot check anything.
  (*problem)->Poison();
  EXPECT_THAT(std::string((*problem)->KeepAsReference().message()), HasSubstr("unwritten"));
}

struct Case {
  std::string name, kernel, spec;
  const char *error;
};

/// `s` with the first `from` replaced by `to` (which must be there).
std::string Replace(std::string s, const std::string &from, const std::string &to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

const char *const kKernel = R"(import triton
import triton.language as tl

@triton.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) + 1, mask=i < n)
)";

// A spec for kKernel with `extra` lines; %s are replaced.
std::string AddSpec(const std::string &args, const std::string &rest) {
  return "source = \"k.py\"\nkernel = \"add\"\ndims = [\"N\"]\ngrid = \"(cdiv(N, BLOCK),)\"\n" +
         rest + "\n[args]\n" + args +
         "\n[space.cpu]\nBLOCK = [64, 128]\n[shapes.cpu]\ndefault = { N = 1000 }\n";
}

TEST(Spec, BadSpecsAreClearErrorsWithTheirPlace) {
  const std::string okArgs = "x_ptr = \"f32[N]\"\ny_ptr = { tensor = \"f32[N]\", role = \"out\" }\nn = \"N\"\n";
  const std::string full = AddSpec(okArgs, "");
  const std::string header = "source = \"k.py\"\nkernel = \"add\"\ndims = [\"N\"]\n";
  const std::vector<Case> cases = {
      {"unknown key", kKernel, "gird = \"(1,)\"\n", "s.toml:1:1: error: unknown key 'gird'"},
      {"missing argument", kKernel,
       AddSpec("x_ptr = \"f32[N]\"\ny_ptr = { tensor = \"f32[N]\", role = \"out\" }\n", ""),
       "the kernel's argument 'n' (k.py:5:23)"},
      {"argument the kernel lacks", kKernel, AddSpec(okArgs + "m = \"N\"\n", ""),
       "s.toml:10:1: error: 'm' is not an argument of add (k.py:5:5; it takes x_ptr, y_ptr, n, BLOCK)"},
      {"tensor for a constexpr", kKernel,
       header + "grid = \"(1,)\"\n[args]\nBLOCK = \"f32[N]\"\n",
       "s.toml:6:9: error: 'BLOCK' is a tl.constexpr parameter (k.py:5:26), not a tensor"},
      {"unknown dtype", kKernel, AddSpec("x_ptr = { tensor = \"f8[N]\" }\n", ""),
       "s.toml:7:20: error: unknown dtype 'f8'"},
      {"well formed", kKernel, full, nullptr},
      {"grid does not parse", kKernel, header + "grid = \"(cdiv(N, BLOCK),\"\n[args]\n",
       "s.toml:4:"},
      {"grid names an unknown dim", kKernel, Replace(full, "cdiv(N, BLOCK)", "cdiv(M, BLOCK)"),
       "s.toml:4:15: error: name 'M' is not defined"},
      {"shape beyond memory", kKernel,
       Replace(Replace(full, "N = 1000", "N = 1073741824"), "x_ptr = \"f32[N]\"",
               "x_ptr = \"f64[N, N]\""),
       "more than 2^40 elements"},
      {"space parameter that is nothing", kKernel,
       Replace(full, "BLOCK = [64, 128]", "BLOCK = [64]\nTILE = [1]"),
       "space parameter 'TILE' is neither"},
      {"not toml", kKernel, "source = \n", "s.toml:1:"},
      {"no such entry", kKernel, Replace(full, "kernel = \"add\"", "kernel = \"sub\""),
       "no @triton.jit function 'sub' at the top level of"},
      {"divisible broken", kKernel,
       Replace(full, "n = \"N\"", "n = { value = \"N + 1\", divisible = 16 }"),
       "promises divisible by 16"},
      {"init on an output", kKernel,
       Replace(full, "role = \"out\"", "role = \"out\", init = \"ones\""),
       "an output's values are poisoned"},
      {"no shapes", kKernel,
       header + "grid = \"(1,)\"\n[args]\nx_ptr = \"f32[N]\"\ny_ptr = \"f32[N]\"\nn = \"N\"\n"
                "[space.cpu]\nBLOCK = [64]\n",
       "no default shapes for cpu"},
      {"missing source file", kKernel, Replace(full, "\"k.py\"", "\"nope.py\""),
       "s.toml:1:10: error:"},
  };
  for (const Case &c : cases) {
    std::string dir = Tmp("case_" + std::to_string(&c - cases.data()));
    std::filesystem::create_directories(dir);
    Write(dir + "/k.py", c.kernel);
    Write(dir + "/s.toml", c.spec);
    absl::StatusOr<zoo::Kernel> k = Load(dir + "/s.toml");
    if (!c.error) {
      EXPECT_TRUE(k.ok()) << c.name << ": " << k.status();
      continue;
    }
    ASSERT_FALSE(k.ok()) << c.name << " was accepted";
    std::string message(k.status().message());
    // Paths are the test's: compare from the file name on.
    for (const char *file : {"s.toml", "k.py"})
      for (size_t at; (at = message.find(dir + "/" + file)) != std::string::npos;)
        message.replace(at, dir.size() + 1, "");
    EXPECT_THAT(message, HasSubstr(c.error)) << c.name;
  }
}

TEST(Spec, HostCodeTheConfigsNeedIsEvaluatedAndOnlyThat) {
  std::string dir = Tmp("host");
  std::filesystem::create_directories(dir);
  Write(dir + "/k.py", R"(import triton
import triton.language as tl
import torch
import numpy as np   # host code's business: never evaluated

DEVICE = torch.device("cuda")   # not evaluated either

def configs():
    major, minor = torch.cuda.get_device_capability()
    stages = 4 if major >= 9 else 2
    return [triton.Config({'BLOCK': b}, num_warps=w, num_stages=stages)
            for b in (64, 128) for w in (4, 8) if b * w <= 512]

@triton.autotune(configs=configs(), key=['n'])
@triton.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pass
)");
  const std::string args =
      "x_ptr = \"f32[N]\"\ny_ptr = { tensor = \"f32[N]\", role = \"out\" }\nn = \"N\"\n";
  const std::string noSpace = Replace(AddSpec(args, ""), "[space.cpu]\nBLOCK = [64, 128]\n", "");
  Write(dir + "/s.toml", Replace(noSpace, "[shapes.cpu]", "[shapes.gpu]"));
  absl::StatusOr<zoo::Kernel> k = Load(dir + "/s.toml", "cuda:sm_90a");
  ASSERT_TRUE(k.ok()) << k.status();
  std::vector<autotune::Point> points = k->gpu.space.Enumerate();
  ASSERT_EQ(points.size(), 3u); // (64,4) (64,8) (128,4)
  for (const autotune::Point &p : points)
    EXPECT_EQ(p.at("knob.num_stages"), 4); // sm_90a: capability (9, 0)
  absl::StatusOr<zoo::Kernel> old = Load(dir + "/s.toml", "cuda:sm_80");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->gpu.space.Enumerate().front().at("knob.num_stages"), 2);
  // On a cpu target, torch.cuda.get_device_capability() has no answer: an error at its place.
  Write(dir + "/s.toml", noSpace);
  absl::StatusOr<zoo::Kernel> cpu = Load(dir + "/s.toml", "cpu");
  ASSERT_FALSE(cpu.ok());
  EXPECT_THAT(std::string(cpu.status().message()), HasSubstr("k.py:9:20: error: torch.cuda.get_device_capability() has no answer for a cpu target"));
}

} // namespace
} // namespace tessel::spec
