//===- Parser.cpp - Triton-language source to a syntax tree -*- C++ -*-===//

#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/StatusMacros.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace tessel::frontend {
namespace {

/// Nesting limit for expressions and blocks: deeper input is an error, not a stack overflow.
constexpr int kMaxDepth = 200;
/// Height limit of one expression's tree, which loops build without recursion (a chain of
/// operators, calls or subscripts): code generation recurses once per level.
constexpr int kMaxExprHeight = 1000;
/// Nesting left to an elif's condition and block at the end of the longest elif chain.
constexpr int kElifRoom = 16;

class Parser {
public:
  Parser(const SourceFile &file, std::vector<Token> tokens)
      : file_(file), tokens_(std::move(tokens)) {}

  absl::StatusOr<Module> run() {
    Module module;
    while (!at(TokenKind::EndOfFile))
      RETURN_IF_ERROR(parseHostStatement(module, "", HostBlock::Straight));
    return module;
  }

private:
  // ---- tokens ----------------------------------------------------------------------------
  const Token &peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool atOp(const char *op) const { return peek().isOperator(op); }
  bool atKeyword(const char *word) const {
    return peek().kind == TokenKind::Name && peek().text == word;
  }
  const Token &next() {
    const Token &t = peek();
    if (pos_ < tokens_.size() - 1)
      ++pos_;
    return t;
  }
  bool acceptOp(const char *op) {
    if (!atOp(op))
      return false;
    ++pos_;
    return true;
  }
  bool acceptKeyword(const char *word) {
    if (!atKeyword(word))
      return false;
    ++pos_;
    return true;
  }

  absl::Status fail(SourceLocation loc, const std::string &message) const {
    return absl::InvalidArgumentError(file_.formatError(loc, message));
  }
  static std::string describe(const Token &t) {
    switch (t.kind) {
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::Indent:
      return "indentation";
    case TokenKind::Dedent:
      return "end of block";
    case TokenKind::EndOfFile:
      return "end of file";
    case TokenKind::String:
      return "a string";
    default:
      return "'" + t.text + "'";
    }
  }
  absl::Status expectOp(const char *op, const char *context) {
    if (acceptOp(op))
      return absl::OkStatus();
    return fail(peek().loc, std::string("expected '") + op + "' " + context + ", found " +
                                describe(peek()));
  }
  absl::Status expectNewline() {
    if (at(TokenKind::Newline)) {
      ++pos_;
      return absl::OkStatus();
    }
    if (at(TokenKind::EndOfFile))
      return absl::OkStatus();
    return fail(peek().loc, "expected end of line, found " + describe(peek()));
  }
  absl::Status expectName(std::string &out, const char *what) {
    if (at(TokenKind::Name) && !peek().isKeyword()) {
      out = next().text;
      return absl::OkStatus();
    }
    return fail(peek().loc, std::string("expected ") + what + ", found " + describe(peek()));
  }

  // ---- host code -------------------------------------------------------------------------
  // A kernel file is a Python module: kernels (@triton.jit functions, at module level or
  // nested in host functions and classes), aggregate classes, imports and constants, among
  // host code of any kind. Host code is read for its structure only — logical lines and the
  // blocks under them, which the lexer delimits for every Python statement — so that no
  // construct of it stops a kernel from compiling; kernels are parsed in full.

  /// How a block of host code binds names. Straight: the module's or a host function's body,
  /// whose straight-line assignments are constants kernels defined there may use.
  /// Conditional: a branch, loop, `with` or `try` body; what it assigns is host-only (its
  /// value depends on how the host code ran). Class: a class body (its names are not visible
  /// to functions defined in it, as in Python).
  enum class HostBlock { Straight, Conditional, Class };

  struct Saved {
    size_t pos;
    int depth, exprDepth;
  };
  Saved save() const { return {pos_, depth_, exprDepth_}; }
  /// Back to `s`, after an attempt (the caller drops the status of one that failed).
  void restore(const Saved &s) {
    pos_ = s.pos;
    depth_ = s.depth;
    exprDepth_ = s.exprDepth;
  }

  static std::string qualify(const std::string &scope, const std::string &name) {
    return scope.empty() ? name : scope + "." + name;
  }

  /// The rest of the logical line, its NEWLINE included.
  void skipLine() {
    while (!at(TokenKind::Newline) && !at(TokenKind::EndOfFile))
      ++pos_;
    if (at(TokenKind::Newline))
      ++pos_;
  }

  /// The name a decorator calls or is: `jit` for @triton.jit and @triton.jit(...).
  static std::string decoratorName(const Expr &d) {
    const Expr *callee = d.kind == ExprKind::Call ? d.operands[0].get() : &d;
    return callee->kind == ExprKind::Attribute || callee->kind == ExprKind::Name ? callee->name
                                                                                 : "";
  }
  static bool hasDecorator(const std::vector<ExprPtr> &decorators,
                           std::initializer_list<const char *> names) {
    for (const ExprPtr &d : decorators)
      for (const char *n : names)
        if (decoratorName(*d) == n)
          return true;
    return false;
  }

  /// Whether one of `decorators` is Triton's jit: `@triton.jit` (or through an alias of an
  /// `import triton as X`), or `@jit` imported from a triton module. `@numba.jit` is not.
  static bool hasTritonJit(const Module &module, const std::vector<ExprPtr> &decorators) {
    for (const ExprPtr &d : decorators) {
      const Expr *callee = d->kind == ExprKind::Call ? d->operands[0].get() : d.get();
      if (callee->name != "jit")
        continue;
      if (callee->kind == ExprKind::Name) {
        for (const Import &i : module.imports)
          if (i.alias == "jit" && i.module.rfind("triton", 0) == 0)
            return true;
      } else if (callee->kind == ExprKind::Attribute &&
                 callee->operands[0]->kind == ExprKind::Name) {
        const std::string &base = callee->operands[0]->name;
        if (base == "triton")
          return true;
        for (const Import &i : module.imports)
          if (i.alias == base && i.name.empty() && i.module == "triton")
            return true;
      }
    }
    return false;
  }

