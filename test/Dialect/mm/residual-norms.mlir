// Round trip of the residual add + norm ops that -mm-fuse-residual-norm produces, with
// and without optional operands and attributes, static and dynamic dims.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @add_rms_norm
func.func @add_rms_norm(%a: tensor<?x?x64xf32>, %b: tensor<?x?x64xf32>, %w: tensor<64xf32>,
                        %h: tensor<2x8xbf16>, %hw: tensor<8xbf16>)
    -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<2x8xbf16>, tensor<2x8xbf16>) {
  // CHECK: %result, %sum = mm.add_rms_norm %arg0, %arg1, %arg2 : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?x64xf32>
  %y, %s = mm.add_rms_norm %a, %b, %w : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?x64xf32>
  // Gemma's (1 + weight) form and an explicit epsilon.
  // CHECK: mm.add_rms_norm %arg3, %arg3, %arg4 {epsilon = 9.99999974E-6 : f32, scale_offset = 1.000000e+00 : f32} : tensor<2x8xbf16>, tensor<2x8xbf16>, tensor<8xbf16> -> tensor<2x8xbf16>, tensor<2x8xbf16>
  %y2, %s2 = mm.add_rms_norm %h, %h, %hw {epsilon = 1.0e-5 : f32, scale_offset = 1.0 : f32} : tensor<2x8xbf16>, tensor<2x8xbf16>, tensor<8xbf16> -> tensor<2x8xbf16>, tensor<2x8xbf16>
  return %y, %s, %y2, %s2 : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<2x8xbf16>, tensor<2x8xbf16>
}

// CHECK-LABEL: func.func @add_layer_norm
func.func @add_layer_norm(%a: tensor<?x17x64xf32>, %b: tensor<?x17x64xf32>, %g: tensor<64xf32>,
                          %beta: tensor<64xf32>, %x: tensor<1x3x8x8xf16>, %g2: tensor<8x8xf16>) {
  // CHECK: mm.add_layer_norm %arg0, %arg1, %arg2, %arg3 {epsilon = 9.99999996E-13 : f32} : tensor<?x17x64xf32>, tensor<?x17x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x17x64xf32>, tensor<?x17x64xf32>
  %y, %s = mm.add_layer_norm %a, %b, %g, %beta {epsilon = 1.0e-12 : f32} : tensor<?x17x64xf32>, tensor<?x17x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x17x64xf32>, tensor<?x17x64xf32>
  // Without bias, over the last two dims.
  // CHECK: mm.add_layer_norm %arg4, %arg4, %arg5 {axis = 2 : i64} : tensor<1x3x8x8xf16>, tensor<1x3x8x8xf16>, tensor<8x8xf16> -> tensor<1x3x8x8xf16>, tensor<1x3x8x8xf16>
  %y2, %s2 = mm.add_layer_norm %x, %x, %g2 {axis = 2} : tensor<1x3x8x8xf16>, tensor<1x3x8x8xf16>, tensor<8x8xf16> -> tensor<1x3x8x8xf16>, tensor<1x3x8x8xf16>
  return
}
