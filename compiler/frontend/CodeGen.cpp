//===- CodeGen.cpp - Triton-language kernels to tt IR: statements and expressions -*- C++ -*-===//

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

static V newVal(Val::Kind kind) {
  auto v = std::make_shared<Val>();
  v->kind = kind;
  return v;
}
V makeTensor(Value value, bool isUnsigned) {
  V v = newVal(Val::Tensor);
  v->value = value;
  v->isUnsigned = isUnsigned;
  return v;
}
V makeInt(int64_t x) {
  V v = newVal(Val::Int);
  v->i = x;
  return v;
}
V makeFloat(double x) {
  V v = newVal(Val::Float);
  v->f = x;
  return v;
}
V makeBool(bool x) {
  V v = newVal(Val::Bool);
  v->i = x;
  return v;
}
V makeNone() { return newVal(Val::None); }
V makeStr(std::string s) {
  V v = newVal(Val::Str);
  v->s = std::move(s);
  return v;
}
V makeDtype(Type type, bool isUnsigned) {
  V v = newVal(Val::Dtype);
  v->type = type;
  v->isUnsigned = isUnsigned;
  return v;
}
V makeTuple(std::vector<V> items) {
  V v = newVal(Val::Tuple);
  v->items = std::move(items);
  return v;
}
V makeBuiltin(std::string name) {
  V v = newVal(Val::Builtin);
  v->s = std::move(name);
  return v;
}
V makeNamespace(std::string path) {
  V v = newVal(Val::Namespace);
  v->s = std::move(path);
  return v;
}
V makeMethod(V self, std::string name) {
  V v = newVal(Val::Method);
  v->self = std::move(self);
  v->s = std::move(name);
  return v;
}

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

void Generator::indexModule(ModuleCtx &ctx) {
  for (const FunctionDef &fn : ctx.ast->functions) {
    ctx.functions[fn.qualifiedName()] = &fn;
    fnModule_[&fn] = &ctx;
  }
  for (const HostName &h : ctx.ast->hostNames)
    ctx.hostNames.emplace(h.qualifiedName(), &h);
  for (const ClassDef &cls : ctx.ast->classes) {
    ctx.classes[cls.name] = &cls;
    for (const FunctionDef &m : cls.methods)
      fnModule_[&m] = &ctx;
  }
  for (const StmtPtr &s : ctx.ast->globals)
    if ((s->kind == StmtKind::Assign || s->kind == StmtKind::AnnAssign) && !s->targets.empty())
      for (const ExprPtr &t : s->targets)
        if (t->kind == ExprKind::Name)
          ctx.globalDefs[s->scope.empty() ? t->name : s->scope + "." + t->name] = s.get();
}

std::string Generator::currentScope() const {
  if (frames_.empty())
    return "";
  return frames_.back().fn ? frames_.back().fn->scope : frames_.back().scope;
}

ModuleCtx *Generator::currentModule() const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->module)
      return it->module;
  return const_cast<ModuleCtx *>(&modules_.front());
}

ModuleCtx *Generator::moduleOf(const FunctionDef &fn) {
  auto it = fnModule_.find(&fn);
  return it == fnModule_.end() ? &modules_.front() : it->second;
}

ModuleCtx &Generator::loadModule(const std::string &dotted, SourceLocation at) {
  ModuleCtx *from = currentModule();
  std::string rel = dotted;
  std::replace(rel.begin(), rel.end(), '.', '/');
  std::string path = from->dir + "/" + rel + ".py";
  if (auto it = modulesByPath_.find(path); it != modulesByPath_.end())
    return *it->second;
  std::ifstream in(path);
  if (!in)
    error(at, "cannot import '" + dotted + "': no file " + path +
                  " (kernels may import triton and kernel files next to them)");
  std::stringstream text;
  text << in.rdbuf();
  ModuleCtx &ctx = modules_.emplace_back();
  modulesByPath_[path] = &ctx;
  ctx.ownedFile = std::make_unique<SourceFile>(path, text.str());
  ctx.file = ctx.ownedFile.get();
  absl::StatusOr<Module> parsed = Parse(*ctx.file);
  if (!parsed.ok())
    error(at, "cannot import '" + dotted + "':\n" + std::string(parsed.status().message()));
  ctx.ownedAst = std::make_unique<Module>(*std::move(parsed));
  ctx.ast = ctx.ownedAst.get();
  size_t slash = path.rfind('/');
  ctx.dir = path.substr(0, slash);
  indexModule(ctx);
  return ctx;
}

V Generator::moduleMember(ModuleCtx &ctx, const std::string &name, SourceLocation at) {
  // A name the imported file does not define is an error at `at`, in the importing file (in
  // the imported file's frame it would be reported against the wrong file's text).
  bool defined = ctx.globals.count(name) || ctx.globalDefs.count(name) ||
                 ctx.functions.count(name) || ctx.classes.count(name) ||
                 llvm::any_of(ctx.ast->imports, [&](const Import &i) { return i.alias == name; });
  if (!defined)
    error(at, "the kernel file " + ctx.file->name() + " has no '" + name + "'");
  if (auto it = ctx.classes.find(name); it != ctx.classes.end() && !isAggregateClass(*it->second))
    error(at, "'" + name + "' is a class but not a @tl.aggregate; kernels use aggregates only");
  Frame frame;
  frame.module = &ctx;
  frames_.push_back(std::move(frame));
  V v = evalGlobal(name, at);
  frames_.pop_back();
  return v;
}

void Generator::error(SourceLocation at, const std::string &message) const {
  throw CompileError{at, message, currentModule()->file};
}

Location Generator::loc(SourceLocation at) const {
  return FileLineColLoc::get(&context_, currentModule()->file->name(), at.line, at.column);
}

std::string Generator::describe(const V &v) const {
  switch (v->kind) {
  case Val::Tensor: {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << v->value.getType();
    return "a value of type " + s;
  }
  case Val::Int:
    return "the constexpr int " + std::to_string(v->i);
  case Val::Float:
    return "a constexpr float";
  case Val::Bool:
    return v->i ? "the constexpr True" : "the constexpr False";
  case Val::None:
    return "None";
  case Val::Str:
    return "a string";
  case Val::Dtype:
    return "a dtype";
  case Val::Tuple:
    return "a tuple";
  case Val::Function:
    return "the function '" + v->fn->name + "'";
  case Val::Namespace:
    return "the module '" + v->s + "'";
  case Val::Builtin:
    return "the builtin '" + v->s + "'";
  case Val::Method:
    return "the method '" + v->s + "'";
  case Val::Slice:
    return "a slice";
  case Val::Aggregate:
    return "an instance of '" + v->obj->cls->name + "'";
  case Val::Class:
    return "the class '" + v->cls->name + "'";
  case Val::Descriptor:
    return "a tensor descriptor";
  }
  return "a value";
}

// ---- types and conversions ---------------------------------------------------------------

namespace {

/// Triton's 8-bit float types: the tl name, the signature name and the MLIR type.
struct Fp8Name {
  const char *dtype, *signature;
  Type (*get)(MLIRContext *);
};
const Fp8Name kFp8Names[] = {
    {"float8e5", "fp8e5", [](MLIRContext *c) -> Type { return Float8E5M2Type::get(c); }},
    {"float8e4nv", "fp8e4nv", [](MLIRContext *c) -> Type { return Float8E4M3FNType::get(c); }},
    {"float8e5b16", "fp8e5b16",
     [](MLIRContext *c) -> Type { return Float8E5M2FNUZType::get(c); }},
    {"float8e4b8", "fp8e4b8", [](MLIRContext *c) -> Type { return Float8E4M3FNUZType::get(c); }},
};

} // namespace

Type Generator::parseTypeName(const std::string &raw, bool &isUnsigned) const {
  std::string name = raw;
  for (const char *prefix : {"tl.", "triton.language."})
    if (name.rfind(prefix, 0) == 0)
      name = name.substr(std::string(prefix).size());
  isUnsigned = false;
  MLIRContext *ctx = &context_;
  static const std::map<std::string, std::pair<int, bool>> ints = {
      {"int1", {1, false}},   {"i1", {1, false}},    {"int8", {8, false}},
      {"i8", {8, false}},     {"int16", {16, false}}, {"i16", {16, false}},
      {"int32", {32, false}}, {"i32", {32, false}},   {"int64", {64, false}},
      {"i64", {64, false}},   {"uint8", {8, true}},   {"u8", {8, true}},
      {"uint16", {16, true}}, {"u16", {16, true}},    {"uint32", {32, true}},
      {"u32", {32, true}},    {"uint64", {64, true}}, {"u64", {64, true}}};
  if (auto it = ints.find(name); it != ints.end()) {
    isUnsigned = it->second.second;
    return IntegerType::get(ctx, it->second.first);
  }
  if (name == "float16" || name == "fp16" || name == "f16")
    return Float16Type::get(ctx);
  if (name == "bfloat16" || name == "bf16")
    return BFloat16Type::get(ctx);
  if (name == "float32" || name == "fp32" || name == "f32")
    return Float32Type::get(ctx);
  if (name == "float64" || name == "fp64" || name == "f64")
    return Float64Type::get(ctx);
  // 8-bit floats (storage and cast targets; arithmetic on them is f32 arithmetic rounded back).
  for (const Fp8Name &f : kFp8Names)
    if (name == f.dtype || name == f.signature)
      return f.get(ctx);
  return {};
}

namespace {

bool isFp8(Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8; }

/// "float8e4nv" for a Triton type, else MLIR's spelling.
std::string typeText(Type t) {
  for (const Fp8Name &f : kFp8Names)
    if (f.get(t.getContext()) == t)
      return f.dtype;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

} // namespace

Value Generator::constant(Type elem, double value, ArrayRef<int64_t> shape) {
  Location l = b_.getUnknownLoc();
  TypedAttr attr;
  if (auto intType = dyn_cast<IntegerType>(elem))
    attr = IntegerAttr::get(intType, APInt(intType.getWidth(), uint64_t(int64_t(value)),
                                           /*isSigned=*/true, /*implicitTrunc=*/true));
  else
    attr = FloatAttr::get(elem, value);
  if (shape.empty())
    return arith::ConstantOp::create(b_, l, attr);
  auto type = RankedTensorType::get(shape, elem);
  return arith::ConstantOp::create(b_, l, DenseElementsAttr::get(type, attr));
}

V Generator::toTensor(const V &v, SourceLocation at) {
  switch (v->kind) {
  case Val::Tensor:
    return v;
  case Val::Bool:
    return makeTensor(constant(b_.getI1Type(), double(v->i), {}));
  case Val::Int: {
    if (v->i >= INT32_MIN && v->i <= INT32_MAX)
      return makeTensor(constant(b_.getI32Type(), double(v->i), {}));
    auto attr = IntegerAttr::get(b_.getI64Type(), v->i);
    return makeTensor(arith::ConstantOp::create(b_, loc(at), attr));
  }
  case Val::Float:
    return makeTensor(constant(b_.getF32Type(), v->f, {}));
  default:
    error(at, "expected a tensor or a number, got " + describe(v));
  }
}


V Generator::cast(const V &vIn, Type to, bool toUnsigned, SourceLocation at, bool bitcast,
                   std::optional<tt::RoundingMode> rounding) {
  V v = toTensor(vIn, at);
  Value x = v->value;
  Type from = getElementTypeOrSelf(x.getType());
  Location l = loc(at);
  Type result = withElement(x.getType(), to);
  if (from == to)
    return makeTensor(x, toUnsigned);
  if (bitcast) {
    if (isa<tt::PointerType>(from) || isa<tt::PointerType>(to))
      return makeTensor(tt::BitcastOp::create(b_, l, result, x), toUnsigned);
    if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
      error(at, "bitcast between types of different widths");
    return makeTensor(arith::BitcastOp::create(b_, l, result, x), toUnsigned);
  }
  bool fromPtr = isa<tt::PointerType>(from), toPtr = isa<tt::PointerType>(to);
  if (fromPtr && toPtr)
    return makeTensor(tt::BitcastOp::create(b_, l, result, x), toUnsigned);
  if (fromPtr) {
    if (!to.isInteger(64))
      error(at, "a pointer converts to int64 only");
    return makeTensor(tt::PtrToIntOp::create(b_, l, result, x));
  }
  if (toPtr) {
    if (!from.isInteger(64))
      error(at, "only int64 converts to a pointer");
    return makeTensor(tt::IntToPtrOp::create(b_, l, result, x), toUnsigned);
  }
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if ((isFp8(from) && !toFloat) || (isFp8(to) && !fromFloat))
    error(at, "cannot cast " + typeText(from) + " to " + typeText(to) +
                  " (8-bit floats convert to and from float types only: cast through float32)");
  if (fromFloat && toFloat && (isFp8(from) || isFp8(to) || rounding)) {
    // Triton's tt.fp_to_fp: narrowing (in width, or 8-bit float to another 8-bit float, which
    // the lowering does through float32) rounds to nearest even unless told otherwise.
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    tt::RoundingModeAttr mode;
    if (tw <= fw)
      mode = tt::RoundingModeAttr::get(&context_, rounding.value_or(tt::RoundingMode::RTNE));
    return makeTensor(tt::FpToFpOp::create(b_, l, result, x, mode));
  }
  if (to.isInteger(1)) {
    Value zero = constant(from, 0, shapeOf(x));
    if (fromFloat)
      return makeTensor(arith::CmpFOp::create(b_, l, arith::CmpFPredicate::UNE, x, zero));
    return makeTensor(arith::CmpIOp::create(b_, l, arith::CmpIPredicate::ne, x, zero));
  }
  if (fromFloat && toFloat) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw == tw) { // f16 <-> bf16 through f32
      Value wide = arith::ExtFOp::create(b_, l, withElement(x.getType(), b_.getF32Type()), x);
      return makeTensor(arith::TruncFOp::create(b_, l, result, wide));
    }
    if (fw < tw)
      return makeTensor(arith::ExtFOp::create(b_, l, result, x));
    return makeTensor(arith::TruncFOp::create(b_, l, result, x));
  }
  if (fromFloat) {
    if (toUnsigned)
      return makeTensor(arith::FPToUIOp::create(b_, l, result, x), true);
    return makeTensor(arith::FPToSIOp::create(b_, l, result, x));
  }
  if (toFloat) {
    if (v->isUnsigned || from.isInteger(1))
      return makeTensor(arith::UIToFPOp::create(b_, l, result, x));
    return makeTensor(arith::SIToFPOp::create(b_, l, result, x));
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw == tw)
    return makeTensor(x, toUnsigned);
  if (fw > tw)
    return makeTensor(arith::TruncIOp::create(b_, l, result, x), toUnsigned);
  if (v->isUnsigned || from.isInteger(1))
    return makeTensor(arith::ExtUIOp::create(b_, l, result, x), toUnsigned);
  return makeTensor(arith::ExtSIOp::create(b_, l, result, x), toUnsigned);
}

