//===- Builtins.cpp - tl.* functions and tensor methods as tt/arith/math ops -*- C++ -*-===//

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
namespace {


/// A tuple (or list) of constexpr ints, or a single int.
std::vector<int64_t> intList(Generator &g, const V &v, SourceLocation at, const std::string &what) {
  std::vector<int64_t> out;
  if (v->kind == Val::Tuple) {
    for (const V &item : v->items)
      out.push_back(g.requireInt(item, at, what));
  } else {
    out.push_back(g.requireInt(v, at, what));
  }
  return out;
}

/// The `dim` argument of a function over one dimension of `x` (tl.flip, tl.sort): the last
/// when not given, negative from the end; an error for a scalar or out of range.
int64_t dimArg(Generator &g, const Params &p, const V &x, SourceLocation at,
               const std::string &fn) {
  int64_t rank = int64_t(shapeOf(x->value).size());
  if (rank == 0)
    g.error(at, fn + " needs a tensor, got " + g.describe(x));
  int64_t dim = p.opt("dim") ? g.requireInt(p.get("dim"), at, "dim") : rank - 1;
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    g.error(at, fn + ": dim " + std::to_string(dim) + " is out of range for rank " +
                    std::to_string(rank));
  return dim;
}

/// The index along `dim` of every element of a tensor of `shape`: tl.arange(0, shape[dim])
/// expanded in the other dimensions and broadcast.
V positionsAlong(Generator &g, ArrayRef<int64_t> shape, int64_t dim, SourceLocation at) {
  CallArgs range{{makeInt(0), makeInt(shape[dim])}, {}, at};
  V pos = g.callBuiltin("arange", range);
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (d != dim) {
      CallArgs expand{{pos, makeInt(d)}, {}, at};
      pos = g.callBuiltin("expand_dims", expand);
    }
  return g.broadcastTo(pos, shape, at);
}

} // namespace

V Generator::castCall(const std::string &name, const std::string &input, CallArgs &args,
                       SourceLocation at) {
  Params p(*this, args, name, {{input, true}, {"dtype", true}, {"fp_downcast_rounding", false},
                               {"bitcast", false}});
  bool u = false;
  Type t = requireDtype(p.get("dtype"), at, "the dtype", &u);
  bool bitcast = p.opt("bitcast") && truthy(p.get("bitcast"), at);
  std::optional<tt::RoundingMode> rounding;
  if (V r = p.opt("fp_downcast_rounding")) {
    if (r->kind != Val::Str || (r->s != "rtne" && r->s != "rtz"))
      error(at, "fp_downcast_rounding must be 'rtne' or 'rtz', got " +
                    (r->kind == Val::Str ? "'" + r->s + "'" : describe(r)));
    rounding = r->s == "rtz" ? tt::RoundingMode::RTZ : tt::RoundingMode::RTNE;
  }
  return cast(p.get(input), t, u, at, bitcast, rounding);
}

