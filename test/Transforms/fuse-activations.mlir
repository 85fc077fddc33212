// -mm-fuse-activations: GELU (erf and tanh forms), QuickGELU, SiLU, SwiGLU and GeGLU as the
// exporters decompose them, then near misses (a constant slightly off, a factor
// missing, the gate applied to another value) that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-activations -split-input-file | FileCheck %s

// GELU as TorchScript exports nn.GELU (CLIP's projector, ViT): Div by sqrt(2), Erf,
// Add 1, Mul x, Mul 0.5.
// CHECK-LABEL: func.func @gelu_erf_torchscript
// CHECK-NEXT: %[[G:.*]] = mm.gelu %arg0 : tensor<?x16x64xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_erf_torchscript(%x: tensor<?x16x64xf32>) -> tensor<?x16x64xf32> {
  %c = mm.constant dense<1.41421354> : tensor<f32>
  %d = mm.div %x, %c : tensor<?x16x64xf32>, tensor<f32> -> tensor<?x16x64xf32>
  %e = mm.erf %d : tensor<?x16x64xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %e, %one : tensor<?x16x64xf32>, tensor<f32> -> tensor<?x16x64xf32>
  %m = mm.mul %x, %a : tensor<?x16x64xf32>, tensor<?x16x64xf32> -> tensor<?x16x64xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %y = mm.mul %m, %half : tensor<?x16x64xf32>, tensor<f32> -> tensor<?x16x64xf32>
  return %y : tensor<?x16x64xf32>
}

// -----

// x * 0.70710678 instead of the division, 0.5 * x computed first, 1 on the left.
// CHECK-LABEL: func.func @gelu_erf_half_first
// CHECK-NEXT: %[[G:.*]] = mm.gelu %arg0 : tensor<4x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_erf_half_first(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = mm.constant dense<0.707106769> : tensor<f32>
  %d = mm.mul %c, %x : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %e = mm.erf %d : tensor<4x8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %one, %e : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %hx = mm.mul %x, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %y = mm.mul %hx, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The tanh form (GPT-2 / gelu_pytorch_tanh): x^3 by pow.
// CHECK-LABEL: func.func @gelu_tanh_pow
// CHECK-NEXT: %[[G:.*]] = mm.gelu %arg0 {approximate = #mm.gelu_approx<tanh>} : tensor<4x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_pow(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = mm.constant dense<3.0> : tensor<f32>
  %x3 = mm.pow %x, %three : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %k = mm.constant dense<4.471500e-02> : tensor<f32>
  %kx3 = mm.mul %k, %x3 : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %in = mm.add %x, %kx3 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %s = mm.constant dense<0.797884583> : tensor<f32>
  %arg = mm.mul %in, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %t = mm.tanh %arg : tensor<4x8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %t, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %h = mm.mul %half, %a : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %y = mm.mul %x, %h : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The tanh form with x^3 as x * (x * x), in f16.
// CHECK-LABEL: func.func @gelu_tanh_products
// CHECK-NEXT: %[[G:.*]] = mm.gelu %arg0 {approximate = #mm.gelu_approx<tanh>} : tensor<4x8xf16>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_products(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %xx = mm.mul %x, %x : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %x3 = mm.mul %x, %xx : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %k = mm.constant dense<4.471500e-02> : tensor<f16>
  %kx3 = mm.mul %x3, %k : tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
  %in = mm.add %kx3, %x : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %s = mm.constant dense<0.797884583> : tensor<f16>
  %arg = mm.mul %s, %in : tensor<f16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %t = mm.tanh %arg : tensor<4x8xf16>
  %one = mm.constant dense<1.0> : tensor<f16>
  %a = mm.add %t, %one : tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
  %m = mm.mul %x, %a : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %half = mm.constant dense<5.0e-1> : tensor<f16>
  %y = mm.mul %m, %half : tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// QuickGELU as both exporters emit CLIP's activation: x * sigmoid(1.702 x).
