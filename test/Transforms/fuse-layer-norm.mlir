// -mm-fuse-layer-norm: decomposed LayerNorm (what torch exports when LayerNormalization
// is not used: ReduceMean, Sub, Pow, ReduceMean, Add eps, Sqrt, Div, Mul, Add) in its
// variants, then near misses that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-layer-norm -split-input-file | FileCheck %s
// The near misses (a normalising core whose norm is not raised), with their reasons:
// RUN: mmc-opt %s -mm-fuse-layer-norm=report-near-misses=true -split-input-file -verify-diagnostics -o /dev/null

// The full form with scale and bias, epsilon 1e-12 (ViT).
// CHECK-LABEL: func.func @scale_and_bias
// CHECK-NEXT: %[[N:.*]] = mm.layer_norm %arg0, %arg1, %arg2 {epsilon = 9.99999996E-13 : f32} : tensor<?x17x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x17x64xf32>
// CHECK-NEXT: return %[[N]]
func.func @scale_and_bias(%x: tensor<?x17x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x17x64xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : tensor<?x17x64xf32> -> tensor<?x17x1xf32>
  %d = mm.sub %x, %mean : tensor<?x17x64xf32>, tensor<?x17x1xf32> -> tensor<?x17x64xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<?x17x64xf32>, tensor<f32> -> tensor<?x17x64xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>, keepdims = true} : tensor<?x17x64xf32> -> tensor<?x17x1xf32>
  %eps = mm.constant dense<1.0e-12> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<?x17x1xf32>, tensor<f32> -> tensor<?x17x1xf32>
  %s = mm.sqrt %ve : tensor<?x17x1xf32>
  %n = mm.div %d, %s : tensor<?x17x64xf32>, tensor<?x17x1xf32> -> tensor<?x17x64xf32>
  %y = mm.mul %n, %g : tensor<?x17x64xf32>, tensor<64xf32> -> tensor<?x17x64xf32>
  %z = mm.add %y, %b : tensor<?x17x64xf32>, tensor<64xf32> -> tensor<?x17x64xf32>
  return %z : tensor<?x17x64xf32>
}

// -----

// Reciprocal + Mul, d * d for the variance, scale on the left, no bias, epsilon first
// in the add; the default epsilon (1e-5) is not printed.
// CHECK-LABEL: func.func @reciprocal_no_bias
// CHECK: %[[N:.*]] = mm.layer_norm %arg0, %arg1 : tensor<2x8x32xf32>, tensor<32xf32> -> tensor<2x8x32xf32>
// CHECK-NOT: mm.sqrt
// CHECK: return %[[N]]
func.func @reciprocal_no_bias(%x: tensor<2x8x32xf32>, %g: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: 2>} : tensor<2x8x32xf32> -> tensor<2x8x1xf32>
  %d = mm.sub %x, %mean : tensor<2x8x32xf32>, tensor<2x8x1xf32> -> tensor<2x8x32xf32>
  %sq = mm.mul %d, %d : tensor<2x8x32xf32>, tensor<2x8x32xf32> -> tensor<2x8x32xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: 2>} : tensor<2x8x32xf32> -> tensor<2x8x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %eps, %var : tensor<f32>, tensor<2x8x1xf32> -> tensor<2x8x1xf32>
  %s = mm.sqrt %ve : tensor<2x8x1xf32>
  %r = mm.reciprocal %s : tensor<2x8x1xf32>
  %n = mm.mul %r, %d : tensor<2x8x1xf32>, tensor<2x8x32xf32> -> tensor<2x8x32xf32>
  %y = mm.mul %g, %n : tensor<32xf32>, tensor<2x8x32xf32> -> tensor<2x8x32xf32>
  return %y : tensor<2x8x32xf32>
}

// -----

// Normalised over the last two dims with a 2-D scale and bias.
// CHECK-LABEL: func.func @two_trailing_axes
// CHECK: mm.layer_norm %arg0, %arg1, %arg2 {axis = -2 : i64} : tensor<4x6x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<4x6x8xf32>
func.func @two_trailing_axes(%x: tensor<4x6x8xf32>, %g: tensor<6x8xf32>, %b: tensor<6x8xf32>) -> tensor<4x6x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1, -2>} : tensor<4x6x8xf32> -> tensor<4x1x1xf32>
  %d = mm.sub %x, %mean : tensor<4x6x8xf32>, tensor<4x1x1xf32> -> tensor<4x6x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<4x6x8xf32>, tensor<f32> -> tensor<4x6x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: 1, 2>} : tensor<4x6x8xf32> -> tensor<4x1x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<4x1x1xf32>, tensor<f32> -> tensor<4x1x1xf32>
  %s = mm.sqrt %ve : tensor<4x1x1xf32>
  %n = mm.div %d, %s : tensor<4x6x8xf32>, tensor<4x1x1xf32> -> tensor<4x6x8xf32>
  %y = mm.mul %n, %g : tensor<4x6x8xf32>, tensor<6x8xf32> -> tensor<4x6x8xf32>
  %z = mm.add %b, %y : tensor<6x8xf32>, tensor<4x6x8xf32> -> tensor<4x6x8xf32>
  return %z : tensor<4x6x8xf32>
}

