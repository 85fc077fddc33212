// -mm-fold-shapes: result types refined once shape operands are known, propagated to
// users; the function signature and returned values keep their types; ops that do
// nothing and dead ops go.
// RUN: mmc-opt %s -mm-fold-shapes -split-input-file | FileCheck %s

// Reshape, Expand, ConstantOfShape, Range, Slice and Tile get static dims from constant
// shape operands; users (transpose, matmul, softmax) follow, up to the returned value.
// CHECK-LABEL: func.func @refine
// CHECK: mm.reshape %arg0, %{{.*}} : tensor<6x4xf32>, tensor<3xi64> -> tensor<2x3x4xf32>
// CHECK: mm.transpose %{{.*}} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK: mm.matmul %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x3xf32> -> tensor<2x3x3xf32>
// CHECK: mm.softmax %{{.*}} : tensor<2x3x3xf32>
// CHECK: mm.reduce_max %{{.*}} : tensor<2x3x3xf32> -> tensor<?x?xf32>
// CHECK: mm.expand %arg1, %{{.*}} : tensor<3x1xf32>, tensor<2xi64> -> tensor<3x5xf32>
// CHECK: mm.slice %{{.*}} -> tensor<3x2xf32>
// CHECK: mm.tile %{{.*}} -> tensor<6x2xf32>
// CHECK: mm.reduce_sum %{{.*}} : tensor<6x2xf32> -> tensor<f32>
func.func @refine(%x: tensor<6x4xf32>, %y: tensor<3x1xf32>) -> (tensor<?x?xf32>, tensor<f32>) {
  %s = mm.constant dense<[2, -1, 4]> : tensor<3xi64>
  %r = mm.reshape %x, %s : tensor<6x4xf32>, tensor<3xi64> -> tensor<?x?x?xf32>
  %t = mm.transpose %r {perm = array<i64: 0, 2, 1>} : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %m = mm.matmul %r, %t : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %sm = mm.softmax %m : tensor<?x?x?xf32>
  %smax = mm.reduce_max %sm {axes = array<i64: 0>, keepdims = false} : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %es = mm.constant dense<[3, 5]> : tensor<2xi64>
  %e = mm.expand %y, %es : tensor<3x1xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %st = mm.constant dense<[1]> : tensor<1xi64>
  %en = mm.constant dense<[-1]> : tensor<1xi64>
  %ax = mm.constant dense<[1]> : tensor<1xi64>
  %sp = mm.constant dense<[2]> : tensor<1xi64>
  %sl = mm.slice %e, %st, %en, %ax, %sp : tensor<?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?xf32>
  %reps = mm.constant dense<[2, 1]> : tensor<2xi64>
  %tl = mm.tile %sl, %reps : tensor<?x?xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %sum = mm.reduce_sum %tl {axes = array<i64>, keepdims = false} : tensor<?x?xf32> -> tensor<f32>
  return %smax, %sum : tensor<?x?xf32>, tensor<f32>
}

// -----

// Values returned by the function (and everything tied to them by same-type ops) keep
// their declared types: the signature is not changed, nothing is inserted.
// CHECK-LABEL: func.func @pinned(%arg0: tensor<6xf32>) -> tensor<?x?xf32>
// CHECK: %[[R:.*]] = mm.reshape %arg0, %{{.*}} : tensor<6xf32>, tensor<2xi64> -> tensor<?x?xf32>
// CHECK: %[[N:.*]] = mm.neg %[[R]] : tensor<?x?xf32>
// CHECK: return %[[N]] : tensor<?x?xf32>
func.func @pinned(%x: tensor<6xf32>) -> tensor<?x?xf32> {
  %s = mm.constant dense<[2, 3]> : tensor<2xi64>
  %r = mm.reshape %x, %s : tensor<6xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %n = mm.neg %r : tensor<?x?xf32>
  return %n : tensor<?x?xf32>
}

// -----