// CHECK-LABEL: func.func @quick_gelu
// CHECK-NEXT: %[[G:.*]] = mm.quick_gelu %arg0 : tensor<?x17x128xf32>
// CHECK-NEXT: return %[[G]]
func.func @quick_gelu(%x: tensor<?x17x128xf32>) -> tensor<?x17x128xf32> {
  %c = mm.constant dense<1.702000e+00> : tensor<f32>
  %m = mm.mul %x, %c : tensor<?x17x128xf32>, tensor<f32> -> tensor<?x17x128xf32>
  %s = mm.sigmoid %m : tensor<?x17x128xf32>
  %y = mm.mul %x, %s : tensor<?x17x128xf32>, tensor<?x17x128xf32> -> tensor<?x17x128xf32>
  return %y : tensor<?x17x128xf32>
}

// -----

// An exporter's value_info may pin a dim the input leaves dynamic; the fused op refines
// its input with a dims-only cast and keeps the original result type.
// CHECK-LABEL: func.func @quick_gelu_refined_type
// CHECK-NEXT: %[[C:.*]] = mm.cast %arg0 : tensor<?x17x128xf32> -> tensor<1x17x128xf32>
// CHECK-NEXT: %[[G:.*]] = mm.quick_gelu %[[C]] : tensor<1x17x128xf32>
// CHECK-NEXT: return %[[G]]
func.func @quick_gelu_refined_type(%x: tensor<?x17x128xf32>) -> tensor<1x17x128xf32> {
  %c = mm.constant dense<1.702000e+00> : tensor<f32>
  %m = mm.mul %x, %c : tensor<?x17x128xf32>, tensor<f32> -> tensor<1x17x128xf32>
  %s = mm.sigmoid %m : tensor<1x17x128xf32>
  %y = mm.mul %x, %s : tensor<?x17x128xf32>, tensor<1x17x128xf32> -> tensor<1x17x128xf32>
  return %y : tensor<1x17x128xf32>
}

// -----

// SiLU and SwiGLU as Llama's MLP exports: silu(gate) * up.
// CHECK-LABEL: func.func @swiglu
// CHECK-NEXT: %[[S:.*]] = mm.swiglu %arg0, %arg1 : tensor<?x?x176xf32>
// CHECK-NEXT: return %[[S]]
func.func @swiglu(%gate: tensor<?x?x176xf32>, %up: tensor<?x?x176xf32>) -> tensor<?x?x176xf32> {
  %s = mm.sigmoid %gate : tensor<?x?x176xf32>
  %silu = mm.mul %gate, %s : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %y = mm.mul %silu, %up : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  return %y : tensor<?x?x176xf32>
}

// -----

