// Verifier errors of the contraction and structure ops (dialects/lib/MMOps.cpp) and the
// ODS traits they use.
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mm.matmul' op operands must have rank >= 1}}
  %0 = mm.matmul %a, %b : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x8xf32>, %b: tensor<7x4xf32>) {
  // expected-error @+1 {{contraction dims differ: 8 vs 7}}
  %0 = mm.matmul %a, %b : tensor<2x8xf32>, tensor<7x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+1 {{batch dims are not broadcast-compatible}}
  %0 = mm.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_result_dim(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{result dim 1 is 15 but should be 16}}
  %0 = mm.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x15xf32>
  return
}

// -----

// A rank-1 lhs is promoted and its added dim removed from the result.
func.func @matmul_vector_result_rank(%a: tensor<8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{result rank 2 does not match expected rank 1}}
  %0 = mm.matmul %a, %b : tensor<8xf32>, tensor<8x16xf32> -> tensor<1x16xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = mm.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf16> -> tensor<4x16xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{input and weight must be 4-D (NCHW, MCkHkW)}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<64x8x8xf32>
  return
}

// -----

func.func @conv_attr_lengths(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{needs 2 strides, 2 dilations and 4 pads}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_stride(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{strides and dilations must be >= 1}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_dilation(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{strides and dilations must be >= 1}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: -1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_pads(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{pads must be >= 0}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_group(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{group must be >= 1}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_group_output_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{output channels 6 are not a multiple of group 4}}
  %0 = mm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4}
      : tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x64x64xf32>, %w: tensor<64x2x8x8xf32>) {
  // expected-error @+1 {{input channels 3 != weight channels 2 x group 1}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x2x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_bias_type(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>, %b: tensor<64xf16>) {
  // expected-error @+1 {{bias element type 'f16' differs from the input's 'f32'}}
  %0 = mm.conv %x, %w, %b {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32>, tensor<64xf16> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{bias must be 1-D with one value per output channel}}
  %0 = mm.conv %x, %w, %b {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32>, tensor<32xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x3x4x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{kernel larger than padded input along spatial dim 0}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x4x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x1x8xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // (64 + 0 - 8) / 8 + 1 = 8.
  // expected-error @+1 {{result dim 3 is 9 but should be 8}}
  %0 = mm.conv %x, %w {strides = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x9xf32>
  return
}

// -----

func.func @conv_missing_strides(%x: tensor<1x3x64x64xf32>, %w: tensor<64x3x8x8xf32>) {
  // expected-error @+1 {{requires attribute 'strides'}}
  %0 = mm.conv %x, %w {pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x64x64xf32>, tensor<64x3x8x8xf32> -> tensor<1x64x8x8xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mm.reduce_mean' op axis 3 out of range for rank 3}}
  %0 = mm.reduce_mean %x {axes = array<i64: 3>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @reduce_axis_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mm.reduce_sum' op axis -1 repeated}}
  %0 = mm.reduce_sum %x {axes = array<i64: 2, -1>} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  return
}

// -----

func.func @reduce_keepdims_result(%x: tensor<2x3x4xf32>) {
  // keepdims = false drops the reduced dim.
  // expected-error @+1 {{result rank 3 does not match expected rank 2}}
  %0 = mm.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return
}

// -----

func.func @reduce_element_type(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same element type}}
  %0 = mm.reduce_max %x {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x1x4xf16>
  return
}

// -----

func.func @reduce_axes_type(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{attribute 'axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = mm.reduce_max %x {axes = [1]} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'mm.softmax' op axis 2 out of range for rank 2}}
  %0 = mm.softmax %x {axis = 2} : tensor<2x8xf32>
  return
}

// -----

func.func @gather_scalar_data(%d: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{data must have rank >= 1}}
  %0 = mm.gather %d, %i : tensor<f32>, tensor<2xi64> -> tensor<2xf32>
  return
}

// -----

func.func @gather_axis(%d: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'mm.gather' op axis -3 out of range for rank 2}}
  %0 = mm.gather %d, %i {axis = -3} : tensor<4x8xf32>, tensor<2xi64> -> tensor<2x8xf32>
  return
}

// -----

func.func @gather_result(%d: tensor<320x64xf32>, %i: tensor<1x5xi64>) {
  // expected-error @+1 {{result rank 2 does not match expected rank 3}}
  %0 = mm.gather %d, %i : tensor<320x64xf32>, tensor<1x5xi64> -> tensor<5x64xf32>
  return
}

// -----

func.func @gather_float_indices(%d: tensor<320x64xf32>, %i: tensor<5xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of signless integer values, but got 'tensor<5xf32>'}}
  %0 = mm.gather %d, %i : tensor<320x64xf32>, tensor<5xf32> -> tensor<5x64xf32>
  return
}

// -----

func.func @gather_nd_scalar(%d: tensor<2x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{data and indices must have rank >= 1}}
  %0 = mm.gather_nd %d, %i : tensor<2x3xf32>, tensor<i64> -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_nd_batch_dims(%d: tensor<2x3xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{batch_dims 2 must be less than both ranks}}
  %0 = mm.gather_nd %d, %i {batch_dims = 2} : tensor<2x3xf32>, tensor<2x1xi64> -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_batch_dim_differs(%d: tensor<2x3xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{batch dim 0 differs: data 2 vs indices 3}}
  %0 = mm.gather_nd %d, %i {batch_dims = 1} : tensor<2x3xf32>, tensor<3x1xi64> -> tensor<3xf32>
  return
}

