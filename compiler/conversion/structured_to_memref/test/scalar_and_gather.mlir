// RUN: tessel-opt %s --structured-to-memref -split-input-file | FileCheck %s

// Scalar pointer arithmetic and accesses: memref.load/store at an index offset.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[P:[^:]*]]: memref<?xf32, strided<[1], offset: ?>>, %[[I:[^:]*]]: i32)
func.func @scalar(%p: !tt.ptr<f32>, %i: i32) {
  %q = tt.addptr %p, %i : !tt.ptr<f32>, i32
  // CHECK: %[[I2:.*]] = arith.index_cast %[[I]] : i32 to index
  // CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[I2]] : index
  // CHECK: %[[V:.*]] = memref.load %[[P]][%[[OFF]]]
  %v = tt.load %q : !tt.ptr<f32>
  %w = arith.addf %v, %v : f32
  // CHECK: memref.store %{{.*}}, %[[P]][%[[OFF]]]
  tt.store %q, %w : !tt.ptr<f32>
  return
}

// -----

// An unstructured gather: a tensor of index offsets and a masked per-element load.
// CHECK-LABEL: func.func @gather
func.func @gather(%p: !tt.ptr<f32>, %idx: tensor<8xi32>, %m: tensor<8xi1>) -> tensor<8xf32> {
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %a = tt.addptr %s, %idx : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %other = arith.constant dense<-1.0> : tensor<8xf32>
  // CHECK: linalg.fill ins(%{{.*}} : index) outs(%{{.*}} : tensor<8xindex>)
  // CHECK: linalg.generic
  // CHECK: arith.index_cast %{{.*}} : i32 to index
  // CHECK: linalg.generic
  // CHECK: scf.if
  // CHECK: memref.load
  // CHECK: else
  %v = tt.load %a, %m, %other : tensor<8x!tt.ptr<f32>>
  return %v : tensor<8xf32>
}

// -----

// An atomic histogram: per-element atomic adds in a loop, masked.
// CHECK-LABEL: func.func @atomic_scatter
func.func @atomic_scatter(%h: !tt.ptr<i32>, %bins: tensor<16xi32>, %m: tensor<16xi1>) {
  %one = arith.constant dense<1> : tensor<16xi32>
  %s = tt.splat %h : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %a = tt.addptr %s, %bins : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  // CHECK: scf.for
  // CHECK: scf.if
  // CHECK: memref.atomic_rmw addi
  %old = tt.atomic_rmw add, acq_rel, gpu, %a, %one, %m : (tensor<16x!tt.ptr<i32>>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi32>
  return
}

// -----

// Compare-and-swap through a scalar pointer.
// CHECK-LABEL: func.func @cas
func.func @cas(%p: !tt.ptr<i32>, %c: i32, %v: i32) -> i32 {
  // CHECK: memref.generic_atomic_rmw
  // CHECK: arith.cmpi eq
  // CHECK: arith.select
  // CHECK: memref.atomic_yield
  %old = tt.atomic_cas acq_rel, gpu, %p, %c, %v : (!tt.ptr<i32>, i32, i32) -> i32
  return %old : i32
}

// -----

// A noinline callee gets its pointer as a memref of its own.
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: memref<?xf32, strided<[1], offset: ?>>
func.func private @callee(%p: !tt.ptr<f32>) -> f32 attributes {noinline = true} {
  %v = tt.load %p : !tt.ptr<f32>
  return %v : f32
}
// CHECK-LABEL: func.func @caller
func.func @caller(%p: !tt.ptr<f32>, %i: i32) -> f32 {
  %q = tt.addptr %p, %i : !tt.ptr<f32>, i32
  // The view runs from the offset to the end of the caller's memref, not past it.
  // CHECK: %[[OFF:.*]] = arith.addi
  // CHECK: %[[DIM:.*]] = memref.dim %{{.*}}, %c0
  // CHECK: %[[REST:.*]] = arith.subi %[[DIM]], %[[OFF]] : index
  // CHECK: %[[SV:.*]] = memref.subview %{{.*}}[%[[OFF]]] [%[[REST]]] [1]
  // CHECK: call @callee(%[[SV]])
  %v = call @callee(%q) : (!tt.ptr<f32>) -> f32
  return %v : f32
}

// -----

// An address converted to a pointer is a root of its own: a descriptor at the address (offset 0,
// unit stride) behind an unrealized cast; a tile of it is a view like an argument's.
// CHECK-LABEL: func.func @from_address
// CHECK-SAME: (%[[A:[^:]*]]: i64, %[[S:[^:]*]]: index)
func.func @from_address(%a: i64, %s: index) -> f32 {
  // CHECK: %[[P:.*]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr
  // CHECK: llvm.insertvalue %[[P]], %{{.*}}[0]
  // CHECK: llvm.insertvalue %[[P]], %{{.*}}[1]
  // CHECK: %[[D:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[4, 0]
  // CHECK: %[[ROOT:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xf32, strided<[1], offset: ?>>
  %p = tt.int_to_ptr %a : i64 -> !tt.ptr<f32>
  %c3 = arith.constant 3 : i32
  %q = tt.addptr %p, %c3 : !tt.ptr<f32>, i32
  // CHECK: memref.load %[[ROOT]][%{{.*}}]
  %v = tt.load %q : !tt.ptr<f32>
  %t = tts.make_tptr %p to sizes: [4, 8], strides: [%s, 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<4x8x!tt.ptr<f32>>
  // CHECK: memref.reinterpret_cast %[[ROOT]] to offset: [%{{.*}}], sizes: [4, 8], strides: [%[[S]], 1]
  %w = tts.load %t : tensor<4x8x!tt.ptr<f32>> -> tensor<4x8xf32>
  return %v : f32
}

// -----

// A root from an address carried through a loop (its offset is what the loop carries) and passed
// to a call (a view of it from the offset).
// CHECK-LABEL: func.func @from_address_in_loop
// CHECK: %[[ROOT:.*]] = builtin.unrealized_conversion_cast
// CHECK: scf.for {{.*}} iter_args(%[[OFF:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, f32)
// CHECK: memref.load %[[ROOT]][%[[OFF]]]
func.func @from_address_in_loop(%a: i64, %n: index) -> f32 {
  %p = tt.int_to_ptr %a : i64 -> !tt.ptr<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%q = %p, %s = %zero) -> (!tt.ptr<f32>, f32) {
    %v = tt.load %q : !tt.ptr<f32>
    %t = arith.addf %s, %v : f32
    %q2 = tt.addptr %q, %one : !tt.ptr<f32>, i32
    scf.yield %q2, %t : !tt.ptr<f32>, f32
  }
  return %r#1 : f32
}

func.func private @use(%p: !tt.ptr<f32>) -> f32 {
  %v = tt.load %p : !tt.ptr<f32>
  return %v : f32
}

// CHECK-LABEL: func.func @from_address_call
// CHECK: %[[ROOT:.*]] = builtin.unrealized_conversion_cast
// CHECK: %[[VIEW:.*]] = memref.subview %[[ROOT]]
// CHECK: call @use(%[[VIEW]])
func.func @from_address_call(%a: i64) -> f32 {
  %p = tt.int_to_ptr %a : i64 -> !tt.ptr<f32>
  %v = func.call @use(%p) : (!tt.ptr<f32>) -> f32
  return %v : f32
}