// GeGLU as Gemma's MLP: gelu(gate) * up, up on either side, the GELU's approximation kept
// (tanh: gelu_pytorch_tanh; erf: ONNX Gelu without approximate).
// CHECK-LABEL: func.func @geglu
// CHECK-NEXT: %[[T:.*]] = mm.geglu %arg0, %arg1 {approximate = #mm.gelu_approx<tanh>} : tensor<?x?x176xf32>
// CHECK-NEXT: %[[E:.*]] = mm.geglu %arg0, %arg1 : tensor<?x?x176xf32>
// CHECK-NEXT: return %[[T]], %[[E]]
func.func @geglu(%gate: tensor<?x?x176xf32>, %up: tensor<?x?x176xf32>) -> (tensor<?x?x176xf32>, tensor<?x?x176xf32>) {
  %gt = mm.gelu %gate {approximate = #mm.gelu_approx<tanh>} : tensor<?x?x176xf32>
  %t = mm.mul %up, %gt : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %ge = mm.gelu %gate : tensor<?x?x176xf32>
  %e = mm.mul %ge, %up : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  return %t, %e : tensor<?x?x176xf32>, tensor<?x?x176xf32>
}

// -----

// Near misses: a GELU read twice, and a product that broadcasts the GELU, stay as they are.
// CHECK-LABEL: func.func @geglu_near_misses
// CHECK-NOT: mm.geglu
// CHECK: return
func.func @geglu_near_misses(%gate: tensor<8xf32>, %up: tensor<8xf32>, %row: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>) {
  %g = mm.gelu %gate : tensor<8xf32>
  %y = mm.mul %g, %up : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %h = mm.gelu %up : tensor<8xf32>
  %b = mm.mul %h, %row : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %y, %g, %b : tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>
}

// -----

// SiLU alone (sigmoid on the right), and a SiLU used twice is not turned into SwiGLU.
// CHECK-LABEL: func.func @silu_shared
// CHECK-NEXT: %[[S:.*]] = mm.silu %arg0 : tensor<8xf32>
// CHECK-NEXT: %[[M:.*]] = mm.mul %[[S]], %arg1
// CHECK-NEXT: return %[[M]], %[[S]]
func.func @silu_shared(%x: tensor<8xf32>, %u: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = mm.sigmoid %x : tensor<8xf32>
  %silu = mm.mul %s, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %y = mm.mul %silu, %u : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %y, %silu : tensor<8xf32>, tensor<8xf32>
}

// -----

// Near miss: 1.7 instead of 1.702 is not QuickGELU.
// CHECK-LABEL: func.func @quick_gelu_wrong_constant
// CHECK-NOT: mm.quick_gelu
// CHECK: mm.sigmoid
func.func @quick_gelu_wrong_constant(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = mm.constant dense<1.7> : tensor<f32>
  %m = mm.mul %x, %c : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %s = mm.sigmoid %m : tensor<8xf32>
  %y = mm.mul %x, %s : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near miss: the gate is sigmoid of another value (a GLU, not SiLU).
// CHECK-LABEL: func.func @sigmoid_of_other
// CHECK-NOT: mm.silu
// CHECK: mm.sigmoid
func.func @sigmoid_of_other(%x: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  %s = mm.sigmoid %z : tensor<8xf32>
  %y = mm.mul %x, %s : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near miss: erf(x / 1.5) is not GELU's erf(x / sqrt(2)).
// CHECK-LABEL: func.func @gelu_wrong_divisor
// CHECK-NOT: mm.gelu
func.func @gelu_wrong_divisor(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = mm.constant dense<1.5> : tensor<f32>
  %d = mm.div %x, %c : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e = mm.erf %d : tensor<8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m = mm.mul %x, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %y = mm.mul %m, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near miss: the 0.5 factor is missing (x * (1 + erf(x / sqrt 2)) is 2 * GELU).
// CHECK-LABEL: func.func @gelu_missing_half
// CHECK-NOT: mm.gelu
func.func @gelu_missing_half(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = mm.constant dense<1.41421354> : tensor<f32>
  %d = mm.div %x, %c : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e = mm.erf %d : tensor<8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m = mm.mul %x, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Near miss: the erf argument is another tensor than the multiplied x.
// CHECK-LABEL: func.func @gelu_other_argument
// CHECK-NOT: mm.gelu
func.func @gelu_other_argument(%x: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  %c = mm.constant dense<1.41421354> : tensor<f32>
  %d = mm.div %z, %c : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e = mm.erf %d : tensor<8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m = mm.mul %x, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %y = mm.mul %m, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near miss: 0.045 instead of 0.044715 in the tanh form.
// CHECK-LABEL: func.func @gelu_tanh_wrong_cubic
// CHECK-NOT: mm.gelu
func.func @gelu_tanh_wrong_cubic(%x: tensor<8xf32>) -> tensor<8xf32> {
  %three = mm.constant dense<3.0> : tensor<f32>
  %x3 = mm.pow %x, %three : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %k = mm.constant dense<4.500000e-02> : tensor<f32>
  %kx3 = mm.mul %k, %x3 : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
  %in = mm.add %x, %kx3 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %s = mm.constant dense<0.797884583> : tensor<f32>
  %arg = mm.mul %in, %s : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %t = mm.tanh %arg : tensor<8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %t, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m = mm.mul %x, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %y = mm.mul %m, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near miss: an intermediate (1 + erf) is returned too; fusing would compute erf twice.
// CHECK-LABEL: func.func @gelu_shared_intermediate
// CHECK-NOT: mm.gelu
func.func @gelu_shared_intermediate(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = mm.constant dense<1.41421354> : tensor<f32>
  %d = mm.div %x, %c : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e = mm.erf %d : tensor<8xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %a = mm.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %m = mm.mul %x, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %half = mm.constant dense<5.0e-1> : tensor<f32>
  %y = mm.mul %m, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %y, %a : tensor<8xf32>, tensor<8xf32>
}
