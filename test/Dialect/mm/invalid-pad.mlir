// mm.pad verifier errors.
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @wrong_pad_count(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{pads has 2 entries but needs 4}}
  %0 = mm.pad %x {pads = array<i64: 1, 1>} : tensor<3x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{result dim 1 is 3 but should be 4}}
  %0 = mm.pad %x {pads = array<i64: 0, 1, 0, 0>} : tensor<3x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @crop_below_zero(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{pads crop dim 0 of size 3 below zero}}
  %0 = mm.pad %x {pads = array<i64: -2, 0, -2, 0>} : tensor<3x3xf32> -> tensor<0x3xf32>
  return
}

// -----

func.func @value_type(%x: tensor<3x3xf32>, %v: tensor<i64>) {
  // expected-error @+1 {{'mm.pad' op value must have the input's element type}}
  %0 = mm.pad %x, %v {pads = array<i64: 0, 0, 0, 0>} : tensor<3x3xf32>, tensor<i64> -> tensor<3x3xf32>
  return
}

// -----

func.func @value_not_scalar(%x: tensor<3x3xf32>, %v: tensor<2xf32>) {
  // expected-error @+1 {{value must hold exactly one element}}
  %0 = mm.pad %x, %v {pads = array<i64: 0, 0, 0, 0>} : tensor<3x3xf32>, tensor<2xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @value_in_edge_mode(%x: tensor<3x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{value is only allowed in constant mode}}
  %0 = mm.pad %x, %v {mode = #mm.pad_mode<edge>, pads = array<i64: 0, 0, 0, 0>} : tensor<3x3xf32>, tensor<f32> -> tensor<3x3xf32>
  return
}

// -----

func.func @reflect_too_wide(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{reflect pads must be smaller than dim 1 (3)}}
  %0 = mm.pad %x {mode = #mm.pad_mode<reflect>, pads = array<i64: 0, 3, 0, 0>} : tensor<3x3xf32> -> tensor<3x6xf32>
  return
}
