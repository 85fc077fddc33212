// Verifier errors of mm.dim (dialects/lib/MMOps.cpp).
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

func.func @dim_past_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mm.dim' op index 2 out of range [0, 2)}}
  %0 = mm.dim %x[2] : tensor<?x4xf32> -> tensor<1xi64>
  return
}

// -----

func.func @dim_negative(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mm.dim' op index -1 out of range [0, 2)}}
  %0 = mm.dim %x[-1] : tensor<?x4xf32> -> tensor<1xi64>
  return
}

// -----

func.func @dim_scalar_input(%x: tensor<f32>) {
  // expected-error @+1 {{'mm.dim' op index 0 out of range [0, 0)}}
  %0 = mm.dim %x[0] : tensor<f32> -> tensor<1xi64>
  return
}

// -----

func.func @dim_result_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mm.dim' op result must be tensor<1xi64>, not 'tensor<i64>'}}
  %0 = mm.dim %x[0] : tensor<?x4xf32> -> tensor<i64>
  return
}

// -----

func.func @dim_result_length(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mm.dim' op result must be tensor<1xi64>, not 'tensor<2xi64>'}}
  %0 = mm.dim %x[0] : tensor<?x4xf32> -> tensor<2xi64>
  return
}

// -----

func.func @dim_result_type(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mm.dim' op result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = mm.dim %x[0] : tensor<?x4xf32> -> tensor<1xi32>
  return
}
