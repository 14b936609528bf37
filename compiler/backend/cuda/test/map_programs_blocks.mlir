// A kernel still holding unstructured control flow is refused with an error (the pipelines
// lift it to scf first); it was a use after free: only the entry block moved into the
// gpu.func, and erasing the kernel freed the blocks its cf.cond_br targets.
// RUN: not tessel-opt %s --tessel-cuda-map-programs 2>&1 | FileCheck %s
// CHECK: error: a kernel with several blocks (unstructured control flow) cannot be mapped to a GPU
func.func public @early(%p: memref<?xf32>, %x: i32, %y: i32, %z: i32, %gx: i32, %gy: i32, %gz: i32) {
  %c0_i32 = arith.constant 0 : i32
  %done = arith.cmpi eq, %x, %c0_i32 : i32
  cf.cond_br %done, ^bb1, ^bb2
^bb1:
  return
^bb2:
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %p[%c0] : memref<?xf32>
  return
}
