//===- Values.cpp - values of generation: constexprs, tensors, dtypes, conversions and broadcasts -*- C++ -*-===//

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

V newVal(Val::Kind kind) {
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

absl::Status Generator::error(SourceLocation at, const std::string &message) const {
  const SourceFile *file = currentModule()->file;
  return absl::InvalidArgumentError((file ? *file : file_).formatError(at, message));
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

bool isFp8(Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8; }

std::string typeText(Type t) {
  for (const Fp8Name &f : kFp8Names)
    if (f.get(t.getContext()) == t)
      return f.dtype;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

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

absl::StatusOr<V> Generator::toTensor(const V &v, SourceLocation at) {
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
    return error(at, "expected a tensor or a number, got " + describe(v));
  }
}


absl::StatusOr<V> Generator::cast(const V &vIn, Type to, bool toUnsigned, SourceLocation at,
                                  bool bitcast, std::optional<tt::RoundingMode> rounding) {
  ASSIGN_OR_RETURN(V v, toTensor(vIn, at));
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
      return error(at, "bitcast between types of different widths");
    return makeTensor(arith::BitcastOp::create(b_, l, result, x), toUnsigned);
  }
  bool fromPtr = isa<tt::PointerType>(from), toPtr = isa<tt::PointerType>(to);
  if (fromPtr && toPtr)
    return makeTensor(tt::BitcastOp::create(b_, l, result, x), toUnsigned);
  if (fromPtr) {
    if (!to.isInteger(64))
      return error(at, "a pointer converts to int64 only");
    return makeTensor(tt::PtrToIntOp::create(b_, l, result, x));
  }
  if (toPtr) {
    if (!from.isInteger(64))
      return error(at, "only int64 converts to a pointer");
    return makeTensor(tt::IntToPtrOp::create(b_, l, result, x), toUnsigned);
  }
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if ((isFp8(from) && !toFloat) || (isFp8(to) && !fromFloat))
    return error(at, "cannot cast " + typeText(from) + " to " + typeText(to) +
                         " (8-bit floats convert to and from float types only: cast through "
                         "float32)");
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

absl::Status Generator::checkNumel(ArrayRef<int64_t> shape, SourceLocation at) const {
  constexpr int64_t kMaxNumel = int64_t(1) << 20; // Triton's TRITON_MAX_TENSOR_NUMEL
  int64_t numel = 1;
  std::string dims;
  for (int64_t d : shape) {
    dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    // Each factor is checked before it multiplies: the product never overflows.
    if (d > kMaxNumel || numel > kMaxNumel / std::max<int64_t>(d, 1))
      numel = kMaxNumel + 1;
    else
      numel *= d;
  }
  if (numel > kMaxNumel)
    return error(at, "a tensor of shape [" + dims + "] has more than 1048576 elements, Triton's "
                     "maximum (TRITON_MAX_TENSOR_NUMEL)");
  return absl::OkStatus();
}

absl::StatusOr<V> Generator::broadcastTo(const V &vIn, ArrayRef<int64_t> shape, SourceLocation at) {
  RETURN_IF_ERROR(checkNumel(shape, at));
  ASSIGN_OR_RETURN(V v, toTensor(vIn, at));
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
    return error(at, "cannot broadcast a tensor of rank " + std::to_string(from.size()) +
                         " to rank " + std::to_string(shape.size()));
  while (shapeOf(x).size() < shape.size()) {
    SmallVector<int64_t> s(shapeOf(x));
    s.insert(s.begin(), 1);
    x = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, elem), x, 0);
  }
  ArrayRef<int64_t> now = shapeOf(x);
  for (size_t d = 0; d < shape.size(); ++d)
    if (now[d] != shape[d] && now[d] != 1)
      return error(at, "cannot broadcast dimension " + std::to_string(d) + " of size " +
                           std::to_string(now[d]) + " to " + std::to_string(shape[d]));
  if (now != shape)
    x = tt::BroadcastOp::create(b_, l, RankedTensorType::get(shape, elem), x);
  return makeTensor(x, v->isUnsigned);
}

absl::StatusOr<std::pair<V, V>> Generator::broadcastPair(V a, V b, SourceLocation at) {
  ASSIGN_OR_RETURN(a, toTensor(a, at));
  ASSIGN_OR_RETURN(b, toTensor(b, at));
  ArrayRef<int64_t> sa = shapeOf(a->value), sb = shapeOf(b->value);
  if (sa == sb)
    return std::make_pair(a, b);
  size_t rank = std::max(sa.size(), sb.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t x = d + sa.size() >= rank ? sa[d + sa.size() - rank] : 1;
    int64_t y = d + sb.size() >= rank ? sb[d + sb.size() - rank] : 1;
    if (x != y && x != 1 && y != 1)
      return error(at, "shapes are incompatible for broadcasting: dimension " + std::to_string(d) +
                           " is " + std::to_string(x) + " and " + std::to_string(y));
    shape[d] = std::max(x, y);
  }
  if (sa.empty() && sb.empty())
    return std::make_pair(a, b);
  ASSIGN_OR_RETURN(a, broadcastTo(a, shape, at));
  ASSIGN_OR_RETURN(b, broadcastTo(b, shape, at));
  return std::make_pair(a, b);
}

absl::StatusOr<bool> Generator::truthy(const V &v, SourceLocation at) {
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
    return error(at, "the truth of a runtime value is not known at compile time here");
  }
}

absl::StatusOr<int64_t> Generator::requireInt(const V &v, SourceLocation at,
                                              const std::string &what) {
  if (v->kind == Val::Int)
    return v->i;
  return error(at, what + " must be a constexpr int, got " + describe(v));
}

absl::StatusOr<Type> Generator::requireDtype(const V &v, SourceLocation at, const std::string &what,
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
    return error(at, "tl.float8e4b15 is not supported (Triton builds it from NVIDIA inline "
                     "assembly): use tl.float8e4nv or tl.float8e5");
  return error(at, what + " must be a dtype (tl.float32, ...), got " + describe(v));
}

} // namespace tessel::frontend