V Generator::callBuiltin(const std::string &nameIn, CallArgs &args) {
  std::string name = nameIn;
  SourceLocation at = args.loc;
  Location l = loc(at);
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
      error(at, "a dtype has no method '" + name + "'");
    }
    if (self->kind != Val::Tensor)
      error(at, describe(self) + " has no method '" + name + "'");
    static const std::set<std::string> methods = {
        "to", "reshape", "view", "broadcast_to", "expand_dims", "trans", "permute", "sum",
        "max", "min", "argmax", "argmin", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs",
        "sin", "cos", "sigmoid", "cumsum", "cumprod", "split", "ravel"};
    if (!methods.count(name))
      error(at, "tensors have no method '" + name + "'");
    if (name == "to")
      return castCall("to", "x", args, at);
    // The remaining methods are the tl functions with the tensor first.
  }

  // ---- Python builtins ----
  if (name == "py.min" || name == "py.max") {
    if (args.positional.size() == 1 && args.positional[0]->kind == Val::Tuple)
      args.positional = args.positional[0]->items;
    if (args.positional.empty() || !args.keywords.empty())
      error(at, name.substr(3) + "() takes two or more values");
    V acc = args.positional[0];
    for (size_t k = 1; k < args.positional.size(); ++k) {
      V x = args.positional[k];
      if (acc->isNumber() && x->isNumber()) {
        bool less = binary("<", x, acc, at)->i;
        if ((name == "py.min") == less)
          acc = x;
        continue;
      }
      CallArgs pair{{acc, x}, {}, at};
      acc = callBuiltin(name == "py.min" ? "minimum" : "maximum", pair);
    }
    return acc;
  }
  if (name == "py.float" || name == "py.int" || name == "py.bool") {
    if (args.positional.size() != 1)
      error(at, name.substr(3) + "() takes one argument");
    V x = args.positional[0];
    if (x->kind == Val::Str && name == "py.float") {
      std::string s = x->s;
      for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
      if (s == "inf" || s == "+inf" || s == "infinity")
        return makeFloat(std::numeric_limits<double>::infinity());
      if (s == "-inf" || s == "-infinity")
        return makeFloat(-std::numeric_limits<double>::infinity());
      if (s == "nan")
        return makeFloat(std::numeric_limits<double>::quiet_NaN());
      char *end = nullptr;
      double v = std::strtod(x->s.c_str(), &end);
      if (*end)
        error(at, "could not convert '" + x->s + "' to float");
      return makeFloat(v);
    }
    if (!x->isNumber())
      error(at, name.substr(3) + "() of " + describe(x) + " is not a compile-time value");
    double v = x->kind == Val::Float ? x->f : double(x->i);
    if (name == "py.float")
      return makeFloat(v);
    if (name == "py.int")
      return makeInt(int64_t(v));
    return makeBool(v != 0);
  }
  if (name == "py.len") {
    if (args.positional.size() != 1 || args.positional[0]->kind != Val::Tuple)
      error(at, "len() takes a tuple");
    return makeInt(int64_t(args.positional[0]->items.size()));
  }
  if (name == "py.abs") {
    CallArgs one{args.positional, {}, at};
    if (one.positional.size() == 1 && one.positional[0]->isNumber()) {
      V x = one.positional[0];
      return x->kind == Val::Float ? makeFloat(std::fabs(x->f)) : makeInt(std::llabs(x->i));
    }
    return callBuiltin("abs", one);
  }
  if (name == "py.print" || name == "static_print")
    return makeNone(); // compile-time printing has no output channel here
  if (name == "py.isinstance") {
    // Decided at compile time, as in Triton (constexprs are compared unwrapped): tensors,
    // tensor descriptors, dtypes, tuples, Python numbers and @tl.aggregate classes.
    if (args.positional.size() != 2 || !args.keywords.empty())
      error(at, "isinstance() takes a value and a class or a tuple of classes");
    V x = args.positional[0];
    std::function<bool(const V &)> is = [&](const V &cls) -> bool {
      if (cls->kind == Val::Tuple)
        return llvm::any_of(cls->items, is);
      if (cls->kind == Val::Class)
        return x->kind == Val::Aggregate && x->obj->cls == cls->cls;
      if (cls->kind == Val::Builtin) {
        const std::string &c = cls->s;
        if (c == "tensor_descriptor" || c == "tensor_descriptor_base")
          return x->kind == Val::Descriptor;
        if (c == "tensor")
          return x->kind == Val::Tensor;
        if (c == "dtype")
          return x->kind == Val::Dtype;
        if (c == "tuple")
          return x->kind == Val::Tuple;
        if (c == "py.int") // bool is an int in Python
          return x->kind == Val::Int || x->kind == Val::Bool;
        if (c == "py.float")
          return x->kind == Val::Float;
        if (c == "py.bool")
          return x->kind == Val::Bool;
      }
      error(at, "isinstance() against " + describe(cls) +
                    " is not supported (tl.tensor, tl.tensor_descriptor, tl.dtype, tl.tuple, "
                    "int, float, bool or a @tl.aggregate class)");
    };
    return makeBool(is(args.positional[1]));
  }
  if (name == "py.range" || name == "range" || name == "static_range")
    error(at, "range objects can only be iterated by a for loop");
  if (name.rfind("triton.", 0) == 0)
    error(at, "'" + name + "' cannot be called inside a kernel");
  if (name == "constexpr") {
    if (args.positional.size() != 1)
      error(at, "tl.constexpr() takes one value");
    return args.positional[0];
  }

  // ---- programs and index ranges ----
  if (name == "program_id" || name == "num_programs") {
    Params p(*this, args, name, {{"axis", true}});
    int64_t axis = requireInt(p.get("axis"), at, "the axis");
    if (axis < 0 || axis > 2)
      error(at, "the axis must be 0, 1 or 2");
    auto dim = tt::ProgramIDDim(axis);
    if (name == "program_id")
      return makeTensor(tt::GetProgramIdOp::create(b_, l, b_.getI32Type(), dim));
    return makeTensor(tt::GetNumProgramsOp::create(b_, l, b_.getI32Type(), dim));
  }
  if (name == "arange") {
    Params p(*this, args, "arange", {{"start", true}, {"end", true}});
    int64_t start = requireInt(p.get("start"), at, "arange's start");
    int64_t end = requireInt(p.get("end"), at, "arange's end");
    int64_t n = end - start;
    if (n <= 0 || (n & (n - 1)) != 0)
      error(at, "arange's range must be a positive power of two, got " + std::to_string(n));
    if (start < INT32_MIN || end > INT32_MAX)
      error(at, "arange's bounds must fit in int32");
    auto type = RankedTensorType::get({n}, b_.getI32Type());
    return makeTensor(tt::MakeRangeOp::create(b_, l, type, int32_t(start), int32_t(end)));
  }
  if (name == "cdiv") {
    Params p(*this, args, "cdiv", {{"x", true}, {"div", true}});
    V x = p.get("x"), d = p.get("div");
    return binary("//", binary("-", binary("+", x, d, at), makeInt(1), at), d, at);
  }
  if (name == "next_power_of_2") {
    Params p(*this, args, "next_power_of_2", {{"n", true}});
    int64_t n = requireInt(p.get("n"), at, "n"), r = 1;
    if (n > (int64_t(1) << 62))
      error(at, "next_power_of_2(" + std::to_string(n) + ") overflows 64-bit integers");
    while (r < n)
      r <<= 1;
    return makeInt(r);
  }

  // ---- creation ----
  auto shapeArg = [&](const V &v) {
    std::vector<int64_t> dims = intList(*this, v, at, "a shape");
    for (int64_t d : dims)
      if (d <= 0 || (d & (d - 1)) != 0)
        error(at, "tensor dimensions must be positive powers of two, got " + std::to_string(d));
    return SmallVector<int64_t>(dims.begin(), dims.end());
  };
  if (name == "zeros" || name == "full" || name == "ones") {
    std::vector<std::pair<std::string, bool>> params = {{"shape", true}};
    if (name == "full")
      params.push_back({"value", true});
    params.push_back({"dtype", name == "full"});
    Params p(*this, args, name, params);
    SmallVector<int64_t> shape = shapeArg(p.get("shape"));
    bool u = false;
    Type elem = p.opt("dtype") ? requireDtype(p.get("dtype"), at, "the dtype", &u) : b_.getF32Type();
    if (name != "full")
      return makeTensor(constant(elem, name == "ones" ? 1 : 0, shape), u);
    V value = p.get("value");
    if (value->isNumber())
      return makeTensor(constant(elem, value->kind == Val::Float ? value->f : double(value->i), shape), u);
    return broadcastTo(cast(value, elem, u, at), shape, at);
  }
  if (name == "zeros_like" || name == "full_like") {
    Params p(*this, args, name, {{"input", true}, {"value", name == "full_like"}, {"dtype", false}});
    V x = p.tensor("input");
    bool u = x->isUnsigned;
    Type elem = p.opt("dtype") ? requireDtype(p.get("dtype"), at, "the dtype", &u) : elementOf(x->value);
    double v = 0;
    if (name == "full_like") {
      V value = p.get("value");
      if (!value->isNumber())
        error(at, "full_like's value must be a number");
      v = value->kind == Val::Float ? value->f : double(value->i);
    }
    return makeTensor(constant(elem, v, shapeOf(x->value)), u);
  }

  // ---- memory ----
  // Strict where Triton is: masks are boolean, and modifiers are among Triton's names.
  auto booleanMask = [&](V m) {
    bool boolean = m->kind == Val::Bool ||
                   (m->kind == Val::Tensor && getElementTypeOrSelf(m->value.getType()).isInteger(1));
    if (!boolean)
      error(at, "a mask must be boolean, not " + describe(m) + " (compare it: e.g. offs < n)");
    return m;
  };
  auto oneOf = [&](Params &p, const char *param, std::initializer_list<const char *> allowed) {
    V v = p.opt(param);
    if (!v)
      return;
    std::string names;
    for (const char *a : allowed) {
      if (v->kind == Val::Str && v->s == a)
        return;
      names += std::string(names.empty() ? "" : ", ") + "\"" + a + "\"";
    }
    error(at, std::string(param) + " must be one of " + names + ", not " +
                  (v->kind == Val::Str ? "\"" + v->s + "\"" : describe(v)));
  };
  if (name == "load") {
    Params p(*this, args, "load",
             {{"pointer", true}, {"mask", false}, {"other", false}, {"boundary_check", false},
              {"padding_option", false}, {"cache_modifier", false}, {"eviction_policy", false},
              {"volatile", false}});
    oneOf(p, "cache_modifier", {"", ".ca", ".cg", ".cv"});
    oneOf(p, "eviction_policy", {"", "evict_normal", "evict_first", "evict_last"});
    V ptr = p.tensor("pointer");
    auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
    if (!ptrElem)
      error(at, "tl.load needs a pointer, got " + describe(ptr));
    auto boundaryCheck = [&]() {
      SmallVector<int32_t> dims;
      if (V bc = p.opt("boundary_check"))
        for (int64_t d : intList(*this, bc, at, "boundary_check"))
          dims.push_back(int32_t(d));
      return dims;
    };
    if (auto block = dyn_cast<RankedTensorType>(ptrElem.getPointeeType())) {
      if (p.opt("mask") || p.opt("other"))
        error(at, "a load through a block pointer takes boundary_check and padding_option, "
                  "not mask and other");
      tt::PaddingOptionAttr padding;
      if (V pad = p.opt("padding_option")) {
        if (pad->kind != Val::Str || (pad->s != "" && pad->s != "zero" && pad->s != "nan"))
          error(at, "padding_option must be \"zero\" or \"nan\"");
        if (pad->s == "zero")
          padding = tt::PaddingOptionAttr::get(context(), tt::PaddingOption::PAD_ZERO);
        else if (pad->s == "nan")
          padding = tt::PaddingOptionAttr::get(context(), tt::PaddingOption::PAD_NAN);
      }
      return makeTensor(tt::LoadOp::create(b_, l, block, ptr->value, Value(), Value(),
                                           boundaryCheck(), padding));
    }
    if (p.opt("boundary_check"))
      error(at, "boundary_check applies to block pointers only");
    Type elem = ptrElem.getPointeeType();
    ArrayRef<int64_t> shape = shapeOf(ptr->value);
    Value mask, other;
    if (V m = p.opt("mask")) {
      auto [pp, mm] = broadcastPair(ptr, cast(booleanMask(m), b_.getI1Type(), false, at), at);
      ptr = pp;
      shape = shapeOf(ptr->value);
      mask = broadcastTo(mm, shape, at)->value;
    }
    if (V o = p.opt("other")) {
      if (!mask)
        error(at, "tl.load's 'other' needs a mask");
      other = broadcastTo(cast(o, elem, false, at), shape, at)->value;
    }
    Type result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
    auto load = tt::LoadOp::create(b_, l, result, ptr->value, mask, other,
                                   ArrayRef<int32_t>{}, tt::PaddingOptionAttr());
    if (V v = p.opt("volatile"))
      load.setIsVolatile(truthy(v, at));
    return makeTensor(load, ptr->isUnsigned);
  }
  if (name == "store") {
    Params p(*this, args, "store",
             {{"pointer", true}, {"value", true}, {"mask", false}, {"boundary_check", false},
              {"cache_modifier", false}, {"eviction_policy", false}});
    oneOf(p, "cache_modifier", {"", ".wb", ".cg", ".cs", ".wt"});
    oneOf(p, "eviction_policy", {"", "evict_normal", "evict_first", "evict_last"});
    V ptr = p.tensor("pointer");
    auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
    if (!ptrElem)
      error(at, "tl.store needs a pointer, got " + describe(ptr));
    if (auto block = dyn_cast<RankedTensorType>(ptrElem.getPointeeType())) {
      if (p.opt("mask"))
        error(at, "a store through a block pointer takes boundary_check, not mask");
      V value = broadcastTo(cast(p.get("value"), block.getElementType(), false, at),
                            block.getShape(), at);
      SmallVector<int32_t> dims;
      if (V bc = p.opt("boundary_check"))
        for (int64_t d : intList(*this, bc, at, "boundary_check"))
          dims.push_back(int32_t(d));
      tt::StoreOp::create(b_, l, ptr->value, value->value, Value(), dims);
      return makeNone();
    }
    Type elem = ptrElem.getPointeeType();
    V value = cast(p.get("value"), elem, false, at);
    auto [pp, vv] = broadcastPair(ptr, value, at);
    ArrayRef<int64_t> shape = shapeOf(pp->value);
    Value mask;
    if (V m = p.opt("mask"))
      mask = broadcastTo(cast(booleanMask(m), b_.getI1Type(), false, at), shape, at)->value;
    tt::StoreOp::create(b_, l, pp->value, vv->value, mask, ArrayRef<int32_t>{});
    return makeNone();
  }
  if (name == "atomic_cas") {
    Params p(*this, args, name, {{"pointer", true}, {"cmp", true}, {"val", true},
                                 {"sem", false}, {"scope", false}});
    oneOf(p, "sem", {"acquire", "release", "acq_rel", "relaxed"});
    oneOf(p, "scope", {"gpu", "cta", "sys"});
    V ptr = p.tensor("pointer");
    auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
    if (!ptrElem)
      error(at, "tl.atomic_cas needs a pointer");
    Type elem = ptrElem.getPointeeType();
    bool unsignedPointee = ptr->isUnsigned;
    V cmp = cast(p.get("cmp"), elem, unsignedPointee, at),
      val = cast(p.get("val"), elem, unsignedPointee, at);
    auto [pp, cc] = broadcastPair(ptr, cmp, at);
    auto [pp2, vv] = broadcastPair(pp, val, at);
    cc = broadcastTo(cc, shapeOf(pp2->value), at);
    ArrayRef<int64_t> shape = shapeOf(pp2->value);
    Type result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
    return makeTensor(tt::AtomicCASOp::create(b_, l, result, pp2->value, cc->value, vv->value,
                                              tt::MemSemantic::ACQUIRE_RELEASE,
                                              tt::MemSyncScope::GPU),
                      unsignedPointee);
  }
  if (name.rfind("atomic_", 0) == 0) {
    static const std::map<std::string, int> kinds = {{"atomic_add", 0}, {"atomic_max", 1},
                                                     {"atomic_min", 2}, {"atomic_xchg", 3},
                                                     {"atomic_and", 4}, {"atomic_or", 5},
                                                     {"atomic_xor", 6}};
    auto kind = kinds.find(name);
    if (kind == kinds.end())
      error(at, "'tl." + name + "' is not supported yet");
    Params p(*this, args, name, {{"pointer", true}, {"val", true}, {"mask", false},
                                 {"sem", false}, {"scope", false}});
    oneOf(p, "sem", {"acquire", "release", "acq_rel", "relaxed"});
    oneOf(p, "scope", {"gpu", "cta", "sys"});
    V ptr = p.tensor("pointer");
    auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
    if (!ptrElem)
      error(at, "tl." + name + " needs a pointer");
    Type elem = ptrElem.getPointeeType();
    bool unsignedPointee = ptr->isUnsigned; // *u32: unsigned max/min, as Triton does
    V val = cast(p.get("val"), elem, unsignedPointee, at);
    auto [pp, vv] = broadcastPair(ptr, val, at);
    ArrayRef<int64_t> shape = shapeOf(pp->value);
    Value mask;
    if (V m = p.opt("mask"))
      mask = broadcastTo(cast(booleanMask(m), b_.getI1Type(), false, at), shape, at)->value;
    bool isFloat = isa<FloatType>(elem);
    tt::RMWOp op;
    switch (kind->second) {
    case 0:
      op = isFloat ? tt::RMWOp::FADD : tt::RMWOp::ADD;
      break;
    case 1:
      op = isFloat || !unsignedPointee ? tt::RMWOp::MAX : tt::RMWOp::UMAX;
      break;
    case 2:
      op = isFloat || !unsignedPointee ? tt::RMWOp::MIN : tt::RMWOp::UMIN;
      break;
    case 3:
      op = tt::RMWOp::XCHG;
      break;
    case 4:
      op = tt::RMWOp::AND;
      break;
    case 5:
      op = tt::RMWOp::OR;
      break;
    default:
      op = tt::RMWOp::XOR;
      break;
    }
    Type result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
    auto rmw = tt::AtomicRMWOp::create(b_, l, result, op, pp->value, vv->value, mask,
                                       tt::MemSemantic::ACQUIRE_RELEASE, tt::MemSyncScope::GPU);
    return makeTensor(rmw, unsignedPointee);
  }

  // ---- linear algebra ----
  if (name == "dot") {
    Params p(*this, args, "dot", {{"input", true}, {"other", true}, {"acc", false},
                                  {"input_precision", false}, {"allow_tf32", false},
                                  {"max_num_imprecise_acc", false}, {"out_dtype", false}});
    V a = p.tensor("input"), bv = p.tensor("other");
    ArrayRef<int64_t> sa = shapeOf(a->value), sb = shapeOf(bv->value);
    if (sa.size() < 2 || sa.size() != sb.size() || sa.size() > 3)
      error(at, "tl.dot takes two 2-D (or 3-D batched) tensors");
    size_t r = sa.size();
    if (sa[r - 1] != sb[r - 2])
      error(at, "tl.dot: the inner dimensions differ (" + std::to_string(sa[r - 1]) + " and " +
                    std::to_string(sb[r - 2]) + ")");
    if (sa[r - 2] < 16 || sa[r - 1] < 16 || sb[r - 1] < 16)
      error(at, "tl.dot needs every dimension to be at least 16");
    Type ea = elementOf(a->value), eb = elementOf(bv->value);
    if (ea != eb) {
      if (isa<FloatType>(ea) && isa<FloatType>(eb)) {
        Type wide = ea.getIntOrFloatBitWidth() >= eb.getIntOrFloatBitWidth() ? ea : eb;
        a = cast(a, wide, false, at);
        bv = cast(bv, wide, false, at);
        ea = wide;
      } else {
        error(at, "tl.dot operands have different element types");
      }
    }
    SmallVector<int64_t> shape(sa.begin(), sa.end());
    shape[r - 1] = sb[r - 1];
    Type out = isa<IntegerType>(ea) ? Type(b_.getI32Type()) : Type(b_.getF32Type());
    if (V o = p.opt("out_dtype"))
      out = requireDtype(o, at, "out_dtype");
    Value acc;
    if (V c = p.opt("acc")) {
      V cc = toTensor(c, at);
      if (shapeOf(cc->value) != ArrayRef<int64_t>(shape))
        error(at, "tl.dot's acc has the wrong shape");
      acc = cc->value;
      out = elementOf(acc);
    } else {
      acc = constant(out, 0, shape);
    }
    tt::InputPrecision precision = tt::InputPrecision::TF32;
    if (V ip = p.opt("input_precision")) {
      if (ip->kind != Val::Str)
        error(at, "input_precision must be a string");
      if (ip->s == "ieee")
        precision = tt::InputPrecision::IEEE;
      else if (ip->s == "tf32")
        precision = tt::InputPrecision::TF32;
      else if (ip->s == "tf32x3")
        precision = tt::InputPrecision::TF32x3;
      else
        error(at, "unknown input_precision '" + ip->s + "'");
    } else if (V tf = p.opt("allow_tf32")) {
      if (!truthy(tf, at))
        precision = tt::InputPrecision::IEEE;
    }
    auto dot = tt::DotOp::create(b_, l, acc.getType(), a->value, bv->value, acc,
                                 precision, 0);
    return makeTensor(dot);
  }

  // ---- reductions and scans ----
  if (name == "sum" || name == "max" || name == "min" || name == "argmax" || name == "argmin" ||
      name == "reduce" || name == "cumsum" || name == "cumprod" || name == "associative_scan") {
    bool isScan = name == "cumsum" || name == "cumprod" || name == "associative_scan";
    std::vector<std::pair<std::string, bool>> params = {{"input", true}, {"axis", name == "reduce" || name == "associative_scan"}};
    if (name == "reduce" || name == "associative_scan")
      params.push_back({"combine_fn", true});
    if (name == "sum" || name == "cumsum" || name == "cumprod")
      params.push_back({name == "sum" ? "keep_dims" : "reverse", false}), params.push_back({"dtype", false});
    else if (name == "max" || name == "min")
      params.push_back({"return_indices", false}), params.push_back({"return_indices_tie_break_left", false}),
          params.push_back({"keep_dims", false}), params.push_back({"propagate_nan", false});
    else if (name == "argmax" || name == "argmin")
      params.push_back({"tie_break_left", false}), params.push_back({"keep_dims", false});
    else if (name == "reduce")
      params.push_back({"keep_dims", false});
    else
      params.push_back({"reverse", false});
    Params p(*this, args, name, params);
    if ((name == "max" || name == "min") && p.opt("return_indices") &&
        truthy(p.get("return_indices"), at))
      error(at, "return_indices is not supported yet: use tl.argmax / tl.argmin");
    // Inputs: one tensor, or a tuple of tensors for reduce / associative_scan.
    std::vector<V> inputs;
    V in = p.get("input");
    if (in->kind == Val::Tuple && (name == "reduce" || name == "associative_scan"))
      inputs = in->items;
    else
      inputs = {toTensor(in, at)};
    for (V &x : inputs)
      x = toTensor(x, at);
    SmallVector<int64_t> shape(shapeOf(inputs[0]->value));
    for (V &x : inputs)
      if (shapeOf(x->value) != ArrayRef<int64_t>(shape))
        error(at, "the inputs of tl." + name + " must have one shape");
    if (shape.empty()) {
      if (isScan)
        error(at, "tl." + name + " needs a tensor");
      return inputs.size() == 1 ? inputs[0] : makeTuple(inputs);
    }
    bool promoteSmallInts = name == "sum" || name == "cumsum" || name == "cumprod";
    for (V &x : inputs) {
      Type elem = elementOf(x->value);
      if (promoteSmallInts && isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() < 32)
        x = cast(x, b_.getI32Type(), x->isUnsigned, at);
    }
    if (V d = p.opt("dtype"))
      inputs[0] = cast(inputs[0], requireDtype(d, at, "dtype"), false, at);
    bool keepDims = p.opt("keep_dims") && truthy(p.get("keep_dims"), at);
    bool reverse = p.opt("reverse") && truthy(p.get("reverse"), at);
    int64_t axis = 0;
    // Reducing every axis with keep_dims gives a tensor of the input's rank with all sizes 1.
    std::vector<int64_t> allOnes(shape.size(), 1);
    if (V ax = p.opt("axis")) {
      axis = requireInt(ax, at, "the axis");
      if (axis < 0)
        axis += int64_t(shape.size());
      if (axis < 0 || axis >= int64_t(shape.size()))
        error(at, "axis " + std::to_string(ax->i) + " is out of range for a tensor of rank " +
                      std::to_string(shape.size()));
    } else if (isScan) {
      axis = 0;
    } else if (shape.size() > 1) {
      // Reduce everything: flatten first.
      int64_t n = 1;
      for (int64_t d : shape)
        n *= d;
      for (V &x : inputs)
        x = makeTensor(tt::ReshapeOp::create(
                           b_, l, RankedTensorType::get({n}, elementOf(x->value)), x->value,
                           /*allow_reorder=*/true, /*efficient_layout=*/false),
                       x->isUnsigned);
      shape = {n};
    }
    // argmax / argmin reduce (values, indices along the axis).
    bool isArg = name == "argmax" || name == "argmin";
    if (isArg) {
      Value index = tt::MakeRangeOp::create(
          b_, l, RankedTensorType::get({shape[axis]}, b_.getI32Type()), 0, int32_t(shape[axis]));
      SmallVector<int64_t> s = {shape[axis]};
      for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
        if (d == axis)
          continue;
        s.insert(s.begin() + d, 1);
        index = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, b_.getI32Type()),
                                         index, int32_t(d));
      }
      inputs.push_back(broadcastTo(makeTensor(index), shape, at));
    }

    // The combine region: block arguments (accumulators..., new values...).
    SmallVector<Value> srcs;
    SmallVector<Type> elems;
    for (V &x : inputs) {
      srcs.push_back(x->value);
      elems.push_back(elementOf(x->value));
    }
    bool isUnsigned = inputs[0]->isUnsigned;
    auto combine = [&](mlir::Block *block) -> SmallVector<Value> {
      size_t n = srcs.size();
      ValueRange a = block->getArguments().take_front(n), c = block->getArguments().drop_front(n);
      Type elem = elems[0];
      bool isFloat = isa<FloatType>(elem);
      if (name == "sum" || name == "cumsum")
        return {isFloat ? Value(arith::AddFOp::create(b_, l, a[0], c[0]))
                        : Value(arith::AddIOp::create(b_, l, a[0], c[0]))};
      if (name == "cumprod")
        return {isFloat ? Value(arith::MulFOp::create(b_, l, a[0], c[0]))
                        : Value(arith::MulIOp::create(b_, l, a[0], c[0]))};
      if (name == "max")
        return {isFloat ? Value(arith::MaxNumFOp::create(b_, l, a[0], c[0]))
                : isUnsigned ? Value(arith::MaxUIOp::create(b_, l, a[0], c[0]))
                             : Value(arith::MaxSIOp::create(b_, l, a[0], c[0]))};
      if (name == "min")
        return {isFloat ? Value(arith::MinNumFOp::create(b_, l, a[0], c[0]))
                : isUnsigned ? Value(arith::MinUIOp::create(b_, l, a[0], c[0]))
                             : Value(arith::MinSIOp::create(b_, l, a[0], c[0]))};
      if (isArg) {
        // Triton's combine: keep the first argument on a tie (lower index) when asked.
        bool tieLeft = !p.opt("tie_break_left") || truthy(p.get("tie_break_left"), at);
        bool isMax = name == "argmax";
        Value better;
        Value tie;
        if (isFloat) {
          tie = arith::CmpFOp::create(b_, l, arith::CmpFPredicate::OEQ, a[0], c[0]);
          better = arith::CmpFOp::create(b_, l, isMax ? arith::CmpFPredicate::OGT
                                                      : arith::CmpFPredicate::OLT, a[0], c[0]);
        } else {
          tie = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::eq, a[0], c[0]);
          auto pred = isMax ? (isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                            : (isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
          better = arith::CmpIOp::create(b_, l, pred, a[0], c[0]);
        }
        if (tieLeft) {
          Value lower = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::slt, a[1], c[1]);
          tie = arith::AndIOp::create(b_, l, tie, lower);
          better = arith::OrIOp::create(b_, l, better, tie);
        }
        return {arith::SelectOp::create(b_, l, better, a[0], c[0]),
                arith::SelectOp::create(b_, l, better, a[1], c[1])};
      }
      // A jit combine function, inlined.
      V fnVal = p.get("combine_fn");
      if (fnVal->kind != Val::Function)
        error(at, "combine_fn must be a @triton.jit function");
      CallArgs call;
      call.loc = at;
      for (Value v : block->getArguments())
        call.positional.push_back(makeTensor(v, isUnsigned));
      V r = callFunction(*fnVal->fn, call);
      std::vector<V> items = r->kind == Val::Tuple ? r->items : std::vector<V>{r};
      if (items.size() != n)
        error(at, "combine_fn returns " + std::to_string(items.size()) + " values for " +
                      std::to_string(n) + " inputs");
      SmallVector<Value> out;
      for (size_t k = 0; k < n; ++k)
        out.push_back(cast(items[k], elems[k], isUnsigned, at)->value);
      return out;
    };
    SmallVector<Type> argTypes(elems);
    argTypes.append(elems.begin(), elems.end());
    SmallVector<Location> argLocs(argTypes.size(), l);
    SmallVector<Value> results;
    if (isScan) {
      SmallVector<Type> types;
      for (Value v : srcs)
        types.push_back(v.getType());
      auto scan = tt::ScanOp::create(b_, l, types, srcs, uint32_t(axis), reverse);
      OpBuilder::InsertionGuard guard(b_);
      mlir::Block *block = b_.createBlock(&scan.getCombineOp(), {}, argTypes, argLocs);
      SmallVector<Value> r = combine(block);
      tt::ScanReturnOp::create(b_, l, r);
      results.assign(scan->result_begin(), scan->result_end());
    } else {
      SmallVector<int64_t> reduced(shape);
      reduced.erase(reduced.begin() + axis);
      SmallVector<Type> types;
      for (Type e : elems)
        types.push_back(reduced.empty() ? e : Type(RankedTensorType::get(reduced, e)));
      auto reduce = tt::ReduceOp::create(b_, l, types, srcs, uint32_t(axis));
      {
        OpBuilder::InsertionGuard guard(b_);
        mlir::Block *block = b_.createBlock(&reduce.getCombineOp(), {}, argTypes, argLocs);
        SmallVector<Value> r = combine(block);
        tt::ReduceReturnOp::create(b_, l, r);
      }
      results.assign(reduce->result_begin(), reduce->result_end());
      if (keepDims) {
        SmallVector<int64_t> kept(shape);
        kept[axis] = 1;
        for (Value &r : results) {
          if (reduced.empty())
            r = broadcastTo(makeTensor(r), p.opt("axis") ? std::vector<int64_t>{1} : allOnes,
                            at)->value;
          else
            r = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(kept, elementOf(r)), r,
                                         int32_t(axis));
        }
      }
    }
    if (isArg)
      return makeTensor(results[1]);
    std::vector<V> out;
    for (Value r : results)
      out.push_back(makeTensor(r, isUnsigned));
    return out.size() == 1 ? out[0] : makeTuple(out);
  }

  // ---- joins, splits, gathers, histograms ----
  if (name == "split") {
    Params p(*this, args, "split", {{"a", true}});
    V x = p.tensor("a");
    SmallVector<int64_t> shape(shapeOf(x->value));
    if (shape.empty() || shape.back() != 2)
      error(at, "tl.split needs a tensor whose last dimension is 2");
    shape.pop_back();
    Type half = shape.empty() ? elementOf(x->value) : Type(RankedTensorType::get(shape, elementOf(x->value)));
    auto split = tt::SplitOp::create(b_, l, TypeRange{half, half}, x->value);
    return makeTuple({makeTensor(split->getResult(0), x->isUnsigned),
                      makeTensor(split->getResult(1), x->isUnsigned)});
  }
  if (name == "join") {
    Params p(*this, args, "join", {{"a", true}, {"b", true}});
    auto [a, bb] = broadcastPair(p.tensor("a"), p.tensor("b"), at);
    if (elementOf(a->value) != elementOf(bb->value))
      error(at, "tl.join needs two tensors of one dtype");
    SmallVector<int64_t> shape(shapeOf(a->value));
    shape.push_back(2);
    return makeTensor(tt::JoinOp::create(b_, l, RankedTensorType::get(shape, elementOf(a->value)),
                                         a->value, bb->value),
                      a->isUnsigned);
  }
  if (name == "interleave") {
    // Triton's definition: join the two (last dimension 2), then fold that dimension into the
    // one before it: a0 b0 a1 b1 ... along the last axis.
    Params p(*this, args, "interleave", {{"a", true}, {"b", true}});
    CallArgs joinArgs{{p.get("a"), p.get("b")}, {}, at};
    V joined = callBuiltin("join", joinArgs);
    SmallVector<int64_t> shape(shapeOf(joined->value));
    if (shape.size() == 1)
      return joined; // two scalars
    shape.pop_back();
    shape.back() *= 2;
    std::vector<V> dims;
    for (int64_t d : shape)
      dims.push_back(makeInt(d));
    CallArgs reshapeArgs{{joined, makeTuple(dims)}, {}, at};
    return callBuiltin("reshape", reshapeArgs);
  }
  if (name == "cat") {
    Params p(*this, args, "cat", {{"input", true}, {"other", true}, {"can_reorder", false}});
    V a = p.tensor("input"), bb = p.tensor("other");
    if (a->value.getType() != bb->value.getType() || shapeOf(a->value).empty())
      error(at, "tl.cat needs two tensors of one type");
    SmallVector<int64_t> shape(shapeOf(a->value));
    shape[0] *= 2;
    return makeTensor(tt::CatOp::create(b_, l, RankedTensorType::get(shape, elementOf(a->value)),
                                        a->value, bb->value),
                      a->isUnsigned);
  }
  if (name == "gather") {
    Params p(*this, args, "gather", {{"src", true}, {"index", true}, {"axis", true}});
    V src = p.tensor("src"), index = p.tensor("index");
    int64_t axis = requireInt(p.get("axis"), at, "the axis");
    if (axis < 0 || axis >= int64_t(shapeOf(src->value).size()) ||
        shapeOf(index->value).size() != shapeOf(src->value).size())
      error(at, "tl.gather needs an index of the source's rank and a valid axis");
    auto type = RankedTensorType::get(shapeOf(index->value), elementOf(src->value));
    return makeTensor(tt::GatherOp::create(b_, l, type, src->value, index->value, uint32_t(axis)),
                      src->isUnsigned);
  }
  if (name == "flip") {
    // Triton's standard library: reverse along `dim` (the last by default). A gather of the
    // reversed index along that dimension.
    Params p(*this, args, "flip", {{"x", true}, {"dim", false}});
    V x = p.tensor("x");
    ArrayRef<int64_t> shape = shapeOf(x->value);
    int64_t dim = dimArg(*this, p, x, at, "tl.flip");
    V index = binary("-", makeInt(shape[dim] - 1), positionsAlong(*this, shape, dim, at), at);
    CallArgs gather{{x, index, makeInt(dim)}, {}, at};
    return callBuiltin("gather", gather);
  }
  if (name == "sort") {
    // Triton's standard library: a bitonic sort along the last dimension (a power of two),
    // ascending unless `descending`. Each compare-and-swap step pairs position i with i ^ j (a
    // gather), orders the pair (lo, hi) up or down by block ((i & k) != 0, flipped when
    // descending) and swaps when (lo > hi) differs from that direction (so a NaN never moves
    // on its own).
    Params p(*this, args, "sort", {{"x", true}, {"dim", false}, {"descending", false}});
    V x = p.tensor("x");
    SmallVector<int64_t> shape(shapeOf(x->value));
    int64_t rank = int64_t(shape.size());
    int64_t dim = dimArg(*this, p, x, at, "tl.sort");
    if (dim != rank - 1)
      error(at, "tl.sort sorts along the last dimension only (dim " + std::to_string(rank - 1) +
                    " or -1), as Triton does");
    int64_t n = shape[dim];
    if (n & (n - 1))
      error(at, "tl.sort needs a power-of-two size along its dimension, got " +
                    std::to_string(n));
    bool descending = p.opt("descending") && truthy(p.get("descending"), at);
    V pos = positionsAlong(*this, shape, dim, at);
    auto where = [&](V c, V a, V b) {
      CallArgs w{{c, a, b}, {}, at};
      return callBuiltin("where", w);
    };
    for (int64_t k = 2; k <= n; k *= 2)
      for (int64_t j = k / 2; j >= 1; j /= 2) {
        CallArgs gather{{x, binary("^", pos, makeInt(j), at), makeInt(dim)}, {}, at};
        V partner = callBuiltin("gather", gather);
        V lower = binary("==", binary("&", pos, makeInt(j), at), makeInt(0), at);
        V lo = where(lower, x, partner), hi = where(lower, partner, x);
        V down = binary("!=", binary("&", pos, makeInt(k), at), makeInt(0), at);
        if (descending)
          down = binary("^", down, makeBool(true), at);
        V swap = binary("!=", binary(">", lo, hi, at), down, at);
        x = where(swap, partner, x);
      }
    return x;
  }
  if (name == "assume") {
    // A fact for the optimizer; the structured lowering does not use it.
    Params p(*this, args, "assume", {{"cond", true}});
    V c = p.get("cond");
    if (c->kind == Val::Tensor && !elementOf(c->value).isInteger(1))
      error(at, "tl.assume needs a boolean condition, got " + describe(c));
    if (c->kind == Val::Bool && !c->i)
      error(at, "tl.assume(False): the condition is false at compile time");
    return makeNone();
  }
  if (name == "histogram") {
    Params p(*this, args, "histogram", {{"input", true}, {"num_bins", true}, {"mask", false}});
    V x = p.tensor("input");
    int64_t bins = requireInt(p.get("num_bins"), at, "num_bins");
    if (shapeOf(x->value).size() != 1 || !isa<IntegerType>(elementOf(x->value)))
      error(at, "tl.histogram needs a 1-D integer tensor");
    Value mask;
    if (V m = p.opt("mask"))
      mask = broadcastTo(cast(m, b_.getI1Type(), false, at), shapeOf(x->value), at)->value;
    return makeTensor(tt::HistogramOp::create(
        b_, l, RankedTensorType::get({bins}, b_.getI32Type()), x->value, mask));
  }

  // ---- block pointers ----
  if (name == "make_block_ptr") {
    Params p(*this, args, "make_block_ptr", {{"base", true}, {"shape", true}, {"strides", true},
                                             {"offsets", true}, {"block_shape", true},
                                             {"order", true}});
    V base = p.tensor("base");
    auto ptrType = dyn_cast<tt::PointerType>(base->value.getType());
    if (!ptrType)
      error(at, "make_block_ptr's base must be a scalar pointer");
    auto tupleOf = [&](const std::string &what) {
      V v = p.get(what);
      if (v->kind != Val::Tuple)
        error(at, "make_block_ptr's " + what + " must be a tuple");
      return v->items;
    };
    std::vector<V> shape = tupleOf("shape"), strides = tupleOf("strides"), offsets = tupleOf("offsets");
    std::vector<int64_t> block = intList(*this, p.get("block_shape"), at, "block_shape");
    std::vector<int64_t> order = intList(*this, p.get("order"), at, "order");
    size_t rank = block.size();
    if (shape.size() != rank || strides.size() != rank || offsets.size() != rank ||
        order.size() != rank)
      error(at, "make_block_ptr's shape, strides, offsets, block_shape and order must have "
                "one length");
    SmallVector<Value> shapeV, strideV, offsetV;
    for (size_t k = 0; k < rank; ++k) {
      shapeV.push_back(cast(shape[k], b_.getI64Type(), false, at)->value);
      strideV.push_back(cast(strides[k], b_.getI64Type(), false, at)->value);
      offsetV.push_back(cast(offsets[k], b_.getI32Type(), false, at)->value);
    }
    auto tile = RankedTensorType::get(SmallVector<int64_t>(block.begin(), block.end()),
                                      ptrType.getPointeeType());
    SmallVector<int32_t> order32(order.begin(), order.end());
    return makeTensor(tt::MakeTensorPtrOp::create(b_, l, tt::PointerType::get(tile, 1),
                                                  base->value, shapeV, strideV, offsetV, order32));
  }
  if (name == "advance") {
    Params p(*this, args, "advance", {{"base", true}, {"offsets", true}});
    V base = p.tensor("base");
    V offs = p.get("offsets");
    if (offs->kind != Val::Tuple)
      error(at, "advance's offsets must be a tuple");
    SmallVector<Value> offsetV;
    for (const V &o : offs->items)
      offsetV.push_back(cast(o, b_.getI32Type(), false, at)->value);
    return makeTensor(tt::AdvanceOp::create(b_, l, base->value.getType(), base->value, offsetV));
  }

  // ---- elementwise math ----
  static const std::set<std::string> unaryMath = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt",
                                                  "sin", "cos", "abs", "floor", "ceil", "erf",
                                                  "tanh", "sigmoid", "sqrt_rn", "log1p",
                                                  "expm1", "fast_expf", "fast_logf"};
  if (unaryMath.count(name)) {
    Params p(*this, args, name, {{"x", true}});
    V x = p.tensor("x");
    Type elem = elementOf(x->value);
    if (name == "abs") {
      if (isa<FloatType>(elem))
        return makeTensor(math::AbsFOp::create(b_, l, x->value));
      if (x->isUnsigned)
        return x;
      return makeTensor(math::AbsIOp::create(b_, l, x->value));
    }
    if (!isa<FloatType>(elem))
      x = cast(x, b_.getF32Type(), false, at);
    Value v = x->value;
    if (name == "exp" || name == "fast_expf")
      return makeTensor(math::ExpOp::create(b_, l, v));
    if (name == "exp2")
      return makeTensor(math::Exp2Op::create(b_, l, v));
    if (name == "log" || name == "fast_logf")
      return makeTensor(math::LogOp::create(b_, l, v));
    if (name == "log2")
      return makeTensor(math::Log2Op::create(b_, l, v));
    if (name == "sqrt")
      return makeTensor(math::SqrtOp::create(b_, l, v));
    if (name == "sqrt_rn")
      return makeTensor(tt::PreciseSqrtOp::create(b_, l, v));
    if (name == "rsqrt")
      return makeTensor(math::RsqrtOp::create(b_, l, v));
    if (name == "sin")
      return makeTensor(math::SinOp::create(b_, l, v));
    if (name == "cos")
      return makeTensor(math::CosOp::create(b_, l, v));
    if (name == "floor")
      return makeTensor(math::FloorOp::create(b_, l, v));
    if (name == "ceil")
      return makeTensor(math::CeilOp::create(b_, l, v));
    if (name == "erf")
      return makeTensor(math::ErfOp::create(b_, l, v));
    if (name == "tanh")
      return makeTensor(math::TanhOp::create(b_, l, v));
    if (name == "log1p")
      return makeTensor(math::Log1pOp::create(b_, l, v));
    if (name == "expm1")
      return makeTensor(math::ExpM1Op::create(b_, l, v));
    // sigmoid(x) = 1 / (1 + exp(-x)), as Triton's standard library writes it.
    V negated = unary("-", x, at);
    V e = makeTensor(math::ExpOp::create(b_, l, negated->value));
    return binary("/", makeFloat(1.0), binary("+", makeFloat(1.0), e, at), at);
  }
  if (name == "pow" || name == "fma") {
    bool isFma = name == "fma";
    std::vector<std::pair<std::string, bool>> params = {{"x", true}, {"y", true}};
    if (isFma)
      params.push_back({"z", true});
    Params p(*this, args, name, params);
    std::vector<V> ops = {p.tensor("x"), p.tensor("y")};
    if (isFma)
      ops.push_back(p.tensor("z"));
    SmallVector<Value> vals = floatOperands(ops, at);
    if (isFma)
      return makeTensor(math::FmaOp::create(b_, l, vals[0], vals[1], vals[2]));
    return makeTensor(math::PowFOp::create(b_, l, vals[0], vals[1]));
  }
  if (name == "softmax") {
    // Triton's standard library: exp(x - max) / sum(exp(x - max)) along `dim` (the last one by
    // default), kept broadcastable.
    Params p(*this, args, "softmax", {{"x", true}, {"dim", false}, {"keep_dims", false},
                                      {"ieee_rounding", false}});
    V x = p.tensor("x");
    int64_t rank = int64_t(shapeOf(x->value).size());
    if (rank == 0)
      error(at, "tl.softmax needs a tensor");
    V dim = p.opt("dim") ? p.get("dim") : makeInt(rank - 1);
    CallArgs mx{{x}, {{"axis", dim}, {"keep_dims", makeBool(true)}}, at};
    V z = binary("-", x, callBuiltin("max", mx), at);
    V num = makeTensor(math::ExpOp::create(b_, l, cast(z, isa<FloatType>(elementOf(z->value)) ? elementOf(z->value) : Type(b_.getF32Type()), false, at)->value));
    CallArgs sm{{num}, {{"axis", dim}, {"keep_dims", makeBool(true)}}, at};
    V den = callBuiltin("sum", sm);
    CallArgs dv{{num, den}, {}, at};
    if (p.opt("ieee_rounding"))
      dv.keywords.push_back({"ieee_rounding", p.get("ieee_rounding")});
    return callBuiltin("fdiv", dv);
  }
  if (name == "fdiv" || name == "div_rn") {
    Params p(*this, args, name, {{"x", true}, {"y", true}, {"ieee_rounding", false},
                                 {"rounding", false}});
    V x = p.tensor("x"), y = p.tensor("y");
    bool precise = name == "div_rn" || (p.opt("ieee_rounding") && truthy(p.get("ieee_rounding"), at));
    if (!precise)
      return binary("/", x, y, at);
    auto [xa, ya] = broadcastPair(x, y, at);
    Type elem = elementOf(xa->value);
    if (!isa<FloatType>(elem) || elementOf(ya->value) != elem)
      error(at, "tl." + name + " needs two floats of one type");
    return makeTensor(tt::PreciseDivFOp::create(b_, l, xa->value, ya->value));
  }
  if (name == "maximum" || name == "minimum") {
    Params p(*this, args, name, {{"x", true}, {"y", true}, {"propagate_nan", false}});
    V x = p.get("x"), y = p.get("y");
    if (x->isNumber() && y->isNumber()) {
      bool less = binary("<", x, y, at)->i;
      return (name == "maximum") == less ? y : x;
    }
    // The comparison picks the common type; then select the op on it.
    V sum = binary("+", x, y, at); // result type only; folded away when unused
    Type elem = elementOf(sum->value);
    bool u = sum->isUnsigned;
    if (Operation *dead = sum->value.getDefiningOp())
      dead->erase();
    auto [xa, ya] = broadcastPair(cast(x, elem, u, at), cast(y, elem, u, at), at);
    bool nanAll = false;
    if (V pn = p.opt("propagate_nan"))
      nanAll = pn->kind == Val::Int ? pn->i != 0 : truthy(pn, at);
    Value r;
    if (isa<FloatType>(elem))
      r = name == "maximum"
              ? (nanAll ? Value(arith::MaximumFOp::create(b_, l, xa->value, ya->value))
                        : Value(arith::MaxNumFOp::create(b_, l, xa->value, ya->value)))
              : (nanAll ? Value(arith::MinimumFOp::create(b_, l, xa->value, ya->value))
                        : Value(arith::MinNumFOp::create(b_, l, xa->value, ya->value)));
    else if (name == "maximum")
      r = u ? Value(arith::MaxUIOp::create(b_, l, xa->value, ya->value))
            : Value(arith::MaxSIOp::create(b_, l, xa->value, ya->value));
    else
      r = u ? Value(arith::MinUIOp::create(b_, l, xa->value, ya->value))
            : Value(arith::MinSIOp::create(b_, l, xa->value, ya->value));
    return makeTensor(r, u);
  }
  if (name == "clamp") {
    Params p(*this, args, "clamp", {{"x", true}, {"min", true}, {"max", true},
                                    {"propagate_nan", false}});
    CallArgs lo{{p.get("x"), p.get("min")}, {}, at};
    V r = callBuiltin("maximum", lo);
    CallArgs hi{{r, p.get("max")}, {}, at};
    return callBuiltin("minimum", hi);
  }
  if (name == "where") {
    Params p(*this, args, "where", {{"condition", true}, {"x", true}, {"y", true}});
    V c = cast(p.get("condition"), b_.getI1Type(), false, at);
    V x = p.get("x"), y = p.get("y");
    auto isPointer = [&](const V &v) {
      return v->kind == Val::Tensor && isa<tt::PointerType>(elementOf(v->value));
    };
    V xc, yc;
    bool u = false;
    if (isPointer(x) || isPointer(y)) {
      // Pointers: both of one type (no promotion between pointers).
      if (!isPointer(x) || !isPointer(y) || elementOf(x->value) != elementOf(y->value))
        error(at, "tl.where on pointers takes two pointers of one type, got " + describe(x) +
                      " and " + describe(y));
      xc = x, yc = y;
      u = x->isUnsigned; // the pointee's signedness (*u32) travels with the pointer
    } else {
      V sum = toTensor(binary("+", x, y, at), at); // the common type (two numbers fold first)
      Type elem = elementOf(sum->value);
      u = sum->isUnsigned;
      if (Operation *dead = sum->value.getDefiningOp())
        dead->erase();
      xc = cast(x, elem, u, at), yc = cast(y, elem, u, at);
    }
    auto [c1, x1] = broadcastPair(c, xc, at);
    auto [c2, y1] = broadcastPair(c1, yc, at);
    auto [x2, y2] = broadcastPair(x1, y1, at);
    V cc = broadcastTo(c2, shapeOf(x2->value), at);
    return makeTensor(arith::SelectOp::create(b_, l, cc->value, x2->value, y2->value), u);
  }

  // ---- shapes ----
  if (name == "broadcast_to") {
    if (args.positional.size() > 2) {
      std::vector<V> dims(args.positional.begin() + 1, args.positional.end());
      args.positional.resize(1);
      args.positional.push_back(makeTuple(dims));
    }
    Params p(*this, args, "broadcast_to", {{"input", true}, {"shape", true}});
    return broadcastTo(p.tensor("input"), shapeArg(p.get("shape")), at);
  }
  if (name == "reshape" || name == "view" || name == "ravel") {
    if (name != "ravel" && args.positional.size() > 2) {
      std::vector<V> dims(args.positional.begin() + 1, args.positional.end());
      args.positional.resize(1);
      args.positional.push_back(makeTuple(dims));
    }
    std::vector<std::pair<std::string, bool>> params = {{"input", true}};
    if (name != "ravel")
      params.push_back({"shape", true}), params.push_back({"can_reorder", false});
    Params p(*this, args, name, params);
    V x = p.tensor("input");
    SmallVector<int64_t> shape;
    int64_t n = 1;
    for (int64_t d : shapeOf(x->value))
      n *= d;
    if (name == "ravel")
      shape = {n};
    else
      for (int64_t d : intList(*this, p.get("shape"), at, "a shape"))
        shape.push_back(d);
    int64_t m = 1;
    for (int64_t d : shape)
      m *= d;
    if (m != n)
      error(at, "cannot reshape a tensor of " + std::to_string(n) + " elements into " +
                    std::to_string(m));
    if (ArrayRef<int64_t>(shape) == shapeOf(x->value))
      return x; // as in Triton: reshaping to the same shape emits nothing
    bool reorder = name == "view" || (p.opt("can_reorder") && truthy(p.get("can_reorder"), at));
    return makeTensor(tt::ReshapeOp::create(b_, l, RankedTensorType::get(shape, elementOf(x->value)),
                                            x->value, reorder, false),
                      x->isUnsigned);
  }
  if (name == "expand_dims") {
    Params p(*this, args, "expand_dims", {{"input", true}, {"axis", true}});
    V x = p.tensor("input");
    std::vector<int64_t> axes = intList(*this, p.get("axis"), at, "the axis");
    int64_t rank = int64_t(shapeOf(x->value).size()) + int64_t(axes.size());
    for (int64_t &a : axes) {
      if (a < 0)
        a += rank;
      if (a < 0 || a >= rank)
        error(at, "expand_dims axis out of range");
    }
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
      error(at, "expand_dims axes repeat");
    Value v = x->value;
    if (shapeOf(v).empty())
      v = broadcastTo(x, {1}, at)->value, axes.erase(axes.begin());
    for (int64_t a : axes) {
      SmallVector<int64_t> s(shapeOf(v));
      s.insert(s.begin() + a, 1);
      v = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, elementOf(v)), v, int32_t(a));
    }
    return makeTensor(v, x->isUnsigned);
  }
  if (name == "trans" || name == "permute") {
    if (args.positional.empty())
      error(at, "tl." + name + " needs a tensor");
    V x = toTensor(args.positional[0], at);
    std::vector<int64_t> order;
    if (args.positional.size() == 2)
      order = intList(*this, args.positional[1], at, "the dims");
    else
      for (size_t k = 1; k < args.positional.size(); ++k)
        order.push_back(requireInt(args.positional[k], at, "a dim"));
    for (auto &kw : args.keywords) {
      if (kw.first != "dims")
        error(at, "tl." + name + " got an unexpected keyword '" + kw.first + "'");
      order = intList(*this, kw.second, at, "the dims");
    }
    ArrayRef<int64_t> shape = shapeOf(x->value);
    if (order.empty()) {
      if (shape.size() != 2 && name == "trans")
        error(at, "tl.trans without dims needs a 2-D tensor");
      for (int64_t k = int64_t(shape.size()) - 1; k >= 0; --k)
        order.push_back(k);
      if (shape.size() > 2) { // swap the last two
        order.clear();
        for (size_t k = 0; k < shape.size(); ++k)
          order.push_back(k);
        std::swap(order[shape.size() - 1], order[shape.size() - 2]);
      }
    }
    if (order.size() != shape.size())
      error(at, "the permutation has " + std::to_string(order.size()) + " dims for a tensor of rank " +
                    std::to_string(shape.size()));
    SmallVector<int64_t> out;
    SmallVector<int32_t> order32;
    std::vector<bool> seen(shape.size());
    for (int64_t d : order) {
      if (d < 0 || d >= int64_t(shape.size()) || seen[d])
        error(at, "invalid permutation");
      seen[d] = true;
      out.push_back(shape[d]);
      order32.push_back(int32_t(d));
    }
    return makeTensor(tt::TransOp::create(b_, l, RankedTensorType::get(out, elementOf(x->value)),
                                          x->value, order32),
                      x->isUnsigned);
  }
  if (name == "cast")
    return castCall("cast", "input", args, at);

  // ---- hints and checks ----
  if (name == "multiple_of" || name == "max_contiguous" || name == "max_constancy") {
    Params p(*this, args, name, {{"input", true}, {"values", true}});
    intList(*this, p.get("values"), at, "the values");
    return p.get("input");
  }
  if (name == "static_assert") {
    Params p(*this, args, "static_assert", {{"cond", true}, {"msg", false}});
    V c = p.get("cond");
    if (c->kind == Val::Tensor)
      error(at, "static_assert needs a compile-time condition");
    if (!truthy(c, at)) {
      std::string msg = p.opt("msg") && p.get("msg")->kind == Val::Str ? p.get("msg")->s : "";
      error(at, "static_assert failed" + (msg.empty() ? std::string() : ": " + msg));
    }
    return makeNone();
  }
  if (name == "device_assert") {
    Params p(*this, args, "device_assert", {{"cond", true}, {"msg", false}, {"mask", false}});
    V c = cast(p.get("cond"), b_.getI1Type(), false, at);
    std::string msg = p.opt("msg") && p.get("msg")->kind == Val::Str ? p.get("msg")->s : "";
    if (debug_) // as in Triton, device assertions exist only in debug builds
      tt::AssertOp::create(b_, l, c->value, msg);
    return makeNone();
  }
  if (name == "debug_barrier")
    return makeNone();
  if (name == "device_print") {
    // device_print(prefix, *args, hex=False)
    if (args.positional.empty() || args.positional[0]->kind != Val::Str)
      error(at, "tl.device_print takes a prefix string first");
    bool hex = false;
    for (auto &kw : args.keywords) {
      if (kw.first != "hex")
        error(at, "tl.device_print got an unexpected keyword '" + kw.first + "'");
      hex = truthy(kw.second, at);
    }
    SmallVector<Value> values;
    SmallVector<int32_t> isSigned;
    for (size_t k = 1; k < args.positional.size(); ++k) {
      V v = toTensor(args.positional[k], at);
      values.push_back(v->value);
      isSigned.push_back(isa<IntegerType>(elementOf(v->value)) && !v->isUnsigned ? 1 : 0);
    }
    tt::PrintOp::create(b_, l, b_.getStringAttr(args.positional[0]->s), b_.getBoolAttr(hex),
                        values, b_.getDenseI32ArrayAttr(isSigned));
    return makeNone();
  }

  if (V v = callRandomBuiltin(name, args))
    return v;
  if (V v = callDescriptorBuiltin(name, args))
    return v;
  if (V v = callScaledBuiltin(name, args))
    return v;
  if (V v = callMathBuiltin(name, args))
    return v;
  if (name == "inline_asm_elementwise") {
    // GPU assembly per element (per `pack` elements), kept in the TTIR as
    // tt.elementwise_inline_asm for a GPU backend; targets that cannot run it refuse it with
    // its location (Compiler.cpp).
    Params p(*this, args, "inline_asm_elementwise",
             {{"asm", true}, {"constraints", true}, {"args", true}, {"dtype", true},
              {"is_pure", true}, {"pack", true}});
    V code = p.get("asm"), constraints = p.get("constraints"), operands = p.get("args");
    V dtype = p.get("dtype"), pure = p.get("is_pure");
    if (code->kind != Val::Str || constraints->kind != Val::Str)
      error(at, "tl.inline_asm_elementwise takes the assembly and its constraints as strings");
    if (operands->kind != Val::Tuple)
      error(at, "tl.inline_asm_elementwise takes its arguments as a list, got " +
                    describe(operands));
    if (pure->kind != Val::Bool)
      error(at, "tl.inline_asm_elementwise's is_pure must be True or False, got " +
                    describe(pure));
    int64_t pack = requireInt(p.get("pack"), at, "pack");
    if (pack < 1 || pack > 16)
      error(at, "tl.inline_asm_elementwise's pack must be 1..16, got " + std::to_string(pack));
    std::vector<V> values;
    for (const V &item : operands->items)
      values.push_back(toTensor(item, at));
    // One shape for all: the arguments broadcast together (the first to the common shape,
    // then every one to it).
    for (size_t i = 1; i < values.size(); ++i)
      values[0] = broadcastPair(values[0], values[i], at).first;
    SmallVector<int64_t> shape(values.empty() ? ArrayRef<int64_t>{} : shapeOf(values[0]->value));
    for (V &v : values)
      v = broadcastTo(v, shape, at);
    std::vector<V> dtypes = dtype->kind == Val::Tuple ? dtype->items : std::vector<V>{dtype};
    SmallVector<Type> resultTypes;
    for (const V &d : dtypes) {
      if (d->kind != Val::Dtype)
        error(at, "tl.inline_asm_elementwise's dtype must be a dtype or a list of them, got " +
                      describe(d));
      resultTypes.push_back(shape.empty() ? d->type
                                          : Type(RankedTensorType::get(shape, d->type)));
    }
    if (resultTypes.empty())
      error(at, "tl.inline_asm_elementwise needs at least one result dtype");
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
  if (name == "pointer_type") {
    // A pointer dtype, for casting an int64 address (`x.to(tl.pointer_type(tl.float16))`).
    Params p(*this, args, name, {{"element_ty", true}, {"address_space", false}, {"const", false}});
    bool elemUnsigned = false;
    Type elem = requireDtype(p.get("element_ty"), at, "tl.pointer_type's element_ty", &elemUnsigned);
    if (V space = p.opt("address_space")) {
      int64_t n = requireInt(space, at, "address_space");
      if (n != 1)
        error(at, "tl.pointer_type: only address space 1 (global memory) is supported, got " +
                      std::to_string(n));
    }
    if (V isConst = p.opt("const"); isConst && truthy(isConst, at))
      error(at, "tl.pointer_type: const pointers are not supported (drop const=True)");
    return makeDtype(tt::PointerType::get(elem, 1), elemUnsigned);
  }
  if (name == "gdc_wait" || name == "gdc_launch_dependents") {
    // Programmatic dependent launch (tl.extra.cuda.*): tessel's launches on one device run
    // in order, each after the previous one finished, so there is nothing to wait for or
    // to release early.
    Params p(*this, args, name, {});
    return makeNone();
  }
  error(at, "'tl." + name + "' is not supported by the frontend yet");
}

} // namespace tessel::frontend
