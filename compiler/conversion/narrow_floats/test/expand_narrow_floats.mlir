// RUN: tessel-opt --tessel-expand-narrow-floats --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: tessel-opt --tessel-expand-narrow-floats='f16=true bf16=true from-f64=true' --split-input-file --verify-diagnostics %s | FileCheck %s --check-prefix=SIXTEEN

// Narrowing and widening, scalar and vector, become integer arithmetic on the bits: no float
// conversion to or from an 8-bit type is left.
// CHECK-LABEL: func.func @round_trip
// CHECK-NOT: arith.truncf {{.*}} to f8
// CHECK-NOT: arith.extf %{{.*}} : f8
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: arith.bitcast %{{.*}} : vector<4xf16> to vector<4xi16>
// CHECK: arith.bitcast %{{.*}} : vector<4xi8> to vector<4xf8E5M2>
// CHECK: return
func.func @round_trip(%x: f32, %v: vector<4xf16>) -> (f32, vector<4xbf16>) {
  %q = arith.truncf %x : f32 to f8E4M3FN
  %w = arith.truncf %v : vector<4xf16> to vector<4xf8E5M2>
  %b = arith.extf %q : f8E4M3FN to f32
  %c = arith.extf %w : vector<4xf8E5M2> to vector<4xbf16>
  return %b, %c : f32, vector<4xbf16>
}

// -----

// Toward zero is a mode of its own: the rounding increment is gone.
// CHECK-LABEL: func.func @toward_zero
// CHECK-NOT: arith.truncf
func.func @toward_zero(%x: f64) -> f8E5M2FNUZ {
  %q = arith.truncf %x toward_zero : f64 to f8E5M2FNUZ
  return %q : f8E5M2FNUZ
}

// -----

func.func @upward(%x: f32) -> f8E4M3FNUZ {
  // expected-error @+1 {{this narrow float conversion is not supported (rounding mode or type)}}
  %q = arith.truncf %x upward : f32 to f8E4M3FNUZ
  return %q : f8E4M3FNUZ
}

// -----

// 16-bit targets only with the options: by default f32 -> bf16 and f16 -> f32 stay.
// CHECK-LABEL: func.func @sixteen_bit
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f64 to f16
// SIXTEEN-LABEL: func.func @sixteen_bit
// SIXTEEN-NOT: arith.truncf
// SIXTEEN-NOT: arith.extf
// SIXTEEN: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// SIXTEEN: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// SIXTEEN: arith.bitcast %{{.*}} : f16 to i16
// SIXTEEN: arith.bitcast %{{.*}} : f64 to i64
// SIXTEEN: arith.bitcast %{{.*}} : i16 to f16
// SIXTEEN: return
func.func @sixteen_bit(%v: vector<8xf32>, %h: f16, %d: f64) -> (vector<8xbf16>, f32, f16) {
  %b = arith.truncf %v : vector<8xf32> to vector<8xbf16>
  %w = arith.extf %h : f16 to f32
  %n = arith.truncf %d : f64 to f16
  return %b, %w, %n : vector<8xbf16>, f32, f16
}
