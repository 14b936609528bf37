// A thread runs its programs in program-id order, so the blocks program x + distance will
// read and write are known while program x runs. For each block of a kernel argument
// (memref.reinterpret_cast at the kernel's top level) whose offset is pure arithmetic on the
// arguments involving the x program id (the first of the six trailing i32 arguments), the
// offset is recomputed at the kernel's start with x + distance and a call to the marker
// __tessel_prefetch(address, rows, row bytes, row stride bytes, write) records the block;
// after LLVM's pipeline the markers become prefetches. distance=0: nothing.
// RUN: tessel-opt %s --split-input-file --tessel-cpu-prefetch-next-programs='distance=2' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,ON
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(tessel-cpu-prefetch-next-programs{distance=0})' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,OFF

// Softmax: the input row is read (write = 0), the output row written (write = 1): 256 f32, one
// row of 1024 bytes each, at the offset of program x + 2. Markers are inserted at the start
// of the kernel, the last block's first.
// ON:          func.func private @__tessel_prefetch(index, index, index, index, index)
// CHECK-LABEL: func.func public @softmax(
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?xf32, strided<[1], offset: ?>>, %[[IN:[a-z0-9]+]]: memref<?xf32, strided<[1], offset: ?>>, %[[N:[a-z0-9]+]]: i32,
// CHECK-SAME:    %[[PID_X:[a-z0-9]+]]: i32,
// ON-NEXT:       %[[DIST:.*]] = arith.constant 2 : i32
// ON-NEXT:       %[[NEXT:.*]] = arith.addi %[[PID_X]], %[[DIST]] : i32
// ON-NEXT:       %{{.*}}, %[[OUT_OFF:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[OUT]]
// ON-NEXT:       %[[ROW:.*]] = arith.muli %[[NEXT]], %[[N]] : i32
// ON-NEXT:       %[[ROW_IDX:.*]] = arith.index_cast %[[ROW]] : i32 to index
// ON-NEXT:       %[[NEXT_OFFSET:.*]] = arith.addi %[[OUT_OFF]], %[[ROW_IDX]] : index
// ON-NEXT:       %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// ON-NEXT:       %[[C4:.*]] = arith.constant 4 : index
// ON-NEXT:       %[[BYTES:.*]] = arith.muli %[[NEXT_OFFSET]], %[[C4]] : index
// ON-NEXT:       %[[ADDR:.*]] = arith.addi %[[BASE]], %[[BYTES]] : index
// ON-NEXT:       %[[NO_STRIDE:.*]] = arith.constant 0 : index
// ON-NEXT:       %[[ONE_ROW:.*]] = arith.constant 1 : index
// ON-NEXT:       %[[ROW_BYTES:.*]] = arith.constant 1024 : index
// ON-NEXT:       %[[WRITE:.*]] = arith.constant 1 : index
// ON-NEXT:       call @__tessel_prefetch(%[[ADDR]], %[[ONE_ROW]], %[[ROW_BYTES]], %[[NO_STRIDE]], %[[WRITE]])
// ON:            %[[NEXT2:.*]] = arith.addi %[[PID_X]], %{{.*}} : i32
// ON:            memref.extract_strided_metadata %[[IN]]
// ON:            arith.muli %[[NEXT2]], %[[N]] : i32
// ON:            %[[BASE2:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// ON:            %[[ADDR2:.*]] = arith.addi %[[BASE2]], %{{.*}} : index
// ON-NEXT:       %[[NO_STRIDE2:.*]] = arith.constant 0 : index
// ON-NEXT:       %[[ONE_ROW2:.*]] = arith.constant 1 : index
// ON-NEXT:       %[[ROW_BYTES2:.*]] = arith.constant 1024 : index
// ON-NEXT:       %[[READ:.*]] = arith.constant 0 : index
// ON-NEXT:       call @__tessel_prefetch(%[[ADDR2]], %[[ONE_ROW2]], %[[ROW_BYTES2]], %[[NO_STRIDE2]], %[[READ]])
// The kernel's own blocks are unchanged.
// CHECK:         arith.muli %[[PID_X]], %[[N]] : i32
// CHECK:         memref.reinterpret_cast %[[IN]]
// OFF-NOT:       prefetch
func.func public @softmax(%out: memref<?xf32, strided<[1], offset: ?>>, %in: memref<?xf32, strided<[1], offset: ?>>, %n: i32,
                          %pid_x: i32, %pid_y: i32, %pid_z: i32, %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %base_out, %off_out, %size_out, %stride_out = memref.extract_strided_metadata %out
      : memref<?xf32, strided<[1], offset: ?>> -> memref<f32>, index, index, index
  %base_in, %off_in, %size_in, %stride_in = memref.extract_strided_metadata %in
      : memref<?xf32, strided<[1], offset: ?>> -> memref<f32>, index, index, index
  %row_i32 = arith.muli %pid_x, %n : i32
  %row = arith.index_cast %row_i32 : i32 to index
  %in_off = arith.addi %off_in, %row : index
  %in_row = memref.reinterpret_cast %in to offset: [%in_off], sizes: [256], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<256xf32, strided<[1], offset: ?>>
  %tile = memref.alloca() : memref<256xf32>
  memref.copy %in_row, %tile : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
  %out_off = arith.addi %off_out, %row : index
  %out_row = memref.reinterpret_cast %out to offset: [%out_off], sizes: [256], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<256xf32, strided<[1], offset: ?>>
  linalg.copy ins(%tile : memref<256xf32>) outs(%out_row : memref<256xf32, strided<[1], offset: ?>>)
  return
}

// -----

