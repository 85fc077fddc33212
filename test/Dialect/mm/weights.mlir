// Round trip of weights (referenced outside the IR), inline constants and quantization ops.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @weights
func.func @weights() {
  // 64 x 176 f32 = 45056 bytes.
  // CHECK: mm.weight "model.layers.0.mlp.up_proj.weight" from "model.safetensors"[128, 45056] : tensor<64x176xf32>
  %0 = mm.weight "model.layers.0.mlp.up_proj.weight" from "model.safetensors" [128, 45056] : tensor<64x176xf32>
  // i1 is stored as one byte per element; a 0-D weight holds one element.
  // CHECK: mm.weight "mask" from "onnx/decoder_model_merged.onnx"[0, 6] : tensor<2x3xi1>
  %1 = mm.weight "mask" from "onnx/decoder_model_merged.onnx" [0, 6] : tensor<2x3xi1>
  // CHECK: mm.weight "eps" from "m.onnx"[4, 2] : tensor<bf16>
  %2 = mm.weight "eps" from "m.onnx" [4, 2] : tensor<bf16>
  // Sub-byte types: 4 x 5 i4 = 10 bytes; an empty weight is 0 bytes.
  // CHECK: mm.weight "q4" from "w.bin"[0, 10] : tensor<4x5xi4>
  %3 = mm.weight "q4" from "w.bin" [0, 10] : tensor<4x5xi4>
  // CHECK: mm.weight "empty" from "w.bin"[10, 0] : tensor<0x8xf32>
  %4 = mm.weight "empty" from "w.bin" [10, 0] : tensor<0x8xf32>
  return
}

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK: mm.constant dense<[1, -1, 64]> : tensor<3xi64>
  %0 = mm.constant dense<[1, -1, 64]> : tensor<3xi64>
  // CHECK: mm.constant dense<1.250000e-01> : tensor<f32>
  %1 = mm.constant dense<0.125> : tensor<f32>
  // CHECK: mm.constant dense<[true, false]> : tensor<2xi1>
  %2 = mm.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: mm.constant dense<0xFF80> : tensor<1x1x2x2xbf16>
  %3 = mm.constant dense<0xFF80> : tensor<1x1x2x2xbf16>
  // Discardable attributes survive the custom form.
  // CHECK: mm.constant {mm.name = "shape_0"} dense<[2, 3]> : tensor<2xi32>
  %4 = mm.constant {mm.name = "shape_0"} dense<[2, 3]> : tensor<2xi32>
  // CHECK: mm.constant dense<> : tensor<0xi64>
  %5 = mm.constant dense<> : tensor<0xi64>
  return
}

// CHECK-LABEL: func.func @quantization
func.func @quantization(%q: tensor<64x176xi8>, %s0: tensor<f32>, %z0: tensor<i8>, %s1: tensor<176xf32>,
                        %z1: tensor<176xi8>, %q4: tensor<64x?xi4>, %sb: tensor<2x?xf16>, %zb: tensor<2x?xi4>,
                        %x: tensor<?x64xf32>, %sx: tensor<64xf32>, %zx: tensor<64xi8>) {
  // Per-tensor, without and with zero point.
  // CHECK: mm.dequantize_linear %arg0, %arg1 : tensor<64x176xi8>, tensor<f32> -> tensor<64x176xf32>
  %0 = mm.dequantize_linear %q, %s0 : tensor<64x176xi8>, tensor<f32> -> tensor<64x176xf32>
  // CHECK: mm.dequantize_linear %arg0, %arg1, %arg2 : tensor<64x176xi8>, tensor<f32>, tensor<i8> -> tensor<64x176xf32>
  %1 = mm.dequantize_linear %q, %s0, %z0 : tensor<64x176xi8>, tensor<f32>, tensor<i8> -> tensor<64x176xf32>
  // Per-axis along the output channels.
  // CHECK: mm.dequantize_linear %arg0, %arg3, %arg4 : tensor<64x176xi8>, tensor<176xf32>, tensor<176xi8> -> tensor<64x176xf32>
  %2 = mm.dequantize_linear %q, %s1, %z1 {axis = 1} : tensor<64x176xi8>, tensor<176xf32>, tensor<176xi8> -> tensor<64x176xf32>
  // Blocked (group-wise INT4, 32 rows per scale).
  // CHECK: mm.dequantize_linear %arg5, %arg6, %arg7 {axis = 0 : i64, block_size = 32 : i64} : tensor<64x?xi4>, tensor<2x?xf16>, tensor<2x?xi4> -> tensor<64x?xf16>
  %3 = mm.dequantize_linear %q4, %sb, %zb {axis = 0, block_size = 32} : tensor<64x?xi4>, tensor<2x?xf16>, tensor<2x?xi4> -> tensor<64x?xf16>
  // CHECK: mm.quantize_linear %arg8, %arg1 : tensor<?x64xf32>, tensor<f32> -> tensor<?x64xui8>
  %4 = mm.quantize_linear %x, %s0 : tensor<?x64xf32>, tensor<f32> -> tensor<?x64xui8>
  // CHECK: mm.quantize_linear %arg8, %arg9, %arg10 {axis = -1 : i64} : tensor<?x64xf32>, tensor<64xf32>, tensor<64xi8> -> tensor<?x64xi8>
  %5 = mm.quantize_linear %x, %sx, %zx {axis = -1} : tensor<?x64xf32>, tensor<64xf32>, tensor<64xi8> -> tensor<?x64xi8>
  return
}
