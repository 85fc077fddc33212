// Round trip of the high-level transformer ops that fusion produces, with optional
// operands present and absent and dynamic (`?`) dims.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @norms
func.func @norms(%x: tensor<?x?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>,
                 %img: tensor<1x3x8x8xf16>, %g2: tensor<8x8xf16>, %h: tensor<2x?xbf16>, %gh: tensor<?xbf16>) {
  // CHECK: mm.layer_norm %arg0, %arg1, %arg2 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
  %0 = mm.layer_norm %x, %g, %b : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
  // Without bias; normalize over the last two dims with a 2-D scale.
  // CHECK: mm.layer_norm %arg3, %arg4 {axis = 2 : i64, epsilon = 9.99999997E-7 : f32} : tensor<1x3x8x8xf16>, tensor<8x8xf16> -> tensor<1x3x8x8xf16>
  %1 = mm.layer_norm %img, %g2 {axis = 2, epsilon = 1.0e-6 : f32} : tensor<1x3x8x8xf16>, tensor<8x8xf16> -> tensor<1x3x8x8xf16>
  // CHECK: mm.rms_norm %arg0, %arg1 : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
  %2 = mm.rms_norm %x, %g : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
  // Gemma's (1 + weight) form.
  // CHECK: mm.rms_norm %arg5, %arg6 {epsilon = 9.99999974E-6 : f32, scale_offset = 1.000000e+00 : f32} : tensor<2x?xbf16>, tensor<?xbf16> -> tensor<2x?xbf16>
  %3 = mm.rms_norm %h, %gh {epsilon = 1.0e-5 : f32, scale_offset = 1.0 : f32} : tensor<2x?xbf16>, tensor<?xbf16> -> tensor<2x?xbf16>
  return
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<?x128xf32>, %y: tensor<?x128xf32>) {
  // CHECK: mm.gelu %arg0 : tensor<?x128xf32>
  %0 = mm.gelu %x : tensor<?x128xf32>
  // CHECK: mm.gelu %arg0 {approximate = #mm.gelu_approx<tanh>} : tensor<?x128xf32>
  %1 = mm.gelu %x {approximate = #mm.gelu_approx<tanh>} : tensor<?x128xf32>
  // The default spelled out is elided when printed.
  // CHECK: mm.gelu %arg1 : tensor<?x128xf32>
  %2 = mm.gelu %y {approximate = #mm.gelu_approx<none>} : tensor<?x128xf32>
  // CHECK: mm.quick_gelu %arg0 : tensor<?x128xf32>
  %3 = mm.quick_gelu %x : tensor<?x128xf32>
  // CHECK: mm.silu %arg0 : tensor<?x128xf32>
  %4 = mm.silu %x : tensor<?x128xf32>
  // CHECK: mm.swiglu %arg0, %arg1 : tensor<?x128xf32>
  %5 = mm.swiglu %x, %y : tensor<?x128xf32>
  // CHECK: mm.geglu %arg0, %arg1 : tensor<?x128xf32>
  %6 = mm.geglu %x, %y : tensor<?x128xf32>
  // CHECK: mm.geglu %arg0, %arg1 {approximate = #mm.gelu_approx<tanh>} : tensor<?x128xf32>
  %7 = mm.geglu %x, %y {approximate = #mm.gelu_approx<tanh>} : tensor<?x128xf32>
  return
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>,
                     %bmask: tensor<1x1x?x?xi1>, %amask: tensor<?x?xf32>,
                     %q8: tensor<2x8x5x64xf16>, %kv: tensor<2x1x9x64xf16>, %v32: tensor<2x1x9x32xf16>) {
  // GQA (4 query heads over 2 KV heads), causal, no mask.
  // CHECK: mm.attention %arg0, %arg1, %arg2 {causal = true, scale = 2.500000e-01 : f32} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  %0 = mm.attention %q, %k, %v {scale = 0.25 : f32, causal = true}
      : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  // Boolean mask broadcast over heads.
  // CHECK: mm.attention %arg0, %arg1, %arg2, %arg3 {scale = 2.500000e-01 : f32} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x1x?x?xi1> -> tensor<1x4x?x16xf32>
  %1 = mm.attention %q, %k, %v, %bmask {scale = 0.25 : f32}
      : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x1x?x?xi1> -> tensor<1x4x?x16xf32>
  // Additive 2-D mask.
  // CHECK: mm.attention %arg0, %arg1, %arg2, %arg4 {causal = true, scale = 2.500000e-01 : f32} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<?x?xf32> -> tensor<1x4x?x16xf32>
  %2 = mm.attention %q, %k, %v, %amask {scale = 0.25 : f32, causal = true}
      : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<?x?xf32> -> tensor<1x4x?x16xf32>
  // MQA (one KV head), value head_dim differs from the query's.
  // CHECK: mm.attention %arg5, %arg6, %arg7 {scale = 1.250000e-01 : f32} : tensor<2x8x5x64xf16>, tensor<2x1x9x64xf16>, tensor<2x1x9x32xf16> -> tensor<2x8x5x32xf16>
  %3 = mm.attention %q8, %kv, %v32 {scale = 0.125 : f32}
      : tensor<2x8x5x64xf16>, tensor<2x1x9x64xf16>, tensor<2x1x9x32xf16> -> tensor<2x8x5x32xf16>
  return
}

// CHECK-LABEL: func.func @rotary
func.func @rotary(%x: tensor<1x4x?x16xf32>, %c3: tensor<1x?x16xf32>, %s3: tensor<1x?x16xf32>,
                  %c2: tensor<?x8xf32>, %s2: tensor<?x8xf32>) {
  // Rotate-half over the full head_dim, [batch, seq, rot] tables.
  // CHECK: mm.rotary %arg0, %arg1, %arg2 : tensor<1x4x?x16xf32>, tensor<1x?x16xf32>, tensor<1x?x16xf32> -> tensor<1x4x?x16xf32>
  %0 = mm.rotary %x, %c3, %s3 : tensor<1x4x?x16xf32>, tensor<1x?x16xf32>, tensor<1x?x16xf32> -> tensor<1x4x?x16xf32>
  // Interleaved (GPT-J), partial rotation of 8 of 16 channels, [seq, rot] tables.
  // CHECK: mm.rotary %arg0, %arg3, %arg4 {interleaved = true} : tensor<1x4x?x16xf32>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<1x4x?x16xf32>
  %1 = mm.rotary %x, %c2, %s2 {interleaved = true} : tensor<1x4x?x16xf32>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<1x4x?x16xf32>
  return
}

// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<?x?x64xf32>, %w: tensor<64x176xf32>, %b: tensor<176xf32>, %v: tensor<64xf32>) {
  // CHECK: mm.linear %arg0, %arg1 : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %0 = mm.linear %x, %w : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  // CHECK: mm.linear %arg0, %arg1, %arg2 {activation = #mm.activation<gelu>} : tensor<?x?x64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<?x?x176xf32>
  %1 = mm.linear %x, %w, %b {activation = #mm.activation<gelu>} : tensor<?x?x64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<?x?x176xf32>
  // CHECK: mm.linear %arg3, %arg1, %arg2 {activation = #mm.activation<gelu_tanh>} : tensor<64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<176xf32>
  %2 = mm.linear %v, %w, %b {activation = #mm.activation<gelu_tanh>} : tensor<64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<176xf32>
  // CHECK: mm.linear %arg0, %arg1 {activation = #mm.activation<quick_gelu>} : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %3 = mm.linear %x, %w {activation = #mm.activation<quick_gelu>} : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  // CHECK: mm.linear %arg0, %arg1 {activation = #mm.activation<silu>} : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %4 = mm.linear %x, %w {activation = #mm.activation<silu>} : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  // CHECK: mm.linear %arg0, %arg1, %arg2 {activation = #mm.activation<relu>} : tensor<?x?x64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<?x?x176xf32>
  %5 = mm.linear %x, %w, %b {activation = #mm.activation<relu>} : tensor<?x?x64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<?x?x176xf32>
  // CHECK: mm.linear %arg0, %arg1, %arg2 : tensor<?x?x64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<?x?x176xf32>
  %6 = mm.linear %x, %w, %b {activation = #mm.activation<none>} : tensor<?x?x64xf32>, tensor<64x176xf32>, tensor<176xf32> -> tensor<?x?x176xf32>
  return
}
