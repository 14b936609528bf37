//===- KernelEntry.cpp - the kernel entry: signature, specialization and the tt module -*- C++ -*-===//

#include "compiler/frontend/Generator.h"
#include "compiler/frontend/Parser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

using namespace mlir;

namespace tessel::frontend {

Generator::Generator(MLIRContext &context, const SourceFile &file, const Module &module)
    : context_(context), file_(file), module_(module), b_(&context) {
  context_.loadDialect<tt::TTDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                       cf::ControlFlowDialect>();
  ModuleCtx &main = modules_.emplace_back();
  main.file = &file_;
  main.ast = &module_;
  size_t slash = file_.name().rfind('/');
  main.dir = slash == std::string::npos ? "." : file_.name().substr(0, slash);
  indexModule(main);
}

// ---- the kernel ----------------------------------------------------------------------------

TensorDescType parseTensorDescType(const std::string &text) {
  // tensordesc<fp16[64,64]>, or with a GPU shared-memory layout after the block shape
  // (tensordesc<fp16[64,64],NVMMASharedLayout(...)>), which does not change what it means.
  TensorDescType d;
  const std::string prefix = "tensordesc<";
  size_t open = text.find('['), close = text.find(']');
  if (text.rfind(prefix, 0) != 0 || text.empty() || text.back() != '>' ||
      open == std::string::npos || close == std::string::npos || close < open ||
      (close + 1 != text.size() - 1 && text[close + 1] != ','))
    return d;
  d.dtype = text.substr(prefix.size(), open - prefix.size());
  d.dtype.erase(0, d.dtype.find_first_not_of(' '));
  d.dtype.erase(d.dtype.find_last_not_of(' ') + 1);
  std::string dims = text.substr(open + 1, close - open - 1);
  size_t at = 0;
  while (at <= dims.size()) {
    size_t comma = dims.find(',', at);
    std::string item = dims.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    char *end = nullptr;
    long long v = item.empty() ? 0 : std::strtoll(item.c_str(), &end, 10);
    // Powers of two, as Triton requires of block shapes (tl.arange's too).
    if (item.empty() || *end != '\0' || v < 1 || v > (1 << 20) || (v & (v - 1)) != 0)
      return d;
    d.block.push_back(v);
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  int64_t elements = 1;
  for (int64_t b : d.block)
    elements *= b;
  d.ok = !d.dtype.empty() && !d.block.empty() && d.block.size() <= 5 && elements <= (1 << 20);
  return d;
}

std::vector<std::string> SplitSignature(const std::string &text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0; // inside tensordesc<fp16[64, 64]>: commas are the type's own
  for (char c : text) {
    if (c == '<' || c == '[' || c == '(')
      ++depth;
    else if ((c == '>' || c == ']' || c == ')') && depth > 0)
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ' || depth > 0) { // "32 64" must not become "3264"
      cur += c;
    }
  }
  if (!cur.empty() || !out.empty())
    out.push_back(cur);
  return out;
}

/// Whether `e` is a literal: numbers, strings, True/False/None, unary +/- of a number, and
/// tuples of literals (what --constexpr accepts; names and calls are not values there).
static bool isLiteral(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::String:
  case ExprKind::Bool:
  case ExprKind::None:
    return true;
  case ExprKind::UnaryOp:
    return (e.name == "-" || e.name == "+") && e.operands.size() == 1 &&
           (e.operands[0]->kind == ExprKind::Int || e.operands[0]->kind == ExprKind::Float);
  case ExprKind::Tuple:
    return std::all_of(e.operands.begin(), e.operands.end(),
                       [](const ExprPtr &o) { return o && isLiteral(*o); });
  default:
    return false;
  }
}

/// `text` parsed as one Python literal (see isLiteral), or null.
static ExprPtr parseLiteral(const std::string &text) {
  if (text.find('\n') != std::string::npos)
    return nullptr;
  SourceFile file("--constexpr", "__value__ = " + text + "\n");
  absl::StatusOr<Module> parsed = Parse(file);
  if (!parsed.ok() || parsed->globals.size() != 1 || !parsed->functions.empty() ||
      !parsed->classes.empty() || !parsed->imports.empty())
    return nullptr;
  Stmt &s = *parsed->globals.front();
  if (s.kind != StmtKind::Assign || s.targets.size() != 1 || !s.value || !isLiteral(*s.value))
    return nullptr;
  return std::move(s.value);
}

