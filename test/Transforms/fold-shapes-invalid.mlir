// -mm-fold-shapes reports shapes that cannot be right once operands are known, at the op,
// and fails.
// RUN: mmc-opt %s -mm-fold-shapes -split-input-file -verify-diagnostics

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = mm.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %r = mm.reshape %x, %s : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// The count check also holds with symbolic dims that cancel: [b, 6] to [b, 4].
func.func @reshape_count_symbolic(%x: tensor<?x6xf32> {mm.dims = ["batch", ""]}) -> tensor<?x?xf32> {
  %s = mm.shape %x {end = 1} : tensor<?x6xf32> -> tensor<1xi64>
  %four = mm.constant dense<[4]> : tensor<1xi64>
  %c = mm.concat %s, %four {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op cannot reshape [batch, 6] (6 * batch elements) to [batch, 4] (4 * batch elements)}}
  %r = mm.reshape %x, %c : tensor<?x6xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

func.func @reshape_two_infer(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = mm.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op shape [-1, -1] has more than one -1}}
  %r = mm.reshape %x, %s : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

func.func @reshape_infer_fraction(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = mm.constant dense<[4, -1]> : tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op cannot reshape [2, 3] (6 elements) to [4, -1]: the -1 entry would not be an integer}}
  %r = mm.reshape %x, %s : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

func.func @reshape_bad_entry(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = mm.constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op shape [-2, 3] has invalid entry -2}}
  %r = mm.reshape %x, %s : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

func.func @reshape_copy_past_rank(%x: tensor<6xf32>) -> tensor<?x?xf32> {
  %s = mm.constant dense<[6, 0]> : tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op shape [6, 0] copies dim 1 (0) but the input has rank 1}}
  %r = mm.reshape %x, %s : tensor<6xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// The result type says [2, 3]; the constant shape makes it [3, 2].
func.func @declared_type_contradicted(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %s = mm.constant dense<[3, 2]> : tensor<2xi64>
  // expected-error @+1 {{'mm.reshape' op result dim 0 is 2 but the operands make it 3}}
  %r = mm.reshape %x, %s : tensor<6xf32>, tensor<2xi64> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @expand_incompatible(%x: tensor<3xf32>) -> tensor<?xf32> {
  %s = mm.constant dense<[4]> : tensor<1xi64>
  // expected-error @+1 {{'mm.expand' op cannot expand [3] to [4]}}
  %e = mm.expand %x, %s : tensor<3xf32>, tensor<1xi64> -> tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// A dim that only becomes static after folding (the reshape gives 3) meets a 4.
func.func @broadcast_incompatible(%x: tensor<3xf32>, %y: tensor<4xf32>) -> tensor<?xf32> {
  %s = mm.constant dense<[-1]> : tensor<1xi64>
  %r = mm.reshape %x, %s : tensor<3xf32>, tensor<1xi64> -> tensor<?xf32>
  // expected-error @+1 {{'mm.add' op operands do not broadcast in dim 0}}
  %a = mm.add %r, %y : tensor<?xf32>, tensor<4xf32> -> tensor<?xf32>
  return %a : tensor<?xf32>
}

// -----

func.func @range_zero_delta() -> tensor<?xi64> {
  %a = mm.constant dense<0> : tensor<i64>
  %b = mm.constant dense<5> : tensor<i64>
  // expected-error @+1 {{'mm.range' op delta is 0}}
  %r = mm.range %a, %b, %a : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

func.func @constant_of_shape_negative() -> tensor<?x?xf32> {
  %s = mm.constant dense<[2, -3]> : tensor<2xi64>
  // expected-error @+1 {{'mm.constant_of_shape' op shape [2, -3] has a negative dim}}
  %c = mm.constant_of_shape %s {value = 0.0 : f32} : tensor<2xi64> -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

func.func @gather_out_of_range(%x: tensor<2x3xf32>) -> tensor<i64> {
  %s = mm.shape %x : tensor<2x3xf32> -> tensor<2xi64>
  %i = mm.constant dense<2> : tensor<i64>
  // expected-error @+1 {{'mm.gather' op index 2 out of range for dim 0 of size 2}}
  %g = mm.gather %s, %i {axis = 0 : i64} : tensor<2xi64>, tensor<i64> -> tensor<i64>
  return %g : tensor<i64>
}

// -----

func.func @slice_zero_step(%x: tensor<4xf32>) -> tensor<?xf32> {
  %z = mm.constant dense<[0]> : tensor<1xi64>
  %e = mm.constant dense<[4]> : tensor<1xi64>
  // expected-error @+1 {{'mm.slice' op step of axis 0 is 0}}
  %s = mm.slice %x, %z, %e, %z, %z : tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

func.func @slice_bad_axis(%x: tensor<4xf32>) -> tensor<?xf32> {
  %z = mm.constant dense<[0]> : tensor<1xi64>
  %a = mm.constant dense<[3]> : tensor<1xi64>
  %one = mm.constant dense<[1]> : tensor<1xi64>
  // expected-error @+1 {{'mm.slice' op axis 3 out of range for rank 1}}
  %s = mm.slice %x, %z, %one, %a, %one : tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

func.func @tile_negative(%x: tensor<4xf32>) -> tensor<?xf32> {
  %r = mm.constant dense<[-2]> : tensor<1xi64>
  // expected-error @+1 {{'mm.tile' op repeat -2 is negative}}
  %t = mm.tile %x, %r : tensor<4xf32>, tensor<1xi64> -> tensor<?xf32>
  return %t : tensor<?xf32>
}
