// Tile buffers promoted to the stack (memref.alloca) get a cache-line alignment, so that
// 64-byte vector accesses do not split across two lines; an alloca that already has an
// alignment keeps it, heap buffers (memref.alloc) are left to the allocator. The alignment
// must be a power of two: any other value is an error on the module.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-align-tile-buffers | FileCheck %s --check-prefixes=CHECK,A64
// RUN: tessel-opt %s --split-input-file --tessel-cpu-align-tile-buffers='alignment=128' | FileCheck %s --check-prefixes=CHECK,A128
// RUN: tessel-opt %s --split-input-file --tessel-cpu-align-tile-buffers='alignment=48' -verify-diagnostics

// CHECK-LABEL: func.func public @stack_tiles(
// A64:           memref.alloca() {alignment = 64 : i64} : memref<256xf32>
// A64:           memref.alloca() {alignment = 64 : i64} : memref<16x64xi8>
// A64:           memref.alloca() {alignment = 64 : i64} : memref<f32>
// A128:          memref.alloca() {alignment = 128 : i64} : memref<256xf32>
// A128:          memref.alloca() {alignment = 128 : i64} : memref<16x64xi8>
// A128:          memref.alloca() {alignment = 128 : i64} : memref<f32>
// expected-error @below {{alignment must be a power of two, got 48}}
module {
  func.func public @stack_tiles(%pid_x: i32, %pid_y: i32, %pid_z: i32,
                                %grid_x: i32, %grid_y: i32, %grid_z: i32) {
    %row = memref.alloca() : memref<256xf32>
    %block = memref.alloca() : memref<16x64xi8>
    %acc = memref.alloca() : memref<f32>
    return
  }
}

// -----

// An explicit alignment (smaller or larger) is kept; a heap tile gets none.
// CHECK-LABEL: func.func public @left_alone(
// CHECK:         memref.alloca() {alignment = 16 : i64} : memref<256xf32>
// CHECK:         memref.alloca() {alignment = 256 : i64} : memref<256xf32>
// CHECK:         memref.alloc() : memref<128x256xf32>
// expected-error @below {{alignment must be a power of two, got 48}}
module {
  func.func public @left_alone(%pid_x: i32, %pid_y: i32, %pid_z: i32,
                               %grid_x: i32, %grid_y: i32, %grid_z: i32) {
    %small = memref.alloca() {alignment = 16 : i64} : memref<256xf32>
    %large = memref.alloca() {alignment = 256 : i64} : memref<256xf32>
    %heap = memref.alloc() : memref<128x256xf32>
    memref.dealloc %heap : memref<128x256xf32>
    return
  }
}
