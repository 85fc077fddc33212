// A decoder step whose KV-cache pairs reach their concats through ops that pass a value on
// unchanged (a one-operand concat and a reshape to the same shape on the past key, a cast
// to its own type on the present value): `mmc compile` folds them before it raises the
// model contract, so both are KV-cache slots.
func.func @decoder_model_merged(
    %new: tensor<1x2x?x4xf32> {mm.name = "new_kv", mm.dims = ["", "", "seq", ""]},
    %pk: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key", mm.dims = ["", "", "past", ""]},
    %pv: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.value", mm.dims = ["", "", "past", ""]})
    -> (tensor<1x2x?x4xf32> {mm.name = "present.0.key"},
        tensor<1x2x?x4xf32> {mm.name = "present.0.value"}) {
  %pk1 = mm.concat %pk {axis = 2 : i64} : tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %ps = mm.shape %pk1 : tensor<1x2x?x4xf32> -> tensor<4xi64>
  %pk2 = mm.reshape %pk1, %ps : tensor<1x2x?x4xf32>, tensor<4xi64> -> tensor<1x2x?x4xf32>
  %k = mm.concat %pk2, %new {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %v = mm.concat %pv, %new {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %v1 = mm.cast %v : tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  return %k, %v1 : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}
