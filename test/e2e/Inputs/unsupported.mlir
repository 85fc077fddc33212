func.func @model(%x: tensor<4xf32> {mm.name = "x"}) -> (tensor<4xf32> {mm.name = "y"}) {
  %y = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
