// Round trip of the elementwise ops: custom form -> custom form, and through the generic form.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @unary_float
func.func @unary_float(%x: tensor<2x?xf32>) {
  // CHECK: mm.sqrt %arg0 : tensor<2x?xf32>
  %0 = mm.sqrt %x : tensor<2x?xf32>
  // CHECK: mm.reciprocal %arg0 : tensor<2x?xf32>
  %1 = mm.reciprocal %x : tensor<2x?xf32>
  // CHECK: mm.exp %arg0 : tensor<2x?xf32>
  %2 = mm.exp %x : tensor<2x?xf32>
  // CHECK: mm.log %arg0 : tensor<2x?xf32>
  %3 = mm.log %x : tensor<2x?xf32>
  // CHECK: mm.erf %arg0 : tensor<2x?xf32>
  %4 = mm.erf %x : tensor<2x?xf32>
  // CHECK: mm.tanh %arg0 : tensor<2x?xf32>
  %5 = mm.tanh %x : tensor<2x?xf32>
  // CHECK: mm.sigmoid %arg0 : tensor<2x?xf32>
  %6 = mm.sigmoid %x : tensor<2x?xf32>
  // CHECK: mm.sin %arg0 : tensor<2x?xf32>
  %7 = mm.sin %x : tensor<2x?xf32>
  // CHECK: mm.cos %arg0 : tensor<2x?xf32>
  %8 = mm.cos %x : tensor<2x?xf32>
  // CHECK: mm.floor %arg0 : tensor<2x?xf32>
  %9 = mm.floor %x : tensor<2x?xf32>
  // CHECK: mm.ceil %arg0 : tensor<2x?xf32>
  %10 = mm.ceil %x : tensor<2x?xf32>
  return
}

// Ops that accept any element type, on floats, integers and a 0-D tensor.
// CHECK-LABEL: func.func @unary_any
func.func @unary_any(%f: tensor<4xbf16>, %i: tensor<3x?xi64>, %s: tensor<f16>) {
  // CHECK: mm.neg %arg0 : tensor<4xbf16>
  %0 = mm.neg %f : tensor<4xbf16>
  // CHECK: mm.neg %arg1 : tensor<3x?xi64>
  %1 = mm.neg %i : tensor<3x?xi64>
  // CHECK: mm.abs %arg1 : tensor<3x?xi64>
  %2 = mm.abs %i : tensor<3x?xi64>
  // CHECK: mm.abs %arg2 : tensor<f16>
  %3 = mm.abs %s : tensor<f16>
  // CHECK: mm.relu %arg0 : tensor<4xbf16>
  %4 = mm.relu %f : tensor<4xbf16>
  // CHECK: mm.relu %arg1 : tensor<3x?xi64>
  %5 = mm.relu %i : tensor<3x?xi64>
  return
}

// CHECK-LABEL: func.func @logical
func.func @logical(%a: tensor<2x3xi1>, %b: tensor<3xi1>, %c: tensor<?x1xi1>) {
  // CHECK: mm.not %arg0 : tensor<2x3xi1>
  %0 = mm.not %a : tensor<2x3xi1>
  // CHECK: mm.and %arg0, %arg1 : tensor<2x3xi1>, tensor<3xi1> -> tensor<2x3xi1>
  %1 = mm.and %a, %b : tensor<2x3xi1>, tensor<3xi1> -> tensor<2x3xi1>
  // CHECK: mm.or %arg2, %arg1 : tensor<?x1xi1>, tensor<3xi1> -> tensor<?x3xi1>
  %2 = mm.or %c, %b : tensor<?x1xi1>, tensor<3xi1> -> tensor<?x3xi1>
  return
}

