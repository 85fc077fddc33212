//===- OpsPool.cpp - AveragePool, MaxPool, LpPool ---------------------------===//
//
// The sliding-window pools over [N, C, D1, ..., Dk] (any k >= 1) as mm.avg_pool,
// mm.max_pool (mm.max_pool_with_indices when the Indices output is used) and
// mm.lp_pool, following ONNX AveragePool-22, MaxPool-22 and LpPool-22
// (https://onnx.ai/onnx/operators/): auto_pad is resolved into explicit pads as for Conv
// (windowAttrs), the result dims come from window::poolOutputSize, the rule the
// verifiers and the CPU kernels use too.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"
#include "runtime/cpu/WindowRules.h"

#include <cmath>

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// A pool node's window (input 0 is [N, C, spatial...]) and its result shape.
struct PoolGeometry {
  WindowAttrs win;
  bool ceilMode = false;
  Shape out;
};

FailureOr<PoolGeometry> poolGeometry(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  if (t.getRank() < 3)
    return c.error() << "X must have rank >= 3 ([N, C, spatial...]), got " << t;
  Shape xs = shapeOf(c.in(0));
  ArrayRef<int64_t> spatial = ArrayRef<int64_t>(xs).drop_front(2);
  auto win = windowAttrs(c, spatial);
  if (failed(win))
    return failure();
  if (llvm::is_contained(win->kernel, 0))
    return c.error() << "kernel_shape entries must be >= 1";
  int64_t ceilMode = c.attrInt("ceil_mode", 0);
  if (ceilMode != 0 && ceilMode != 1)
    return c.error() << "ceil_mode must be 0 or 1, got " << ceilMode;
  PoolGeometry g{std::move(*win), ceilMode == 1, {xs[0], xs[1]}};
  const size_t k = spatial.size();
  for (size_t i = 0; i < k; ++i) {
    if (ShapedType::isDynamic(spatial[i])) {
      g.out.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t o =
        window::poolOutputSize(spatial[i], g.win.kernel[i], g.win.strides[i], g.win.dilations[i],
                               g.win.pads[i], g.win.pads[k + i], g.ceilMode);
    if (o < 0)
      return c.error() << "the window (kernel " << g.win.kernel[i] << ", dilation "
                       << g.win.dilations[i] << ") is larger than the padded input along "
                       << "spatial dim " << i << " (" << spatial[i] << ")";
    g.out.push_back(o);
  }
  return g;
}

LogicalResult requireFloatInput(NodeContext &c) {
  if (!isa<FloatType>(c.type(0).getElementType()))
    return c.unsupported(c.opType() + " of element type " +
                         Twine(c.type(0).getElementType().isInteger(1) ? "bool" : "integer") +
                         " (float types only)");
  return success();
}

/// AveragePool: count_include_pad decides whether the pads count in the divisor.
LogicalResult importAveragePool(NodeContext &c) {
  auto g = poolGeometry(c);
  if (failed(g) || failed(requireFloatInput(c)))
    return failure();
  int64_t countPad = c.attrInt("count_include_pad", 0);
  if (countPad != 0 && countPad != 1)
    return c.error() << "count_include_pad must be 0 or 1, got " << countPad;
  c.setOutput(0, c.create<AvgPoolOp>(withShape(c.in(0), g->out), c.in(0), g->win.kernel,
                                     g->win.strides, g->win.pads, g->win.dilations, g->ceilMode,
                                     countPad == 1));
  return success();
}

/// MaxPool: mm.max_pool, or mm.max_pool_with_indices when the Indices output is used.
LogicalResult importMaxPool(NodeContext &c) {
  auto g = poolGeometry(c);
  if (failed(g))
    return failure();
  if (c.type(0).getElementType().isInteger(1))
    return c.unsupported("MaxPool of bool");
  Builder &b = c.builder();
  auto type = withShape(c.in(0), g->out);
  if (!c.outputUsed(1)) {
    c.setOutput(0, c.create<MaxPoolOp>(type, c.in(0), g->win.kernel, g->win.strides, g->win.pads,
                                       g->win.dilations, g->ceilMode));
    return success();
  }
  int64_t order = c.attrInt("storage_order", 0);
  if (order != 0 && order != 1)
    return c.error() << "storage_order must be 0 (row major) or 1 (column major), got " << order;
  auto op = c.create<MaxPoolWithIndicesOp>(type, RankedTensorType::get(g->out, b.getI64Type()),
                                           c.in(0), g->win.kernel, g->win.strides, g->win.pads,
                                           g->win.dilations, g->ceilMode, order);
  c.setOutput(0, op.getResult());
  c.setOutput(1, op.getIndices());
  return success();
}

/// LpPool: p is an int from opset 2 on (a float before; only whole values >= 1 are
/// accepted).
LogicalResult importLpPool(NodeContext &c) {
  auto g = poolGeometry(c);
  if (failed(g) || failed(requireFloatInput(c)))
    return failure();
  int64_t p = 2;
  if (const onnx::AttributeProto *a = c.attr("p")) {
    bool isFloat = a->type() == onnx::AttributeProto::FLOAT;
    if (isFloat && a->f() != std::floor(a->f()))
      return c.unsupported("LpPool with a fractional p (" + Twine(std::to_string(a->f())) + ")");
    p = isFloat ? static_cast<int64_t>(a->f()) : a->i();
  }
  if (p < 1 || p > 1024)
    return c.error() << "p must be in [1, 1024], got " << p;
  c.setOutput(0, c.create<LpPoolOp>(withShape(c.in(0), g->out), c.in(0), g->win.kernel,
                                    g->win.strides, g->win.pads, g->win.dilations, g->ceilMode, p));
  return success();
}

} // namespace

void addPoolOps(OpTable &t) {
  t["AveragePool"] = importAveragePool;
  t["MaxPool"] = importMaxPool;
  t["LpPool"] = importLpPool;
}

} // namespace mm::onnx_import
