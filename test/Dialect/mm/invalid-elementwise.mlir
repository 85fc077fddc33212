// Errors of the elementwise ops: ODS type constraints and traits (broadcasting, element
// types, same type/shape).
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @float_only(%x: tensor<2xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values, but got 'tensor<2xi32>'}}
  %0 = mm.sqrt %x : tensor<2xi32>
  return
}

// -----

func.func @bool_only(%x: tensor<2xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = mm.not %x : tensor<2xf32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "mm.neg"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @unary_type_changes(%x: tensor<2xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "mm.exp"(%x) : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @binary_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operands don't have broadcast-compatible shapes}}
  %0 = mm.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result type '3x3' not broadcast compatible with broadcasted operands's shapes '2x3'}}
  %0 = mm.mul %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @binary_element_types_differ(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = mm.sub %a, %b : tensor<3xf32>, tensor<3xf16> -> tensor<3xf32>
  return
}

// -----

func.func @binary_result_element_type(%a: tensor<3xi64>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = mm.div %a, %a : tensor<3xi64>, tensor<3xi64> -> tensor<3xi32>
  return
}

// -----

func.func @pow_on_integers(%a: tensor<3xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values, but got 'tensor<3xi64>'}}
  %0 = mm.pow %a, %a : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  return
}

// -----

func.func @and_on_floats(%a: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = mm.and %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @compare_element_types_differ(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs} have same element type}}
  %0 = mm.less %a, %b : tensor<3xf32>, tensor<3xi32> -> tensor<3xi1>
  return
}

// -----

func.func @compare_result_not_bool(%a: tensor<3xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = mm.equal %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @compare_not_broadcastable(%a: tensor<2xi64>, %b: tensor<3xi64>) {
  // expected-error @+1 {{operands don't have broadcast-compatible shapes}}
  %0 = mm.greater %a, %b : tensor<2xi64>, tensor<3xi64> -> tensor<3xi1>
  return
}

// -----

func.func @is_nan_shape(%a: tensor<3xf32>) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = mm.is_nan %a : tensor<3xf32> -> tensor<4xi1>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<3xf32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = mm.where %c, %x, %x : tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @where_branches_differ(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf16>) {
  // expected-error @+1 {{failed to verify that all of {x, y, result} have same element type}}
  %0 = mm.where %c, %x, %y : tensor<3xi1>, tensor<3xf32>, tensor<3xf16> -> tensor<3xf32>
  return
}

// -----

func.func @where_not_broadcastable(%c: tensor<4xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{operands don't have broadcast-compatible shapes}}
  %0 = mm.where %c, %x, %x : tensor<4xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @cast_changes_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = mm.cast %x : tensor<3xf32> -> tensor<1x3xf16>
  return
}
