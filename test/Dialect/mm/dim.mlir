// Round trip of mm.dim (one dim of a tensor's shape as tensor<1xi64>), the op
// -mm-fold-shapes uses instead of mm.shape for dynamic dims.
// RUN: mmc-opt %s | mmc-opt | FileCheck %s
// RUN: mmc-opt %s -mlir-print-op-generic | mmc-opt | FileCheck %s

// CHECK-LABEL: func.func @dim
func.func @dim(%x: tensor<?x4x?xf32>, %i: tensor<3xi64>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) {
  // CHECK: mm.dim %arg0[0] : tensor<?x4x?xf32> -> tensor<1xi64>
  %0 = mm.dim %x[0] : tensor<?x4x?xf32> -> tensor<1xi64>
  // A static dim is allowed too (the pass folds it to a constant).
  // CHECK: mm.dim %arg0[1] : tensor<?x4x?xf32> -> tensor<1xi64>
  %1 = mm.dim %x[1] : tensor<?x4x?xf32> -> tensor<1xi64>
  // Any element type.
  // CHECK: mm.dim %arg1[0] : tensor<3xi64> -> tensor<1xi64>
  %2 = mm.dim %i[0] : tensor<3xi64> -> tensor<1xi64>
  return %0, %1, %2 : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
}
