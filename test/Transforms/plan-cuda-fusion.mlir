// -mm-plan-cuda-fusion: the decode step's fused launches, decided at compile time after
// -mm-plan-cuda-graphs placed the ops.
// RUN: mmc-opt %s -mm-plan-cuda-graphs -mm-plan-cuda-fusion -split-input-file | FileCheck %s

// One attention layer over the KV cache: the norm feeds the QKV linear; the q/k rotary pair
// (same cos/sin) and both appends go into the decode attention.
// CHECK-LABEL: func.func @layer
// CHECK: mm.rms_norm {{.*}}mm.fusion = ["feeds_next_linear"]
// CHECK: mm.linear
// CHECK-NOT: mm.fusion
// CHECK: mm.rotary {{.*}}mm.fusion = ["rotary_pair_with_next", "rotary_into_attention"]
// CHECK-NEXT: mm.rotary
// CHECK-NOT: mm.fusion
// CHECK-SAME: : tensor<1x2x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32> -> tensor<1x2x?x4xf32>
// CHECK-NEXT: mm.concat {{.*}}mm.fusion = ["append_into_attention"]
// CHECK-NEXT: mm.concat {{.*}}mm.fusion = ["append_into_attention"]
// CHECK-NEXT: mm.attention
// CHECK-NOT: mm.fusion
// CHECK: return
func.func @layer(%x: tensor<1x?x8xf32>, %c: tensor<1x?x4xf32>, %s: tensor<1x?x4xf32>,
                 %pk: tensor<1x2x?x4xf32> {mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "key"}},
                 %pv: tensor<1x2x?x4xf32> {mm.role = "kv_past", mm.kv = {layer = 0 : i64, kind = "value"}})
    -> (tensor<1x4x?x4xf32>,
        tensor<1x2x?x4xf32> {mm.role = "kv_present", mm.kv = {layer = 0 : i64, kind = "key"}},
        tensor<1x2x?x4xf32> {mm.role = "kv_present", mm.kv = {layer = 0 : i64, kind = "value"}}) {
  %w = mm.weight "norm" from "m.bin"[0, 32] : tensor<8xf32>
  %wqkv = mm.weight "qkv" from "m.bin"[32, 1024] : tensor<8x32xf32>
  %n = mm.rms_norm %x, %w : tensor<1x?x8xf32>, tensor<8xf32> -> tensor<1x?x8xf32>
  %qkv = mm.linear %n, %wqkv : tensor<1x?x8xf32>, tensor<8x32xf32> -> tensor<1x?x32xf32>
  %sh = mm.constant dense<[1, -1, 8, 4]> : tensor<4xi64>
  %r = mm.reshape %qkv, %sh : tensor<1x?x32xf32>, tensor<4xi64> -> tensor<1x?x8x4xf32>
  %t = mm.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<1x?x8x4xf32> -> tensor<1x8x?x4xf32>
  %q, %k, %v = mm.split %t {axis = 1 : i64, sizes = array<i64: 4, 2, 2>} : tensor<1x8x?x4xf32> -> tensor<1x4x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
  %qr = mm.rotary %q, %c, %s : tensor<1x4x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32> -> tensor<1x4x?x4xf32>
  %kr = mm.rotary %k, %c, %s : tensor<1x2x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32> -> tensor<1x2x?x4xf32>
  %kk = mm.concat %pk, %kr {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %vv = mm.concat %pv, %v {axis = 2 : i64} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  %a = mm.attention %qr, %kk, %vv {scale = 0.5 : f32} : tensor<1x4x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x4x?x4xf32>
  return %a, %kk, %vv : tensor<1x4x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// Near misses: a norm whose result is also returned (its hand-written mark is dropped:
// the pass alone decides), or read by another op than the linear; two rotaries with other sin tables; appends without a kv pair (no contract), and
// an attention that reads another value than the partner's append.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT: mm.fusion
// CHECK: return
func.func @near_misses(%x: tensor<1x3x8xf32>, %c: tensor<1x3x4xf32>, %s: tensor<1x3x4xf32>,
                       %s2: tensor<1x3x4xf32>, %q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>,
                       %pk: tensor<1x2x3x4xf32>, %v: tensor<1x2x6x4xf32>)
    -> (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x3x4xf32>, tensor<1x2x6x4xf32>) {
  %w = mm.weight "norm" from "m.bin"[0, 32] : tensor<8xf32>
  %wl = mm.weight "l" from "m.bin"[32, 256] : tensor<8x8xf32>
  %n = mm.rms_norm %x, %w {mm.fusion = ["feeds_next_linear"]} : tensor<1x3x8xf32>, tensor<8xf32> -> tensor<1x3x8xf32>
  %y = mm.linear %n, %wl : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  %n2 = mm.rms_norm %y, %w : tensor<1x3x8xf32>, tensor<8xf32> -> tensor<1x3x8xf32>
  %y2 = mm.linear %n2, %wl : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  %u = mm.relu %n2 : tensor<1x3x8xf32>
  %qr = mm.rotary %q, %c, %s : tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x2x3x4xf32>
  %kr = mm.rotary %k, %c, %s2 : tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x2x3x4xf32>
  %kk = mm.concat %pk, %kr {axis = 2 : i64} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x6x4xf32>
  %a = mm.attention %qr, %kk, %v {scale = 0.5 : f32} : tensor<1x2x3x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x3x4xf32>
  return %n, %y2, %u, %a, %kk : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x3x4xf32>, tensor<1x2x6x4xf32>
}

// -----

// A function that -mm-plan-cuda-graphs did not plan (no mm.segments) is left alone.
// CHECK-LABEL: func.func private @external
func.func private @external(tensor<2xf32>) -> tensor<2xf32>

// -----

// Three rotaries in a row with one cos/sin: the first two are a pair, the third is not
// paired with the second (whose launch the pair already made).
// CHECK-LABEL: func.func @three_rotaries
// CHECK: mm.rotary {{.*}}mm.fusion = ["rotary_pair_with_next"]
// CHECK-NEXT: mm.rotary
// CHECK-NOT: mm.fusion
// CHECK-SAME: -> tensor<1x2x3x4xf32>
// CHECK-NEXT: mm.rotary
// CHECK-NOT: mm.fusion
// CHECK: return
func.func @three_rotaries(%a: tensor<1x2x3x4xf32>, %c: tensor<1x3x4xf32>, %s: tensor<1x3x4xf32>)
    -> tensor<1x2x3x4xf32> {
  %x = mm.rotary %a, %c, %s : tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x2x3x4xf32>
  %y = mm.rotary %x, %c, %s : tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x2x3x4xf32>
  %z = mm.rotary %y, %c, %s : tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x2x3x4xf32>
  %r = mm.add %z, %x : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  return %r : tensor<1x2x3x4xf32>
}
