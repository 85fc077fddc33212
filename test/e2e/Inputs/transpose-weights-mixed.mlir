// Near miss: a concat of a transposed and a plain weight along axis 1 is not folded (the
// emitter writes a transposed weight whole), so the concat runs (the transpose of a
// transpose cancels in canonicalisation).
func.func @model(%x: tensor<2x3xf32> {mm.name = "x"}) -> (tensor<2x4xf32> {mm.name = "y"}, tensor<2x3xf32> {mm.name = "z"}) {
  %a = mm.weight "a" from "tw.bin" [0, 24] : tensor<2x3xf32>
  %p = mm.weight "p" from "tw.bin" [24, 24] : tensor<3x2xf32>
  %at = mm.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %w = mm.concat %at, %p {axis = 1 : i64} : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x4xf32>
  %y = mm.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %att = mm.transpose %at {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %z = mm.add %x, %att : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x3xf32>
}
