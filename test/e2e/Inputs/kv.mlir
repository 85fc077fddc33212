// A decoder step with a KV cache: present.0.key = concat(past_key_values.0.key, new).
func.func @decoder_model_merged(
    %new: tensor<1x2x?x4xf32> {mm.name = "new_key", mm.dims = ["", "", "seq", ""]},
    %past: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key", mm.dims = ["", "", "past", ""]})
    -> (tensor<1x2x?x4xf32> {mm.name = "present.0.key", mm.dims = ["", "", "total", ""]},
        tensor<?xf32> {mm.name = "scores"}) {
  %k = mm.concat %past, %new {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %s = mm.reduce_sum %k {axes = array<i64: 0, 1, 3>, keepdims = false} : tensor<1x2x?x4xf32> -> tensor<?xf32>
  return %k, %s : tensor<1x2x?x4xf32>, tensor<?xf32>
}