// -----

func.func @gather_nd_dynamic_index_width(%d: tensor<2x3xf32>, %i: tensor<4x?xi64>) {
  // expected-error @+1 {{the last dim of indices must be static}}
  %0 = mm.gather_nd %d, %i : tensor<2x3xf32>, tensor<4x?xi64> -> tensor<4xf32>
  return
}

// -----

func.func @gather_nd_index_too_wide(%d: tensor<2x3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{indices address 3 dims but data has only 2 after the batch dims}}
  %0 = mm.gather_nd %d, %i {batch_dims = 1} : tensor<2x3x4xf32>, tensor<2x3xi64> -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_result(%d: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) {
  // expected-error @+1 {{result dim 1 is 3 but should be 4}}
  %0 = mm.gather_nd %d, %i : tensor<2x3x4xf32>, tensor<5x2xi64> -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = "mm.concat"() {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<3xi64>) {
  // expected-error @+1 {{'mm.concat' op axis 1 out of range for rank 1}}
  %0 = mm.concat %a, %a {axis = 1} : tensor<3xi64>, tensor<3xi64> -> tensor<6xi64>
  return
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{inputs must have the same rank}}
  %0 = mm.concat %a, %b {axis = 0} : tensor<2x3xf32>, tensor<3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{inputs differ in dim 1 (not the concat axis)}}
  %0 = mm.concat %a, %b {axis = 0} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>) {
  // The dynamic input makes the concat dim dynamic; dim 1 is known.
  // expected-error @+1 {{result dim 1 is 4 but should be 3}}
  %0 = mm.concat %a, %b {axis = 0} : tensor<2x3xf32>, tensor<?x3xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @concat_sum(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+1 {{result dim 0 is 4 but should be 3}}
  %0 = mm.concat %a, %b {axis = 0} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_element_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = mm.concat %a, %b {axis = 0} : tensor<2xf32>, tensor<2xf16> -> tensor<4xf32>
  return
}

// -----

func.func @concat_missing_axis(%a: tensor<2xf32>) {
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = mm.concat %a, %a : tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_starts_rank(%x: tensor<8xf32>, %s: tensor<i64>, %v: tensor<1xi64>) {
  // expected-error @+1 {{starts must be 1-D}}
  %0 = mm.slice %x, %s, %v, %v, %v : tensor<8xf32>, tensor<i64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xf32>
  return
}

// -----

func.func @slice_ends_rank(%x: tensor<8xf32>, %s: tensor<1x1xi64>, %v: tensor<1xi64>) {
  // expected-error @+1 {{ends must be 1-D}}
  %0 = mm.slice %x, %v, %s, %v, %v : tensor<8xf32>, tensor<1xi64>, tensor<1x1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xf32>
  return
}

// -----

func.func @slice_axes_rank(%x: tensor<8xf32>, %s: tensor<i64>, %v: tensor<1xi64>) {
  // expected-error @+1 {{axes must be 1-D}}
  %0 = mm.slice %x, %v, %v, %s, %v : tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<i64>, tensor<1xi64> -> tensor<4xf32>
  return
}

// -----

func.func @slice_steps_rank(%x: tensor<8xf32>, %s: tensor<i64>, %v: tensor<1xi64>) {
  // expected-error @+1 {{steps must be 1-D}}
  %0 = mm.slice %x, %v, %v, %v, %s : tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<i64> -> tensor<4xf32>
  return
}

// -----

func.func @slice_lengths(%x: tensor<8x8xf32>, %v: tensor<1xi64>, %w: tensor<2xi64>, %d: tensor<?xi64>) {
  // A dynamic length is compatible; the two static ones differ.
  // expected-error @+1 {{starts, ends, axes and steps must have the same length (1 vs 2)}}
  %0 = mm.slice %x, %v, %d, %w, %v : tensor<8x8xf32>, tensor<1xi64>, tensor<?xi64>, tensor<2xi64>, tensor<1xi64> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_result_rank(%x: tensor<8x8xf32>, %v: tensor<1xi64>) {
  // expected-error @+1 {{result rank must equal data rank}}
  %0 = mm.slice %x, %v, %v, %v, %v : tensor<8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xf32>
  return
}

// -----

func.func @split_axis(%x: tensor<6xf32>) {
  // expected-error @+1 {{'mm.split' op axis 1 out of range for rank 1}}
  %0:2 = mm.split %x {axis = 1, sizes = array<i64: 3, 3>} : tensor<6xf32> -> tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @split_count(%x: tensor<6xf32>) {
  // expected-error @+1 {{has 2 results but 3 sizes}}
  %0:2 = mm.split %x {axis = 0, sizes = array<i64: 2, 2, 2>} : tensor<6xf32> -> tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @split_negative(%x: tensor<6xf32>) {
  // expected-error @+1 {{sizes must be >= 0}}
  %0:2 = mm.split %x {axis = 0, sizes = array<i64: 7, -1>} : tensor<6xf32> -> tensor<7xf32>, tensor<?xf32>
  return
}

// -----

func.func @split_result(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{result dim 1 is 4 but should be 3}}
  %0:2 = mm.split %x {axis = 1, sizes = array<i64: 3, 3>} : tensor<2x6xf32> -> tensor<2x3xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @split_total(%x: tensor<6xf32>) {
  // expected-error @+1 {{sizes add up to 5 but the dim is 6}}
  %0:2 = mm.split %x {axis = 0, sizes = array<i64: 2, 3>} : tensor<6xf32> -> tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @reshape_shape_rank(%x: tensor<2x3xf32>, %s: tensor<1x2xi64>) {
  // expected-error @+1 {{shape must be 1-D}}
  %0 = mm.reshape %x, %s : tensor<2x3xf32>, tensor<1x2xi64> -> tensor<3x2xf32>
  return
}

// -----

func.func @reshape_shape_length(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{shape operand has 2 elements but the result has rank 3}}
  %0 = mm.reshape %x, %s : tensor<2x3xf32>, tensor<2xi64> -> tensor<1x3x2xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3x4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{element count changes from 24 to 20}}
  %0 = mm.reshape %x, %s : tensor<2x3x4xf32>, tensor<2xi64> -> tensor<4x5xf32>
  return
}

// -----

func.func @reshape_shape_type(%x: tensor<2x3xf32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = mm.reshape %x, %s : tensor<2x3xf32>, tensor<2xi32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{perm has 2 entries for rank 3}}
  %0 = mm.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_perm_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mm.transpose' op axis 3 out of range for rank 3}}
  %0 = mm.transpose %x {perm = array<i64: 0, 1, 3>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @transpose_perm_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mm.transpose' op axis 0 repeated}}
  %0 = mm.transpose %x {perm = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result dim 0 is 2 but should be 4}}
  %0 = mm.transpose %x {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @expand_shape_rank(%x: tensor<1x4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{shape must be 1-D}}
  %0 = mm.expand %x, %s : tensor<1x4xf32>, tensor<i64> -> tensor<3x4xf32>
  return
}

// -----

func.func @expand_result_rank(%x: tensor<1x4xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{result rank must be at least the input rank}}
  %0 = mm.expand %x, %s : tensor<1x4xf32>, tensor<1xi64> -> tensor<4xf32>
  return
}

// -----

func.func @expand_incompatible(%x: tensor<3x4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{input dim 3 cannot broadcast to 5}}
  %0 = mm.expand %x, %s : tensor<3x4xf32>, tensor<2xi64> -> tensor<5x4xf32>
  return
}

// -----

// Expand never shrinks a dim: a shape entry of 1 keeps the input's 4.
func.func @expand_shrinks(%x: tensor<3x4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{input dim 4 cannot broadcast to 1}}
  %0 = mm.expand %x, %s : tensor<3x4xf32>, tensor<2xi64> -> tensor<3x1xf32>
  return
}

// -----

func.func @squeeze_non_unit(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{cannot squeeze dim 1 of size 4}}
  %0 = mm.squeeze %x {axes = array<i64: 1>} : tensor<1x4xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_axis(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'mm.squeeze' op axis -3 out of range for rank 2}}
  %0 = mm.squeeze %x {axes = array<i64: -3>} : tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @squeeze_result(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{result rank 2 does not match expected rank 1}}
  %0 = mm.squeeze %x {axes = array<i64: 0>} : tensor<1x4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @unsqueeze_axis(%x: tensor<4xf32>) {
  // Axes index the result, here of rank 3.
  // expected-error @+1 {{'mm.unsqueeze' op axis 3 out of range for rank 3}}
  %0 = mm.unsqueeze %x {axes = array<i64: 0, 3>} : tensor<4xf32> -> tensor<1x4x1xf32>
  return
}

