//===- lexer_test.cc - tokens of Triton-language sources ------------*- C++ -*-===//

#include "compiler/frontend/Lexer.h"

#include "gtest/gtest.h"

namespace {

using namespace tessel::frontend;

std::vector<Token> lex(const std::string &text) {
  auto tokens = Tokenize(SourceFile("kernel.py", text));
  EXPECT_TRUE(tokens.ok()) << tokens.status();
  return tokens.ok() ? *tokens : std::vector<Token>{};
}

/// Compact rendering: names and numbers as themselves, strings quoted, layout tokens named.
std::string render(const std::vector<Token> &tokens) {
  std::string out;
  for (const Token &t : tokens) {
    if (!out.empty())
      out += ' ';
    switch (t.kind) {
    case TokenKind::Newline: out += "NL"; break;
    case TokenKind::Indent: out += "IN"; break;
    case TokenKind::Dedent: out += "DE"; break;
    case TokenKind::EndOfFile: out += "EOF"; break;
    case TokenKind::String: out += "'" + t.text + "'"; break;
    default: out += t.text;
    }
  }
  return out;
}

std::string lexError(const std::string &text) {
  auto tokens = Tokenize(SourceFile("kernel.py", text));
  EXPECT_FALSE(tokens.ok()) << "expected an error for:\n" << text;
  return tokens.ok() ? "" : std::string(tokens.status().message());
}

TEST(Lexer, BlocksAndLayout) {
  EXPECT_EQ(render(lex("def f(x):\n    if x:\n        return 1\n    return 2\n")),
            "def f ( x ) : NL IN if x : NL IN return 1 NL DE return 2 NL DE EOF");
}

TEST(Lexer, BlankLinesCommentsAndMissingFinalNewline) {
  EXPECT_EQ(render(lex("# header\n\nx = 1  # trailing\n\n   \n    # indented comment\ny = 2")),
            "x = 1 NL y = 2 NL EOF");
}

TEST(Lexer, ContinuationsInsideBracketsAndAfterBackslash) {
  EXPECT_EQ(render(lex("a = f(1,\n      2)\nb = 1 + \\\n    2\n")),
            "a = f ( 1 , 2 ) NL b = 1 + 2 NL EOF");
}

TEST(Lexer, Numbers) {
  std::vector<Token> t = lex("0x1F 0o17 0b101 1_000 1.5 1e-3 .5 2. 3E+2 0\n");
  std::vector<std::pair<TokenKind, std::string>> want = {
      {TokenKind::Integer, "0x1F"}, {TokenKind::Integer, "0o17"}, {TokenKind::Integer, "0b101"},
      {TokenKind::Integer, "1_000"}, {TokenKind::Float, "1.5"},   {TokenKind::Float, "1e-3"},
      {TokenKind::Float, ".5"},      {TokenKind::Float, "2."},    {TokenKind::Float, "3E+2"},
      {TokenKind::Integer, "0"}};
  ASSERT_GE(t.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t[i].kind, want[i].first) << i;
    EXPECT_EQ(t[i].text, want[i].second) << i;
  }
}

TEST(Lexer, Strings) {
  std::vector<Token> t =
      lex("'a\\tb' \"q'x\" '''line1\nline2''' r'\\d' \"\"\"doc \"quoted\" \"\"\"\n");
  ASSERT_GE(t.size(), 5u);
  EXPECT_EQ(t[0].text, "a\tb");
  EXPECT_EQ(t[1].text, "q'x");
  EXPECT_EQ(t[2].text, "line1\nline2");
  EXPECT_EQ(t[3].text, "\\d");
  EXPECT_EQ(t[4].text, "doc \"quoted\" ");
}

TEST(Lexer, OperatorsLongestFirst) {
  EXPECT_EQ(render(lex("a //= b ** c -> d <= e != f >>= g @ h[:, None]\n")),
            "a //= b ** c -> d <= e != f >>= g @ h [ : , None ] NL EOF");
}

TEST(Lexer, KeywordsAndLocations) {
  std::vector<Token> t = lex("@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n    pass\n");
  EXPECT_EQ(t[0].text, "@");
  EXPECT_EQ(t[5].text, "def");
  EXPECT_TRUE(t[5].isKeyword());
  EXPECT_FALSE(t[6].isKeyword());
  EXPECT_EQ(t[5].loc.line, 2);
  EXPECT_EQ(t[5].loc.column, 1);
  EXPECT_EQ(t[8].text, "x_ptr");
  EXPECT_EQ(t[8].loc.column, 7);
}

