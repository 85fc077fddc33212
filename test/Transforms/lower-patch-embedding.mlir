// -mm-lower-patch-embedding: a patch-embedding convolution (stride = kernel) as im2col +
// mm.linear over the weight reshaped to [O, C*kh*kw] and transposed to [C*kh*kw, O].
// RUN: mmc-opt %s -mm-lower-patch-embedding="report-near-misses=true" -split-input-file -verify-diagnostics | FileCheck %s

// A 4x4-patch embedding of an 8x8 RGB image, with a bias; the batch is dynamic.
// CHECK-LABEL: func.func @patches
// CHECK-NOT: mm.conv
// CHECK: %[[S0:.*]] = mm.constant dense<[-1, 3, 2, 4, 2, 4]> : tensor<6xi64>
// CHECK: %[[P:.*]] = mm.reshape %arg0, %[[S0]] : tensor<?x3x8x8xf32>, tensor<6xi64> -> tensor<?x3x2x4x2x4xf32>
// CHECK: %[[Q:.*]] = mm.transpose %[[P]] {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<?x3x2x4x2x4xf32> -> tensor<?x2x2x3x4x4xf32>
// CHECK: %[[S1:.*]] = mm.constant dense<[-1, 4, 48]> : tensor<3xi64>
// CHECK: %[[C:.*]] = mm.reshape %[[Q]], %[[S1]] : tensor<?x2x2x3x4x4xf32>, tensor<3xi64> -> tensor<?x4x48xf32>
// CHECK: %[[S2:.*]] = mm.constant dense<[8, 48]> : tensor<2xi64>
// CHECK: %[[R:.*]] = mm.reshape %[[W:.*]], %[[S2]] : tensor<8x3x4x4xf32>, tensor<2xi64> -> tensor<8x48xf32>
// CHECK: %[[T:.*]] = mm.transpose %[[R]] {perm = array<i64: 1, 0>} : tensor<8x48xf32> -> tensor<48x8xf32>
// CHECK: %[[L:.*]] = mm.linear %[[C]], %[[T]], %[[B:.*]] : tensor<?x4x48xf32>, tensor<48x8xf32>, tensor<8xf32> -> tensor<?x4x8xf32>
// CHECK: %[[S3:.*]] = mm.constant dense<[-1, 2, 2, 8]> : tensor<4xi64>
// CHECK: %[[O:.*]] = mm.reshape %[[L]], %[[S3]] : tensor<?x4x8xf32>, tensor<4xi64> -> tensor<?x2x2x8xf32>
// CHECK: %[[Y:.*]] = mm.transpose %[[O]] {perm = array<i64: 0, 3, 1, 2>} : tensor<?x2x2x8xf32> -> tensor<?x8x2x2xf32>
// CHECK: return %[[Y]]
func.func @patches(%x: tensor<?x3x8x8xf32>) -> tensor<?x8x2x2xf32> {
  %w = mm.weight "patch" from "m.bin"[0, 1536] : tensor<8x3x4x4xf32>
  %b = mm.weight "patch.bias" from "m.bin"[1536, 32] : tensor<8xf32>
  %y = mm.conv %x, %w, %b {strides = array<i64: 4, 4>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<?x3x8x8xf32>, tensor<8x3x4x4xf32>, tensor<8xf32> -> tensor<?x8x2x2xf32>
  return %y : tensor<?x8x2x2xf32>
}

// -----

// Non-square patches of a bf16 weight behind a cast (what --dtype bf16 writes), no bias.
// CHECK-LABEL: func.func @cast_weight
// CHECK: mm.transpose {{.*}} {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<1x2x3x2x2x3xbf16> -> tensor<1x3x2x2x2x3xbf16>
// CHECK: mm.reshape %{{.*}} : tensor<4x2x2x3xbf16>, tensor<2xi64> -> tensor<4x12xbf16>
// CHECK: mm.linear %{{.*}}, %{{.*}} : tensor<1x6x12xbf16>, tensor<12x4xbf16> -> tensor<1x6x4xbf16>
// CHECK: mm.transpose {{.*}} {perm = array<i64: 0, 3, 1, 2>} : tensor<1x3x2x4xbf16> -> tensor<1x4x3x2xbf16>
func.func @cast_weight(%x: tensor<1x2x6x6xbf16>) -> tensor<1x4x3x2xbf16> {
  %w = mm.weight "patch" from "m.bin"[0, 192] : tensor<4x2x2x3xf32>
  %c = mm.cast %w : tensor<4x2x2x3xf32> -> tensor<4x2x2x3xbf16>
  %y = mm.conv %x, %c {strides = array<i64: 2, 3>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x2x6x6xbf16>, tensor<4x2x2x3xbf16> -> tensor<1x4x3x2xbf16>
  return %y : tensor<1x4x3x2xbf16>
}

// -----

// Near misses, each left as it is with a remark saying why.
func.func @near_misses(%x: tensor<1x3x8x8xf32>, %wa: tensor<4x3x4x4xf32>, %xd: tensor<1x3x?x8xf32>,
                       %x4u: tensor<1x4x4x4xf32>, %x7: tensor<1x3x7x7xf32>)
    -> (tensor<1x4x8x8xf32>, tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>,
        tensor<1x4x?x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x?x?xf32>) {
  %w = mm.weight "patch" from "m.bin"[0, 768] : tensor<4x3x4x4xf32>
  %w3 = mm.weight "conv" from "m.bin"[768, 432] : tensor<4x3x3x3xf32>
  %wg = mm.weight "grouped" from "m.bin"[1200, 64] : tensor<4x1x2x2xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: its strides are not its kernel}}
  %a = mm.conv %x, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: it pads}}
  %b = mm.conv %x, %w {strides = array<i64: 4, 4>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32> -> tensor<1x4x2x2xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: it dilates}}
  %c = mm.conv %x, %w {strides = array<i64: 4, 4>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>}
      : tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32> -> tensor<1x4x1x1xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: its weight is not one the plan holds}}
  %d = mm.conv %x, %wa {strides = array<i64: 4, 4>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32> -> tensor<1x4x2x2xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: its channels, height, width or kernel are dynamic}}
  %e = mm.conv %xd, %w {strides = array<i64: 4, 4>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x?x8xf32>, tensor<4x3x4x4xf32> -> tensor<1x4x?x2xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: it has groups}}
  %f = mm.conv %x4u, %wg {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64}
      : tensor<1x4x4x4xf32>, tensor<4x1x2x2xf32> -> tensor<1x4x2x2xf32>
  %w7 = mm.weight "odd" from "m.bin"[1264, 432] : tensor<4x3x3x3xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: its kernel does not tile the image}}
  %g = mm.conv %x7, %w7 {strides = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x2x2xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: its result type is not the static [batch, out channels, rows, columns]}}
  %h = mm.conv %x, %w {strides = array<i64: 4, 4>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32> -> tensor<1x4x?x?xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h : tensor<1x4x8x8xf32>, tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>, tensor<1x4x?x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x?x?xf32>
}

// -----

// More near misses: a dim of size 0, and sizes whose patch count overflows.
func.func @degenerate(%x: tensor<1x0x8x8xf32>, %xl: tensor<1x1x4294967296x4294967296xf32>)
    -> (tensor<1x8x2x2xf32>, tensor<1x1x4294967296x4294967296xf32>) {
  %w = mm.weight "patch" from "m.bin"[0, 0] : tensor<8x0x4x4xf32>
  %w1 = mm.weight "one" from "m.bin"[0, 4] : tensor<1x1x1x1xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: it has a dim of size 0}}
  %y = mm.conv %x, %w {strides = array<i64: 4, 4>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x0x8x8xf32>, tensor<8x0x4x4xf32> -> tensor<1x8x2x2xf32>
  // expected-remark @+1 {{not lowered as a patch embedding: its patches or patch size exceed 2^40}}
  %z = mm.conv %xl, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x1x4294967296x4294967296xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x4294967296x4294967296xf32>
  return %y, %z : tensor<1x8x2x2xf32>, tensor<1x1x4294967296x4294967296xf32>
}
