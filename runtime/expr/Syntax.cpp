//===- Syntax.cpp - parsing for tessel's small evaluator -===//

#include "runtime/expr/Syntax.h"
#include "runtime/expr/Internal.h"

#include "absl/strings/str_cat.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tessel::expr {

namespace {

using internal::Error;
constexpr int kMaxDepth = internal::kMaxNesting;

const char *const kKeywords[] = {"and",  "or",    "not",    "in",     "is",   "if",
                                 "else", "elif",  "for",    "while",  "def",  "return",
                                 "pass", "lambda", "True",  "False",  "None", "import",
                                 "from", "as",    "class",  "try",    "except", "finally",
                                 "with", "raise", "break",  "continue", "del", "global",
                                 "nonlocal", "assert", "yield", "async", "await"};

bool IsKeyword(const std::string &s) {
  for (const char *k : kKeywords)
    if (s == k)
      return true;
  return false;
}

} // namespace

namespace {
std::shared_ptr<Node> Make(Node::Kind kind, const Loc &loc) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->loc = loc;
  return n;
}

struct DepthGuard {
  int &d;
  explicit DepthGuard(int &depth) : d(depth) { ++d; }
  ~DepthGuard() { --d; }
};
} // namespace

const Token &Parser::Peek(size_t ahead) const {
  size_t k = std::min(pos_ + ahead, t_.size() - 1);
  return t_[k];
}
absl::Status Parser::Fail(const Loc &loc, const std::string &message) const {
  return Error(loc, message);
}
bool Parser::AtOp(const char *op) const { return Peek().Is(Token::Kind::Op, op); }
bool Parser::AcceptOp(const char *op) {
  if (!AtOp(op))
    return false;
  ++pos_;
  return true;
}
absl::Status Parser::ExpectOp(const char *op, const char *what) {
  if (AcceptOp(op))
    return absl::OkStatus();
  const Token &t = Peek();
  std::string found = t.kind == Token::Kind::Newline || t.kind == Token::Kind::End
                          ? "the end of the line"
                          : "'" + t.text + "'";
  return Fail(t.loc, absl::StrCat("expected '", op, "' ", what, ", found ", found));
}
bool Parser::AtKeyword(const char *word) const { return Peek().Is(Token::Kind::Name, word); }

absl::StatusOr<NodePtr> Parser::Expression() {
  DepthGuard g(depth_);
  if (depth_ > kMaxDepth)
    return Fail(Peek().loc, "expression nested too deeply");
  return TestList();
}

absl::StatusOr<NodePtr> Parser::TestList() {
  Loc loc = Peek().loc;
  auto first = Test();
  if (!first.ok() || !AtOp(","))
    return first;
  auto tuple = Make(Node::Kind::Tuple, loc);
  tuple->kids.push_back(*first);
  while (AcceptOp(",")) {
    const Token &t = Peek();
    if (t.kind == Token::Kind::Newline || t.kind == Token::Kind::End || AtOp(")") || AtOp("=") ||
        AtOp("]") || AtOp(":"))
      break;
    auto next = Test();
    if (!next.ok())
      return next.status();
    tuple->kids.push_back(*next);
  }
  return NodePtr(tuple);
}

absl::StatusOr<NodePtr> Parser::Test() {
  DepthGuard g(depth_);
  if (depth_ > kMaxDepth)
    return Fail(Peek().loc, "expression nested too deeply");
  if (AtKeyword("lambda")) {
    auto lam = Make(Node::Kind::Lambda, Peek().loc);
    ++pos_;
    if (absl::Status s = Parameters(lam->params, lam->keywords, ":"); !s.ok())
      return s;
    auto body = Test();
    if (!body.ok())
      return body.status();
    lam->kids.push_back(*body);
    return NodePtr(lam);
  }
  auto cond = OrTest();
  if (!cond.ok() || !AtKeyword("if"))
    return cond;
  // `a if c else b` (not the `if` of a comprehension: that one has no `else` before `]`).
  size_t save = pos_;
  ++pos_;
  auto test = OrTest();
  if (!test.ok() || !AtKeyword("else")) {
    pos_ = save;
    return cond;
  }
  ++pos_;
  auto other = Test();
  if (!other.ok())
    return other.status();
  auto n = Make(Node::Kind::IfExp, (*cond)->loc);
  n->kids = {*test, *cond, *other};
  return NodePtr(n);
}

