//===- expr_test.cc - tessel's small Python evaluator -===//

#include "runtime/expr/Eval.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <random>

namespace tessel::expr {
namespace {

using ::testing::HasSubstr;

Value EvalOk(const std::string &text, const ScopePtr &scope) {
  absl::StatusOr<Value> v = EvalText(text, scope, "spec.toml", 3, 8);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : Value();
}

std::string EvalError(const std::string &text, const ScopePtr &scope) {
  absl::StatusOr<Value> v = EvalText(text, scope, "spec.toml", 3, 8);
  EXPECT_FALSE(v.ok()) << text << " gave " << (v.ok() ? v->Repr() : "");
  return v.ok() ? "" : std::string(v.status().message());
}

TEST(Expr, GridOverDimsAndMetaParameters) {
  ScopePtr s = Scope::Child(Builtins());
  std::mt19937_64 gen(std::random_device{}());
  for (int trial = 0; trial < 50; ++trial) {
    int64_t m = 1 + gen() % 10000, n = 1 + gen() % 10000, bm = 16 << (gen() % 4);
    s->vars["M"] = Value::Int(m);
    s->vars["N"] = Value::Int(n);
    s->vars["BLOCK_M"] = Value::Int(bm);
    Value g = EvalOk("(cdiv(M, BLOCK_M) * cdiv(N, BLOCK_M),)", s);
    ASSERT_EQ(g.kind, Value::Kind::Tuple);
    ASSERT_EQ(g.items->size(), 1u);
    EXPECT_EQ((*g.items)[0].i, ((m + bm - 1) / bm) * ((n + bm - 1) / bm));
  }
  // Triton's grid lambdas read the meta-parameters from a dict.
  s->vars["META"] = Value::Dict({{Value::Str("BLOCK_M"), Value::Int(64)}});
  s->vars["M"] = Value::Int(1000);
  EXPECT_EQ((*EvalOk("(cdiv(M, META['BLOCK_M']), 1)", s).items)[0].i, 16);
  Value lam = EvalOk("lambda META: (cdiv(M, META['BLOCK_M']),)", s);
  absl::StatusOr<Value> called = Call(lam, {s->vars["META"]}, {}, Loc{});
  ASSERT_TRUE(called.ok()) << called.status();
  EXPECT_EQ((*called->items)[0].i, 16);
}

TEST(Expr, PythonArithmetic) {
  ScopePtr s = Scope::Child(Builtins());
  EXPECT_EQ(EvalOk("-7 // 2", s).i, -4);
  EXPECT_EQ(EvalOk("-7 % 3", s).i, 2);
  EXPECT_EQ(EvalOk("7 % -3", s).i, -2);
  EXPECT_DOUBLE_EQ(EvalOk("7 / 2", s).f, 3.5);
  EXPECT_EQ(EvalOk("2 ** 10", s).i, 1024);
  EXPECT_EQ(EvalOk("-2 ** 2", s).i, -4);
  EXPECT_EQ(EvalOk("1 << 4 | 1", s).i, 17);
  EXPECT_TRUE(EvalOk("1 < 2 < 3", s).Truthy());
  EXPECT_FALSE(EvalOk("1 < 3 < 2", s).Truthy());
  EXPECT_EQ(EvalOk("0 or 5", s).i, 5);
  EXPECT_EQ(EvalOk("3 if 2 > 1 else 4", s).i, 3);
  EXPECT_EQ(EvalOk("max(1, 7, 3) + min([4, 2])", s).i, 9);
  EXPECT_EQ(EvalOk("next_power_of_2(1000)", s).i, 1024);
  EXPECT_EQ(EvalOk("cdiv(-1, 4)", s).i, 0);
  EXPECT_EQ(EvalOk("len([x for x in range(10) if x % 3 == 0])", s).i, 4);
  EXPECT_EQ(EvalOk("[(a, b) for a in [1, 2] for b in [3, 4]][2]", s).Repr(), "(2, 3)");
  EXPECT_EQ(EvalOk("{'a': 1, 'b': 2}['b']", s).i, 2);
  EXPECT_EQ(EvalOk("'x' in {'x': 1}", s).i, 1);
  EXPECT_EQ(EvalOk("(lambda args: args['K'] % args['BLOCK_K'] == 0)({'K': 96, 'BLOCK_K': 32})", s)
                .Repr(),
            "True");
}

TEST(Expr, ErrorsNameTheirPlace) {
  ScopePtr s = Scope::Child(Builtins());
  s->vars["M"] = Value::Int(5);
  // The expression starts at spec.toml:3:8.
  EXPECT_THAT(EvalError("M + BLOCK", s), HasSubstr("spec.toml:3:12: error: name 'BLOCK' is not defined"));
  EXPECT_THAT(EvalError("M // 0", s), HasSubstr("spec.toml:3:10: error: integer division"));
  EXPECT_THAT(EvalError("9223372036854775807 + M", s), HasSubstr("integer overflow"));
  EXPECT_THAT(EvalError("2 ** 64", s), HasSubstr("integer overflow"));
  EXPECT_THAT(EvalError("(M,", s), HasSubstr("spec.toml:3:"));
  EXPECT_THAT(EvalError("M +", s), HasSubstr("expected an expression"));
  EXPECT_THAT(EvalError("", s), HasSubstr("empty expression"));
  EXPECT_THAT(EvalError("M M", s), HasSubstr("unexpected 'M'"));
  EXPECT_THAT(EvalError("cdiv(M, 0)", s), HasSubstr("divisor must be positive"));
  EXPECT_THAT(EvalError("'a' < 1", s), HasSubstr("not supported"));
  EXPECT_THAT(EvalError("99999999999999999999", s), HasSubstr("out of the 64-bit range"));
  EXPECT_THAT(EvalError("len(range(10000000))", s), HasSubstr("too long"));
  EXPECT_THAT(EvalError(std::string(5000, '(') + "1" + std::string(5000, ')'), s),
              HasSubstr("nested too deeply"));
  EXPECT_THAT(EvalError("(lambda f: f(f))(lambda f: f(f))", s), HasSubstr("nested too deeply"));
  EXPECT_THAT(EvalError("M\nM", s), HasSubstr("second line"));
}

TEST(Expr, HostFunctionsBuildConfigLists) {
  const char *source = R"(
def configs(cuda):
    out = []
    if cuda:
        for bm in [64, 128]:
            out.append({'BLOCK_M': bm, 'num_warps': 4 if bm == 64 else 8})
    elif not cuda:
        out += [{'BLOCK_M': 32}]
    else:
        pass
    return out
)";
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(source, "k.py");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  Parser p(*tokens);
  absl::StatusOr<NodePtr> def = p.Statement();
  ASSERT_TRUE(def.ok()) << def.status();
  ScopePtr s = Scope::Child(Builtins());
  ASSERT_TRUE(expr::Run({*def}, s).ok());
  ScopePtr call = Scope::Child(s);
  EXPECT_EQ(EvalOk("configs(True)", call).Repr(),
            "[{'BLOCK_M': 64, 'num_warps': 4}, {'BLOCK_M': 128, 'num_warps': 8}]");
  EXPECT_EQ(EvalOk("configs(cuda=False)", call).Repr(), "[{'BLOCK_M': 32}]");
  EXPECT_THAT(EvalError("configs()", call), HasSubstr("missing argument 'cuda'"));
}

TEST(Expr, UnsupportedStatementsFailWhereTheyRun) {
  const char *source = "def f(x):\n    if x:\n        raise ValueError('no')\n    return 1\n";
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(source, "k.py");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  Parser p(*tokens);
  absl::StatusOr<NodePtr> def = p.Statement();
  ASSERT_TRUE(def.ok()) << def.status();
  ScopePtr s = Scope::Child(Builtins());
  ASSERT_TRUE(expr::Run({*def}, s).ok());
  EXPECT_EQ(EvalOk("f(0)", s).i, 1);
  EXPECT_THAT(EvalError("f(1)", s), HasSubstr("k.py:3:9: error: 'raise' statements"));
}

TEST(Expr, TokenizerEdges) {
  EXPECT_FALSE(Tokenize("'abc", "f").ok());
  EXPECT_FALSE(Tokenize("x = $", "f").ok());
  EXPECT_FALSE(Tokenize("if x:\n    a\n  b\n", "f").ok());
  absl::StatusOr<std::vector<Token>> t = Tokenize("x = (1,\n     2)  # c\ns = r'\\d' 'e'\n", "f");
  ASSERT_TRUE(t.ok()) << t.status();
  int newlines = 0;
  for (const Token &tok : *t)
    newlines += tok.kind == Token::Kind::Newline;
  EXPECT_EQ(newlines, 2);
}

} // namespace
} // namespace tessel::expr