// Ops that do nothing: a reshape / expand to the input's own dims, a cast to the same
// type, a one-input concat, an identity transpose, x * 1, x / 1, x - 0, and-with-true,
// a where with a constant condition. A reshape of a reshape reads the first input.
// CHECK-LABEL: func.func @identities
// CHECK-NEXT: %[[S:.*]] = mm.constant dense<[4, 3]> : tensor<2xi64>
// CHECK-NEXT: %[[R:.*]] = mm.reshape %arg0, %[[S]] : tensor<2x6xf32>, tensor<2xi64> -> tensor<4x3xf32>
// CHECK-NEXT: return %arg0, %[[R]], %arg1 : tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x6xi1>
func.func @identities(%x: tensor<2x6xf32>, %m: tensor<2x6xi1>) -> (tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x6xi1>) {
  %s = mm.constant dense<[2, 6]> : tensor<2xi64>
  %a = mm.reshape %x, %s : tensor<2x6xf32>, tensor<2xi64> -> tensor<2x6xf32>
  %b = mm.expand %a, %s : tensor<2x6xf32>, tensor<2xi64> -> tensor<2x6xf32>
  %c = mm.cast %b : tensor<2x6xf32> -> tensor<2x6xf32>
  %d = mm.concat %c {axis = 0 : i64} : tensor<2x6xf32> -> tensor<2x6xf32>
  %e = mm.transpose %d {perm = array<i64: 0, 1>} : tensor<2x6xf32> -> tensor<2x6xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %f = mm.mul %e, %one : tensor<2x6xf32>, tensor<f32> -> tensor<2x6xf32>
  %g = mm.div %f, %one : tensor<2x6xf32>, tensor<f32> -> tensor<2x6xf32>
  %zero = mm.constant dense<0.0> : tensor<f32>
  %h = mm.sub %g, %zero : tensor<2x6xf32>, tensor<f32> -> tensor<2x6xf32>
  %true = mm.constant dense<true> : tensor<2x6xi1>
  %i = mm.where %true, %h, %x : tensor<2x6xi1>, tensor<2x6xf32>, tensor<2x6xf32> -> tensor<2x6xf32>
  %flat = mm.constant dense<[12]> : tensor<1xi64>
  %j = mm.reshape %i, %flat : tensor<2x6xf32>, tensor<1xi64> -> tensor<12xf32>
  %s2 = mm.constant dense<[4, 3]> : tensor<2xi64>
  %k = mm.reshape %j, %s2 : tensor<12xf32>, tensor<2xi64> -> tensor<4x3xf32>
  %l = mm.and %true, %m : tensor<2x6xi1>, tensor<2x6xi1> -> tensor<2x6xi1>
  return %i, %k, %l : tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x6xi1>
}

// -----

// Near miss: x + 0.0 is not x for x = -0.0, so a float add of zero stays (an integer one
// goes); a where whose condition is not constant stays.
// CHECK-LABEL: func.func @not_identities
// CHECK: mm.add %arg0, %{{.*}} : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK-NOT: mm.add
// CHECK: mm.where %arg2
func.func @not_identities(%x: tensor<4xf32>, %n: tensor<4xi64>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xf32>) {
  %zf = mm.constant dense<0.0> : tensor<f32>
  %a = mm.add %x, %zf : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %zi = mm.constant dense<0> : tensor<i64>
  %b = mm.add %n, %zi : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
  %w = mm.where %c, %x, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %a, %b, %w : tensor<4xf32>, tensor<4xi64>, tensor<4xf32>
}

// -----