V Generator::broadcastTo(const V &vIn, ArrayRef<int64_t> shape, SourceLocation at) {
  V v = toTensor(vIn, at);
  Value x = v->value;
  ArrayRef<int64_t> from = shapeOf(x);
  if (from == shape)
    return v;
  Location l = loc(at);
  Type elem = getElementTypeOrSelf(x.getType());
  if (from.empty())
    return makeTensor(tt::SplatOp::create(b_, l, RankedTensorType::get(shape, elem), x),
                      v->isUnsigned);
  if (from.size() > shape.size())
    error(at, "cannot broadcast a tensor of rank " + std::to_string(from.size()) +
                  " to rank " + std::to_string(shape.size()));
  while (shapeOf(x).size() < shape.size()) {
    SmallVector<int64_t> s(shapeOf(x));
    s.insert(s.begin(), 1);
    x = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, elem), x, 0);
  }
  ArrayRef<int64_t> now = shapeOf(x);
  for (size_t d = 0; d < shape.size(); ++d)
    if (now[d] != shape[d] && now[d] != 1)
      error(at, "cannot broadcast dimension " + std::to_string(d) + " of size " +
                    std::to_string(now[d]) + " to " + std::to_string(shape[d]));
  if (now != shape)
    x = tt::BroadcastOp::create(b_, l, RankedTensorType::get(shape, elem), x);
  return makeTensor(x, v->isUnsigned);
}

std::pair<V, V> Generator::broadcastPair(V a, V b, SourceLocation at) {
  a = toTensor(a, at);
  b = toTensor(b, at);
  ArrayRef<int64_t> sa = shapeOf(a->value), sb = shapeOf(b->value);
  if (sa == sb)
    return {a, b};
  size_t rank = std::max(sa.size(), sb.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t x = d + sa.size() >= rank ? sa[d + sa.size() - rank] : 1;
    int64_t y = d + sb.size() >= rank ? sb[d + sb.size() - rank] : 1;
    if (x != y && x != 1 && y != 1)
      error(at, "shapes are incompatible for broadcasting: dimension " + std::to_string(d) +
                    " is " + std::to_string(x) + " and " + std::to_string(y));
    shape[d] = std::max(x, y);
  }
  if (sa.empty() && sb.empty())
    return {a, b};
  return {broadcastTo(a, shape, at), broadcastTo(b, shape, at)};
}

bool Generator::truthy(const V &v, SourceLocation at) {
  switch (v->kind) {
  case Val::Int:
  case Val::Bool:
    return v->i != 0;
  case Val::Float:
    return v->f != 0;
  case Val::None:
    return false;
  case Val::Str:
    return !v->s.empty();
  case Val::Tuple:
    return !v->items.empty();
  case Val::Dtype:
  case Val::Function:
  case Val::Builtin:
  case Val::Namespace:
    return true;
  default:
    error(at, "the truth of a runtime value is not known at compile time here");
  }
}

int64_t Generator::requireInt(const V &v, SourceLocation at, const std::string &what) {
  if (v->kind == Val::Int)
    return v->i;
  error(at, what + " must be a constexpr int, got " + describe(v));
}

Type Generator::requireDtype(const V &v, SourceLocation at, const std::string &what,
                             bool *isUnsigned) {
  if (v->kind == Val::Dtype) {
    if (isUnsigned)
      *isUnsigned = v->isUnsigned;
    return v->type;
  }
  if (v->kind == Val::Str) {
    bool u = false;
    if (Type t = parseTypeName(v->s, u)) {
      if (isUnsigned)
        *isUnsigned = u;
      return t;
    }
  }
  if ((v->kind == Val::Builtin || v->kind == Val::Str) && v->s == "float8e4b15")
    error(at, "tl.float8e4b15 is not supported (Triton builds it from NVIDIA inline assembly): "
              "use tl.float8e4nv or tl.float8e5");
  error(at, what + " must be a dtype (tl.float32, ...), got " + describe(v));
}

// ---- arithmetic ----------------------------------------------------------------------------

namespace {

/// Triton's result type of a binary arithmetic op on element types (a "weak" side is a Python
/// number literal, which adopts the other side's type of the same kind).
Type promote(Generator &g, Type a, bool aWeak, bool aU, Type b, bool bWeak, bool bU,
             bool trueDiv, bool &unsignedOut, SourceLocation at) {
  OpBuilder &bld = g.builder();
  unsignedOut = false;
  bool af = isa<FloatType>(a), bf = isa<FloatType>(b);
  if (trueDiv && !af && !bf)
    return bld.getF32Type();
  if (af || bf) {
    if (af && bf) {
      if (aWeak)
        return b;
      if (bWeak)
        return a;
      unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
      if (a == b)
        return a;
      if (wa == wb) // f16 with bf16 (f32); two 8-bit float types (f16)
        return wa == 8 ? Type(bld.getF16Type()) : Type(bld.getF32Type());
      return wa > wb ? a : b;
    }
    Type f = af ? a : b;
    bool fWeak = af ? aWeak : bWeak;
    if (fWeak) // a float literal with an int tensor
      return bld.getF32Type();
    if (isFp8(f) && !(af ? bWeak : aWeak))
      g.error(at, "cannot mix " + typeText(f) + " with an integer tensor (cast one of them)");
    return f;
  }
  // Both integers (bools are 1-bit integers).
  if (aWeak && !b.isInteger(1)) {
    unsignedOut = bU;
    return b;
  }
  if (bWeak && !a.isInteger(1)) {
    unsignedOut = aU;
    return a;
  }
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa == wb) {
    unsignedOut = aU || bU;
    return a;
  }
  if (wa > wb) {
    unsignedOut = aU;
    return a;
  }
  unsignedOut = bU;
  return b;
}

bool isWeak(const V &v) { return v->kind == Val::Int || v->kind == Val::Float || v->kind == Val::Bool; }

/// Python semantics on two constexpr numbers.
V foldConstexpr(Generator &g, const std::string &op, const V &a, const V &b, SourceLocation at) {
  bool isFloat = a->kind == Val::Float || b->kind == Val::Float;
  double x = a->kind == Val::Float ? a->f : double(a->i);
  double y = b->kind == Val::Float ? b->f : double(b->i);
  int64_t p = a->i, q = b->i;
  auto cmp = [&](bool r) { return makeBool(r); };
  if (op == "<")
    return cmp(isFloat ? x < y : p < q);
  if (op == "<=")
    return cmp(isFloat ? x <= y : p <= q);
  if (op == ">")
    return cmp(isFloat ? x > y : p > q);
  if (op == ">=")
    return cmp(isFloat ? x >= y : p >= q);
  if (op == "==")
    return cmp(isFloat ? x == y : p == q);
  if (op == "!=")
    return cmp(isFloat ? x != y : p != q);
  if (op == "/") {
    if (y == 0)
      g.error(at, "division by zero in a constexpr expression");
    return makeFloat(x / y);
  }
  if (isFloat) {
    if (op == "+")
      return makeFloat(x + y);
    if (op == "-")
      return makeFloat(x - y);
    if (op == "*")
      return makeFloat(x * y);
    if (op == "**")
      return makeFloat(std::pow(x, y));
    if (op == "//" || op == "%") {
      if (y == 0)
        g.error(at, "division by zero in a constexpr expression");
      double fl = std::floor(x / y);
      return makeFloat(op == "//" ? fl : x - fl * y);
    }
    g.error(at, "operator '" + op + "' is not defined on floats");
  }
  bool bothBool = a->kind == Val::Bool && b->kind == Val::Bool;
  if (op == "&")
    return bothBool ? makeBool(p & q) : makeInt(p & q);
  if (op == "|")
    return bothBool ? makeBool(p | q) : makeInt(p | q);
  if (op == "^")
    return bothBool ? makeBool(p ^ q) : makeInt(p ^ q);
  // Python's integers do not overflow; tessel's constexprs are 64-bit: say so rather than wrap.
  auto overflow = [&]() {
    g.error(at, "the constexpr '" + op + "' overflows 64-bit integers");
  };
  int64_t r = 0;
  if (op == "+") {
    if (__builtin_add_overflow(p, q, &r))
      overflow();
    return makeInt(r);
  }
  if (op == "-") {
    if (__builtin_sub_overflow(p, q, &r))
      overflow();
    return makeInt(r);
  }
  if (op == "*") {
    if (__builtin_mul_overflow(p, q, &r))
      overflow();
    return makeInt(r);
  }
  if ((op == "<<" || op == ">>") && q < 0)
    g.error(at, "negative shift count in a constexpr expression");
  if (op == "<<") {
    // Fits when the bits shifted out (and the new sign bit) all equal the sign.
    if (p != 0 && (q >= 63 || (p >> (63 - q)) != (p < 0 ? -1 : 0)))
      overflow();
    return makeInt(int64_t(uint64_t(p) << (q >= 63 ? 0 : q)));
  }
  if (op == ">>")
    return makeInt(q >= 63 ? (p < 0 ? -1 : 0) : p >> q);
  if (op == "**") {
    if (q < 0)
      return makeFloat(std::pow(x, y));
    // By squaring: log2(q) steps, each checked.
    int64_t result = 1, base = p;
    for (int64_t e = q; e > 0; e >>= 1) {
      if ((e & 1) && __builtin_mul_overflow(result, base, &result))
        overflow();
      if (e > 1 && __builtin_mul_overflow(base, base, &base))
        overflow();
    }
    return makeInt(result);
  }
  if (op == "//" || op == "%") {
    if (q == 0)
      g.error(at, "division by zero in a constexpr expression");
    if (p == std::numeric_limits<int64_t>::min() && q == -1)
      overflow();
    int64_t d = p / q, m = p % q;
    if (m != 0 && ((m < 0) != (q < 0))) { // Python floors
      d -= 1;
      m += q;
    }
    return makeInt(op == "//" ? d : m);
  }
  g.error(at, "operator '" + op + "' is not supported on constexprs");
}

} // namespace

