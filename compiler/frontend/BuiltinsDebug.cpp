//===- BuiltinsDebug.cpp - builtins: hints, checks and debugging -*- C++
//-*-===//
//
// Hints, checks and debugging: assume, multiple_of, static_assert,
// device_assert, device_print, inline assembly, grid dependencies.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>

using namespace mlir;

namespace tessel::frontend {

absl::StatusOr<V> Generator::builtinAssume(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // A fact for the optimizer; the structured lowering does not use it.
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "assume", {{"cond", true}}));
  V c = p.get("cond");
  if (c->kind == Val::Tensor && !elementOf(c->value).isInteger(1))
    return error(at, "tl.assume needs a boolean condition, got " + describe(c));
  if (c->kind == Val::Bool && !c->i)
    return error(at, "tl.assume(False): the condition is false at compile time");
  return makeNone();
}

absl::StatusOr<V> Generator::builtinHint(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(Params p,
                   Params::Make(*this, args, name, {{"input", true}, {"values", true}}));
  RETURN_IF_ERROR(intList(*this, p.get("values"), at, "the values").status());
  return p.get("input");
}

absl::StatusOr<V> Generator::builtinStaticAssert(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "static_assert",
                                          {{"cond", true}, {"msg", false}}));
  V c = p.get("cond");
  if (c->kind == Val::Tensor)
    return error(at, "static_assert needs a compile-time condition");
  ASSIGN_OR_RETURN(bool holds, truthy(c, at));
  if (!holds) {
    std::string msg = p.opt("msg") && p.get("msg")->kind == Val::Str ? p.get("msg")->s : "";
    return error(at, "static_assert failed" + (msg.empty() ? std::string() : ": " + msg));
  }
  return makeNone();
}

absl::StatusOr<V> Generator::builtinDeviceAssert(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "device_assert",
                                          {{"cond", true}, {"msg", false}, {"mask", false}}));
  ASSIGN_OR_RETURN(V c, cast(p.get("cond"), b_.getI1Type(), false, at));
  std::string msg = p.opt("msg") && p.get("msg")->kind == Val::Str ? p.get("msg")->s : "";
  if (debug_) // as in Triton, device assertions exist only in debug builds
    tt::AssertOp::create(b_, l, c->value, msg);
  return makeNone();
}

absl::StatusOr<V> Generator::builtinDebugBarrier(const std::string &name, CallArgs &args) {
  return makeNone();
}

absl::StatusOr<V> Generator::builtinDevicePrint(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  // device_print(prefix, *args, hex=False)
  if (args.positional.empty() || args.positional[0]->kind != Val::Str)
    return error(at, "tl.device_print takes a prefix string first");
  bool hex = false;
  for (auto &kw : args.keywords) {
    if (kw.first != "hex")
      return error(at, "tl.device_print got an unexpected keyword '" + kw.first + "'");
    ASSIGN_OR_RETURN(hex, truthy(kw.second, at));
  }
  SmallVector<Value> values;
  SmallVector<int32_t> isSigned;
  for (size_t k = 1; k < args.positional.size(); ++k) {
    ASSIGN_OR_RETURN(V v, toTensor(args.positional[k], at));
    values.push_back(v->value);
    isSigned.push_back(isa<IntegerType>(elementOf(v->value)) && !v->isUnsigned ? 1 : 0);
  }
  tt::PrintOp::create(b_, l, b_.getStringAttr(args.positional[0]->s), b_.getBoolAttr(hex), values,
                      b_.getDenseI32ArrayAttr(isSigned));
  return makeNone();
}

absl::StatusOr<V> Generator::builtinInlineAsmElementwise(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  // GPU assembly per element (per `pack` elements), kept in the TTIR as
  // tt.elementwise_inline_asm for a GPU backend; targets that cannot run it
  // refuse it with its location (Compiler.cpp).
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "inline_asm_elementwise",
                                          {{"asm", true},
                                           {"constraints", true},
                                           {"args", true},
                                           {"dtype", true},
                                           {"is_pure", true},
                                           {"pack", true}}));
  V code = p.get("asm"), constraints = p.get("constraints"), operands = p.get("args");
  V dtype = p.get("dtype"), pure = p.get("is_pure");
  if (code->kind != Val::Str || constraints->kind != Val::Str)
    return error(at, "tl.inline_asm_elementwise takes the assembly and its "
                     "constraints as strings");
  if (operands->kind != Val::Tuple)
    return error(at, "tl.inline_asm_elementwise takes its arguments as a list, got " +
                         describe(operands));
  if (pure->kind != Val::Bool)
    return error(at, "tl.inline_asm_elementwise's is_pure must be True or False, got " +
                         describe(pure));
  ASSIGN_OR_RETURN(int64_t pack, requireInt(p.get("pack"), at, "pack"));
  if (pack < 1 || pack > 16)
    return error(at, "tl.inline_asm_elementwise's pack must be 1..16, got " + std::to_string(pack));
  std::vector<V> values;
  for (const V &item : operands->items) {
    ASSIGN_OR_RETURN(V value, toTensor(item, at));
    values.push_back(value);
  }
  // One shape for all: the arguments broadcast together (the first to the
  // common shape, then every one to it).
  for (size_t i = 1; i < values.size(); ++i) {
    ASSIGN_OR_RETURN(auto pair, broadcastPair(values[0], values[i], at));
    values[0] = pair.first;
  }
  SmallVector<int64_t> shape(values.empty() ? ArrayRef<int64_t>{} : shapeOf(values[0]->value));
  for (V &v : values) {
    ASSIGN_OR_RETURN(v, broadcastTo(v, shape, at));
  }
  std::vector<V> dtypes = dtype->kind == Val::Tuple ? dtype->items : std::vector<V>{dtype};
  SmallVector<Type> resultTypes;
  for (const V &d : dtypes) {
    if (d->kind != Val::Dtype)
      return error(at, "tl.inline_asm_elementwise's dtype must be a dtype or a list "
                       "of them, got " +
                           describe(d));
    resultTypes.push_back(shape.empty() ? d->type : Type(RankedTensorType::get(shape, d->type)));
  }
  if (resultTypes.empty())
    return error(at, "tl.inline_asm_elementwise needs at least one result dtype");
  SmallVector<Value> operandValues;
  for (const V &v : values)
    operandValues.push_back(v->value);
  auto op = tt::ElementwiseInlineAsmOp::create(
      b_, l, resultTypes, b_.getStringAttr(code->s), b_.getStringAttr(constraints->s),
      b_.getBoolAttr(pure->i != 0), b_.getI32IntegerAttr(int32_t(pack)), operandValues);
  std::vector<V> results;
  for (auto [r, d] : llvm::zip(op.getResult(), dtypes))
    results.push_back(makeTensor(r, d->isUnsigned));
  return dtype->kind == Val::Tuple ? makeTuple(results) : results[0];
}

absl::StatusOr<V> Generator::builtinGridDependency(const std::string &name, CallArgs &args) {
  // Programmatic dependent launch (tl.extra.cuda.*): tessel's launches on one
  // device run in order, each after the previous one finished, so there is
  // nothing to wait for or to release early.
  RETURN_IF_ERROR(Params::Make(*this, args, name, {}).status());
  return makeNone();
}

} // namespace tessel::frontend
