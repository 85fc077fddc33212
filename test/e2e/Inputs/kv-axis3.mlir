// A KV-cache pair set by hand whose concat appends along the head dim (axis 3): no
// sequence axis the runtimes keep, so `mmc compile` refuses it.
func.func @decoder_model_merged(
    %new: tensor<1x2x3x4xf32> {mm.name = "new_key"},
    %past: tensor<1x2x3x?xf32> {mm.name = "p", mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "key"}})
    -> (tensor<1x2x3x?xf32> {mm.name = "q", mm.role = "kv_present", mm.kv = {layer = 0 : i64, kind = "key"}}) {
  %k = mm.concat %past, %new {axis = 3 : i64} : tensor<1x2x3x?xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x?xf32>
  return %k : tensor<1x2x3x?xf32>
}