V Generator::binary(const std::string &op, V a, V b, SourceLocation at) {
  if (a->isNumber() && b->isNumber())
    return foldConstexpr(*this, op, a, b, at);
  if (op == "==" || op == "!=") {
    if (a->kind == Val::None || b->kind == Val::None || a->kind == Val::Dtype ||
        a->kind == Val::Str) {
      bool eq = a->kind == b->kind &&
                (a->kind == Val::None || (a->kind == Val::Dtype && a->type == b->type &&
                                          a->isUnsigned == b->isUnsigned) ||
                 (a->kind == Val::Str && a->s == b->s));
      return makeBool(op == "==" ? eq : !eq);
    }
  }
  if (op == "@") {
    CallArgs args{{a, b}, {}, at};
    return callBuiltin("dot", args);
  }
  // Integer division by a constant zero is an error, as in Triton (a runtime zero is the
  // program's business).
  if ((op == "//" || op == "%") && (b->kind == Val::Int || b->kind == Val::Bool) && b->i == 0 &&
      !(a->kind == Val::Tensor && isa<FloatType>(getElementTypeOrSelf(a->value.getType()))))
    error(at, "integer division by zero ('" + op + " 0')");
  bool aWeak = isWeak(a), bWeak = isWeak(b);
  V ta = toTensor(a, at), tb = toTensor(b, at);
  Type ea = getElementTypeOrSelf(ta->value.getType()), eb = getElementTypeOrSelf(tb->value.getType());
  Location l = loc(at);

  // Pointer arithmetic.
  if (isa<tt::PointerType>(ea) || isa<tt::PointerType>(eb)) {
    if (isa<tt::PointerType>(eb) && !isa<tt::PointerType>(ea) && op == "+")
      std::swap(ta, tb), std::swap(ea, eb);
    if (!isa<tt::PointerType>(ea) || isa<tt::PointerType>(eb) || !isa<IntegerType>(eb) ||
        (op != "+" && op != "-"))
      error(at, "pointers support only + and - of an integer offset");
    auto [p, off] = broadcastPair(ta, tb, at);
    Value offset = off->value;
    if (op == "-")
      offset = arith::SubIOp::create(b_, l, constant(eb, 0, shapeOf(offset)), offset);
    return makeTensor(tt::AddPtrOp::create(b_, l, p->value.getType(), p->value, offset),
                      p->isUnsigned);
  }

  bool isCompare = op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
  bool resultUnsigned = false;
  Type elem = promote(*this, ea, aWeak, ta->isUnsigned, eb, bWeak, tb->isUnsigned, op == "/",
                      resultUnsigned, at);
  auto [xa, xb] = broadcastPair(ta, tb, at);
  xa = cast(xa, elem, resultUnsigned, at);
  xb = cast(xb, elem, resultUnsigned, at);
  Value x = xa->value, y = xb->value;
  bool isFloat = isa<FloatType>(elem);

  if (isCompare) {
    if (isFloat) {
      arith::CmpFPredicate pred = op == "<"    ? arith::CmpFPredicate::OLT
                                  : op == "<=" ? arith::CmpFPredicate::OLE
                                  : op == ">"  ? arith::CmpFPredicate::OGT
                                  : op == ">=" ? arith::CmpFPredicate::OGE
                                  : op == "==" ? arith::CmpFPredicate::OEQ
                                               : arith::CmpFPredicate::UNE;
      return makeTensor(arith::CmpFOp::create(b_, l, pred, x, y));
    }
    bool u = resultUnsigned;
    arith::CmpIPredicate pred =
        op == "<"    ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
        : op == "<=" ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
        : op == ">"  ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
        : op == ">=" ? (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge)
        : op == "==" ? arith::CmpIPredicate::eq
                     : arith::CmpIPredicate::ne;
    return makeTensor(arith::CmpIOp::create(b_, l, pred, x, y));
  }
  Value r;
  if (op == "+")
    r = isFloat ? Value(arith::AddFOp::create(b_, l, x, y)) : Value(arith::AddIOp::create(b_, l, x, y));
  else if (op == "-")
    r = isFloat ? Value(arith::SubFOp::create(b_, l, x, y)) : Value(arith::SubIOp::create(b_, l, x, y));
  else if (op == "*")
    r = isFloat ? Value(arith::MulFOp::create(b_, l, x, y)) : Value(arith::MulIOp::create(b_, l, x, y));
  else if (op == "/")
    r = arith::DivFOp::create(b_, l, x, y);
  else if (op == "//") {
    if (isFloat)
      r = math::FloorOp::create(b_, l, arith::DivFOp::create(b_, l, x, y));
    else
      r = resultUnsigned ? Value(arith::DivUIOp::create(b_, l, x, y))
                         : Value(arith::DivSIOp::create(b_, l, x, y));
  } else if (op == "%") {
    if (isFloat)
      r = arith::RemFOp::create(b_, l, x, y);
    else
      r = resultUnsigned ? Value(arith::RemUIOp::create(b_, l, x, y))
                         : Value(arith::RemSIOp::create(b_, l, x, y));
  } else if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
    if (isFloat)
      error(at, "operator '" + op + "' needs integer operands");
    if (op == "&")
      r = arith::AndIOp::create(b_, l, x, y);
    else if (op == "|")
      r = arith::OrIOp::create(b_, l, x, y);
    else if (op == "^")
      r = arith::XOrIOp::create(b_, l, x, y);
    else if (op == "<<")
      r = arith::ShLIOp::create(b_, l, x, y);
    else
      r = resultUnsigned ? Value(arith::ShRUIOp::create(b_, l, x, y))
                         : Value(arith::ShRSIOp::create(b_, l, x, y));
  } else if (op == "**") {
    if (!isFloat)
      error(at, "'**' on integer tensors is not supported");
    r = math::PowFOp::create(b_, l, x, y);
  } else {
    error(at, "operator '" + op + "' is not supported here");
  }
  return makeTensor(r, resultUnsigned);
}

V Generator::unary(const std::string &op, V a, SourceLocation at) {
  if (op == "not") {
    if (a->kind != Val::Tensor)
      return makeBool(!truthy(a, at));
    V t = cast(a, b_.getI1Type(), false, at);
    return makeTensor(arith::XOrIOp::create(b_, loc(at), t->value,
                                            constant(b_.getI1Type(), 1, shapeOf(t->value))));
  }
  if (a->isNumber()) {
    if (op == "-")
      return a->kind == Val::Float ? makeFloat(-a->f) : makeInt(-a->i);
    if (op == "+")
      return a->kind == Val::Bool ? makeInt(a->i) : a;
    if (op == "~") {
      if (a->kind == Val::Float)
        error(at, "'~' needs an integer");
      return makeInt(~a->i);
    }
  }
  V t = toTensor(a, at);
  Type elem = getElementTypeOrSelf(t->value.getType());
  if (op == "+")
    return t;
  if (op == "-")
    return binary("-", makeTensor(constant(elem, 0, shapeOf(t->value)), t->isUnsigned), t, at);
  if (op == "~") {
    if (!isa<IntegerType>(elem))
      error(at, "'~' needs an integer tensor");
    return makeTensor(arith::XOrIOp::create(b_, loc(at), t->value,
                                            constant(elem, -1, shapeOf(t->value))),
                      t->isUnsigned);
  }
  error(at, "unknown unary operator '" + op + "'");
}

// ---- names and attributes ------------------------------------------------------------------

bool Generator::isJit(const FunctionDef &fn, bool *noinline) {
  for (const ExprPtr &d : fn.decorators) {
    const Expr *callee = d.get();
    if (d->kind == ExprKind::Call)
      callee = d->operands[0].get();
    std::string name;
    if (callee->kind == ExprKind::Attribute)
      name = callee->name;
    else if (callee->kind == ExprKind::Name)
      name = callee->name;
    if (name == "jit") {
      if (noinline && d->kind == ExprKind::Call)
        for (auto &kw : d->keywords)
          if (kw.first == "noinline" && kw.second->kind == ExprKind::Bool)
            *noinline = kw.second->intValue != 0;
      return true;
    }
  }
  return false;
}

V Generator::resolveNamespace(const std::string &path, const std::string &member,
                              SourceLocation at) {
  if (path == "triton") {
    if (member == "language")
      return makeNamespace("triton.language");
    if (member == "jit" || member == "autotune" || member == "heuristics" || member == "Config")
      return makeBuiltin("triton." + member);
    if (member == "cdiv" || member == "next_power_of_2")
      return makeBuiltin(member);
    error(at, "'triton." + member + "' is not supported in a kernel");
  }
  if (path == "triton.language") {
    bool u = false;
    if (Type t = parseTypeName(member, u))
      return makeDtype(t, u);
    if (member == "math" || member == "extra" || member == "libdevice" || member == "core" ||
        member == "standard")
      return makeNamespace(member == "core" || member == "standard" ? "triton.language"
                                                                    : "triton.language.math");
    if (member == "constexpr")
      return makeBuiltin("constexpr");
    if (member == "pi32_t")
      error(at, "'tl.pi32_t' is not supported");
    return makeBuiltin(member);
  }
  if (path == "triton.language.math") {
    if (member == "cuda" || member == "libdevice" || member == "hip")
      return makeNamespace(path);
    return makeBuiltin("math." + member);
  }
  error(at, "unknown module '" + path + "'");
}

V Generator::evalGlobal(const std::string &name, SourceLocation at) {
  ModuleCtx &ctx = *currentModule();
  // Python's scoping for a kernel nested in host functions: the enclosing functions' names,
  // innermost first, then the module's.
  for (std::string scope = currentScope(); !scope.empty();) {
    std::string key = scope + "." + name;
    if (ctx.ast->classScopes.count(scope))
      key.clear(); // a class body's names are not visible to the functions in it
    if (auto it = ctx.globals.find(key); !key.empty() && it != ctx.globals.end())
      return it->second;
    if (!key.empty() &&
        (ctx.hostNames.count(key) || ctx.globalDefs.count(key) || ctx.functions.count(key)))
      return evalScoped(ctx, key, name, at);
    size_t dot = scope.rfind('.');
    scope = dot == std::string::npos ? "" : scope.substr(0, dot);
  }
  if (auto it = ctx.globals.find(name); it != ctx.globals.end())
    return it->second;
  if (ctx.hostNames.count(name))
    return evalScoped(ctx, name, name, at);
  for (const Import &imp : ctx.ast->imports) {
    if (imp.alias != name)
      continue;
    std::string path = imp.module;
    V v;
    if (path != "triton" && path.rfind("triton.", 0) != 0) {
      ModuleCtx &other = loadModule(path, imp.loc);
      if (imp.name.empty()) {
        v = makeNamespace(path);
        v->mod = &other;
      } else {
        v = moduleMember(other, imp.name, imp.loc);
      }
    } else {
      if (path == "triton.language.math" || path == "triton.language.extra" ||
          path.rfind("triton.language.extra.", 0) == 0)
        path = "triton.language.math";
      v = imp.name.empty() ? makeNamespace(path) : resolveNamespace(path, imp.name, imp.loc);
    }
    ctx.globals[name] = v;
    return v;
  }
  return evalScoped(ctx, name, name, at);
}

