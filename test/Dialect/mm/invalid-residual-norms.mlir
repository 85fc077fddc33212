// Verifier errors of mm.add_rms_norm and mm.add_layer_norm (dialects/lib/MMOps.cpp).
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @add_rms_norm_broadcast(%a: tensor<2x64xf32>, %b: tensor<64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'mm.add_rms_norm' op lhs, rhs and sum must have one type (no broadcasting), got 'tensor<2x64xf32>', 'tensor<64xf32>' and 'tensor<2x64xf32>'}}
  %y, %s = mm.add_rms_norm %a, %b, %w : tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_rms_norm_result(%a: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{result type 'tensor<?x64xf32>' differs from the sum's 'tensor<2x64xf32>'}}
  %y, %s = mm.add_rms_norm %a, %a, %w : tensor<2x64xf32>, tensor<2x64xf32>, tensor<64xf32> -> tensor<?x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_rms_norm_scalar(%a: tensor<f32>, %w: tensor<1xf32>) {
  // expected-error @+1 {{operands must have rank >= 1}}
  %y, %s = mm.add_rms_norm %a, %a, %w : tensor<f32>, tensor<f32>, tensor<1xf32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @add_rms_norm_scale(%a: tensor<2x64xf32>, %w: tensor<2x64xf32>) {
  // expected-error @+1 {{scale must be 1-D with the size of the last input dim}}
  %y, %s = mm.add_rms_norm %a, %a, %w : tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_rms_norm_element_types(%a: tensor<2x64xf32>, %b: tensor<2x64xf16>, %w: tensor<64xf32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, result, sum} have same element type}}
  %y, %s = mm.add_rms_norm %a, %b, %w : tensor<2x64xf32>, tensor<2x64xf16>, tensor<64xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_layer_norm_broadcast(%a: tensor<2x64xf32>, %b: tensor<1x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'mm.add_layer_norm' op lhs, rhs and sum must have one type (no broadcasting)}}
  %y, %s = mm.add_layer_norm %a, %b, %g : tensor<2x64xf32>, tensor<1x64xf32>, tensor<64xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_layer_norm_result(%a: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{result type 'tensor<2x32xf32>' differs from the sum's 'tensor<2x64xf32>'}}
  %y, %s = mm.add_layer_norm %a, %a, %g : tensor<2x64xf32>, tensor<2x64xf32>, tensor<64xf32> -> tensor<2x32xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_layer_norm_axis(%a: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'mm.add_layer_norm' op axis 2 out of range for rank 2}}
  %y, %s = mm.add_layer_norm %a, %a, %g {axis = 2} : tensor<2x64xf32>, tensor<2x64xf32>, tensor<64xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_layer_norm_scale_rank(%a: tensor<2x64xf32>, %g: tensor<2x64xf32>) {
  // expected-error @+1 {{scale and bias must not have more dims than the normalized dims}}
  %y, %s = mm.add_layer_norm %a, %a, %g : tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_layer_norm_bias_dims(%a: tensor<2x64xf32>, %g: tensor<64xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{scale and bias must match the normalized dims}}
  %y, %s = mm.add_layer_norm %a, %a, %g, %b : tensor<2x64xf32>, tensor<2x64xf32>, tensor<64xf32>, tensor<32xf32> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}

// -----

func.func @add_layer_norm_bias_type(%a: tensor<2x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf16>) {
  // expected-error @+1 {{bias element type 'f16' differs from the input's 'f32'}}
  %y, %s = mm.add_layer_norm %a, %a, %g, %b : tensor<2x64xf32>, tensor<2x64xf32>, tensor<64xf32>, tensor<64xf16> -> tensor<2x64xf32>, tensor<2x64xf32>
  return
}
