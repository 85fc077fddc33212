// RUN: mmc-opt %s | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @smoke
// CHECK: mm.add %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK: mm.constant dense<[1, 2]> : tensor<2xi64>
func.func @smoke(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mm.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = mm.constant dense<[1, 2]> : tensor<2xi64>
  return %0 : tensor<2x3xf32>
}
