// A function as -mm-plan-cuda-graphs leaves it: op 0 (an i64 -> f32 cast of a host
// input) on the host, ops 1 and 2 on the device in segment 0.
func.func @model(%x: tensor<4xf32> {mm.name = "x"}, %n: tensor<4xi64> {mm.name = "n"})
    -> (tensor<4xf32> {mm.name = "y"})
    attributes {mm.segments = [{first = 1 : i64, last = 2 : i64, end = "end of function"}]} {
  %nf = mm.cast %n {mm.placement = "host"} : tensor<4xi64> -> tensor<4xf32>
  %a = mm.add %x, %nf {mm.placement = "device", mm.segment = 0 : i64} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = mm.relu %a {mm.placement = "device", mm.segment = 0 : i64} : tensor<4xf32>
  return %r : tensor<4xf32>
}