absl::StatusOr<NodePtr> Parser::BoolChain(const char *word,
                                           absl::StatusOr<NodePtr> (Parser::*operand)()) {
  auto left = (this->*operand)();
  if (!left.ok() || !AtKeyword(word))
    return left;
  auto n = Make(Node::Kind::BoolOp, (*left)->loc);
  n->text = word;
  n->kids.push_back(*left);
  while (AtKeyword(word)) {
    ++pos_;
    auto r = (this->*operand)();
    if (!r.ok())
      return r.status();
    n->kids.push_back(*r);
  }
  return NodePtr(n);
}

absl::StatusOr<NodePtr> Parser::OrTest() { return BoolChain("or", &Parser::AndTest); }

absl::StatusOr<NodePtr> Parser::AndTest() { return BoolChain("and", &Parser::NotTest); }

absl::StatusOr<NodePtr> Parser::NotTest() {
  DepthGuard g(depth_);
  if (depth_ > kMaxDepth)
    return Fail(Peek().loc, "expression nested too deeply");
  if (AtKeyword("not")) {
    auto n = Make(Node::Kind::UnaryOp, Peek().loc);
    ++pos_;
    n->text = "not";
    auto operand = NotTest();
    if (!operand.ok())
      return operand.status();
    n->kids.push_back(*operand);
    return NodePtr(n);
  }
  return Comparison();
}

absl::StatusOr<NodePtr> Parser::Comparison() {
  auto left = Binary(0);
  if (!left.ok())
    return left;
  std::shared_ptr<Node> n;
  for (;;) {
    std::string op;
    if (AtOp("<") || AtOp(">") || AtOp("==") || AtOp("!=") || AtOp("<=") || AtOp(">=")) {
      op = Peek().text;
      ++pos_;
    } else if (AtKeyword("in")) {
      op = "in";
      ++pos_;
    } else if (AtKeyword("not") && Peek(1).Is(Token::Kind::Name, "in")) {
      op = "not in";
      pos_ += 2;
    } else if (AtKeyword("is")) {
      ++pos_;
      op = "is";
      if (AtKeyword("not")) {
        ++pos_;
        op = "is not";
      }
    } else {
      break;
    }
    if (!n) {
      n = Make(Node::Kind::Compare, (*left)->loc);
      n->kids.push_back(*left);
    }
    auto right = Binary(0);
    if (!right.ok())
      return right.status();
    n->ops.push_back(op);
    n->kids.push_back(*right);
  }
  if (n)
    return NodePtr(n);
  return left;
}