V Generator::evalScoped(ModuleCtx &ctx, const std::string &qualified, const std::string &name,
                        SourceLocation at) {
  if (auto it = ctx.hostNames.find(qualified); it != ctx.hostNames.end()) {
    const HostName &h = *it->second;
    error(at, "'" + name + "' is " + h.what + " (line " + std::to_string(h.loc.line) +
                  "), which tessel does not run: a kernel uses @triton.jit functions, "
                  "aggregates, imports and constants assigned in straight-line code");
  }
  if (auto it = ctx.globalDefs.find(qualified); it != ctx.globalDefs.end()) {
    std::string key = ctx.file->name() + ":" + qualified;
    if (std::find(evaluatingGlobals_.begin(), evaluatingGlobals_.end(), key) !=
        evaluatingGlobals_.end())
      error(at, "the module constant '" + name + "' is defined in terms of itself");
    evaluatingGlobals_.push_back(key);
    const Stmt &def = *it->second;
    Frame frame;
    frame.module = &ctx;
    frame.scope = def.scope;
    frames_.push_back(std::move(frame));
    if (!def.value)
      error(def.loc, "the module constant '" + name + "' has no value");
    V v = eval(*def.value);
    frames_.pop_back();
    evaluatingGlobals_.pop_back();
    if (v->kind == Val::Tensor)
      error(def.loc, "module-level '" + name + "' must be a compile-time constant");
    ctx.globals[qualified] = v;
    return v;
  }
  if (auto it = ctx.functions.find(qualified); it != ctx.functions.end()) {
    V v = newVal(Val::Function);
    v->fn = it->second;
    return v;
  }
  if (auto it = ctx.classes.find(name); it != ctx.classes.end()) {
    if (!isAggregateClass(*it->second))
      error(at, "'" + name + "' is a class but not a @tl.aggregate; kernels use aggregates only");
    V v = newVal(Val::Class);
    v->cls = it->second;
    return v;
  }
  static const std::set<std::string> pythonBuiltins = {
      "range", "min", "max", "float", "int", "bool", "len", "print", "isinstance", "abs"};
  if (pythonBuiltins.count(name))
    return makeBuiltin("py." + name);
  error(at, "name '" + name + "' is not defined");
}

V Generator::evalName(const Expr &e) {
  for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
    if (auto it = frame->vars.find(e.name); it != frame->vars.end())
      return it->second;
    break; // Python scoping: a function sees its locals, then module globals
  }
  return evalGlobal(e.name, e.loc);
}

V Generator::evalAttribute(const Expr &e) {
  V base = eval(*e.operands[0]);
  const std::string &member = e.name;
  switch (base->kind) {
  case Val::Namespace:
    if (base->mod)
      return moduleMember(*base->mod, member, e.loc);
    return resolveNamespace(base->s, member, e.loc);
  case Val::Tensor: {
    Type type = base->value.getType();
    if (member == "dtype")
      return makeDtype(getElementTypeOrSelf(type), base->isUnsigned);
    if (member == "type") {
      // A scalar's type (pointer_type.element_ty is the pointee); a tensor's block type,
      // whose element_ty is the element type.
      if (isa<RankedTensorType>(type)) {
        V v = makeDtype(getElementTypeOrSelf(type), base->isUnsigned);
        v->isBlockType = true;
        return v;
      }
      return makeDtype(type, base->isUnsigned);
    }
    if (member == "shape") {
      std::vector<V> dims;
      for (int64_t d : shapeOf(base->value))
        dims.push_back(makeInt(d));
      return makeTuple(dims);
    }
    if (member == "T") {
      CallArgs args{{base}, {}, e.loc};
      return callBuiltin("trans", args);
    }
    if (member == "numel") {
      int64_t n = 1;
      for (int64_t d : shapeOf(base->value))
        n *= d;
      return makeInt(n);
    }
    return makeMethod(base, member);
  }
  case Val::Dtype: {
    if (member == "element_ty") {
      if (base->isBlockType)
        return makeDtype(base->type, base->isUnsigned);
      auto ptr = dyn_cast<tt::PointerType>(base->type);
      if (!ptr)
        error(e.loc, "'element_ty' is defined on pointer dtypes only");
      return makeDtype(ptr.getPointeeType());
    }
    if (member == "primitive_bitwidth") {
      if (isa<tt::PointerType>(base->type))
        return makeInt(64);
      return makeInt(base->type.getIntOrFloatBitWidth());
    }
    return makeMethod(base, member);
  }
  case Val::Int:
  case Val::Float:
  case Val::Bool:
    if (member == "value")
      return base;
    break;
  case Val::Aggregate: {
    if (auto it = base->obj->fields.find(member); it != base->obj->fields.end())
      return it->second;
    for (const FunctionDef &m : base->obj->cls->methods)
      if (m.name == member) {
        V method = makeMethod(base, member);
        method->fn = &m;
        return method;
      }
    bool declared = false;
    for (const Field &f : base->obj->cls->fields)
      declared |= f.name == member;
    error(e.loc, declared ? "the field '" + member + "' of '" + base->obj->cls->name +
                                "' is read before it is set"
                          : "'" + base->obj->cls->name + "' has no field or method '" + member + "'");
  }
  case Val::Descriptor: {
    static const std::map<std::string, size_t> parts = {
        {"base", 0}, {"shape", 1}, {"strides", 2}, {"block_shape", 3}};
    if (auto it = parts.find(member); it != parts.end())
      return base->items[it->second];
    if (member == "dtype")
      return makeDtype(mlir::cast<tt::PointerType>(base->items[0]->value.getType()).getPointeeType(),
                       base->items[0]->isUnsigned);
    if (member == "load" || member == "store")
      return makeMethod(base, member);
    break;
  }
  default:
    break;
  }
  error(e.loc, describe(base) + " has no attribute '" + member + "'");
}

V Generator::evalSubscript(const Expr &e) {
  V base = eval(*e.operands[0]);
  if (base->kind == Val::Tuple) {
    if (e.operands.size() != 2)
      error(e.loc, "a tuple takes one index");
    V index = eval(*e.operands[1]);
    int64_t i = requireInt(index, e.operands[1]->loc, "a tuple index");
    int64_t n = int64_t(base->items.size());
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      error(e.operands[1]->loc, "tuple index " + std::to_string(index->i) + " out of range");
    V item = base->items[i];
    if (item->kind == Val::Aggregate) {
      // Remember that this reference came out of a tuple (see assign()).
      V viaTuple = newVal(Val::Aggregate);
      viaTuple->obj = item->obj;
      viaTuple->viaTuple = true;
      return viaTuple;
    }
    return item;
  }
  if (base->kind == Val::Builtin && base->s == "constexpr")
    return base; // tl.constexpr[...] annotations
  if (base->kind != Val::Tensor)
    error(e.loc, "cannot subscript " + describe(base));
  Value x = base->value;
  SmallVector<int64_t> shape(shapeOf(x));
  size_t dim = 0;
  Location l = loc(e.loc);
  Type elem = getElementTypeOrSelf(x.getType());
  for (size_t k = 1; k < e.operands.size(); ++k) {
    const Expr &index = *e.operands[k];
    if (index.kind == ExprKind::None) {
      shape.insert(shape.begin() + dim, 1);
      x = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(shape, elem), x, int32_t(dim));
      ++dim;
      continue;
    }
    if (index.kind == ExprKind::Slice && !index.operands[0] && !index.operands[1] &&
        !index.operands[2]) {
      if (dim >= shapeOf(base->value).size() + (shape.size() - shapeOf(base->value).size()))
        error(index.loc, "too many indices for a tensor of rank " +
                             std::to_string(shapeOf(base->value).size()));
      ++dim;
      continue;
    }
    error(index.loc, "tensors can be indexed only with None and ':' (use tl.reshape, "
                     "tl.split or a mask for anything else)");
  }
  return makeTensor(x, base->isUnsigned);
}

V Generator::evalCompare(const Expr &e) {
  V left = eval(*e.operands[0]);
  V result;
  for (size_t k = 0; k < e.ops.size(); ++k) {
    V right = eval(*e.operands[k + 1]);
    const std::string &op = e.ops[k];
    V r;
    if (op == "is" || op == "is not") {
      bool same = left->kind == right->kind &&
                  (left->kind == Val::None || (left->kind == Val::Bool && left->i == right->i) ||
                   (left->kind == Val::Dtype && left->type == right->type));
      if (left->kind == Val::Tensor || right->kind == Val::Tensor)
        same = left->kind == Val::Tensor && right->kind == Val::Tensor &&
               left->value == right->value;
      r = makeBool(op == "is" ? same : !same);
    } else {
      r = binary(op, left, right, e.loc);
    }
    result = result ? binary("&", result, r, e.loc) : r;
    left = right;
  }
  return result;
}

V Generator::evalBoolOp(const Expr &e) {
  bool isAnd = e.name == "and";
  V acc = eval(*e.operands[0]);
  for (size_t k = 1; k < e.operands.size(); ++k) {
    if (acc->kind != Val::Tensor) {
      // Python short-circuit on compile-time values.
      if (truthy(acc, e.loc) != isAnd)
        return acc;
      acc = eval(*e.operands[k]);
      continue;
    }
    V next = eval(*e.operands[k]);
    V a = cast(acc, b_.getI1Type(), false, e.loc), b = cast(next, b_.getI1Type(), false, e.loc);
    acc = binary(isAnd ? "&" : "|", a, b, e.loc);
  }
  return acc;
}

V Generator::eval(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Name:
    return evalName(e);
  case ExprKind::Int:
    return makeInt(e.intValue);
  case ExprKind::Float:
    return makeFloat(e.floatValue);
  case ExprKind::String:
    return makeStr(e.name);
  case ExprKind::Bool:
    return makeBool(e.intValue != 0);
  case ExprKind::None:
    return makeNone();
  case ExprKind::Attribute:
    return evalAttribute(e);
  case ExprKind::Subscript:
    return evalSubscript(e);
  case ExprKind::Slice:
    return newVal(Val::Slice);
  case ExprKind::BinOp: {
    V lhs = eval(*e.operands[0]); // Python evaluates left to right
    V rhs = eval(*e.operands[1]);
    return binary(e.name, lhs, rhs, e.loc);
  }
  case ExprKind::UnaryOp:
    return unary(e.name, eval(*e.operands[0]), e.loc);
  case ExprKind::Compare:
    return evalCompare(e);
  case ExprKind::BoolOp:
    return evalBoolOp(e);
  case ExprKind::IfExp: {
    V cond = eval(*e.operands[0]);
    if (cond->kind != Val::Tensor)
      return truthy(cond, e.operands[0]->loc) ? eval(*e.operands[1]) : eval(*e.operands[2]);
    V a = eval(*e.operands[1]), b = eval(*e.operands[2]);
    CallArgs args{{cond, a, b}, {}, e.loc};
    return callBuiltin("where", args);
  }
  case ExprKind::Dict:
    error(e.loc, "dict literals are not supported in kernels");
  case ExprKind::Tuple:
  case ExprKind::List: {
    std::vector<V> items;
    for (const ExprPtr &o : e.operands)
      items.push_back(eval(*o));
    return makeTuple(items);
  }
  case ExprKind::Call: {
    V callee = eval(*e.operands[0]);
    CallArgs args;
    args.loc = e.loc;
    for (size_t k = 1; k < e.operands.size(); ++k)
      args.positional.push_back(eval(*e.operands[k]));
    for (const auto &kw : e.keywords)
      args.keywords.emplace_back(kw.first, eval(*kw.second));
    return callValue(callee, args);
  }
  }
  error(e.loc, "unsupported expression");
}

V Generator::callValue(const V &callee, CallArgs &args) {
  switch (callee->kind) {
  case Val::Function:
    return callFunction(*callee->fn, args);
  case Val::Builtin:
    return callBuiltin(callee->s, args);
  case Val::Method: {
    if (callee->fn) // a method of an aggregate class
      return callFunction(*callee->fn, args, callee->self);
    args.positional.insert(args.positional.begin(), callee->self);
    return callBuiltin("method." + callee->s, args);
  }
  case Val::Class:
    return construct(*callee->cls, args);
  case Val::Dtype: // tl.float32(x): a cast
    if (args.positional.size() == 1 && args.keywords.empty())
      return cast(args.positional[0], callee->type, callee->isUnsigned, args.loc);
    break;
  default:
    break;
  }
  error(args.loc, describe(callee) + " is not callable");
}

// ---- functions -----------------------------------------------------------------------------

