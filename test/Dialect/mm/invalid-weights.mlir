// Verifier errors of mm.weight, mm.constant and the quantization ops
// (dialects/lib/MMOps.cpp).
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @weight_negative_offset() {
  // expected-error @+1 {{offset and length must be >= 0}}
  %0 = mm.weight "w" from "m.onnx" [-1, 4] : tensor<f32>
  return
}

// -----

func.func @weight_negative_length() {
  // expected-error @+1 {{offset and length must be >= 0}}
  %0 = mm.weight "w" from "m.onnx" [0, -4] : tensor<f32>
  return
}

// -----

func.func @weight_unnamed() {
  // expected-error @+1 {{needs a name}}
  %0 = mm.weight "" from "m.onnx" [0, 4] : tensor<f32>
  return
}

// -----

func.func @weight_dynamic() {
  // expected-error @+1 {{weights must have a static shape}}
  %0 = mm.weight "w" from "m.onnx" [0, 4] : tensor<?xf32>
  return
}

// -----

func.func @weight_index_type() {
  // expected-error @+1 {{element type 'index' has no byte layout}}
  %0 = mm.weight "w" from "m.onnx" [0, 8] : tensor<1xindex>
  return
}

// -----

func.func @weight_length() {
  // 4 x 4 f32 is 64 bytes.
  // expected-error @+1 {{length 60 bytes does not match 'tensor<4x4xf32>' (64 bytes)}}
  %0 = mm.weight "w" from "m.onnx" [0, 60] : tensor<4x4xf32>
  return
}

// -----

func.func @weight_length_i4() {
  // 3 x 3 i4 rounds up to 5 bytes.
  // expected-error @+1 {{length 4 bytes does not match 'tensor<3x3xi4>' (5 bytes)}}
  %0 = mm.weight "w" from "m.onnx" [0, 4] : tensor<3x3xi4>
  return
}

// -----

func.func @weight_too_large() {
  // 2^62 x 4 elements: the element count is not computed modulo 2^64.
  // expected-error @+1 {{'tensor<4611686018427387904x4xf32>' has more than 2^63 elements}}
  %0 = mm.weight "w" from "m.onnx" [0, 0] : tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @weight_too_many_bytes() {
  // 2^62 f32 elements are 2^64 bytes.
  // expected-error @+1 {{'tensor<4611686018427387904xf32>' is larger than 2^60 bytes}}
  %0 = mm.weight "w" from "m.onnx" [0, 0] : tensor<4611686018427387904xf32>
  return
}

// -----

func.func @weight_missing_source() {
  // expected-error @+1 {{expected 'from'}}
  %0 = mm.weight "w" [0, 4] : tensor<f32>
  return
}

// -----

func.func @constant_type() {
  // Only the generic form can give the result a type other than the value's.
  // expected-error @+1 {{value type 'tensor<2xi64>' differs from result type 'tensor<2xi32>'}}
  %0 = "mm.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi32>
  return
}

// -----

func.func @constant_not_elements() {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = mm.constant 1 : i64
  return
}

// -----

func.func @dequantize_zero_point_type(%q: tensor<4x8xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{zero_point must have the input's element type}}
  %0 = mm.dequantize_linear %q, %s, %z : tensor<4x8xi8>, tensor<f32>, tensor<ui8> -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_result_type(%q: tensor<4x8xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{result must have the scale's element type}}
  %0 = mm.dequantize_linear %q, %s : tensor<4x8xi8>, tensor<f32> -> tensor<4x8xf16>
  return
}

// -----

func.func @dequantize_result_shape(%q: tensor<4x8xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{result dim 1 is 4 but should be 8}}
  %0 = mm.dequantize_linear %q, %s : tensor<4x8xi8>, tensor<f32> -> tensor<4x4xf32>
  return
}

// -----

func.func @dequantize_zero_point_shape(%q: tensor<4x8xi8>, %s: tensor<8xf32>, %z: tensor<4xi8>) {
  // expected-error @+1 {{zero_point must have the shape of scale}}
  %0 = mm.dequantize_linear %q, %s, %z : tensor<4x8xi8>, tensor<8xf32>, tensor<4xi8> -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_block_size(%q: tensor<4x8xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{block_size must be >= 0}}
  %0 = mm.dequantize_linear %q, %s {block_size = -2} : tensor<4x8xi8>, tensor<f32> -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_axis(%q: tensor<4x8xi8>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'mm.dequantize_linear' op axis 2 out of range for rank 2}}
  %0 = mm.dequantize_linear %q, %s {axis = 2} : tensor<4x8xi8>, tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

// A 0-D input can only be quantized per tensor.
func.func @dequantize_scalar_input_per_axis(%q: tensor<i8>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'mm.dequantize_linear' op axis 1 out of range for rank 0}}
  %0 = mm.dequantize_linear %q, %s : tensor<i8>, tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @dequantize_per_axis(%q: tensor<4x8xi8>, %s: tensor<4xf32>) {
  // The default axis is 1 (size 8).
  // expected-error @+1 {{per-axis scale must be 1-D with the size of the quantized axis}}
  %0 = mm.dequantize_linear %q, %s : tensor<4x8xi8>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_blocked_rank(%q: tensor<64x8xi4>, %s: tensor<2xf16>) {
  // expected-error @+1 {{blocked scale must have the input's rank}}
  %0 = mm.dequantize_linear %q, %s {axis = 0, block_size = 32} : tensor<64x8xi4>, tensor<2xf16> -> tensor<64x8xf16>
  return
}

// -----

func.func @dequantize_blocked_dims(%q: tensor<65x8xi4>, %s: tensor<2x8xf16>) {
  // ceil(65 / 32) = 3 blocks along axis 0.
  // expected-error @+1 {{blocked scale dim 0 is 2 but should be 3}}
  %0 = mm.dequantize_linear %q, %s {axis = 0, block_size = 32} : tensor<65x8xi4>, tensor<2x8xf16> -> tensor<65x8xf16>
  return
}

// -----

func.func @dequantize_blocked_other_dim(%q: tensor<64x8xi4>, %s: tensor<2x4xf16>) {
  // expected-error @+1 {{blocked scale dim 1 is 4 but should be 8}}
  %0 = mm.dequantize_linear %q, %s {axis = 0, block_size = 32} : tensor<64x8xi4>, tensor<2x4xf16> -> tensor<64x8xf16>
  return
}

// -----

func.func @quantize_scale_type(%x: tensor<4x8xf32>, %s: tensor<f16>) {
  // expected-error @+1 {{scale must have the input's element type}}
  %0 = mm.quantize_linear %x, %s : tensor<4x8xf32>, tensor<f16> -> tensor<4x8xi8>
  return
}

// -----

func.func @quantize_zero_point_type(%x: tensor<4x8xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{zero_point must have the result's element type}}
  %0 = mm.quantize_linear %x, %s, %z : tensor<4x8xf32>, tensor<f32>, tensor<i8> -> tensor<4x8xui8>
  return
}

// -----

func.func @quantize_result_shape(%x: tensor<4x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{result rank 1 does not match expected rank 2}}
  %0 = mm.quantize_linear %x, %s : tensor<4x8xf32>, tensor<f32> -> tensor<32xi8>
  return
}

// -----

func.func @quantize_integer_input(%x: tensor<4x8xi32>, %s: tensor<f32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values, but got 'tensor<4x8xi32>'}}
  %0 = mm.quantize_linear %x, %s : tensor<4x8xi32>, tensor<f32> -> tensor<4x8xi8>
  return
}
