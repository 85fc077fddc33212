// -mm-fuse-rms-norm: the RMSNorm decompositions the exporters emit (TorchScript: Cast,
// Pow, ReduceMean, Add, Sqrt, Div(1, .), Mul, Cast, Mul(weight, .); dynamo: Pow,
// ReduceMean, Add, Sqrt, Reciprocal, Mul, Mul), half precision through f32, Gemma's
// (1 + weight), then near misses that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-rms-norm -split-input-file | FileCheck %s
// The near misses (a normalising core whose norm is not raised), with their reasons:
// RUN: mmc-opt %s -mm-fuse-rms-norm=report-near-misses=true -split-input-file -verify-diagnostics -o /dev/null

// TorchScript Llama form (opset 17): 1 / sqrt, weight on the left.
// CHECK-LABEL: func.func @torchscript_llama
// CHECK-NEXT: %[[W:.*]] = mm.weight
// CHECK-NEXT: %[[N:.*]] = mm.rms_norm %arg0, %[[W]] {epsilon = 9.99999974E-6 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
// CHECK-NEXT: return %[[N]]
func.func @torchscript_llama(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %w = mm.weight "norm.weight" from "m.onnx" [0, 256] : tensor<64xf32>
  %xf = mm.cast %x : tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %xf, %two : tensor<?x?x64xf32>, tensor<f32> -> tensor<?x?x64xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>, keepdims = true} : tensor<?x?x64xf32> -> tensor<?x?x1xf32>
  %eps = mm.constant dense<9.99999974E-6> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<?x?x1xf32>, tensor<f32> -> tensor<?x?x1xf32>
  %s = mm.sqrt %a : tensor<?x?x1xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %inv = mm.div %one, %s : tensor<f32>, tensor<?x?x1xf32> -> tensor<?x?x1xf32>
  %n = mm.mul %xf, %inv : tensor<?x?x64xf32>, tensor<?x?x1xf32> -> tensor<?x?x64xf32>
  %c = mm.cast %n : tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  %y = mm.mul %w, %c : tensor<64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// -----

// dynamo form (opset 20): Reciprocal, normalised value on the right of the first Mul,
// the axis given as rank - 1, epsilon 1e-6 (mm.rms_norm's default, so not printed).
// CHECK-LABEL: func.func @dynamo_reciprocal
// CHECK: %[[N:.*]] = mm.rms_norm %arg0, %arg1 : tensor<2x5x64xf32>, tensor<64xf32> -> tensor<2x5x64xf32>
// CHECK-NOT: mm.sqrt
// CHECK: return %[[N]]
func.func @dynamo_reciprocal(%x: tensor<2x5x64xf32>, %w: tensor<64xf32>) -> tensor<2x5x64xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<2x5x64xf32>, tensor<f32> -> tensor<2x5x64xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: 2>, keepdims = true} : tensor<2x5x64xf32> -> tensor<2x5x1xf32>
  %eps = mm.constant dense<1.0e-6> : tensor<f32>
  %a = mm.add %eps, %ms : tensor<f32>, tensor<2x5x1xf32> -> tensor<2x5x1xf32>
  %s = mm.sqrt %a : tensor<2x5x1xf32>
  %inv = mm.reciprocal %s : tensor<2x5x1xf32>
  %n = mm.mul %inv, %x : tensor<2x5x1xf32>, tensor<2x5x64xf32> -> tensor<2x5x64xf32>
  %y = mm.mul %n, %w : tensor<2x5x64xf32>, tensor<64xf32> -> tensor<2x5x64xf32>
  return %y : tensor<2x5x64xf32>
}

// -----

