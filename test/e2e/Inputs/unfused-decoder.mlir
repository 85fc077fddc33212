// A decoder step (KV cache: present.0.key = concat(past_key_values.0.key, new)) whose
// attention does not fuse: v is f32 while q and k are f16. Its scores also go through a
// cumulative sum, which the CUDA executor does not run (a host op reading a device value).
func.func @decoder_model_merged(
    %q: tensor<1x2x1x8xf16> {mm.name = "q", mm.dims = ["", "", "seq", ""]},
    %new: tensor<1x2x1x8xf16> {mm.name = "new_key", mm.dims = ["", "", "seq", ""]},
    %past: tensor<1x2x?x8xf16> {mm.name = "past_key_values.0.key", mm.dims = ["", "", "past", ""]},
    %v: tensor<1x2x?x8xf32> {mm.name = "v", mm.dims = ["", "", "total", ""]})
    -> (tensor<1x2x?x8xf16> {mm.name = "present.0.key", mm.dims = ["", "", "total", ""]},
        tensor<1x2x1x8xf32> {mm.name = "out"}, tensor<1x2x1x?xf32> {mm.name = "cumulative"}) {
  %k = mm.concat %past, %new {axis = 2 : i64} : tensor<1x2x?x8xf16>, tensor<1x2x1x8xf16> -> tensor<1x2x?x8xf16>
  %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x?x8xf16> -> tensor<1x2x8x?xf16>
  %s = mm.matmul %q, %kt : tensor<1x2x1x8xf16>, tensor<1x2x8x?xf16> -> tensor<1x2x1x?xf16>
  %sf = mm.cast %s : tensor<1x2x1x?xf16> -> tensor<1x2x1x?xf32>
  %p = mm.softmax %sf {axis = 3 : i64} : tensor<1x2x1x?xf32>
  %o = mm.matmul %p, %v : tensor<1x2x1x?xf32>, tensor<1x2x?x8xf32> -> tensor<1x2x1x8xf32>
  %c = mm.cumsum %p {axis = 3 : i64} : tensor<1x2x1x?xf32>
  return %k, %o, %c : tensor<1x2x?x8xf16>, tensor<1x2x1x8xf32>, tensor<1x2x1x?xf32>
}