// -----

func.func @unsqueeze_repeated(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mm.unsqueeze' op axis -3 repeated}}
  %0 = mm.unsqueeze %x {axes = array<i64: 0, -3>} : tensor<4xf32> -> tensor<1x1x4xf32>
  return
}

// -----

func.func @unsqueeze_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{result dim 0 is 4 but should be 1}}
  %0 = mm.unsqueeze %x {axes = array<i64: 0>} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @flatten_axis(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mm.flatten' op axis 4 out of range for rank 3}}
  %0 = mm.flatten %x {axis = 4} : tensor<2x3x4xf32> -> tensor<24x1xf32>
  return
}

// -----

func.func @flatten_negative_axis(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mm.flatten' op axis -4 out of range for rank 3}}
  %0 = mm.flatten %x {axis = -4} : tensor<2x3x4xf32> -> tensor<24x1xf32>
  return
}

// -----

func.func @flatten_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result dim 1 is 4 but should be 12}}
  %0 = mm.flatten %x : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @tile_repeats_rank(%x: tensor<2x3xf32>, %r: tensor<i64>) {
  // expected-error @+1 {{repeats must be 1-D}}
  %0 = mm.tile %x, %r : tensor<2x3xf32>, tensor<i64> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_repeats_length(%x: tensor<2x3xf32>, %r: tensor<3xi64>) {
  // expected-error @+1 {{repeats must have one entry per input dim}}
  %0 = mm.tile %x, %r : tensor<2x3xf32>, tensor<3xi64> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_result_rank(%x: tensor<2x3xf32>, %r: tensor<2xi64>) {
  // expected-error @+1 {{result rank must equal input rank}}
  %0 = mm.tile %x, %r : tensor<2x3xf32>, tensor<2xi64> -> tensor<1x4x6xf32>
  return
}

// -----

func.func @trilu_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{input must have rank >= 2}}
  %0 = mm.trilu %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @trilu_result(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{result dim 1 is 3 but should be 4}}
  %0 = mm.trilu %x : tensor<4x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'mm.cumsum' op axis -3 out of range for rank 2}}
  %0 = mm.cumsum %x {axis = -3} : tensor<4x4xf32>
  return
}

