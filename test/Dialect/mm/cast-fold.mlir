// mm.cast folds: a cast to its own type is its input; a cast of a cast that only widened
// a float exactly casts the original value (or is it); casts that round, integer casts
// and dims-only casts stay.
// RUN: mmc-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @identity
// CHECK-NEXT: return %arg0
func.func @identity(%x: tensor<2xf16>) -> tensor<2xf16> {
  %c = mm.cast %x : tensor<2xf16> -> tensor<2xf16>
  return %c : tensor<2xf16>
}

// -----

// f16 -> f32 -> f16 keeps every value: the round trip is the value.
// CHECK-LABEL: func.func @widen_and_back
// CHECK-NEXT: return %arg0
func.func @widen_and_back(%x: tensor<2xf16>) -> tensor<2xf16> {
  %up = mm.cast %x : tensor<2xf16> -> tensor<2xf32>
  %down = mm.cast %up : tensor<2xf32> -> tensor<2xf16>
  return %down : tensor<2xf16>
}

// -----

// bf16 -> f32 -> f16: one rounding either way, so one cast.
// CHECK-LABEL: func.func @widen_then_other
// CHECK-NEXT: %[[C:.*]] = mm.cast %arg0 : tensor<2xbf16> -> tensor<2xf16>
// CHECK-NEXT: return %[[C]]
func.func @widen_then_other(%x: tensor<2xbf16>) -> tensor<2xf16> {
  %up = mm.cast %x : tensor<2xbf16> -> tensor<2xf32>
  %down = mm.cast %up : tensor<2xf32> -> tensor<2xf16>
  return %down : tensor<2xf16>
}

// -----

// Near misses: f32 -> f16 -> f32 rounds (and overflows) in the middle; f32 -> i32 -> f32
// truncates; a dims-only cast changes the type.
// CHECK-LABEL: func.func @kept
// CHECK: mm.cast %arg0 : tensor<2xf32> -> tensor<2xf16>
// CHECK: mm.cast %{{.*}} : tensor<2xf16> -> tensor<2xf32>
// CHECK: mm.cast %arg0 : tensor<2xf32> -> tensor<2xi32>
// CHECK: mm.cast %{{.*}} : tensor<2xi32> -> tensor<2xf32>
// CHECK: mm.cast %arg1 : tensor<?xf32> -> tensor<2xf32>
func.func @kept(%x: tensor<2xf32>, %y: tensor<?xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %h = mm.cast %x : tensor<2xf32> -> tensor<2xf16>
  %a = mm.cast %h : tensor<2xf16> -> tensor<2xf32>
  %i = mm.cast %x : tensor<2xf32> -> tensor<2xi32>
  %b = mm.cast %i : tensor<2xi32> -> tensor<2xf32>
  %c = mm.cast %y : tensor<?xf32> -> tensor<2xf32>
  return %a, %b, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
