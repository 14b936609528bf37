// 128-bit global accesses, end to end: a masked 1024-element copy-and-scale per program with
// 16-byte aligned pointers (tt.divisibility = 16, Triton's specialization) loads and stores
// four f32 at a time (ld/st.global.v4) where the whole group of four is in bounds; the entry
// says LLVM may assume the alignment. The same kernel with a row offset `row * stride` is
// vectorized only where the stride is known divisible by 16 (LLVM assumes it: the runtime
// checks it at launch), and without divisibility the accesses stay scalar, as with the knob
// vector_bytes=4 (one f32 a thread at a time).
// RUN: tessel-compile %s --entry aligned --target cuda --cuda-toolkit=none --emit ptx -o - | FileCheck %s --check-prefix=ALIGNED
// RUN: tessel-compile %s --entry rows_divisible --target cuda --cuda-toolkit=none --emit llvm -o - | FileCheck %s --check-prefix=ASSUME
// RUN: tessel-compile %s --entry rows_divisible --target cuda --cuda-toolkit=none --emit ptx -o - | FileCheck %s --check-prefix=ROWS
// RUN: tessel-compile %s --entry rows --target cuda --cuda-toolkit=none --emit ptx -o - | FileCheck %s --check-prefix=SCALAR
// RUN: tessel-compile %s --entry aligned --knob vector_bytes=4 --target cuda --cuda-toolkit=none --emit ptx -o - | FileCheck %s --check-prefix=SCALAR-KNOB
// RUN: tessel-compile --target cuda --list-knobs | FileCheck %s --check-prefix=KNOBS
// ALIGNED-LABEL: .visible .entry aligned(
// ALIGNED-NEXT: .param .u64 .ptr .align 16 aligned_param_0,
// ALIGNED-NEXT: .param .u64 .ptr .align 16 aligned_param_1,
// ALIGNED: ld.global.v4.b32
// ALIGNED: st.global.v4.b32
// ASSUME-LABEL: define ptx_kernel void @rows_divisible(ptr {{.*}}align 16{{.*}}, ptr {{.*}}align 16{{.*}}, i32 {{.*}}, i32
// ASSUME: and i32 %2, 15
// ASSUME: call void @llvm.assume(
// ROWS: ld.global.v4.b32
// ROWS: st.global.v4.b32
// SCALAR-LABEL: .visible .entry rows(
// SCALAR-NOT: .v4.
// SCALAR: ld.global.b32
// SCALAR-NOT: .v4.
// SCALAR-KNOB-LABEL: .visible .entry aligned(
// SCALAR-KNOB-NOT: .v4.
// SCALAR-KNOB: ld.global.b32
// SCALAR-KNOB-NOT: .v4.
// KNOBS: vector_bytes  allowed {0, 4, 8, 16}, default 16
module {
  tt.func public @aligned(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %two = arith.constant dense<2.0> : tensor<1024xf32>
    %c1024 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %c1024 : i32
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %starts = tt.splat %start : i32 -> tensor<1024xi32>
    %offs = arith.addi %starts, %range : tensor<1024xi32>
    %ns = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %v = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
    %s = arith.mulf %v, %two : tensor<1024xf32>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %op, %s, %mask : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
  tt.func public @rows_divisible(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}, %n: i32) {
    %two = arith.constant dense<2.0> : tensor<1024xf32>
    %row = tt.get_program_id x : i32
    %start = arith.muli %row, %stride : i32
    %offs = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %ns = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xb = tt.addptr %x, %start : !tt.ptr<f32>, i32
    %xs = tt.splat %xb : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %v = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
    %s = arith.mulf %v, %two : tensor<1024xf32>
    %ob = tt.addptr %out, %start : !tt.ptr<f32>, i32
    %os = tt.splat %ob : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %op, %s, %mask : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
  tt.func public @rows(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %stride: i32, %n: i32) {
    %two = arith.constant dense<2.0> : tensor<1024xf32>
    %row = tt.get_program_id x : i32
    %start = arith.muli %row, %stride : i32
    %offs = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %ns = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xb = tt.addptr %x, %start : !tt.ptr<f32>, i32
    %xs = tt.splat %xb : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %v = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
    %s = arith.mulf %v, %two : tensor<1024xf32>
    %ob = tt.addptr %out, %start : !tt.ptr<f32>, i32
    %os = tt.splat %ob : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %op, %s, %mask : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
