// memref.generic_atomic_rmw (tl.atomic_cas, and atomics without a memref.atomic_rmw kind)
// becomes a compare-and-swap loop on the element's address, since MLIR's own LLVM lowering of
// that op needs identity-layout memrefs and kernel arguments are strided views: the address is
// the aligned base plus offset + sum(index * stride) elements; the loop starts from an atomic
// load, computes the new value with the op's body, and retries with the value seen until the
// cmpxchg succeeds; the result is the value memory held before the exchange. Floats are
// exchanged as their bits.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-lower-generic-atomics | FileCheck %s

// tl.atomic_cas on an i32 kernel argument.
// CHECK-LABEL: func.func public @atomic_cas(
// CHECK-SAME:    %[[P:[a-z0-9]+]]: memref<?xi32, strided<[1], offset: ?>>, %[[I:[a-z0-9]+]]: index, %[[CMP:[a-z0-9]+]]: i32, %[[VAL:[a-z0-9]+]]: i32)
// CHECK:         %{{.*}}, %[[OFF:.*]], %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %[[P]]
// CHECK:         %[[SCALED:.*]] = arith.muli %[[I]], %[[STRIDE]] : index
// CHECK:         %[[LINEAR:.*]] = arith.addi %[[OFF]], %[[SCALED]] : index
// CHECK:         %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[P]]
// CHECK:         %[[BASE_I64:.*]] = arith.index_cast %[[BASE]] : index to i64
// CHECK:         %[[BASE_PTR:.*]] = llvm.inttoptr %[[BASE_I64]] : i64 to !llvm.ptr
// CHECK:         %[[LINEAR_I64:.*]] = arith.index_cast %[[LINEAR]] : index to i64
// CHECK:         %[[ADDR:.*]] = llvm.getelementptr %[[BASE_PTR]][%[[LINEAR_I64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK:         %[[START:.*]] = llvm.load %[[ADDR]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         %[[OLD:.*]] = scf.while (%[[CUR:.*]] = %[[START]]) : (i32) -> i32 {
// CHECK:           %[[EQ:.*]] = arith.cmpi eq, %[[CUR]], %[[CMP]] : i32
// CHECK:           %[[NEW:.*]] = arith.select %[[EQ]], %[[VAL]], %[[CUR]] : i32
// CHECK:           %[[PAIR:.*]] = llvm.cmpxchg %[[ADDR]], %[[CUR]], %[[NEW]] acq_rel monotonic : !llvm.ptr, i32
// CHECK:           %[[SEEN:.*]] = llvm.extractvalue %[[PAIR]][0]
// CHECK:           %[[OK:.*]] = llvm.extractvalue %[[PAIR]][1]
// CHECK:           %[[TRUE:.*]] = arith.constant true
// CHECK:           %[[RETRY:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK:           scf.condition(%[[RETRY]]) %[[SEEN]] : i32
// CHECK:         } do {
// CHECK:         ^bb0(%[[NEXT:.*]]: i32):
// CHECK:           scf.yield %[[NEXT]] : i32
// CHECK:         }
// CHECK-NOT:     memref.generic_atomic_rmw
// CHECK:         return %[[OLD]] : i32
func.func public @atomic_cas(%p: memref<?xi32, strided<[1], offset: ?>>, %i: index, %cmp: i32, %val: i32) -> i32 {
  %old = memref.generic_atomic_rmw %p[%i] : memref<?xi32, strided<[1], offset: ?>> {
  ^bb0(%cur: i32):
    %eq = arith.cmpi eq, %cur, %cmp : i32
    %new = arith.select %eq, %val, %cur : i32
    memref.atomic_yield %new : i32
  }
  return %old : i32
}

// -----

// An f32 element of a 2-D strided view: both indices scaled by their strides; the exchange
// works on i32 bits.
// CHECK-LABEL: func.func public @atomic_max_f32(
// CHECK-SAME:    %[[P:[a-z0-9]+]]: memref<4x?xf32, strided<[?, 1], offset: ?>>, %[[I:[a-z0-9]+]]: index, %[[J:[a-z0-9]+]]: index, %[[V:[a-z0-9]+]]: f32)
// CHECK:         %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[P]]
// CHECK:         %[[ROW:.*]] = arith.muli %[[I]], %[[STRIDES]]#0 : index
// CHECK:         %[[L0:.*]] = arith.addi %[[OFF]], %[[ROW]] : index
// CHECK:         %[[COL:.*]] = arith.muli %[[J]], %[[STRIDES]]#1 : index
// CHECK:         %[[LINEAR:.*]] = arith.addi %[[L0]], %[[COL]] : index
// CHECK:         %[[ADDR:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         %[[START:.*]] = llvm.load %[[ADDR]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK:         scf.while (%[[CUR:.*]] = %[[START]]) : (f32) -> f32 {
// CHECK:           %[[NEW:.*]] = arith.maximumf %[[CUR]], %[[V]] : f32
// CHECK:           %[[NEW_BITS:.*]] = arith.bitcast %[[NEW]] : f32 to i32
// CHECK:           %[[CUR_BITS:.*]] = arith.bitcast %[[CUR]] : f32 to i32
// CHECK:           %[[PAIR:.*]] = llvm.cmpxchg %[[ADDR]], %[[CUR_BITS]], %[[NEW_BITS]] acq_rel monotonic : !llvm.ptr, i32
// CHECK:           %[[SEEN_BITS:.*]] = llvm.extractvalue %[[PAIR]][0]
// CHECK:           %[[SEEN:.*]] = arith.bitcast %[[SEEN_BITS]] : i32 to f32
// CHECK:           scf.condition(%{{.*}}) %[[SEEN]] : f32
// CHECK-NOT:     memref.generic_atomic_rmw
func.func public @atomic_max_f32(%p: memref<4x?xf32, strided<[?, 1], offset: ?>>, %i: index, %j: index, %v: f32) -> f32 {
  %old = memref.generic_atomic_rmw %p[%i, %j] : memref<4x?xf32, strided<[?, 1], offset: ?>> {
  ^bb0(%cur: f32):
    %new = arith.maximumf %cur, %v : f32
    memref.atomic_yield %new : f32
  }
  return %old : f32
}

// -----

// Atomics with a kind (memref.atomic_rmw) are left to MLIR's lowering.
// CHECK-LABEL: func.func public @atomic_add(
// CHECK-NEXT:    memref.atomic_rmw addf
// CHECK-NOT:     scf.while
func.func public @atomic_add(%p: memref<?xf32, strided<[1], offset: ?>>, %i: index, %v: f32) -> f32 {
  %old = memref.atomic_rmw addf %v, %p[%i] : (f32, memref<?xf32, strided<[1], offset: ?>>) -> f32
  return %old : f32
}