V Generator::callFunction(const FunctionDef &fn, CallArgs &args, V self) {
  bool noinline = false;
  if (!isJit(fn, &noinline) && !self) // methods of aggregates are jit functions by default
    error(args.loc, "'" + fn.name + "' is not a @triton.jit function");
  if (++callDepth_ > 64)
    error(args.loc, "calls nest too deeply (recursion is not supported)");
  Frame frame;
  frame.fn = &fn;
  frame.module = moduleOf(fn);
  size_t first = self ? 1 : 0;
  if (self && fn.params.empty())
    error(fn.loc, "method '" + fn.name + "' needs a first parameter for the object (self)");
  if (self)
    frame.vars[fn.params[0].name] = self;
  if (args.positional.size() > fn.params.size() - first)
    error(args.loc, "'" + fn.name + "' takes " + std::to_string(fn.params.size() - first) +
                        " arguments, " + std::to_string(args.positional.size()) + " given");
  for (size_t k = 0; k < args.positional.size(); ++k)
    frame.vars[fn.params[first + k].name] = args.positional[k];
  for (auto &kw : args.keywords) {
    auto it = std::find_if(fn.params.begin(), fn.params.end(),
                           [&](const Param &p) { return p.name == kw.first; });
    if (it == fn.params.end())
      error(args.loc, "'" + fn.name + "' has no parameter '" + kw.first + "'");
    if (frame.vars.count(kw.first))
      error(args.loc, "'" + fn.name + "' got two values for '" + kw.first + "'");
    frame.vars[kw.first] = kw.second;
  }
  for (const Param &p : fn.params) {
    if (frame.vars.count(p.name))
      continue;
    if (!p.defaultValue)
      error(args.loc, "'" + fn.name + "' is missing the argument '" + p.name + "'");
    frames_.emplace_back().module = moduleOf(fn);
    V d = eval(*p.defaultValue);
    frames_.pop_back();
    frame.vars[p.name] = d;
  }
  for (const Param &p : fn.params) {
    if (!p.annotation)
      continue;
    const Expr &a = *p.annotation;
    bool isConstexprAnnotation =
        (a.kind == ExprKind::Attribute || a.kind == ExprKind::Name) && a.name == "constexpr";
    // An inlined helper's tl.constexpr annotation is ignored for a runtime value, as Triton
    // does; a noinline function is specialized on its constexprs, so there it must be one.
    if (noinline && isConstexprAnnotation && frame.vars[p.name]->kind == Val::Tensor)
      error(args.loc, "'" + p.name + "' of the noinline function '" + fn.name +
                          "' is a tl.constexpr parameter but got a runtime value");
  }
  if (noinline) {
    V result = callNoinline(fn, frame.vars, args.loc);
    --callDepth_;
    return result;
  }
  frames_.push_back(std::move(frame));
  exec(fn.body);
  Frame done = std::move(frames_.back());
  frames_.pop_back();
  --callDepth_;
  return done.returned && done.returnValue ? done.returnValue : makeNone();
}

/// Two constexprs of the same kind and value (ints, floats, bools, None).
static bool equalConstexprs(const V &a, const V &b) {
  return a->isConstexpr() && b->isConstexpr() && a->kind == b->kind && a->i == b->i &&
         a->f == b->f;
}

/// A readable, symbol-safe spelling of a type or constexpr for mangled names.
static std::string mangle(const V &v) {
  std::string out;
  switch (v->kind) {
  case Val::Tensor: {
    llvm::raw_string_ostream os(out);
    os << v->value.getType();
    if (v->isUnsigned)
      out += "u";
    break;
  }
  case Val::Int:
    out = "c" + std::to_string(v->i);
    break;
  case Val::Bool:
    out = v->i ? "cTrue" : "cFalse";
    break;
  case Val::Float: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "c%a", v->f);
    out = buf;
    break;
  }
  case Val::None:
    out = "cNone";
    break;
  case Val::Dtype: {
    llvm::raw_string_ostream os(out);
    os << "d" << v->type;
    break;
  }
  case Val::Str:
    out = "s" + v->s;
    break;
  default:
    out = "o";
  }
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return out;
}

/// What a noinline specialization depends on, spelled exactly (no two different values share
/// a spelling): runtime values by type, everything else by value, aggregates field by field
/// (nested ones and their constexpr, dtype and string fields included).
static void specializationKey(const V &v, std::string &out, std::set<const void *> &seen) {
  switch (v->kind) {
  case Val::Tensor: {
    llvm::raw_string_ostream os(out);
    os << "T" << v->value.getType() << (v->isUnsigned ? "u" : "");
    return;
  }
  case Val::Str:
    out += "S" + std::to_string(v->s.size()) + ":" + v->s;
    return;
  case Val::Aggregate:
    if (!seen.insert(v->obj.get()).second) {
      out += "A<cycle>";
      return;
    }
    out += "A" + v->obj->cls->name + "{";
    for (const Field &f : v->obj->cls->fields) {
      auto it = v->obj->fields.find(f.name);
      out += f.name + "=";
      if (it == v->obj->fields.end())
        out += "unset";
      else
        specializationKey(it->second, out, seen);
      out += ";";
    }
    out += "}";
    return;
  case Val::Tuple:
    out += "(";
    for (const V &item : v->items) {
      specializationKey(item, out, seen);
      out += ",";
    }
    out += ")";
    return;
  case Val::Int:
    out += "I" + std::to_string(v->i) + ";";
    return;
  case Val::Bool:
    out += v->i ? "True;" : "False;";
    return;
  case Val::Float: {
    // Hexadecimal: exact (mangle's symbol-safe spelling is not: 2.0 and 0.5 both end in _1).
    char buf[40];
    std::snprintf(buf, sizeof buf, "F%a;", v->f);
    out += buf;
    return;
  }
  case Val::Dtype: {
    llvm::raw_string_ostream os(out);
    os << "D" << v->type << (v->isUnsigned ? "u" : "") << ";";
    return;
  }
  default:
    // None, and what a noinline function cannot take (refused before the key is built).
    out += mangle(v) + ";";
    return;
  }
}

