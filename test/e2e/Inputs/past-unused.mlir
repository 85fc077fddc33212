// A decoder that takes a past key but returns no present = concat(past, new) (Optimum's
// no-past graph, say): no KV-cache slot, so mmrun cannot generate with it.
func.func @decoder_model_merged(
    %x: tensor<1x2x1x4xf32> {mm.name = "new_key", mm.dims = ["", "", "seq", ""]},
    %past: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key", mm.dims = ["", "", "past", ""]})
    -> (tensor<1x2x1x4xf32> {mm.name = "present.0.key", mm.dims = ["", "", "seq", ""]}) {
  %y = mm.neg %x : tensor<1x2x1x4xf32>
  return %y : tensor<1x2x1x4xf32>
}
