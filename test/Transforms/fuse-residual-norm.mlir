// -mm-fuse-residual-norm: a residual add whose sum feeds a norm becomes one op with two
// results (normalised value, sum); then near misses that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-residual-norm -split-input-file | FileCheck %s

// Pre-norm decoder layer: the sum feeds the norm and the next residual add.
// CHECK-LABEL: func.func @add_rms_norm
// CHECK-NEXT: %[[Y:.*]], %[[S:.*]] = mm.add_rms_norm %arg0, %arg1, %arg2 {epsilon = 9.99999974E-6 : f32} : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>, tensor<?x?x64xf32>
// CHECK-NEXT: %[[N:.*]] = mm.add %[[S]], %[[Y]]
// CHECK-NEXT: return %[[N]]
func.func @add_rms_norm(%res: tensor<?x?x64xf32>, %out: tensor<?x?x64xf32>, %w: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %sum = mm.add %res, %out : tensor<?x?x64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  %y = mm.rms_norm %sum, %w {epsilon = 1.0e-5 : f32} : tensor<?x?x64xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
  %next = mm.add %sum, %y : tensor<?x?x64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  return %next : tensor<?x?x64xf32>
}

// -----

// ViT: layer norm with bias; Gemma-style offset and attributes carried over; a use of
// the sum between the add and the norm, and a weight defined after the add (moved up).
// CHECK-LABEL: func.func @add_layer_norm
// CHECK: %[[G:.*]] = mm.weight "g"
// CHECK-NEXT: %[[Y:.*]], %[[S:.*]] = mm.add_layer_norm %arg0, %arg1, %[[G]], %arg2 {epsilon = 9.99999996E-13 : f32} : tensor<2x17x64xf32>, tensor<2x17x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x17x64xf32>, tensor<2x17x64xf32>
// CHECK-NEXT: %[[E:.*]] = mm.exp %[[S]]
// CHECK-NEXT: return %[[Y]], %[[E]]
func.func @add_layer_norm(%a: tensor<2x17x64xf32>, %b: tensor<2x17x64xf32>, %beta: tensor<64xf32>) -> (tensor<2x17x64xf32>, tensor<2x17x64xf32>) {
  %sum = mm.add %a, %b : tensor<2x17x64xf32>, tensor<2x17x64xf32> -> tensor<2x17x64xf32>
  %e = mm.exp %sum : tensor<2x17x64xf32>
  %g = mm.weight "g" from "m.onnx" [0, 256] : tensor<64xf32>
  %y = mm.layer_norm %sum, %g, %beta {epsilon = 1.0e-12 : f32} : tensor<2x17x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x17x64xf32>
  return %y, %e : tensor<2x17x64xf32>, tensor<2x17x64xf32>
}

// -----