V Generator::callNoinline(const FunctionDef &fn, const std::map<std::string, V> &bound,
                          SourceLocation at) {
  // One private function per distinct signature: runtime parameters by type, the others
  // (constexprs, dtypes) by value.
  std::string name = fn.name + "__";
  SmallVector<Value> operands;
  SmallVector<Type> types;
  std::vector<const Param *> runtime;
  std::map<std::string, V> args = bound;
  // Aggregate arguments travel as their tensor fields; the callee returns their final values
  // as extra results, written back here (mutations of a mutable argument are visible).
  std::vector<FieldSlot> argFields;
  std::set<AggObject *> seenObjects;
  std::map<AggObject *, std::string> ownerParam;
  for (const Param &p : fn.params) {
    V &v = args.at(p.name);
    // Numbers passed to parameters not marked tl.constexpr are runtime scalars, as in Triton.
    bool isConstexprParam = p.annotation && p.annotation->name == "constexpr";
    if (!isConstexprParam && v->isNumber())
      v = toTensor(v, at);
    if (v->kind == Val::Tuple || v->kind == Val::Function || v->kind == Val::Builtin ||
        v->kind == Val::Namespace || v->kind == Val::Method || v->kind == Val::Class ||
        v->kind == Val::Descriptor)
      error(at, "the noinline function '" + fn.name + "' cannot take " + describe(v) +
                    " (parameter '" + p.name + "')");
    if (v->kind == Val::Aggregate) {
      std::vector<FieldSlot> own;
      std::set<AggObject *> mine;
      collectFields(v, own, mine);
      mine.insert(v->obj.get());
      for (AggObject *o : mine) {
        auto [it, fresh] = ownerParam.emplace(o, p.name);
        if (!fresh)
          error(at, "the same aggregate object is passed to the parameters '" + it->second +
                        "' and '" + p.name + "' of the noinline function '" + fn.name +
                        "': its mutations could not be written back to one object; pass it "
                        "once");
      }
      name += "_" + v->obj->cls->name;
      for (const FieldSlot &f : own) {
        V fv = f.obj->fields[f.field];
        name += "_" + mangle(fv);
        operands.push_back(fv->value);
        types.push_back(fv->value.getType());
      }
      for (const Field &f : v->obj->cls->fields) {
        auto it = v->obj->fields.find(f.name);
        if (it != v->obj->fields.end() && it->second->isConstexpr())
          name += "_" + f.name + mangle(it->second);
      }
      argFields.insert(argFields.end(), own.begin(), own.end());
      continue;
    }
    name += "_" + mangle(v);
    if (v->kind == Val::Tensor) {
      operands.push_back(v->value);
      types.push_back(v->value.getType());
      runtime.push_back(&p);
    }
  }
  // The cache is keyed by the function (two files may each have an `f`) and the exact
  // specialization; the symbol is the readable name, made unique when two specializations
  // would share it.
  std::string key = fn.name + "@" + std::to_string(reinterpret_cast<uintptr_t>(&fn)) + "(";
  {
    std::set<const void *> seen;
    for (const Param &p : fn.params) {
      specializationKey(args.at(p.name), key, seen);
      key += ",";
    }
  }
  key += ")";
  auto cached = noinline_.find(key);
  if (cached == noinline_.end()) {
    if (std::find(noinlineInProgress_.begin(), noinlineInProgress_.end(), key) !=
        noinlineInProgress_.end())
      error(at, "the noinline function '" + fn.name + "' calls itself; recursion is not "
                                                      "supported");
    noinlineInProgress_.push_back(key);
    // A readable name another specialization already took (symbol-safe spellings can
    // coincide): the first free numbered variant.
    const std::string base = name;
    for (int suffix = 1; noinlineSymbols_.count(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    noinlineSymbols_.insert(name);
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToEnd(moduleOp_.getBody());
    auto func = tt::FuncOp::create(b_, loc(fn.loc), name, b_.getFunctionType(types, {}));
    func.setSymVisibility("private");
    func->setAttr("noinline", b_.getBoolAttr(true));
    SmallVector<Location> argLocs(types.size(), loc(fn.loc));
    mlir::Block *entry = b_.createBlock(&func.getBody(), {}, types, argLocs);
    Frame frame;
    frame.fn = &fn;
    frame.module = moduleOf(fn);
    size_t k = 0;
    std::vector<FieldSlot> calleeFields;
    for (const Param &p : fn.params) {
      const V &v = args.at(p.name);
      if (v->kind == Val::Aggregate) {
        // A copy of the object graph whose tensor fields are the function's arguments.
        std::map<AggObject *, Obj> copies;
        std::function<V(const V &)> copy = [&](const V &x) -> V {
          if (x->kind == Val::Tuple) {
            std::vector<V> items;
            for (const V &item : x->items)
              items.push_back(copy(item));
            return makeTuple(items);
          }
          if (x->kind != Val::Aggregate)
            return x;
          auto found = copies.find(x->obj.get());
          V out = newVal(Val::Aggregate);
          if (found != copies.end()) {
            out->obj = found->second;
            return out;
          }
          out->obj = std::make_shared<AggObject>();
          out->obj->cls = x->obj->cls;
          copies[x->obj.get()] = out->obj;
          for (const Field &f : x->obj->cls->fields) {
            auto it = x->obj->fields.find(f.name);
            if (it == x->obj->fields.end())
              continue;
            out->obj->fields[f.name] = it->second->kind == Val::Tensor
                                           ? makeTensor(entry->getArgument(k++),
                                                        it->second->isUnsigned)
                                           : copy(it->second);
          }
          return out;
        };
        V c = copy(v);
        std::set<AggObject *> seen;
        collectFields(c, calleeFields, seen);
        frame.vars[p.name] = c;
        continue;
      }
      frame.vars[p.name] =
          v->kind == Val::Tensor ? makeTensor(entry->getArgument(k++), v->isUnsigned) : v;
    }
    frames_.push_back(std::move(frame));
    exec(fn.body);
    Frame done = std::move(frames_.back());
    frames_.pop_back();
    // The results: nothing, one value or a tuple of values (constexpr numbers materialized).
    NoinlineInfo info;
    SmallVector<Value> results;
    if (done.returned && done.returnValue && done.returnValue->kind != Val::None) {
      info.tuple = done.returnValue->kind == Val::Tuple;
      std::vector<V> items = info.tuple ? done.returnValue->items : std::vector<V>{done.returnValue};
      for (const V &item : items) {
        V t = carryable(item, fn.loc);
        if (!t)
          error(fn.loc, "the noinline function '" + fn.name + "' returns " + describe(item) +
                            "; it may return tensors, scalars and tuples of them");
        results.push_back(t->value);
        info.unsignedResults.push_back(t->isUnsigned);
      }
    }
    info.numReturns = results.size();
    for (size_t f = 0; f < calleeFields.size(); ++f) {
      V fv = calleeFields[f].obj->fields[calleeFields[f].field];
      V t = carryable(fv, fn.loc);
      if (!t)
        error(fn.loc, "the noinline function '" + fn.name + "' leaves the field '" +
                          calleeFields[f].field + "' holding " + describe(fv) +
                          "; a mutable argument's tensor fields must stay tensors");
      results.push_back(t->value);
      info.unsignedResults.push_back(t->isUnsigned);
    }
    tt::ReturnOp::create(b_, loc(fn.loc), results);
    SmallVector<Type> resultTypes;
    for (Value r : results)
      resultTypes.push_back(r.getType());
    func.setFunctionType(b_.getFunctionType(types, resultTypes));
    info.func = func;
    noinlineInProgress_.pop_back();
    cached = noinline_.emplace(key, info).first;
  }
  const NoinlineInfo &info = cached->second;
  auto call = tt::CallOp::create(b_, loc(at), info.func, operands);
  // Write the mutable arguments' final fields back into the caller's objects.
  for (size_t f = 0; f < argFields.size(); ++f) {
    Value r = call.getResult(info.numReturns + f);
    if (r.getType() != argFields[f].obj->fields[argFields[f].field]->value.getType())
      error(at, "the noinline function '" + fn.name + "' changes the type of the field '" +
                    argFields[f].field + "' of its argument");
    argFields[f].obj->fields[argFields[f].field] =
        makeTensor(r, info.unsignedResults[info.numReturns + f]);
  }
  if (info.numReturns == 0)
    return makeNone();
  std::vector<V> items;
  for (unsigned k = 0; k < info.numReturns; ++k)
    items.push_back(makeTensor(call.getResult(k), info.unsignedResults[k]));
  return info.tuple ? makeTuple(items) : items.front();
}

// ---- statements ----------------------------------------------------------------------------

/// Whether every path through `block` ends in a return.
static bool alwaysReturns(const Block &block) {
  if (block.empty())
    return false;
  const Stmt &last = *block.back();
  if (last.kind == StmtKind::Return)
    return true;
  return last.kind == StmtKind::If && alwaysReturns(last.body) && alwaysReturns(last.orelse);
}

void Generator::exec(const Block &block) {
  // In a function's body, an if with a return in only one branch (`if c: ...; return`) is the
  // if with the rest of the function as its other branch, as Triton reads it.
  bool functionBody = frames_.back().fn && &block == &frames_.back().fn->body;
  for (size_t i = 0; i < block.size(); ++i) {
    const Stmt &s = *block[i];
    if (functionBody && s.kind == StmtKind::If && i + 1 < block.size() &&
        alwaysReturns(s.body) != alwaysReturns(s.orelse)) {
      std::vector<const Stmt *> rest;
      for (size_t j = i + 1; j < block.size(); ++j)
        rest.push_back(block[j].get());
      execIf(s, &rest);
      return;
    }
    execStmt(s);
    if (frames_.back().returned)
      return;
  }
}

void Generator::assign(const Expr &target, const V &value) {
  switch (target.kind) {
  case ExprKind::Name:
    frames_.back().vars[target.name] = value;
    return;
  case ExprKind::Tuple:
  case ExprKind::List: {
    if (value->kind != Val::Tuple)
      error(target.loc, "cannot unpack " + describe(value));
    if (value->items.size() != target.operands.size())
      error(target.loc, "cannot unpack " + std::to_string(value->items.size()) + " values into " +
                            std::to_string(target.operands.size()) + " targets");
    for (size_t k = 0; k < target.operands.size(); ++k)
      assign(*target.operands[k], value->items[k]);
    return;
  }
  case ExprKind::Attribute: {
    V base = eval(*target.operands[0]);
    if (base->kind != Val::Aggregate)
      error(target.loc, "only fields of aggregates can be assigned, not attributes of " +
                            describe(base));
    const ClassDef &cls = *base->obj->cls;
    bool declared = false;
    for (const Field &f : cls.fields)
      declared |= f.name == target.name;
    if (!declared)
      error(target.loc, "'" + cls.name + "' has no field '" + target.name +
                            "' (fields are declared in the class body: name: type)");
    // An aggregate stored in a tuple and mutated both through the tuple and through another
    // reference: the two places are reported rather than relying on references inside tuples.
    AggObject &obj = *base->obj;
    SourceLocation &first = base->viaTuple ? obj.mutatedViaTuple : obj.mutatedDirectly;
    bool &seen = base->viaTuple ? obj.hasMutationViaTuple : obj.hasMutationDirectly;
    if (!seen) {
      seen = true;
      first = target.loc;
    }
    if (obj.hasMutationViaTuple && obj.hasMutationDirectly)
      error(target.loc, "this '" + cls.name + "' object is mutated both through a tuple (line " +
                            std::to_string(obj.mutatedViaTuple.line) + ", column " +
                            std::to_string(obj.mutatedViaTuple.column) +
                            ") and through another reference (line " +
                            std::to_string(obj.mutatedDirectly.line) + ", column " +
                            std::to_string(obj.mutatedDirectly.column) +
                            "); mutate it through one of them");
    base->obj->fields[target.name] = value;
    return;
  }
  default:
    error(target.loc, "cannot assign to this expression");
  }
}

void Generator::assignedNames(const Block &block, std::vector<std::string> &out) {
  std::function<void(const Expr &)> targetNames = [&](const Expr &t) {
    if (t.kind == ExprKind::Name) {
      if (std::find(out.begin(), out.end(), t.name) == out.end())
        out.push_back(t.name);
    } else if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
      for (const ExprPtr &o : t.operands)
        targetNames(*o);
    }
  };
  for (const StmtPtr &s : block) {
    if (s->kind == StmtKind::Assign || s->kind == StmtKind::AugAssign ||
        s->kind == StmtKind::AnnAssign || s->kind == StmtKind::For)
      for (const ExprPtr &t : s->targets)
        targetNames(*t);
    assignedNames(s->body, out);
    assignedNames(s->orelse, out);
  }
}

V Generator::carryable(const V &v, SourceLocation at) {
  if (v->kind == Val::Tensor)
    return v;
  if (v->isNumber())
    return toTensor(v, at);
  return nullptr;
}

void Generator::execStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Pass:
    return;
  case StmtKind::Expr:
    eval(*s.value);
    return;
  case StmtKind::Assign: {
    V v = eval(*s.value);
    for (const ExprPtr &t : s.targets)
      assign(*t, v);
    return;
  }
  case StmtKind::AnnAssign: {
    if (!s.value)
      return;
    V v = eval(*s.value);
    assign(*s.targets[0], v);
    return;
  }
  case StmtKind::AugAssign: {
    V current = eval(*s.targets[0]);
    V rhs = eval(*s.value);
    V v = binary(s.op, current, rhs, s.loc);
    assign(*s.targets[0], v);
    return;
  }
  case StmtKind::Return:
  {
    // Evaluating the value may call functions (new frames): look the frame up afterwards.
    V value = s.value ? eval(*s.value) : makeNone();
    frames_.back().returnValue = value;
    frames_.back().returned = true;
  }
    return;
  case StmtKind::Assert: {
    V cond = eval(*s.value);
    std::string message = "assertion failed";
    if (s.message) {
      V m = eval(*s.message);
      if (m->kind == Val::Str)
        message = m->s;
    }
    if (cond->kind != Val::Tensor) {
      if (!truthy(cond, s.value->loc))
        error(s.loc, "static assertion failed: " + message);
      return;
    }
    V c = cast(cond, b_.getI1Type(), false, s.loc);
    if (debug_)
      tt::AssertOp::create(b_, loc(s.loc), c->value, message);
    return;
  }
  case StmtKind::If:
    execIf(s);
    return;
  case StmtKind::For:
    execFor(s);
    return;
  case StmtKind::While:
    execWhile(s);
    return;
  case StmtKind::Unsupported:
    error(s.loc, "'" + s.op + "' is not supported");
  }
}

bool Generator::isAggregateClass(const ClassDef &cls) const {
  for (const ExprPtr &d : cls.decorators) {
    const Expr *callee = d->kind == ExprKind::Call ? d->operands[0].get() : d.get();
    if ((callee->kind == ExprKind::Attribute || callee->kind == ExprKind::Name) &&
        (callee->name == "aggregate" || callee->name == "_aggregate"))
      return true;
  }
  return false;
}

V Generator::construct(const ClassDef &cls, CallArgs &args) {
  V self = newVal(Val::Aggregate);
  self->obj = std::make_shared<AggObject>();
  self->obj->cls = &cls;
  const FunctionDef *init = nullptr;
  for (const FunctionDef &m : cls.methods)
    if (m.name == "__init__")
      init = &m;
  if (init) {
    callFunction(*init, args, self);
  } else {
    // Without __init__, arguments fill the fields in declaration order (or by name).
    if (args.positional.size() > cls.fields.size())
      error(args.loc, "'" + cls.name + "' has " + std::to_string(cls.fields.size()) +
                          " fields, " + std::to_string(args.positional.size()) + " values given");
    for (size_t k = 0; k < args.positional.size(); ++k)
      self->obj->fields[cls.fields[k].name] = args.positional[k];
    for (auto &kw : args.keywords) {
      if (std::none_of(cls.fields.begin(), cls.fields.end(),
                       [&](const Field &f) { return f.name == kw.first; }))
        error(args.loc, "'" + cls.name + "' has no field '" + kw.first + "'");
      self->obj->fields[kw.first] = kw.second;
    }
  }
  for (const Field &f : cls.fields) {
    auto it = self->obj->fields.find(f.name);
    if (it == self->obj->fields.end())
      error(args.loc, "constructing '" + cls.name + "' leaves the field '" + f.name + "' unset");
    bool constexprField = f.annotation && f.annotation->name == "constexpr";
    if (constexprField && it->second->kind == Val::Tensor)
      error(args.loc, "the field '" + f.name + "' of '" + cls.name +
                          "' is a tl.constexpr but gets a runtime value");
  }
  return self;
}

void Generator::collectFields(const V &v, std::vector<FieldSlot> &out,
                              std::set<AggObject *> &seen, bool tensorsOnly) {
  if (!v)
    return;
  if (v->kind == Val::Tuple) {
    for (const V &item : v->items)
      collectFields(item, out, seen, tensorsOnly);
    return;
  }
  if (v->kind != Val::Aggregate || !seen.insert(v->obj.get()).second)
    return;
  for (const Field &f : v->obj->cls->fields) {
    auto it = v->obj->fields.find(f.name);
    if (it == v->obj->fields.end())
      continue;
    if (it->second->kind == Val::Tensor || (!tensorsOnly && it->second->kind != Val::Aggregate &&
                                            it->second->kind != Val::Tuple))
      out.push_back({v->obj, f.name});
    else {
      // A tuple-valued field is a slot of its own too (its tensors are not carried one by
      // one: a change across a loop or branch is reported), and aggregates inside it are
      // walked.
      if (!tensorsOnly && it->second->kind == Val::Tuple)
        out.push_back({v->obj, f.name});
      collectFields(it->second, out, seen, tensorsOnly);
    }
  }
}

std::vector<Generator::FieldSlot> Generator::reachableFields(bool tensorsOnly) {
  std::vector<FieldSlot> out;
  std::set<AggObject *> seen;
  for (auto &[name, v] : frames_.back().vars)
    collectFields(v, out, seen, tensorsOnly);
  return out;
}

void Generator::staticFieldSnapshot(std::vector<FieldSlot> &slots, std::vector<V> &values) {
  for (const FieldSlot &f : reachableFields(/*tensorsOnly=*/false))
    if (f.obj->fields[f.field]->kind != Val::Tensor) {
      slots.push_back(f);
      values.push_back(f.obj->fields[f.field]);
    }
}