// Dead code goes (mm ops are Pure), including weights nobody reads; identical
// computations are merged.
// CHECK-LABEL: func.func @dead_and_common
// CHECK-NEXT: %[[A:.*]] = mm.sigmoid %arg0
// CHECK-NEXT: %[[B:.*]] = mm.mul %[[A]], %[[A]]
// CHECK-NEXT: return %[[B]]
func.func @dead_and_common(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = mm.weight "unused" from "model.onnx" [0, 16] : tensor<4xf32>
  %dead = mm.exp %x : tensor<4xf32>
  %a = mm.sigmoid %x : tensor<4xf32>
  %b = mm.sigmoid %x : tensor<4xf32>
  %c = mm.mul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// dynamo's K^T: [B, H, T, D] -> reshape [B*H, T, D] -> transpose -> reshape [B, H, D, T]
// is one transpose of the input; the shape computations go with the reshapes.
// CHECK-LABEL: func.func @reshape_transpose_reshape
// CHECK-NEXT: %[[T:.*]] = mm.transpose %arg0 {perm = array<i64: 0, 1, 3, 2>} : tensor<?x4x?x16xf32> -> tensor<?x4x16x?xf32>
// CHECK-NEXT: return %[[T]]
func.func @reshape_transpose_reshape(%k: tensor<?x4x?x16xf32> {mm.dims = ["batch", "", "total", ""]}) -> tensor<?x4x16x?xf32> {
  %s = mm.shape %k : tensor<?x4x?x16xf32> -> tensor<4xi64>
  %two = mm.constant dense<[2]> : tensor<1xi64>
  %three = mm.constant dense<[3]> : tensor<1xi64>
  %zero = mm.constant dense<[0]> : tensor<1xi64>
  %one = mm.constant dense<[1]> : tensor<1xi64>
  %t = mm.slice %s, %two, %three, %zero, %one : tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1xi64>
  %b = mm.slice %s, %zero, %one, %zero, %one : tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1xi64>
  %m1 = mm.constant dense<[-1]> : tensor<1xi64>
  %d = mm.constant dense<[16]> : tensor<1xi64>
  %h = mm.constant dense<[4]> : tensor<1xi64>
  %s1 = mm.concat %m1, %t, %d {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<3xi64>
  %r1 = mm.reshape %k, %s1 : tensor<?x4x?x16xf32>, tensor<3xi64> -> tensor<?x?x?xf32>
  %tr = mm.transpose %r1 {perm = array<i64: 0, 2, 1>} : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %s2 = mm.concat %b, %h, %d, %m1 {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xi64>
  %r2 = mm.reshape %tr, %s2 : tensor<?x?x?xf32>, tensor<4xi64> -> tensor<?x4x16x?xf32>
  return %r2 : tensor<?x4x16x?xf32>
}

// -----

// Near miss: the last reshape does not split the merged dims back in order
// ([B*H, D, T] -> [B, D, H, T] is not a transpose of [B, H, T, D]): all stay.
// CHECK-LABEL: func.func @reshape_transpose_reshape_mixed
// CHECK: mm.reshape
// CHECK: mm.transpose
// CHECK: mm.reshape
func.func @reshape_transpose_reshape_mixed(%k: tensor<2x4x8x16xf32>) -> tensor<2x16x4x8xf32> {
  %s1 = mm.constant dense<[8, 8, 16]> : tensor<3xi64>
  %r1 = mm.reshape %k, %s1 : tensor<2x4x8x16xf32>, tensor<3xi64> -> tensor<8x8x16xf32>
  %tr = mm.transpose %r1 {perm = array<i64: 0, 2, 1>} : tensor<8x8x16xf32> -> tensor<8x16x8xf32>
  %s2 = mm.constant dense<[2, 16, 4, 8]> : tensor<4xi64>
  %r2 = mm.reshape %tr, %s2 : tensor<8x16x8xf32>, tensor<4xi64> -> tensor<2x16x4x8xf32>
  return %r2 : tensor<2x16x4x8xf32>
}

// -----

// transpose(transpose(x)) is one transpose; nested 1-D concats of shape pieces are
// flattened and neighbouring constants merged.
// CHECK-LABEL: func.func @compose
// CHECK-DAG:  %[[C:.*]] = mm.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK-DAG:  %[[T:.*]] = mm.transpose %arg0 {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-DAG:  %[[S:.*]] = mm.concat %arg1, %[[C]] {axis = 0 : i64} : tensor<1xi64>, tensor<3xi64> -> tensor<4xi64>
// CHECK:      return %[[T]], %[[S]]
func.func @compose(%x: tensor<2x3x4xf32>, %n: tensor<1xi64>) -> (tensor<3x4x2xf32>, tensor<4xi64>) {
  %a = mm.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %b = mm.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  %c1 = mm.constant dense<[1]> : tensor<1xi64>
  %c23 = mm.constant dense<[2, 3]> : tensor<2xi64>
  %inner = mm.concat %n, %c1 {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  %outer = mm.concat %inner, %c23 {axis = 0 : i64} : tensor<2xi64>, tensor<2xi64> -> tensor<4xi64>
  return %b, %outer : tensor<3x4x2xf32>, tensor<4xi64>
}

// -----

// unsqueeze(squeeze(x)) and squeeze(unsqueeze(x)) on the same axes are x; on other axes
// (near miss) they stay.
// CHECK-LABEL: func.func @squeeze_pairs
// CHECK-NEXT: %[[U:.*]] = mm.unsqueeze %arg2 {axes = array<i64: 0>} : tensor<1x4x1xf32> -> tensor<1x1x4x1xf32>
// CHECK-NEXT: %[[S:.*]] = mm.squeeze %[[U]] {axes = array<i64: 3>} : tensor<1x1x4x1xf32> -> tensor<1x1x4xf32>
// CHECK-NEXT: return %arg0, %arg1, %[[S]]
func.func @squeeze_pairs(%d: tensor<1xi64>, %x: tensor<4xf32>, %y: tensor<1x4x1xf32>) -> (tensor<1xi64>, tensor<4xf32>, tensor<1x1x4xf32>) {
  %s = mm.squeeze %d {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
  %u = mm.unsqueeze %s {axes = array<i64: -1>} : tensor<i64> -> tensor<1xi64>
  %a = mm.unsqueeze %x {axes = array<i64: 0>} : tensor<4xf32> -> tensor<1x4xf32>
  %b = mm.squeeze %a {axes = array<i64: 0>} : tensor<1x4xf32> -> tensor<4xf32>
  %c = mm.unsqueeze %y {axes = array<i64: 0>} : tensor<1x4x1xf32> -> tensor<1x1x4x1xf32>
  %e = mm.squeeze %c {axes = array<i64: 3>} : tensor<1x1x4x1xf32> -> tensor<1x1x4xf32>
  return %u, %b, %e : tensor<1xi64>, tensor<4xf32>, tensor<1x1x4xf32>
}
