// RUN: tessel-opt %s -split-input-file -test-print-allocation -verify-diagnostics -o /dev/null

// Buffers reused after their last use: a lifetime runs from the first use to the last, so %c
// (first used after %a's last load) takes %a's bytes; %b overlaps %a and goes above it.
// Positions count ops in pre-order (the function is 0).
// expected-remark @+1 {{shared memory: 384 bytes}}
func.func @reuse_after_last_use() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  // expected-remark @+1 {{buffer at 0, 256 bytes, live 4..7}}
  %a = memref.alloc() : memref<64xf32>
  memref.store %f, %a[%c0] : memref<64xf32>
  // expected-remark @+1 {{buffer at 256, 128 bytes, live 6..6}}
  %b = memref.alloc() : memref<32xf32>
  memref.store %f, %b[%c0] : memref<32xf32>
  %x = memref.load %a[%c0] : memref<64xf32>
  // expected-remark @+1 {{buffer at 0, 64 bytes, live 9..9}}
  %c = memref.alloc() : memref<16xf32>
  memref.store %x, %c[%c0] : memref<16xf32>
  return
}

// -----

// A buffer used in a loop lives for the whole loop (the previous and next iterations use it
// too), so the loop's own buffer cannot take its bytes; one allocated after the loop can. A
// buffer allocated in the loop lives for all of it too: in one slot where the loop does not
// carry it (the same bytes every iteration), in two where it yields it into the next iteration
// (map-programs alternates between them per iteration). Views count as uses.
// expected-remark @+1 {{shared memory: 1536 bytes}}
func.func @loop_lifetimes(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-remark @+1 {{buffer at 0, 512 bytes, live 6..15}}
  %acc = memref.alloc() : memref<8x16xf32>
  // expected-remark @+1 {{buffer at 1024, 256 bytes, live 6..15}}
  %first = memref.alloc() : memref<64xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first) -> (memref<64xf32>) {
    // expected-remark @+1 {{buffer at 1280, 256 bytes, live 6..15}}
    %t = memref.alloc() : memref<64xf32>
    memref.store %f, %t[%c0] : memref<64xf32>
    %x = memref.load %t[%c0] : memref<64xf32>
    %row = memref.subview %acc[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    memref.store %x, %row[%c0] : memref<16xf32, strided<[1], offset: ?>>
    // expected-remark @+1 {{buffer at 512, 512 bytes, live 6..15}}
    %next = memref.alloc() : memref<64xf32>
    %y = memref.load %prev[%c0] : memref<64xf32>
    memref.store %y, %next[%c0] : memref<64xf32>
    scf.yield %next : memref<64xf32>
  }
  // expected-remark @+1 {{buffer at 0, 256 bytes, live 17..17}}
  %after = memref.alloc() : memref<64xf32>
  memref.store %f, %after[%c0] : memref<64xf32>
  return
}

// -----

// A callee used from two call sites: a virtual buffer of its total at each call. At the first
// call the kernel's %keep is live, so the callee's part of the arena starts above it; at the
// second nothing else is, so it starts at 0: the callee works at different offsets (its own
// buffer at 0 of its part). A call inside a loop is a virtual buffer live at the call only.
// expected-remark @+1 {{shared memory: 64 bytes}}
func.func private @helper(%v: f32) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{buffer at 0, 64 bytes, live 3..3}}
  %scratch = memref.alloc() : memref<16xf32>
  memref.store %v, %scratch[%c0] : memref<16xf32>
  return
}
// expected-remark @+1 {{shared memory: 1088 bytes}}
func.func @kernel(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-remark @+1 {{buffer at 0, 1024 bytes, live 5..7}}
  %keep = memref.alloc() : memref<256xf32>
  memref.store %f, %keep[%c0] : memref<256xf32>
  // expected-remark @+1 {{virtual buffer at 1024, 64 bytes, live 6..6}}
  func.call @helper(%f) : (f32) -> ()
  %x = memref.load %keep[%c0] : memref<256xf32>
  // expected-remark @+1 {{virtual buffer at 0, 64 bytes, live 8..8}}
  func.call @helper(%x) : (f32) -> ()
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @+1 {{virtual buffer at 0, 64 bytes, live 10..10}}
    func.call @helper(%x) : (f32) -> ()
  }
  return
}

// -----

// A buffer allocated before a loop but first used after it (a matmul's accumulator tile, whose
// values stay in registers during the K loop) shares bytes with the loop's operand tiles.
// expected-remark @+1 {{shared memory: 2048 bytes}}
func.func @accumulator_after_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-remark @+1 {{buffer at 0, 2048 bytes, live 12..12}}
  %acc = memref.alloc() : memref<512xf32>
  // expected-remark @+1 {{buffer at 0, 1024 bytes, live 7..11}}
  %a = memref.alloc() : memref<256xf32>
  // expected-remark @+1 {{buffer at 1024, 1024 bytes, live 7..11}}
  %b = memref.alloc() : memref<256xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %a[%i] : memref<256xf32>
    memref.store %f, %b[%i] : memref<256xf32>
    %x = memref.load %a[%c0] : memref<256xf32>
  }
  memref.store %f, %acc[%c0] : memref<512xf32>
  return
}

// -----

// Recursion: no finite arena (found at the call that closes the cycle).
func.func private @ping(%v: f32) {
  func.call @pong(%v) : (f32) -> ()
  return
}
func.func private @pong(%v: f32) {
  // expected-error @+1 {{recursive call to 'ping': shared memory cannot be allocated for a recursive call graph}}
  func.call @ping(%v) : (f32) -> ()
  return
}
