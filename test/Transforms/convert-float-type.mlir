// RUN: mmc-opt %s -split-input-file -mm-convert-float-type -verify-diagnostics | FileCheck %s
// RUN: mmc-opt %s -split-input-file -mm-convert-float-type=to=f16 -verify-diagnostics | FileCheck %s --check-prefix=F16
// RUN: not mmc-opt %s -split-input-file -mm-convert-float-type=to=f8 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: -mm-convert-float-type: unknown type 'f8' (expected f32, f16 or bf16)

// Activations and weights are converted; the signature stays f32; the position chain
// (integer argument -> f32 values) stays f32 until it meets an activation.
// CHECK-LABEL: func.func @decoder
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[P:.*]]: tensor<2xi64>) -> tensor<2x4xf32>
// CHECK: %[[XC:.*]] = mm.cast %[[X]] : tensor<2x4xf32> -> tensor<2x4xbf16>
// CHECK: %[[W:.*]] = mm.weight "w" from "w.bin"{{ ?}}[0, 64] : tensor<4x4xf32>
// CHECK: %[[WC:.*]] = mm.cast %[[W]] : tensor<4x4xf32> -> tensor<4x4xbf16>
// CHECK: %[[Y:.*]] = mm.matmul %[[XC]], %[[WC]] : tensor<2x4xbf16>, tensor<4x4xbf16> -> tensor<2x4xbf16>
// CHECK: %[[PF:.*]] = mm.cast %[[P]] : tensor<2xi64> -> tensor<2xf32>
// CHECK: %[[C:.*]] = mm.cos %[[PF]] : tensor<2xf32>
// CHECK: %[[U:.*]] = mm.unsqueeze %[[C]] {axes = array<i64: 1>} : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[UC:.*]] = mm.cast %[[U]] : tensor<2x1xf32> -> tensor<2x1xbf16>
// CHECK: %[[M:.*]] = mm.mul %[[Y]], %[[UC]] : tensor<2x4xbf16>, tensor<2x1xbf16> -> tensor<2x4xbf16>
// CHECK: %[[R:.*]] = mm.cast %[[M]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK: return %[[R]] : tensor<2x4xf32>
// F16-LABEL: func.func @decoder
// F16: mm.matmul {{.*}} : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
// F16: mm.cos {{.*}} : tensor<2xf32>
func.func @decoder(%x: tensor<2x4xf32>, %p: tensor<2xi64>) -> tensor<2x4xf32> {
  %w = mm.weight "w" from "w.bin" [0, 64] : tensor<4x4xf32>
  %y = mm.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %pf = mm.cast %p : tensor<2xi64> -> tensor<2xf32>
  %c = mm.cos %pf : tensor<2xf32>
  %u = mm.unsqueeze %c {axes = array<i64: 1>} : tensor<2xf32> -> tensor<2x1xf32>
  %m = mm.mul %y, %u : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

// -----

// Near misses: integer-only functions and f64 values are left alone; a constant meeting
// an activation is cast at that use; comparisons keep their i1 results.
// CHECK-LABEL: func.func @mixed
// CHECK: %[[K:.*]] = mm.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[KC:.*]] = mm.cast %[[K]] : tensor<f32> -> tensor<bf16>
// CHECK: mm.mul %{{.*}}, %[[KC]] : tensor<3xbf16>, tensor<bf16> -> tensor<3xbf16>
// CHECK: mm.greater {{.*}} : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xi1>
// CHECK: mm.add %{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK: mm.add %{{.*}}, %{{.*}} : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
func.func @mixed(%x: tensor<3xf32>, %d: tensor<3xf64>, %i: tensor<3xi64>)
    -> (tensor<3xi1>, tensor<3xf64>, tensor<3xi64>) {
  %k = mm.constant dense<0.25> : tensor<f32>
  %s = mm.mul %x, %k : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %g = mm.greater %s, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
  %dd = mm.add %d, %d : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  %ii = mm.add %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  return %g, %dd, %ii : tensor<3xi1>, tensor<3xf64>, tensor<3xi64>
}

// -----

// The KV cache takes the target type itself, found by its roles (kv_past / kv_present),
// not by its names; an argument named like a cache without the roles is cast on entry.
// CHECK-LABEL: func.func @kv_step
// CHECK-SAME: %[[N:[^:]*]]: tensor<1x1x1x2xf32>
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x1x?x2xbf16> {mm.kv = {kind = "key", layer = 0 : i64}, mm.role = "kv_past"}
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x1x?x2xf32> {mm.name = "past_key_values.0.value"}
// CHECK-SAME: -> (tensor<1x1x?x2xbf16> {mm.kv = {kind = "key", layer = 0 : i64}, mm.role = "kv_present"}, tensor<1x1x?x2xf32>)
// CHECK: %[[NC:.*]] = mm.cast %[[N]] : tensor<1x1x1x2xf32> -> tensor<1x1x1x2xbf16>
// CHECK: %[[QC:.*]] = mm.cast %[[Q]] : tensor<1x1x?x2xf32> -> tensor<1x1x?x2xbf16>
// CHECK: %[[K:.*]] = mm.concat %[[P]], %[[NC]]
// CHECK: %[[V:.*]] = mm.concat %[[QC]], %[[NC]]
// CHECK: %[[VC:.*]] = mm.cast %[[V]] : tensor<1x1x?x2xbf16> -> tensor<1x1x?x2xf32>
// CHECK: return %[[K]], %[[VC]]
func.func @kv_step(%n: tensor<1x1x1x2xf32>,
    %p: tensor<1x1x?x2xf32> {mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "key"}},
    %q: tensor<1x1x?x2xf32> {mm.name = "past_key_values.0.value"})
    -> (tensor<1x1x?x2xf32> {mm.role = "kv_present", mm.kv = {layer = 0 : i64, kind = "key"}},
        tensor<1x1x?x2xf32>) {
  %k = mm.concat %p, %n {axis = 2 : i64} : tensor<1x1x?x2xf32>, tensor<1x1x1x2xf32> -> tensor<1x1x?x2xf32>
  %v = mm.concat %q, %n {axis = 2 : i64} : tensor<1x1x?x2xf32>, tensor<1x1x1x2xf32> -> tensor<1x1x?x2xf32>
  return %k, %v : tensor<1x1x?x2xf32>, tensor<1x1x?x2xf32>
}
