// Verifier errors of the high-level transformer ops (dialects/lib/MMOps.cpp) and the ODS
// traits they use.
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @layer_norm_axis(%x: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'mm.layer_norm' op axis 2 out of range for rank 2}}
  %0 = mm.layer_norm %x, %g {axis = 2} : tensor<2x64xf32>, tensor<64xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_scale_rank(%x: tensor<2x64xf32>, %g: tensor<2x64xf32>) {
  // Only the last dim is normalized (axis = -1).
  // expected-error @+1 {{scale and bias must not have more dims than the normalized dims}}
  %0 = mm.layer_norm %x, %g : tensor<2x64xf32>, tensor<2x64xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_scale_size(%x: tensor<2x64xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{scale and bias must match the normalized dims}}
  %0 = mm.layer_norm %x, %g : tensor<2x64xf32>, tensor<32xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_bias_size(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %b: tensor<63xf32>) {
  // expected-error @+1 {{scale and bias must match the normalized dims}}
  %0 = mm.layer_norm %x, %g, %b : tensor<2x64xf32>, tensor<64xf32>, tensor<63xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_bias_type(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %b: tensor<64xbf16>) {
  // expected-error @+1 {{bias element type 'bf16' differs from the input's 'f32'}}
  %0 = mm.layer_norm %x, %g, %b : tensor<2x64xf32>, tensor<64xf32>, tensor<64xbf16> -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_result(%x: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{result dim 0 is 3 but should be 2}}
  %0 = mm.layer_norm %x, %g : tensor<2x64xf32>, tensor<64xf32> -> tensor<3x64xf32>
  return
}

// -----

func.func @layer_norm_scale_type(%x: tensor<2x64xf32>, %g: tensor<64xf16>) {
  // expected-error @+1 {{failed to verify that all of {input, scale, result} have same element type}}
  %0 = mm.layer_norm %x, %g : tensor<2x64xf32>, tensor<64xf16> -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_epsilon_type(%x: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %0 = mm.layer_norm %x, %g {epsilon = 1.0e-5 : f64} : tensor<2x64xf32>, tensor<64xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_scalar(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = mm.rms_norm %x, %g : tensor<f32>, tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @rms_norm_scale(%x: tensor<2x64xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{scale must be 1-D with the size of the last input dim}}
  %0 = mm.rms_norm %x, %g : tensor<2x64xf32>, tensor<32xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @rms_norm_result(%x: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{result rank 1 does not match expected rank 2}}
  %0 = mm.rms_norm %x, %g : tensor<2x64xf32>, tensor<64xf32> -> tensor<128xf32>
  return
}

// -----

func.func @gelu_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = mm.gelu %x : tensor<4xi32>
  return
}

// -----

func.func @gelu_bad_approx(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mm::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse MM_GeluApproxAttr parameter 'value' which is to be a `::mm::GeluApproximation`}}
  %0 = mm.gelu %x {approximate = #mm.gelu_approx<erf>} : tensor<4xf32>
  return
}

// -----

func.func @swiglu_types(%g: tensor<4x8xf32>, %u: tensor<4x8xf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "mm.swiglu"(%g, %u) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @geglu_shapes(%g: tensor<4x8xf32>, %u: tensor<4x4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "mm.geglu"(%g, %u) : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<4x8x16xf32>, %k: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{query, key and value must be 4-D [batch, heads, seq, head_dim]}}
  %0 = mm.attention %q, %k, %k {scale = 0.25 : f32} : tensor<4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<4x8x16xf32>
  return
}

// -----

func.func @attention_kv_heads(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{key and value must have the same number of heads}}
  %0 = mm.attention %q, %k, %v {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_gqa_ratio(%q: tensor<1x4x8x16xf32>, %k: tensor<1x3x8x16xf32>) {
  // expected-error @+1 {{query heads 4 must be a multiple of key/value heads 3}}
  %0 = mm.attention %q, %k, %k {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x3x8x16xf32>, tensor<1x3x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_zero_kv_heads(%q: tensor<1x4x8x16xf32>, %k: tensor<1x0x8x16xf32>) {
  // expected-error @+1 {{query heads 4 must be a multiple of key/value heads 0}}
  %0 = mm.attention %q, %k, %k {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x0x8x16xf32>, tensor<1x0x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x32xf32>) {
  // expected-error @+1 {{query and key head_dim differ}}
  %0 = mm.attention %q, %k, %k {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x32xf32> -> tensor<1x4x8x32xf32>
  return
}

// -----

func.func @attention_kv_seq(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x9x16xf32>) {
  // expected-error @+1 {{key and value sequence lengths differ}}
  %0 = mm.attention %q, %k, %v {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x9x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x4x8x16xf32>, %k: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{batch sizes differ}}
  %0 = mm.attention %q, %k, %k {scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<1x4x8x16xf32>, %m: tensor<1x1x1x8x8xi1>) {
  // expected-error @+1 {{mask rank must be at most 4}}
  %0 = mm.attention %q, %q, %q, %m {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x1x1x8x8xi1> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<1x4x8x16xf32>, %m: tensor<8x8xi64>) {
  // expected-error @+1 {{mask must be boolean (i1) or of the query element type (additive)}}
  %0 = mm.attention %q, %q, %q, %m {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<8x8xi64> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<1x4x8x16xf32>, %m: tensor<1x1x8x9xi1>) {
  // expected-error @+1 {{mask is not broadcastable to [batch, heads, seq, kv_seq]}}
  %0 = mm.attention %q, %q, %q, %m {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x1x8x9xi1> -> tensor<1x4x8x16xf32>
  return
}

// -----

// The mask broadcasts to the scores, never the other way: batch 2 cannot apply to batch 1.
func.func @attention_mask_larger(%q: tensor<1x4x8x16xf32>, %m: tensor<2x1x8x8xf32>) {
  // expected-error @+1 {{mask is not broadcastable to [batch, heads, seq, kv_seq]}}
  %0 = mm.attention %q, %q, %q, %m {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<2x1x8x8xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x32xf32>) {
  // The result takes the value's head_dim.
  // expected-error @+1 {{result dim 3 is 16 but should be 32}}
  %0 = mm.attention %q, %k, %v {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_missing_scale(%q: tensor<1x4x8x16xf32>) {
  // expected-error @+1 {{requires attribute 'scale'}}
  %0 = mm.attention %q, %q, %q : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_element_types(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf16>) {
  // expected-error @+1 {{failed to verify that all of {query, key, value, result} have same element type}}
  %0 = mm.attention %q, %k, %k {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rotary_rank(%x: tensor<4x8x16xf32>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{input must be 4-D [batch, heads, seq, head_dim]}}
  %0 = mm.rotary %x, %c, %c : tensor<4x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<4x8x16xf32>
  return
}

// -----

func.func @rotary_cos_sin(%x: tensor<1x4x8x16xf32>, %c: tensor<8x16xf32>, %s: tensor<8x8xf32>) {
  // expected-error @+1 {{cos and sin must have the same shape}}
  %0 = mm.rotary %x, %c, %s : tensor<1x4x8x16xf32>, tensor<8x16xf32>, tensor<8x8xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rotary_table_rank(%x: tensor<1x4x8x16xf32>, %c: tensor<1x1x8x16xf32>) {
  // expected-error @+1 {{cos and sin must be [seq, rot] or [batch, seq, rot]}}
  %0 = mm.rotary %x, %c, %c : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rotary_odd(%x: tensor<1x4x8x16xf32>, %c: tensor<8x7xf32>) {
  // expected-error @+1 {{rotary width 7 must be even}}
  %0 = mm.rotary %x, %c, %c : tensor<1x4x8x16xf32>, tensor<8x7xf32>, tensor<8x7xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rotary_too_wide(%x: tensor<1x4x8x16xf32>, %c: tensor<8x32xf32>) {
  // expected-error @+1 {{rotary width 32 exceeds head_dim 16}}
  %0 = mm.rotary %x, %c, %c : tensor<1x4x8x16xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rotary_seq(%x: tensor<1x4x8x16xf32>, %c: tensor<1x9x16xf32>) {
  // expected-error @+1 {{cos/sin sequence length differs from the input's}}
  %0 = mm.rotary %x, %c, %c : tensor<1x4x8x16xf32>, tensor<1x9x16xf32>, tensor<1x9x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rotary_batch(%x: tensor<2x4x8x16xf32>, %c: tensor<3x8x16xf32>) {
  // expected-error @+1 {{cos/sin batch must be 1 or the input's batch}}
  %0 = mm.rotary %x, %c, %c : tensor<2x4x8x16xf32>, tensor<3x8x16xf32>, tensor<3x8x16xf32> -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @rotary_result(%x: tensor<1x4x8x16xf32>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{result dim 1 is 2 but should be 4}}
  %0 = mm.rotary %x, %c, %c : tensor<1x4x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<1x2x8x16xf32>
  return
}

// -----

func.func @linear_scalar(%x: tensor<f32>, %w: tensor<1x4xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = mm.linear %x, %w : tensor<f32>, tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{weight must be 2-D [in_features, out_features]}}
  %0 = mm.linear %x, %w : tensor<2x8xf32>, tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @linear_features(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>) {
  // The weight is [in, out] (ONNX MatMul layout), not PyTorch's [out, in].
  // expected-error @+1 {{input features 8 != weight rows 16}}
  %0 = mm.linear %x, %w : tensor<2x8xf32>, tensor<16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_bias_type(%x: tensor<2x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf16>) {
  // expected-error @+1 {{bias element type 'f16' differs from the input's 'f32'}}
  %0 = mm.linear %x, %w, %b : tensor<2x8xf32>, tensor<8x16xf32>, tensor<16xf16> -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_bias_shape(%x: tensor<2x8xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias must be 1-D with out_features elements}}
  %0 = mm.linear %x, %w, %b : tensor<2x8xf32>, tensor<8x16xf32>, tensor<8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_result(%x: tensor<?x2x8xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{result dim 2 is 8 but should be 16}}
  %0 = mm.linear %x, %w : tensor<?x2x8xf32>, tensor<8x16xf32> -> tensor<?x2x8xf32>
  return
}

// -----

func.func @linear_bad_activation(%x: tensor<2x8xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+2 {{expected ::mm::Activation to be one of: none, gelu, gelu_tanh, quick_gelu, silu, relu}}
  // expected-error @+1 {{failed to parse MM_ActivationAttr parameter 'value' which is to be a `::mm::Activation`}}
  %0 = mm.linear %x, %w {activation = #mm.activation<tanh>} : tensor<2x8xf32>, tensor<8x16xf32> -> tensor<2x16xf32>
  return
}
