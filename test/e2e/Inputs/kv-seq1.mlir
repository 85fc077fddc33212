// A decoder step whose KV cache is [batch, sequence, heads, head_dim]: the sequence on
// axis 1, the heads on axis 2.
func.func @decoder_model_merged(
    %new: tensor<1x?x2x4xf32> {mm.name = "new_key", mm.dims = ["", "seq", "", ""]},
    %past: tensor<1x?x2x4xf32> {mm.name = "past.0.key", mm.dims = ["", "past", "", ""]})
    -> (tensor<1x?x2x4xf32> {mm.name = "present.0.key", mm.dims = ["", "total", "", ""]}) {
  %k = mm.concat %past, %new {axis = 1 : i64} : tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32> -> tensor<1x?x2x4xf32>
  return %k : tensor<1x?x2x4xf32>
}