absl::StatusOr<NodePtr> Parser::Binary(int level) {
  static const std::vector<std::vector<const char *>> kLevels = {
      {"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}};
  if (level == int(kLevels.size()))
    return Unary();
  auto left = Binary(level + 1);
  if (!left.ok())
    return left;
  NodePtr acc = *left;
  for (;;) {
    const char *found = nullptr;
    for (const char *op : kLevels[level])
      if (AtOp(op))
        found = op;
    if (!found)
      return acc;
    Loc loc = Peek().loc;
    ++pos_;
    auto right = Binary(level + 1);
    if (!right.ok())
      return right.status();
    auto n = Make(Node::Kind::BinOp, loc);
    n->text = found;
    n->kids = {acc, *right};
    acc = n;
  }
}

absl::StatusOr<NodePtr> Parser::Unary() {
  DepthGuard g(depth_);
  if (depth_ > kMaxDepth)
    return Fail(Peek().loc, "expression nested too deeply");
  if (AtOp("-") || AtOp("+") || AtOp("~")) {
    auto n = Make(Node::Kind::UnaryOp, Peek().loc);
    n->text = Peek().text;
    ++pos_;
    auto operand = Unary();
    if (!operand.ok())
      return operand.status();
    n->kids.push_back(*operand);
    return NodePtr(n);
  }
  return Power();
}

absl::StatusOr<NodePtr> Parser::Power() {
  auto base = Primary();
  if (!base.ok() || !AtOp("**"))
    return base;
  Loc loc = Peek().loc;
  ++pos_;
  auto exp = Unary(); // right associative, binds tighter than a unary minus on its left
  if (!exp.ok())
    return exp.status();
  auto n = Make(Node::Kind::BinOp, loc);
  n->text = "**";
  n->kids = {*base, *exp};
  return NodePtr(n);
}

absl::Status Parser::CallArgs(Node &call) {
  while (!AtOp(")")) {
    if (Peek().kind == Token::Kind::Name && Peek(1).Is(Token::Kind::Op, "=")) {
      std::string name = Peek().text;
      pos_ += 2;
      auto v = Test();
      if (!v.ok())
        return v.status();
      call.keywords.push_back({name, *v});
    } else if (AtOp("*") || AtOp("**")) {
      if (AtOp("**"))
        return Fail(Peek().loc, "'**' arguments are not supported here");
      auto star = Make(Node::Kind::Starred, Peek().loc);
      ++pos_;
      auto v = Test();
      if (!v.ok())
        return v.status();
      star->kids.push_back(*v);
      call.kids.push_back(star);
    } else {
      auto v = Test();
      if (!v.ok())
        return v.status();
      if (AtKeyword("for")) { // f(x for x in xs): a generator, read as a list
        auto comp = Make(Node::Kind::ListComp, (*v)->loc);
        comp->kids.push_back(*v);
        if (absl::Status s = Comprehension(*comp); !s.ok())
          return s;
        call.kids.push_back(comp);
        continue;
      }
      if (!call.keywords.empty())
        return Fail((*v)->loc, "positional argument follows keyword argument");
      call.kids.push_back(*v);
    }
    if (!AcceptOp(","))
      break;
  }
  return ExpectOp(")", "to close the call");
}

absl::StatusOr<NodePtr> Parser::Primary() {
  auto atom = Atom();
  if (!atom.ok())
    return atom;
  NodePtr acc = *atom;
  for (;;) {
    Loc loc = Peek().loc;
    if (AcceptOp(".")) {
      if (Peek().kind != Token::Kind::Name)
        return Fail(Peek().loc, "expected a name after '.'");
      auto n = Make(Node::Kind::Attribute, acc->loc); // where the dotted name starts
      n->text = Peek().text;
      ++pos_;
      n->kids.push_back(acc);
      acc = n;
    } else if (AcceptOp("(")) {
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth)
        return Fail(loc, "expression nested too deeply");
      auto n = Make(Node::Kind::Call, acc->loc);
      n->kids.push_back(acc);
      if (absl::Status s = CallArgs(*n); !s.ok())
        return s;
      acc = n;
    } else if (AcceptOp("[")) {
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth)
        return Fail(loc, "expression nested too deeply");
      auto n = Make(Node::Kind::Subscript, loc);
      n->kids.push_back(acc);
      if (AtOp(":"))
        return Fail(Peek().loc, "slices are not supported here");
      auto index = TestList();
      if (!index.ok())
        return index.status();
      if (AtOp(":"))
        return Fail(Peek().loc, "slices are not supported here");
      n->kids.push_back(*index);
      if (absl::Status s = ExpectOp("]", "to close the subscript"); !s.ok())
        return s;
      acc = n;
    } else {
      return acc;
    }
  }
}

absl::Status Parser::Comprehension(Node &comp) {
  while (AtKeyword("for") || AtKeyword("if")) {
    if (AtKeyword("if")) {
      ++pos_;
      auto cond = OrTest();
      if (!cond.ok())
        return cond.status();
      comp.comps.push_back({*cond, nullptr});
      continue;
    }
    ++pos_;
    // The target: names, possibly a tuple of them.
    Loc loc = Peek().loc;
    auto target = Make(Node::Kind::Tuple, loc);
    bool paren = AcceptOp("(");
    do {
      if (Peek().kind != Token::Kind::Name || IsKeyword(Peek().text))
        return Fail(Peek().loc, "expected a name after 'for'");
      auto name = Make(Node::Kind::Name, Peek().loc);
      name->text = Peek().text;
      ++pos_;
      target->kids.push_back(name);
    } while (AcceptOp(","));
    if (paren)
      if (absl::Status s = ExpectOp(")", "to close the loop's names"); !s.ok())
        return s;
    if (!AtKeyword("in"))
      return Fail(Peek().loc, "expected 'in' in the comprehension");
    ++pos_;
    auto iter = OrTest();
    if (!iter.ok())
      return iter.status();
    NodePtr t = target->kids.size() == 1 && !paren ? target->kids[0] : NodePtr(target);
    comp.comps.push_back({t, *iter});
  }
  return absl::OkStatus();
}

absl::Status Parser::RestOfItems(Node &n, const char *close, const char *what) {
  while (AcceptOp(",")) {
    if (AtOp(close))
      break;
    auto next = Test();
    if (!next.ok())
      return next.status();
    n.kids.push_back(*next);
  }
  return ExpectOp(close, what);
}

