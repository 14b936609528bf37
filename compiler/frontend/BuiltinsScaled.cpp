//===- BuiltinsScaled.cpp - tl.dot_scaled: microscaled operands upcast, then a dot -*- C++ -*-===//
//
// tl.dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None,
//               fast_math=False, lhs_k_pack=True, rhs_k_pack=True, out_dtype=tl.float32)
// multiplies two blocks in the OCP microscaling formats: lhs is M x K and rhs K x N, their
// elements e2m1 (fp4, two a byte along K, the first in the low bits: lhs M x K/2, rhs K/2 x N),
// e4m3 or e5m2 (fp8, as uint8 or the fp8 type), bf16 or fp16; each scale is None or e8m0 as
// uint8 (2^(s - 127); 255 is NaN), one per 32 elements along K: lhs_scale M x K/32, rhs_scale
// N x K/32. As Triton does where the hardware has no scaled matrix instruction, the operands
// are upcast and scaled first and then multiplied by tl.dot; here in f32, which holds every
// product of an fp4/fp8 value and a power of two exactly (so does bf16, Triton's choice).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include <cmath>

using namespace mlir;

namespace tessel::frontend {

namespace {

/// The shape of a 2-D tensor argument, or an error naming it.
absl::StatusOr<std::pair<int64_t, int64_t>> matrixShape(Generator &g, const V &v,
                                                        const std::string &what,
                                                        SourceLocation at) {
  llvm::ArrayRef<int64_t> s = shapeOf(v->value);
  if (s.size() != 2)
    return g.error(at, "tl.dot_scaled's " + what + " must be a 2-D tensor, got " + g.describe(v));
  return std::pair<int64_t, int64_t>{s[0], s[1]};
}

} // namespace

absl::StatusOr<V> Generator::callScaledBuiltin(const std::string &name, CallArgs &args) {
  if (name != "dot_scaled")
    return nullptr;
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "tl.dot_scaled",
                                          {{"lhs", true},
                                           {"lhs_scale", true},
                                           {"lhs_format", true},
                                           {"rhs", true},
                                           {"rhs_scale", true},
                                           {"rhs_format", true},
                                           {"acc", false},
                                           {"fast_math", false},
                                           {"lhs_k_pack", false},
                                           {"rhs_k_pack", false},
                                           {"out_dtype", false}}));
  for (const char *pack : {"lhs_k_pack", "rhs_k_pack"})
    if (V v = p.opt(pack); v && !(v->kind == Val::Bool && v->i != 0))
      return error(at, std::string("tl.dot_scaled with ") + pack +
                           "=False (fp4 packed along M or N) is not supported yet");
  if (V out = p.opt("out_dtype"); out && !(out->kind == Val::Dtype && out->type.isF32()))
    return error(at, "tl.dot_scaled's out_dtype must be tl.float32");
  Type f32 = b_.getF32Type(), i32 = b_.getI32Type();
  auto cst = [&](double v) { return makeFloat(v); };
  auto where = [&](V c, V x, V y) -> absl::StatusOr<V> {
    CallArgs w{{std::move(c), std::move(x), std::move(y)}, {}, at};
    return callBuiltin("where", w);
  };
  auto trans = [&](V x) -> absl::StatusOr<V> {
    CallArgs t{{std::move(x)}, {}, at};
    return callBuiltin("trans", t);
  };

  // An operand upcast to f32 and scaled, K along `kAxis` (lhs: 1, rhs: 0).
  auto operand = [&](const char *which, const char *scaleName, const char *formatName,
                     int kAxis) -> absl::StatusOr<V> {
    ASSIGN_OR_RETURN(V x, p.tensor(which));
    V formatVal = p.get(formatName);
    if (formatVal->kind != Val::Str)
      return error(at, std::string("tl.dot_scaled's ") + formatName + " must be a string");
    const std::string &format = formatVal->s;
    Type elem = elementOf(x->value);
    RETURN_IF_ERROR(matrixShape(*this, x, which, at).status()); // a 2-D tensor
    V up;
    if (format == "bf16" || format == "fp16") {
      if (!(format == "bf16" ? elem.isBF16() : elem.isF16()))
        return error(at, std::string("tl.dot_scaled's ") + which + " is " + describe(x) +
                             ", not of its format " + format);
      ASSIGN_OR_RETURN(up, cast(x, f32, false, at));
    } else if (format == "e4m3" || format == "e5m2") {
      Type fp8 = format == "e4m3" ? Type(Float8E4M3FNType::get(b_.getContext()))
                                  : Type(Float8E5M2Type::get(b_.getContext()));
      if (elem.isInteger(8)) {
        ASSIGN_OR_RETURN(x, cast(x, fp8, false, at, /*bitcast=*/true));
      } else if (elem != fp8) {
        return error(at, std::string("tl.dot_scaled's ") + which + " must hold " + format +
                             " values (uint8 or the fp8 type), got " + describe(x));
      }
      ASSIGN_OR_RETURN(up, cast(x, f32, false, at));
    } else if (format == "e2m1") {
      if (!elem.isInteger(8))
        return error(at, std::string("tl.dot_scaled's ") + which +
                             " must hold e2m1 values two a byte (uint8), got " + describe(x));
      // Each nibble: sign (bit 3), exponent (bits 2-1), mantissa (bit 0): 0, 0.5, 1, 1.5, 2,
      // 3, 4, 6 and their negatives.
      ASSIGN_OR_RETURN(V x32, cast(x, i32, false, at));
      ASSIGN_OR_RETURN(V bytes, binary("&", x32, makeInt(255), at));
      auto decode = [&](V nibble) -> absl::StatusOr<V> {
        ASSIGN_OR_RETURN(V exponentBits, binary(">>", nibble, makeInt(1), at));
        ASSIGN_OR_RETURN(V e, binary("&", exponentBits, makeInt(3), at));
        ASSIGN_OR_RETURN(V mantissaBit, binary("&", nibble, makeInt(1), at));
        ASSIGN_OR_RETURN(V m, cast(mantissaBit, f32, false, at));
        ASSIGN_OR_RETURN(V halfM, binary("*", m, cst(0.5), at));
        ASSIGN_OR_RETURN(V significand, binary("+", cst(1.0), halfM, at));
        ASSIGN_OR_RETURN(V isOne, binary("==", e, makeInt(1), at));
        ASSIGN_OR_RETURN(V isTwo, binary("==", e, makeInt(2), at));
        ASSIGN_OR_RETURN(V twoOrFour, where(isTwo, cst(2.0), cst(4.0)));
        ASSIGN_OR_RETURN(V power, where(isOne, cst(1.0), twoOrFour));
        ASSIGN_OR_RETURN(V normal, binary("*", significand, power, at));
        ASSIGN_OR_RETURN(V isZero, binary("==", e, makeInt(0), at));
        ASSIGN_OR_RETURN(V subnormal, binary("*", m, cst(0.5), at));
        ASSIGN_OR_RETURN(V mag, where(isZero, subnormal, normal));
        ASSIGN_OR_RETURN(V signBit, binary(">>", nibble, makeInt(3), at));
        ASSIGN_OR_RETURN(V negative, binary("==", signBit, makeInt(1), at));
        ASSIGN_OR_RETURN(V negated, unary("-", mag, at));
        return where(negative, negated, mag);
      };
      ASSIGN_OR_RETURN(V loBits, binary("&", bytes, makeInt(15), at));
      ASSIGN_OR_RETURN(V lo, decode(loBits));
      ASSIGN_OR_RETURN(V hiBits, binary(">>", bytes, makeInt(4), at));
      ASSIGN_OR_RETURN(V hi, decode(hiBits));
      // Two along K: lo first.
      if (kAxis == 0) {
        ASSIGN_OR_RETURN(lo, trans(lo));
        ASSIGN_OR_RETURN(hi, trans(hi));
      }
      CallArgs il{{lo, hi}, {}, at};
      ASSIGN_OR_RETURN(up, callBuiltin("interleave", il));
      if (kAxis == 0) {
        ASSIGN_OR_RETURN(up, trans(up));
      }
    } else {
      return error(at, "tl.dot_scaled's " + std::string(formatName) + " '" + format +
                           "' is not one of e2m1, e4m3, e5m2, bf16, fp16");
    }
    V scale = p.opt(scaleName);
    if (!scale)
      return up;
    if (format == "bf16" || format == "fp16")
      return error(at,
                   std::string("tl.dot_scaled's ") + scaleName + " must be None for " + format);
    // The scales' type says their format: uint8 is e8m0, one per 32 of K (the MX formats);
    // float8e4nv is an e4m3 factor, one per 16 of K (NVFP4).
    ASSIGN_OR_RETURN(V scaleTensor, toTensor(scale, at));
    Type scaleElem = elementOf(scaleTensor->value);
    bool nvfp4 = isa<Float8E4M3FNType>(scaleElem);
    if (!nvfp4 && !scaleElem.isInteger(8))
      return error(at, std::string("tl.dot_scaled's ") + scaleName +
                           " must hold e8m0 scales (uint8) or e4m3 scales (float8e4nv), got " +
                           describe(scale));
    int64_t group = nvfp4 ? 16 : 32;
    llvm::ArrayRef<int64_t> upShape = shapeOf(up->value);
    int64_t k = upShape[kAxis], other = upShape[1 - kAxis];
    ASSIGN_OR_RETURN(auto scaleShape, matrixShape(*this, scaleTensor, scaleName, at));
    auto [sRows, sCols] = scaleShape;
    if (k % group != 0 || sRows != other || sCols != k / group)
      return error(at, std::string("tl.dot_scaled's ") + scaleName + " must be " +
                           std::to_string(other) + " x " + std::to_string(k / group) +
                           " (one per " + std::to_string(group) + " of K=" + std::to_string(k) +
                           "), got " + describe(scale));
    V factor;
    if (nvfp4) {
      ASSIGN_OR_RETURN(factor, cast(scaleTensor, f32, false, at));
    } else {
      // e8m0: the exponent field of an f32 (2^(s - 127)); 0 is 2^-127 (below f32's normals),
      // 255 NaN.
      ASSIGN_OR_RETURN(V scale32, cast(scaleTensor, i32, false, at));
      ASSIGN_OR_RETURN(V s, binary("&", scale32, makeInt(255), at));
      ASSIGN_OR_RETURN(V exponent, binary("<<", s, makeInt(23), at));
      ASSIGN_OR_RETURN(factor, cast(exponent, f32, false, at, /*bitcast=*/true));
      ASSIGN_OR_RETURN(V isZero, binary("==", s, makeInt(0), at));
      ASSIGN_OR_RETURN(factor, where(isZero, cst(std::ldexp(1.0, -127)), factor));
      ASSIGN_OR_RETURN(V isNan, binary("==", s, makeInt(255), at));
      ASSIGN_OR_RETURN(factor, where(isNan, cst(std::nan("")), factor));
    }
    // One factor for each run of `group` along K.
    CallArgs ex{{factor, makeInt(2)}, {}, at};
    ASSIGN_OR_RETURN(V expanded, callBuiltin("expand_dims", ex));
    CallArgs bc{{expanded, makeTuple({makeInt(other), makeInt(k / group), makeInt(group)})},
                {},
                at};
    ASSIGN_OR_RETURN(V broadcast, callBuiltin("broadcast_to", bc));
    CallArgs rs{{broadcast, makeTuple({makeInt(other), makeInt(k)})}, {}, at};
    ASSIGN_OR_RETURN(V full, callBuiltin("reshape", rs));
    if (kAxis == 0) {
      ASSIGN_OR_RETURN(full, trans(full));
    }
    return binary("*", up, full, at);
  };
  ASSIGN_OR_RETURN(V lhs, operand("lhs", "lhs_scale", "lhs_format", 1));
  ASSIGN_OR_RETURN(V rhs, operand("rhs", "rhs_scale", "rhs_format", 0));
  std::vector<V> dotArgs = {lhs, rhs};
  if (V acc = p.opt("acc"))
    dotArgs.push_back(acc);
  CallArgs d{dotArgs, {{"input_precision", makeStr("ieee")}}, at};
  return callBuiltin("dot", d);
}

} // namespace tessel::frontend
