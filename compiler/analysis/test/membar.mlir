// RUN: tessel-opt %s --split-input-file --test-print-membar --verify-diagnostics
// RUN: tessel-opt %s --split-input-file --test-print-membar=remove=1 2>/dev/null | FileCheck %s

// A write of a shared buffer, a barrier, a read of it by (possibly) other threads: needed.
// Two barriers back to back: each orders nothing while the other is there; removed in program
// order, the first goes and the second stays.
// CHECK-LABEL: gpu.func @raw
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
gpu.module @m {
  gpu.func @raw(%out: memref<4xf32>) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    %y = memref.load %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%c0] : memref<4xf32>
    gpu.return
  }
}

// -----

// Reads on both sides, or different buffers: not needed. A read, then a write of the same
// buffer (the write may overwrite what another thread still reads): needed.
// CHECK-LABEL: gpu.func @war
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %arg2
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %arg1
gpu.module @m {
  gpu.func @war(%out: memref<4xf32>) workgroup(%a: memref<4xf32, #gpu.address_space<workgroup>>, %b: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    %u = memref.load %a[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    %v = memref.load %a[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %v, %b[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    memref.store %u, %a[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// In a loop the next iteration follows: the barrier at the top of the body orders the write at
// its end (previous iteration) before the read at its start; the one before the loop orders
// nothing (nothing before it accesses memory).
// CHECK-LABEL: gpu.func @loop
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
gpu.module @m {
  gpu.func @loop(%n: index) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    scf.for %i = %c0 to %n step %c1 {
      // expected-remark @below {{barrier needed}}
      gpu.barrier
      %y = memref.load %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %y, %y : f32
      memref.store %z, %s[%c1] : memref<4xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// An scf.while's body is followed by its condition's region and the body again: at the end
// of the body, the scan goes on from its start (as for scf.for), not over the whole loop.
// With the others in place, the first barrier orders the previous iteration's load of %t
// before the store to %s (the last barrier separates the load of %s): not needed; the last
// orders a load of %s before a load of %t and, around the back edge, nothing up to the first
// barrier: not needed either (the whole loop would include the store to %s). Removing the
// first, the last becomes needed (the next iteration's store follows it).
// CHECK-LABEL: gpu.func @while_loop
// CHECK: } do {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
gpu.module @m {
  gpu.func @while_loop(%n: index, %f: f32) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>, %t: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%i: index):
      // expected-remark @below {{barrier not needed}}
      gpu.barrier
      memref.store %f, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      // expected-remark @below {{barrier needed}}
      gpu.barrier
      %y = memref.load %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      // expected-remark @below {{barrier not needed}}
      gpu.barrier
      %z = memref.load %t[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    gpu.return
  }
}

// -----

// Global memory counts as one buffer (one thread's store, another's load); private memory
// never conflicts; an op with undeclared effects (a call) touches everything.
// CHECK-LABEL: gpu.func @global
// CHECK: memref.store %{{.*}}, %arg0
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[P:[a-z0-9]+]][
// CHECK-NEXT: memref.load %[[P]]
// CHECK-NEXT: memref.load %arg0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: call @opaque
gpu.module @m {
  func.func private @opaque()
  gpu.func @global(%g: memref<4xf32>) private(%p: memref<4xf32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %g[%c0] : memref<4xf32>
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    %y = memref.load %g[%c0] : memref<4xf32>
    memref.store %y, %p[%c0] : memref<4xf32, #gpu.address_space<private>>
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    %z = memref.load %p[%c0] : memref<4xf32, #gpu.address_space<private>>
    %w = memref.load %g[%c0] : memref<4xf32>
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    func.call @opaque() : () -> ()
    gpu.return
  }
}

// -----

// A function of several blocks (branches, as gpu.all_reduce's lowering makes): what reaches a
// barrier from another block is not followed, so it is kept even with nothing in its block.
// CHECK-LABEL: gpu.func @branches
// CHECK: ^bb1:
// CHECK-NEXT: gpu.barrier
gpu.module @m {
  gpu.func @branches(%c: i1) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    %y = memref.load %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    cf.br ^bb2
  ^bb2:
    memref.store %x, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// wgmma reads shared memory (its operand tiles through descriptors, until its wait) and writes
// registers only; tessel's inline wgmma (A from registers) is marked tessel.registers_only to
// say the same of its side effects. Two of them on either side of a barrier: reads on both
// sides, not needed; a store into shared memory after the wait: needed.
// CHECK-LABEL: gpu.func @wgmma_reads
// CHECK: llvm.inline_asm
// CHECK-NOT: gpu.barrier
// CHECK: llvm.inline_asm
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
gpu.module @m {
  gpu.func @wgmma_reads(%d: i64) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    nvvm.wgmma.fence.aligned
    %r0 = llvm.inline_asm has_side_effects {tessel.registers_only} "wgmma $0, $1;", "=f,l" %d : (i64) -> f32
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    %r1 = llvm.inline_asm has_side_effects {tessel.registers_only} "wgmma $0, $1;", "=f,l" %d : (i64) -> f32
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    memref.store %x, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Inline assembly that does not say it writes registers only may access any memory: the
// barrier after it stays.
// CHECK-LABEL: gpu.func @unknown_asm
// CHECK: llvm.inline_asm
// CHECK-NEXT: gpu.barrier
gpu.module @m {
  gpu.func @unknown_asm(%d: i64) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    llvm.inline_asm has_side_effects "st.shared.f32 [$0], 1.0;", "l" %d : (i64) -> ()
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    %y = memref.load %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// The registers-only wgmma reads shared memory: a store into it before the barrier, the
// wgmma after it (another warp's wgmma may read what this thread stored): needed.
// CHECK-LABEL: gpu.func @wgmma_after_store
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: llvm.inline_asm
gpu.module @m {
  gpu.func @wgmma_after_store(%d: i64) workgroup(%s: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    %r0 = llvm.inline_asm has_side_effects {tessel.registers_only} "wgmma $0, $1;", "=f,l" %d : (i64) -> f32
    gpu.return
  }
}

// -----

// An mbarrier's arrivals and waits, a proxy fence, a warp's barrier and a cp.async commit
// synchronize without touching the buffers: between two wgmma reads they need no barrier
// (a warp-specialized consumer's K loop: wait for the producer's data, read, release the
// slot); an mbarrier's init is a write every thread must see first: needed.
// CHECK-LABEL: gpu.func @mbarrier_sync
// CHECK: nvgpu.mbarrier.init
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
gpu.module @m {
  gpu.func @mbarrier_sync(%d: i64, %parity: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ticks = arith.constant 1000 : index
    %mask = arith.constant -1 : i32
    %group = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %group[%c0], %c1 : !barriers
    // expected-remark @below {{barrier needed}}
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %group[%c0], %parity, %ticks : !barriers
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    %r0 = llvm.inline_asm has_side_effects {tessel.registers_only} "wgmma $0, $1;", "=f,l" %d : (i64) -> f32
    nvvm.bar.warp.sync %mask : i32
    %token = nvgpu.mbarrier.arrive %group[%c1] : !barriers -> !nvgpu.mbarrier.token
    nvvm.cp.async.commit.group
    // expected-remark @below {{barrier not needed}}
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %group[%c0], %parity, %ticks : !barriers
    %r1 = llvm.inline_asm has_side_effects {tessel.registers_only} "wgmma $0, $1;", "=f,l" %d : (i64) -> f32
    gpu.return
  }
}