// x * x instead of pow, Div(x, sqrt) instead of a reciprocal.
// CHECK-LABEL: func.func @square_by_mul_and_div
// CHECK: mm.rms_norm %arg0, %arg1 {epsilon = 9.99999974E-6 : f32
// CHECK-NOT: mm.reduce_mean
func.func @square_by_mul_and_div(%x: tensor<4x32xf32>, %w: tensor<32xf32>) -> tensor<4x32xf32> {
  %p = mm.mul %x, %x : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %n = mm.div %x, %s : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %y = mm.mul %w, %n : tensor<32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The fp16 TorchScript export's residual stream is f32 (its attention writes f32): the
// norm's input is f32, its Cast(to f32) does nothing, and the result is cast to f16 before
// the f16 weight multiply. The fused op reads and writes f32 (x's type) with the f16
// weight, and a cast to f16 follows.
// CHECK-LABEL: func.func @f32_stream_into_f16
// CHECK-NEXT: %[[N:.*]] = mm.rms_norm %arg0, %arg1 {epsilon = 9.99999974E-6 : f32} : tensor<2x16xf32>, tensor<16xf16> -> tensor<2x16xf32>
// CHECK-NEXT: %[[C:.*]] = mm.cast %[[N]] : tensor<2x16xf32> -> tensor<2x16xf16>
// CHECK-NEXT: return %[[C]]
func.func @f32_stream_into_f16(%x: tensor<2x16xf32>, %w: tensor<16xf16>) -> tensor<2x16xf16> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<2x16xf32>, tensor<f32> -> tensor<2x16xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<2x16xf32> -> tensor<2x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
  %s = mm.sqrt %a : tensor<2x1xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %inv = mm.div %one, %s : tensor<f32>, tensor<2x1xf32> -> tensor<2x1xf32>
  %n = mm.mul %x, %inv : tensor<2x16xf32>, tensor<2x1xf32> -> tensor<2x16xf32>
  %c = mm.cast %n : tensor<2x16xf32> -> tensor<2x16xf16>
  %y = mm.mul %w, %c : tensor<16xf16>, tensor<2x16xf16> -> tensor<2x16xf16>
  return %y : tensor<2x16xf16>
}

// -----

// f16 model: cast to f32, normalise, cast back, multiply by the f16 weight. The fused op
// reads and writes f16 (mm.rms_norm computes in f32).
// CHECK-LABEL: func.func @half_through_f32
// CHECK-NEXT: %[[N:.*]] = mm.rms_norm %arg0, %arg1 : tensor<3x16xf16>, tensor<16xf16> -> tensor<3x16xf16>
// CHECK-NEXT: return %[[N]]
func.func @half_through_f32(%x: tensor<3x16xf16>, %w: tensor<16xf16>) -> tensor<3x16xf16> {
  %xf = mm.cast %x : tensor<3x16xf16> -> tensor<3x16xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %xf, %two : tensor<3x16xf32>, tensor<f32> -> tensor<3x16xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<3x16xf32> -> tensor<3x1xf32>
  %eps = mm.constant dense<1.0e-6> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>
  %s = mm.sqrt %a : tensor<3x1xf32>
  %inv = mm.reciprocal %s : tensor<3x1xf32>
  %n = mm.mul %xf, %inv : tensor<3x16xf32>, tensor<3x1xf32> -> tensor<3x16xf32>
  %c = mm.cast %n : tensor<3x16xf32> -> tensor<3x16xf16>
  %y = mm.mul %w, %c : tensor<16xf16>, tensor<3x16xf16> -> tensor<3x16xf16>
  return %y : tensor<3x16xf16>
}

// -----

