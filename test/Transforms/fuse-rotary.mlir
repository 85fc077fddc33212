// -mm-fuse-rotary: the rotate-half rotary embedding as both exporters emit Llama's
// apply_rotary_pos_emb (after shape folding: constant slice bounds), the partial form,
// then near misses that must stay as they are.
// RUN: mmc-opt %s -mm-fuse-rotary -split-input-file | FileCheck %s

// TorchScript / dynamo Llama: cos, sin [B, S, D] unsqueezed at 1, slices [0, 8) and
// [8, INT64_MAX) of the last axis, x * cos + rotate_half(x) * sin.
// CHECK-LABEL: func.func @llama
// CHECK-NEXT: %[[R:.*]] = mm.rotary %arg0, %arg1, %arg2 : tensor<?x4x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32> -> tensor<?x4x?x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @llama(%q: tensor<?x4x?x16xf32>, %cos: tensor<?x?x16xf32>, %sin: tensor<?x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %cmax = mm.constant dense<9223372036854775807> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %cu = mm.unsqueeze %cos {axes = array<i64: 1>} : tensor<?x?x16xf32> -> tensor<?x1x?x16xf32>
  %su = mm.unsqueeze %sin {axes = array<i64: 1>} : tensor<?x?x16xf32> -> tensor<?x1x?x16xf32>
  %xc = mm.mul %q, %cu : tensor<?x4x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x4x?x16xf32>
  %lo = mm.slice %q, %c0, %c8, %ax, %st : tensor<?x4x?x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x4x?x8xf32>
  %hi = mm.slice %q, %c8, %cmax, %ax, %st : tensor<?x4x?x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x4x?x8xf32>
  %n = mm.neg %hi : tensor<?x4x?x8xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32> -> tensor<?x4x?x16xf32>
  %rs = mm.mul %rot, %su : tensor<?x4x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x4x?x16xf32>
  %y = mm.add %xc, %rs : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %y : tensor<?x4x?x16xf32>
}

// -----

// Operands in the other orders, the axis as -1, end 16, cos / sin as [S, D] tables.
// CHECK-LABEL: func.func @commuted_table
// CHECK-NEXT: %[[R:.*]] = mm.rotary %arg0, %arg1, %arg2 : tensor<1x2x5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @commuted_table(%k: tensor<1x2x5x8xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> tensor<1x2x5x8xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %ax = mm.constant dense<-1> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c4, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %k, %c4, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %n = mm.neg %hi : tensor<1x2x5x4xf32>
  %rot = mm.concat %n, %lo {axis = -1 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x8xf32>
  %rs = mm.mul %sin, %rot : tensor<5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  %xc = mm.mul %cos, %k : tensor<5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  %y = mm.add %rs, %xc : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %y : tensor<1x2x5x8xf32>
}

// -----

// cos / sin given as [B, 1, S, D] (not through an unsqueeze): squeezed for mm.rotary.
// CHECK-LABEL: func.func @four_d_tables
// CHECK-DAG: %[[C:.*]] = mm.squeeze %arg1 {axes = array<i64: 1>} : tensor<2x1x5x8xf32> -> tensor<2x5x8xf32>
// CHECK-DAG: %[[S:.*]] = mm.squeeze %arg2 {axes = array<i64: 1>} : tensor<2x1x5x8xf32> -> tensor<2x5x8xf32>
// CHECK: mm.rotary %arg0, %[[C]], %[[S]] : tensor<2x3x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32> -> tensor<2x3x5x8xf32>
func.func @four_d_tables(%k: tensor<2x3x5x8xf32>, %cos: tensor<2x1x5x8xf32>, %sin: tensor<2x1x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c4, %ax, %st : tensor<2x3x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x3x5x4xf32>
  %hi = mm.slice %k, %c4, %c8, %ax, %st : tensor<2x3x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x3x5x4xf32>
  %n = mm.neg %hi : tensor<2x3x5x4xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32> -> tensor<2x3x5x8xf32>
  %xc = mm.mul %k, %cos : tensor<2x3x5x8xf32>, tensor<2x1x5x8xf32> -> tensor<2x3x5x8xf32>
  %rs = mm.mul %rot, %sin : tensor<2x3x5x8xf32>, tensor<2x1x5x8xf32> -> tensor<2x3x5x8xf32>
  %y = mm.add %xc, %rs : tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32> -> tensor<2x3x5x8xf32>
  return %y : tensor<2x3x5x8xf32>
}

// -----

