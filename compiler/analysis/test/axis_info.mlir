// RUN: tessel-opt %s -split-input-file -test-print-axis-info -verify-diagnostics -o /dev/null

// Seeds from argument attributes; ranges, splats, broadcasts and address arithmetic.
tt.func public @vadd_like(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [128], constancy = [1], constant = 128}}
  %c128 = arith.constant 128 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tt.get_program_id x : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [128], constancy = [1]}}
  %s = arith.muli %pid, %c128 : i32
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [128], constancy = [128]}}
  %ss = tt.splat %s : i32 -> tensor<128xi32>
  // expected-remark @+1 {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %o = arith.addi %ss, %r : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  // Pointer divisibility is in bytes: gcd(16, 128 * 4).
  // expected-remark @+1 {{contiguity = [128], divisibility = [16], constancy = [1]}}
  %pp = tt.addptr %ps, %o : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1, 128], divisibility = [128, 128], constancy = [1, 1]}}
  %e = tt.expand_dims %o {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  // expected-remark @+1 {{contiguity = [1, 128], divisibility = [128, 128], constancy = [8, 1]}}
  %b = tt.broadcast %e : tensor<1x128xi32> -> tensor<8x128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %m = arith.cmpi slt, %o, %ss : tensor<128xi32>
  tt.return
}

// -----

// tl.multiple_of / tl.max_contiguous hints on an op override what the analysis derives.
tt.func public @hints(%a: i32, %b: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [1]}}
  %h = arith.addi %a, %b {tt.divisibility = dense<8> : tensor<1xi32>} : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [64]}}
  %s = tt.splat %h : i32 -> tensor<64xi32>
  // expected-remark @+1 {{contiguity = [16], divisibility = [8], constancy = [1]}}
  %x = arith.addi %s, %r {tt.contiguity = dense<16> : tensor<1xi32>} : tensor<64xi32>
  tt.return
}

// -----

// A loop's induction variable: gcd of the lower bound's and the step's divisibility; an
// iter_arg: the meet of its initial value and what the loop yields.
tt.func public @loop(%n: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [1], constant = 32}}
  %c32 = arith.constant 32 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [1], constant = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [1]}}
  %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %c64) -> (i32) : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [1]}}
    %x = arith.addi %acc, %i : i32
    scf.yield %x : i32
  }
  tt.return
}

// -----

// A noinline callee's argument gets the meet of its call sites: gcd(64, 16) = 16.
tt.func private @callee(%x: i32) -> i32 attributes {noinline = true} {
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %y = arith.addi %x, %x : i32
  tt.return %y : i32
}
tt.func public @caller(%a: i32 {tt.divisibility = 64 : i32}, %b: i32 {tt.divisibility = 16 : i32}) {
  // Results are what the callee returns, joined over the call sites.
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %0 = tt.call @callee(%a) : (i32) -> i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %1 = tt.call @callee(%b) : (i32) -> i32
  tt.return
}

// -----

// Recursion is rejected with a clear error.
tt.func private @self(%x: i32) -> i32 {
  // expected-error @+1 {{recursive call to 'self': tessel's analyses need an acyclic call graph}}
  %0 = tt.call @self(%x) : (i32) -> i32
  tt.return %0 : i32
}
tt.func public @entry(%x: i32) {
  %0 = tt.call @self(%x) : (i32) -> i32
  tt.return
}
