func.func private @model(tensor<4xf32>) -> tensor<4xf32>