void Generator::checkFieldsUnchanged(const std::vector<FieldSlot> &slots,
                                     const std::vector<V> &before, SourceLocation at) {
  for (size_t k = 0; k < slots.size(); ++k) {
    V now = slots[k].obj->fields[slots[k].field];
    if (now != before[k] && !equalConstexprs(now, before[k])) {
      if (before[k]->kind == Val::Tuple)
        error(at, "the field '" + slots[k].field + "' of '" + slots[k].obj->cls->name +
                      "' holds a tuple and changes inside the loop; tuple-valued fields are "
                      "not carried across iterations (use one field per tensor)");
      error(at, "the field '" + slots[k].field + "' of '" + slots[k].obj->cls->name +
                    "' holds " + describe(before[k]) + " before the loop and changes inside "
                    "it; a field that changes across iterations must start as a tensor "
                    "(e.g. tl.zeros(...) or tl.full(...))");
    }
  }
}

void Generator::execIf(const Stmt &s, const std::vector<const Stmt *> *rest) {
  // The rest of the function after a branch that did not return.
  auto runRest = [&] {
    if (!rest)
      return;
    for (const Stmt *st : *rest) {
      if (frames_.back().returned)
        return;
      execStmt(*st);
    }
  };
  V cond = eval(*s.value);
  if (cond->kind != Val::Tensor) {
    exec(truthy(cond, s.value->loc) ? s.body : s.orelse);
    runRest();
    return;
  }
  cond = cast(cond, b_.getI1Type(), false, s.value->loc);
  if (!shapeOf(cond->value).empty())
    error(s.value->loc, "an if condition must be a scalar, not a tensor (use tl.where)");
  Location l = loc(s.loc);
  std::vector<std::string> names;
  assignedNames(s.body, names);
  assignedNames(s.orelse, names);

  // Generate both branches into a result-less scf.if first; the carried values are known
  // only afterwards, then the regions move into an scf.if with results.
  std::map<std::string, V> before = frames_.back().vars;
  auto probe = scf::IfOp::create(b_, l, TypeRange{}, cond->value, /*withElseRegion=*/true);
  struct Branch {
    std::map<std::string, V> vars;
    bool returned = false;
    V returnValue;
    mlir::Block *block;
  };
  // Aggregate fields reachable before the if: each branch starts from their values.
  std::vector<FieldSlot> fields = reachableFields(/*tensorsOnly=*/false);
  std::vector<V> fieldsBefore;
  for (const FieldSlot &f : fields)
    fieldsBefore.push_back(f.obj->fields[f.field]);
  auto restoreFields = [&] {
    for (size_t k = 0; k < fields.size(); ++k)
      fields[k].obj->fields[fields[k].field] = fieldsBefore[k];
  };
  std::vector<V> fieldsThen, fieldsElse;
  auto runBranch = [&](mlir::Block *block, const Block &body) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(block->getTerminator());
    frames_.back().vars = before;
    restoreFields();
    exec(body);
    if (rest) {
      runRest();
      // Falling off the end of the function returns None.
      if (!frames_.back().returned) {
        frames_.back().returned = true;
        frames_.back().returnValue = makeNone();
      }
    }
    std::vector<V> &record = block == probe.thenBlock() ? fieldsThen : fieldsElse;
    for (const FieldSlot &f : fields)
      record.push_back(f.obj->fields[f.field]);
    Branch out{frames_.back().vars, frames_.back().returned, frames_.back().returnValue, block};
    frames_.back().returned = false;
    frames_.back().returnValue = nullptr;
    return out;
  };
  Branch thenB = runBranch(probe.thenBlock(), s.body);
  Branch elseB = runBranch(probe.elseBlock(), s.orelse);
  if (thenB.returned != elseB.returned)
    error(s.loc, "a return in only one branch of an if on a runtime condition is not "
                 "supported: return in both branches or after the if");
  // Both branches end the function without a value (`return`, `return None`): nothing to
  // carry out of the if for it.
  bool returnsNothing = thenB.returned && thenB.returnValue->kind == Val::None &&
                        elseB.returnValue->kind == Val::None;

  restoreFields();
  std::map<std::string, V> after = before;
  std::vector<std::pair<std::string, std::pair<V, V>>> carried;
  std::vector<size_t> carriedFields; // indices into `fields`, after the names in `carried`
  // The same compile-time value on both paths: one object (also through two references,
  // such as `t[0]` taken twice out of a tuple) or equal constexprs.
  auto same = [](const V &a, const V &b) {
    return a == b || equalConstexprs(a, b) ||
           (a->kind == Val::Aggregate && b->kind == Val::Aggregate && a->obj == b->obj &&
            a->viaTuple == b->viaTuple);
  };
  for (size_t k = 0; k < fields.size(); ++k) {
    V a = fieldsThen[k], b = fieldsElse[k];
    if (same(a, b))
      fields[k].obj->fields[fields[k].field] = a;
    else
      carriedFields.push_back(k);
  }
  for (const std::string &name : names) {
    auto t = thenB.vars.find(name), e = elseB.vars.find(name);
    if (t == thenB.vars.end() || e == elseB.vars.end()) {
      after.erase(name); // defined on one path only: not visible after the if
      continue;
    }
    V tv = t->second, ev = e->second;
    if (same(tv, ev)) {
      after[name] = tv;
      continue;
    }
    carried.push_back({name, {tv, ev}});
  }
  // Materialize the carried values at the end of each branch.
  auto finish = [&](Branch &br, bool isThen) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(br.block->getTerminator());
    SmallVector<Value> values;
    for (auto &c : carried) {
      V v = carryable(isThen ? c.second.first : c.second.second, s.loc);
      if (!v)
        error(s.loc, "'" + c.first + "' holds different compile-time objects in the two "
                     "branches of an if on a runtime condition");
      values.push_back(v->value);
    }
    for (size_t k : carriedFields) {
      V v = carryable(isThen ? fieldsThen[k] : fieldsElse[k], s.loc);
      if (!v)
        error(s.loc, "the field '" + fields[k].field + "' of '" + fields[k].obj->cls->name +
                         "' holds different compile-time objects in the two branches of an if "
                         "on a runtime condition");
      values.push_back(v->value);
    }
    if (br.returned && !returnsNothing) {
      V r = br.returnValue;
      std::vector<V> items = r->kind == Val::Tuple ? r->items : std::vector<V>{r};
      for (V &item : items) {
        V v = carryable(item, s.loc);
        if (!v)
          error(s.loc, "returning " + describe(item) +
                           " from both branches of an if on a runtime condition is not "
                           "supported");
        values.push_back(v->value);
      }
    }
    return values;
  };
  SmallVector<Value> thenValues = finish(thenB, true), elseValues = finish(elseB, false);
  if (thenValues.size() != elseValues.size())
    error(s.loc, "the two branches return different numbers of values");
  SmallVector<Type> types;
  for (size_t k = 0; k < thenValues.size(); ++k) {
    if (thenValues[k].getType() != elseValues[k].getType()) {
      std::string a, b;
      llvm::raw_string_ostream(a) << thenValues[k].getType();
      llvm::raw_string_ostream(b) << elseValues[k].getType();
      std::string what = k < carried.size() ? "'" + carried[k].first + "'"
                         : k < carried.size() + carriedFields.size()
                             ? "the field '" + fields[carriedFields[k - carried.size()]].field + "'"
                             : "the return value";
      error(s.loc, what + " has type " + a + " in the if branch and " + b +
                       " in the else branch");
    }
    types.push_back(thenValues[k].getType());
  }
  auto result = scf::IfOp::create(b_, l, types, cond->value, /*withElseRegion=*/true);
  result.getThenRegion().takeBody(probe.getThenRegion());
  result.getElseRegion().takeBody(probe.getElseRegion());
  probe.erase();
  for (auto [block, values] : {std::make_pair(result.thenBlock(), thenValues),
                               std::make_pair(result.elseBlock(), elseValues)}) {
    Operation *yield = block->getTerminator();
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(yield);
    scf::YieldOp::create(b_, l, values);
    yield->erase();
  }
  size_t k = 0;
  for (auto &c : carried) {
    bool u = c.second.first->kind == Val::Tensor && c.second.first->isUnsigned;
    after[c.first] = makeTensor(result.getResult(k++), u);
  }
  for (size_t f : carriedFields)
    fields[f].obj->fields[fields[f].field] =
        makeTensor(result.getResult(k++), fieldsThen[f]->isUnsigned);
  frames_.back().vars = after;
  if (returnsNothing) {
    frames_.back().returned = true;
    frames_.back().returnValue = makeNone();
  } else if (thenB.returned) {
    std::vector<V> items;
    for (; k < result.getNumResults(); ++k)
      items.push_back(makeTensor(result.getResult(k)));
    frames_.back().returned = true;
    frames_.back().returnValue =
        thenB.returnValue->kind == Val::Tuple ? makeTuple(items) : items.front();
  }
}

/// The loop variables of `body` carried through a loop: names it assigns that hold a value
/// before the loop (materialized as SSA values).
static std::vector<std::string> loopCarried(const std::vector<std::string> &assigned,
                                            const std::map<std::string, V> &vars,
                                            const std::string &exclude) {
  std::vector<std::string> out;
  for (const std::string &name : assigned) {
    if (name == exclude)
      continue;
    auto it = vars.find(name);
    if (it != vars.end() && (it->second->kind == Val::Tensor || it->second->isNumber()))
      out.push_back(name);
  }
  return out;
}