TEST(Lexer, TritonTutorialMatmul) {
  const char *src = R"PY(import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    offs_am = (pid * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_am[:, None] < M, other=0.0)
        accumulator = tl.dot(a, a, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
    c = accumulator.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr, c, mask=(offs_am[:, None] < M) & (offs_am[None, :] < N))
)PY";
  std::vector<Token> t = lex(src);
  int indents = 0, dedents = 0, newlines = 0;
  for (const Token &tok : t) {
    indents += tok.kind == TokenKind::Indent;
    dedents += tok.kind == TokenKind::Dedent;
    newlines += tok.kind == TokenKind::Newline;
  }
  EXPECT_EQ(indents, 2);
  EXPECT_EQ(dedents, 2);
  EXPECT_EQ(newlines, 15); // logical lines: the 4-line def header is one
  EXPECT_EQ(t.back().kind, TokenKind::EndOfFile);
}

TEST(Lexer, ErrorsCarryFileLineColumnAndCaret) {
  EXPECT_EQ(lexError("x = 1\ny = 'abc\n"),
            "kernel.py:2:5: error: unterminated string literal (end of line)\ny = 'abc\n    ^");
  EXPECT_NE(lexError("s = '''never closed\n").find("kernel.py:1:5: error: unterminated "
                                                     "triple-quoted string"),
            std::string::npos);
  EXPECT_NE(lexError("if x:\n        a = 1\n    b = 2\n")
                .find("kernel.py:3:5: error: unindent does not match any outer indentation "
                      "level"),
            std::string::npos);
  EXPECT_NE(lexError("if x:\n \ta = 1\n").find("inconsistent use of tabs and spaces"),
            std::string::npos);
  EXPECT_NE(lexError("f(1, 2]\n").find("kernel.py:1:7: error: closing ']' does not match '('"),
            std::string::npos);
  EXPECT_NE(lexError("f(1,\n  2\n").find("kernel.py:1:2: error: '(' was never closed"),
            std::string::npos);
  EXPECT_NE(lexError("x = 1 $ 2\n").find("kernel.py:1:7: error: invalid character '$'"),
            std::string::npos);
  EXPECT_NE(lexError("s = f'{x\n").find("kernel.py:1:5: error: unterminated f-string"),
            std::string::npos);
  EXPECT_NE(lexError("x = 0x\n").find("invalid hexadecimal literal"), std::string::npos);
  EXPECT_NE(lexError("x = 1e\n").find("exponent has no digits"), std::string::npos);
  EXPECT_NE(lexError("x = 12abc\n").find("invalid character in number literal"),
            std::string::npos);
  EXPECT_NE(lexError("x = 1 \\ 2\n").find("unexpected character after line continuation"),
            std::string::npos);
  EXPECT_NE(lexError(")\n").find("unmatched ')'"), std::string::npos);
}

TEST(Lexer, HostCodeTokens) {
  // f-strings are one token each, whatever their replacement fields hold (quotes of either
  // kind, nested fields, brackets, other f-strings); imaginary numbers and non-ASCII names.
  std::vector<Token> tokens = lex(R"py(s = f'{d["k"]:>{w}} {{x}}' + rf"\d{f'{a}'}" + F'''{(1,
2)}'''
z = 2j + 1.5J
π = 3
)py");
  EXPECT_EQ(render(tokens), R"(s = '{d["k"]:>{w}} {{x}}' + '\d{f'{a}'}' + '{(1,
2)}' NL z = 2j + 1.5J NL π = 3 NL EOF)");
  int special = 0;
  for (const Token &t : tokens)
    special += t.special;
  EXPECT_EQ(special, 5); // three f-strings, two imaginary numbers
}

TEST(Lexer, FStringFormatSpecsAndDepth) {
  // Quotes in a format spec are text; a dict display in a field has its own ':'.
  EXPECT_EQ(render(lex("s = f\"{x:'>10}\" + f'{ {\"a\": 1}[\"a\"]:>{w}}'\n")),
            "s = '{x:'>10}' + '{ {\"a\": 1}[\"a\"]:>{w}}' NL EOF");
  // f-strings nested in fields beyond 64 levels: an error, not a deep recursion.
  std::string deep = "x = ";
  for (int i = 0; i < 100000; ++i)
    deep += "f\"{";
  EXPECT_NE(lexError(deep + "\n").find("f-strings are nested too deeply"), std::string::npos);
}

TEST(Lexer, NeverCrashesOnTruncatedSources) {
  // Every prefix of a real kernel is either tokens or an error, never a crash.
  const std::string src =
      "@triton.jit\ndef vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
      "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
      "    m = offs < n  # mask\n    s = '''doc\n'''\n"
      "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + 0x10 * 1.5e-3, mask=m)\n";
  for (size_t n = 0; n <= src.size(); ++n)
    (void)Tokenize(SourceFile("kernel.py", src.substr(0, n)));
}

} // namespace
