//===- BuiltinsCreation.cpp - builtins: tensors and dtypes made from nothing -*-
// C++ -*-===//
//
// tensors and dtypes made from nothing: program ids, ranges, fills, casts,
// pointer types.
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

absl::StatusOr<V> Generator::builtinProgramIndex(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name, {{"axis", true}}));
  ASSIGN_OR_RETURN(int64_t axis, requireInt(p.get("axis"), at, "the axis"));
  if (axis < 0 || axis > 2)
    return error(at, "the axis must be 0, 1 or 2");
  auto dim = tt::ProgramIDDim(axis);
  if (name == "program_id")
    return makeTensor(tt::GetProgramIdOp::create(b_, l, b_.getI32Type(), dim));
  return makeTensor(tt::GetNumProgramsOp::create(b_, l, b_.getI32Type(), dim));
}

absl::StatusOr<V> Generator::builtinArange(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p,
                   Params::Make(*this, args, "arange", {{"start", true}, {"end", true}}));
  ASSIGN_OR_RETURN(int64_t start, requireInt(p.get("start"), at, "arange's start"));
  ASSIGN_OR_RETURN(int64_t end, requireInt(p.get("end"), at, "arange's end"));
  int64_t n = end - start;
  if (n <= 0 || (n & (n - 1)) != 0)
    return error(at, "arange's range must be a positive power of two, got " + std::to_string(n));
  if (start < INT32_MIN || end > INT32_MAX)
    return error(at, "arange's bounds must fit in int32");
  RETURN_IF_ERROR(checkNumel({n}, at));
  auto type = RankedTensorType::get({n}, b_.getI32Type());
  return makeTensor(tt::MakeRangeOp::create(b_, l, type, int32_t(start), int32_t(end)));
}

absl::StatusOr<V> Generator::builtinCdiv(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "cdiv", {{"x", true}, {"div", true}}));
  V x = p.get("x"), d = p.get("div");
  ASSIGN_OR_RETURN(V sum, binary("+", x, d, at));
  ASSIGN_OR_RETURN(V less, binary("-", sum, makeInt(1), at));
  return binary("//", less, d, at);
}

absl::StatusOr<V> Generator::builtinNextPowerOf2(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "next_power_of_2", {{"n", true}}));
  ASSIGN_OR_RETURN(int64_t n, requireInt(p.get("n"), at, "n"));
  int64_t r = 1;
  if (n > (int64_t(1) << 62))
    return error(at, "next_power_of_2(" + std::to_string(n) + ") overflows 64-bit integers");
  while (r < n)
    r <<= 1;
  return makeInt(r);
}

absl::StatusOr<V> Generator::builtinFull(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  std::vector<std::pair<std::string, bool>> params = {{"shape", true}};
  if (name == "full")
    params.push_back({"value", true});
  params.push_back({"dtype", name == "full"});
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name, params));
  ASSIGN_OR_RETURN(SmallVector<int64_t> shape, shapeArg(*this, at, p.get("shape")));
  bool u = false;
  Type elem;
  if (p.opt("dtype")) {
    ASSIGN_OR_RETURN(elem, requireDtype(p.get("dtype"), at, "the dtype", &u));
  } else {
    elem = b_.getF32Type();
  }
  if (name != "full")
    return makeTensor(constant(elem, name == "ones" ? 1 : 0, shape), u);
  V value = p.get("value");
  if (value->isNumber())
    return makeTensor(
        constant(elem, value->kind == Val::Float ? value->f : double(value->i), shape), u);
  ASSIGN_OR_RETURN(V converted, cast(value, elem, u, at));
  return broadcastTo(converted, shape, at);
}

absl::StatusOr<V> Generator::builtinFullLike(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{"input", true},
                                           {"value", name == "full_like"},
                                           {"dtype", false}}));
  ASSIGN_OR_RETURN(V x, p.tensor("input"));
  bool u = x->isUnsigned;
  Type elem;
  if (p.opt("dtype")) {
    ASSIGN_OR_RETURN(elem, requireDtype(p.get("dtype"), at, "the dtype", &u));
  } else {
    elem = elementOf(x->value);
  }
  double v = 0;
  if (name == "full_like") {
    V value = p.get("value");
    if (!value->isNumber())
      return error(at, "full_like's value must be a number");
    v = value->kind == Val::Float ? value->f : double(value->i);
  }
  return makeTensor(constant(elem, v, shapeOf(x->value)), u);
}

absl::StatusOr<V> Generator::builtinCast(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  return castCall("cast", "input", args, at);
}

absl::StatusOr<V> Generator::builtinPointerType(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // A pointer dtype, for casting an int64 address
  // (`x.to(tl.pointer_type(tl.float16))`).
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{"element_ty", true},
                                           {"address_space", false},
                                           {"const", false}}));
  bool elemUnsigned = false;
  ASSIGN_OR_RETURN(Type elem, requireDtype(p.get("element_ty"), at,
                                           "tl.pointer_type's element_ty", &elemUnsigned));
  if (V space = p.opt("address_space")) {
    ASSIGN_OR_RETURN(int64_t n, requireInt(space, at, "address_space"));
    if (n != 1)
      return error(at, "tl.pointer_type: only address space 1 (global memory) is "
                       "supported, got " +
                           std::to_string(n));
  }
  if (V isConst = p.opt("const")) {
    ASSIGN_OR_RETURN(bool constPointer, truthy(isConst, at));
    if (constPointer)
      return error(at, "tl.pointer_type: const pointers are not supported (drop const=True)");
  }
  return makeDtype(tt::PointerType::get(elem, 1), elemUnsigned);
}

} // namespace tessel::frontend