  /// `@expr NEWLINE` lines. A decorator outside the expression language (a lambda in
  /// @triton.heuristics, a comprehension in @triton.autotune's configs) keeps its dotted
  /// name, called without arguments: all that the kernel's code generation reads of it.
  void parseHostDecorators(std::vector<ExprPtr> &decorators) {
    while (atOp("@")) {
      Saved s = save();
      ++pos_;
      absl::StatusOr<ExprPtr> d = parseExpr();
      if (d.ok() && at(TokenKind::Newline)) {
        ++pos_;
        decorators.push_back(*std::move(d));
        continue;
      }
      restore(s); // drops `d`'s error, if any
      ++pos_;
      ExprPtr name;
      while (at(TokenKind::Name) && !peek().isKeyword()) {
        ExprPtr part = makeExpr(name ? ExprKind::Attribute : ExprKind::Name, peek().loc);
        part->name = next().text;
        if (name)
          part->operands.push_back(std::move(name));
        name = std::move(part);
        if (!acceptOp("."))
          break;
      }
      if (name && atOp("(")) {
        ExprPtr call = makeExpr(ExprKind::Call, name->loc);
        call->operands.push_back(std::move(name));
        name = std::move(call);
      }
      skipLine();
      if (name)
        decorators.push_back(std::move(name));
    }
  }

  /// The names a skipped line assigns (`a = ...`, `a, b = ...`, `a: T = ...`, `a += ...`),
  /// recorded as host names of `scope`.
  void recordHostAssignment(Module &module, const std::string &scope) {
    std::vector<const Token *> names;
    size_t i = pos_;
    while (tokens_[i].kind == TokenKind::Name && !tokens_[i].isKeyword()) {
      names.push_back(&tokens_[i]);
      const Token &after = tokens_[i + 1];
      if (after.isOperator(",") && tokens_[i + 2].kind == TokenKind::Name) {
        i += 2;
        continue;
      }
      static const std::set<std::string> kBinding = {"=",  ":",  "+=", "-=",  "*=",  "/=",
                                                     "//=", "%=", "**=", ">>=", "<<=", "&=",
                                                     "|=", "^=", "@="};
      if (after.kind != TokenKind::Operator || !kBinding.count(after.text))
        return;
      break;
    }
    for (const Token *t : names)
      module.hostNames.push_back({scope, t->text, "assigned by host code", t->loc});
  }

  /// The parameters of a host function whose '(' is at token `open`: host names of its
  /// scope (a kernel nested there must not silently read a module constant of that name).
  void recordParameters(Module &module, const std::string &scope, size_t open) {
    if (open >= tokens_.size() || !tokens_[open].isOperator("("))
      return;
    int depth = 0;
    for (size_t i = open; i < tokens_.size() && tokens_[i].kind != TokenKind::Newline; ++i) {
      const Token &t = tokens_[i];
      if (t.isOperator("(") || t.isOperator("[") || t.isOperator("{"))
        ++depth;
      else if (t.isOperator(")") || t.isOperator("]") || t.isOperator("}")) {
        if (--depth == 0)
          return;
      } else if (depth == 1 && t.kind == TokenKind::Name && !t.isKeyword()) {
        const Token &before = tokens_[i - 1];
        if (before.isOperator("(") || before.isOperator(",") || before.isOperator("*") ||
            before.isOperator("**"))
          module.hostNames.push_back({scope, t.text, "a parameter of a host function", t.loc});
      }
    }
  }

  /// Names a compound statement's header binds: `for a, b in`, `with ... as a`,
  /// `except E as a`; recorded as host names of `scope`.
  void recordHeaderNames(Module &module, const std::string &scope) {
    size_t i = pos_;
    if (tokens_[i].is(TokenKind::Name, "async"))
      ++i;
    bool isFor = tokens_[i].is(TokenKind::Name, "for");
    for (; tokens_[i].kind != TokenKind::Newline && tokens_[i].kind != TokenKind::EndOfFile;
         ++i) {
      const Token &t = tokens_[i];
      if (isFor && t.is(TokenKind::Name, "in"))
        isFor = false;
      bool bound = (isFor && i > pos_ && t.kind == TokenKind::Name && !t.isKeyword()) ||
                   (t.kind == TokenKind::Name && !t.isKeyword() &&
                    tokens_[i - 1].is(TokenKind::Name, "as"));
      if (bound)
        module.hostNames.push_back({scope, t.text, "bound by host code", t.loc});
    }
  }

