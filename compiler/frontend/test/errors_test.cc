//===- errors_test.cc - the frontend's error messages, exactly -*- C++ -*-===//
//
// Each case is a small kernel with one mistake; the test checks the whole message: the
// file:line:col prefix, the text, the source line and the caret.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/CodeGen.h"
#include "compiler/frontend/Parser.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>

namespace {

using namespace tessel::frontend;

const char *kHeader = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n";

/// Compiles `body` (placed after the header; its first line is line 6) as kernel `k` with
/// the given signature and returns the error message ("" on success).
std::string errorOf(const std::string &body, const std::string &signature = "*fp32,i32",
                    std::map<std::string, std::string> constexprs = {}) {
  SourceFile file("k.py", kHeader + body);
  absl::StatusOr<Module> module = Parse(file);
  if (!module.ok())
    return std::string(module.status().message());
  mlir::MLIRContext context;
  KernelSpec spec;
  spec.entry = "k";
  spec.signature = SplitSignature(signature);
  spec.constexprs = std::move(constexprs);
  auto generated = GenerateKernel(context, file, *module, spec);
  if (!generated.ok())
    return std::string(generated.status().message());
  return "";
}

struct Case {
  const char *name;
  std::string body;
  std::string expected;
  std::string signature = "*fp32,i32";
};

class Errors : public ::testing::TestWithParam<Case> {};

TEST_P(Errors, ExactMessage) {
  const Case &c = GetParam();
  EXPECT_EQ(errorOf(c.body, c.signature), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Frontend, Errors,
    ::testing::Values(
        Case{"UndefinedName", "def k(p, n):\n    x = y + 1\n",
             "k.py:7:9: error: name 'y' is not defined\n    x = y + 1\n        ^"},
        Case{"Break", "def k(p, n):\n    for i in range(n):\n        break\n",
             "k.py:8:9: error: 'break' is not supported inside a kernel function\n        break\n"
             "        ^"},
        Case{"Lambda", "def k(p, n):\n    f = lambda x: x\n",
             "k.py:7:9: error: 'lambda' is not supported: define a @triton.jit function\n"
             "    f = lambda x: x\n        ^"},
        Case{"UnclosedParen", "def k(p, n):\n    x = (n + 1\n",
             "k.py:7:9: error: '(' was never closed\n    x = (n + 1\n        ^"},
        Case{"BadIndent", "def k(p, n):\n    x = 1\n      y = 2\n",
             "k.py:8:7: error: unexpected indent\n      y = 2\n      ^"},
        Case{"TensorIndex", "def k(p, n):\n    x = tl.arange(0, 16)\n    y = x[3]\n",
             "k.py:8:11: error: tensors can be indexed only with None and ':' (use tl.reshape, "
             "tl.split or a mask for anything else)\n    y = x[3]\n          ^"},
        Case{"ArangeNotPowerOfTwo", "def k(p, n):\n    x = tl.arange(0, 10)\n",
             "k.py:7:9: error: arange's range must be a positive power of two, got 10\n"
             "    x = tl.arange(0, 10)\n        ^"},
        Case{"BroadcastMismatch",
             "def k(p, n):\n    x = tl.arange(0, 16) + tl.arange(0, 32)\n",
             "k.py:7:26: error: shapes are incompatible for broadcasting: dimension 0 is 16 and "
             "32\n    x = tl.arange(0, 16) + tl.arange(0, 32)\n                         ^"},
        Case{"UnknownBuiltin", "def k(p, n):\n    x = tl.frobnicate(n)\n",
             "k.py:7:9: error: 'tl.frobnicate' is not supported by the frontend yet\n"
             "    x = tl.frobnicate(n)\n        ^"},
        Case{"UnexpectedKeyword", "def k(p, n):\n    x = tl.load(p, msk=n > 0)\n",
             "k.py:7:9: error: load() got an unexpected keyword argument 'msk'\n"
             "    x = tl.load(p, msk=n > 0)\n        ^"},
        Case{"LoopCarriedTypeChange",
             "def k(p, n):\n    acc = 0\n    for i in range(n):\n        acc = acc + 1.5\n",
             "k.py:8:5: error: loop-carried variable 'acc' has type i32 before the loop and f32 at "
             "the end of its body\n    for i in range(n):\n    ^"},
        // An if with a return in it takes the rest of the function into its branches (any
        // depth: lit/early_return_nested.py); in a loop's body the rest is the next
        // iteration, and Triton refuses it too.
        Case{"ReturnInLoop",
             "def k(p, n):\n    for i in range(n):\n        if i > 5:\n            return\n"
             "    tl.store(p, 1.0)\n",
             "k.py:8:9: error: a return inside a for or while loop is not supported (nor is it "
             "in Triton)\n        if i > 5:\n        ^"},
        // Tensors beyond Triton's 2^20 elements (tl.zeros([2**22] * 3) compiled for the cpu and
        // the cuda backend quoted an overflowed shared-memory size).
        Case{"TensorOfTooManyElements",
             "def k(p, n):\n    x = tl.zeros([2**22, 2**22, 2**22], tl.float32)\n",
             "k.py:7:9: error: a tensor of shape [4194304, 4194304, 4194304] has more than "
             "1048576 elements, Triton's maximum (TRITON_MAX_TENSOR_NUMEL)\n"
             "    x = tl.zeros([2**22, 2**22, 2**22], tl.float32)\n        ^"},
        Case{"BroadcastToTooManyElements",
             "def k(p, n):\n    x = tl.arange(0, 2048)[:, None] + tl.arange(0, 1024)[None, :]\n",
             "k.py:7:37: error: a tensor of shape [2048, 1024] has more than 1048576 elements, "
             "Triton's maximum (TRITON_MAX_TENSOR_NUMEL)\n"
             "    x = tl.arange(0, 2048)[:, None] + tl.arange(0, 1024)[None, :]\n" +
                 std::string(36, ' ') + "^"},
        // Strict where Triton is: each of these was accepted silently.
        Case{"IntegerMask", "def k(p, n):\n    x = tl.load(p + tl.arange(0, 16), mask=tl.arange(0, 16))\n",
             "k.py:7:9: error: a mask must be boolean, not a value of type tensor<16xi32> "
             "(compare it: e.g. offs < n)\n"
             "    x = tl.load(p + tl.arange(0, 16), mask=tl.arange(0, 16))\n        ^"},
        Case{"LoadCacheModifier", "def k(p, n):\n    x = tl.load(p, cache_modifier='.zz')\n",
             "k.py:7:9: error: cache_modifier must be one of \"\", \".ca\", \".cg\", \".cv\", not "
             "\".zz\"\n    x = tl.load(p, cache_modifier='.zz')\n        ^"},
        Case{"StoreEvictionPolicy", "def k(p, n):\n    tl.store(p, 1.0, eviction_policy='soon')\n",
             "k.py:7:5: error: eviction_policy must be one of \"\", \"evict_normal\", "
             "\"evict_first\", \"evict_last\", not \"soon\"\n"
             "    tl.store(p, 1.0, eviction_policy='soon')\n    ^"},
        Case{"AtomicSem", "def k(p, n):\n    tl.atomic_add(p, 1.0, sem='sometimes')\n",
             "k.py:7:5: error: sem must be one of \"acquire\", \"release\", \"acq_rel\", "
             "\"relaxed\", not \"sometimes\"\n    tl.atomic_add(p, 1.0, sem='sometimes')\n    ^"},
        Case{"AtomicScope", "def k(p, n):\n    tl.atomic_max(p, 1.0, scope='planet')\n",
             "k.py:7:5: error: scope must be one of \"gpu\", \"cta\", \"sys\", not \"planet\"\n"
             "    tl.atomic_max(p, 1.0, scope='planet')\n    ^"},
        Case{"IntegerDivisionByZero", "def k(p, n):\n    tl.store(p, n // 0)\n",
             "k.py:7:19: error: integer division by zero ('// 0')\n    tl.store(p, n // 0)\n"
             "                  ^"},
        Case{"IntegerModuloZero", "def k(p, n):\n    tl.store(p, n % 0)\n",
             "k.py:7:19: error: integer division by zero ('% 0')\n    tl.store(p, n % 0)\n"
             "                  ^"},
        Case{"IntToFp8", "def k(p, n):\n    x = n.to(tl.float8e4nv)\n",
             "k.py:7:9: error: cannot cast i32 to float8e4nv (8-bit floats convert to and from "
             "float types only: cast through float32)\n    x = n.to(tl.float8e4nv)\n        ^"},
        Case{"Fp8WithIntTensor",
             "def k(p, n):\n    x = tl.load(p + tl.arange(0, 16))\n    y = x + tl.arange(0, 16)\n",
             "k.py:8:11: error: cannot mix float8e5 with an integer tensor (cast one of them)\n"
             "    y = x + tl.arange(0, 16)\n          ^",
             "*fp8e5,i32"},
        Case{"DowncastRounding", "def k(p, n):\n    x = (n * 1.5).to(tl.float16, fp_downcast_rounding='up')\n",
             "k.py:7:9: error: fp_downcast_rounding must be 'rtne' or 'rtz', got 'up'\n"
             "    x = (n * 1.5).to(tl.float16, fp_downcast_rounding='up')\n        ^"},
        Case{"SortNotLastDim",
             "def k(p, n):\n    x = tl.zeros((4, 8), dtype=tl.float32)\n    y = tl.sort(x, 0)\n",
             "k.py:8:9: error: tl.sort sorts along the last dimension only (dim 1 or -1), as "
             "Triton does\n    y = tl.sort(x, 0)\n        ^"},
        Case{"Float8e4b15", "def k(p, n):\n    x = n.to(tl.float32).to(tl.float8e4b15)\n",
             "k.py:7:9: error: tl.float8e4b15 is not supported (Triton builds it from NVIDIA "
             "inline assembly): use tl.float8e4nv or tl.float8e5\n"
             "    x = n.to(tl.float32).to(tl.float8e4b15)\n        ^"},
        Case{"IsinstanceOfAnUnsupportedClass",
             "def k(p, n):\n    x = isinstance(n, tl.constexpr)\n",
             "k.py:7:9: error: isinstance() against the builtin 'constexpr' is not supported "
             "(tl.tensor, tl.tensor_descriptor, tl.dtype, tl.tuple, int, float, bool or a "
             "@tl.aggregate class)\n    x = isinstance(n, tl.constexpr)\n        ^"},
        Case{"StaticAssert", "def k(p, n):\n    tl.static_assert(1 > 2, \"too small\")\n",
             "k.py:7:5: error: static_assert failed: too small\n"
             "    tl.static_assert(1 > 2, \"too small\")\n    ^"},
        Case{"MissingConstexpr", "def k(p, n, BLOCK: tl.constexpr):\n    pass\n",
             "k.py:6:13: error: the constexpr parameter 'BLOCK' needs a value (--constexpr "
             "BLOCK=...)\ndef k(p, n, BLOCK: tl.constexpr):\n            ^"},
        Case{"MissingSignature", "def k(p, n, m):\n    pass\n",
             "k.py:6:13: error: no type for the parameter 'm': the signature lists 2 types for "
             "the runtime parameters (e.g. --signature '*fp32,i32')\ndef k(p, n, m):\n"
             "            ^"},
        Case{"PointerTimesInt", "def k(p, n):\n    q = p * 2\n",
             "k.py:7:11: error: pointers support only + and - of an integer offset\n"
             "    q = p * 2\n          ^"},
        Case{"WrongArgCount",
             "def k(p, n):\n    x = f(n, n)\n\n\n@triton.jit\ndef f(a):\n    return a\n",
             "k.py:7:9: error: 'f' takes 1 arguments, 2 given\n    x = f(n, n)\n        ^"},
        Case{"DotTooSmall",
             "def k(p, n):\n    a = tl.zeros((8, 8), dtype=tl.float32)\n    c = tl.dot(a, a)\n",
             "k.py:8:9: error: tl.dot needs every dimension to be at least 16\n"
             "    c = tl.dot(a, a)\n        ^"},
        Case{"AssignToSubscript", "def k(p, n):\n    x = tl.arange(0, 16)\n    x[0] = 1\n",
             "k.py:8:6: error: assignment to a subscript is not supported: tensors are immutable "
             "values (build a new one, e.g. with tl.where)\n    x[0] = 1\n     ^"},
        Case{"SameAggregateTwiceToNoinline",
             "def k(p, n):\n    a = A(tl.zeros((), dtype=tl.float32))\n    f(a, a)\n\n\n"
             "@triton.jit(noinline=True)\ndef f(x, y):\n    x.v += 1.0\n    y.v += 2.0\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tl.tensor\n",
             "k.py:8:5: error: the same aggregate object is passed to the parameters 'x' and 'y' "
             "of the noinline function 'f': its mutations could not be written back to one "
             "object; pass it once\n    f(a, a)\n    ^"},
        Case{"AggregateMutatedThroughTupleAndName",
             "def k(p, n):\n    a = A(tl.zeros((), dtype=tl.float32))\n    t = (a, 5)\n"
             "    t[0].v += 1.0\n    a.v += 2.0\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tl.tensor\n",
             "k.py:10:7: error: this 'A' object is mutated both through a tuple (line 9, column 10) "
             "and through another reference (line 10, column 7); mutate it through one of them\n"
             "    a.v += 2.0\n      ^"},
        Case{"AggregateFieldStartsConstexprInLoop",
             "def k(p, n):\n    a = A(0.0)\n    for i in range(n):\n        a.v += 1.0\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tl.tensor\n",
             "k.py:8:5: error: the field 'v' of 'A' holds a constexpr float before the loop and "
             "changes inside it; a field that changes across iterations must start as a tensor "
             "(e.g. tl.zeros(...) or tl.full(...))\n    for i in range(n):\n    ^"},
        Case{"UndeclaredAggregateField",
             "def k(p, n):\n    a = A(1.0)\n    a.w = 2.0\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tl.tensor\n",
             "k.py:8:7: error: 'A' has no field 'w' (fields are declared in the class body: name: "
             "type)\n    a.w = 2.0\n      ^"},
        Case{"ImportMissingModule",
             "def k(p, n):\n    x = nosuch.f(n)\n\n\nimport nosuch\n",
             "k.py:10:8: error: cannot import 'nosuch': no file ./nosuch.py (kernels may import "
             "triton and kernel files next to them)\nimport nosuch\n       ^"},
        Case{"TransWithoutATensor", "def k(p, n):\n    x = tl.trans()\n", 
             "k.py:7:9: error: tl.trans needs a tensor\n    x = tl.trans()\n        ^"},
        Case{"MethodWithoutSelf",
             "def k(p, n):\n    a = A(1.0)\n    b = a.f()\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tl.tensor\n\n    @triton.jit\n    def f():\n"
             "        return 1\n",
             "k.py:16:5: error: method 'f' needs a first parameter for the object (self)\n"
             "    def f():\n    ^"},
        Case{"ConstexprAddOverflows", "def k(p, n):\n    x = 9223372036854775807 + 1\n", "k.py:7:29: error: the constexpr '+' overflows 64-bit integers\n"
             "    x = 9223372036854775807 + 1\n                            ^"},
        Case{"ConstexprShiftOverflows", "def k(p, n):\n    x = 1 << 64\n", "k.py:7:11: error: the constexpr '<<' overflows 64-bit integers\n    x = 1 << 64\n"
             "          ^"},
        Case{"ConstexprPowerOverflows", "def k(p, n):\n    x = 3 ** 1000000000000\n", "k.py:7:11: error: the constexpr '**' overflows 64-bit integers\n"
             "    x = 3 ** 1000000000000\n          ^"},
        Case{"ConstexprFloorDivOverflows",
             "def k(p, n):\n    x = (-9223372036854775807 - 1) // -1\n", "k.py:7:36: error: the constexpr '//' overflows 64-bit integers\n"
             "    x = (-9223372036854775807 - 1) // -1\n                                   ^"},
        Case{"NextPowerOfTwoOverflows",
             "def k(p, n):\n    x = triton.next_power_of_2(4611686018427387905)\n", "k.py:7:9: error: next_power_of_2(4611686018427387905) overflows 64-bit integers\n"
             "    x = triton.next_power_of_2(4611686018427387905)\n        ^"},
        Case{"TupleFieldChangesInLoop",
             "def k(p, n):\n    a = A((tl.zeros([16], dtype=tl.float32), 1.0))\n"
             "    for i in range(n):\n        a.v = (a.v[0] + 1.0, 1.0)\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tuple\n\n    def __init__(self, v):\n"
             "        self.v = v\n",
             "k.py:8:5: error: the field 'v' of 'A' holds a tuple and changes inside the loop; "
             "tuple-valued fields are not carried across iterations (use one field per tensor)\n"
             "    for i in range(n):\n    ^"},
        Case{"TupleFieldChangesInRuntimeIf",
             "def k(p, n):\n    a = A((tl.zeros([16], dtype=tl.float32), 1.0))\n"
             "    if n > 3:\n        a.v = (a.v[0] + 1.0, 1.0)\n\n\n"
             "@tl.aggregate\nclass A:\n    v: tuple\n\n    def __init__(self, v):\n"
             "        self.v = v\n",
             "k.py:8:5: error: the field 'v' of 'A' holds different compile-time objects in the "
             "two branches of an if on a runtime condition\n    if n > 3:\n    ^"},
        Case{"PointerTypeSharedSpace",
             "def k(p, n):\n    q = n.to(tl.int64).to(tl.pointer_type(tl.float32, 3))\n",
             "k.py:7:27: error: tl.pointer_type: only address space 1 (global memory) is "
             "supported, got 3\n    q = n.to(tl.int64).to(tl.pointer_type(tl.float32, 3))\n"
             "                          ^"},
        Case{"PointerTypeConst",
             "def k(p, n):\n    t = tl.pointer_type(tl.float32, const=True)\n",
             "k.py:7:9: error: tl.pointer_type: const pointers are not supported (drop "
             "const=True)\n    t = tl.pointer_type(tl.float32, const=True)\n        ^"},
        Case{"ExperimentalDescriptorFromMemory",
             "def k(p, n):\n    x = tl._experimental_descriptor_load(p, [0], [16], tl.float32)\n",
             "k.py:7:9: error: tl._experimental_descriptor_load needs a tensor descriptor (a "
             "tensordesc<...> argument or tl.make_tensor_descriptor), got a value of type !tt.ptr<f32>: a "
             "CUDA TMA descriptor in memory is not supported\n"
             "    x = tl._experimental_descriptor_load(p, [0], [16], tl.float32)\n        ^"},
        Case{"ExperimentalDescriptorSignedness",
             "def k(p, n):\n    x = tl._experimental_descriptor_load(p, [0], [16], tl.int8)\n",
             "k.py:7:9: error: tl._experimental_descriptor_load's dtype must be the descriptor's "
             "element type uint8, got int8\n"
             "    x = tl._experimental_descriptor_load(p, [0], [16], tl.int8)\n        ^",
             "tensordesc<u8[16]>,i32"},
        Case{"ExperimentalDescriptorDtype",
             "def k(p, n):\n    x = tl._experimental_descriptor_load(p, [0], [16], tl.float16)\n",
             "k.py:7:9: error: tl._experimental_descriptor_load's dtype must be the descriptor's "
             "element type f32, got f16\n"
             "    x = tl._experimental_descriptor_load(p, [0], [16], tl.float16)\n        ^",
             "tensordesc<fp32[16]>,i32"},
        Case{"UnknownAtomic", "def k(p, n):\n    tl.atomic_sub(p, 1.0)\n",
             "k.py:7:5: error: 'tl.atomic_sub' is not an atomic operation of Triton's "
             "(tl.atomic_add, tl.atomic_and, tl.atomic_cas, tl.atomic_max, tl.atomic_min, "
             "tl.atomic_or, tl.atomic_xchg, tl.atomic_xor)\n    tl.atomic_sub(p, 1.0)\n    ^"},
        Case{"NvTmaDescArgument", "def k(p, n):\n    pass\n",
             "k.py:6:7: error: 'p': nvTmaDesc (a CUDA TMA descriptor made on the host) is not "
             "supported: its encoding is the GPU driver's; pass a tensor descriptor "
             "(tensordesc<DTYPE[BLOCK...]>) instead\ndef k(p, n):\n      ^",
             "nvTmaDesc,i32"},
        Case{"IntToPointerNeedsInt64", "def k(p, n):\n    q = n.to(tl.pointer_type(tl.float32))\n",
             "k.py:7:9: error: only int64 converts to a pointer\n"
             "    q = n.to(tl.pointer_type(tl.float32))\n        ^"},
        Case{"UnterminatedString", "def k(p, n):\n    s = \"abc\n",
             "k.py:7:9: error: unterminated string literal (end of line)\n    s = \"abc\n"
             "        ^"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(Errors, ManyElifBranchesAreAnErrorNotADeepRecursion) {
  std::string body = "def k(p, n):\n    if n == 0:\n        x = 0\n";
  for (int i = 1; i < 100000; ++i)
    body += "    elif n == " + std::to_string(i) + ":\n        x = 1\n";
  std::string message = errorOf(body);
  // Each elif nests one level deeper: the chain stops at elif number 184 (the nesting limit,
  // 200, less room for its condition and block), with a message about elifs.
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "k.py:375:5: error: too many 'elif' branches in one if statement")
      << message.substr(0, 300);
  // 150 elifs, below the limit, are fine.
  std::string small = "def k(p, n):\n    if n == 0:\n        x = 0\n";
  for (int i = 1; i < 150; ++i)
    small += "    elif n == " + std::to_string(i) + ":\n        x = 1\n";
  EXPECT_EQ(errorOf(small), "");
}

TEST(Errors, StarImportsFromTritonAreErrorsOthersAreHostCode) {
  SourceFile host("k.py", "from os.path import *\nfrom . import sibling\nimport triton\n");
  EXPECT_TRUE(Parse(host).ok()) << Parse(host).status();
  SourceFile star("k.py", "import triton\nfrom triton.language import *\n");
  absl::StatusOr<Module> m = Parse(star);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("k.py:2:1: error: 'from triton.language import *' is not "
                                      "supported: import names"),
            std::string::npos)
      << m.status();
}

TEST(Errors, NoneComparesEqualToNone) {
  EXPECT_EQ(errorOf("def k(p, n, X: tl.constexpr = None):\n    tl.static_assert(X == None)\n"
                    "    tl.static_assert(not (X != None))\n    tl.static_assert(None == X)\n"),
            "");
  EXPECT_NE(errorOf("def k(p, n, X: tl.constexpr = None):\n    tl.static_assert(X != None)\n"),
            "");
}

TEST(Errors, MissingMemberOfAnImportedFileIsReportedInTheImportingFile) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/imports";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/other.py") << "import triton\n\n\n@triton.jit\ndef f(x):\n    return x\n";
  for (auto [body, message] :
       {std::pair<std::string, std::string>{
            "def k(p, n):\n    x = other.nosuch(n)\n\n\nimport other\n",
            "k.py:7:15: error: the kernel file " + dir + "/other.py has no 'nosuch'\n"
            "    x = other.nosuch(n)\n              ^"},
        {"def k(p, n):\n    x = g(n)\n\n\nfrom other import nosuch as g\n",
         "k.py:10:19: error: the kernel file " + dir + "/other.py has no 'nosuch'\n"
         "from other import nosuch as g\n                  ^"}}) {
    SourceFile file(dir + "/k.py", kHeader + body);
    absl::StatusOr<Module> module = Parse(file);
    ASSERT_TRUE(module.ok()) << module.status();
    mlir::MLIRContext context;
    KernelSpec spec;
    spec.entry = "k";
    spec.signature = SplitSignature("*fp32,i32");
    auto generated = GenerateKernel(context, file, *module, spec);
    ASSERT_FALSE(generated.ok());
    EXPECT_EQ(std::string(generated.status().message()), dir + "/" + message);
  }
}

TEST(Errors, DeepExpressionsAreErrorsNotStackOverflows) {
  // 100,000 operators in one chain and 10,000 chained calls: both crashed with SIGSEGV (the
  // trees were evaluated and destroyed recursively).
  std::string sum = "1";
  for (int i = 0; i < 100000; ++i)
    sum += " + 1";
  std::string chain = "tl.load(p)";
  for (int i = 0; i < 10000; ++i)
    chain += ".to(tl.float32)";
  for (const std::string &value : {sum, chain, "(" + sum + ")", "tl.sum(" + chain + ", 0)"}) {
    std::string error = errorOf("def k(p, n):\n    x = " + value + "\n    tl.store(p, x)\n");
    EXPECT_NE(error.find("k.py:7:"), std::string::npos) << error.substr(0, 200);
    EXPECT_NE(error.find("expression is nested too deeply: more than 1000 levels"),
              std::string::npos)
        << error.substr(0, 200);
  }
  // A chain that is long but not too deep still compiles.
  std::string fine = "1";
  for (int i = 0; i < 500; ++i)
    fine += " + 1";
  EXPECT_EQ(errorOf("def k(p, n):\n    x = " + fine + "\n    tl.store(p, x)\n", "*i32,i32"), "");
}

TEST(Errors, KernelCompilesWithoutError) {
  // The harness itself: a correct kernel gives no error.
  EXPECT_EQ(errorOf("def k(p, n):\n    tl.store(p + tl.arange(0, 16), 1.0, mask=tl.arange(0, 16) < n)\n"),
            "");
}

} // namespace
