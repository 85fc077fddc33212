// A concat of an activation and a weight is not folded.
func.func @model(%x: tensor<2x3xf32> {mm.name = "x"}) -> (tensor<4x3xf32> {mm.name = "y"}) {
  %v = mm.weight "v" from "cw.bin" [0, 24] : tensor<2x3xf32>
  %y = mm.concat %x, %v {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