absl::StatusOr<NodePtr> Parser::Atom() {
  const Token &t = Peek();
  Loc loc = t.loc;
  switch (t.kind) {
  case Token::Kind::Int: {
    auto n = Make(Node::Kind::Int, loc);
    n->i = t.i;
    ++pos_;
    return NodePtr(n);
  }
  case Token::Kind::Float: {
    auto n = Make(Node::Kind::Float, loc);
    n->f = t.f;
    ++pos_;
    return NodePtr(n);
  }
  case Token::Kind::Str: {
    auto n = Make(Node::Kind::Str, loc);
    while (Peek().kind == Token::Kind::Str) // adjacent literals join
      n->text += t_[pos_++].text;
    return NodePtr(n);
  }
  case Token::Kind::Name: {
    if (t.text == "True" || t.text == "False" || t.text == "None") {
      auto n = Make(Node::Kind::Const, loc);
      n->text = t.text;
      ++pos_;
      return NodePtr(n);
    }
    if (IsKeyword(t.text))
      return Fail(loc, "unexpected '" + t.text + "'");
    auto n = Make(Node::Kind::Name, loc);
    n->text = t.text;
    ++pos_;
    return NodePtr(n);
  }
  case Token::Kind::Op:
    break;
  default:
    return Fail(loc, "expected an expression, found the end of the line");
  }
  DepthGuard g(depth_);
  if (depth_ > kMaxDepth)
    return Fail(loc, "expression nested too deeply");
  if (AcceptOp("(")) {
    if (AcceptOp(")"))
      return NodePtr(Make(Node::Kind::Tuple, loc));
    auto first = Test();
    if (!first.ok())
      return first;
    if (AtKeyword("for")) {
      auto comp = Make(Node::Kind::ListComp, loc);
      comp->kids.push_back(*first);
      if (absl::Status s = Comprehension(*comp); !s.ok())
        return s;
      if (absl::Status s = ExpectOp(")", "to close the generator"); !s.ok())
        return s;
      return NodePtr(comp);
    }
    if (AcceptOp(")"))
      return first; // parenthesized
    auto tuple = Make(Node::Kind::Tuple, loc);
    tuple->kids.push_back(*first);
    if (absl::Status s = RestOfItems(*tuple, ")", "to close the tuple"); !s.ok())
      return s;
    return NodePtr(tuple);
  }
  if (AcceptOp("[")) {
    auto list = Make(Node::Kind::List, loc);
    if (AcceptOp("]"))
      return NodePtr(list);
    auto first = Test();
    if (!first.ok())
      return first;
    if (AtKeyword("for")) {
      list->kind = Node::Kind::ListComp;
      list->kids.push_back(*first);
      if (absl::Status s = Comprehension(*list); !s.ok())
        return s;
      if (absl::Status s = ExpectOp("]", "to close the list"); !s.ok())
        return s;
      return NodePtr(list);
    }
    list->kids.push_back(*first);
    if (absl::Status s = RestOfItems(*list, "]", "to close the list"); !s.ok())
      return s;
    return NodePtr(list);
  }
  if (AcceptOp("{")) {
    auto dict = Make(Node::Kind::Dict, loc);
    while (!AtOp("}")) {
      auto key = Test();
      if (!key.ok())
        return key.status();
      if (absl::Status s = ExpectOp(":", "after a dict key (sets are not supported)"); !s.ok())
        return s;
      auto value = Test();
      if (!value.ok())
        return value.status();
      dict->kids.push_back(*key);
      dict->kids.push_back(*value);
      if (!AcceptOp(","))
        break;
    }
    if (absl::Status s = ExpectOp("}", "to close the dict"); !s.ok())
      return s;
    return NodePtr(dict);
  }
  return Fail(loc, "unexpected '" + t.text + "'");
}

absl::Status Parser::Parameters(std::vector<std::string> &names,
                                std::vector<std::pair<std::string, NodePtr>> &defaults,
                                const char *close) {
  while (!AtOp(close)) {
    bool star = AcceptOp("*") || AcceptOp("**");
    if (star && AtOp(","))  { // bare `*`: keyword-only parameters follow
      ++pos_;
      continue;
    }
    if (Peek().kind != Token::Kind::Name || IsKeyword(Peek().text))
      return Fail(Peek().loc, "expected a parameter name");
    std::string name = Peek().text;
    ++pos_;
    if (std::strcmp(close, ":") && AcceptOp(":")) { // an annotation (not in a lambda)
      auto ann = Test();
      if (!ann.ok())
        return ann.status();
    }
    names.push_back(star ? "*" + name : name);
    if (AcceptOp("=")) {
      auto v = Test();
      if (!v.ok())
        return v.status();
      defaults.push_back({name, *v});
    }
    if (!AcceptOp(","))
      break;
  }
  return ExpectOp(close, std::strcmp(close, ":") ? "to close the parameters"
                                                 : "after the lambda's parameters");
}

