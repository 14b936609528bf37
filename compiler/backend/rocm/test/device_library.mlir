// Math the rocm backend has no instruction for and would need a ROCm device library for (it
// links none): a clear compile error naming the function, not an abort or a code object with
// an undefined symbol. exp on f64 is not approximated (the polynomials are f32's), so MLIR's
// ROCDL lowering calls ocml's __ocml_exp_f64. floor and fma on f64 are instructions, sqrt is
// LLVM's expansion (v_rsq_f64 and Newton steps): no ocml call either.
// RUN: not tessel-compile %s --entry exp64 --target rocm:gfx942 --emit hsaco -o %t 2>&1 | FileCheck %s
// RUN: tessel-compile %s --entry floor64 --target rocm:gfx90a --emit isa -o - | FileCheck %s --check-prefix=EXACT
// CHECK: the kernel calls __ocml_exp_f64, which the rocm backend does not lower (it links no ROCm device library)
// EXACT-LABEL: floor64:
// EXACT-DAG: v_floor_f64
// EXACT-DAG: v_rsq_f64
// EXACT-DAG: v_fma_f64
// EXACT: s_endpgm
// EXACT-NOT: __ocml
func.func public @exp64(%x: memref<?xf64>, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                        %g2: i32) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xf64>
  %e = math.exp %v : f64
  memref.store %e, %x[%c0] : memref<?xf64>
  return
}

func.func public @floor64(%x: memref<?xf64>, %p0: i32, %p1: i32, %p2: i32, %g0: i32, %g1: i32,
                          %g2: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %x[%c0] : memref<?xf64>
  %w = memref.load %x[%c1] : memref<?xf64>
  %f = math.floor %v : f64
  %s = math.sqrt %w : f64
  %m = math.fma %f, %s, %v : f64
  memref.store %m, %x[%c0] : memref<?xf64>
  return
}
