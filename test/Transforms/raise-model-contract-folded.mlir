// -mm-raise-model-contract after -mm-fold-shapes, as `mmc compile` runs them: what the
// exporters put between a KV-cache input and its concat, or between the concat and the
// present, that passes the value on unchanged is folded away first, so the pair is found.
// RUN: mmc-opt %s -mm-fold-shapes -mm-raise-model-contract | FileCheck %s
// RUN: mmc-opt %s -mm-raise-model-contract -verify-diagnostics -split-input-file -o /dev/null

// The past key through a one-operand concat (TorchScript's cat of a one-element list) and
// a reshape to its own shape; the present value through a cast to its own type.
// CHECK-LABEL: func.func @decoder
// CHECK-SAME: mm.name = "past_key_values.0.key", mm.role = "kv_past"
// CHECK-SAME: mm.name = "past_key_values.0.value", mm.role = "kv_past"
// CHECK-SAME: mm.name = "present.0.key", mm.role = "kv_present"
// CHECK-SAME: mm.name = "present.0.value", mm.role = "kv_present"
// CHECK-SAME: attributes {mm.role = "decoder"}
// Without the folding first, neither pair is found (the second RUN line):
// expected-warning @+3 {{argument 'past_key_values.0.key' is not a KV-cache input: the present's concat does not take the past as its first operand}}
// expected-warning @+2 {{argument 'past_key_values.0.value' is not a KV-cache input: the present is not a concat of two values}}
// expected-warning @+1 {{@decoder takes KV-cache inputs}}
func.func @decoder(%e: tensor<1x?x8xf32> {mm.name = "inputs_embeds"},
                   %pk: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key"},
                   %pv: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.value"})
    -> (tensor<1x?x8xf32> {mm.name = "logits"},
        tensor<1x2x?x4xf32> {mm.name = "present.0.key"},
        tensor<1x2x?x4xf32> {mm.name = "present.0.value"}) {
  %s = mm.constant dense<[1, 2, -1, 4]> : tensor<4xi64>
  %n = mm.reshape %e, %s : tensor<1x?x8xf32>, tensor<4xi64> -> tensor<1x2x?x4xf32>
  %pk1 = mm.concat %pk {axis = 2 : i64} : tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %ps = mm.shape %pk1 : tensor<1x2x?x4xf32> -> tensor<4xi64>
  %pk2 = mm.reshape %pk1, %ps : tensor<1x2x?x4xf32>, tensor<4xi64> -> tensor<1x2x?x4xf32>
  %k = mm.concat %pk2, %n {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %v = mm.concat %pv, %n {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %v1 = mm.cast %v : tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  return %e, %k, %v1 : tensor<1x?x8xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}
