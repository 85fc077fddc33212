// Transposes of weights ([N, K] as nn.Linear stores them, behind perm [1, 0]) are written
// transposed when the plan is written: alone, behind a cast, concatenated along axis 1
// (merged projections) and a cast of a concat of them; a 3-D transpose stays an op.
func.func @model(%x: tensor<2x3xf32> {mm.name = "x"})
    -> (tensor<2x2xf32> {mm.name = "y"}, tensor<2x3xf32> {mm.name = "z"},
        tensor<2x4xbf16> {mm.name = "m"}, tensor<1x3x2xf32> {mm.name = "t3"}) {
  // a = [[1, 2, 3], [4, 5, 6]] ([N = 2, K = 3]); b = [[7, 8, 9], [10, 11, 12]]
  %a = mm.weight "a" from "tw.bin" [0, 24] : tensor<2x3xf32>
  %b = mm.weight "b" from "tw.bin" [24, 24] : tensor<2x3xf32>
  %at = mm.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %y = mm.matmul %x, %at : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  // cast(transpose(a16)): a written as f16 bytes, widened, transposed
  %h = mm.weight "h" from "tw.bin" [48, 18] : tensor<3x3xf16>
  %ht = mm.transpose %h {perm = array<i64: 1, 0>} : tensor<3x3xf16> -> tensor<3x3xf16>
  %hf = mm.cast %ht : tensor<3x3xf16> -> tensor<3x3xf32>
  %z = mm.matmul %x, %hf : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x3xf32>
  // concat(transpose(a), transpose(b)) along axis 1, then a cast to bf16
  %bt = mm.transpose %b {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %ab = mm.concat %at, %bt {axis = 1 : i64} : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x4xf32>
  %ab16 = mm.cast %ab : tensor<3x4xf32> -> tensor<3x4xbf16>
  %x16 = mm.cast %x : tensor<2x3xf32> -> tensor<2x3xbf16>
  %m = mm.matmul %x16, %ab16 : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xbf16>
  // near miss: a 3-D transpose runs
  %a3 = mm.weight "a3" from "tw.bin" [0, 24] : tensor<1x2x3xf32>
  %t3 = mm.transpose %a3 {perm = array<i64: 0, 2, 1>} : tensor<1x2x3xf32> -> tensor<1x3x2xf32>
  return %y, %z, %m, %t3 : tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x4xbf16>, tensor<1x3x2xf32>
}