// Gemma: n * (1 + w), computed in f32 and cast back at the end.
// CHECK-LABEL: func.func @gemma_one_plus_weight
// CHECK: %[[N:.*]] = mm.rms_norm %arg0, %arg1 {scale_offset = 1.000000e+00 : f32} : tensor<2x8xbf16>, tensor<8xf32> -> tensor<2x8xbf16>
// CHECK-NOT: mm.add
// CHECK: return %[[N]]
func.func @gemma_one_plus_weight(%x: tensor<2x8xbf16>, %w: tensor<8xf32>) -> tensor<2x8xbf16> {
  %xf = mm.cast %x : tensor<2x8xbf16> -> tensor<2x8xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %xf, %two : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<2x8xf32> -> tensor<2x1xf32>
  %eps = mm.constant dense<1.0e-6> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
  %s = mm.sqrt %a : tensor<2x1xf32>
  %inv = mm.reciprocal %s : tensor<2x1xf32>
  %n = mm.mul %xf, %inv : tensor<2x8xf32>, tensor<2x1xf32> -> tensor<2x8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %g = mm.add %one, %w : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
  %m = mm.mul %n, %g : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %y = mm.cast %m : tensor<2x8xf32> -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

// -----

// No weight multiply: the scale is a splat of ones.
// CHECK-LABEL: func.func @no_weight
// CHECK: %[[ONES:.*]] = mm.constant dense<1.000000e+00> : tensor<32xf32>
// CHECK: mm.rms_norm %arg0, %[[ONES]]
func.func @no_weight(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %inv = mm.reciprocal %s : tensor<4x1xf32>
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

// -----

// Near miss: the exponent is 3.
// CHECK-LABEL: func.func @wrong_exponent
// CHECK-NOT: mm.rms_norm
func.func @wrong_exponent(%x: tensor<4x32xf32>, %w: tensor<32xf32>) -> tensor<4x32xf32> {
  %three = mm.constant dense<3.0> : tensor<f32>
  %p = mm.pow %x, %three : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %inv = mm.reciprocal %s : tensor<4x1xf32>
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %y = mm.mul %n, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Near miss: the mean is over the first axis, not the last.
// CHECK-LABEL: func.func @wrong_axis
// CHECK-NOT: mm.rms_norm
func.func @wrong_axis(%x: tensor<4x32xf32>, %w: tensor<32xf32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: 0>} : tensor<4x32xf32> -> tensor<1x32xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<1x32xf32>, tensor<f32> -> tensor<1x32xf32>
  %s = mm.sqrt %a : tensor<1x32xf32>
  %inv = mm.reciprocal %s : tensor<1x32xf32>
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<1x32xf32> -> tensor<4x32xf32>
  %y = mm.mul %n, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Near miss: the numerator is 2, not 1 (2 / sqrt(...)).
// CHECK-LABEL: func.func @wrong_numerator
// CHECK-NOT: mm.rms_norm
func.func @wrong_numerator(%x: tensor<4x32xf32>, %w: tensor<32xf32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %inv = mm.div %two, %s : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %y = mm.mul %n, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Near miss: the squared value is not the one normalised (y * rsqrt(mean(x^2))).
// CHECK-LABEL: func.func @different_values
// CHECK-NOT: mm.rms_norm
func.func @different_values(%x: tensor<4x32xf32>, %z: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %inv = mm.reciprocal %s : tensor<4x1xf32>
  %n = mm.mul %z, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

// -----

// Near miss: the mean square is also used elsewhere (fusing would compute it twice).
// CHECK-LABEL: func.func @shared_intermediate
// CHECK-NOT: mm.rms_norm
func.func @shared_intermediate(%x: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x1xf32>) {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %inv = mm.reciprocal %s : tensor<4x1xf32>
  // expected-remark @+1 {{rms_norm not raised: a value inside it is also used outside it}}
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  return %n, %ms : tensor<4x32xf32>, tensor<4x1xf32>
}

// -----

// Near miss: "epsilon" is a tensor, not a constant.
// CHECK-LABEL: func.func @epsilon_not_constant
// CHECK-NOT: mm.rms_norm
func.func @epsilon_not_constant(%x: tensor<4x32xf32>, %e: tensor<f32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %a = mm.add %ms, %e : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = mm.sqrt %a : tensor<4x1xf32>
  %inv = mm.reciprocal %s : tensor<4x1xf32>
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

// -----

// The rsqrt written as pow(ms + eps, -0.5).
// CHECK-LABEL: func.func @rsqrt_by_pow
// CHECK: mm.rms_norm %arg0, %arg1 {epsilon = 9.99999974E-6 : f32}
// CHECK-NOT: mm.pow
func.func @rsqrt_by_pow(%x: tensor<4x32xf32>, %w: tensor<32xf32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %mh = mm.constant dense<-5.0e-1> : tensor<f32>
  %inv = mm.pow %a, %mh : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %n = mm.mul %x, %inv : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %y = mm.mul %n, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Near miss: pow(ms + eps, 0.5) is the root, not its inverse.
// CHECK-LABEL: func.func @pow_half_not_rsqrt
// CHECK-NOT: mm.rms_norm
func.func @pow_half_not_rsqrt(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %h = mm.constant dense<5.0e-1> : tensor<f32>
  %r = mm.pow %a, %h : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %n = mm.mul %x, %r : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}
