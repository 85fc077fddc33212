// Round trip of the contraction and structure ops, with static and dynamic (`?`) dims,
// optional operands present and absent, and default-valued attributes set and omitted.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<?x4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<2x1x4x8xf32>,
                  %d: tensor<3x8x?xf32>, %v: tensor<8xf32>) {
  // CHECK: mm.matmul %arg0, %arg1 : tensor<?x4x8xf32>, tensor<8x16xf32> -> tensor<?x4x16xf32>
  %0 = mm.matmul %a, %b : tensor<?x4x8xf32>, tensor<8x16xf32> -> tensor<?x4x16xf32>
  // Batch dims broadcast: [2, 1] with [3] -> [2, 3].
  // CHECK: mm.matmul %arg2, %arg3 : tensor<2x1x4x8xf32>, tensor<3x8x?xf32> -> tensor<2x3x4x?xf32>
  %1 = mm.matmul %c, %d : tensor<2x1x4x8xf32>, tensor<3x8x?xf32> -> tensor<2x3x4x?xf32>
  // Rank-1 operands are promoted and the added dim dropped (numpy.matmul).
  // CHECK: mm.matmul %arg4, %arg1 : tensor<8xf32>, tensor<8x16xf32> -> tensor<16xf32>
  %2 = mm.matmul %v, %b : tensor<8xf32>, tensor<8x16xf32> -> tensor<16xf32>
  // CHECK: mm.matmul %arg0, %arg4 : tensor<?x4x8xf32>, tensor<8xf32> -> tensor<?x4xf32>
  %3 = mm.matmul %a, %v : tensor<?x4x8xf32>, tensor<8xf32> -> tensor<?x4xf32>
  // CHECK: mm.matmul %arg4, %arg4 : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  %4 = mm.matmul %v, %v : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>, %b: tensor<64xf32>,
                %xd: tensor<?x4x?x10xf32>, %wg: tensor<6x2x3x3xf32>) {
  // ViT patch embedding: 8x8 patches, stride 8, with bias.
  // CHECK: mm.conv %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 8, 8>} : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32>, tensor<64xf32> -> tensor<1x64x8x8xf32>
  %0 = mm.conv %x, %w, %b {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32>, tensor<64xf32> -> tensor<1x64x8x8xf32>
  // No bias, 2 groups, padding, dilation, dynamic batch and height:
  // width (10 + 1 + 2 - 2 * 2 - 1) / 2 + 1 = 5.
  // CHECK: mm.conv %arg3, %arg4 {dilations = array<i64: 2, 2>, group = 2 : i64, pads = array<i64: 1, 1, 2, 2>, strides = array<i64: 2, 2>} : tensor<?x4x?x10xf32>, tensor<6x2x3x3xf32> -> tensor<?x6x?x5xf32>
  %1 = mm.conv %xd, %wg {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 2, 2>, dilations = array<i64: 2, 2>, group = 2}
      : tensor<?x4x?x10xf32>, tensor<6x2x3x3xf32> -> tensor<?x6x?x5xf32>
  return
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<2x?x8xf32>, %i: tensor<4x5xi64>) {
  // keepdims defaults to true and is not printed.
  // CHECK: mm.reduce_mean %arg0 {axes = array<i64: -1>} : tensor<2x?x8xf32> -> tensor<2x?x1xf32>
  %0 = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<2x?x8xf32> -> tensor<2x?x1xf32>
  // CHECK: mm.reduce_sum %arg0 {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x?x8xf32> -> tensor<?xf32>
  %1 = mm.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x?x8xf32> -> tensor<?xf32>
  // Empty axes reduce over all dims.
  // CHECK: mm.reduce_max %arg1 {axes = array<i64>, keepdims = false} : tensor<4x5xi64> -> tensor<i64>
  %2 = mm.reduce_max %i {axes = array<i64>, keepdims = false} : tensor<4x5xi64> -> tensor<i64>
  // CHECK: mm.reduce_max %arg1 {axes = array<i64>} : tensor<4x5xi64> -> tensor<1x1xi64>
  %3 = mm.reduce_max %i {axes = array<i64>} : tensor<4x5xi64> -> tensor<1x1xi64>
  return
}

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<1x4x?x?xf32>) {
  // CHECK: mm.softmax %arg0 : tensor<1x4x?x?xf32>
  %0 = mm.softmax %x : tensor<1x4x?x?xf32>
  // CHECK: mm.softmax %arg0 {axis = 1 : i64} : tensor<1x4x?x?xf32>
  %1 = mm.softmax %x {axis = 1} : tensor<1x4x?x?xf32>
  return
}