absl::StatusOr<const FunctionDef *> Generator::findEntry(const std::string &entry) {
  const ModuleCtx &main = modules_.front();
  if (auto it = main.functions.find(entry); it != main.functions.end())
    return it->second;
  // A kernel nested in host functions by its own name, when that name is unique.
  std::vector<const FunctionDef *> named;
  for (const auto &[qualified, fn] : main.functions)
    if (fn->name == entry)
      named.push_back(fn);
  if (named.size() == 1)
    return named.front();
  std::string known;
  for (const auto &[qualified, fn] : main.functions)
    if (named.empty() || fn->name == entry)
      known += (known.empty() ? "" : ", ") + qualified;
  if (named.empty())
    return error({1, 1}, "no @triton.jit function named '" + entry + "' in this file" +
                             (known.empty() ? "" : " (it has " + known + ")"));
  return error(named.front()->loc, "several kernels are named '" + entry + "' (" + known +
                                       "): name one as --entry SCOPE.NAME");
}

absl::StatusOr<OwningOpRef<ModuleOp>> Generator::generate(const KernelSpec &spec) {
  debug_ = spec.debug;
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc({1, 1}));
  moduleOp_ = *module;
  ASSIGN_OR_RETURN(const FunctionDef *entryFn, findEntry(spec.entry));
  const FunctionDef &fn = *entryFn;
  bool noinline = false;
  if (!isJit(fn, &noinline))
    return error(fn.loc, "'" + fn.name + "' is not decorated with @triton.jit");
  for (const auto &c : spec.constexprs)
    if (std::none_of(fn.params.begin(), fn.params.end(),
                     [&](const Param &p) { return p.name == c.first; }))
      return error(fn.loc,
                   "'" + fn.name + "' has no parameter '" + c.first + "' (from --constexpr)");

  Frame frame;
  frame.fn = &fn;
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  std::vector<std::pair<std::string, bool>> runtimeParams; // name, unsigned
  struct DescriptorParam {
    std::string name;
    size_t firstArg;
    std::vector<int64_t> block;
  };
  std::vector<DescriptorParam> descriptorParams;
  size_t next = 0;
  for (const Param &p : fn.params) {
    bool isConstexprParam = p.annotation && p.annotation->name == "constexpr";
    if (auto it = spec.constexprs.find(p.name); it != spec.constexprs.end()) {
      const std::string &text = it->second;
      bool u = false;
      if (text == "True" || text == "False") {
        frame.vars[p.name] = makeBool(text == "True");
      } else if (Type t = parseTypeName(text, u)) {
        frame.vars[p.name] = makeDtype(t, u);
      } else {
        // Any other value is a Python literal, as it would be written in the call: 16, 1.5,
        // 'leaky_relu', "", None, (16, 32), -1.
        ExprPtr literal = parseLiteral(text);
        if (!literal)
          return error(p.loc, "cannot read the value '" + text + "' given for '" + p.name +
                                  "' (a Python literal: an int, a float, a string, "
                                  "True/False/None, a tuple of those; or a dtype)");
        ASSIGN_OR_RETURN(frame.vars[p.name], eval(*literal));
      }
      continue;
    }
    if (isConstexprParam) {
      if (!p.defaultValue)
        return error(p.loc, "the constexpr parameter '" + p.name +
                                "' needs a value (--constexpr " + p.name + "=...)");
      frames_.emplace_back();
      ASSIGN_OR_RETURN(frame.vars[p.name], eval(*p.defaultValue));
      frames_.pop_back();
      continue;
    }
    if (next >= spec.signature.size())
      return error(p.loc, "no type for the parameter '" + p.name +
                              "': the signature lists " + std::to_string(spec.signature.size()) +
                              " types for the runtime parameters (e.g. --signature '*fp32,i32')");
    std::string entry = spec.signature[next++];
    if (entry.rfind("tensordesc<", 0) == 0) {
      // A tensor descriptor the host made (Triton's TensorDescriptor): its base pointer, its
      // shape (one i32 a dimension) and its strides (one i64 a dimension) are the runtime
      // arguments; its element type and block shape are the type's.
      TensorDescType d = parseTensorDescType(entry);
      bool u = false;
      Type elem = d.ok ? parseTypeName(d.dtype, u) : Type();
      if (!elem)
        return error(p.loc, "cannot read '" + spec.signature[next - 1] + "' for '" + p.name +
                                "' (a tensor descriptor is tensordesc<DTYPE[BLOCK, ...]>, e.g. "
                                "tensordesc<fp16[64, 64]>)");
      descriptorParams.push_back({p.name, argTypes.size(), d.block});
      argTypes.push_back(tt::PointerType::get(elem, 1));
      argAttrs.push_back(DictionaryAttr::get(&context_));
      runtimeParams.push_back({p.name + ".base", u});
      for (auto [part, type] : {std::pair<const char *, Type>{".shape", b_.getI32Type()},
                                {".stride", b_.getI64Type()}})
        for (size_t k = 0; k < d.block.size(); ++k) {
          argTypes.push_back(type);
          argAttrs.push_back(DictionaryAttr::get(&context_));
          runtimeParams.push_back({p.name + part + std::to_string(k), false});
        }
      continue;
    }
    int divisibility = 0;
    if (size_t colon = entry.find(':'); colon != std::string::npos) {
      divisibility = std::atoi(entry.c_str() + colon + 1);
      entry = entry.substr(0, colon);
    }
    bool isPtr = !entry.empty() && entry[0] == '*';
    bool u = false;
    Type elem = parseTypeName(isPtr ? entry.substr(1) : entry, u);
    if (!elem && entry == "nvTmaDesc")
      return error(p.loc, "'" + p.name +
                              "': nvTmaDesc (a CUDA TMA descriptor made on the host) is not "
                              "supported: its encoding is the GPU driver's; pass a tensor "
                              "descriptor (tensordesc<DTYPE[BLOCK...]>) instead");
    if (!elem)
      return error(p.loc, "unknown type '" + spec.signature[next - 1] + "' for '" + p.name +
                              "' (expected *fp32, *fp16, *bf16, i32, i64, u32, fp32, ...)");
    Type type = isPtr ? Type(tt::PointerType::get(elem, 1)) : elem;
    argTypes.push_back(type);
    NamedAttrList attrs;
    if (divisibility > 0)
      attrs.set("tt.divisibility", b_.getI32IntegerAttr(divisibility));
    argAttrs.push_back(attrs.getDictionary(&context_));
    runtimeParams.push_back({p.name, u}); // for a pointer: its pointee is unsigned
  }
  if (next < spec.signature.size())
    return error(fn.loc, "the signature lists " + std::to_string(spec.signature.size()) +
                             " types but '" + fn.name + "' has " + std::to_string(next) +
                             " runtime parameters");

  b_.setInsertionPointToEnd(moduleOp_.getBody());
  auto func = tt::FuncOp::create(b_, loc(fn.loc), fn.name, b_.getFunctionType(argTypes, {}),
                                 ArrayRef<NamedAttribute>{}, argAttrs);
  func->setAttr("noinline", b_.getBoolAttr(false));
  func.setSymVisibility("public");
  SmallVector<Location> argLocs;
  for (size_t k = 0; k < argTypes.size(); ++k)
    argLocs.push_back(NameLoc::get(b_.getStringAttr(runtimeParams[k].first), loc(fn.loc)));
  mlir::Block *entryBlock = b_.createBlock(&func.getBody(), {}, argTypes, argLocs);
  for (size_t k = 0; k < runtimeParams.size(); ++k)
    frame.vars[runtimeParams[k].first] =
        makeTensor(entryBlock->getArgument(k), runtimeParams[k].second);
  for (const DescriptorParam &d : descriptorParams) {
    size_t rank = d.block.size();
    std::vector<V> shape, strides, block;
    for (size_t k = 0; k < rank; ++k) {
      shape.push_back(makeTensor(entryBlock->getArgument(d.firstArg + 1 + k)));
      strides.push_back(makeTensor(entryBlock->getArgument(d.firstArg + 1 + rank + k)));
      block.push_back(makeInt(d.block[k]));
    }
    frame.vars[d.name] =
        makeDescriptor(frame.vars[d.name + ".base"], makeTuple(shape), makeTuple(strides),
                       makeTuple(block), "zero");
  }
  frames_.push_back(std::move(frame));
  RETURN_IF_ERROR(exec(fn.body));
  if (frames_.back().returned && frames_.back().returnValue &&
      frames_.back().returnValue->kind != Val::None)
    return error(fn.loc, "a kernel cannot return a value");
  frames_.pop_back();
  tt::ReturnOp::create(b_, loc(fn.loc), ValueRange{});
  return module;
}

absl::StatusOr<OwningOpRef<ModuleOp>> GenerateKernel(MLIRContext &context,
                                                     const SourceFile &file,
                                                     const Module &module,
                                                     const KernelSpec &spec) {
  Generator generator(context, file, module);
  ASSIGN_OR_RETURN(OwningOpRef<ModuleOp> result, generator.generate(spec));
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  if (failed(verify(*result)))
    return absl::InternalError("internal error: the generated tt IR does not verify: " +
                               diagnostics);
  return result;
}

} // namespace tessel::frontend
