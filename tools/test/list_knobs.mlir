// tessel-compile --list-knobs prints the backend's knobs (allowed values, default, what each
// does) and its artifact kinds; knobs given with --knob are checked against them.
// RUN: tessel-compile --target cpu --list-knobs | FileCheck %s
// CHECK: knobs of the cpu backend (--knob NAME=VALUE):
// CHECK-NEXT: tile_m  allowed 0..16, default 4
// CHECK-NEXT: tile_n  allowed 1..128, default 64
// CHECK-NEXT: tile_k  allowed 1..4, default 1
// CHECK-NEXT: vector_width  allowed 0..64, default 0
// CHECK-NEXT: unroll  allowed 1..8, default 1
// CHECK-NEXT: prefetch  allowed 0..8, default 0
// CHECK: artifact kinds (--emit):
// CHECK: so
// CHECK: artifact  what the runtime loads

// RUN: not tessel-compile %s --entry f -o - --knob tile_m=17 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: tessel-compile: knob tile_m=17 is out of range (allowed: 0..16)
// RUN: not tessel-compile %s --entry f -o - --knob tile=4 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: tessel-compile: unknown cpu knob 'tile' (the cpu backend's knobs: tile_m, tile_n, tile_k, vector_width, unroll, prefetch)
// RUN: not tessel-compile %s --entry f -o - --knob prefetch=one 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: tessel-compile: --knob takes NAME=INTEGER, got 'prefetch=one'
// RUN: not tessel-compile %s --entry f -o - --knob unroll=2 --unroll=4 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: tessel-compile: knob unroll given twice
// RUN: not tessel-compile %s --entry f -o - --emit cubin 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: tessel-compile: unknown --emit 'cubin' (expected ttir, structured, linalg, llvm, asm, obj, so, artifact)
// A knob in range compiles.
// RUN: tessel-compile %s --entry f --knob vector_width=16 --knob unroll=2 --emit llvm -o - | FileCheck %s --check-prefix=OK
// OK: define void @f__tessel_launch(
// RUN: tessel-compile --target rocm:gfx942 --list-knobs | FileCheck %s --check-prefix=ROCM
// ROCM: knobs of the rocm backend (--knob NAME=VALUE):
// ROCM-NEXT: num_warps  allowed {1, 2, 4, 8, 16}, default 4
// ROCM-NEXT: unroll  allowed {1, 2, 4, 8, 16}, default 4
// ROCM-NEXT: vector_bytes  allowed {0, 4, 8, 16}, default 16
// ROCM: artifact kinds (--emit):
// ROCM: hsaco
// ROCM: artifact  what the runtime loads
// RUN: not tessel-compile --target rocm:gfx908 --list-knobs 2>&1 | FileCheck %s --check-prefix=NOCHIP
// NOCHIP: gfx908
// A rocm kernel: its code object, the AMDGPU assembly.
// RUN: tessel-compile %s --entry f --target rocm:gfx1100 --emit isa -o - | FileCheck %s --check-prefix=ISA
// ISA: .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// ISA: .amdhsa_kernel f
module {
  tt.func public @f(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %a = tt.addptr %ps, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %a : tensor<64x!tt.ptr<f32>>
    %y = arith.addf %x, %x : tensor<64xf32>
    tt.store %a, %y : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
