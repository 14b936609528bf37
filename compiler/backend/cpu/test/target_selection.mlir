// Code can be built for another x86-64 machine: the CPU name picks the instruction set.
// RUN: tessel-compile %s --entry scale --target cpu:znver4 --emit asm -o - | FileCheck %s --check-prefix=AVX512
// An Intel AVX-512 CPU by name gets full-width vectors, as the host does (LLVM's tuning for it
// prefers 256 bits).
// RUN: tessel-compile %s --entry scale --target cpu:sapphirerapids --emit asm -o - | FileCheck %s --check-prefix=AVX512
// RUN: tessel-compile %s --entry scale --target cpu:skylake-avx512 --features=+avx512f,-prefer-256-bit --emit asm -o - | FileCheck %s --check-prefix=AVX512
// RUN: tessel-compile %s --entry scale --target cpu:x86-64 --emit asm -o - | FileCheck %s --check-prefix=SSE
// RUN: tessel-compile %s --entry scale --target cpu:x86-64-v3 --emit asm -o - | FileCheck %s --check-prefix=AVX2
// RUN: not tessel-compile %s --entry scale --target gpu --emit asm -o - 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not tessel-compile %s --entry scale --target cpu:nosuchcpu --emit asm -o - 2>&1 | FileCheck %s --check-prefix=BADCPU
// BADCPU: tessel-compile: 'nosuchcpu' is not a CPU LLVM knows
// AVX512: zmm
// SSE-NOT: {{[yz]mm}}
// AVX2: ymm
// AVX2-NOT: zmm
// BADTARGET: tessel-compile: unknown target 'gpu' (expected cpu, cpu:<llvm-cpu>, cuda
module {
  tt.func public @scale(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %v = tt.load %xp : tensor<1024x!tt.ptr<f32>>
    %two = arith.constant dense<2.0> : tensor<1024xf32>
    %w = arith.mulf %v, %two : tensor<1024xf32>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %yp, %w : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
