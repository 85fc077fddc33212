// Verifier errors of the ops in MMConformanceOps.td (dialects/lib/MMConformanceOps.cpp) and the ODS
// traits they use.
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @argmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'mm.argmax' op input must have rank >= 1}}
  %0 = mm.argmax %x : tensor<f32> -> tensor<i64>
  return
}

// -----

func.func @argmin_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.argmin' op axis 2 out of range for rank 2}}
  %0 = mm.argmin %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x1xi64>
  return
}

// -----

func.func @argmax_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.argmax' op result has rank 2, expected 1}}
  %0 = mm.argmax %x {keepdims = false} : tensor<2x3xf32> -> tensor<1x3xi64>
  return
}

// -----

func.func @argmax_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mm.argmax' op result dim 1 is 1, expected 3}}
  %0 = mm.argmax %x : tensor<2x3xf32> -> tensor<1x1xi64>
  return
}

// -----

func.func @argmax_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{must be ranked tensor of 64-bit signless integer values}}
  %0 = mm.argmax %x : tensor<2x3xf32> -> tensor<1x3xi32>
  return
}

// -----

func.func @topk_scalar(%x: tensor<f32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'mm.topk' op input must have rank >= 1}}
  %0:2 = mm.topk %x, %k : tensor<f32>, tensor<1xi64> -> tensor<f32>, tensor<i64>
  return
}

// -----

func.func @topk_k_shape(%x: tensor<5xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{'mm.topk' op k must hold one value (0-D or 1-D of size 1), got 'tensor<2xi64>'}}
  %0:2 = mm.topk %x, %k : tensor<5xf32>, tensor<2xi64> -> tensor<1xf32>, tensor<1xi64>
  return
}

// -----

func.func @topk_k_type(%x: tensor<5xf32>, %k: tensor<1xi32>) {
  // expected-error @+1 {{must be ranked tensor of 64-bit signless integer values}}
  %0:2 = mm.topk %x, %k : tensor<5xf32>, tensor<1xi32> -> tensor<1xf32>, tensor<1xi64>
  return
}

// -----

func.func @topk_large_k(%x: tensor<5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'mm.topk' op result dim 0 (k = 6) is larger than the input's (5)}}
  %0:2 = mm.topk %x, %k : tensor<5xf32>, tensor<1xi64> -> tensor<6xf32>, tensor<6xi64>
  return
}

// -----

func.func @topk_axis(%x: tensor<5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'mm.topk' op axis -2 out of range for rank 1}}
  %0:2 = mm.topk %x, %k {axis = -2 : i64} : tensor<5xf32>, tensor<1xi64> -> tensor<1xf32>, tensor<1xi64>
  return
}

// -----

func.func @topk_values(%x: tensor<4x5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'mm.topk' op values dim 0 is 3, expected 4}}
  %0:2 = mm.topk %x, %k : tensor<4x5xf32>, tensor<1xi64> -> tensor<3x2xf32>, tensor<3x2xi64>
  return
}

// -----

func.func @topk_indices(%x: tensor<4x5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'mm.topk' op indices has rank 1, expected 2}}
  %0:2 = mm.topk %x, %k : tensor<4x5xf32>, tensor<1xi64> -> tensor<4x2xf32>, tensor<2xi64>
  return
}

// -----

func.func @topk_indices_dim(%x: tensor<4x5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'mm.topk' op indices dim 1 is 3, expected 2}}
  %0:2 = mm.topk %x, %k : tensor<4x5xf32>, tensor<1xi64> -> tensor<4x2xf32>, tensor<4x3xi64>
  return
}

// -----

func.func @topk_element_type(%x: tensor<5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{all of {input, values} have same element type}}
  %0:2 = mm.topk %x, %k : tensor<5xf32>, tensor<1xi64> -> tensor<2xf16>, tensor<2xi64>
  return
}

// -----

func.func @gather_elements_scalar(%d: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{'mm.gather_elements' op data must have rank >= 1}}
  %0 = mm.gather_elements %d, %i : tensor<f32>, tensor<i64> -> tensor<f32>
  return
}

// -----

func.func @gather_elements_rank(%d: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'mm.gather_elements' op indices rank 1 differs from data rank 2}}
  %0 = mm.gather_elements %d, %i : tensor<3x4xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

func.func @gather_elements_axis(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  // expected-error @+1 {{'mm.gather_elements' op axis -3 out of range for rank 2}}
  %0 = mm.gather_elements %d, %i {axis = -3 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  return
}

// -----

func.func @gather_elements_result(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  // expected-error @+1 {{'mm.gather_elements' op result dim 1 is 4, expected 2}}
  %0 = mm.gather_elements %d, %i : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @mod_float_needs_fmod(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mm.mod' op float operands need fmod = true (ONNX Mod)}}
  %0 = mm.mod %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mod_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{'mm.mod' op operands must be numbers, not i1}}
  %0 = mm.mod %a, %a {fmod = true} : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @mod_broadcast(%a: tensor<4xi32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{'mm.mod' op operands don't have broadcast-compatible shapes}}
  %0 = mm.mod %a, %b : tensor<4xi32>, tensor<3xi32> -> tensor<4xi32>
  return
}
