// -mm-fuse-linear: MatMul by a weight (+ bias) -> mm.linear, activation epilogues, and
// the merge of projections that read one input (Q/K/V, gate/up) into one linear over a
// concat of their weights; then near misses that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-linear -split-input-file | FileCheck %s
// RUN: mmc-opt %s -mm-fuse-linear=merge-projections=false -split-input-file | FileCheck %s --check-prefix=NOMERGE

// Bias on either side of the add (TorchScript puts it first, dynamo second).
// CHECK-LABEL: func.func @bias_either_side
// CHECK-DAG: %[[W:.*]] = mm.weight "w"
// CHECK-DAG: %[[B:.*]] = mm.weight "b"
// CHECK: %[[L1:.*]] = mm.linear %arg0, %[[W]], %[[B]] : tensor<?x17x64xf32>, tensor<64x128xf32>, tensor<128xf32> -> tensor<?x17x128xf32>
// CHECK: %[[L2:.*]] = mm.linear %arg1, %[[W]], %[[B]] : tensor<3x64xf32>, tensor<64x128xf32>, tensor<128xf32> -> tensor<3x128xf32>
// CHECK: return %[[L1]], %[[L2]]
func.func @bias_either_side(%x: tensor<?x17x64xf32>, %y: tensor<3x64xf32>) -> (tensor<?x17x128xf32>, tensor<3x128xf32>) {
  %w = mm.weight "w" from "m.onnx" [0, 32768] : tensor<64x128xf32>
  %b = mm.weight "b" from "m.onnx" [32768, 512] : tensor<128xf32>
  %m1 = mm.matmul %x, %w : tensor<?x17x64xf32>, tensor<64x128xf32> -> tensor<?x17x128xf32>
  %a1 = mm.add %b, %m1 : tensor<128xf32>, tensor<?x17x128xf32> -> tensor<?x17x128xf32>
  %m2 = mm.matmul %y, %w : tensor<3x64xf32>, tensor<64x128xf32> -> tensor<3x128xf32>
  %a2 = mm.add %m2, %b : tensor<3x128xf32>, tensor<128xf32> -> tensor<3x128xf32>
  return %a1, %a2 : tensor<?x17x128xf32>, tensor<3x128xf32>
}

// -----