  /// One statement of host code (with the block under it).
  absl::Status parseHostStatement(Module &module, const std::string &scope, HostBlock block) {
    if (at(TokenKind::Newline)) {
      ++pos_;
      return absl::OkStatus();
    }
    if (at(TokenKind::Indent))
      return fail(peek().loc, "unexpected indent");
    if (atKeyword("import") || atKeyword("from")) {
      if (scope.empty() && block == HostBlock::Straight) {
        Saved s = save();
        size_t before = module.imports.size();
        absl::Status imported = parseImport(module);
        if (imported.ok())
          return absl::OkStatus();
        if (starFromTriton_) // a kernel-relevant import tessel cannot honour
          return imported;
        restore(s); // drops `imported`
        module.imports.resize(before);
      }
      skipLine();
      return absl::OkStatus();
    }
    std::vector<ExprPtr> decorators;
    parseHostDecorators(decorators);
    bool isAsync = atKeyword("async");
    if (atKeyword("def") || (isAsync && peek(1).is(TokenKind::Name, "def"))) {
      if (!isAsync && hasTritonJit(module, decorators)) {
        FunctionDef fn;
        fn.decorators = std::move(decorators);
        fn.scope = scope;
        RETURN_IF_ERROR(parseFunction(fn));
        module.functions.push_back(std::move(fn));
        return absl::OkStatus();
      }
      const Token &name = peek(isAsync ? 2 : 1);
      module.hostNames.push_back({scope, name.text, "a host function", name.loc});
      recordParameters(module, qualify(scope, name.text), pos_ + (isAsync ? 3 : 2));
      return skipHostBlock(module, qualify(scope, name.text), HostBlock::Straight);
    }
    if (atKeyword("class")) {
      const Token &name = peek(1);
      if (scope.empty() && hasDecorator(decorators, {"aggregate", "_aggregate"})) {
        ClassDef cls;
        cls.decorators = std::move(decorators);
        RETURN_IF_ERROR(parseClass(cls));
        module.classes.push_back(std::move(cls));
        return absl::OkStatus();
      }
      module.hostNames.push_back({scope, name.text, "a host class", name.loc});
      module.classScopes.insert(qualify(scope, name.text));
      return skipHostBlock(module, qualify(scope, name.text), HostBlock::Class);
    }
    static const char *const kCompound[] = {"if",   "elif",    "else",  "for",  "while",
                                            "try",  "except",  "finally", "with", "async",
                                            "match", "case"};
    for (const char *word : kCompound)
      if (atKeyword(word) && !(peek(1).kind == TokenKind::Operator &&
                               (peek(1).text == "=" || peek(1).text == "." ||
                                peek(1).text == "(" || peek(1).text == "[")) ) {
        if (block != HostBlock::Class)
          recordHeaderNames(module, scope);
        return skipHostBlock(module, scope,
                             block == HostBlock::Class ? HostBlock::Class
                                                       : HostBlock::Conditional);
      }
    if (block == HostBlock::Straight) {
      Saved s = save();
      absl::StatusOr<StmtPtr> stmt = parseStatement();
      if (stmt.ok()) {
        bool constant =
            (*stmt)->kind == StmtKind::Assign || (*stmt)->kind == StmtKind::AnnAssign;
        for (const ExprPtr &t : (*stmt)->targets)
          constant = constant && t->kind == ExprKind::Name;
        if (constant) {
          (*stmt)->scope = scope;
          module.globals.push_back(*std::move(stmt));
          return absl::OkStatus();
        }
      }
      restore(s); // drops `stmt`'s error, if any
    }
    if (block != HostBlock::Class)
      recordHostAssignment(module, scope);
    return skipHostBlock(module, scope,
                         block == HostBlock::Class ? HostBlock::Class : HostBlock::Conditional);
  }