// -----

// An f16 input normalised in f32 with f32 scale and bias, the result left in f32 (no cast
// back): the norm reads f32 (the cast of x), its result is the pattern's f32.
// CHECK-LABEL: func.func @half_in_f32_out
// CHECK: %[[XF:.*]] = mm.cast %arg0 : tensor<3x16xf16> -> tensor<3x16xf32>
// CHECK: %[[N:.*]] = mm.layer_norm %[[XF]], %arg1, %arg2 : tensor<3x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<3x16xf32>
// CHECK-NEXT: return %[[N]]
func.func @half_in_f32_out(%x: tensor<3x16xf16>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<3x16xf32> {
  %xf = mm.cast %x : tensor<3x16xf16> -> tensor<3x16xf32>
  %mean = mm.reduce_mean %xf {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %d = mm.sub %xf, %mean : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<3x16xf32>, tensor<f32> -> tensor<3x16xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  %s = mm.sqrt %ve : tensor<3x1xf32>
  %n = mm.div %d, %s : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %y = mm.mul %n, %g : tensor<3x16xf32>, tensor<16xf32> -> tensor<3x16xf32>
  %z = mm.add %y, %b : tensor<3x16xf32>, tensor<16xf32> -> tensor<3x16xf32>
  return %z : tensor<3x16xf32>
}

// -----

// A bf16 input normalised in f32, cast to f16 and scaled by an f16 weight: the casts do
// not return to x's type, so the norm reads and writes f32 (the island's type), the f16
// scale is cast to f32 for it, and the result is cast to f16.
// CHECK-LABEL: func.func @mixed_result_type
// CHECK: %[[XF:.*]] = mm.cast %arg0 : tensor<3x16xbf16> -> tensor<3x16xf32>
// CHECK: %[[G:.*]] = mm.cast %arg1 : tensor<16xf16> -> tensor<16xf32>
// CHECK: %[[N:.*]] = mm.layer_norm %[[XF]], %[[G]] : tensor<3x16xf32>, tensor<16xf32> -> tensor<3x16xf32>
// CHECK-NEXT: %[[C:.*]] = mm.cast %[[N]] : tensor<3x16xf32> -> tensor<3x16xf16>
// CHECK-NEXT: return %[[C]]
func.func @mixed_result_type(%x: tensor<3x16xbf16>, %g: tensor<16xf16>) -> tensor<3x16xf16> {
  %xf = mm.cast %x : tensor<3x16xbf16> -> tensor<3x16xf32>
  %mean = mm.reduce_mean %xf {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %d = mm.sub %xf, %mean : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %sq = mm.mul %d, %d : tensor<3x16xf32>, tensor<3x16xf32> -> tensor<3x16xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  %s = mm.sqrt %ve : tensor<3x1xf32>
  %n = mm.div %d, %s : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %c = mm.cast %n : tensor<3x16xf32> -> tensor<3x16xf16>
  %y = mm.mul %c, %g : tensor<3x16xf16>, tensor<16xf16> -> tensor<3x16xf16>
  return %y : tensor<3x16xf16>
}

// -----

// f16 through f32 (stash_type), cast back before the affine part; no scale multiply:
// the scale is a splat of ones.
// CHECK-LABEL: func.func @half_no_scale
// CHECK: %[[ONES:.*]] = mm.constant dense<1.000000e+00> : tensor<16xf16>
// CHECK: %[[N:.*]] = mm.layer_norm %arg0, %[[ONES]], %arg1 : tensor<3x16xf16>, tensor<16xf16>, tensor<16xf16> -> tensor<3x16xf16>
// CHECK: return %[[N]]
func.func @half_no_scale(%x: tensor<3x16xf16>, %b: tensor<16xf16>) -> tensor<3x16xf16> {
  %xf = mm.cast %x : tensor<3x16xf16> -> tensor<3x16xf32>
  %mean = mm.reduce_mean %xf {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %d = mm.sub %xf, %mean : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<3x16xf32>, tensor<f32> -> tensor<3x16xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  %s = mm.sqrt %ve : tensor<3x1xf32>
  %n = mm.div %d, %s : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %c = mm.cast %n : tensor<3x16xf32> -> tensor<3x16xf16>
  %z = mm.add %c, %b : tensor<3x16xf16>, tensor<16xf16> -> tensor<3x16xf16>
  return %z : tensor<3x16xf16>
}

// -----

// A residual of the input's full shape is not a bias: the norm fuses, the add stays.
// CHECK-LABEL: func.func @residual_is_not_bias
// CHECK: %[[N:.*]] = mm.layer_norm %arg0, %arg1 : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK: mm.add %[[N]], %arg2
func.func @residual_is_not_bias(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %r: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<2x8xf32> -> tensor<2x1xf32>
  %d = mm.sub %x, %mean : tensor<2x8xf32>, tensor<2x1xf32> -> tensor<2x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<2x8xf32> -> tensor<2x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
  %s = mm.sqrt %ve : tensor<2x1xf32>
  %n = mm.div %d, %s : tensor<2x8xf32>, tensor<2x1xf32> -> tensor<2x8xf32>
  %y = mm.mul %n, %g : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %z = mm.add %y, %r : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %z : tensor<2x8xf32>
}

// -----

// Near miss: the two means reduce different axes.
// CHECK-LABEL: func.func @axes_differ
// CHECK-NOT: mm.layer_norm
func.func @axes_differ(%x: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<4x6x8xf32> -> tensor<4x6x1xf32>
  %d = mm.sub %x, %mean : tensor<4x6x8xf32>, tensor<4x6x1xf32> -> tensor<4x6x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<4x6x8xf32>, tensor<f32> -> tensor<4x6x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: 1, 2>} : tensor<4x6x8xf32> -> tensor<4x1x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<4x1x1xf32>, tensor<f32> -> tensor<4x1x1xf32>
  %s = mm.sqrt %ve : tensor<4x1x1xf32>
  %n = mm.div %d, %s : tensor<4x6x8xf32>, tensor<4x1x1xf32> -> tensor<4x6x8xf32>
  return %n : tensor<4x6x8xf32>
}

// -----

// Near miss: the mean is over a leading axis (not a LayerNorm over trailing dims).
// CHECK-LABEL: func.func @leading_axis
// CHECK-NOT: mm.layer_norm
func.func @leading_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %d = mm.sub %x, %mean : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<1x8xf32>, tensor<f32> -> tensor<1x8xf32>
  %s = mm.sqrt %ve : tensor<1x8xf32>
  %n = mm.div %d, %s : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Near miss: the centred value subtracts the mean of another tensor.
// CHECK-LABEL: func.func @mean_of_other
// CHECK-NOT: mm.layer_norm
func.func @mean_of_other(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %mean = mm.reduce_mean %w {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = mm.sub %x, %mean : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %ve : tensor<4x1xf32>
  %n = mm.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Near miss: the variance is of the uncentred input (x^2, an RMS-style statistic).
// CHECK-LABEL: func.func @variance_not_centred
// CHECK-NOT: mm.layer_norm
func.func @variance_not_centred(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = mm.sub %x, %mean : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %x, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %ve : tensor<4x1xf32>
  %n = mm.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Near miss: keepdims = false on the mean (the subtraction then broadcasts differently).
// CHECK-LABEL: func.func @no_keepdims
// CHECK-NOT: mm.layer_norm
func.func @no_keepdims(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>, keepdims = false} : tensor<8x8xf32> -> tensor<8xf32>
  %d = mm.sub %x, %mean : tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %sq = mm.pow %d, %two : tensor<8x8xf32>, tensor<f32> -> tensor<8x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<8x8xf32> -> tensor<8x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xf32>
  %s = mm.sqrt %ve : tensor<8x1xf32>
  %n = mm.div %d, %s : tensor<8x8xf32>, tensor<8x1xf32> -> tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}

// -----

// The inverse standard deviation as pow(var + eps, -0.5).
// CHECK-LABEL: func.func @rsqrt_by_pow
// CHECK: mm.layer_norm %arg0, %arg1, %arg2 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NOT: mm.pow
func.func @rsqrt_by_pow(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = mm.sub %x, %mean : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %sq = mm.mul %d, %d : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %mh = mm.constant dense<-5.0e-1> : tensor<f32>
  %inv = mm.pow %ve, %mh : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %n = mm.mul %d, %inv : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %y = mm.mul %n, %g : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %z = mm.add %y, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

// Near miss: the centred value d is also returned, so the norm would compute it twice.
// CHECK-LABEL: func.func @centred_value_returned
// CHECK-NOT: mm.layer_norm
func.func @centred_value_returned(%x: tensor<3x16xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>) {
  %mean = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %d = mm.sub %x, %mean : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %sq = mm.mul %d, %d : tensor<3x16xf32>, tensor<3x16xf32> -> tensor<3x16xf32>
  %var = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %ve = mm.add %var, %eps : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  %s = mm.sqrt %ve : tensor<3x1xf32>
  // expected-remark @+1 {{layer_norm not raised: a value inside it is also used outside it}}
  %n = mm.div %d, %s : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  return %n, %d : tensor<3x16xf32>, tensor<3x16xf32>
}
