// Round trip of the pooling, resize, scatter, nonzero and cumprod ops (MMConformanceOps.td),
// with static and dynamic (`?`) dims and default-valued attributes set and omitted.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @pools
func.func @pools(%x: tensor<?x3x5x6xf32>, %b: tensor<1x2x7xui8>, %v: tensor<1x1x3x4x5xf16>,
                 %d: tensor<1x1x?xf16>) {
  // CHECK: mm.avg_pool %arg0 {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<?x3x5x6xf32> -> tensor<?x3x3x4xf32>
  %0 = mm.avg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : tensor<?x3x5x6xf32> -> tensor<?x3x3x4xf32>
  // CHECK: mm.avg_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 1, 1>} : tensor<?x3x5x6xf32> -> tensor<?x3x5x6xf32>
  %1 = mm.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 1>} : tensor<?x3x5x6xf32> -> tensor<?x3x5x6xf32>
  // CHECK: mm.max_pool %arg1 {dilations = array<i64: 2>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x2x7xui8> -> tensor<1x2x5xui8>
  %2 = mm.max_pool %b {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 2>} : tensor<1x2x7xui8> -> tensor<1x2x5xui8>
  // CHECK: mm.max_pool_with_indices %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : tensor<?x3x5x6xf32> -> tensor<?x3x2x3xf32>, tensor<?x3x2x3xi64>
  %3:2 = mm.max_pool_with_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, storage_order = 1 : i64} : tensor<?x3x5x6xf32> -> tensor<?x3x2x3xf32>, tensor<?x3x2x3xi64>
  // CHECK: mm.lp_pool %arg2 {dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, p = 3 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : tensor<1x1x3x4x5xf16> -> tensor<1x1x2x3x4xf16>
  %4 = mm.lp_pool %v {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, p = 3 : i64} : tensor<1x1x3x4x5xf16> -> tensor<1x1x2x3x4xf16>
  // A dynamic spatial dim gives a dynamic result dim.
  // CHECK: mm.lp_pool %{{.*}} {dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x1x?xf16> -> tensor<1x1x?xf16>
  %5 = mm.lp_pool %d {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x?xf16> -> tensor<1x1x?xf16>
  return
}

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<?x3x4x6xf32>, %i: tensor<1x3xui8>) {
  // Only sizes and scales given: nearest, half_pixel, round_prefer_floor.
  // CHECK: mm.resize %arg1 {scales = array<f64: 1.000000e+00, 2.000000e+00>, sizes = array<i64: 1, 6>} : tensor<1x3xui8> -> tensor<1x6xui8>
  %0 = mm.resize %i {sizes = array<i64: 1, 6>, scales = array<f64: 1.0, 2.0>} : tensor<1x3xui8> -> tensor<1x6xui8>
  // sizes -1: floor(in * scale) at run time (the dynamic batch).
  // CHECK: mm.resize %arg0 {antialias = true, coordinate_transformation_mode = #mm.coordinate_mode<pytorch_half_pixel>, cubic_coeff_a = -5.000000e-01 : f64, exclude_outside = true, mode = #mm.resize_mode<cubic>, nearest_mode = #mm.nearest_mode<ceil>, scales = array<f64: 1.000000e+00, 1.000000e+00, 7.500000e-01, 5.000000e-01>, sizes = array<i64: -1, 3, 3, 3>} : tensor<?x3x4x6xf32> -> tensor<?x3x3x3xf32>
  %1 = mm.resize %x {mode = #mm.resize_mode<cubic>, coordinate_transformation_mode = #mm.coordinate_mode<pytorch_half_pixel>, nearest_mode = #mm.nearest_mode<ceil>, cubic_coeff_a = -0.5, exclude_outside = true, antialias = true, scales = array<f64: 1.0, 1.0, 0.75, 0.5>, sizes = array<i64: -1, 3, 3, 3>} : tensor<?x3x4x6xf32> -> tensor<?x3x3x3xf32>
  // CHECK: mm.resize %arg0 {coordinate_transformation_mode = #mm.coordinate_mode<tf_crop_and_resize>, extrapolation_value = -1.000000e+00 : f64, mode = #mm.resize_mode<linear>, roi = array<f64: 0.000000e+00, 0.000000e+00, 2.500000e-01, 1.000000e-01, 1.000000e+00, 1.000000e+00, 7.500000e-01, 1.200000e+00>, scales = array<f64: 1.000000e+00, 1.000000e+00, 7.500000e-01, 5.000000e-01>, sizes = array<i64: -1, 3, 3, 3>} : tensor<?x3x4x6xf32> -> tensor<?x3x3x3xf32>
  %2 = mm.resize %x {mode = #mm.resize_mode<linear>, coordinate_transformation_mode = #mm.coordinate_mode<tf_crop_and_resize>, extrapolation_value = -1.0, roi = array<f64: 0.0, 0.0, 0.25, 0.1, 1.0, 1.0, 0.75, 1.2>, scales = array<f64: 1.0, 1.0, 0.75, 0.5>, sizes = array<i64: -1, 3, 3, 3>} : tensor<?x3x4x6xf32> -> tensor<?x3x3x3xf32>
  // CHECK: coordinate_transformation_mode = #mm.coordinate_mode<half_pixel_symmetric>
  // CHECK-SAME: nearest_mode = #mm.nearest_mode<round_prefer_ceil>
  %3 = mm.resize %x {coordinate_transformation_mode = #mm.coordinate_mode<half_pixel_symmetric>, nearest_mode = #mm.nearest_mode<round_prefer_ceil>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: -1, 3, 8, 12>} : tensor<?x3x4x6xf32> -> tensor<?x3x8x12xf32>
  // CHECK: coordinate_transformation_mode = #mm.coordinate_mode<align_corners>
  // CHECK-SAME: nearest_mode = #mm.nearest_mode<floor>
  %4 = mm.resize %x {coordinate_transformation_mode = #mm.coordinate_mode<align_corners>, nearest_mode = #mm.nearest_mode<floor>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: -1, 3, 8, 12>} : tensor<?x3x4x6xf32> -> tensor<?x3x8x12xf32>
  // CHECK: coordinate_transformation_mode = #mm.coordinate_mode<asymmetric>
  %5 = mm.resize %x {coordinate_transformation_mode = #mm.coordinate_mode<asymmetric>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: -1, 3, 8, 12>} : tensor<?x3x4x6xf32> -> tensor<?x3x8x12xf32>
  // CHECK: coordinate_transformation_mode = #mm.coordinate_mode<tf_half_pixel_for_nn>
  %6 = mm.resize %x {coordinate_transformation_mode = #mm.coordinate_mode<tf_half_pixel_for_nn>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: -1, 3, 8, 12>} : tensor<?x3x4x6xf32> -> tensor<?x3x8x12xf32>
  return
}

// CHECK-LABEL: func.func @scatter
func.func @scatter(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>,
                   %ei: tensor<2x?xi32>, %eu: tensor<2x?xf32>, %b: tensor<?x3xi1>) {
  // CHECK: mm.scatter_nd %arg0, %arg1, %arg2 : tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  %0 = mm.scatter_nd %d, %i, %u : tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  // CHECK: mm.scatter_nd %arg0, %arg1, %arg2 {reduction = #mm.reduction<add>} : tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  %1 = mm.scatter_nd %d, %i, %u {reduction = #mm.reduction<add>} : tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  // CHECK: mm.scatter_elements %arg0, %arg3, %arg4 {axis = 1 : i64, reduction = #mm.reduction<max>} : tensor<4x3xf32>, tensor<2x?xi32>, tensor<2x?xf32> -> tensor<4x3xf32>
  %2 = mm.scatter_elements %d, %ei, %eu {axis = 1 : i64, reduction = #mm.reduction<max>} : tensor<4x3xf32>, tensor<2x?xi32>, tensor<2x?xf32> -> tensor<4x3xf32>
  // CHECK: mm.scatter_elements %arg0, %arg3, %arg4 {reduction = #mm.reduction<mul>} : tensor<4x3xf32>, tensor<2x?xi32>, tensor<2x?xf32> -> tensor<4x3xf32>
  %3 = mm.scatter_elements %d, %ei, %eu {reduction = #mm.reduction<mul>} : tensor<4x3xf32>, tensor<2x?xi32>, tensor<2x?xf32> -> tensor<4x3xf32>
  // CHECK: mm.scatter_elements %arg0, %arg3, %arg4 {axis = -1 : i64, reduction = #mm.reduction<min>} : tensor<4x3xf32>, tensor<2x?xi32>, tensor<2x?xf32> -> tensor<4x3xf32>
  %4 = mm.scatter_elements %d, %ei, %eu {axis = -1 : i64, reduction = #mm.reduction<min>} : tensor<4x3xf32>, tensor<2x?xi32>, tensor<2x?xf32> -> tensor<4x3xf32>
  // CHECK: mm.nonzero %arg5 : tensor<?x3xi1> -> tensor<2x?xi64>
  %5 = mm.nonzero %b : tensor<?x3xi1> -> tensor<2x?xi64>
  // CHECK: mm.nonzero %arg0 : tensor<4x3xf32> -> tensor<2x5xi64>
  %6 = mm.nonzero %d : tensor<4x3xf32> -> tensor<2x5xi64>
  // CHECK: mm.cumprod %arg0 {axis = 0 : i64, exclusive = true, reverse = true} : tensor<4x3xf32>
  %7 = mm.cumprod %d {axis = 0 : i64, exclusive = true, reverse = true} : tensor<4x3xf32>
  // CHECK: mm.cumprod %arg3 {axis = -1 : i64} : tensor<2x?xi32>
  %8 = mm.cumprod %ei {axis = -1 : i64} : tensor<2x?xi32>
  return
}