// Binary ops with ONNX broadcasting: equal shapes, trailing-dim broadcast, size-1
// broadcast in both directions, dynamic dims and 0-D operands.
// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<?x1x3xf32>,
                  %d: tensor<4x1xf32>, %s: tensor<f32>, %i: tensor<?xi32>) {
  // CHECK: mm.add %arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = mm.add %a, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: mm.add %arg5, %arg5 : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  %1 = mm.add %i, %i : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  // CHECK: mm.sub %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %2 = mm.sub %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: mm.mul %arg2, %arg0 : tensor<?x1x3xf32>, tensor<2x3xf32> -> tensor<?x2x3xf32>
  %3 = mm.mul %c, %a : tensor<?x1x3xf32>, tensor<2x3xf32> -> tensor<?x2x3xf32>
  // CHECK: mm.div %arg3, %arg1 : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %4 = mm.div %d, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: mm.div %arg5, %arg5 : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  %5 = mm.div %i, %i : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  // CHECK: mm.pow %arg0, %arg4 : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %6 = mm.pow %a, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  // CHECK: mm.max %arg4, %arg1 : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  %7 = mm.max %s, %b : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  // CHECK: mm.min %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %8 = mm.min %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // A result with a dynamic dim where the broadcast shape is static is accepted.
  // CHECK: mm.add %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %9 = mm.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  return
}

// CHECK-LABEL: func.func @compare
func.func @compare(%a: tensor<2x?xf32>, %b: tensor<1x?xf32>, %i: tensor<4xi64>, %s: tensor<i64>) {
  // CHECK: mm.equal %arg2, %arg3 : tensor<4xi64>, tensor<i64> -> tensor<4xi1>
  %0 = mm.equal %i, %s : tensor<4xi64>, tensor<i64> -> tensor<4xi1>
  // CHECK: mm.less %arg0, %arg1 : tensor<2x?xf32>, tensor<1x?xf32> -> tensor<2x?xi1>
  %1 = mm.less %a, %b : tensor<2x?xf32>, tensor<1x?xf32> -> tensor<2x?xi1>
  // CHECK: mm.less_or_equal %arg2, %arg2 : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
  %2 = mm.less_or_equal %i, %i : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
  // CHECK: mm.greater %arg1, %arg0 : tensor<1x?xf32>, tensor<2x?xf32> -> tensor<2x?xi1>
  %3 = mm.greater %b, %a : tensor<1x?xf32>, tensor<2x?xf32> -> tensor<2x?xi1>
  // CHECK: mm.greater_or_equal %arg3, %arg2 : tensor<i64>, tensor<4xi64> -> tensor<4xi1>
  %4 = mm.greater_or_equal %s, %i : tensor<i64>, tensor<4xi64> -> tensor<4xi1>
  // CHECK: mm.is_nan %arg0 : tensor<2x?xf32> -> tensor<2x?xi1>
  %5 = mm.is_nan %a : tensor<2x?xf32> -> tensor<2x?xi1>
  return
}

// CHECK-LABEL: func.func @where
func.func @where(%c: tensor<1x1x4x4xi1>, %x: tensor<f32>, %y: tensor<2x1x?x4xf32>) {
  // CHECK: mm.where %arg0, %arg1, %arg2 : tensor<1x1x4x4xi1>, tensor<f32>, tensor<2x1x?x4xf32> -> tensor<2x1x4x4xf32>
  %0 = mm.where %c, %x, %y : tensor<1x1x4x4xi1>, tensor<f32>, tensor<2x1x?x4xf32> -> tensor<2x1x4x4xf32>
  return
}

// CHECK-LABEL: func.func @cast
func.func @cast(%f: tensor<2x?xf32>, %i: tensor<3xi64>, %b: tensor<3xi1>) {
  // CHECK: mm.cast %arg0 : tensor<2x?xf32> -> tensor<2x?xf16>
  %0 = mm.cast %f : tensor<2x?xf32> -> tensor<2x?xf16>
  // CHECK: mm.cast %arg0 : tensor<2x?xf32> -> tensor<2x?xi32>
  %1 = mm.cast %f : tensor<2x?xf32> -> tensor<2x?xi32>
  // CHECK: mm.cast %arg1 : tensor<3xi64> -> tensor<3xi1>
  %2 = mm.cast %i : tensor<3xi64> -> tensor<3xi1>
  // CHECK: mm.cast %arg2 : tensor<3xi1> -> tensor<3xbf16>
  %3 = mm.cast %b : tensor<3xi1> -> tensor<3xbf16>
  return
}