// -----

func.func @range_operands(%a: tensor<1xi64>, %b: tensor<i64>) {
  // expected-error @+1 {{start, limit and delta must be 0-D}}
  %0 = mm.range %a, %b, %b : tensor<1xi64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  return
}

// -----

func.func @range_result(%a: tensor<i64>) {
  // expected-error @+1 {{result must be 1-D}}
  %0 = mm.range %a, %a, %a : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<i64>
  return
}

// -----

func.func @range_element_types(%a: tensor<i64>, %b: tensor<i32>) {
  // expected-error @+1 {{failed to verify that all of {start, limit, delta, result} have same element type}}
  %0 = mm.range %a, %b, %a : tensor<i64>, tensor<i32>, tensor<i64> -> tensor<?xi64>
  return
}

// -----

func.func @constant_of_shape_rank(%s: tensor<i64>) {
  // expected-error @+1 {{shape must be 1-D}}
  %0 = mm.constant_of_shape %s {value = 0.0 : f32} : tensor<i64> -> tensor<f32>
  return
}

// -----

func.func @constant_of_shape_value_type(%s: tensor<2xi64>) {
  // expected-error @+1 {{value type 'f32' differs from the result element type 'i64'}}
  %0 = mm.constant_of_shape %s {value = 0.0 : f32} : tensor<2xi64> -> tensor<2x2xi64>
  return
}

// -----

func.func @constant_of_shape_length(%s: tensor<2xi64>) {
  // expected-error @+1 {{shape operand length must equal the result rank}}
  %0 = mm.constant_of_shape %s {value = 0.0 : f32} : tensor<2xi64> -> tensor<2xf32>
  return
}

// -----

func.func @constant_of_shape_untyped_value(%s: tensor<2xi64>) {
  // expected-error @+1 {{value type 'none' differs from the result element type 'f32'}}
  %0 = mm.constant_of_shape %s {value = "x"} : tensor<2xi64> -> tensor<2x2xf32>
  return
}

// -----

func.func @shape_length(%x: tensor<?x4x?xf32>) {
  // expected-error @+1 {{result dim 0 is 3 but should be 2}}
  %0 = mm.shape %x {start = 1} : tensor<?x4x?xf32> -> tensor<3xi64>
  return
}

// -----

func.func @shape_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{result rank 0 does not match expected rank 1}}
  %0 = mm.shape %x : tensor<?x4xf32> -> tensor<i64>
  return
}
