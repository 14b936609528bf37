// Round trip of every tt operation: parse -> print -> parse gives the same IR (compared in
// generic form), and the custom syntax prints as Triton prints it.
// RUN: tessel-opt %s -split-input-file --mlir-print-op-generic > %t.generic
// RUN: tessel-opt %s -split-input-file | tessel-opt -split-input-file --mlir-print-op-generic > %t.roundtrip
// RUN: diff %t.generic %t.roundtrip
// RUN: tessel-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: tt.func public @program_ids
tt.func public @program_ids() -> (i32, i32) attributes {noinline = false} {
  // CHECK: tt.get_program_id y : i32
  %0 = tt.get_program_id y : i32
  // CHECK: tt.get_num_programs z : i32
  %1 = tt.get_num_programs z : i32
  // CHECK: tt.return %{{.*}}, %{{.*}} : i32, i32
  tt.return %0, %1 : i32, i32
}

// -----

// CHECK-LABEL: tt.func private @callee
// CHECK-SAME: (%{{.*}}: f32, %{{.*}}: tensor<4xf32>) -> tensor<4xf32> attributes {noinline = true}
tt.func private @callee(%a: f32, %b: tensor<4xf32>) -> tensor<4xf32> attributes {noinline = true} {
  %0 = tt.splat %a : f32 -> tensor<4xf32>
  %1 = arith.addf %0, %b : tensor<4xf32>
  tt.return %1 : tensor<4xf32>
}
// CHECK-LABEL: tt.func public @caller
// CHECK-SAME: %{{.*}}: !tt.ptr<f32, 3> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}
tt.func public @caller(%p: !tt.ptr<f32, 3> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %x: f32, %t: tensor<4xf32>) {
  // CHECK: tt.call @callee(%{{.*}}, %{{.*}}) : (f32, tensor<4xf32>) -> tensor<4xf32>
  %0 = tt.call @callee(%x, %t) : (f32, tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @shapes
tt.func @shapes(%x: i32, %t: tensor<8x4xf32>) {
  // CHECK: tt.make_range {end = 40 : i32, start = 8 : i32} : tensor<32xi32>
  %r = tt.make_range {end = 40 : i32, start = 8 : i32} : tensor<32xi32>
  // CHECK: tt.splat %{{.*}} : i32 -> tensor<32x1xi32>
  %s = tt.splat %x : i32 -> tensor<32x1xi32>
  // CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %e = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  // CHECK: tt.broadcast %{{.*}} : tensor<1x32xi32> -> tensor<16x32xi32>
  %b = tt.broadcast %e : tensor<1x32xi32> -> tensor<16x32xi32>
  // CHECK: tt.reshape %{{.*}} : tensor<16x32xi32> -> tensor<512xi32>
  %f = tt.reshape %b : tensor<16x32xi32> -> tensor<512xi32>
  // CHECK: tt.reshape %{{.*}} allow_reorder efficient_layout : tensor<512xi32> -> tensor<32x16xi32>
  %g = tt.reshape %f allow_reorder efficient_layout : tensor<512xi32> -> tensor<32x16xi32>
  // CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %tr = tt.trans %t {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  // CHECK: tt.join %{{.*}}, %{{.*}} : tensor<8x4xf32> -> tensor<8x4x2xf32>
  %j = tt.join %t, %t : tensor<8x4xf32> -> tensor<8x4x2xf32>
  // CHECK: %{{.*}}, %{{.*}} = tt.split %{{.*}} : tensor<8x4x2xf32> -> tensor<8x4xf32>
  %lo, %hi = tt.split %j : tensor<8x4x2xf32> -> tensor<8x4xf32>
  // CHECK: tt.cat %{{.*}}, %{{.*}} : tensor<8x4xf32> -> tensor<16x4xf32>
  %c = tt.cat %lo, %hi : tensor<8x4xf32> -> tensor<16x4xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @memory
tt.func @memory(%p: !tt.ptr<f16>, %q: !tt.ptr<i32>, %off: tensor<64xi32>, %m: tensor<64xi1>, %o: tensor<64xf16>) {
  // CHECK: tt.addptr %{{.*}}, %{{.*}} : !tt.ptr<f16>, i64
  %c = arith.constant 4 : i64
  %p1 = tt.addptr %p, %c : !tt.ptr<f16>, i64
  %ps = tt.splat %p1 : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>
  // CHECK: tt.addptr %{{.*}}, %{{.*}} : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
  %pt = tt.addptr %ps, %off : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
  // CHECK: tt.load %{{.*}} : !tt.ptr<f16>
  %s = tt.load %p : !tt.ptr<f16>
  // CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} cacheModifier = cg evictionPolicy = evict_last {isVolatile = true} : tensor<64x!tt.ptr<f16>>
  %v = tt.load %pt, %m, %o cacheModifier = cg evictionPolicy = evict_last {isVolatile = true} : tensor<64x!tt.ptr<f16>>
  // CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} cacheModifier = wb : tensor<64x!tt.ptr<f16>>
  tt.store %pt, %v, %m cacheModifier = wb : tensor<64x!tt.ptr<f16>>
  // CHECK: tt.store %{{.*}}, %{{.*}} : !tt.ptr<f16>
  tt.store %p, %s : !tt.ptr<f16>
  %qs = tt.splat %q : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  %qt = tt.addptr %qs, %off : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  // CHECK: tt.atomic_rmw add, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<64x!tt.ptr<i32>>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  %a = tt.atomic_rmw add, acq_rel, gpu, %qt, %off, %m : (tensor<64x!tt.ptr<i32>>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  // CHECK: tt.atomic_rmw fadd, relaxed, sys, %{{.*}}, %{{.*}} : (!tt.ptr<f16>, f16) -> f16
  %f = tt.atomic_rmw fadd, relaxed, sys, %p, %s : (!tt.ptr<f16>, f16) -> f16
  // CHECK: tt.atomic_cas acquire, cta, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<64x!tt.ptr<i32>>, tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %x = tt.atomic_cas acquire, cta, %qt, %off, %a : (tensor<64x!tt.ptr<i32>>, tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @block_pointers
tt.func @block_pointers(%base: !tt.ptr<f16>, %m: i64, %k: i64, %sm: i64, %i: i32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  // CHECK: tt.make_tensor_ptr %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
  %b = tt.make_tensor_ptr %base, [%m, %k], [%sm, %c1], [%i, %c0] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
  // CHECK: tt.advance %{{.*}}, [%{{.*}}, %{{.*}}] : <tensor<64x32xf16>>
  %b2 = tt.advance %b, [%c0, %i] : <tensor<64x32xf16>>
  // CHECK: tt.load %{{.*}} {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<64x32xf16>>
  %v = tt.load %b2 {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<64x32xf16>>
  // CHECK: tt.store %{{.*}}, %{{.*}} {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<64x32xf16>>
  tt.store %b2, %v {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<64x32xf16>>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @casts
tt.func @casts(%x: tensor<16xf32>, %i: tensor<16xi64>, %p: !tt.ptr<f32>) {
  // CHECK: tt.bitcast %{{.*}} : tensor<16xf32> -> tensor<16xi32>
  %0 = tt.bitcast %x : tensor<16xf32> -> tensor<16xi32>
  // CHECK: tt.int_to_ptr %{{.*}} : tensor<16xi64> -> tensor<16x!tt.ptr<f32>>
  %1 = tt.int_to_ptr %i : tensor<16xi64> -> tensor<16x!tt.ptr<f32>>
  // CHECK: tt.ptr_to_int %{{.*}} : !tt.ptr<f32> -> i64
  %2 = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  // CHECK: tt.bitcast %{{.*}} : !tt.ptr<f32> -> !tt.ptr<i32>
  %3 = tt.bitcast %p : !tt.ptr<f32> -> !tt.ptr<i32>
  // CHECK: tt.fp_to_fp %{{.*}}, rounding = rtne : tensor<16xf32> -> tensor<16xf8E5M2>
  %4 = tt.fp_to_fp %x, rounding = rtne : tensor<16xf32> -> tensor<16xf8E5M2>
  // CHECK: tt.fp_to_fp %{{.*}} : tensor<16xf8E5M2> -> tensor<16xf32>
  %5 = tt.fp_to_fp %4 : tensor<16xf8E5M2> -> tensor<16xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @math
tt.func @math(%x: tensor<16xf32>, %y: tensor<16xf32>, %u: tensor<16xi32>) {
  // CHECK: tt.clampf %{{.*}}, %{{.*}}, %{{.*}}, propagateNan = all : tensor<16xf32>
  %0 = tt.clampf %x, %y, %y, propagateNan = all : tensor<16xf32>
  // CHECK: tt.precise_sqrt %{{.*}} : tensor<16xf32>
  %1 = tt.precise_sqrt %x : tensor<16xf32>
  // CHECK: tt.precise_divf %{{.*}}, %{{.*}} : tensor<16xf32>
  %2 = tt.precise_divf %x, %y : tensor<16xf32>
  // CHECK: tt.mulhiui %{{.*}}, %{{.*}} : tensor<16xi32>
  %3 = tt.mulhiui %u, %u : tensor<16xi32>
  // CHECK: tt.extern_elementwise %{{.*}}, %{{.*}} {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @dots
tt.func @dots(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>, %c: tensor<32x64xf32>, %ba: tensor<2x32x16xf32>, %bb: tensor<2x16x8xf32>, %bc: tensor<2x32x8xf32>) {
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32 : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  %0 = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  %1 = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<32x64xf32>
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32x3 {maxNumImpreciseAcc = 32 : i32} : tensor<2x32x16xf32> * tensor<2x16x8xf32> -> tensor<2x32x8xf32>
  %2 = tt.dot %ba, %bb, %bc, inputPrecision = tf32x3 {maxNumImpreciseAcc = 32 : i32} : tensor<2x32x16xf32> * tensor<2x16x8xf32> -> tensor<2x32x8xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @reductions
tt.func @reductions(%x: tensor<8x16xf32>, %i: tensor<8x16xi32>) {
  // CHECK: "tt.reduce"(%{{.*}}) <{axis = 1 : i32}> ({
  // CHECK: tt.reduce.return %{{.*}} : f32
  // CHECK: }) : (tensor<8x16xf32>) -> tensor<8xf32>
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<8x16xf32>) -> tensor<8xf32>
  // Argmax: two operands reduced together.
  // CHECK: "tt.reduce"(%{{.*}}, %{{.*}}) <{axis = 0 : i32}>
  // CHECK: tt.reduce.return %{{.*}}, %{{.*}} : f32, i32
  %1:2 = "tt.reduce"(%x, %i) <{axis = 0 : i32}> ({
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %v = arith.select %gt, %va, %vb : f32
    %ix = arith.select %gt, %ia, %ib : i32
    tt.reduce.return %v, %ix : f32, i32
  }) : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<16xf32>, tensor<16xi32>)
  // CHECK: "tt.scan"(%{{.*}}) <{axis = 1 : i32, reverse = true}>
  // CHECK: tt.scan.return %{{.*}} : f32
  %2 = "tt.scan"(%x) <{axis = 1 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    tt.scan.return %m : f32
  }) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @histogram_gather
tt.func @histogram_gather(%v: tensor<128xi32>, %m: tensor<128xi1>, %src: tensor<4x8xf32>, %idx: tensor<4x3xi32>) {
  // CHECK: tt.histogram %{{.*}} : tensor<128xi32> -> tensor<16xi32>
  %0 = tt.histogram %v : tensor<128xi32> -> tensor<16xi32>
  // CHECK: tt.histogram %{{.*}}, %{{.*}} : tensor<128xi32> -> tensor<16xi32>
  %1 = tt.histogram %v, %m : tensor<128xi32> -> tensor<16xi32>
  // CHECK: tt.gather %{{.*}}[%{{.*}}] {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  %2 = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @debug
tt.func @debug(%c: tensor<16xi1>, %x: tensor<16xf32>, %i: i32) {
  // CHECK: tt.assert %{{.*}}, "values must be positive" : tensor<16xi1>
  tt.assert %c, "values must be positive" : tensor<16xi1>
  // CHECK: tt.print " x: " {hex = false, isSigned = array<i32: 0, 1>} : %{{.*}}, %{{.*}} : tensor<16xf32>, i32
  tt.print " x: " {hex = false, isSigned = array<i32: 0, 1>} : %x, %i : tensor<16xf32>, i32
  // CHECK: tt.print "done" {hex = true, isSigned = array<i32>}
  tt.print "done" {hex = true, isSigned = array<i32>}
  tt.return
}

// -----

// Locations survive the round trip.
// RUN: tessel-opt %s -split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// LOC-LABEL: tt.func @located
// LOC: tt.get_program_id x : i32 loc(#[[PID:loc[0-9]*]])
// LOC: #[[PID]] = loc("kernel.py":3:10)
tt.func @located() {
  %0 = tt.get_program_id x : i32 loc("kernel.py":3:10)
  tt.return
}

// -----

// CHECK-LABEL: tt.func public @inline_asm
tt.func public @inline_asm(%x: tensor<16xi32>, %y: tensor<16xi8>) {
  // CHECK: %{{.*}}:2 = tt.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $2;" {constraints = "=r,=r,r", packed_element = 1 : i32, pure = true} %{{.*}} : tensor<16xi32> -> tensor<16xi32>, tensor<16xi16>
  %0:2 = tt.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $2;" {constraints = "=r,=r,r", packed_element = 1 : i32, pure = true} %x : tensor<16xi32> -> tensor<16xi32>, tensor<16xi16>
  // CHECK: tt.elementwise_inline_asm "" {constraints = "=r,=r,r", packed_element = 4 : i32, pure = true} %{{.*}} : tensor<16xi8> -> tensor<16xbf16>, tensor<16xbf16>
  %1:2 = tt.elementwise_inline_asm "" {constraints = "=r,=r,r", packed_element = 4 : i32, pure = true} %y : tensor<16xi8> -> tensor<16xbf16>, tensor<16xbf16>
  // CHECK: tt.elementwise_inline_asm "mov.u32 $0, %clock;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
  %2 = tt.elementwise_inline_asm "mov.u32 $0, %clock;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
  tt.return
}
