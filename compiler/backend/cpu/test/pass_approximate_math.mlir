// Math functions on f32 become polynomial approximations in arith/math.fma ops (MLIR's
// polynomial approximation patterns): no libm calls in the loops, so LLVM vectorizes them.
// With fast-exp (targets with a one-instruction ldexp, AVX-512), scalar f32 exp and exp2 use a
// shorter sequence around llvm.intr.ldexp instead: clamp at the top, k = round(x * log2 e)
// by the 1.5 * 2^23 trick, a degree-5 polynomial of the remainder, ldexp by k taken from the
// bits, and 0 below the smallest normal result. Without fast-exp, no ldexp appears.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-approximate-math | FileCheck %s --check-prefixes=CHECK,GENERIC
// RUN: tessel-opt %s --split-input-file --tessel-cpu-approximate-math='fast-exp=true' | FileCheck %s --check-prefixes=CHECK,FAST

// CHECK-LABEL: func.func @exp_f32(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: f32)
// CHECK-NOT:     math.exp
// GENERIC-NOT:   llvm.intr.ldexp
// GENERIC:       math.floor
// GENERIC-NOT:   llvm.intr.ldexp
// FAST-DAG:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// FAST-DAG:      %[[MAGIC_BITS:.*]] = arith.constant 1262485504 : i32
// FAST-DAG:      %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// FAST-DAG:      %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// FAST-DAG:      %[[LO:.*]] = arith.constant -87.3365402 : f32
// FAST-DAG:      %[[HI:.*]] = arith.constant 8.900000e+01 : f32
// FAST:          %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[HI]] : f32
// FAST:          %[[CLAMPED:.*]] = arith.select %[[ABOVE]], %[[HI]], %[[X]] : f32
// FAST:          %[[T:.*]] = math.fma %[[CLAMPED]], %[[LOG2E]], %[[MAGIC]] : f32
// FAST:          %[[K:.*]] = arith.subf %[[T]], %[[MAGIC]] : f32
// FAST-COUNT-7:  math.fma
// FAST:          %[[T_BITS:.*]] = arith.bitcast %[[T]] : f32 to i32
// FAST:          %[[K_INT:.*]] = arith.subi %[[T_BITS]], %[[MAGIC_BITS]] : i32
// FAST:          %[[SCALED:.*]] = llvm.intr.ldexp(%{{.*}}, %[[K_INT]]) : (f32, i32) -> f32
// FAST:          %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[LO]] : f32
// FAST:          %[[RESULT:.*]] = arith.select %[[BELOW]], %[[ZERO]], %[[SCALED]] : f32
// FAST:          return %[[RESULT]]
func.func @exp_f32(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// -----

// exp2: the same sequence with x itself as the exponent (limits -126 and 129); MLIR has no
// approximation of its own for it, so without fast-exp it stays math.exp2.
// CHECK-LABEL: func.func @exp2_f32(
// GENERIC:       math.exp2
// FAST-NOT:      math.exp2
// FAST-DAG:      arith.constant -1.260000e+02 : f32
// FAST-DAG:      arith.constant 1.290000e+02 : f32
// FAST:          llvm.intr.ldexp
func.func @exp2_f32(%x: f32) -> f32 {
  %e = math.exp2 %x : f32
  return %e : f32
}

// -----

// fast-exp applies to scalars only (llvm.intr.ldexp takes a scalar exponent): a vector exp,
// like tanh, log and erf, gets MLIR's approximation. f64 is left as it is.
// CHECK-LABEL: func.func @others(
// CHECK-NOT:     math.exp %{{.*}} : vector
// CHECK-NOT:     llvm.intr.ldexp
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.log
// CHECK-NOT:     math.erf
// CHECK:         math.fma %{{.*}} : vector<16xf32>
// CHECK:         math.exp %{{.*}} : f64
// CHECK:         return
func.func @others(%v: vector<16xf32>, %x: f32, %d: f64) -> (vector<16xf32>, f32, f32, f32, f64) {
  %e = math.exp %v : vector<16xf32>
  %t = math.tanh %x : f32
  %l = math.log %x : f32
  %r = math.erf %x : f32
  %d_exp = math.exp %d : f64
  return %e, %t, %l, %r, %d_exp : vector<16xf32>, f32, f32, f32, f64
}
