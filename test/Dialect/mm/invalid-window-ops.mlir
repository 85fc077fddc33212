// Verifier errors of the pooling, resize, scatter, nonzero and cumprod ops
// (dialects/lib/MMConformanceOps.cpp).
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @pool_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.avg_pool' op input must have rank >= 3 ([N, C, spatial...]), got 2}}
  %0 = mm.avg_pool %x {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>, dilations = array<i64>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @pool_counts(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mm.max_pool' op needs 2 kernel_shape, strides and dilations entries and 4 pads for 2 spatial dims}}
  %0 = mm.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @pool_ranges(%x: tensor<1x1x4xf32>) {
  // expected-error @+1 {{'mm.lp_pool' op kernel_shape, strides and dilations must be >= 1 and pads >= 0}}
  %0 = mm.lp_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 0>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x4xf32> -> tensor<1x1x3xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x1x2xf32>) {
  // expected-error @+1 {{'mm.avg_pool' op the window of spatial dim 0 is larger than the padded input (2)}}
  %0 = mm.avg_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x2xf32> -> tensor<1x1x1xf32>
  return
}

// -----

func.func @pool_result(%x: tensor<1x1x5xf32>) {
  // expected-error @+1 {{'mm.avg_pool' op result dim 2 is 3, expected 4}}
  %0 = mm.avg_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x5xf32> -> tensor<1x1x3xf32>
  return
}

// -----

func.func @lp_p(%x: tensor<1x1x4xf32>) {
  // expected-error @+1 {{'mm.lp_pool' op p must be >= 1, got 0}}
  %0 = mm.lp_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, p = 0 : i64} : tensor<1x1x4xf32> -> tensor<1x1x3xf32>
  return
}

// -----

func.func @max_bool(%x: tensor<1x1x4xi1>) {
  // expected-error @+1 {{'mm.max_pool' op input must be numbers, not i1}}
  %0 = mm.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x4xi1> -> tensor<1x1x3xi1>
  return
}

// -----

func.func @max_indices_bool(%x: tensor<1x1x4xi1>) {
  // expected-error @+1 {{'mm.max_pool_with_indices' op input must be numbers, not i1}}
  %0:2 = mm.max_pool_with_indices %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x4xi1> -> tensor<1x1x3xi1>, tensor<1x1x3xi64>
  return
}

// -----

func.func @storage_order(%x: tensor<1x1x4xf32>) {
  // expected-error @+1 {{'mm.max_pool_with_indices' op storage_order must be 0 or 1, got 2}}
  %0:2 = mm.max_pool_with_indices %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, storage_order = 2 : i64} : tensor<1x1x4xf32> -> tensor<1x1x3xf32>, tensor<1x1x3xi64>
  return
}

// -----

func.func @indices_shape(%x: tensor<1x1x4xf32>) {
  // expected-error @+1 {{'mm.max_pool_with_indices' op indices dim 2 is 2, expected 3}}
  %0:2 = mm.max_pool_with_indices %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x4xf32> -> tensor<1x1x3xf32>, tensor<1x1x2xi64>
  return
}

// -----

func.func @cumprod_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'mm.cumprod' op input must be numbers, not i1}}
  %0 = mm.cumprod %x {axis = 0 : i64} : tensor<3xi1>
  return
}

// -----

func.func @cumprod_axis(%x: tensor<3xf32>) {
  // expected-error @+1 {{'mm.cumprod' op axis 1 out of range for rank 1}}
  %0 = mm.cumprod %x {axis = 1 : i64} : tensor<3xf32>
  return
}

// -----

