//===- OpsScatter.cpp - ScatterND, ScatterElements, Scatter, NonZero --------===//
//
// ScatterND -> mm.scatter_nd, ScatterElements and the deprecated Scatter (opsets 9-10,
// ScatterElements without reduction) -> mm.scatter_elements, NonZero -> mm.nonzero,
// after ONNX ScatterND-18, ScatterElements-18 and NonZero-13
// (https://onnx.ai/onnx/operators/). `reduction` (opset 16: none, add, mul; 18: max, min)
// becomes mm's ScatterReduction. NonZero's second result dim is the number of non-zero
// elements, known only at run time (`?`): the runtime allocates the result after
// counting, and the CUDA target runs it on the host.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// The node's `reduction` attribute; an error naming the accepted values otherwise.
FailureOr<ScatterReduction> reduction(NodeContext &c) {
  std::string r = c.attrString("reduction", "none");
  std::optional<ScatterReduction> e = symbolizeScatterReduction(r);
  if (!e)
    return c.error() << "reduction must be none, add, mul, max or min, got '" << r << "'";
  if (*e != ScatterReduction::none && c.type(0).getElementType().isInteger(1))
    return c.unsupported("reduction '" + r + "' over bool data");
  return *e;
}

/// Inputs data, indices (i32 or i64) and updates of data's element type.
LogicalResult checkScatterInputs(NodeContext &c) {
  if (failed(c.requireInputs(3)))
    return failure();
  Type idx = c.type(1).getElementType();
  if (!idx.isSignlessInteger(32) && !idx.isSignlessInteger(64))
    return c.error() << "indices must be int32 or int64, got " << c.type(1);
  if (c.type(2).getElementType() != c.type(0).getElementType())
    return c.error() << "updates " << c.type(2) << " must have the element type of data "
                     << c.type(0);
  return success();
}

LogicalResult importScatterND(NodeContext &c) {
  if (failed(checkScatterInputs(c)))
    return failure();
  auto red = reduction(c);
  if (failed(red))
    return failure();
  RankedTensorType data = c.type(0), idx = c.type(1), upd = c.type(2);
  if (idx.getRank() < 1)
    return c.error() << "indices must have rank >= 1, got " << idx;
  int64_t k = idx.getDimSize(idx.getRank() - 1);
  if (!ShapedType::isDynamic(k) && (k < 1 || k > data.getRank()))
    return c.error() << "the last dim of indices " << idx << " must be in [1, " << data.getRank()
                     << "] (the rank of data " << data << ")";
  if (!ShapedType::isDynamic(k) && upd.getRank() != idx.getRank() - 1 + data.getRank() - k)
    return c.error() << "updates " << upd << " must have rank "
                     << idx.getRank() - 1 + data.getRank() - k << " for data " << data
                     << " and indices " << idx;
  c.setOutput(0, c.create<ScatterNDOp>(data, c.in(0), c.in(1), c.in(2), *red));
  return success();
}

/// ScatterElements, and Scatter (opsets 9-10) which is the same op without reduction.
LogicalResult importScatterElements(NodeContext &c) {
  if (failed(checkScatterInputs(c)))
    return failure();
  auto red = reduction(c);
  if (failed(red))
    return failure();
  RankedTensorType data = c.type(0), idx = c.type(1), upd = c.type(2);
  if (data.getRank() < 1 || idx.getRank() != data.getRank() || upd.getRank() != data.getRank())
    return c.error() << "data, indices and updates must have one rank >= 1, got " << data << ", "
                     << idx << " and " << upd;
  auto axis = c.normalizeAxis(c.attrInt("axis", 0), data.getRank(), "axis");
  if (failed(axis))
    return failure();
  c.setOutput(0, c.create<ScatterElementsOp>(data, c.in(0), c.in(1), c.in(2), *axis, *red));
  return success();
}

LogicalResult importNonZero(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  int64_t rows = std::max<int64_t>(c.type(0).getRank(), 1);
  auto type = RankedTensorType::get({rows, ShapedType::kDynamic}, c.builder().getI64Type());
  c.setOutput(0, c.create<NonZeroOp>(type, c.in(0)));
  return success();
}

} // namespace

void addScatterOps(OpTable &t) {
  t["ScatterND"] = importScatterND;
  t["ScatterElements"] = importScatterElements;
  t["Scatter"] = importScatterElements;
  t["NonZero"] = importNonZero;
}

} // namespace mm::onnx_import
