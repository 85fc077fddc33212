// mm.pad (added for ONNX Pad by the importer): custom form round trip.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @pad
func.func @pad(%x: tensor<3x3xf32>, %v: tensor<f32>, %d: tensor<?x4xi64>) -> tensor<5x4xf32> {
  // CHECK: mm.pad %{{.*}}, %{{.*}} {pads = array<i64: 0, 1, 2, 0>} : tensor<3x3xf32>, tensor<f32> -> tensor<5x4xf32>
  %0 = mm.pad %x, %v {pads = array<i64: 0, 1, 2, 0>} : tensor<3x3xf32>, tensor<f32> -> tensor<5x4xf32>
  // CHECK: mm.pad %{{.*}} {mode = #mm.pad_mode<reflect>, pads = array<i64: 1, 1, 1, 1>} : tensor<3x3xf32> -> tensor<5x5xf32>
  %1 = mm.pad %x {mode = #mm.pad_mode<reflect>, pads = array<i64: 1, 1, 1, 1>} : tensor<3x3xf32> -> tensor<5x5xf32>
  // Negative pads crop; dynamic dims stay dynamic.
  // CHECK: mm.pad %{{.*}} {mode = #mm.pad_mode<edge>, pads = array<i64: 0, -1, 2, 0>} : tensor<?x4xi64> -> tensor<?x3xi64>
  %2 = mm.pad %d {mode = #mm.pad_mode<edge>, pads = array<i64: 0, -1, 2, 0>} : tensor<?x4xi64> -> tensor<?x3xi64>
  // CHECK: mm.pad %{{.*}} {mode = #mm.pad_mode<wrap>, pads = array<i64: 0, 0, 0, 3>} : tensor<3x3xf32> -> tensor<3x6xf32>
  %3 = mm.pad %x {mode = #mm.pad_mode<wrap>, pads = array<i64: 0, 0, 0, 3>} : tensor<3x3xf32> -> tensor<3x6xf32>
  return %0 : tensor<5x4xf32>
}