// Activation epilogues: gelu, gelu<tanh>, quick_gelu, silu.
// CHECK-LABEL: func.func @epilogues
// CHECK: mm.linear %arg0, %{{.*}}, %{{.*}} {activation = #mm.activation<gelu>}
// CHECK: mm.linear %arg0, %{{.*}} {activation = #mm.activation<gelu_tanh>}
// CHECK: mm.linear %arg1, %{{.*}} {activation = #mm.activation<quick_gelu>}
// CHECK: mm.linear %arg1, %{{.*}} {activation = #mm.activation<silu>}
// CHECK-NOT: mm.gelu
// CHECK-NOT: mm.silu
func.func @epilogues(%x: tensor<2x64xf32>, %y: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>) {
  %w1 = mm.weight "w1" from "m.onnx" [0, 16384] : tensor<64x64xf32>
  %w2 = mm.weight "w2" from "m.onnx" [16384, 16384] : tensor<64x64xf32>
  %b = mm.weight "b" from "m.onnx" [32768, 256] : tensor<64xf32>
  %m1 = mm.matmul %x, %w1 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %a1 = mm.add %m1, %b : tensor<2x64xf32>, tensor<64xf32> -> tensor<2x64xf32>
  %g1 = mm.gelu %a1 : tensor<2x64xf32>
  %m2 = mm.matmul %x, %w2 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %g2 = mm.gelu %m2 {approximate = #mm.gelu_approx<tanh>} : tensor<2x64xf32>
  %m3 = mm.matmul %y, %w1 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %g3 = mm.quick_gelu %m3 : tensor<2x64xf32>
  %m4 = mm.matmul %y, %w2 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %g4 = mm.silu %m4 : tensor<2x64xf32>
  return %g1, %g2, %g3, %g4 : tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

// Llama attention: Q, K, V projections of one input merge into one linear over the
// concatenated weights, split into the three results.
// CHECK-LABEL: func.func @merge_qkv
// CHECK-DAG: %[[WQ:.*]] = mm.weight "q"
// CHECK-DAG: %[[WK:.*]] = mm.weight "k"
// CHECK-DAG: %[[WV:.*]] = mm.weight "v"
// CHECK: %[[W:.*]] = mm.concat %[[WQ]], %[[WK]], %[[WV]] {axis = 1 : i64} : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x128xf32>
// CHECK-NEXT: %[[L:.*]] = mm.linear %arg0, %[[W]] : tensor<?x?x64xf32>, tensor<64x128xf32> -> tensor<?x?x128xf32>
// CHECK-NEXT: %[[S:.*]]:3 = mm.split %[[L]] {axis = 2 : i64, sizes = array<i64: 64, 32, 32>} : tensor<?x?x128xf32> -> tensor<?x?x64xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>
// CHECK: return %[[S]]#0, %[[S]]#1, %[[S]]#2
// NOMERGE-LABEL: func.func @merge_qkv
// NOMERGE-COUNT-3: mm.linear
// NOMERGE-NOT: mm.split
func.func @merge_qkv(%x: tensor<?x?x64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>) {
  %wq = mm.weight "q" from "m.onnx" [0, 16384] : tensor<64x64xf32>
  %q = mm.matmul %x, %wq : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %wk = mm.weight "k" from "m.onnx" [16384, 8192] : tensor<64x32xf32>
  %k = mm.matmul %x, %wk : tensor<?x?x64xf32>, tensor<64x32xf32> -> tensor<?x?x32xf32>
  %wv = mm.weight "v" from "m.onnx" [24576, 8192] : tensor<64x32xf32>
  %v = mm.matmul %x, %wv : tensor<?x?x64xf32>, tensor<64x32xf32> -> tensor<?x?x32xf32>
  return %q, %k, %v : tensor<?x?x64xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>
}

// -----

// ViT / CLIP: biased projections merge with a concat of the biases too.
// CHECK-LABEL: func.func @merge_biased
// CHECK: %[[W:.*]] = mm.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x128xf32>
// CHECK-NEXT: %[[B:.*]] = mm.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<64xf32>, tensor<64xf32> -> tensor<128xf32>
// CHECK-NEXT: %[[L:.*]] = mm.linear %arg0, %[[W]], %[[B]]
// CHECK-NEXT: mm.split %[[L]] {axis = 2 : i64, sizes = array<i64: 64, 64>}
func.func @merge_biased(%x: tensor<2x17x64xf32>) -> (tensor<2x17x64xf32>, tensor<2x17x64xf32>) {
  %w1 = mm.weight "w1" from "m.onnx" [0, 16384] : tensor<64x64xf32>
  %w2 = mm.weight "w2" from "m.onnx" [16384, 16384] : tensor<64x64xf32>
  %b1 = mm.weight "b1" from "m.onnx" [32768, 256] : tensor<64xf32>
  %b2 = mm.weight "b2" from "m.onnx" [33024, 256] : tensor<64xf32>
  %m1 = mm.matmul %x, %w1 : tensor<2x17x64xf32>, tensor<64x64xf32> -> tensor<2x17x64xf32>
  %a1 = mm.add %b1, %m1 : tensor<64xf32>, tensor<2x17x64xf32> -> tensor<2x17x64xf32>
  %m2 = mm.matmul %x, %w2 : tensor<2x17x64xf32>, tensor<64x64xf32> -> tensor<2x17x64xf32>
  %a2 = mm.add %b2, %m2 : tensor<64xf32>, tensor<2x17x64xf32> -> tensor<2x17x64xf32>
  return %a1, %a2 : tensor<2x17x64xf32>, tensor<2x17x64xf32>
}

// -----

// A weight stored [N, K] and transposed in the graph is still a weight operand.
// CHECK-LABEL: func.func @transposed_weight
// CHECK: %[[T:.*]] = mm.transpose
// CHECK-NEXT: mm.linear %arg0, %[[T]] : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
func.func @transposed_weight(%x: tensor<4x64xf32>) -> tensor<4x32xf32> {
  %w = mm.weight "w" from "m.onnx" [0, 8192] : tensor<32x64xf32>
  %t = mm.transpose %w {perm = array<i64: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %m = mm.matmul %x, %t : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
  return %m : tensor<4x32xf32>
}

// -----

// [N, K] weights behind transposes (a TorchScript export without constant folding), one
// of them behind a cast too, merge like plain weights: the plan emitter folds the concat
// of transposes along axis 1 (mm/WeightExpr.h). A plain weight reading the same input is
// a group of its own (mixed, the concat could not be folded).
// CHECK-LABEL: func.func @merge_transposed
// CHECK-DAG: %[[TQ:.*]] = mm.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
// CHECK-DAG: %[[TK:.*]] = mm.cast %{{.*}} : tensor<64x16xf16> -> tensor<64x16xf32>
// CHECK: %[[W:.*]] = mm.concat %[[TQ]], %[[TK]] {axis = 1 : i64} : tensor<64x32xf32>, tensor<64x16xf32> -> tensor<64x48xf32>
// CHECK: mm.linear %arg0, %[[W]] : tensor<4x64xf32>, tensor<64x48xf32> -> tensor<4x48xf32>
// CHECK: mm.split
// CHECK: mm.linear %arg0, %{{.*}} : tensor<4x64xf32>, tensor<64x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return
func.func @merge_transposed(%x: tensor<4x64xf32>) -> (tensor<4x32xf32>, tensor<4x16xf32>, tensor<4x8xf32>) {
  %wq = mm.weight "wq" from "m.onnx" [0, 8192] : tensor<32x64xf32>
  %tq = mm.transpose %wq {perm = array<i64: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %q = mm.matmul %x, %tq : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
  %wk = mm.weight "wk" from "m.onnx" [8192, 2048] : tensor<16x64xf16>
  %tk = mm.transpose %wk {perm = array<i64: 1, 0>} : tensor<16x64xf16> -> tensor<64x16xf16>
  %ck = mm.cast %tk : tensor<64x16xf16> -> tensor<64x16xf32>
  %k = mm.matmul %x, %ck : tensor<4x64xf32>, tensor<64x16xf32> -> tensor<4x16xf32>
  %wv = mm.weight "wv" from "m.onnx" [10240, 2048] : tensor<64x8xf32>
  %v = mm.matmul %x, %wv : tensor<4x64xf32>, tensor<64x8xf32> -> tensor<4x8xf32>
  return %q, %k, %v : tensor<4x32xf32>, tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// Not merged: one projection has a bias and the other not; an activation epilogue
// (absorbed first) keeps its linear out of the merge; an add of a full-shape tensor is
// not a bias.
// CHECK-LABEL: func.func @no_merge
// CHECK-NOT: mm.split
// CHECK: mm.linear %arg0, %{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<64x64xf32>, tensor<64xf32>
// CHECK: %[[L2:.*]] = mm.linear %arg0, %{{.*}} : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
// CHECK: mm.add %[[L2]], %arg1
// CHECK: mm.linear %arg0, %{{.*}} {activation = #mm.activation<silu>}
func.func @no_merge(%x: tensor<2x64xf32>, %r: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>) {
  %w1 = mm.weight "w1" from "m.onnx" [0, 16384] : tensor<64x64xf32>
  %w2 = mm.weight "w2" from "m.onnx" [16384, 16384] : tensor<64x64xf32>
  %b = mm.weight "b" from "m.onnx" [32768, 256] : tensor<64xf32>
  %m1 = mm.matmul %x, %w1 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %a1 = mm.add %m1, %b : tensor<2x64xf32>, tensor<64xf32> -> tensor<2x64xf32>
  %m2 = mm.matmul %x, %w2 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %a2 = mm.add %m2, %r : tensor<2x64xf32>, tensor<2x64xf32> -> tensor<2x64xf32>
  %m3 = mm.matmul %x, %w1 : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %s3 = mm.silu %m3 : tensor<2x64xf32>
  return %a1, %a2, %s3 : tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

// Near miss: the right-hand side is an activation (Q K^T), not a weight.
// CHECK-LABEL: func.func @activation_rhs
// CHECK-NOT: mm.linear
func.func @activation_rhs(%x: tensor<4x64xf32>, %y: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %m = mm.matmul %x, %y : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
  return %m : tensor<4x32xf32>
}

// -----

// Near miss: a batched weight [2, 64, 32] is not a linear weight.
// CHECK-LABEL: func.func @batched_weight
// CHECK-NOT: mm.linear
func.func @batched_weight(%x: tensor<2x4x64xf32>) -> tensor<2x4x32xf32> {
  %w = mm.weight "w" from "m.onnx" [0, 16384] : tensor<2x64x32xf32>
  %m = mm.matmul %x, %w : tensor<2x4x64xf32>, tensor<2x64x32xf32> -> tensor<2x4x32xf32>
  return %m : tensor<2x4x32xf32>
}

// -----

// Near miss: the linear's result is used twice, so the gelu cannot become its epilogue.
// CHECK-LABEL: func.func @shared_linear_result
// CHECK: %[[L:.*]] = mm.linear %arg0, %{{.*}} : tensor<2x64xf32>
// CHECK-NEXT: %[[G:.*]] = mm.gelu %[[L]]
// CHECK-NEXT: return %[[G]], %[[L]]
func.func @shared_linear_result(%x: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %w = mm.weight "w" from "m.onnx" [0, 16384] : tensor<64x64xf32>
  %m = mm.matmul %x, %w : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %g = mm.gelu %m : tensor<2x64xf32>
  return %g, %m : tensor<2x64xf32>, tensor<2x64xf32>
}