void Generator::execFor(const Stmt &s) {
  const Expr &iter = *s.value;
  const Expr &target = *s.targets[0];
  if (iter.kind != ExprKind::Call)
    error(iter.loc, "a for loop must iterate over range(...), tl.range(...) or "
                    "tl.static_range(...)");
  V callee = eval(*iter.operands[0]);
  if (callee->kind != Val::Builtin ||
      (callee->s != "py.range" && callee->s != "range" && callee->s != "static_range"))
    error(iter.loc, "a for loop must iterate over range(...), tl.range(...) or "
                    "tl.static_range(...)");
  std::vector<V> bounds;
  for (size_t k = 1; k < iter.operands.size(); ++k)
    bounds.push_back(eval(*iter.operands[k]));
  for (const auto &kw : iter.keywords) {
    static const std::set<std::string> ignored = {"num_stages", "loop_unroll_factor",
                                                  "disallow_acc_multi_buffer", "flatten",
                                                  "warp_specialize", "disable_licm"};
    if (!ignored.count(kw.first))
      error(kw.second->loc, "unexpected keyword '" + kw.first + "' for range");
  }
  if (bounds.empty() || bounds.size() > 3)
    error(iter.loc, "range takes 1 to 3 arguments");
  V lb = bounds.size() == 1 ? makeInt(0) : bounds[0];
  V ub = bounds.size() == 1 ? bounds[0] : bounds[1];
  V step = bounds.size() == 3 ? bounds[2] : makeInt(1);
  if (target.kind != ExprKind::Name)
    error(target.loc, "the loop variable must be a name");

  if (callee->s == "static_range") {
    int64_t a = requireInt(lb, iter.loc, "a static_range bound");
    int64_t z = requireInt(ub, iter.loc, "a static_range bound");
    int64_t st = requireInt(step, iter.loc, "a static_range step");
    if (st == 0)
      error(iter.loc, "static_range step must not be zero");
    if ((z - a) / st > 4096)
      error(iter.loc, "static_range unrolls at most 4096 iterations");
    for (int64_t i = a; st > 0 ? i < z : i > z; i += st) {
      frames_.back().vars[target.name] = makeInt(i);
      exec(s.body);
      if (frames_.back().returned)
        error(s.loc, "return inside a loop is not supported");
    }
    return;
  }
  if (step->kind == Val::Int && step->i == 0)
    error(iter.loc, "range step must not be zero");
  V tlb = toTensor(lb, iter.loc), tub = toTensor(ub, iter.loc), tst = toTensor(step, iter.loc);
  Type ivType = b_.getI32Type();
  for (const V &v : {tlb, tub, tst}) {
    Type t = v->value.getType();
    if (!t.isInteger(32) && !t.isInteger(64))
      error(iter.loc, "range bounds must be integer scalars");
    if (t.isInteger(64))
      ivType = b_.getI64Type();
  }
  tlb = cast(tlb, ivType, false, iter.loc);
  tub = cast(tub, ivType, false, iter.loc);
  tst = cast(tst, ivType, false, iter.loc);

  std::vector<std::string> assigned;
  assignedNames(s.body, assigned);
  std::vector<std::string> carriedNames = loopCarried(assigned, frames_.back().vars, target.name);
  SmallVector<Value> inits;
  std::vector<bool> unsignedness;
  for (const std::string &name : carriedNames) {
    V v = carryable(frames_.back().vars[name], s.loc);
    inits.push_back(v->value);
    unsignedness.push_back(v->isUnsigned);
  }
  std::vector<FieldSlot> fields = reachableFields();
  for (const FieldSlot &f : fields) {
    inits.push_back(f.obj->fields[f.field]->value);
    unsignedness.push_back(f.obj->fields[f.field]->isUnsigned);
  }
  std::vector<FieldSlot> staticFields;
  std::vector<V> staticBefore;
  staticFieldSnapshot(staticFields, staticBefore);
  Location l = loc(s.loc);
  auto loop = scf::ForOp::create(b_, l, tlb->value, tub->value, tst->value, inits);
  std::map<std::string, V> before = frames_.back().vars;
  {
    OpBuilder::InsertionGuard guard(b_);
    mlir::Block *body = loop.getBody();
    b_.setInsertionPointToEnd(body);
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      b_.setInsertionPoint(&body->back());
    frames_.back().vars[target.name] = makeTensor(loop.getInductionVar());
    for (size_t k = 0; k < carriedNames.size(); ++k)
      frames_.back().vars[carriedNames[k]] =
          makeTensor(loop.getRegionIterArgs()[k], unsignedness[k]);
    for (size_t k = 0; k < fields.size(); ++k)
      fields[k].obj->fields[fields[k].field] = makeTensor(
          loop.getRegionIterArgs()[carriedNames.size() + k], unsignedness[carriedNames.size() + k]);
    exec(s.body);
    if (frames_.back().returned)
      error(s.loc, "return inside a loop is not supported");
    checkUncarried(assigned, before, s.loc);
    checkFieldsUnchanged(staticFields, staticBefore, s.loc);
    std::vector<Value> fieldValues = fieldYields(fields, inits, carriedNames.size(), s.loc);
    SmallVector<Value> yields(fieldValues.begin(), fieldValues.end());
    for (size_t k = 0; k < carriedNames.size(); ++k) {
      V v = carryable(frames_.back().vars[carriedNames[k]], s.loc);
      if (!v || v->value.getType() != inits[k].getType()) {
        std::string a, b;
        llvm::raw_string_ostream(a) << inits[k].getType();
        if (v)
          llvm::raw_string_ostream(b) << v->value.getType();
        error(s.loc, "loop-carried variable '" + carriedNames[k] + "' has type " + a +
                         " before the loop and " + (v ? b : describe(frames_.back().vars[carriedNames[k]])) +
                         " at the end of its body");
      }
      yields.insert(yields.begin() + k, v->value);
    }
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      body->back().erase();
    b_.setInsertionPointToEnd(body);
    scf::YieldOp::create(b_, l, yields);
  }
  frames_.back().vars = before;
  for (size_t k = 0; k < carriedNames.size(); ++k)
    frames_.back().vars[carriedNames[k]] = makeTensor(loop.getResult(k), unsignedness[k]);
  for (size_t k = 0; k < fields.size(); ++k)
    fields[k].obj->fields[fields[k].field] = makeTensor(
        loop.getResult(carriedNames.size() + k), unsignedness[carriedNames.size() + k]);
}

std::vector<Value> Generator::fieldYields(const std::vector<FieldSlot> &fields,
                                          ArrayRef<Value> inits, size_t offset,
                                          SourceLocation at) {
  std::vector<Value> yields;
  for (size_t k = 0; k < fields.size(); ++k) {
    V v = carryable(fields[k].obj->fields[fields[k].field], at);
    Type want = inits[offset + k].getType();
    if (!v || v->value.getType() != want) {
      std::string a;
      llvm::raw_string_ostream(a) << want;
      error(at, "the field '" + fields[k].field + "' of '" + fields[k].obj->cls->name +
                    "' has type " + a + " before the loop and " +
                    (v ? "another type" : describe(fields[k].obj->fields[fields[k].field])) +
                    " at the end of its body");
    }
    yields.push_back(v->value);
  }
  return yields;
}

void Generator::checkUncarried(const std::vector<std::string> &assigned,
                               const std::map<std::string, V> &before, SourceLocation at) {
  // Names holding compile-time objects (aggregates, tuples, dtypes) cannot be rebound to
  // other objects inside a loop: only SSA values travel around it.
  for (const std::string &name : assigned) {
    auto b = before.find(name);
    if (b == before.end() || b->second->kind == Val::Tensor || b->second->isNumber())
      continue;
    auto now = frames_.back().vars.find(name);
    if (now != frames_.back().vars.end() && now->second != b->second)
      error(at, "'" + name + "' is rebound to another " +
                    (b->second->kind == Val::Aggregate ? std::string("aggregate object")
                                                       : describe(b->second)) +
                    " inside the loop; only tensors and numbers can change across iterations "
                    "(mutate the aggregate's fields instead)");
  }
}

void Generator::execWhile(const Stmt &s) {
  std::vector<std::string> assigned;
  assignedNames(s.body, assigned);
  std::vector<std::string> carriedNames = loopCarried(assigned, frames_.back().vars, "");
  SmallVector<Value> inits;
  SmallVector<Type> types;
  SmallVector<Location> locs;
  std::vector<bool> unsignedness;
  for (const std::string &name : carriedNames) {
    V v = carryable(frames_.back().vars[name], s.loc);
    inits.push_back(v->value);
    types.push_back(v->value.getType());
    locs.push_back(loc(s.loc));
    unsignedness.push_back(v->isUnsigned);
  }
  std::vector<FieldSlot> staticFields;
  std::vector<V> staticBefore;
  staticFieldSnapshot(staticFields, staticBefore);
  std::vector<FieldSlot> fields = reachableFields();
  for (const FieldSlot &f : fields) {
    V v = f.obj->fields[f.field];
    inits.push_back(v->value);
    types.push_back(v->value.getType());
    locs.push_back(loc(s.loc));
    unsignedness.push_back(v->isUnsigned);
  }
  size_t nv = carriedNames.size();
  auto bindAll = [&](mlir::Block *block) {
    for (size_t k = 0; k < nv; ++k)
      frames_.back().vars[carriedNames[k]] = makeTensor(block->getArgument(k), unsignedness[k]);
    for (size_t k = 0; k < fields.size(); ++k)
      fields[k].obj->fields[fields[k].field] =
          makeTensor(block->getArgument(nv + k), unsignedness[nv + k]);
  };
  Location l = loc(s.loc);
  auto loop = scf::WhileOp::create(b_, l, types, inits);
  std::map<std::string, V> before = frames_.back().vars;
  {
    OpBuilder::InsertionGuard guard(b_);
    mlir::Block *cond = b_.createBlock(&loop.getBefore(), {}, types, locs);
    bindAll(cond);
    V c = eval(*s.value);
    if (c->kind != Val::Tensor)
      c = toTensor(makeBool(truthy(c, s.value->loc)), s.value->loc);
    c = cast(c, b_.getI1Type(), false, s.value->loc);
    if (!shapeOf(c->value).empty())
      error(s.value->loc, "a while condition must be a scalar");
    scf::ConditionOp::create(b_, l, c->value, cond->getArguments());

    frames_.back().vars = before;
    mlir::Block *body = b_.createBlock(&loop.getAfter(), {}, types, locs);
    bindAll(body);
    exec(s.body);
    if (frames_.back().returned)
      error(s.loc, "return inside a loop is not supported");
    checkUncarried(assigned, before, s.loc);
    checkFieldsUnchanged(staticFields, staticBefore, s.loc);
    std::vector<Value> fieldValues = fieldYields(fields, inits, nv, s.loc);
    SmallVector<Value> yields;
    for (size_t k = 0; k < carriedNames.size(); ++k) {
      V v = carryable(frames_.back().vars[carriedNames[k]], s.loc);
      if (!v || v->value.getType() != types[k])
        error(s.loc, "loop-carried variable '" + carriedNames[k] +
                         "' changes type in the loop body");
      yields.push_back(v->value);
    }
    yields.append(fieldValues.begin(), fieldValues.end());
    scf::YieldOp::create(b_, l, yields);
  }
  frames_.back().vars = before;
  for (size_t k = 0; k < carriedNames.size(); ++k)
    frames_.back().vars[carriedNames[k]] = makeTensor(loop.getResult(k), unsignedness[k]);
  for (size_t k = 0; k < fields.size(); ++k)
    fields[k].obj->fields[fields[k].field] =
        makeTensor(loop.getResult(nv + k), unsignedness[nv + k]);
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

const FunctionDef &Generator::findEntry(const std::string &entry) {
  const ModuleCtx &main = modules_.front();
  if (auto it = main.functions.find(entry); it != main.functions.end())
    return *it->second;
  // A kernel nested in host functions by its own name, when that name is unique.
  std::vector<const FunctionDef *> named;
  for (const auto &[qualified, fn] : main.functions)
    if (fn->name == entry)
      named.push_back(fn);
  if (named.size() == 1)
    return *named.front();
  std::string known;
  for (const auto &[qualified, fn] : main.functions)
    if (named.empty() || fn->name == entry)
      known += (known.empty() ? "" : ", ") + qualified;
  if (named.empty())
    error({1, 1}, "no @triton.jit function named '" + entry + "' in this file" +
                      (known.empty() ? "" : " (it has " + known + ")"));
  error(named.front()->loc, "several kernels are named '" + entry + "' (" + known +
                                "): name one as --entry SCOPE.NAME");
}

OwningOpRef<ModuleOp> Generator::generate(const KernelSpec &spec) {
  debug_ = spec.debug;
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc({1, 1}));
  moduleOp_ = *module;
  const FunctionDef &fn = findEntry(spec.entry);
  bool noinline = false;
  if (!isJit(fn, &noinline))
    error(fn.loc, "'" + fn.name + "' is not decorated with @triton.jit");
  for (const auto &c : spec.constexprs)
    if (std::none_of(fn.params.begin(), fn.params.end(),
                     [&](const Param &p) { return p.name == c.first; }))
      error(fn.loc, "'" + fn.name + "' has no parameter '" + c.first + "' (from --constexpr)");

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
          error(p.loc, "cannot read the value '" + text + "' given for '" + p.name +
                           "' (a Python literal: an int, a float, a string, True/False/None, "
                           "a tuple of those; or a dtype)");
        frame.vars[p.name] = eval(*literal);
      }
      continue;
    }
    if (isConstexprParam) {
      if (!p.defaultValue)
        error(p.loc, "the constexpr parameter '" + p.name +
                         "' needs a value (--constexpr " + p.name + "=...)");
      frames_.emplace_back();
      frame.vars[p.name] = eval(*p.defaultValue);
      frames_.pop_back();
      continue;
    }
    if (next >= spec.signature.size())
      error(p.loc, "no type for the parameter '" + p.name +
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
        error(p.loc, "cannot read '" + spec.signature[next - 1] + "' for '" + p.name +
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
    if (!elem)
      error(p.loc, "unknown type '" + spec.signature[next - 1] + "' for '" + p.name +
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
    error(fn.loc, "the signature lists " + std::to_string(spec.signature.size()) +
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
  exec(fn.body);
  if (frames_.back().returned && frames_.back().returnValue &&
      frames_.back().returnValue->kind != Val::None)
    error(fn.loc, "a kernel cannot return a value");
  frames_.pop_back();
  tt::ReturnOp::create(b_, loc(fn.loc), ValueRange{});
  return module;
}

absl::StatusOr<OwningOpRef<ModuleOp>> GenerateKernel(MLIRContext &context,
                                                     const SourceFile &file,
                                                     const Module &module,
                                                     const KernelSpec &spec) {
  try {
    Generator generator(context, file, module);
    OwningOpRef<ModuleOp> result = generator.generate(spec);
    std::string diagnostics;
    {
      ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
        diagnostics += d.str() + "\n";
        return success();
      });
      if (failed(verify(*result)))
        return absl::InternalError("internal error: the generated tt IR does not verify: " +
                                   diagnostics);
    }
    return result;
  } catch (const CompileError &e) {
    return absl::InvalidArgumentError((e.file ? *e.file : file).formatError(e.loc, e.message));
  }
}

} // namespace tessel::frontend
