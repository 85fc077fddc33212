// A folded weight concat along a negative axis (-1, the last) interleaves like axis 1:
// the emitter normalises the signed axis before splitting outer and inner bytes.
func.func @model(%x: tensor<2x3xf32> {mm.name = "x"}) -> (tensor<2x4xf32> {mm.name = "y"}) {
  %w1 = mm.weight "w1" from "cw.bin" [0, 24] : tensor<3x2xf32>
  %w2 = mm.weight "w2" from "cw.bin" [24, 12] : tensor<3x1xf32>
  %c = mm.constant dense<[[100.0], [200.0], [300.0]]> : tensor<3x1xf32>
  %w = mm.concat %w1, %w2, %c {axis = -1 : i64} : tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x1xf32> -> tensor<3x4xf32>
  %y = mm.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
