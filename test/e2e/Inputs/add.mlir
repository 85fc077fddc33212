// y = (x + w) + c: one weight streamed from add.weights.bin (relative to this file).
func.func @model(%x: tensor<?xf32> {mm.name = "x", mm.dims = ["n"]})
    -> (tensor<?xf32> {mm.name = "y", mm.dims = ["n"]}) {
  %w = mm.weight "w" from "add.weights.bin" [0, 16] : tensor<4xf32>
  %c = mm.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %t = mm.add %x, %w : tensor<?xf32>, tensor<4xf32> -> tensor<?xf32>
  %y = mm.add %t, %c : tensor<?xf32>, tensor<4xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
