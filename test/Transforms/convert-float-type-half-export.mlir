// -mm-convert-float-type on an fp16 export (what gen_half.py's TorchScript export holds
// after fusion): f16 arguments and weights, an f32 weight and an f32 residual stream the
// exporter left, an f32 cos of the positions rounded to f16 where the graph uses it.
// Every float type other than the target's is converted; the signature keeps its types.
// RUN: mmc-opt %s -mm-convert-float-type -canonicalize | FileCheck %s --check-prefix=BF16
// RUN: mmc-opt %s -mm-convert-float-type=to=f16 -canonicalize | FileCheck %s --check-prefix=F16
// RUN: mmc-opt %s -mm-convert-float-type=to=f32 -canonicalize | FileCheck %s --check-prefix=F32

// bf16: the f16 argument cast on entry, both weights cast (folded by the plan emitter),
// the f32 stream computed in bf16; the positions' cos stays f32 and is cast to bf16 from
// its f32 source, not through the graph's f16 rounding; the result cast back to f16.
// BF16-LABEL: func.func @fp16_export
// BF16-SAME: -> tensor<2x4xf16>
// BF16-DAG: %[[X:.*]] = mm.cast %arg0 : tensor<2x4xf16> -> tensor<2x4xbf16>
// BF16-DAG: %[[W16:.*]] = mm.cast %{{.*}} : tensor<4x4xf16> -> tensor<4x4xbf16>
// BF16-DAG: %[[W32:.*]] = mm.cast %{{.*}} : tensor<4x4xf32> -> tensor<4x4xbf16>
// BF16: %[[Y:.*]] = mm.matmul %[[X]], %[[W16]] : tensor<2x4xbf16>, tensor<4x4xbf16> -> tensor<2x4xbf16>
// BF16: %[[Z:.*]] = mm.matmul %[[Y]], %[[W32]] : tensor<2x4xbf16>, tensor<4x4xbf16> -> tensor<2x4xbf16>
// BF16: %[[R:.*]] = mm.add %[[X]], %[[Z]] : tensor<2x4xbf16>, tensor<2x4xbf16> -> tensor<2x4xbf16>
// BF16: %[[C:.*]] = mm.cos %{{.*}} : tensor<4xf32>
// BF16: %[[CB:.*]] = mm.cast %[[C]] : tensor<4xf32> -> tensor<4xbf16>
// BF16: %[[M:.*]] = mm.mul %[[R]], %[[CB]] : tensor<2x4xbf16>, tensor<4xbf16> -> tensor<2x4xbf16>
// BF16: %[[OUT:.*]] = mm.cast %[[M]] : tensor<2x4xbf16> -> tensor<2x4xf16>
// BF16: return %[[OUT]]

// f16 (what --dtype auto picks for this model): no cast of the argument or of the f16
// weight, the f32 weight cast, the island's casts gone (f16 -> f16), the graph's own
// f16 rounding of the cos kept.
// F16-LABEL: func.func @fp16_export
// F16-NOT: mm.cast %arg0
// F16: %[[W32:.*]] = mm.cast %{{.*}} : tensor<4x4xf32> -> tensor<4x4xf16>
// F16: %[[Y:.*]] = mm.matmul %arg0, %{{.*}} : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
// F16: %[[Z:.*]] = mm.matmul %[[Y]], %[[W32]] : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
// F16: %[[R:.*]] = mm.add %arg0, %[[Z]] : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<2x4xf16>
// F16: %[[C16:.*]] = mm.cast %{{.*}} : tensor<4xf32> -> tensor<4xf16>
// F16: %[[M:.*]] = mm.mul %[[R]], %[[C16]] : tensor<2x4xf16>, tensor<4xf16> -> tensor<2x4xf16>
// F16-NEXT: return %[[M]]

// f32: the whole model upcast; the f16 argument widened on entry (the round trip of the
// graph's own cast folds away), the result rounded back to f16.
// F32-LABEL: func.func @fp16_export
// F32: %[[X:.*]] = mm.cast %arg0 : tensor<2x4xf16> -> tensor<2x4xf32>
// F32: mm.matmul %[[X]], %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
// F32: %[[C:.*]] = mm.cos %{{.*}} : tensor<4xf32>
// F32: mm.mul %{{.*}}, %[[C]] : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
// F32: %[[OUT:.*]] = mm.cast %{{.*}} : tensor<2x4xf32> -> tensor<2x4xf16>
// F32: return %[[OUT]]
func.func @fp16_export(%x: tensor<2x4xf16>, %p: tensor<4xi64>) -> tensor<2x4xf16> {
  %w16 = mm.weight "w16" from "w.bin" [0, 32] : tensor<4x4xf16>
  %w32 = mm.weight "w32" from "w.bin" [32, 64] : tensor<4x4xf32>
  %y = mm.matmul %x, %w16 : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
  %yf = mm.cast %y : tensor<2x4xf16> -> tensor<2x4xf32>
  %z = mm.matmul %yf, %w32 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %xf = mm.cast %x : tensor<2x4xf16> -> tensor<2x4xf32>
  %r = mm.add %xf, %z : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %pf = mm.cast %p : tensor<4xi64> -> tensor<4xf32>
  %c = mm.cos %pf : tensor<4xf32>
  %c16 = mm.cast %c : tensor<4xf32> -> tensor<4xf16>
  %rd = mm.cast %r : tensor<2x4xf32> -> tensor<2x4xf16>
  %m = mm.mul %rd, %c16 : tensor<2x4xf16>, tensor<4xf16> -> tensor<2x4xf16>
  return %m : tensor<2x4xf16>
}
