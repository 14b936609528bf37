// Warpgroups take turns at the first wgmma issue of a loop that chains products
// (tessel-cuda-warpgroup-turns): warpgroup g = tid / 128 waits at named barrier g + 1 (256
// threads) before the issue and arrives at barrier (g + 1) mod G + 1 after its commit; the last
// warpgroup arrives at barrier 1 before the loop, the first waits there after it. Loops with
// one group an iteration (a matmul's K loop), loops whose bounds or enclosing conditions
// differ between threads, issues under a condition inside the loop and loops nested in a loop
// that takes turns too are left alone, as is everything with fewer than two warpgroups. After
// a loop a block barrier keeps the next loop's first arrival behind the first warpgroup's
// last wait (two loops in a row: attention's unmasked and masked key blocks).
// RUN: tessel-opt %s --split-input-file --tessel-cuda-warpgroup-turns='warpgroups=2' | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-cuda-warpgroup-turns='warpgroups=4' | FileCheck %s --check-prefix=FOUR
// RUN: tessel-opt %s --split-input-file --tessel-cuda-warpgroup-turns='warpgroups=1' | FileCheck %s --check-prefix=ONE
// RUN: not tessel-opt %s --split-input-file --tessel-cuda-warpgroup-turns='warpgroups=16' 2>&1 | FileCheck %s --check-prefix=MANY

// CHECK-LABEL: gpu.func @chain
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[T32:.*]] = arith.index_cast %[[TID]] : index to i32
// CHECK: %[[GROUP:.*]] = arith.divui %[[T32]], %c128_i32
// CHECK: %[[MINE:.*]] = arith.addi %[[GROUP]], %[[UNIT:.*]] : i32
// CHECK: %[[REM:.*]] = arith.remui %[[MINE]], %c2_i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[REM]], %[[UNIT]] : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[GROUP]], %c1_i32
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: nvvm.barrier.arrive id = %[[UNIT]] number_of_threads = %[[PAIR:.*]]
// CHECK: scf.for
// CHECK: scf.execute_region
// CHECK-NEXT: nvvm.barrier id = %[[MINE]] number_of_threads = %[[PAIR]]
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.barrier.arrive id = %[[NEXT]] number_of_threads = %[[PAIR]]
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.execute_region
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[GROUP]], %c0_i32
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: nvvm.barrier id = %[[UNIT]] number_of_threads = %[[PAIR]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.return
// FOUR-LABEL: gpu.func @chain
// FOUR: arith.remui %{{.*}}, %c4_i32
// FOUR: arith.cmpi eq, %{{.*}}, %c3_i32
// ONE-NOT: nvvm.barrier
// MANY: at most 15 warpgroups
gpu.module @kernels {
  gpu.func @chain(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %b = gpu.block_id x
    %end = arith.addi %n, %b : index
    scf.for %i = %c0 to %end step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        scf.yield
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 1
        scf.yield
      }
    }
    gpu.return
  }
}

// -----

// One group an iteration: unchanged.
// CHECK-LABEL: gpu.func @k_loop
// CHECK-NOT: nvvm.barrier
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @k_loop(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 1
        scf.yield
      }
    }
    gpu.return
  }
}

// -----

// The trip count depends on the thread, or the loop runs under a thread's condition, or the
// issue is conditional inside the loop: unchanged.
// CHECK-LABEL: gpu.func @per_thread
// CHECK-NOT: nvvm.barrier
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @per_thread(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = gpu.thread_id x
    scf.for %i = %c0 to %t step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
    }
    %lo = arith.cmpi ult, %t, %n : index
    scf.if %lo {
      scf.for %i = %c0 to %n step %c1 {
        scf.execute_region {
          nvvm.wgmma.fence.aligned
          nvvm.wgmma.commit.group.sync.aligned
          scf.yield
        }
        scf.execute_region {
          nvvm.wgmma.fence.aligned
          nvvm.wgmma.commit.group.sync.aligned
          scf.yield
        }
      }
    }
    %p = arith.cmpi ult, %c0, %n : index
    scf.for %i = %c0 to %n step %c1 {
      scf.if %p {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
    }
    gpu.return
  }
}

// -----

// Two loops in a row: the second's first arrival comes after the first's last wait and a
// block barrier.
// CHECK-LABEL: gpu.func @two_in_a_row
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads
// CHECK: scf.if
// CHECK-NEXT: nvvm.barrier id =
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: nvvm.barrier.arrive id =
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads
// CHECK: scf.if
// CHECK-NEXT: nvvm.barrier id =
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.return
gpu.module @kernels {
  gpu.func @two_in_a_row(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
    }
    scf.for %i = %c0 to %n step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
    }
    gpu.return
  }
}

// -----

// A chain inside a chain (the barriers would be shared), and a trip count from the subgroup
// id: unchanged.
// CHECK-LABEL: gpu.func @nested_or_subgroup
// CHECK-NOT: nvvm.barrier
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @nested_or_subgroup(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
      scf.for %j = %c0 to %n step %c1 {
        scf.execute_region {
          nvvm.wgmma.fence.aligned
          nvvm.wgmma.commit.group.sync.aligned
          scf.yield
        }
        scf.execute_region {
          nvvm.wgmma.fence.aligned
          nvvm.wgmma.commit.group.sync.aligned
          scf.yield
        }
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
    }
    %s = gpu.subgroup_id : index
    scf.for %i = %c0 to %s step %c1 {
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
      scf.execute_region {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield
      }
    }
    gpu.return
  }
}