// Gemma's scale offset is kept.
// CHECK-LABEL: func.func @offset_kept
// CHECK: mm.add_rms_norm %arg0, %arg1, %arg2 {scale_offset = 1.000000e+00 : f32}
func.func @offset_kept(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>, %w: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %sum = mm.add %a, %b : tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<4x8xbf16>
  %y = mm.rms_norm %sum, %w {scale_offset = 1.0 : f32} : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

// Near miss: a broadcasting add (position embedding [1, S, C] + [B, S, C]).
// CHECK-LABEL: func.func @broadcast_add
// CHECK-NOT: mm.add_layer_norm
// CHECK: mm.layer_norm
func.func @broadcast_add(%a: tensor<2x17x64xf32>, %pos: tensor<1x17x64xf32>, %g: tensor<64xf32>) -> tensor<2x17x64xf32> {
  %sum = mm.add %a, %pos : tensor<2x17x64xf32>, tensor<1x17x64xf32> -> tensor<2x17x64xf32>
  %y = mm.layer_norm %sum, %g : tensor<2x17x64xf32>, tensor<64xf32> -> tensor<2x17x64xf32>
  return %y : tensor<2x17x64xf32>
}

// -----

// Near miss: the norm reads a subtraction, not an add.
// CHECK-LABEL: func.func @sub_not_add
// CHECK-NOT: mm.add_rms_norm
func.func @sub_not_add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %d = mm.sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %y = mm.rms_norm %d, %w : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Near miss: the scale is computed after the add from the sum itself (it cannot move
// above the add).
// CHECK-LABEL: func.func @scale_after_add
// CHECK-NOT: mm.add_rms_norm
func.func @scale_after_add(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %sum = mm.add %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %i = mm.constant dense<0> : tensor<i64>
  %w = mm.gather %sum, %i : tensor<8x8xf32>, tensor<i64> -> tensor<8xf32>
  %y = mm.rms_norm %sum, %w : tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// A checkpoint's bf16 norm scale and bias, cast to the compute type after the add (the
// Hugging Face importer's order, weight by weight): the weights and their casts move
// above the add, operands first.
// CHECK-LABEL: func.func @cast_weights_after_add
// CHECK: %[[G:.*]] = mm.weight "g"
// CHECK-NEXT: %[[GC:.*]] = mm.cast %[[G]]
// CHECK-NEXT: %[[B:.*]] = mm.weight "b"
// CHECK-NEXT: %[[BC:.*]] = mm.cast %[[B]]
// CHECK-NEXT: %[[Y:.*]], %[[S:.*]] = mm.add_layer_norm %arg0, %arg1, %[[GC]], %[[BC]]
// CHECK-NEXT: return %[[Y]], %[[S]]
func.func @cast_weights_after_add(%a: tensor<2x17x64xf32>, %b: tensor<2x17x64xf32>) -> (tensor<2x17x64xf32>, tensor<2x17x64xf32>) {
  %sum = mm.add %a, %b : tensor<2x17x64xf32>, tensor<2x17x64xf32> -> tensor<2x17x64xf32>
  %g = mm.weight "g" from "m.safetensors" [0, 128] : tensor<64xbf16>
  %gc = mm.cast %g : tensor<64xbf16> -> tensor<64xf32>
  %bw = mm.weight "b" from "m.safetensors" [128, 128] : tensor<64xbf16>
  %bc = mm.cast %bw : tensor<64xbf16> -> tensor<64xf32>
  %y = mm.layer_norm %sum, %gc, %bc {epsilon = 1.0e-6 : f32} : tensor<2x17x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x17x64xf32>
  return %y, %sum : tensor<2x17x64xf32>, tensor<2x17x64xf32>
}

// -----

// Near miss: the scale is an op on a value computed from the sum (the chain reaches the
// add): nothing moves.
// CHECK-LABEL: func.func @op_on_sum_after_add
// CHECK-NOT: mm.add_rms_norm
// CHECK: mm.add %arg0, %arg1
// CHECK-NEXT: mm.gather
// CHECK-NEXT: mm.neg
// CHECK-NEXT: mm.rms_norm
func.func @op_on_sum_after_add(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %sum = mm.add %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %i = mm.constant dense<0> : tensor<i64>
  %row = mm.gather %sum, %i : tensor<8x8xf32>, tensor<i64> -> tensor<8xf32>
  %w = mm.neg %row : tensor<8xf32>
  %y = mm.rms_norm %sum, %w : tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Near miss: the scale is an op after the add on an activation (a function argument),
// not on weights: activations are not moved, so the add and the norm stay apart.
// CHECK-LABEL: func.func @op_on_activation_after_add
// CHECK-NOT: mm.add_rms_norm
// CHECK: mm.add %arg0, %arg1
// CHECK-NEXT: mm.neg %arg2
// CHECK-NEXT: mm.rms_norm
func.func @op_on_activation_after_add(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %s: tensor<8xf32>) -> tensor<8x8xf32> {
  %sum = mm.add %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %w = mm.neg %s : tensor<8xf32>
  %y = mm.rms_norm %sum, %w : tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
