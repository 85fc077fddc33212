// -mm-fuse-attention: scaled dot-product attention in the forms the two exporters emit
// (after -mm-fold-shapes), with GQA's repeat_kv folded into the head ratio, then near
// misses that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-attention -split-input-file | FileCheck %s
// The near misses, with their reasons (mmc compile --stats lists them):
// RUN: mmc-opt %s -mm-fuse-attention=report-near-misses=true -split-input-file -verify-diagnostics -o /dev/null

// Llama decoder as TorchScript exports it: KV cache concat, repeat_kv (Unsqueeze, Expand,
// Reshape) of 2 KV heads to 4, K^T by Transpose [0, 1, 3, 2], sqrt of the scale on both
// Q and K^T, additive mask, Softmax, torch's Where(IsNaN) guard, P V.
// CHECK-LABEL: func.func @llama_gqa
// CHECK: %[[K:.*]] = mm.concat %arg2, %arg1
// CHECK: %[[V:.*]] = mm.concat %arg3, %arg4
// CHECK-NEXT: %[[A:.*]] = mm.attention %arg0, %[[K]], %[[V]], %arg5 {scale = 2.500000e-01 : f32} : tensor<?x4x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x1x?x?xf32> -> tensor<?x4x?x16xf32>
// CHECK-NEXT: return %[[A]]
func.func @llama_gqa(%q: tensor<?x4x?x16xf32> {mm.dims = ["batch", "", "seq", ""]},
                     %knew: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "seq", ""]},
                     %kpast: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "past", ""]},
                     %vpast: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "past", ""]},
                     %vnew: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "seq", ""]},
                     %mask: tensor<?x1x?x?xf32> {mm.dims = ["batch", "", "seq", "total"]}) -> tensor<?x4x?x16xf32> {
  %zero = mm.constant dense<0.000000e+00> : tensor<1xf32>
  %half = mm.constant dense<5.000000e-01> : tensor<f32>
  %rep = mm.constant dense<[1, 2, 2, 1, 16]> : tensor<5xi64>
  %shape = mm.constant dense<[0, 4, -1, 16]> : tensor<4xi64>
  %k = mm.concat %kpast, %knew {axis = 2 : i64} : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %v = mm.concat %vpast, %vnew {axis = 2 : i64} : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %ku = mm.unsqueeze %k {axes = array<i64: 2>} : tensor<?x2x?x16xf32> -> tensor<?x2x1x?x16xf32>
  %ke = mm.expand %ku, %rep : tensor<?x2x1x?x16xf32>, tensor<5xi64> -> tensor<?x2x2x?x16xf32>
  %kr = mm.reshape %ke, %shape : tensor<?x2x2x?x16xf32>, tensor<4xi64> -> tensor<?x4x?x16xf32>
  %vu = mm.unsqueeze %v {axes = array<i64: 2>} : tensor<?x2x?x16xf32> -> tensor<?x2x1x?x16xf32>
  %ve = mm.expand %vu, %rep : tensor<?x2x1x?x16xf32>, tensor<5xi64> -> tensor<?x2x2x?x16xf32>
  %vr = mm.reshape %ve, %shape : tensor<?x2x2x?x16xf32>, tensor<4xi64> -> tensor<?x4x?x16xf32>
  %kt = mm.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<?x4x?x16xf32> -> tensor<?x4x16x?xf32>
  %qs = mm.mul %q, %half : tensor<?x4x?x16xf32>, tensor<f32> -> tensor<?x4x?x16xf32>
  %ks = mm.mul %kt, %half : tensor<?x4x16x?xf32>, tensor<f32> -> tensor<?x4x16x?xf32>
  %s = mm.matmul %qs, %ks : tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32> -> tensor<?x4x?x?xf32>
  %sm = mm.add %s, %mask : tensor<?x4x?x?xf32>, tensor<?x1x?x?xf32> -> tensor<?x4x?x?xf32>
  %p = mm.softmax %sm {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %nan = mm.is_nan %p : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %pz = mm.where %nan, %zero, %p : tensor<?x4x?x?xi1>, tensor<1xf32>, tensor<?x4x?x?xf32> -> tensor<?x4x?x?xf32>
  %o = mm.matmul %pz, %vr : tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// The dynamo exporter's K^T: Reshape to [B*H, T, D], Transpose [0, 2, 1], Reshape back
// to [B, H, D, T] (dims checked symbolically); no mask (the vision encoder).
// CHECK-LABEL: func.func @dynamo_reshape_transpose
// CHECK: %[[A:.*]] = mm.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32} : tensor<?x4x17x16xf32>, tensor<?x4x17x16xf32>, tensor<?x4x17x16xf32> -> tensor<?x4x17x16xf32>
// CHECK-NOT: mm.softmax
// CHECK: return %[[A]]
func.func @dynamo_reshape_transpose(%q: tensor<?x4x17x16xf32> {mm.dims = ["batch", "", "", ""]},
                                    %k: tensor<?x4x17x16xf32> {mm.dims = ["batch", "", "", ""]},
                                    %v: tensor<?x4x17x16xf32> {mm.dims = ["batch", "", "", ""]}) -> tensor<?x4x17x16xf32> {
  %half = mm.constant dense<5.000000e-01> : tensor<f32>
  %s3 = mm.constant dense<[-1, 17, 16]> : tensor<3xi64>
  %tail = mm.constant dense<[4, 16, 17]> : tensor<3xi64>
  %b = mm.dim %q[0] : tensor<?x4x17x16xf32> -> tensor<1xi64>
  %s4 = mm.concat %b, %tail {axis = 0 : i64} : tensor<1xi64>, tensor<3xi64> -> tensor<4xi64>
  %r1 = mm.reshape %k, %s3 : tensor<?x4x17x16xf32>, tensor<3xi64> -> tensor<?x17x16xf32>
  %t = mm.transpose %r1 {perm = array<i64: 0, 2, 1>} : tensor<?x17x16xf32> -> tensor<?x16x17xf32>
  %kt = mm.reshape %t, %s4 : tensor<?x16x17xf32>, tensor<4xi64> -> tensor<?x4x16x17xf32>
  %qs = mm.mul %q, %half : tensor<?x4x17x16xf32>, tensor<f32> -> tensor<?x4x17x16xf32>
  %ks = mm.mul %kt, %half : tensor<?x4x16x17xf32>, tensor<f32> -> tensor<?x4x16x17xf32>
  %s = mm.matmul %qs, %ks : tensor<?x4x17x16xf32>, tensor<?x4x16x17xf32> -> tensor<?x4x17x17xf32>
  %p = mm.softmax %s {axis = -1 : i64} : tensor<?x4x17x17xf32>
  %o = mm.matmul %p, %v : tensor<?x4x17x17xf32>, tensor<?x4x17x16xf32> -> tensor<?x4x17x16xf32>
  return %o : tensor<?x4x17x16xf32>
}

// -----

// CLIP as TorchScript exports it: K^T = Transpose [0, 2, 3, 1] of the [B, T, H, D]
// projection; the key becomes a Transpose [0, 2, 1, 3] of it.
// CHECK-LABEL: func.func @clip_torchscript
// CHECK: %[[K:.*]] = mm.transpose %arg1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x17x4x16xf32> -> tensor<2x4x17x16xf32>
// CHECK-NEXT: %[[A:.*]] = mm.attention %arg0, %[[K]], %arg2 {scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[A]]
func.func @clip_torchscript(%q: tensor<2x4x17x16xf32>, %kx: tensor<2x17x4x16xf32>, %v: tensor<2x4x17x16xf32>) -> tensor<2x4x17x16xf32> {
  %half = mm.constant dense<5.000000e-01> : tensor<f32>
  %kt = mm.transpose %kx {perm = array<i64: 0, 2, 3, 1>} : tensor<2x17x4x16xf32> -> tensor<2x4x16x17xf32>
  %qs = mm.mul %q, %half : tensor<2x4x17x16xf32>, tensor<f32> -> tensor<2x4x17x16xf32>
  %ks = mm.mul %kt, %half : tensor<2x4x16x17xf32>, tensor<f32> -> tensor<2x4x16x17xf32>
  %s = mm.matmul %qs, %ks : tensor<2x4x17x16xf32>, tensor<2x4x16x17xf32> -> tensor<2x4x17x17xf32>
  %p = mm.softmax %s {axis = 3 : i64} : tensor<2x4x17x17xf32>
  %o = mm.matmul %p, %v : tensor<2x4x17x17xf32>, tensor<2x4x17x16xf32> -> tensor<2x4x17x16xf32>
  return %o : tensor<2x4x17x16xf32>
}

// -----

// The scale applied after the product as a division by sqrt(D) = 8, and a boolean mask
// applied with Where(mask, scores, -inf): passed as mm.attention's boolean mask.
// CHECK-LABEL: func.func @div_after_bool_mask
// CHECK: %[[A:.*]] = mm.attention %arg0, %arg1, %arg2, %arg3 {scale = 1.250000e-01 : f32} : tensor<1x2x5x64xf32>, tensor<1x2x7x64xf32>, tensor<1x2x7x32xf32>, tensor<1x1x5x7xi1> -> tensor<1x2x5x32xf32>
// CHECK-NEXT: return %[[A]]
func.func @div_after_bool_mask(%q: tensor<1x2x5x64xf32>, %k: tensor<1x2x7x64xf32>, %v: tensor<1x2x7x32xf32>, %m: tensor<1x1x5x7xi1>) -> tensor<1x2x5x32xf32> {
  %c8 = mm.constant dense<8.0> : tensor<f32>
  %ninf = mm.constant dense<0xFF800000> : tensor<f32>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x64xf32> -> tensor<1x2x64x7xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x64xf32>, tensor<1x2x64x7xf32> -> tensor<1x2x5x7xf32>
  %sd = mm.div %s, %c8 : tensor<1x2x5x7xf32>, tensor<f32> -> tensor<1x2x5x7xf32>
  %sm = mm.where %m, %sd, %ninf : tensor<1x1x5x7xi1>, tensor<1x2x5x7xf32>, tensor<f32> -> tensor<1x2x5x7xf32>
  %p = mm.softmax %sm {axis = 3 : i64} : tensor<1x2x5x7xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x7xf32>, tensor<1x2x7x32xf32> -> tensor<1x2x5x32xf32>
  return %o : tensor<1x2x5x32xf32>
}

// -----

// No scale at all (scale 1), mask on the left of the add.
// CHECK-LABEL: func.func @unscaled_mask_left
// CHECK: mm.attention %arg0, %arg1, %arg2, %arg3 {scale = 1.000000e+00 : f32}
func.func @unscaled_mask_left(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<5x5xf32>) -> tensor<1x2x5x8xf32> {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  %sm = mm.add %m, %s : tensor<5x5xf32>, tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf32>
  %p = mm.softmax %sm {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// repeat_kv with the axis inserted by a reshape instead of an unsqueeze, static dims.
// CHECK-LABEL: func.func @gqa_reshape_inserted
// CHECK: mm.attention %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f32} : tensor<1x8x5x64xf32>, tensor<1x2x7x64xf32>, tensor<1x2x7x64xf32>
func.func @gqa_reshape_inserted(%q: tensor<1x8x5x64xf32>, %k: tensor<1x2x7x64xf32>, %v: tensor<1x2x7x64xf32>) -> tensor<1x8x5x64xf32> {
  %c = mm.constant dense<1.250000e-01> : tensor<f32>
  %ins = mm.constant dense<[1, 2, 1, 7, 64]> : tensor<5xi64>
  %rep = mm.constant dense<[1, 2, 4, 7, 64]> : tensor<5xi64>
  %shape = mm.constant dense<[1, 8, 7, 64]> : tensor<4xi64>
  %ku = mm.reshape %k, %ins : tensor<1x2x7x64xf32>, tensor<5xi64> -> tensor<1x2x1x7x64xf32>
  %ke = mm.expand %ku, %rep : tensor<1x2x1x7x64xf32>, tensor<5xi64> -> tensor<1x2x4x7x64xf32>
  %kr = mm.reshape %ke, %shape : tensor<1x2x4x7x64xf32>, tensor<4xi64> -> tensor<1x8x7x64xf32>
  %vu = mm.reshape %v, %ins : tensor<1x2x7x64xf32>, tensor<5xi64> -> tensor<1x2x1x7x64xf32>
  %ve = mm.expand %vu, %rep : tensor<1x2x1x7x64xf32>, tensor<5xi64> -> tensor<1x2x4x7x64xf32>
  %vr = mm.reshape %ve, %shape : tensor<1x2x4x7x64xf32>, tensor<4xi64> -> tensor<1x8x7x64xf32>
  %kt = mm.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x7x64xf32> -> tensor<1x8x64x7xf32>
  %s = mm.matmul %q, %kt : tensor<1x8x5x64xf32>, tensor<1x8x64x7xf32> -> tensor<1x8x5x7xf32>
  %ss = mm.mul %c, %s : tensor<f32>, tensor<1x8x5x7xf32> -> tensor<1x8x5x7xf32>
  %p = mm.softmax %ss {axis = 3 : i64} : tensor<1x8x5x7xf32>
  %o = mm.matmul %p, %vr : tensor<1x8x5x7xf32>, tensor<1x8x7x64xf32> -> tensor<1x8x5x64xf32>
  return %o : tensor<1x8x5x64xf32>
}

// -----

// A repeat that is not repeat_kv (the unsqueeze at axis 1) is not folded: attention
// still fuses, reading the repeated key and value.
// CHECK-LABEL: func.func @not_repeat_kv
// CHECK: %[[KR:.*]] = mm.reshape %{{.*}} : tensor<1x2x2x5x8xf32>
// CHECK: %[[VR:.*]] = mm.reshape %{{.*}} : tensor<1x2x2x5x8xf32>
// CHECK: mm.attention %arg0, %[[KR]], %[[VR]] {scale = 1.000000e+00 : f32} : tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>
func.func @not_repeat_kv(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) -> tensor<1x4x5x8xf32> {
  %rep = mm.constant dense<[1, 2, 2, 5, 8]> : tensor<5xi64>
  %shape = mm.constant dense<[1, 4, 5, 8]> : tensor<4xi64>
  %ku = mm.unsqueeze %k {axes = array<i64: 1>} : tensor<1x2x5x8xf32> -> tensor<1x1x2x5x8xf32>
  %ke = mm.expand %ku, %rep : tensor<1x1x2x5x8xf32>, tensor<5xi64> -> tensor<1x2x2x5x8xf32>
  %kr = mm.reshape %ke, %shape : tensor<1x2x2x5x8xf32>, tensor<4xi64> -> tensor<1x4x5x8xf32>
  %vu = mm.unsqueeze %v {axes = array<i64: 1>} : tensor<1x2x5x8xf32> -> tensor<1x1x2x5x8xf32>
  %ve = mm.expand %vu, %rep : tensor<1x1x2x5x8xf32>, tensor<5xi64> -> tensor<1x2x2x5x8xf32>
  %vr = mm.reshape %ve, %shape : tensor<1x2x2x5x8xf32>, tensor<4xi64> -> tensor<1x4x5x8xf32>
  %kt = mm.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x8xf32> -> tensor<1x4x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x4x5x8xf32>, tensor<1x4x8x5xf32> -> tensor<1x4x5x5xf32>
  %p = mm.softmax %s {axis = 3 : i64} : tensor<1x4x5x5xf32>
  %o = mm.matmul %p, %vr : tensor<1x4x5x5xf32>, tensor<1x4x5x8xf32> -> tensor<1x4x5x8xf32>
  return %o : tensor<1x4x5x8xf32>
}

// -----

// Near miss: Softmax over the query axis.
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT: mm.attention
func.func @softmax_wrong_axis(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32> {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  %p = mm.softmax %s {axis = 2 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// Near miss: the key is transposed with [0, 2, 1, 3] (not K^T).
// CHECK-LABEL: func.func @not_key_transposed
// CHECK-NOT: mm.attention
func.func @not_key_transposed(%q: tensor<1x5x5x8xf32>, %k: tensor<1x8x5x5xf32>, %v: tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32> {
  %kt = mm.transpose %k {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x5x5xf32> -> tensor<1x5x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x5x5x8xf32>, tensor<1x5x8x5xf32> -> tensor<1x5x5x5xf32>
  // expected-remark @+1 {{attention not raised: kT is not a transposed key}}
  %p = mm.softmax %s {axis = 3 : i64} : tensor<1x5x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x5x5x5xf32>, tensor<1x5x5x8xf32> -> tensor<1x5x5x8xf32>
  return %o : tensor<1x5x5x8xf32>
}

// -----

// Near miss: the scale is a run-time tensor, not a constant.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK-NOT: mm.attention
func.func @scale_not_constant(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %c: tensor<f32>) -> tensor<1x2x5x8xf32> {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  %ss = mm.mul %s, %c : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: the scores are not q @ kT with scalar scales, an additive mask or a selected hiding fill}}
  %p = mm.softmax %ss {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// Near miss: the mask is added before the scale (the mask gets scaled too).
// CHECK-LABEL: func.func @mask_before_scale
// CHECK-NOT: mm.attention
func.func @mask_before_scale(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<1x1x5x5xf32>) -> tensor<1x2x5x8xf32> {
  %c = mm.constant dense<0.35355339> : tensor<f32>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  %sm = mm.add %s, %m : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32> -> tensor<1x2x5x5xf32>
  %ss = mm.mul %sm, %c : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: the scores are not q @ kT with scalar scales, an additive mask or a selected hiding fill}}
  %p = mm.softmax %ss {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// Near miss: the NaN guard fills with 1, not 0.
// CHECK-LABEL: func.func @nan_guard_not_zero
// CHECK-NOT: mm.attention
func.func @nan_guard_not_zero(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32> {
  %one = mm.constant dense<1.0> : tensor<1xf32>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: the Where between its softmax and p @ v is not torch's where(is_nan(p), 0, p)}}
  %p = mm.softmax %s {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %nan = mm.is_nan %p : tensor<1x2x5x5xf32> -> tensor<1x2x5x5xi1>
  %pz = mm.where %nan, %one, %p : tensor<1x2x5x5xi1>, tensor<1xf32>, tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf32>
  %o = mm.matmul %pz, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// Near miss: the probabilities are also returned (fusing would compute them twice).
// CHECK-LABEL: func.func @probs_used_elsewhere
// CHECK-NOT: mm.attention
func.func @probs_used_elsewhere(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) -> (tensor<1x2x5x8xf32>, tensor<1x2x5x5xf32>) {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: a value inside it is also used outside it}}
  %p = mm.softmax %s {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o, %p : tensor<1x2x5x8xf32>, tensor<1x2x5x5xf32>
}

// -----

// Near miss: the query batch (1) broadcasts against the key's (3); mm.attention does not
// broadcast batches.
// CHECK-LABEL: func.func @batch_broadcast
// CHECK-NOT: mm.attention
func.func @batch_broadcast(%q: tensor<1x2x5x8xf32>, %k: tensor<3x2x5x8xf32>, %v: tensor<3x2x5x8xf32>) -> tensor<3x2x5x8xf32> {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<3x2x5x8xf32> -> tensor<3x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<3x2x8x5xf32> -> tensor<3x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: the batch, head dim or key length of q, k and v are not provably equal}}
  %p = mm.softmax %s {axis = 3 : i64} : tensor<3x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<3x2x5x5xf32>, tensor<3x2x5x8xf32> -> tensor<3x2x5x8xf32>
  return %o : tensor<3x2x5x8xf32>
}

// -----

// The fp16 TorchScript export of HF's SDPA path (gen_half.py): f16 q / k / v, the scores
// cast to f32, the decoder's mask where(allowed, 0, f32 min) added in f32, softmax and
// the IsNaN guard in f32, v cast to f32, p @ v in f32. The island's casts are absorbed:
// mm.attention computes in f16 (f32 inside) and a cast brings its result to the root's
// f32; the mask is rebuilt in f16 as where(allowed, 0, -inf), since f32 min hides a key.
// CHECK-LABEL: func.func @fp16_sdpa_island
// CHECK-NOT: mm.softmax
// CHECK-DAG: %[[NINF:.*]] = mm.constant dense<0xFC00> : tensor<1xf16>
// CHECK-DAG: %[[ZERO:.*]] = mm.constant dense<0.000000e+00> : tensor<1xf16>
// CHECK: %[[M:.*]] = mm.where %arg3, %[[ZERO]], %[[NINF]] : tensor<1x1x5x7xi1>, tensor<1xf16>, tensor<1xf16> -> tensor<1x1x5x7xf16>
// CHECK: %[[A:.*]] = mm.attention %arg0, %arg1, %arg2, %[[M]] {scale = 2.500000e-01 : f32} : tensor<1x4x5x16xf16>, tensor<1x4x7x16xf16>, tensor<1x4x7x16xf16>, tensor<1x1x5x7xf16> -> tensor<1x4x5x16xf16>
// CHECK-NEXT: %[[C:.*]] = mm.cast %[[A]] : tensor<1x4x5x16xf16> -> tensor<1x4x5x16xf32>
// CHECK-NEXT: return %[[C]]
func.func @fp16_sdpa_island(%q: tensor<1x4x5x16xf16>, %k: tensor<1x4x7x16xf16>, %v: tensor<1x4x7x16xf16>, %allowed: tensor<1x1x5x7xi1>) -> tensor<1x4x5x16xf32> {
  %half = mm.constant dense<5.000000e-01> : tensor<f16>
  %zero = mm.constant dense<0.000000e+00> : tensor<1xf32>
  %min = mm.constant dense<-3.40282347E+38> : tensor<1xf32>
  %mask = mm.where %allowed, %zero, %min : tensor<1x1x5x7xi1>, tensor<1xf32>, tensor<1xf32> -> tensor<1x1x5x7xf32>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x16xf16> -> tensor<1x4x16x7xf16>
  %qs = mm.mul %q, %half : tensor<1x4x5x16xf16>, tensor<f16> -> tensor<1x4x5x16xf16>
  %ks = mm.mul %kt, %half : tensor<1x4x16x7xf16>, tensor<f16> -> tensor<1x4x16x7xf16>
  %s = mm.matmul %qs, %ks : tensor<1x4x5x16xf16>, tensor<1x4x16x7xf16> -> tensor<1x4x5x7xf16>
  %sf = mm.cast %s : tensor<1x4x5x7xf16> -> tensor<1x4x5x7xf32>
  %sm = mm.add %sf, %mask : tensor<1x4x5x7xf32>, tensor<1x1x5x7xf32> -> tensor<1x4x5x7xf32>
  %p = mm.softmax %sm {axis = 3 : i64} : tensor<1x4x5x7xf32>
  %nan = mm.is_nan %p : tensor<1x4x5x7xf32> -> tensor<1x4x5x7xi1>
  %pz = mm.where %nan, %zero, %p : tensor<1x4x5x7xi1>, tensor<1xf32>, tensor<1x4x5x7xf32> -> tensor<1x4x5x7xf32>
  %vf = mm.cast %v : tensor<1x4x7x16xf16> -> tensor<1x4x7x16xf32>
  %o = mm.matmul %pz, %vf : tensor<1x4x5x7xf32>, tensor<1x4x7x16xf32> -> tensor<1x4x5x16xf32>
  return %o : tensor<1x4x5x16xf32>
}

// -----

// HF's eager attention in f16: scores * scale + mask in f16 (finfo(f16).min = -65504
// selected by the inverted mask: where(masked, min, 0)), softmax(dtype=float32) as a cast
// up, softmax and a cast down, then p @ v in f16. One op, the mask rebuilt with -inf.
// CHECK-LABEL: func.func @fp16_eager_island
// CHECK-DAG: %[[NINF:.*]] = mm.constant dense<0xFC00> : tensor<f16>
// CHECK-DAG: %[[ZERO:.*]] = mm.constant dense<0.000000e+00> : tensor<f16>
// CHECK: %[[M:.*]] = mm.where %arg3, %[[NINF]], %[[ZERO]] : tensor<1x1x5x5xi1>, tensor<f16>, tensor<f16> -> tensor<1x1x5x5xf16>
// CHECK-NEXT: %[[A:.*]] = mm.attention %arg0, %arg1, %arg2, %[[M]] {scale = 2.500000e-01 : f32} : tensor<1x2x5x16xf16>, tensor<1x2x5x16xf16>, tensor<1x2x5x16xf16>, tensor<1x1x5x5xf16> -> tensor<1x2x5x16xf16>
// CHECK-NEXT: return %[[A]]
func.func @fp16_eager_island(%q: tensor<1x2x5x16xf16>, %k: tensor<1x2x5x16xf16>, %v: tensor<1x2x5x16xf16>, %masked: tensor<1x1x5x5xi1>) -> tensor<1x2x5x16xf16> {
  %scale = mm.constant dense<2.500000e-01> : tensor<f16>
  %zero = mm.constant dense<0.000000e+00> : tensor<f16>
  %min = mm.constant dense<-6.550400e+04> : tensor<f16>
  %mask = mm.where %masked, %min, %zero : tensor<1x1x5x5xi1>, tensor<f16>, tensor<f16> -> tensor<1x1x5x5xf16>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf16> -> tensor<1x2x16x5xf16>
  %s = mm.matmul %q, %kt : tensor<1x2x5x16xf16>, tensor<1x2x16x5xf16> -> tensor<1x2x5x5xf16>
  %ss = mm.mul %s, %scale : tensor<1x2x5x5xf16>, tensor<f16> -> tensor<1x2x5x5xf16>
  %sm = mm.add %ss, %mask : tensor<1x2x5x5xf16>, tensor<1x1x5x5xf16> -> tensor<1x2x5x5xf16>
  %up = mm.cast %sm : tensor<1x2x5x5xf16> -> tensor<1x2x5x5xf32>
  %p = mm.softmax %up {axis = -1 : i64} : tensor<1x2x5x5xf32>
  %down = mm.cast %p : tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf16>
  %o = mm.matmul %down, %v : tensor<1x2x5x5xf16>, tensor<1x2x5x16xf16> -> tensor<1x2x5x16xf16>
  return %o : tensor<1x2x5x16xf16>
}

// -----

// A bool mask selected with Where(mask, scores, finfo.min) instead of -inf: the fill
// hides keys, so it is mm.attention's boolean mask.
// CHECK-LABEL: func.func @bool_mask_finfo_min_fill
// CHECK: mm.attention %arg0, %arg1, %arg2, %arg3 {scale = 1.000000e+00 : f32} : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x1x5x5xi1>
func.func @bool_mask_finfo_min_fill(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<1x1x5x5xi1>) -> tensor<1x2x5x8xf32> {
  %min = mm.constant dense<-3.40282347E+38> : tensor<f32>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32> -> tensor<1x2x5x5xf32>
  %sm = mm.where %m, %s, %min : tensor<1x1x5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xf32>
  %p = mm.softmax %sm {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// A mask fill of -100 is above the hiding bound (-1e4): the mask is taken as a bias, not
// hidden keys, so the block fuses with the mask kept as it is (cast to the op's f16), not
// rebuilt with -inf.
// CHECK-LABEL: func.func @mild_fill_kept
// CHECK: %[[M:.*]] = mm.where %arg3, %{{.*}}, %{{.*}} : tensor<1x1x5x5xi1>, tensor<1xf32>, tensor<1xf32> -> tensor<1x1x5x5xf32>
// CHECK: %[[C:.*]] = mm.cast %[[M]] : tensor<1x1x5x5xf32> -> tensor<1x1x5x5xf16>
// CHECK: mm.attention %arg0, %arg1, %arg2, %[[C]]
func.func @mild_fill_kept(%q: tensor<1x2x5x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf16>, %allowed: tensor<1x1x5x5xi1>) -> tensor<1x2x5x8xf32> {
  %zero = mm.constant dense<0.000000e+00> : tensor<1xf32>
  %fill = mm.constant dense<-1.000000e+02> : tensor<1xf32>
  %mask = mm.where %allowed, %zero, %fill : tensor<1x1x5x5xi1>, tensor<1xf32>, tensor<1xf32> -> tensor<1x1x5x5xf32>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf16> -> tensor<1x2x8x5xf16>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf16>, tensor<1x2x8x5xf16> -> tensor<1x2x5x5xf16>
  %sf = mm.cast %s : tensor<1x2x5x5xf16> -> tensor<1x2x5x5xf32>
  %sm = mm.add %sf, %mask : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32> -> tensor<1x2x5x5xf32>
  %p = mm.softmax %sm {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %vf = mm.cast %v : tensor<1x2x5x8xf16> -> tensor<1x2x5x8xf32>
  %o = mm.matmul %p, %vf : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// Near miss: v comes from an f32 value while q and k are f16 (no common element type
// for the op without rounding v): left as it is.
// CHECK-LABEL: func.func @value_of_other_type
// CHECK-NOT: mm.attention
// CHECK: mm.softmax
func.func @value_of_other_type(%q: tensor<1x2x5x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32> {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf16> -> tensor<1x2x8x5xf16>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf16>, tensor<1x2x8x5xf16> -> tensor<1x2x5x5xf16>
  %sf = mm.cast %s : tensor<1x2x5x5xf16> -> tensor<1x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: v's element type differs from q's}}
  %p = mm.softmax %sf {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o : tensor<1x2x5x8xf32>
}

// -----

// Near miss: the scores cast to f32 are also returned (the island's value is used
// outside the pattern): nothing is fused.
// CHECK-LABEL: func.func @island_cast_used_elsewhere
// CHECK-NOT: mm.attention
func.func @island_cast_used_elsewhere(%q: tensor<1x2x5x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf16>) -> (tensor<1x2x5x8xf32>, tensor<1x2x5x5xf32>) {
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf16> -> tensor<1x2x8x5xf16>
  %s = mm.matmul %q, %kt : tensor<1x2x5x8xf16>, tensor<1x2x8x5xf16> -> tensor<1x2x5x5xf16>
  %sf = mm.cast %s : tensor<1x2x5x5xf16> -> tensor<1x2x5x5xf32>
  // expected-remark @+1 {{attention not raised: a value inside it is also used outside it}}
  %p = mm.softmax %sf {axis = 3 : i64} : tensor<1x2x5x5xf32>
  %vf = mm.cast %v : tensor<1x2x5x8xf16> -> tensor<1x2x5x8xf32>
  %o = mm.matmul %p, %vf : tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %o, %sf : tensor<1x2x5x8xf32>, tensor<1x2x5x5xf32>
}
