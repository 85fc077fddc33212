// Two KV-cache inputs set by hand with one mm.kv: no cache can hold both.
func.func @decoder_model_merged(
    %new: tensor<1x2x?x4xf32> {mm.name = "new_key"},
    %p: tensor<1x2x?x4xf32> {mm.name = "p", mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "key"}},
    %p2: tensor<1x2x?x4xf32> {mm.name = "p2", mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "key"}})
    -> (tensor<1x2x?x4xf32> {mm.name = "q", mm.role = "kv_present", mm.kv = {layer = 0 : i64, kind = "key"}},
        tensor<1x2x?x4xf32> {mm.name = "q2"}) {
  %k = mm.concat %p, %new {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %k2 = mm.concat %p2, %new {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  return %k, %k2 : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}
