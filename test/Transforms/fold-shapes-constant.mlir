// -mm-fold-shapes: constant folding of the ops in exporters' shape chains, on constants
// and static shapes. Positive cases first, then near misses that must stay.
// RUN: mmc-opt %s -mm-fold-shapes -split-input-file | FileCheck %s

// Shape of a static tensor -> Gather -> Unsqueeze -> Concat: one constant.
// CHECK-LABEL: func.func @shape_gather_concat
// CHECK-NEXT: %[[C:.*]] = mm.constant dense<[17, -1, 4]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_gather_concat(%x: tensor<2x17x64xf32>) -> tensor<3xi64> {
  %s = mm.shape %x : tensor<2x17x64xf32> -> tensor<3xi64>
  %i = mm.constant dense<1> : tensor<i64>
  %g = mm.gather %s, %i {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %u = mm.unsqueeze %g {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %m = mm.constant dense<[-1, 4]> : tensor<2xi64>
  %c = mm.concat %u, %m {axis = 0 : i64} : tensor<1xi64>, tensor<2xi64> -> tensor<3xi64>
  return %c : tensor<3xi64>
}

// -----

// Shape-15 start/end, Slice, Squeeze, Cast to i32.
// CHECK-LABEL: func.func @shape_slice_squeeze_cast
// CHECK-DAG: %[[A:.*]] = mm.constant dense<[64, 16]> : tensor<2xi64>
// CHECK-DAG: %[[B:.*]] = mm.constant dense<16> : tensor<i32>
// CHECK: return %[[A]], %[[B]]
func.func @shape_slice_squeeze_cast(%x: tensor<1x64x16x16xf32>) -> (tensor<2xi64>, tensor<i32>) {
  %s = mm.shape %x {start = 1, end = -1} : tensor<1x64x16x16xf32> -> tensor<2xi64>
  %st = mm.constant dense<[1]> : tensor<1xi64>
  %en = mm.constant dense<[9223372036854775807]> : tensor<1xi64>
  %ax = mm.constant dense<[0]> : tensor<1xi64>
  %sp = mm.constant dense<[1]> : tensor<1xi64>
  %sl = mm.slice %s, %st, %en, %ax, %sp : tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1xi64>
  %q = mm.squeeze %sl {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
  %c = mm.cast %q : tensor<i64> -> tensor<i32>
  return %s, %c : tensor<2xi64>, tensor<i32>
}

// -----

// TorchScript's expand(-1) idiom on a static shape: Equal(shape, -1) -> Where.
// CHECK-LABEL: func.func @equal_where
// CHECK-NEXT: %[[S:.*]] = mm.constant dense<[3, 1, 5]> : tensor<3xi64>
// CHECK-NEXT: %[[E:.*]] = mm.expand %arg0, %[[S]] : tensor<1x1x5xf32>, tensor<3xi64> -> tensor<3x1x5xf32>
// CHECK-NEXT: return %[[E]]
func.func @equal_where(%x: tensor<1x1x5xf32>) -> tensor<3x1x5xf32> {
  %shape = mm.constant dense<[3, -1, 5]> : tensor<3xi64>
  %n = mm.shape %shape : tensor<3xi64> -> tensor<1xi64>
  %ones = mm.constant_of_shape %n {value = 1 : i64} : tensor<1xi64> -> tensor<?xi64>
  %m1 = mm.constant dense<-1> : tensor<i64>
  %neg = mm.mul %ones, %m1 : tensor<?xi64>, tensor<i64> -> tensor<?xi64>
  %eq = mm.equal %shape, %neg : tensor<3xi64>, tensor<?xi64> -> tensor<?xi1>
  %w = mm.where %eq, %ones, %shape : tensor<?xi1>, tensor<?xi64>, tensor<3xi64> -> tensor<?xi64>
  %e = mm.expand %x, %w : tensor<1x1x5xf32>, tensor<?xi64> -> tensor<3x1x5xf32>
  return %e : tensor<3x1x5xf32>
}

// -----

// Range over a static length, the ViT attention-mask chain: Range -> Unsqueeze ->
// GreaterOrEqual; integer Add/Sub/Div/Mul; ConstantOfShape.
// CHECK-LABEL: func.func @range_compare_arith
// CHECK-DAG: mm.constant dense<true> : tensor<1x4x1xi1>
// CHECK-DAG: mm.constant dense<[3, 4, 5, 6]> : tensor<4xi64>
// CHECK-DAG: mm.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK-DAG: mm.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NOT: mm.range
// CHECK-NOT: mm.greater_or_equal
// CHECK-NOT: mm.div
func.func @range_compare_arith(%x: tensor<4x8xf32>) -> (tensor<1x4x1xi1>, tensor<4xi64>, tensor<4xi64>, tensor<2x3xf32>) {
  %s = mm.shape %x : tensor<4x8xf32> -> tensor<2xi64>
  %i = mm.constant dense<0> : tensor<i64>
  %n = mm.gather %s, %i {axis = 0 : i64} : tensor<2xi64>, tensor<i64> -> tensor<i64>
  %one = mm.constant dense<1> : tensor<i64>
  %r = mm.range %i, %n, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %u = mm.unsqueeze %r {axes = array<i64: 0, 2>} : tensor<?xi64> -> tensor<1x?x1xi64>
  %ge = mm.greater_or_equal %u, %i : tensor<1x?x1xi64>, tensor<i64> -> tensor<1x4x1xi1>
  %three = mm.constant dense<3> : tensor<i64>
  %add = mm.add %r, %three : tensor<?xi64>, tensor<i64> -> tensor<4xi64>
  %two = mm.constant dense<2> : tensor<i64>
  %div = mm.div %r, %two : tensor<?xi64>, tensor<i64> -> tensor<4xi64>
  %dims = mm.constant dense<[2, 3]> : tensor<2xi64>
  %z = mm.constant_of_shape %dims {value = 0.0 : f32} : tensor<2xi64> -> tensor<?x?xf32>
  %zz = mm.cast %z : tensor<?x?xf32> -> tensor<?x?xf32>
  %zs = mm.reshape %zz, %dims : tensor<?x?xf32>, tensor<2xi64> -> tensor<2x3xf32>
  return %ge, %add, %div, %zs : tensor<1x4x1xi1>, tensor<4xi64>, tensor<4xi64>, tensor<2x3xf32>
}

// -----

// Float folding is exact IEEE arithmetic in the result type: 0.1 + 0.2 in f32 is the
// f32 nearest to 0.3; sqrt, reciprocal and where follow.
// CHECK-LABEL: func.func @float_arith
// CHECK-DAG: %[[S:.*]] = mm.constant dense<[3.000000e-01, 4.000000e+00, 2.500000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[W:.*]] = mm.constant dense<[3.000000e-01, 5.000000e-01, 5.000000e-01]> : tensor<3xf32>
// CHECK: return %[[S]], %[[W]]
func.func @float_arith() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = mm.constant dense<[0.1, 1.0, 0.25]> : tensor<3xf32>
  %b = mm.constant dense<[0.2, 3.0, 0.0]> : tensor<3xf32>
  %s = mm.add %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %m = mm.sqrt %s : tensor<3xf32>
  %r = mm.reciprocal %m : tensor<3xf32>
  %h = mm.constant dense<[0.3, 0.0, 0.5]> : tensor<3xf32>
  %sel = mm.constant dense<[true, false, true]> : tensor<3xi1>
  %w = mm.where %sel, %h, %r : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %s, %w : tensor<3xf32>, tensor<3xf32>
}

// -----

// Data movement on constants: Transpose, Tile, Gather on axis 1, Concat on axis 1,
// Flatten, Expand.
// CHECK-LABEL: func.func @movement
// CHECK-DAG: mm.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: mm.constant dense<{{\[}}[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]]> : tensor<2x6xi32>
// CHECK-DAG: mm.constant dense<{{\[}}[3, 1], [6, 4]]> : tensor<2x2xi32>
// CHECK-DAG: mm.constant dense<{{\[}}[1, 2, 3, 7], [4, 5, 6, 8]]> : tensor<2x4xi32>
// CHECK-DAG: mm.constant dense<{{\[}}[1, 2, 3, 4, 5, 6]]> : tensor<1x6xi32>
// CHECK-DAG: mm.constant dense<7> : tensor<2x1xi32>
func.func @movement() -> (tensor<3x2xi32>, tensor<2x6xi32>, tensor<2x2xi32>, tensor<2x4xi32>, tensor<1x6xi32>, tensor<2x1xi32>) {
  %a = mm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = mm.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi32>
  %reps = mm.constant dense<[1, 2]> : tensor<2xi64>
  %tl = mm.tile %a, %reps : tensor<2x3xi32>, tensor<2xi64> -> tensor<2x6xi32>
  %idx = mm.constant dense<[-1, 0]> : tensor<2xi64>
  %g = mm.gather %a, %idx {axis = 1 : i64} : tensor<2x3xi32>, tensor<2xi64> -> tensor<2x2xi32>
  %b = mm.constant dense<[[7], [8]]> : tensor<2x1xi32>
  %c = mm.concat %a, %b {axis = 1 : i64} : tensor<2x3xi32>, tensor<2x1xi32> -> tensor<2x4xi32>
  %f = mm.flatten %a {axis = 0 : i64} : tensor<2x3xi32> -> tensor<1x6xi32>
  %s = mm.constant dense<7> : tensor<1x1xi32>
  %shape = mm.constant dense<[2, 1]> : tensor<2xi64>
  %e = mm.expand %s, %shape : tensor<1x1xi32>, tensor<2xi64> -> tensor<2x1xi32>
  return %t, %tl, %g, %c, %f, %e : tensor<3x2xi32>, tensor<2x6xi32>, tensor<2x2xi32>, tensor<2x4xi32>, tensor<1x6xi32>, tensor<2x1xi32>
}

// -----

// Near misses: a result over the size limit (64x64 = 4096 > 1024 elements) keeps its
// op but gets a static type; a transcendental (exp) is not folded; integer division by
// zero and a float-to-int cast of NaN are left to the runtime; weights are never read.
// CHECK-LABEL: func.func @not_folded
// CHECK: mm.constant_of_shape %{{.*}} {value = 1.000000e+00 : f32} : tensor<2xi64> -> tensor<64x64xf32>
// CHECK: mm.reduce_sum
// CHECK: mm.exp
// CHECK: mm.div
// CHECK: mm.cast
// CHECK: mm.weight
// CHECK: mm.add %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
func.func @not_folded(%w0: tensor<4xf32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xi64>, tensor<i32>, tensor<4xf32>) {
  %dims = mm.constant dense<[64, 64]> : tensor<2xi64>
  %big = mm.constant_of_shape %dims {value = 1.0 : f32} : tensor<2xi64> -> tensor<?x?xf32>
  %sum = mm.reduce_sum %big {axes = array<i64>, keepdims = false} : tensor<?x?xf32> -> tensor<f32>
  %a = mm.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %e = mm.exp %a : tensor<2xf32>
  %n = mm.constant dense<[4, 5]> : tensor<2xi64>
  %z = mm.constant dense<[2, 0]> : tensor<2xi64>
  %d = mm.div %n, %z : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  %nan = mm.constant dense<0x7FC00000> : tensor<f32>
  %c = mm.cast %nan : tensor<f32> -> tensor<i32>
  %w = mm.weight "w" from "model.onnx" [0, 16] : tensor<4xf32>
  %s = mm.add %w, %w0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %sum, %e, %d, %c, %s : tensor<f32>, tensor<2xf32>, tensor<2xi64>, tensor<i32>, tensor<4xf32>
}

// -----

// The size limit is an option.
// RUN: mmc-opt %s -mm-fold-shapes="max-elements=3" -split-input-file | FileCheck %s --check-prefix=LIMIT
// LIMIT-LABEL: func.func @limit
// LIMIT: mm.constant dense<[0, 1, 2]> : tensor<3xi64>
// LIMIT: mm.range
// LIMIT-SAME: -> tensor<4xi64>
// CHECK-LABEL: func.func @limit
// CHECK-NOT: mm.range
func.func @limit() -> (tensor<3xi64>, tensor<4xi64>) {
  %s = mm.constant dense<0> : tensor<i64>
  %one = mm.constant dense<1> : tensor<i64>
  %three = mm.constant dense<3> : tensor<i64>
  %four = mm.constant dense<4> : tensor<i64>
  %a = mm.range %s, %three, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<3xi64>
  %b = mm.range %s, %four, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<4xi64>
  return %a, %b : tensor<3xi64>, tensor<4xi64>
}