absl::Status Parser::Block(std::vector<NodePtr> &out) {
  if (Peek().kind != Token::Kind::Newline) { // `if x: return 1`
    auto s = Statement();
    if (!s.ok())
      return s.status();
    out.push_back(*s);
    return absl::OkStatus();
  }
  ++pos_;
  if (Peek().kind != Token::Kind::Indent)
    return Fail(Peek().loc, "expected an indented block");
  ++pos_;
  while (Peek().kind != Token::Kind::Dedent && Peek().kind != Token::Kind::End) {
    auto s = Statement();
    if (!s.ok())
      return s.status();
    out.push_back(*s);
  }
  if (Peek().kind == Token::Kind::Dedent)
    ++pos_;
  return absl::OkStatus();
}

absl::StatusOr<NodePtr> Parser::Statement() {
  DepthGuard g(depth_);
  if (depth_ > kMaxDepth)
    return Fail(Peek().loc, "blocks nested too deeply");
  const Token &t = Peek();
  Loc loc = t.loc;
  auto endOfSimple = [&]() -> absl::Status {
    AcceptOp(";");
    if (Peek().kind == Token::Kind::Newline) {
      ++pos_;
      return absl::OkStatus();
    }
    if (Peek().kind == Token::Kind::End || Peek().kind == Token::Kind::Dedent)
      return absl::OkStatus();
    return Fail(Peek().loc, "expected the end of the statement, found '" + Peek().text + "'");
  };
  if (t.kind == Token::Kind::Name && (t.text == "if" || t.text == "elif")) {
    auto n = Make(Node::Kind::If, loc);
    ++pos_;
    auto cond = Expression();
    if (!cond.ok())
      return cond.status();
    n->kids.push_back(*cond);
    if (absl::Status s = ExpectOp(":", "after the condition"); !s.ok())
      return s;
    if (absl::Status s = Block(n->body); !s.ok())
      return s;
    if (AtKeyword("elif")) {
      auto elif = Statement();
      if (!elif.ok())
        return elif.status();
      n->orelse.push_back(*elif);
    } else if (AtKeyword("else")) {
      ++pos_;
      if (absl::Status s = ExpectOp(":", "after 'else'"); !s.ok())
        return s;
      if (absl::Status s = Block(n->orelse); !s.ok())
        return s;
    }
    return NodePtr(n);
  }
  if (t.Is(Token::Kind::Name, "for")) {
    auto n = Make(Node::Kind::For, loc);
    auto comp = Make(Node::Kind::ListComp, loc);
    if (absl::Status s = Comprehension(*comp); !s.ok()) // `for a, b in xs` (one clause)
      return s;
    if (comp->comps.size() != 1 || !comp->comps[0].second)
      return Fail(loc, "expected 'for NAME in ITERABLE:'");
    n->kids = {comp->comps[0].first, comp->comps[0].second};
    if (absl::Status s = ExpectOp(":", "after the loop's header"); !s.ok())
      return s;
    if (absl::Status s = Block(n->body); !s.ok())
      return s;
    if (AtKeyword("else"))
      return Fail(Peek().loc, "a loop's 'else' is not supported");
    return NodePtr(n);
  }
  if (t.Is(Token::Kind::Name, "def")) {
    auto n = Make(Node::Kind::Def, loc);
    ++pos_;
    if (Peek().kind != Token::Kind::Name)
      return Fail(Peek().loc, "expected the function's name");
    n->text = Peek().text;
    ++pos_;
    if (absl::Status s = ExpectOp("(", "after the function's name"); !s.ok())
      return s;
    if (absl::Status s = Parameters(n->params, n->keywords, ")"); !s.ok())
      return s;
    if (AcceptOp("->")) {
      auto ann = Test();
      if (!ann.ok())
        return ann.status();
    }
    if (absl::Status s = ExpectOp(":", "after the function's header"); !s.ok())
      return s;
    if (absl::Status s = Block(n->body); !s.ok())
      return s;
    return NodePtr(n);
  }
  if (t.Is(Token::Kind::Name, "return")) {
    auto n = Make(Node::Kind::Return, loc);
    ++pos_;
    if (Peek().kind != Token::Kind::Newline && !AtOp(";") && Peek().kind != Token::Kind::End) {
      auto v = Expression();
      if (!v.ok())
        return v.status();
      n->kids.push_back(*v);
    }
    if (absl::Status s = endOfSimple(); !s.ok())
      return s;
    return NodePtr(n);
  }
  if (t.Is(Token::Kind::Name, "pass")) {
    ++pos_;
    if (absl::Status s = endOfSimple(); !s.ok())
      return s;
    return NodePtr(Make(Node::Kind::Pass, loc));
  }
  if (t.kind == Token::Kind::Name && IsKeyword(t.text) && t.text != "not" &&
      t.text != "lambda" && t.text != "True" && t.text != "False" && t.text != "None") {
    // A statement outside the subset: kept, with its block, as an error where it runs.
    auto n = Make(Node::Kind::Unsupported, loc);
    n->text = t.text;
    int brackets = 0;
    while (Peek().kind != Token::Kind::End &&
           !(brackets == 0 && Peek().kind == Token::Kind::Newline)) {
      if (AtOp("(") || AtOp("[") || AtOp("{"))
        ++brackets;
      if (AtOp(")") || AtOp("]") || AtOp("}"))
        --brackets;
      ++pos_;
    }
    if (Peek().kind == Token::Kind::Newline)
      ++pos_;
    if (Peek().kind == Token::Kind::Indent) {
      int depth = 0;
      do {
        if (Peek().kind == Token::Kind::Indent)
          ++depth;
        if (Peek().kind == Token::Kind::Dedent)
          --depth;
        ++pos_;
      } while (depth > 0 && Peek().kind != Token::Kind::End);
    }
    // try/except/with blocks that continue (`except:` after `try:`) are skipped the same way.
    return NodePtr(n);
  }
  auto first = Expression();
  if (!first.ok())
    return first.status();
  static const char *const kAug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=",
                                     "<<=", ">>=", "&=", "|=", "^="};
  for (const char *op : kAug)
    if (AtOp(op)) {
      auto n = Make(Node::Kind::AugAssign, loc);
      n->text = std::string(op).substr(0, std::strlen(op) - 1);
      ++pos_;
      auto v = Expression();
      if (!v.ok())
        return v.status();
      n->kids = {*first, *v};
      if (absl::Status s = endOfSimple(); !s.ok())
        return s;
      return NodePtr(n);
    }
  if (AtOp(":") ) { // an annotated assignment: `x: int = 3`
    ++pos_;
    auto ann = Test();
    if (!ann.ok())
      return ann.status();
    if (!AtOp("=")) {
      if (absl::Status s = endOfSimple(); !s.ok())
        return s;
      return NodePtr(Make(Node::Kind::Pass, loc));
    }
  }
  if (AtOp("=")) {
    auto n = Make(Node::Kind::Assign, loc);
    n->kids.push_back(*first);
    while (AcceptOp("=")) {
      auto v = Expression();
      if (!v.ok())
        return v.status();
      n->kids.push_back(*v);
    }
    if (absl::Status s = endOfSimple(); !s.ok())
      return s;
    return NodePtr(n);
  }
  auto n = Make(Node::Kind::ExprStmt, loc);
  n->kids.push_back(*first);
  if (absl::Status s = endOfSimple(); !s.ok())
    return s;
  return NodePtr(n);
}

absl::StatusOr<NodePtr> ParseExpression(const std::string &source, const std::string &file,
                                        int line, int col) {
  auto tokens = Tokenize(source, file, line, col);
  if (!tokens.ok())
    return tokens.status();
  // One logical line: no indentation, statements or trailing tokens.
  std::vector<Token> toks;
  for (const Token &t : *tokens)
    if (t.kind != Token::Kind::Indent && t.kind != Token::Kind::Dedent)
      toks.push_back(t);
  Parser p(toks);
  if (p.Peek().kind == Token::Kind::Newline || p.Peek().kind == Token::Kind::End)
    return Error(Loc{file, line, col}, "empty expression");
  auto e = p.Expression();
  if (!e.ok())
    return e;
  if (p.Peek().kind != Token::Kind::Newline && p.Peek().kind != Token::Kind::End)
    return p.Fail(p.Peek().loc, "unexpected '" + p.Peek().text + "' after the expression");
  if (p.Peek(1).kind != Token::Kind::End)
    return p.Fail(p.Peek(1).loc, "expected one expression, found a second line");
  return e;
}

} // namespace tessel::expr