// Partial rotary (GPT-NeoX, Phi): the first 8 of 16 channels rotate, the rest pass.
// CHECK-LABEL: func.func @partial
// CHECK-NEXT: %[[R:.*]] = mm.rotary %arg0, %arg1, %arg2 : tensor<1x2x5x16xf32>, tensor<5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @partial(%x: tensor<1x2x5x16xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> tensor<1x2x5x16xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %c16 = mm.constant dense<16> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %xr = mm.slice %x, %c0, %c8, %ax, %st : tensor<1x2x5x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x8xf32>
  %xp = mm.slice %x, %c8, %c16, %ax, %st : tensor<1x2x5x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x8xf32>
  %lo = mm.slice %xr, %c0, %c4, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %xr, %c4, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %n = mm.neg %hi : tensor<1x2x5x4xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x8xf32>
  %xc = mm.mul %xr, %cos : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %rs = mm.mul %rot, %sin : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %r = mm.add %xc, %rs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  %y = mm.concat %r, %xp {axis = 3 : i64} : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x16xf32>
  return %y : tensor<1x2x5x16xf32>
}

// -----

// Near miss: the halves are split at 4, not D/2 = 8.
// CHECK-LABEL: func.func @wrong_split
// CHECK-NOT: mm.rotary
func.func @wrong_split(%k: tensor<1x2x5x16xf32>, %cos: tensor<5x16xf32>, %sin: tensor<5x16xf32>) -> tensor<1x2x5x16xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c16 = mm.constant dense<16> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c4, %ax, %st : tensor<1x2x5x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %k, %c4, %c16, %ax, %st : tensor<1x2x5x16xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x12xf32>
  %n = mm.neg %hi : tensor<1x2x5x12xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<1x2x5x12xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x16xf32>
  %xc = mm.mul %k, %cos : tensor<1x2x5x16xf32>, tensor<5x16xf32> -> tensor<1x2x5x16xf32>
  %rs = mm.mul %rot, %sin : tensor<1x2x5x16xf32>, tensor<5x16xf32> -> tensor<1x2x5x16xf32>
  %y = mm.add %xc, %rs : tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32> -> tensor<1x2x5x16xf32>
  return %y : tensor<1x2x5x16xf32>
}

// -----

// Near miss: the negation is on the first half (rotation by -theta, not rotate_half).
// CHECK-LABEL: func.func @negated_first_half
// CHECK-NOT: mm.rotary
func.func @negated_first_half(%k: tensor<1x2x5x8xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> tensor<1x2x5x8xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c4, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %k, %c4, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %n = mm.neg %lo : tensor<1x2x5x4xf32>
  %rot = mm.concat %hi, %n {axis = 3 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x8xf32>
  %xc = mm.mul %k, %cos : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %rs = mm.mul %rot, %sin : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %y = mm.add %xc, %rs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %y : tensor<1x2x5x8xf32>
}

// -----

// Near miss: x * cos uses another tensor than the one rotated.
// CHECK-LABEL: func.func @other_tensor
// CHECK-NOT: mm.rotary
func.func @other_tensor(%k: tensor<1x2x5x8xf32>, %q: tensor<1x2x5x8xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> tensor<1x2x5x8xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c4, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %k, %c4, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %n = mm.neg %hi : tensor<1x2x5x4xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x8xf32>
  %xc = mm.mul %q, %cos : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %rs = mm.mul %rot, %sin : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %y = mm.add %xc, %rs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %y : tensor<1x2x5x8xf32>
}

// -----

// Near miss: the tables vary per head ([1, H, S, D]); mm.rotary broadcasts over heads.
// CHECK-LABEL: func.func @per_head_tables
// CHECK-NOT: mm.rotary
func.func @per_head_tables(%k: tensor<1x2x5x8xf32>, %cos: tensor<1x2x5x8xf32>, %sin: tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<1> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c4, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %k, %c4, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %n = mm.neg %hi : tensor<1x2x5x4xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x8xf32>
  %xc = mm.mul %k, %cos : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  %rs = mm.mul %rot, %sin : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  %y = mm.add %xc, %rs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %y : tensor<1x2x5x8xf32>
}

// -----

// Near miss: a slice with step 2 (the interleaved GPT-J layout is not rotate-half).
// CHECK-LABEL: func.func @strided_slice
// CHECK-NOT: mm.rotary
func.func @strided_slice(%k: tensor<1x2x5x8xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> tensor<1x2x5x8xf32> {
  %c0 = mm.constant dense<0> : tensor<1xi64>
  %c1 = mm.constant dense<1> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %ax = mm.constant dense<3> : tensor<1xi64>
  %st = mm.constant dense<2> : tensor<1xi64>
  %lo = mm.slice %k, %c0, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %hi = mm.slice %k, %c1, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
  %n = mm.neg %hi : tensor<1x2x5x4xf32>
  %rot = mm.concat %n, %lo {axis = 3 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x8xf32>
  %xc = mm.mul %k, %cos : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %rs = mm.mul %rot, %sin : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
  %y = mm.add %xc, %rs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
  return %y : tensor<1x2x5x8xf32>
}
