//===- OpsQuant.cpp - DequantizeLinear and QuantizeLinear ------------------===//
//
// Per-tensor, per-axis and blocked (opset 21 block_size) quantization onto
// mm.dequantize_linear / mm.quantize_linear. A one-element 1-D scale (and zero point) is
// per-tensor and becomes 0-D.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// A 1-D single-element scale / zero point as a 0-D tensor (per-tensor quantization).
Value perTensorScalar(NodeContext &c, Value v) {
  if (!v)
    return v;
  Shape s = shapeOf(v);
  if (s.size() == 1 && s[0] == 1)
    return c.create<ReshapeOp>(withShape(v, {}), v, c.constI64({}));
  return v;
}

LogicalResult importDequantize(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  Value scale = perTensorScalar(c, c.in(1)), zero = perTensorScalar(c, c.in(2));
  Type elt = cast<RankedTensorType>(scale.getType()).getElementType();
  if (int64_t out = c.attrInt("output_dtype", 0)) {
    if (elementType(out, c.ctx()) != elt)
      return c.unsupported("DequantizeLinear output_dtype " + dataTypeName(out) +
                           " different from the scale's type");
  }
  auto type = RankedTensorType::get(c.type(0).getShape(), elt);
  c.setOutput(0, c.create<DequantizeLinearOp>(type, c.in(0), scale, zero, c.attrInt("axis", 1),
                                              c.attrInt("block_size", 0)));
  return success();
}

LogicalResult importQuantize(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  Value scale = perTensorScalar(c, c.in(1)), zero = perTensorScalar(c, c.in(2));
  Type elt = IntegerType::get(c.ctx(), 8, IntegerType::Unsigned);
  if (zero) {
    elt = cast<RankedTensorType>(zero.getType()).getElementType();
  } else if (int64_t out = c.attrInt("output_dtype", 0)) {
    elt = elementType(out, c.ctx());
    if (!elt)
      return c.unsupported("QuantizeLinear to " + dataTypeName(out));
  }
  if (c.attrInt("saturate", 1) == 0)
    return c.unsupported("QuantizeLinear with saturate=0 (float8 without saturation)");
  auto type = RankedTensorType::get(c.type(0).getShape(), elt);
  c.setOutput(0, c.create<QuantizeLinearOp>(type, c.in(0), scale, zero, c.attrInt("axis", 1),
                                            c.attrInt("block_size", 0)));
  return success();
}

} // namespace

void addQuantOps(OpTable &t) {
  t["DequantizeLinear"] = importDequantize;
  t["QuantizeLinear"] = importQuantize;
}

} // namespace mm::onnx_import