// CHECK-LABEL: func.func @gather
func.func @gather(%table: tensor<320x64xf32>, %ids: tensor<?x?xi64>, %pos: tensor<i32>,
                  %data: tensor<2x3x4xf32>, %idx: tensor<2x1xi64>, %idx3: tensor<2x5x3xi64>) {
  // Embedding lookup: [320, 64] at [batch, seq] -> [batch, seq, 64].
  // CHECK: mm.gather %arg0, %arg1 : tensor<320x64xf32>, tensor<?x?xi64> -> tensor<?x?x64xf32>
  %0 = mm.gather %table, %ids : tensor<320x64xf32>, tensor<?x?xi64> -> tensor<?x?x64xf32>
  // A scalar index removes the axis.
  // CHECK: mm.gather %arg3, %arg2 {axis = -2 : i64} : tensor<2x3x4xf32>, tensor<i32> -> tensor<2x4xf32>
  %1 = mm.gather %data, %pos {axis = -2} : tensor<2x3x4xf32>, tensor<i32> -> tensor<2x4xf32>
  // CHECK: mm.gather_nd %arg3, %arg4 : tensor<2x3x4xf32>, tensor<2x1xi64> -> tensor<2x3x4xf32>
  %2 = mm.gather_nd %data, %idx : tensor<2x3x4xf32>, tensor<2x1xi64> -> tensor<2x3x4xf32>
  // CHECK: mm.gather_nd %arg3, %arg4 {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x1xi64> -> tensor<2x4xf32>
  %3 = mm.gather_nd %data, %idx {batch_dims = 1} : tensor<2x3x4xf32>, tensor<2x1xi64> -> tensor<2x4xf32>
  // Indices addressing every dim give scalars.
  // CHECK: mm.gather_nd %arg3, %arg5 : tensor<2x3x4xf32>, tensor<2x5x3xi64> -> tensor<2x5xf32>
  %4 = mm.gather_nd %data, %idx3 : tensor<2x3x4xf32>, tensor<2x5x3xi64> -> tensor<2x5xf32>
  return
}

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<1x4x?x16xf32>, %b: tensor<1x4x1x16xf32>, %c: tensor<3xi64>, %d: tensor<1xi64>) {
  // KV-cache append along the sequence axis.
  // CHECK: mm.concat %arg0, %arg1 {axis = 2 : i64} : tensor<1x4x?x16xf32>, tensor<1x4x1x16xf32> -> tensor<1x4x?x16xf32>
  %0 = mm.concat %a, %b {axis = 2} : tensor<1x4x?x16xf32>, tensor<1x4x1x16xf32> -> tensor<1x4x?x16xf32>
  // CHECK: mm.concat %arg2, %arg3, %arg2 {axis = -1 : i64} : tensor<3xi64>, tensor<1xi64>, tensor<3xi64> -> tensor<7xi64>
  %1 = mm.concat %c, %d, %c {axis = -1} : tensor<3xi64>, tensor<1xi64>, tensor<3xi64> -> tensor<7xi64>
  // CHECK: mm.concat %arg1 {axis = 0 : i64} : tensor<1x4x1x16xf32> -> tensor<1x4x1x16xf32>
  %2 = mm.concat %b {axis = 0} : tensor<1x4x1x16xf32> -> tensor<1x4x1x16xf32>
  return
}

// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<2x?x64xf32>, %s: tensor<1xi64>, %e: tensor<1xi64>, %a: tensor<1xi64>,
                 %st: tensor<?xi32>) {
  // CHECK: mm.slice %arg0, %arg1, %arg2, %arg3, %arg1 : tensor<2x?x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x?x32xf32>
  %0 = mm.slice %x, %s, %e, %a, %s : tensor<2x?x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x?x32xf32>
  // CHECK: mm.slice %arg0, %arg4, %arg4, %arg4, %arg4 : tensor<2x?x64xf32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x?x?xf32>
  %1 = mm.slice %x, %st, %st, %st, %st : tensor<2x?x64xf32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x?x?xf32>
  return
}

// CHECK-LABEL: func.func @split
func.func @split(%x: tensor<?x192xf32>, %y: tensor<6xi64>) {
  // Merged QKV projection split into q, k, v.
  // CHECK: mm.split %arg0 {axis = 1 : i64, sizes = array<i64: 64, 64, 64>} : tensor<?x192xf32> -> tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
  %0:3 = mm.split %x {axis = 1, sizes = array<i64: 64, 64, 64>} : tensor<?x192xf32> -> tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
  // CHECK: mm.split %arg1 {axis = -1 : i64, sizes = array<i64: 2, 0, 4>} : tensor<6xi64> -> tensor<2xi64>, tensor<0xi64>, tensor<4xi64>
  %1:3 = mm.split %y {axis = -1, sizes = array<i64: 2, 0, 4>} : tensor<6xi64> -> tensor<2xi64>, tensor<0xi64>, tensor<4xi64>
  return
}

// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<2x3x4xf32>, %s3: tensor<3xi64>, %sd: tensor<?xi64>, %y: tensor<?x64xf16>) {
  // CHECK: mm.reshape %arg0, %arg1 : tensor<2x3x4xf32>, tensor<3xi64> -> tensor<4x3x2xf32>
  %0 = mm.reshape %x, %s3 : tensor<2x3x4xf32>, tensor<3xi64> -> tensor<4x3x2xf32>
  // CHECK: mm.reshape %arg3, %arg2 {allow_zero = true} : tensor<?x64xf16>, tensor<?xi64> -> tensor<?x4x16xf16>
  %1 = mm.reshape %y, %sd {allow_zero = true} : tensor<?x64xf16>, tensor<?xi64> -> tensor<?x4x16xf16>
  return
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%x: tensor<?x16x4x8xf32>, %s: tensor<f32>) {
  // CHECK: mm.transpose %arg0 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x16x4x8xf32> -> tensor<?x4x16x8xf32>
  %0 = mm.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<?x16x4x8xf32> -> tensor<?x4x16x8xf32>
  // CHECK: mm.transpose %arg0 {perm = array<i64: -1, 0, 1, 2>} : tensor<?x16x4x8xf32> -> tensor<8x?x16x4xf32>
  %1 = mm.transpose %x {perm = array<i64: -1, 0, 1, 2>} : tensor<?x16x4x8xf32> -> tensor<8x?x16x4xf32>
  // CHECK: mm.transpose %arg1 {perm = array<i64>} : tensor<f32> -> tensor<f32>
  %2 = mm.transpose %s {perm = array<i64>} : tensor<f32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @expand
func.func @expand(%x: tensor<1x1x4xf32>, %s: tensor<4xi64>, %d: tensor<?x1xi1>, %sd: tensor<?xi64>,
                  %s3: tensor<3xi64>) {
  // CHECK: mm.expand %arg0, %arg1 : tensor<1x1x4xf32>, tensor<4xi64> -> tensor<2x3x5x4xf32>
  %0 = mm.expand %x, %s : tensor<1x1x4xf32>, tensor<4xi64> -> tensor<2x3x5x4xf32>
  // ONNX Expand keeps an input dim where the shape asks for 1: [1, 1, 4] to [2, 1, 1].
  // CHECK: mm.expand %arg0, %arg4 : tensor<1x1x4xf32>, tensor<3xi64> -> tensor<2x1x4xf32>
  %2 = mm.expand %x, %s3 : tensor<1x1x4xf32>, tensor<3xi64> -> tensor<2x1x4xf32>
  // CHECK: mm.expand %arg2, %arg3 : tensor<?x1xi1>, tensor<?xi64> -> tensor<?x?xi1>
  %1 = mm.expand %d, %sd : tensor<?x1xi1>, tensor<?xi64> -> tensor<?x?xi1>
  return
}

// CHECK-LABEL: func.func @squeeze_unsqueeze_flatten
func.func @squeeze_unsqueeze_flatten(%x: tensor<1x?x1x8xf32>, %y: tensor<?x8xi64>, %s: tensor<f32>) {
  // CHECK: mm.squeeze %arg0 {axes = array<i64: 0, -2>} : tensor<1x?x1x8xf32> -> tensor<?x8xf32>
  %0 = mm.squeeze %x {axes = array<i64: 0, -2>} : tensor<1x?x1x8xf32> -> tensor<?x8xf32>
  // A dynamic dim may be squeezed (it must be 1 at run time).
  // CHECK: mm.squeeze %arg0 {axes = array<i64: 1>} : tensor<1x?x1x8xf32> -> tensor<1x1x8xf32>
  %1 = mm.squeeze %x {axes = array<i64: 1>} : tensor<1x?x1x8xf32> -> tensor<1x1x8xf32>
  // CHECK: mm.unsqueeze %arg1 {axes = array<i64: 0, -1>} : tensor<?x8xi64> -> tensor<1x?x8x1xi64>
  %2 = mm.unsqueeze %y {axes = array<i64: 0, -1>} : tensor<?x8xi64> -> tensor<1x?x8x1xi64>
  // CHECK: mm.unsqueeze %arg2 {axes = array<i64: 0>} : tensor<f32> -> tensor<1xf32>
  %3 = mm.unsqueeze %s {axes = array<i64: 0>} : tensor<f32> -> tensor<1xf32>
  // CHECK: mm.flatten %arg0 : tensor<1x?x1x8xf32> -> tensor<1x?xf32>
  %4 = mm.flatten %x : tensor<1x?x1x8xf32> -> tensor<1x?xf32>
  // CHECK: mm.flatten %arg0 {axis = -1 : i64} : tensor<1x?x1x8xf32> -> tensor<?x8xf32>
  %5 = mm.flatten %x {axis = -1} : tensor<1x?x1x8xf32> -> tensor<?x8xf32>
  // axis = rank puts every dim in the outer factor.
  // CHECK: mm.flatten %arg1 {axis = 2 : i64} : tensor<?x8xi64> -> tensor<?x1xi64>
  %6 = mm.flatten %y {axis = 2} : tensor<?x8xi64> -> tensor<?x1xi64>
  return
}

// CHECK-LABEL: func.func @tile_trilu_cumsum
func.func @tile_trilu_cumsum(%x: tensor<2x?xf32>, %r: tensor<2xi64>, %m: tensor<?x4x4xi1>, %i: tensor<?xi64>) {
  // CHECK: mm.tile %arg0, %arg1 : tensor<2x?xf32>, tensor<2xi64> -> tensor<4x?xf32>
  %0 = mm.tile %x, %r : tensor<2x?xf32>, tensor<2xi64> -> tensor<4x?xf32>
  // CHECK: mm.trilu %arg2 : tensor<?x4x4xi1> -> tensor<?x4x4xi1>
  %1 = mm.trilu %m : tensor<?x4x4xi1> -> tensor<?x4x4xi1>
  // CHECK: mm.trilu %arg0 {k = -1 : i64, upper = false} : tensor<2x?xf32> -> tensor<2x?xf32>
  %2 = mm.trilu %x {k = -1, upper = false} : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: mm.cumsum %arg3 {axis = 0 : i64} : tensor<?xi64>
  %3 = mm.cumsum %i {axis = 0} : tensor<?xi64>
  // CHECK: mm.cumsum %arg0 {axis = -1 : i64, exclusive = true, reverse = true} : tensor<2x?xf32>
  %4 = mm.cumsum %x {axis = -1, exclusive = true, reverse = true} : tensor<2x?xf32>
  return
}

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%a: tensor<i64>, %b: tensor<i64>, %f: tensor<f32>, %s: tensor<3xi64>,
                     %x: tensor<?x4x?xf32>) {
  // CHECK: mm.range %arg0, %arg1, %arg0 : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %0 = mm.range %a, %b, %a : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  // CHECK: mm.range %arg2, %arg2, %arg2 : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<5xf32>
  %1 = mm.range %f, %f, %f : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<5xf32>
  // CHECK: mm.constant_of_shape %arg3 {value = 0xFF800000 : f32} : tensor<3xi64> -> tensor<?x?x?xf32>
  %2 = mm.constant_of_shape %s {value = 0xFF800000 : f32} : tensor<3xi64> -> tensor<?x?x?xf32>
  // CHECK: mm.constant_of_shape %arg3 {value = 1 : i64} : tensor<3xi64> -> tensor<1x2x3xi64>
  %3 = mm.constant_of_shape %s {value = 1 : i64} : tensor<3xi64> -> tensor<1x2x3xi64>
  // CHECK: mm.shape %arg4 : tensor<?x4x?xf32> -> tensor<3xi64>
  %4 = mm.shape %x : tensor<?x4x?xf32> -> tensor<3xi64>
  // CHECK: mm.shape %arg4 {end = -1 : i64, start = 1 : i64} : tensor<?x4x?xf32> -> tensor<1xi64>
  %5 = mm.shape %x {start = 1, end = -1} : tensor<?x4x?xf32> -> tensor<1xi64>
  // Out-of-range start/end clamp (ONNX Shape-15).
  // CHECK: mm.shape %arg4 {end = 10 : i64, start = -10 : i64} : tensor<?x4x?xf32> -> tensor<3xi64>
  %6 = mm.shape %x {start = -10, end = 10} : tensor<?x4x?xf32> -> tensor<3xi64>
  // CHECK: mm.shape %arg4 {start = 3 : i64} : tensor<?x4x?xf32> -> tensor<0xi64>
  %7 = mm.shape %x {start = 3} : tensor<?x4x?xf32> -> tensor<0xi64>
  return
}
