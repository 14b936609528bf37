//===- Builtins.cpp - calls of tl.* functions and tensor methods, through the registry -*- C++ -*-===//
//
// callBuiltin normalizes a call's name (tl.math and libdevice spellings, tensor and dtype methods)
// and hands it to the member function the registry (Builtins.inc) names for it; the families'
// files (Builtins*.cpp) generate the code. The helpers the families share are here.
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

/// A tuple (or list) of constexpr ints, or a single int.
absl::StatusOr<std::vector<int64_t>> intList(Generator &g, const V &v, SourceLocation at,
                                             const std::string &what) {
  std::vector<int64_t> out;
  if (v->kind == Val::Tuple) {
    for (const V &item : v->items) {
      ASSIGN_OR_RETURN(int64_t n, g.requireInt(item, at, what));
      out.push_back(n);
    }
  } else {
    ASSIGN_OR_RETURN(int64_t n, g.requireInt(v, at, what));
    out.push_back(n);
  }
  return out;
}

/// The `dim` argument of a function over one dimension of `x` (tl.flip, tl.sort): the last
/// when not given, negative from the end; an error for a scalar or out of range.
absl::StatusOr<int64_t> dimArg(Generator &g, const Params &p, const V &x, SourceLocation at,
                               const std::string &fn) {
  int64_t rank = int64_t(shapeOf(x->value).size());
  if (rank == 0)
    return g.error(at, fn + " needs a tensor, got " + g.describe(x));
  int64_t dim = rank - 1;
  if (p.opt("dim")) {
    ASSIGN_OR_RETURN(dim, g.requireInt(p.get("dim"), at, "dim"));
  }
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    return g.error(at, fn + ": dim " + std::to_string(dim) + " is out of range for rank " +
                           std::to_string(rank));
  return dim;
}

/// The index along `dim` of every element of a tensor of `shape`: tl.arange(0, shape[dim])
/// expanded in the other dimensions and broadcast.
absl::StatusOr<V> positionsAlong(Generator &g, ArrayRef<int64_t> shape, int64_t dim,
                                 SourceLocation at) {
  CallArgs range{{makeInt(0), makeInt(shape[dim])}, {}, at};
  ASSIGN_OR_RETURN(V pos, g.callBuiltin("arange", range));
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (d != dim) {
      CallArgs expand{{pos, makeInt(d)}, {}, at};
      ASSIGN_OR_RETURN(pos, g.callBuiltin("expand_dims", expand));
    }
  return g.broadcastTo(pos, shape, at);
}

absl::StatusOr<SmallVector<int64_t>> shapeArg(Generator &g, SourceLocation at, const V &v) {
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, intList(g, v, at, "a shape"));
  for (int64_t d : dims)
    if (d <= 0 || (d & (d - 1)) != 0)
      return g.error(at, "tensor dimensions must be positive powers of two, got " +
                             std::to_string(d));
  RETURN_IF_ERROR(g.checkNumel(dims, at));
  return SmallVector<int64_t>(dims.begin(), dims.end());
}

namespace {

using BuiltinMember = absl::StatusOr<V> (Generator::*)(const std::string &, CallArgs &);

/// Every builtin name and the member function that generates its calls (Builtins.inc).
const std::map<std::string, BuiltinMember> &builtinRegistry() {
  static const std::map<std::string, BuiltinMember> *registry = [] {
    auto *r = new std::map<std::string, BuiltinMember>;
    auto add = [r](BuiltinMember fn, std::initializer_list<const char *> names) {
      for (const char *n : names)
        r->emplace(n, fn);
    };
#define TESSEL_BUILTIN(member, ...) add(&Generator::member, {__VA_ARGS__});
#define TESSEL_BUILTIN_FAMILY(member, ...) add(&Generator::member, {__VA_ARGS__});
#include "compiler/frontend/Builtins.inc"
    return r;
  }();
  return *registry;
}

} // namespace

absl::StatusOr<V> Generator::castCall(const std::string &name, const std::string &input,
                                       CallArgs &args, SourceLocation at) {
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{input, true}, {"dtype", true},
                                           {"fp_downcast_rounding", false}, {"bitcast", false}}));
  bool u = false;
  ASSIGN_OR_RETURN(Type t, requireDtype(p.get("dtype"), at, "the dtype", &u));
  bool bitcast = false;
  if (p.opt("bitcast")) {
    ASSIGN_OR_RETURN(bitcast, truthy(p.get("bitcast"), at));
  }
  std::optional<tt::RoundingMode> rounding;
  if (V r = p.opt("fp_downcast_rounding")) {
    if (r->kind != Val::Str || (r->s != "rtne" && r->s != "rtz"))
      return error(at, "fp_downcast_rounding must be 'rtne' or 'rtz', got " +
                           (r->kind == Val::Str ? "'" + r->s + "'" : describe(r)));
    rounding = r->s == "rtz" ? tt::RoundingMode::RTZ : tt::RoundingMode::RTNE;
  }
  return cast(p.get(input), t, u, at, bitcast, rounding);
}