  /// A line of host code and the indented block under it, if any (its statements read with
  /// parseHostStatement in `scope`, binding names as `block` says).
  absl::Status skipHostBlock(Module &module, const std::string &scope, HostBlock block) {
    skipLine();
    if (!at(TokenKind::Indent))
      return absl::OkStatus();
    if (++depth_ > kMaxDepth)
      return fail(peek().loc, "blocks are nested too deeply");
    ++pos_;
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile))
      RETURN_IF_ERROR(parseHostStatement(module, scope, block));
    if (at(TokenKind::Dedent))
      ++pos_;
    --depth_;
    return absl::OkStatus();
  }

  /// `@expr NEWLINE` lines before a method or field of an aggregate class.
  absl::Status parseDecorators(std::vector<ExprPtr> &decorators) {
    while (atOp("@")) {
      ++pos_;
      ASSIGN_OR_RETURN(ExprPtr d, parseExpr());
      RETURN_IF_ERROR(expectNewline());
      decorators.push_back(std::move(d));
    }
    return absl::OkStatus();
  }

  absl::Status parseDecoratedFunction(std::vector<ExprPtr> &decorators,
                                      std::vector<FunctionDef> &into) {
    FunctionDef fn;
    fn.decorators = std::move(decorators);
    RETURN_IF_ERROR(parseFunction(fn));
    into.push_back(std::move(fn));
    return absl::OkStatus();
  }

  absl::Status parseDotted(std::string &out) {
    std::string part;
    RETURN_IF_ERROR(expectName(part, "a module name"));
    out = part;
    while (acceptOp(".")) {
      RETURN_IF_ERROR(expectName(part, "a module name"));
      out += "." + part;
    }
    return absl::OkStatus();
  }

  absl::Status parseImport(Module &module) {
    SourceLocation loc = peek().loc;
    if (acceptKeyword("import")) {
      do {
        Import imp;
        imp.loc = peek().loc;
        RETURN_IF_ERROR(parseDotted(imp.module));
        imp.alias = imp.module.substr(0, imp.module.find('.'));
        if (acceptKeyword("as")) {
          RETURN_IF_ERROR(expectName(imp.alias, "a name after 'as'"));
        } else if (imp.module.find('.') != std::string::npos) {
          imp.module = imp.alias; // `import a.b` binds `a`
        }
        module.imports.push_back(std::move(imp));
      } while (acceptOp(","));
      return expectNewline();
    }
    acceptKeyword("from");
    std::string from;
    RETURN_IF_ERROR(parseDotted(from));
    if (!acceptKeyword("import"))
      return fail(peek().loc, "expected 'import' after 'from " + from + "'");
    bool paren = acceptOp("(");
    do {
      if (paren && atOp(")"))
        break;
      Import imp;
      imp.loc = peek().loc;
      imp.module = from;
      if (acceptOp("*")) {
        if (from != "triton" && from.rfind("triton.", 0) != 0) { // host code's business
          skipLine();
          return absl::OkStatus();
        }
        starFromTriton_ = true;
        return fail(loc, "'from " + from + " import *' is not supported: import names");
      }
      RETURN_IF_ERROR(expectName(imp.name, "a name to import"));
      imp.alias = imp.name;
      if (acceptKeyword("as"))
        RETURN_IF_ERROR(expectName(imp.alias, "a name after 'as'"));
      module.imports.push_back(std::move(imp));
    } while (acceptOp(","));
    if (paren)
      RETURN_IF_ERROR(expectOp(")", "to close the import list"));
    return expectNewline();
  }

  absl::Status parseFunction(FunctionDef &fn) {
    fn.loc = next().loc; // def
    RETURN_IF_ERROR(expectName(fn.name, "a function name"));
    RETURN_IF_ERROR(expectOp("(", "after the function name"));
    std::set<std::string> seen;
    while (!atOp(")")) {
      if (atOp("*") || atOp("**") || atOp("/"))
        return fail(peek().loc, "'" + peek().text + "' parameters are not supported");
      Param p;
      p.loc = peek().loc;
      RETURN_IF_ERROR(expectName(p.name, "a parameter name"));
      if (!seen.insert(p.name).second)
        return fail(p.loc, "duplicate parameter '" + p.name + "'");
      if (acceptOp(":")) {
        ASSIGN_OR_RETURN(p.annotation, parseExpr());
      }
      if (acceptOp("=")) {
        ASSIGN_OR_RETURN(p.defaultValue, parseExpr());
      } else if (!fn.params.empty() && fn.params.back().defaultValue) {
        return fail(p.loc, "parameter '" + p.name +
                               "' without a default follows one with a default");
      }
      fn.params.push_back(std::move(p));
      if (!acceptOp(","))
        break;
    }
    RETURN_IF_ERROR(expectOp(")", "to close the parameter list"));
    if (acceptOp("->"))
      RETURN_IF_ERROR(parseExpr().status());
    RETURN_IF_ERROR(expectOp(":", "after the function signature"));
    return parseBlock(fn.body);
  }

  absl::Status parseClass(ClassDef &cls) {
    cls.loc = next().loc; // class
    RETURN_IF_ERROR(expectName(cls.name, "a class name"));
    if (acceptOp("(")) {
      while (!atOp(")")) {
        RETURN_IF_ERROR(parseExpr().status());
        if (!acceptOp(","))
          break;
      }
      RETURN_IF_ERROR(expectOp(")", "to close the base classes"));
    }
    RETURN_IF_ERROR(expectOp(":", "after the class name"));
    RETURN_IF_ERROR(expectNewline());
    if (!at(TokenKind::Indent))
      return fail(peek().loc, "expected an indented class body");
    ++pos_;
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile)) {
      if (at(TokenKind::Newline)) {
        ++pos_;
        continue;
      }
      std::vector<ExprPtr> decorators;
      RETURN_IF_ERROR(parseDecorators(decorators));
      if (atKeyword("def")) {
        RETURN_IF_ERROR(parseDecoratedFunction(decorators, cls.methods));
        continue;
      }
      if (!decorators.empty())
        return fail(peek().loc, "a decorator must be followed by 'def'");
      if (acceptKeyword("pass")) {
        RETURN_IF_ERROR(expectNewline());
        continue;
      }
      if (at(TokenKind::String)) { // docstring
        ++pos_;
        RETURN_IF_ERROR(expectNewline());
        continue;
      }
      Field field;
      field.loc = peek().loc;
      RETURN_IF_ERROR(expectName(field.name, "a field (name: type) or a method"));
      if (!acceptOp(":"))
        return fail(peek().loc, "a class body holds annotated fields (name: type) and methods");
      ASSIGN_OR_RETURN(field.annotation, parseExpr());
      if (atOp("="))
        return fail(peek().loc, "aggregate fields take no default value");
      RETURN_IF_ERROR(expectNewline());
      cls.fields.push_back(std::move(field));
    }
    if (at(TokenKind::Dedent))
      ++pos_;
    return absl::OkStatus();
  }

  // ---- statements ------------------------------------------------------------------------
  absl::Status parseBlock(Block &block) {
    if (++depth_ > kMaxDepth)
      return fail(peek().loc, "blocks are nested too deeply");
    struct Leave {
      int &d;
      ~Leave() { --d; }
    } leave{depth_};
    if (!at(TokenKind::Newline)) { // one-line body: `if x: y = 1`
      do {
        ASSIGN_OR_RETURN(StmtPtr s, parseSimpleStatement());
        block.push_back(std::move(s));
      } while (acceptOp(";") && !at(TokenKind::Newline));
      return expectNewline();
    }
    ++pos_;
    if (!at(TokenKind::Indent))
      return fail(peek().loc, "expected an indented block");
    ++pos_;
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile)) {
      if (at(TokenKind::Newline)) {
        ++pos_;
        continue;
      }
      ASSIGN_OR_RETURN(StmtPtr s, parseStatement());
      block.push_back(std::move(s));
    }
    if (at(TokenKind::Dedent))
      ++pos_;
    return absl::OkStatus();
  }

  StmtPtr make(StmtKind kind, SourceLocation loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->loc = loc;
    return s;
  }

  absl::StatusOr<StmtPtr> parseStatement() {
    SourceLocation loc = peek().loc;
    if (at(TokenKind::Indent))
      return fail(loc, "unexpected indent");
    if (atKeyword("if"))
      return parseIf();
    if (acceptKeyword("for")) {
      StmtPtr s = make(StmtKind::For, loc);
      ASSIGN_OR_RETURN(ExprPtr target, parseTargetList());
      if (!acceptKeyword("in"))
        return fail(peek().loc, "expected 'in' in the for statement, found " + describe(peek()));
      s->targets.push_back(std::move(target));
      ASSIGN_OR_RETURN(s->value, parseExpr());
      RETURN_IF_ERROR(expectOp(":", "after the for header"));
      RETURN_IF_ERROR(parseBlock(s->body));
      if (atKeyword("else"))
        return fail(peek().loc, "'for ... else' is not supported");
      return s;
    }
    if (acceptKeyword("while")) {
      StmtPtr s = make(StmtKind::While, loc);
      ASSIGN_OR_RETURN(s->value, parseExpr());
      RETURN_IF_ERROR(expectOp(":", "after the while condition"));
      RETURN_IF_ERROR(parseBlock(s->body));
      if (atKeyword("else"))
        return fail(peek().loc, "'while ... else' is not supported");
      return s;
    }
    for (const char *word : {"try", "with", "class", "def", "async"}) {
      if (atKeyword(word))
        return fail(loc, std::string("'") + word + "' is not supported inside a kernel function");
    }
    if (atOp("@"))
      return fail(loc, "nested decorated functions are not supported");
    ASSIGN_OR_RETURN(StmtPtr s, parseSimpleStatement());
    while (acceptOp(";") && !at(TokenKind::Newline)) {
      // a; b on one line: only the first is returned here when it is alone, so split
      // further statements into a pseudo-block is not needed: reject for clarity.
      return fail(peek().loc,
                  "several statements on one line are not supported; use one per line");
    }
    RETURN_IF_ERROR(expectNewline());
    return s;
  }

  absl::StatusOr<StmtPtr> parseIf() {
    StmtPtr s = make(StmtKind::If, next().loc); // if / elif
    ASSIGN_OR_RETURN(s->value, parseExpr());
    RETURN_IF_ERROR(expectOp(":", "after the if condition"));
    RETURN_IF_ERROR(parseBlock(s->body));
    if (atKeyword("elif")) {
      // Each elif is an if nested in the else branch: bounded like any nesting, with room
      // left for the last elif's condition and block (else the chain would end with an error
      // about them instead).
      if (++depth_ > kMaxDepth - kElifRoom) {
        --depth_;
        return fail(peek().loc, "too many 'elif' branches in one if statement");
      }
      absl::StatusOr<StmtPtr> nested = parseIf();
      --depth_;
      if (!nested.ok())
        return nested.status();
      s->orelse.push_back(*std::move(nested));
    } else if (acceptKeyword("else")) {
      RETURN_IF_ERROR(expectOp(":", "after 'else'"));
      RETURN_IF_ERROR(parseBlock(s->orelse));
    }
    return s;
  }

  absl::StatusOr<StmtPtr> parseSimpleStatement() {
    SourceLocation loc = peek().loc;
    if (acceptKeyword("pass"))
      return make(StmtKind::Pass, loc);
    if (acceptKeyword("return")) {
      StmtPtr s = make(StmtKind::Return, loc);
      if (!at(TokenKind::Newline) && !atOp(";") && !at(TokenKind::EndOfFile)) {
        ASSIGN_OR_RETURN(s->value, parseExprList());
      }
      return s;
    }
    if (acceptKeyword("assert")) {
      StmtPtr s = make(StmtKind::Assert, loc);
      ASSIGN_OR_RETURN(s->value, parseExpr());
      if (acceptOp(",")) {
        ASSIGN_OR_RETURN(s->message, parseExpr());
      }
      return s;
    }
    for (const char *word : {"break", "continue", "raise", "del", "global", "nonlocal", "yield",
                             "import", "from", "lambda", "await"}) {
      if (atKeyword(word))
        return fail(loc, std::string("'") + word + "' is not supported inside a kernel function");
    }
    ASSIGN_OR_RETURN(ExprPtr first, parseExprList());
    if (atOp(":")) { // annotated assignment
      ++pos_;
      StmtPtr s = make(StmtKind::AnnAssign, loc);
      RETURN_IF_ERROR(checkTarget(*first));
      s->targets.push_back(std::move(first));
      ASSIGN_OR_RETURN(s->annotation, parseExpr());
      if (acceptOp("=")) {
        ASSIGN_OR_RETURN(s->value, parseExprList());
      }
      return s;
    }
    static const char *augmented[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=",
                                      "<<=", ">>=", "&=", "|=", "^=", "@="};
    for (const char *op : augmented) {
      if (atOp(op)) {
        ++pos_;
        StmtPtr s = make(StmtKind::AugAssign, loc);
        s->op = std::string(op).substr(0, std::string(op).size() - 1);
        if (first->kind == ExprKind::Tuple)
          return fail(first->loc, "an augmented assignment takes a single target");
        RETURN_IF_ERROR(checkTarget(*first));
        s->targets.push_back(std::move(first));
        ASSIGN_OR_RETURN(s->value, parseExprList());
        return s;
      }
    }
    if (atOp("=")) {
      StmtPtr s = make(StmtKind::Assign, loc);
      s->targets.push_back(std::move(first));
      while (acceptOp("=")) {
        ASSIGN_OR_RETURN(ExprPtr e, parseExprList());
        s->targets.push_back(std::move(e));
      }
      s->value = std::move(s->targets.back());
      s->targets.pop_back();
      for (ExprPtr &t : s->targets)
        RETURN_IF_ERROR(checkTarget(*t));
      return s;
    }
    StmtPtr s = make(StmtKind::Expr, loc);
    s->value = std::move(first);
    return s;
  }

  absl::Status checkTarget(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
      return absl::OkStatus();
    case ExprKind::Tuple:
    case ExprKind::List:
      for (const ExprPtr &o : e.operands)
        RETURN_IF_ERROR(checkTarget(*o));
      return absl::OkStatus();
    case ExprKind::Subscript:
      return fail(e.loc, "assignment to a subscript is not supported: tensors are immutable "
                         "values (build a new one, e.g. with tl.where)");
    default:
      return fail(e.loc, "cannot assign to this expression");
    }
  }

  /// `a, b` in a for header (stops at `in`).
  absl::StatusOr<ExprPtr> parseTargetList() {
    SourceLocation loc = peek().loc;
    std::vector<ExprPtr> items;
    do {
      if (atKeyword("in"))
        break;
      ASSIGN_OR_RETURN(ExprPtr e, parseBinary(0)); // no comparisons: `in` ends the targets
      RETURN_IF_ERROR(withinHeight(*e));
      RETURN_IF_ERROR(checkTarget(*e));
      items.push_back(std::move(e));
    } while (acceptOp(","));
    if (items.size() == 1)
      return std::move(items.front());
    auto t = makeExpr(ExprKind::Tuple, loc);
    t->operands = std::move(items);
    return t;
  }

  // ---- expressions -----------------------------------------------------------------------
  ExprPtr makeExpr(ExprKind kind, SourceLocation loc) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->loc = loc;
    return e;
  }

  /// `a, b, c` (a bare tuple) or a single expression.
  absl::StatusOr<ExprPtr> parseExprList() {
    SourceLocation loc = peek().loc;
    ASSIGN_OR_RETURN(ExprPtr first, parseExpr());
    if (!atOp(","))
      return first;
    auto t = makeExpr(ExprKind::Tuple, loc);
    t->operands.push_back(std::move(first));
    while (acceptOp(",")) {
      if (at(TokenKind::Newline) || atOp("=") || atOp(")") || at(TokenKind::EndOfFile))
        break;
      ASSIGN_OR_RETURN(ExprPtr e, parseExpr());
      t->operands.push_back(std::move(e));
    }
    return t;
  }

  absl::StatusOr<ExprPtr> parseExpr() {
    if (++depth_ > kMaxDepth) {
      --depth_;
      return fail(peek().loc, "expression is nested too deeply");
    }
    bool outermost = exprDepth_++ == 0;
    absl::StatusOr<ExprPtr> e = parseTernary();
    --exprDepth_;
    --depth_;
    if (outermost && e.ok())
      RETURN_IF_ERROR(withinHeight(**e));
    return e;
  }

  /// OK when `root`'s tree is at most kMaxExprHeight high (measured without recursion); an
  /// error at its location otherwise.
  absl::Status withinHeight(const Expr &root) {
    std::vector<std::pair<const Expr *, int>> work = {{&root, 1}};
    while (!work.empty()) {
      auto [e, height] = work.back();
      work.pop_back();
      if (height > kMaxExprHeight) {
        return fail(root.loc, "expression is nested too deeply: more than " +
                                  std::to_string(kMaxExprHeight) +
                                  " levels of operators, calls or subscripts; split it with "
                                  "intermediate variables");
      }
      for (const ExprPtr &o : e->operands)
        if (o)
          work.push_back({o.get(), height + 1});
      for (const auto &kw : e->keywords)
        if (kw.second)
          work.push_back({kw.second.get(), height + 1});
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ExprPtr> parseTernary() {
    if (atKeyword("lambda"))
      return fail(peek().loc, "'lambda' is not supported: define a @triton.jit function");
    ASSIGN_OR_RETURN(ExprPtr body, parseOr());
    if (!atKeyword("if"))
      return body;
    SourceLocation loc = next().loc;
    ASSIGN_OR_RETURN(ExprPtr cond, parseOr());
    if (!acceptKeyword("else")) {
      return fail(peek().loc, "expected 'else' in the conditional expression, found " +
                                  describe(peek()));
    }
    ASSIGN_OR_RETURN(ExprPtr other, parseExpr());
    auto e = makeExpr(ExprKind::IfExp, loc);
    e->operands.push_back(std::move(cond));
    e->operands.push_back(std::move(body));
    e->operands.push_back(std::move(other));
    return e;
  }

  absl::StatusOr<ExprPtr> parseBool(const char *word,
                                    absl::StatusOr<ExprPtr> (Parser::*operand)()) {
    ASSIGN_OR_RETURN(ExprPtr first, (this->*operand)());
    if (!atKeyword(word))
      return first;
    auto e = makeExpr(ExprKind::BoolOp, first->loc);
    e->name = word;
    e->operands.push_back(std::move(first));
    while (acceptKeyword(word)) {
      ASSIGN_OR_RETURN(ExprPtr next, (this->*operand)());
      e->operands.push_back(std::move(next));
    }
    return e;
  }
  absl::StatusOr<ExprPtr> parseOr() { return parseBool("or", &Parser::parseAnd); }
  absl::StatusOr<ExprPtr> parseAnd() { return parseBool("and", &Parser::parseNot); }
  absl::StatusOr<ExprPtr> parseNot() {
    if (atKeyword("not")) {
      SourceLocation loc = next().loc;
      ASSIGN_OR_RETURN(ExprPtr operand, nested(&Parser::parseNot));
      auto e = makeExpr(ExprKind::UnaryOp, loc);
      e->name = "not";
      e->operands.push_back(std::move(operand));
      return e;
    }
    return parseComparison();
  }

  /// Calls `rule` one level deeper, failing on runaway recursion (`not not not ...`).
  absl::StatusOr<ExprPtr> nested(absl::StatusOr<ExprPtr> (Parser::*rule)()) {
    if (++depth_ > kMaxDepth) {
      --depth_;
      return fail(peek().loc, "expression is nested too deeply");
    }
    absl::StatusOr<ExprPtr> e = (this->*rule)();
    --depth_;
    return e;
  }

  absl::StatusOr<ExprPtr> parseComparison() {
    ASSIGN_OR_RETURN(ExprPtr first, parseBinary(0));
    ExprPtr cmp;
    while (true) {
      std::string op;
      if (atOp("<") || atOp(">") || atOp("<=") || atOp(">=") || atOp("==") || atOp("!=")) {
        op = next().text;
      } else if (atKeyword("in") || (atKeyword("not") && peek(1).kind == TokenKind::Name &&
                                     peek(1).text == "in")) {
        return fail(peek().loc, "'in' comparisons are not supported");
      } else if (atKeyword("is")) {
        next();
        op = acceptKeyword("not") ? "is not" : "is";
      } else {
        break;
      }
      if (!cmp) {
        cmp = makeExpr(ExprKind::Compare, first->loc);
        cmp->operands.push_back(std::move(first));
      }
      ASSIGN_OR_RETURN(ExprPtr rhs, parseBinary(0));
      cmp->ops.push_back(op);
      cmp->operands.push_back(std::move(rhs));
    }
    return cmp ? std::move(cmp) : std::move(first);
  }

  /// Binary operators by precedence level (lowest first); ** and unary operators below.
  absl::StatusOr<ExprPtr> parseBinary(int level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}};
    if (level == int(levels.size()))
      return parseUnary();
    ASSIGN_OR_RETURN(ExprPtr lhs, parseBinary(level + 1));
    while (true) {
      const Token &t = peek();
      if (t.kind != TokenKind::Operator ||
          std::find(levels[level].begin(), levels[level].end(), t.text) == levels[level].end())
        break;
      auto e = makeExpr(ExprKind::BinOp, t.loc);
      e->name = next().text;
      ASSIGN_OR_RETURN(ExprPtr rhs, parseBinary(level + 1));
      e->operands.push_back(std::move(lhs));
      e->operands.push_back(std::move(rhs));
      lhs = std::move(e);
    }
    return lhs;
  }

  absl::StatusOr<ExprPtr> parseUnary() {
    if (atOp("-") || atOp("+") || atOp("~")) {
      SourceLocation loc = peek().loc;
      std::string op = next().text;
      ASSIGN_OR_RETURN(ExprPtr operand, nested(&Parser::parseUnary));
      auto e = makeExpr(ExprKind::UnaryOp, loc);
      e->name = op;
      e->operands.push_back(std::move(operand));
      return e;
    }
    return parsePower();
  }

  absl::StatusOr<ExprPtr> parsePower() {
    ASSIGN_OR_RETURN(ExprPtr base, parsePrimary());
    if (!atOp("**"))
      return base;
    SourceLocation loc = next().loc;
    // right-associative, binds unary minus
    ASSIGN_OR_RETURN(ExprPtr exponent, nested(&Parser::parseUnary));
    auto e = makeExpr(ExprKind::BinOp, loc);
    e->name = "**";
    e->operands.push_back(std::move(base));
    e->operands.push_back(std::move(exponent));
    return e;
  }

  absl::StatusOr<ExprPtr> parsePrimary() {
    SourceLocation start = peek().loc; // calls are located where their expression starts
    ASSIGN_OR_RETURN(ExprPtr e, parseAtom());
    while (true) {
      if (atOp(".")) {
        next();
        auto a = makeExpr(ExprKind::Attribute, peek().loc);
        RETURN_IF_ERROR(expectName(a->name, "an attribute name after '.'"));
        a->operands.push_back(std::move(e));
        e = std::move(a);
      } else if (atOp("(")) {
        SourceLocation loc = next().loc;
        auto c = makeExpr(ExprKind::Call, start);
        c->operands.push_back(std::move(e));
        RETURN_IF_ERROR(parseArguments(*c));
        (void)loc;
        e = std::move(c);
      } else if (atOp("[")) {
        SourceLocation loc = next().loc;
        auto s = makeExpr(ExprKind::Subscript, loc);
        s->operands.push_back(std::move(e));
        do {
          if (atOp("]"))
            break;
          ASSIGN_OR_RETURN(ExprPtr index, parseSubscriptItem());
          s->operands.push_back(std::move(index));
        } while (acceptOp(","));
        if (s->operands.size() == 1)
          return fail(peek().loc, "empty subscript");
        RETURN_IF_ERROR(expectOp("]", "to close the subscript"));
        e = std::move(s);
      } else {
        break;
      }
    }
    return e;
  }

  absl::StatusOr<ExprPtr> parseSubscriptItem() {
    SourceLocation loc = peek().loc;
    ExprPtr lo;
    if (!atOp(":")) {
      ASSIGN_OR_RETURN(lo, parseExpr());
      if (!atOp(":"))
        return lo;
    }
    auto slice = makeExpr(ExprKind::Slice, loc);
    next(); // :
    ExprPtr hi, step;
    if (!atOp(":") && !atOp(",") && !atOp("]")) {
      ASSIGN_OR_RETURN(hi, parseExpr());
    }
    if (acceptOp(":") && !atOp(",") && !atOp("]")) {
      ASSIGN_OR_RETURN(step, parseExpr());
    }
    slice->operands.push_back(std::move(lo));
    slice->operands.push_back(std::move(hi));
    slice->operands.push_back(std::move(step));
    return slice;
  }

  absl::Status parseArguments(Expr &call) {
    bool keywords = false;
    while (!atOp(")")) {
      if (atOp("*") || atOp("**"))
        return fail(peek().loc, "argument unpacking ('*' / '**') is not supported");
      if (at(TokenKind::Name) && !peek().isKeyword() && peek(1).isOperator("=")) {
        std::string name = next().text;
        next(); // =
        ASSIGN_OR_RETURN(ExprPtr value, parseExpr());
        for (auto &kw : call.keywords)
          if (kw.first == name)
            return fail(value->loc, "keyword argument '" + name + "' repeated");
        call.keywords.emplace_back(name, std::move(value));
        keywords = true;
      } else {
        SourceLocation loc = peek().loc;
        ASSIGN_OR_RETURN(ExprPtr value, parseExpr());
        if (keywords)
          return fail(loc, "positional argument follows keyword argument");
        call.operands.push_back(std::move(value));
      }
      if (!acceptOp(","))
        break;
    }
    return expectOp(")", "to close the argument list");
  }

  absl::StatusOr<ExprPtr> parseAtom() {
    const Token &t = peek();
    SourceLocation loc = t.loc;
    switch (t.kind) {
    case TokenKind::Integer: {
      std::string digits;
      for (char c : t.text)
        if (c != '_')
          digits += c;
      int base = 10;
      size_t start = 0;
      if (digits.size() > 1 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1]))) {
        char b = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[1])));
        base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
        start = 2;
      } else if (digits.size() > 1 && digits[0] == '0' &&
                 digits.find_first_not_of('0') != std::string::npos) {
        return fail(loc,
                    "leading zeros in a decimal integer are not permitted (use 0o for octal)");
      }
      errno = 0;
      char *end = nullptr;
      unsigned long long v = std::strtoull(digits.c_str() + start, &end, base);
      if (errno == ERANGE || v > uint64_t(INT64_MAX))
        return fail(loc, "integer literal " + t.text + " does not fit in 64 bits");
      next();
      auto e = makeExpr(ExprKind::Int, loc);
      e->intValue = int64_t(v);
      return e;
    }
    case TokenKind::Float: {
      if (t.special)
        return fail(loc, "complex numbers are not supported in kernels");
      std::string digits;
      for (char c : t.text)
        if (c != '_')
          digits += c;
      next();
      auto e = makeExpr(ExprKind::Float, loc);
      e->floatValue = std::strtod(digits.c_str(), nullptr);
      return e;
    }
    case TokenKind::String: {
      auto e = makeExpr(ExprKind::String, loc);
      while (at(TokenKind::String)) { // implicit concatenation
        if (peek().special)
          return fail(peek().loc, "f-strings are not supported in kernels");
        e->name += next().text;
      }
      return e;
    }
    case TokenKind::Name: {
      if (t.text == "True" || t.text == "False") {
        auto e = makeExpr(ExprKind::Bool, loc);
        e->intValue = t.text == "True";
        next();
        return e;
      }
      if (t.text == "None") {
        next();
        return makeExpr(ExprKind::None, loc);
      }
      if (t.isKeyword()) {
        return fail(loc, "unexpected '" + t.text + "'" +
                             (t.text == "lambda" || t.text == "yield" || t.text == "await"
                                  ? ": not supported"
                                  : ""));
      }
      auto e = makeExpr(ExprKind::Name, loc);
      e->name = next().text;
      return e;
    }
    case TokenKind::Operator:
      if (t.text == "(") {
        next();
        if (acceptOp(")")) {
          auto e = makeExpr(ExprKind::Tuple, loc);
          e->parenthesized = true;
          return e;
        }
        ASSIGN_OR_RETURN(ExprPtr first, parseExpr());
        if (atKeyword("for"))
          return fail(peek().loc, "generator expressions are not supported");
        if (acceptOp(")"))
          return first;
        auto e = makeExpr(ExprKind::Tuple, loc);
        e->parenthesized = true;
        e->operands.push_back(std::move(first));
        while (acceptOp(",")) {
          if (atOp(")"))
            break;
          ASSIGN_OR_RETURN(ExprPtr item, parseExpr());
          e->operands.push_back(std::move(item));
        }
        RETURN_IF_ERROR(expectOp(")", "to close the parenthesis"));
        return e;
      }
      if (t.text == "[") {
        next();
        auto e = makeExpr(ExprKind::List, loc);
        while (!atOp("]")) {
          ASSIGN_OR_RETURN(ExprPtr item, parseExpr());
          if (atKeyword("for"))
            return fail(peek().loc, "list comprehensions are not supported");
          e->operands.push_back(std::move(item));
          if (!acceptOp(","))
            break;
        }
        RETURN_IF_ERROR(expectOp("]", "to close the list"));
        return e;
      }
      if (t.text == "{") {
        // Dicts appear in decorators (triton.autotune's triton.Config({...})), which are
        // accepted and ignored; code generation rejects them inside kernels.
        next();
        auto e = makeExpr(ExprKind::Dict, loc);
        while (!atOp("}")) {
          ASSIGN_OR_RETURN(ExprPtr key, parseExpr());
          RETURN_IF_ERROR(
              expectOp(":", "between a key and its value (set literals are not supported)"));
          ASSIGN_OR_RETURN(ExprPtr value, parseExpr());
          e->operands.push_back(std::move(key));
          e->operands.push_back(std::move(value));
          if (!acceptOp(","))
            break;
        }
        RETURN_IF_ERROR(expectOp("}", "to close the dict"));
        return e;
      }
      break;
    default:
      break;
    }
    return fail(loc, "expected an expression, found " + describe(t));
  }

  const SourceFile &file_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int exprDepth_ = 0; ///< parseExpr calls in progress (0: none; 1: the outermost)
  bool starFromTriton_ = false; ///< `from triton... import *` seen: an error, not host code
};

} // namespace

Expr::~Expr() {
  std::vector<ExprPtr> work;
  auto adopt = [&](Expr &e) {
    for (ExprPtr &o : e.operands)
      if (o)
        work.push_back(std::move(o));
    for (auto &kw : e.keywords)
      if (kw.second)
        work.push_back(std::move(kw.second));
  };
  adopt(*this);
  while (!work.empty()) {
    ExprPtr e = std::move(work.back());
    work.pop_back();
    adopt(*e); // its children move here; its own destructor then finds none
  }
}

absl::StatusOr<Module> Parse(const SourceFile &file) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(file);
  if (!tokens.ok())
    return tokens.status();
  return Parser(file, *std::move(tokens)).run();
}

} // namespace tessel::frontend