func.func @resize_counts(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.resize' op sizes and scales need one entry per dim (2), got 1 and 2}}
  %0 = mm.resize %x {sizes = array<i64: 2>, scales = array<f64: 1.0, 1.0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @resize_scale(%x: tensor<2xf32>) {
  // expected-error @+1 {{'mm.resize' op scales must be finite and > 0}}
  %0 = mm.resize %x {sizes = array<i64: 2>, scales = array<f64: 0.0>} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @resize_size(%x: tensor<2xf32>) {
  // expected-error @+1 {{'mm.resize' op sizes must be >= 0, or -1 for floor(in * scale)}}
  %0 = mm.resize %x {sizes = array<i64: -2>, scales = array<f64: 1.0>} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @resize_roi_missing(%x: tensor<2xf32>) {
  // expected-error @+1 {{'mm.resize' op roi is required with tf_crop_and_resize and allowed only there}}
  %0 = mm.resize %x {coordinate_transformation_mode = #mm.coordinate_mode<tf_crop_and_resize>, sizes = array<i64: 2>, scales = array<f64: 1.0>} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @resize_roi_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{'mm.resize' op roi needs 2 entries (starts, ends), got 4}}
  %0 = mm.resize %x {coordinate_transformation_mode = #mm.coordinate_mode<tf_crop_and_resize>, roi = array<f64: 0.0, 0.0, 1.0, 1.0>, sizes = array<i64: 2>, scales = array<f64: 1.0>} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @resize_int_linear(%x: tensor<2xi32>) {
  // expected-error @+1 {{'mm.resize' op linear and cubic modes need a float element type}}
  %0 = mm.resize %x {mode = #mm.resize_mode<linear>, sizes = array<i64: 4>, scales = array<f64: 2.0>} : tensor<2xi32> -> tensor<4xi32>
  return
}

// -----

func.func @resize_cubic_a(%x: tensor<2xf32>) {
  // expected-error @+1 {{'mm.resize' op cubic_coeff_a must be finite}}
  %0 = mm.resize %x {mode = #mm.resize_mode<cubic>, cubic_coeff_a = 0x7FF0000000000000 : f64, sizes = array<i64: 4>, scales = array<f64: 2.0>} : tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @resize_result(%x: tensor<5xf32>) {
  // floor(5 * 1.5) = 7
  // expected-error @+1 {{'mm.resize' op result dim 0 is 8, expected 7}}
  %0 = mm.resize %x {sizes = array<i64: -1>, scales = array<f64: 1.5>} : tensor<5xf32> -> tensor<8xf32>
  return
}

// -----

func.func @scatter_nd_bool(%d: tensor<3xi1>, %i: tensor<1x1xi64>, %u: tensor<1xi1>) {
  // expected-error @+1 {{'mm.scatter_nd' op reductions need a number element type, not i1}}
  %0 = mm.scatter_nd %d, %i, %u {reduction = #mm.reduction<add>} : tensor<3xi1>, tensor<1x1xi64>, tensor<1xi1> -> tensor<3xi1>
  return
}

// -----

func.func @scatter_nd_indices_rank(%d: tensor<3xf32>, %i: tensor<i64>, %u: tensor<1xf32>) {
  // expected-error @+1 {{'mm.scatter_nd' op indices must have rank >= 1}}
  %0 = mm.scatter_nd %d, %i, %u : tensor<3xf32>, tensor<i64>, tensor<1xf32> -> tensor<3xf32>
  return
}

// -----

func.func @scatter_nd_k(%d: tensor<3xf32>, %i: tensor<1x2xi64>, %u: tensor<1xf32>) {
  // expected-error @+1 {{'mm.scatter_nd' op the last dim of indices (2) must be in [1, 1] (the data's rank)}}
  %0 = mm.scatter_nd %d, %i, %u : tensor<3xf32>, tensor<1x2xi64>, tensor<1xf32> -> tensor<3xf32>
  return
}

// -----

func.func @scatter_nd_updates(%d: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.scatter_nd' op updates dim 1 is 3, expected 4}}
  %0 = mm.scatter_nd %d, %i, %u : tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_elements_bool(%d: tensor<3xi1>, %i: tensor<1xi64>, %u: tensor<1xi1>) {
  // expected-error @+1 {{'mm.scatter_elements' op reductions need a number element type, not i1}}
  %0 = mm.scatter_elements %d, %i, %u {reduction = #mm.reduction<min>} : tensor<3xi1>, tensor<1xi64>, tensor<1xi1> -> tensor<3xi1>
  return
}

// -----

func.func @scatter_elements_scalar(%d: tensor<f32>, %i: tensor<i64>, %u: tensor<f32>) {
  // expected-error @+1 {{'mm.scatter_elements' op data must have rank >= 1}}
  %0 = mm.scatter_elements %d, %i, %u : tensor<f32>, tensor<i64>, tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @scatter_elements_rank(%d: tensor<3x3xf32>, %i: tensor<3xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{'mm.scatter_elements' op indices rank 1 differs from data rank 2}}
  %0 = mm.scatter_elements %d, %i, %u : tensor<3x3xf32>, tensor<3xi64>, tensor<3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @scatter_elements_wide(%d: tensor<3x3xf32>, %i: tensor<1x4xi64>, %u: tensor<1x4xf32>) {
  // expected-error @+1 {{'mm.scatter_elements' op indices dim 1 (4) is larger than the data's (3)}}
  %0 = mm.scatter_elements %d, %i, %u : tensor<3x3xf32>, tensor<1x4xi64>, tensor<1x4xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @scatter_elements_axis(%d: tensor<3x3xf32>, %i: tensor<1x3xi64>, %u: tensor<1x3xf32>) {
  // expected-error @+1 {{'mm.scatter_elements' op axis 2 out of range for rank 2}}
  %0 = mm.scatter_elements %d, %i, %u {axis = 2 : i64} : tensor<3x3xf32>, tensor<1x3xi64>, tensor<1x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @nonzero_rows(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.nonzero' op result dim 0 is 3, expected 2}}
  %0 = mm.nonzero %x : tensor<2x3xf32> -> tensor<3x?xi64>
  return
}
