// -mm-fuse-all: the passes in addFusionPasses() order compose. A Llama MLP block: the
// residual add + RMSNorm decomposition becomes mm.add_rms_norm (rms-norm, then
// residual-norm), SiLU(gate) * up becomes mm.swiglu before -mm-fuse-linear runs, so the
// gate projection is not given a silu epilogue and merges with the up projection.
// RUN: mmc-opt %s -mm-fuse-all | FileCheck %s

// CHECK-LABEL: func.func @llama_mlp
// CHECK-DAG: %[[WN:.*]] = mm.weight "norm"
// CHECK-DAG: %[[WG:.*]] = mm.weight "gate"
// CHECK-DAG: %[[WU:.*]] = mm.weight "up"
// CHECK-DAG: %[[WD:.*]] = mm.weight "down"
// CHECK: %[[N:.*]], %[[S:.*]] = mm.add_rms_norm %arg0, %arg1, %[[WN]] {epsilon = 9.99999974E-6 : f32}
// CHECK-NEXT: %[[W:.*]] = mm.concat %[[WG]], %[[WU]] {axis = 1 : i64}
// CHECK-NEXT: %[[L:.*]] = mm.linear %[[N]], %[[W]] : tensor<?x?x64xf32>, tensor<64x352xf32> -> tensor<?x?x352xf32>
// CHECK-NEXT: %[[GU:.*]]:2 = mm.split %[[L]] {axis = 2 : i64, sizes = array<i64: 176, 176>}
// CHECK-NEXT: %[[SW:.*]] = mm.swiglu %[[GU]]#0, %[[GU]]#1
// CHECK-NEXT: %[[D:.*]] = mm.linear %[[SW]], %[[WD]]
// CHECK-NEXT: %[[R:.*]] = mm.add %[[S]], %[[D]]
// CHECK-NEXT: return %[[R]]
func.func @llama_mlp(%h: tensor<?x?x64xf32>, %attn: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %wn = mm.weight "norm" from "m.onnx" [0, 256] : tensor<64xf32>
  %wg = mm.weight "gate" from "m.onnx" [256, 45056] : tensor<64x176xf32>
  %wu = mm.weight "up" from "m.onnx" [45312, 45056] : tensor<64x176xf32>
  %wd = mm.weight "down" from "m.onnx" [90368, 45056] : tensor<176x64xf32>
  %sum = mm.add %h, %attn : tensor<?x?x64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  %two = mm.constant dense<2.0> : tensor<f32>
  %p = mm.pow %sum, %two : tensor<?x?x64xf32>, tensor<f32> -> tensor<?x?x64xf32>
  %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<?x?x64xf32> -> tensor<?x?x1xf32>
  %eps = mm.constant dense<1.0e-5> : tensor<f32>
  %a = mm.add %ms, %eps : tensor<?x?x1xf32>, tensor<f32> -> tensor<?x?x1xf32>
  %s = mm.sqrt %a : tensor<?x?x1xf32>
  %inv = mm.reciprocal %s : tensor<?x?x1xf32>
  %n0 = mm.mul %sum, %inv : tensor<?x?x64xf32>, tensor<?x?x1xf32> -> tensor<?x?x64xf32>
  %n = mm.mul %wn, %n0 : tensor<64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  %g = mm.matmul %n, %wg : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %sg = mm.sigmoid %g : tensor<?x?x176xf32>
  %silu = mm.mul %g, %sg : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %u = mm.matmul %n, %wu : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %gu = mm.mul %silu, %u : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %d = mm.matmul %gu, %wd : tensor<?x?x176xf32>, tensor<176x64xf32> -> tensor<?x?x64xf32>
  %r = mm.add %sum, %d : tensor<?x?x64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// A Gemma MLP (GeGLU with the tanh GELU, as the ONNX exporters write it): the GELU forms
// first, then gelu(gate) * up becomes mm.geglu, so the gate projection gets no GELU
// epilogue and merges with the up projection as SwiGLU's does.
// CHECK-LABEL: func.func @gemma_mlp
// CHECK-DAG: %[[WG:.*]] = mm.weight "gate"
// CHECK-DAG: %[[WU:.*]] = mm.weight "up"
// CHECK: %[[W:.*]] = mm.concat %[[WG]], %[[WU]] {axis = 1 : i64}
// CHECK-NEXT: %[[L:.*]] = mm.linear %arg0, %[[W]] : tensor<?x?x64xf32>, tensor<64x352xf32> -> tensor<?x?x352xf32>
// CHECK-NEXT: %[[GU:.*]]:2 = mm.split %[[L]] {axis = 2 : i64, sizes = array<i64: 176, 176>}
// CHECK-NEXT: %[[GG:.*]] = mm.geglu %[[GU]]#0, %[[GU]]#1 {approximate = #mm.gelu_approx<tanh>}
// CHECK-NEXT: %[[D:.*]] = mm.linear %[[GG]], %{{.*}}
// CHECK-NEXT: return %[[D]]
func.func @gemma_mlp(%n: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %wg = mm.weight "gate" from "m.onnx" [0, 45056] : tensor<64x176xf32>
  %wu = mm.weight "up" from "m.onnx" [45056, 45056] : tensor<64x176xf32>
  %wd = mm.weight "down" from "m.onnx" [90112, 45056] : tensor<176x64xf32>
  %g = mm.matmul %n, %wg : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %c3 = mm.constant dense<3.0> : tensor<f32>
  %x3 = mm.pow %g, %c3 : tensor<?x?x176xf32>, tensor<f32> -> tensor<?x?x176xf32>
  %k = mm.constant dense<0.044715> : tensor<f32>
  %kx3 = mm.mul %x3, %k : tensor<?x?x176xf32>, tensor<f32> -> tensor<?x?x176xf32>
  %in = mm.add %g, %kx3 : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %s = mm.constant dense<0.797884583> : tensor<f32>
  %si = mm.mul %in, %s : tensor<?x?x176xf32>, tensor<f32> -> tensor<?x?x176xf32>
  %t = mm.tanh %si : tensor<?x?x176xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %t1 = mm.add %t, %one : tensor<?x?x176xf32>, tensor<f32> -> tensor<?x?x176xf32>
  %xt = mm.mul %g, %t1 : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %half = mm.constant dense<0.5> : tensor<f32>
  %gelu = mm.mul %xt, %half : tensor<?x?x176xf32>, tensor<f32> -> tensor<?x?x176xf32>
  %u = mm.matmul %n, %wu : tensor<?x?x64xf32>, tensor<64x176xf32> -> tensor<?x?x176xf32>
  %gu = mm.mul %gelu, %u : tensor<?x?x176xf32>, tensor<?x?x176xf32> -> tensor<?x?x176xf32>
  %d = mm.matmul %gu, %wd : tensor<?x?x176xf32>, tensor<176x64xf32> -> tensor<?x?x64xf32>
  return %d : tensor<?x?x64xf32>
}
