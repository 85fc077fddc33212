// -mm-raise-model-contract: roles from the exporters' names, KV-cache pairs from
// present = concat(past, new), function roles from the signatures.
// RUN: mmc-opt %s -mm-raise-model-contract -split-input-file -verify-diagnostics | FileCheck %s

// An Optimum-style LLaVA: vision encoder, embedding and decoder with one layer's cache.
// (What exporters put between a past and its concat that passes it on unchanged is
// removed by -mm-fold-shapes first: raise-model-contract-folded.mlir.)
// CHECK-LABEL: func.func @vision_encoder
// CHECK-SAME: mm.role = "pixel_values"
// CHECK-SAME: mm.role = "image_features"
// CHECK-SAME: attributes {mm.role = "vision_encoder"}
func.func @vision_encoder(%p: tensor<1x3x8x8xf32> {mm.name = "pixel_values"})
    -> (tensor<1x4x8xf32> {mm.name = "image_features"}) {
  %s = mm.constant dense<[1, 4, 48]> : tensor<3xi64>
  %r = mm.reshape %p, %s : tensor<1x3x8x8xf32>, tensor<3xi64> -> tensor<1x4x48xf32>
  %w = mm.weight "proj" from "w.bin"[0, 1536] : tensor<48x8xf32>
  %f = mm.matmul %r, %w : tensor<1x4x48xf32>, tensor<48x8xf32> -> tensor<1x4x8xf32>
  return %f : tensor<1x4x8xf32>
}
// CHECK-LABEL: func.func @embed_tokens
// CHECK-SAME: mm.role = "input_ids"
// CHECK-SAME: mm.role = "inputs_embeds"
// CHECK-SAME: attributes {mm.role = "embedding"}
func.func @embed_tokens(%ids: tensor<1x?xi64> {mm.name = "input_ids"}) -> tensor<1x?x8xf32> {
  %w = mm.weight "embed" from "w.bin"[0, 512] : tensor<16x8xf32>
  %e = mm.gather %w, %ids {axis = 0 : i64} : tensor<16x8xf32>, tensor<1x?xi64> -> tensor<1x?x8xf32>
  return %e : tensor<1x?x8xf32>
}
// CHECK-LABEL: func.func @decoder_model_merged
// CHECK-SAME: {mm.name = "inputs_embeds", mm.role = "inputs_embeds"}
// CHECK-SAME: {mm.name = "attention_mask", mm.role = "attention_mask"}
// CHECK-SAME: {mm.name = "position_ids", mm.role = "position_ids"}
// CHECK-SAME: {mm.kv = {kind = "key", layer = 0 : i64}, mm.name = "past_key_values.0.key", mm.role = "kv_past"}
// CHECK-SAME: {mm.kv = {kind = "value", layer = 0 : i64}, mm.name = "past_key_values.0.value", mm.role = "kv_past"}
// CHECK-SAME: {mm.name = "logits", mm.role = "logits"}
// CHECK-SAME: {mm.kv = {kind = "key", layer = 0 : i64}, mm.name = "present.0.key", mm.role = "kv_present"}
// CHECK-SAME: {mm.kv = {kind = "value", layer = 0 : i64}, mm.name = "present.0.value", mm.role = "kv_present"}
// CHECK-SAME: attributes {mm.role = "decoder"}
func.func @decoder_model_merged(
    %e: tensor<1x?x8xf32> {mm.name = "inputs_embeds"},
    %mask: tensor<1x?xi64> {mm.name = "attention_mask"},
    %pos: tensor<1x?xi64> {mm.name = "position_ids"},
    %pk: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key"},
    %pv: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.value"})
    -> (tensor<1x?x16xf32> {mm.name = "logits"},
        tensor<1x2x?x4xf32> {mm.name = "present.0.key"},
        tensor<1x2x?x4xf32> {mm.name = "present.0.value"}) {
  %w = mm.weight "lm_head" from "w.bin"[512, 512] : tensor<8x16xf32>
  %l = mm.matmul %e, %w : tensor<1x?x8xf32>, tensor<8x16xf32> -> tensor<1x?x16xf32>
  %s = mm.constant dense<[1, 2, -1, 4]> : tensor<4xi64>
  %n = mm.reshape %e, %s : tensor<1x?x8xf32>, tensor<4xi64> -> tensor<1x2x?x4xf32>
  %k = mm.concat %pk, %n {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %v = mm.concat %pv, %n {axis = -2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  return %l, %k, %v : tensor<1x?x16xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// Other exporters' spellings: past.<i>.<k> and present_key_values.<i>.<k>, the sequence
// on axis 1 ([batch, seq, heads, head_dim]); a decoder that takes input_ids.
// CHECK-LABEL: func.func @model
// CHECK-SAME: mm.role = "input_ids"
// CHECK-SAME: {mm.kv = {kind = "value", layer = 3 : i64}, mm.name = "past.3.value", mm.role = "kv_past"}
// CHECK-SAME: {mm.kv = {kind = "value", layer = 3 : i64}, mm.name = "present_key_values.3.value", mm.role = "kv_present"}
// CHECK-SAME: attributes {mm.role = "decoder"}
func.func @model(%ids: tensor<1x?xi64> {mm.name = "input_ids"},
                 %p: tensor<1x?x2x4xf32> {mm.name = "past.3.value"})
    -> (tensor<1x?x8xf32> {mm.name = "logits"},
        tensor<1x?x2x4xf32> {mm.name = "present_key_values.3.value"}) {
  %w = mm.weight "e" from "w.bin"[0, 256] : tensor<8x8xf32>
  %x = mm.gather %w, %ids {axis = 0 : i64} : tensor<8x8xf32>, tensor<1x?xi64> -> tensor<1x?x8xf32>
  %s = mm.constant dense<[1, -1, 2, 4]> : tensor<4xi64>
  %n = mm.reshape %x, %s : tensor<1x?x8xf32>, tensor<4xi64> -> tensor<1x?x2x4xf32>
  %c = mm.concat %p, %n {axis = 1 : i64} : tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32> -> tensor<1x?x2x4xf32>
  return %x, %c : tensor<1x?x8xf32>, tensor<1x?x2x4xf32>
}

// -----

// Near misses, each with the warning that says why: the past as the second operand, a
// present of another layer, a concat along the head dim; names on tensors of the wrong
// type get no role (input_ids as f32, logits of rank 2); no function role without a pair.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT: mm.role
// CHECK: return
// expected-warning @+4 {{@near_misses: argument 'past_key_values.0.key' is not a KV-cache input: the present's concat does not take the past as its first operand}}
// expected-warning @+3 {{@near_misses: argument 'past_key_values.0.value' is not a KV-cache input: no result is named present.0.value or present_key_values.0.value}}
// expected-warning @+2 {{@near_misses: argument 'past_key_values.1.key' is not a KV-cache input: the concat appends along axis 3, not a sequence axis (1 or 2 of [batch, heads, sequence, head_dim] or [batch, sequence, heads, head_dim])}}
// expected-warning @+1 {{@near_misses takes KV-cache inputs (past_key_values.N or past.N) but returns no present = concat(past, new)}}
func.func @near_misses(%ids: tensor<1x4xf32> {mm.name = "input_ids"},
                       %k0: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key"},
                       %v0: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.value"},
                       %k1: tensor<1x2x4x?xf32> {mm.name = "past_key_values.1.key"})
    -> (tensor<1x4xf32> {mm.name = "logits"},
        tensor<1x2x?x4xf32> {mm.name = "present.0.key"},
        tensor<1x2x?x4xf32> {mm.name = "present.1.value"},
        tensor<1x2x4x?xf32> {mm.name = "present.1.key"}) {
  %a = mm.concat %v0, %k0 {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %b = mm.concat %v0, %v0 {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %c = mm.concat %k1, %k1 {axis = 3 : i64} : tensor<1x2x4x?xf32>, tensor<1x2x4x?xf32> -> tensor<1x2x4x?xf32>
  return %ids, %a, %b, %c : tensor<1x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x4x?xf32>
}

// -----

// Two functions that both fit the embedding role: neither gets it. The function names
// decide nothing: @decoder_model_merged without a cache has no role.
// CHECK-LABEL: func.func @embed_a
// CHECK-NOT: attributes {mm.role
// CHECK-LABEL: func.func @embed_b
// CHECK-NOT: attributes {mm.role
// CHECK-LABEL: func.func @decoder_model_merged
// CHECK-NOT: attributes {mm.role
// expected-warning @+1 {{@embed_a and @embed_b fit the embedding role; none is given it}}
module {
  func.func @embed_a(%ids: tensor<1x?xi64> {mm.name = "input_ids"}) -> tensor<1x?x8xf32> {
    %w = mm.weight "e" from "w.bin"[0, 512] : tensor<16x8xf32>
    %e = mm.gather %w, %ids {axis = 0 : i64} : tensor<16x8xf32>, tensor<1x?xi64> -> tensor<1x?x8xf32>
    return %e : tensor<1x?x8xf32>
  }
  func.func @embed_b(%ids: tensor<1x?xi64> {mm.name = "input_ids"}) -> tensor<1x?x8xf32> {
    %w = mm.weight "e" from "w.bin"[0, 512] : tensor<16x8xf32>
    %e = mm.gather %w, %ids {axis = 0 : i64} : tensor<16x8xf32>, tensor<1x?xi64> -> tensor<1x?x8xf32>
    return %e : tensor<1x?x8xf32>
  }
  func.func @decoder_model_merged(%e: tensor<1x?x8xf32> {mm.name = "inputs_embeds"})
      -> (tensor<1x?x8xf32> {mm.name = "logits"}) {
    return %e : tensor<1x?x8xf32>
  }
}

// -----

// A rank-3 cache is not one the runtimes keep; names on tensors of other types get no
// role (inputs_embeds of rank 2, pixel_values of rank 3, position_ids as f32).
// CHECK-LABEL: func.func @rank3
// CHECK-NOT: mm.role
// CHECK: return
// expected-warning @+2 {{@rank3: argument 'past.0.key' is not a KV-cache input: the KV-cache tensors are not rank 4}}
// expected-warning @+1 {{@rank3 takes KV-cache inputs}}
func.func @rank3(%e: tensor<4x8xf32> {mm.name = "inputs_embeds"},
                 %px: tensor<3x8x8xf32> {mm.name = "pixel_values"},
                 %pos: tensor<1x4xf32> {mm.name = "position_ids"},
                 %k: tensor<2x?x4xf32> {mm.name = "past.0.key"})
    -> (tensor<2x?x4xf32> {mm.name = "present.0.key"}) {
  %c = mm.concat %k, %k {axis = 1 : i64} : tensor<2x?x4xf32>, tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  return %c : tensor<2x?x4xf32>
}

// -----

// The embedding rule's conditions: a second argument, or a logits result, and it is no
// embedding; a vision encoder whose one float result has no exporter name: that result
// is its image_features.
// CHECK-LABEL: func.func @two_args
// CHECK-NOT: attributes {mm.role
// CHECK-LABEL: func.func @scores
// CHECK-SAME: mm.role = "logits"
// CHECK-NOT: attributes {mm.role
// CHECK-LABEL: func.func @encode
// CHECK-SAME: -> (tensor<1x4x8xf32> {mm.role = "image_features"})
// CHECK-SAME: attributes {mm.role = "vision_encoder"}
module {
  func.func @two_args(%ids: tensor<1x?xi64> {mm.name = "input_ids"}, %w: tensor<16x8xf32>)
      -> tensor<1x?x8xf32> {
    %e = mm.gather %w, %ids {axis = 0 : i64} : tensor<16x8xf32>, tensor<1x?xi64> -> tensor<1x?x8xf32>
    return %e : tensor<1x?x8xf32>
  }
  func.func @scores(%ids: tensor<1x?xi64> {mm.name = "input_ids"})
      -> (tensor<1x?x8xf32> {mm.name = "logits"}) {
    %w = mm.weight "e" from "w.bin"[0, 512] : tensor<16x8xf32>
    %e = mm.gather %w, %ids {axis = 0 : i64} : tensor<16x8xf32>, tensor<1x?xi64> -> tensor<1x?x8xf32>
    return %e : tensor<1x?x8xf32>
  }
  func.func @encode(%p: tensor<1x3x8x8xf32> {mm.name = "pixel_values"}) -> tensor<1x4x8xf32> {
    %s = mm.constant dense<[1, 4, 8, 6]> : tensor<4xi64>
    %r = mm.reshape %p, %s : tensor<1x3x8x8xf32>, tensor<4xi64> -> tensor<1x4x8x6xf32>
    %m = mm.reduce_sum %r {axes = array<i64: 3>, keepdims = false} : tensor<1x4x8x6xf32> -> tensor<1x4x8xf32>
    return %m : tensor<1x4x8xf32>
  }
}

// -----

// Three functions that fit one role: the warning names them all.
// expected-warning @+1 {{@va, @vb and @vc fit the vision_encoder role; none is given it}}
module {
  func.func @va(%p: tensor<1x3x2x2xf32> {mm.name = "pixel_values"}) -> tensor<1x3x2x2xf32> {
    return %p : tensor<1x3x2x2xf32>
  }
  func.func @vb(%p: tensor<1x3x2x2xf32> {mm.name = "pixel_values"}) -> tensor<1x3x2x2xf32> {
    return %p : tensor<1x3x2x2xf32>
  }
  func.func @vc(%p: tensor<1x3x2x2xf32> {mm.name = "pixel_values"}) -> tensor<1x3x2x2xf32> {
    return %p : tensor<1x3x2x2xf32>
  }
}

// -----

// A KV-cache pair set by hand (no exporter names) makes a decoder as a raised one does.
// CHECK-LABEL: func.func @step
// CHECK-SAME: attributes {mm.role = "decoder"}
func.func @step(%e: tensor<1x?x8xf32> {mm.name = "inputs_embeds"},
                %p: tensor<1x?x2x4xf32> {mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "key"}})
    -> (tensor<1x?x8xf32> {mm.name = "logits"},
        tensor<1x?x2x4xf32> {mm.role = "kv_present", mm.kv = {layer = 0 : i64, kind = "key"}}) {
  %s = mm.constant dense<[1, -1, 2, 4]> : tensor<4xi64>
  %n = mm.reshape %e, %s : tensor<1x?x8xf32>, tensor<4xi64> -> tensor<1x?x2x4xf32>
  %c = mm.concat %p, %n {axis = 1 : i64} : tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32> -> tensor<1x?x2x4xf32>
  return %e, %c : tensor<1x?x8xf32>, tensor<1x?x2x4xf32>
}
