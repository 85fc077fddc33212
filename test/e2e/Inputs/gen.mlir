// A toy generator: embedding row t = one-hot(t mod 4); logits = embeds x W with
// W[j][(j + 1) mod 8] = 1, so the greedy next token is (t mod 4) + 1. The decoder keeps
// a one-layer KV cache (present.0.* = concat(past, new)).
func.func @embed_tokens(%ids: tensor<1x?xi64> {mm.name = "input_ids", mm.dims = ["batch", "seq"]})
    -> (tensor<1x?x4xf32> {mm.name = "inputs_embeds", mm.dims = ["batch", "seq", ""]}) {
  %e = mm.weight "embed" from "gen.bin" [0, 128] : tensor<8x4xf32>
  %x = mm.gather %e, %ids {axis = 0 : i64} : tensor<8x4xf32>, tensor<1x?xi64> -> tensor<1x?x4xf32>
  return %x : tensor<1x?x4xf32>
}
func.func @decoder_model_merged(
    %x: tensor<1x?x4xf32> {mm.name = "inputs_embeds", mm.dims = ["batch", "seq", ""]},
    %mask: tensor<1x?xi64> {mm.name = "attention_mask", mm.dims = ["batch", "total"]},
    %pos: tensor<1x?xi64> {mm.name = "position_ids", mm.dims = ["batch", "seq"]},
    %pk: tensor<1x1x?x4xf32> {mm.name = "past_key_values.0.key", mm.dims = ["batch", "", "past", ""]},
    %pv: tensor<1x1x?x4xf32> {mm.name = "past_key_values.0.value", mm.dims = ["batch", "", "past", ""]})
    -> (tensor<1x?x8xf32> {mm.name = "logits"},
        tensor<1x1x?x4xf32> {mm.name = "present.0.key"},
        tensor<1x1x?x4xf32> {mm.name = "present.0.value"}) {
  %w = mm.weight "lm_head" from "gen.bin" [128, 128] : tensor<4x8xf32>
  %shape = mm.constant dense<[1, 1, -1, 4]> : tensor<4xi64>
  %k = mm.reshape %x, %shape : tensor<1x?x4xf32>, tensor<4xi64> -> tensor<1x1x?x4xf32>
  %keys = mm.concat %pk, %k {axis = 2 : i64} : tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32> -> tensor<1x1x?x4xf32>
  %values = mm.concat %pv, %k {axis = 2 : i64} : tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32> -> tensor<1x1x?x4xf32>
  %logits = mm.matmul %x, %w : tensor<1x?x4xf32>, tensor<4x8xf32> -> tensor<1x?x8xf32>
  return %logits, %keys, %values : tensor<1x?x8xf32>, tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32>
}
