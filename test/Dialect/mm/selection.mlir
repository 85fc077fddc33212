// Round trip of the ops in MMConformanceOps.td (argmax, argmin, topk, gather_elements, mod),
// with static and dynamic (`?`) dims and default-valued attributes set and omitted.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @arg_reduce
func.func @arg_reduce(%x: tensor<3x?x5xf32>, %i: tensor<4x6xi32>) {
  // CHECK: mm.argmax %arg0 {axis = 1 : i64} : tensor<3x?x5xf32> -> tensor<3x1x5xi64>
  %0 = mm.argmax %x {axis = 1 : i64} : tensor<3x?x5xf32> -> tensor<3x1x5xi64>
  // CHECK: mm.argmax %arg0 {axis = -1 : i64, keepdims = false, select_last_index = true} : tensor<3x?x5xf32> -> tensor<3x?xi64>
  %1 = mm.argmax %x {axis = -1 : i64, keepdims = false, select_last_index = true} : tensor<3x?x5xf32> -> tensor<3x?xi64>
  // CHECK: mm.argmin %arg1 : tensor<4x6xi32> -> tensor<1x6xi64>
  %2 = mm.argmin %i : tensor<4x6xi32> -> tensor<1x6xi64>
  return
}

// CHECK-LABEL: func.func @topk
func.func @topk(%x: tensor<2x?x7xf32>, %h: tensor<8xf16>, %k: tensor<1xi64>, %k0: tensor<i64>) {
  // CHECK: mm.topk %arg0, %arg2 : tensor<2x?x7xf32>, tensor<1xi64> -> tensor<2x?x3xf32>, tensor<2x?x3xi64>
  %0:2 = mm.topk %x, %k : tensor<2x?x7xf32>, tensor<1xi64> -> tensor<2x?x3xf32>, tensor<2x?x3xi64>
  // CHECK: mm.topk %arg0, %arg3 {axis = 1 : i64, largest = false, sorted = false} : tensor<2x?x7xf32>, tensor<i64> -> tensor<2x4x7xf32>, tensor<2x4x7xi64>
  %1:2 = mm.topk %x, %k0 {axis = 1 : i64, largest = false, sorted = false} : tensor<2x?x7xf32>, tensor<i64> -> tensor<2x4x7xf32>, tensor<2x4x7xi64>
  // k computed at run time: the axis dim of the results is dynamic.
  // CHECK: mm.topk %arg1, %arg2 : tensor<8xf16>, tensor<1xi64> -> tensor<?xf16>, tensor<?xi64>
  %2:2 = mm.topk %h, %k : tensor<8xf16>, tensor<1xi64> -> tensor<?xf16>, tensor<?xi64>
  return
}

// CHECK-LABEL: func.func @gather_elements
func.func @gather_elements(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>, %j: tensor<?x4xi32>) {
  // CHECK: mm.gather_elements %arg0, %arg1 {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  %0 = mm.gather_elements %d, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  // CHECK: mm.gather_elements %arg0, %arg2 : tensor<3x4xf32>, tensor<?x4xi32> -> tensor<?x4xf32>
  %1 = mm.gather_elements %d, %j : tensor<3x4xf32>, tensor<?x4xi32> -> tensor<?x4xf32>
  return
}

// CHECK-LABEL: func.func @mod
func.func @mod(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %f: tensor<?xf16>, %u: tensor<4xui8>) {
  // CHECK: mm.mod %arg0, %arg1 : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>
  %0 = mm.mod %a, %b : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>
  // CHECK: mm.mod %arg2, %arg2 {fmod = true} : tensor<?xf16>, tensor<?xf16> -> tensor<?xf16>
  %1 = mm.mod %f, %f {fmod = true} : tensor<?xf16>, tensor<?xf16> -> tensor<?xf16>
  // CHECK: mm.mod %arg3, %arg3 {fmod = true} : tensor<4xui8>, tensor<4xui8> -> tensor<4xui8>
  %2 = mm.mod %u, %u {fmod = true} : tensor<4xui8>, tensor<4xui8> -> tensor<4xui8>
  return
}