absl::StatusOr<V> Generator::callBuiltin(const std::string &nameIn, CallArgs &args) {
  std::string name = nameIn;
  SourceLocation at = args.loc;
  if (name.rfind("math.", 0) == 0) {
    // tl.math.* and libdevice (tl.extra.*.libdevice.*) names: the CUDA spellings map onto the
    // same math ops as the tl functions.
    name = name.substr(5);
    static const std::map<std::string, std::string> libdevice = {
        {"expf", "exp"},      {"exp2f", "exp2"},   {"logf", "log"},     {"log2f", "log2"},
        {"sqrtf", "sqrt"},    {"rsqrtf", "rsqrt"}, {"sinf", "sin"},     {"cosf", "cos"},
        {"tanhf", "tanh"},    {"erff", "erf"},     {"floorf", "floor"}, {"ceilf", "ceil"},
        {"fabs", "abs"},      {"fabsf", "abs"},    {"fmin", "minimum"}, {"fminf", "minimum"},
        {"fmax", "maximum"},  {"fmaxf", "maximum"}, {"log1pf", "log1p"}, {"expm1f", "expm1"},
        {"pow", "pow"},       {"powf", "pow"},     {"fma", "fma"},      {"fmaf", "fma"},
        {"div_rn", "div_rn"}, {"sqrt_rn", "sqrt_rn"}};
    if (auto it = libdevice.find(name); it != libdevice.end())
      name = it->second;
  }
  bool isMethod = name.rfind("method.", 0) == 0;
  if (isMethod && args.positional.front()->kind == Val::Descriptor)
    return callDescriptorBuiltin(name, args);
  if (isMethod) {
    name = name.substr(7);
    V self = args.positional.front();
    if (self->kind == Val::Dtype) {
      Type t = self->type;
      if (name == "is_floating" || name == "is_fp16" || name == "is_bf16" || name == "is_fp32" ||
          name == "is_fp64" || name == "is_int" || name == "is_ptr" || name == "is_int_signed" ||
          name == "is_int_unsigned" || name == "is_bool") {
        bool r = name == "is_floating"       ? isa<FloatType>(t)
                 : name == "is_fp16"         ? t.isF16()
                 : name == "is_bf16"         ? t.isBF16()
                 : name == "is_fp32"         ? t.isF32()
                 : name == "is_fp64"         ? t.isF64()
                 : name == "is_int"          ? isa<IntegerType>(t)
                 : name == "is_ptr"          ? isa<tt::PointerType>(t)
                 : name == "is_bool"         ? t.isInteger(1)
                 : name == "is_int_signed"   ? isa<IntegerType>(t) && !self->isUnsigned
                                             : isa<IntegerType>(t) && self->isUnsigned;
        return makeBool(r);
      }
      return error(at, "a dtype has no method '" + name + "'");
    }
    if (self->kind != Val::Tensor)
      return error(at, describe(self) + " has no method '" + name + "'");
    static const std::set<std::string> methods = {
        "to", "reshape", "view", "broadcast_to", "expand_dims", "trans", "permute", "sum",
        "max", "min", "argmax", "argmin", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs",
        "sin", "cos", "sigmoid", "cumsum", "cumprod", "split", "ravel"};
    if (!methods.count(name))
      return error(at, "tensors have no method '" + name + "'");
    if (name == "to")
      return castCall("to", "x", args, at);
    // The remaining methods are the tl functions with the tensor first.
  }

  if (name.rfind("triton.", 0) == 0)
    return error(at, "'" + name + "' cannot be called inside a kernel");
  const auto &registry = builtinRegistry();
  auto it = registry.find(name);
  if (it == registry.end() && name.rfind("atomic_", 0) == 0) {
    // Not one of Triton's atomics (a misspelling, or one tl does not have).
    std::string known;
    for (const auto &[other, member] : registry)
      if (other.rfind("atomic_", 0) == 0)
        known += (known.empty() ? "" : ", ") + std::string("tl.") + other;
    return error(at, "'tl." + name + "' is not an atomic operation of Triton's (" + known + ")");
  }
  if (it == registry.end())
    return error(at, "'tl." + name + "' is not supported by the frontend yet");
  ASSIGN_OR_RETURN(V result, (this->*it->second)(name, args));
  if (!result)
    return error(at, "'tl." + name + "' is not supported by the frontend yet");
  return result;
}

} // namespace tessel::frontend