// A 16 x 64 f32 block at a runtime row stride: 16 rows of 256 bytes, the stride in bytes
// computed from the same argument.
// CHECK-LABEL: func.func public @rows2d(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<?xf32, strided<[1], offset: ?>>, %[[STRIDE:[a-z0-9]+]]: i32,
// ON:            %[[STRIDE_IDX:.*]] = arith.index_cast %[[STRIDE]] : i32 to index
// ON:            %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// ON:            %[[ADDR:.*]] = arith.addi %[[BASE]], %{{.*}} : index
// ON:            %[[C4:.*]] = arith.constant 4 : index
// ON-NEXT:       %[[STRIDE_BYTES:.*]] = arith.muli %[[STRIDE_IDX]], %[[C4]] : index
// ON-NEXT:       %[[ROWS:.*]] = arith.constant 16 : index
// ON-NEXT:       %[[ROW_BYTES:.*]] = arith.constant 256 : index
// ON-NEXT:       %[[READ:.*]] = arith.constant 0 : index
// ON-NEXT:       call @__tessel_prefetch(%[[ADDR]], %[[ROWS]], %[[ROW_BYTES]], %[[STRIDE_BYTES]], %[[READ]])
// OFF-NOT:       prefetch
func.func public @rows2d(%in: memref<?xf32, strided<[1], offset: ?>>, %stride: i32,
                         %pid_x: i32, %pid_y: i32, %pid_z: i32, %grid_x: i32, %grid_y: i32, %grid_z: i32) {
  %c16 = arith.constant 16 : i32
  %base, %off, %size, %unit = memref.extract_strided_metadata %in
      : memref<?xf32, strided<[1], offset: ?>> -> memref<f32>, index, index, index
  %r0 = arith.muli %pid_x, %c16 : i32
  %r0_idx = arith.index_cast %r0 : i32 to index
  %s = arith.index_cast %stride : i32 to index
  %rel = arith.muli %r0_idx, %s : index
  %block_off = arith.addi %off, %rel : index
  %block = memref.reinterpret_cast %in to offset: [%block_off], sizes: [16, 64], strides: [%s, 1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<16x64xf32, strided<[?, 1], offset: ?>>
  %tile = memref.alloca() : memref<16x64xf32>
  linalg.copy ins(%block : memref<16x64xf32, strided<[?, 1], offset: ?>>) outs(%tile : memref<16x64xf32>)
  return
}

// -----

// No marker: the same block for every program (no program id in the offset), one that depends
// on the y program id only, one of 16384 f32 (1024 lines, more than the first-level cache
// holds), an offset read from memory, and a block with a non-unit innermost stride. A private
// function is not a kernel.
// CHECK-NOT:   __tessel_prefetch
// CHECK-LABEL: func.func public @not_prefetched(
// CHECK-NOT:   __tessel_prefetch
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:   __tessel_prefetch
func.func public @not_prefetched(%in: memref<?xf32, strided<[1], offset: ?>>, %offs: memref<?xindex>, %n: i32,
                                 %pid_x: i32, %pid_y: i32, %pid_z: i32, %grid_x: i32, %grid_y: i32, %grid_z: i32)
    -> (f32, f32, f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %base, %off, %size, %stride = memref.extract_strided_metadata %in
      : memref<?xf32, strided<[1], offset: ?>> -> memref<f32>, index, index, index
  %bias = memref.reinterpret_cast %in to offset: [%off], sizes: [64], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, strided<[1], offset: ?>>
  %y = arith.index_cast %pid_y : i32 to index
  %y_off = arith.addi %off, %y : index
  %by_y = memref.reinterpret_cast %in to offset: [%y_off], sizes: [64], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, strided<[1], offset: ?>>
  %row_i32 = arith.muli %pid_x, %n : i32
  %row = arith.index_cast %row_i32 : i32 to index
  %row_off = arith.addi %off, %row : index
  %big = memref.reinterpret_cast %in to offset: [%row_off], sizes: [16384], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<16384xf32, strided<[1], offset: ?>>
  %loaded = memref.load %offs[%c0] : memref<?xindex>
  %ind_off = arith.addi %loaded, %row : index
  %indirect = memref.reinterpret_cast %in to offset: [%ind_off], sizes: [64], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, strided<[1], offset: ?>>
  %column = memref.reinterpret_cast %in to offset: [%row_off], sizes: [64], strides: [%c2]
      : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, strided<[?], offset: ?>>
  %a = memref.load %bias[%c0] : memref<64xf32, strided<[1], offset: ?>>
  %b = memref.load %by_y[%c0] : memref<64xf32, strided<[1], offset: ?>>
  %c = memref.load %big[%c0] : memref<16384xf32, strided<[1], offset: ?>>
  %d = memref.load %indirect[%c0] : memref<64xf32, strided<[1], offset: ?>>
  %e = memref.load %column[%c0] : memref<64xf32, strided<[?], offset: ?>>
  return %a, %b, %c, %d, %e : f32, f32, f32, f32, f32
}
func.func private @helper(%in: memref<?xf32, strided<[1], offset: ?>>, %n: i32,
                          %pid_x: i32, %pid_y: i32, %pid_z: i32, %grid_x: i32, %grid_y: i32, %grid_z: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %row_i32 = arith.muli %pid_x, %n : i32
  %row = arith.index_cast %row_i32 : i32 to index
  %block = memref.reinterpret_cast %in to offset: [%row], sizes: [64], strides: [1]
      : memref<?xf32, strided<[1], offset: ?>> to memref<64xf32, strided<[1], offset: ?>>
  %v = memref.load %block[%c0] : memref<64xf32, strided<[1], offset: ?>>
  return %v : f32
}
