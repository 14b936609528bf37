// The cuda backend emits PTX without a CUDA toolkit (LLVM's NVPTX backend): a kernel entry
// taking the Triton signature (three pointers and an i32), the chip and PTX version set
// explicitly, exp2 as the hardware's ex2.approx.ftz and the row max as max.f32 (no libdevice
// calls left). A cubin needs ptxas: without a toolkit that is a clear error.
// RUN: tessel-compile %s --entry kern --target cuda:sm_80 --cuda-toolkit=none --emit ptx -o - | FileCheck %s
// RUN: tessel-compile %s --entry kern --target cuda --cuda-toolkit=none --emit ptx -o - | FileCheck %s --check-prefix=SM90
// RUN: not tessel-compile %s --entry kern --target cuda:sm_80 --cuda-toolkit=none --emit cubin -o - 2>&1 | FileCheck %s --check-prefix=NOCUBIN
// RUN: tessel-compile --target cuda --list-knobs | FileCheck %s --check-prefix=KNOBS
// The maxnreg knob caps the kernel's registers (.maxnreg; none by default).
// RUN: tessel-compile %s --entry kern --target cuda --cuda-toolkit=none --knob maxnreg=128 --emit ptx -o - | FileCheck %s --check-prefix=MAXNREG
// RUN: not tessel-compile %s --entry kern --target cuda --cuda-toolkit=none --knob maxnreg=100 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=BADNREG
// CHECK: .version 7.0
// CHECK: .target sm_80
// CHECK-LABEL: .visible .entry kern(
// CHECK-NEXT: .param .u64 .ptr .align 1 kern_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 kern_param_1,
// CHECK-NEXT: .param .u32 kern_param_2
// CHECK: ex2.approx.ftz.f32
// CHECK: bar.sync
// CHECK: max.f32
// CHECK-NOT: __nv_
// SM90: .version 7.8
// SM90: .target sm_90
// NOCUBIN: a cubin needs a CUDA toolkit's ptxas
// KNOBS: num_warps  allowed {1, 2, 4, 8, 16}, default 4
// KNOBS: maxnreg  allowed {0, 128, 168, 232}, default 0
// KNOBS: warp_m  allowed {0, 1, 2, 4, 8, 16}, default 0
// KNOBS: persistent  allowed {0, 1, 2}, default 0
// KNOBS: warp_specialize  allowed {0, 1}, default 0
// KNOBS: pingpong  allowed {0, 1}, default 1
// KNOBS: ptx  PTX (no toolkit needed)
// MAXNREG-LABEL: .visible .entry kern(
// MAXNREG: .maxnreg 128
// SM90-NOT: .maxnreg
// BADNREG: knob maxnreg=100 is out of range (allowed: {0, 128, 168, 232})
module {
  tt.func public @kern(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
    %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
    %row = tt.get_program_id x : i32
    %offs = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %start = arith.muli %row, %n : i32
    %base = tt.addptr %x, %start : !tt.ptr<f32>, i32
    %bases = tt.splat %base : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %ptrs = tt.addptr %bases, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %ns = tt.splat %n : i32 -> tensor<256xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32>
    %v = tt.load %ptrs, %mask, %ninf : tensor<256x!tt.ptr<f32>>
    %e = math.exp2 %v : tensor<256xf32>
    %m = "tt.reduce"(%e) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.maxnumf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<256xf32>) -> f32
    %o = tt.addptr %out, %row : !tt.ptr<f32>, i32
    tt.store %o, %m : !tt.ptr<f32>
    tt.return
  }
}
