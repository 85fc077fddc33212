//===- OpsNormComposed.cpp - BatchNormalization, InstanceNormalization, ... -===//
//
// BatchNormalization (inference), InstanceNormalization, LpNormalization,
// MeanVarianceNormalization, GlobalAveragePool and GlobalMaxPool, spelled out with mm
// ops (reductions and broadcasting elementwise ops) following
// https://onnx.ai/onnx/operators/ and the ops' ONNX function bodies.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include "llvm/ADT/Sequence.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// A per-channel vector [C] reshaped to [C, 1, ..., 1] so it broadcasts against
/// [N, C, d...] of rank `rank`.
Value perChannel(NodeContext &c, Value v, int64_t rank) {
  SmallVector<int64_t> shape{-1};
  shape.append(static_cast<size_t>(rank - 2), 1);
  return buildReshape(c, v, shape);
}

/// Chains broadcasting ops, remembering the first failure.
struct Chain {
  NodeContext &c;
  bool ok = true;
  template <typename OpT> Value op(Value a, Value b) {
    auto r = buildBroadcast<OpT>(c, a, b);
    if (failed(r)) {
      ok = false;
      return a;
    }
    return *r;
  }
};

LogicalResult requireFloat(NodeContext &c) {
  if (!isa<FloatType>(c.type(0).getElementType()))
    return c.error() << "X must be a float tensor, got " << c.type(0);
  return success();
}

/// Output 0 = normalized * scale + B, with scale (input 1) and B (input 2) per channel
/// (dim 1 of a rank-`rank` input), as BatchNormalization and InstanceNormalization end.
LogicalResult scaleAndShift(NodeContext &c, Chain &k, Value normalized, int64_t rank) {
  Value y = k.op<MulOp>(normalized, perChannel(c, c.in(1), rank));
  y = k.op<AddOp>(y, perChannel(c, c.in(2), rank));
  if (!k.ok)
    return failure();
  c.setOutput(0, y);
  return success();
}

/// y = (x - mean) / sqrt(var + epsilon) * scale + B, per channel (inference mode).
LogicalResult importBatchNorm(NodeContext &c) {
  if (failed(c.requireInputs(5)) || failed(requireFloat(c)))
    return failure();
  if (c.attrInt("training_mode", 0) != 0 || c.outputUsed(1) || c.outputUsed(2))
    return c.unsupported("BatchNormalization in training mode (running mean/var outputs)");
  int64_t rank = c.type(0).getRank();
  if (rank < 2)
    return c.error() << "X must have rank >= 2, got " << c.type(0);
  Type elt = c.type(0).getElementType();
  for (unsigned i = 1; i < 5; ++i)
    if (c.type(i).getElementType() != elt || c.type(i).getRank() != 1)
      return c.unsupported("BatchNormalization with input " + Twine(i) +
                           " not a 1-D tensor of X's element type");
  Chain k{c};
  Value denom = c.create<SqrtOp>(c.type(4), k.op<AddOp>(c.in(4), c.scalar(elt, c.attrFloat("epsilon", 1e-5f))));
  Value y = k.op<SubOp>(c.in(0), perChannel(c, c.in(3), rank));
  y = k.op<DivOp>(y, perChannel(c, denom, rank));
  return scaleAndShift(c, k, y, rank);
}

/// The spatial dims [2, rank) of X (input 0); an error unless its rank is at least 3.
FailureOr<SmallVector<int64_t>> spatialAxes(NodeContext &c) {
  const int64_t rank = c.type(0).getRank();
  if (rank < 3)
    return c.error() << "X must have rank >= 3, got " << c.type(0);
  return llvm::to_vector(llvm::seq<int64_t>(2, rank));
}

/// y = scale * (x - mean) / sqrt(var + epsilon) + B, statistics over dims [2, rank).
LogicalResult importInstanceNorm(NodeContext &c) {
  if (failed(c.requireInputs(3)) || failed(requireFloat(c)))
    return failure();
  auto axes = spatialAxes(c);
  if (failed(axes))
    return failure();
  const int64_t rank = c.type(0).getRank();
  Type elt = c.type(0).getElementType();
  Chain k{c};
  Value x = c.in(0);
  Value centered = k.op<SubOp>(x, buildReduce<ReduceMeanOp>(c, x, *axes, true));
  Value var = buildReduce<ReduceMeanOp>(c, c.create<MulOp>(x.getType(), centered, centered),
                                        *axes, true);
  Value denom = k.op<AddOp>(var, c.scalar(elt, c.attrFloat("epsilon", 1e-5f)));
  denom = c.create<SqrtOp>(denom.getType(), denom);
  return scaleAndShift(c, k, k.op<DivOp>(centered, denom), rank);
}

/// y = x / ||x||_p along `axis` (p = 1 or 2); 0 where the norm is 0 (as the ONNX test
/// data expects, instead of 0 / 0).
LogicalResult importLpNorm(NodeContext &c) {
  if (failed(c.requireInputs(1)) || failed(requireFloat(c)))
    return failure();
  int64_t p = c.attrInt("p", 2);
  if (p != 1 && p != 2)
    return c.error() << "p must be 1 or 2, got " << p;
  auto axis = c.normalizeAxis(c.attrInt("axis", -1), c.type(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  Value x = c.in(0);
  Value norm;
  if (p == 1) {
    norm = buildReduce<ReduceSumOp>(c, c.create<AbsOp>(x.getType(), x), {*axis}, true);
  } else {
    norm = buildReduce<ReduceSumOp>(c, c.create<MulOp>(x.getType(), x, x), {*axis}, true);
    norm = c.create<SqrtOp>(norm.getType(), norm);
  }
  Chain k{c};
  Value zero = c.scalar(c.type(0).getElementType(), 0);
  Value y = k.op<DivOp>(x, norm);
  auto isZero = buildBroadcast<EqualOp>(c, norm, zero, /*boolResult=*/true);
  if (!k.ok || failed(isZero))
    return failure();
  c.setOutput(0, c.create<WhereOp>(cast<RankedTensorType>(y.getType()), *isZero, zero, y));
  return success();
}

/// The function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes`
/// (default [0, 2, 3]).
LogicalResult importMeanVarianceNorm(NodeContext &c) {
  if (failed(c.requireInputs(1)) || failed(requireFloat(c)))
    return failure();
  SmallVector<int64_t> axes = c.attrInts("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  auto norm = c.normalizeAxes(axes, c.type(0).getRank());
  if (failed(norm))
    return failure();
  Type elt = c.type(0).getElementType();
  Value x = c.in(0);
  Chain k{c};
  Value mean = buildReduce<ReduceMeanOp>(c, x, *norm, true);
  Value meanSq = c.create<MulOp>(mean.getType(), mean, mean);
  Value sqMean = buildReduce<ReduceMeanOp>(c, c.create<MulOp>(x.getType(), x, x), *norm, true);
  Value var = c.create<SubOp>(mean.getType(), sqMean, meanSq);
  Value stdev = k.op<AddOp>(c.create<SqrtOp>(var.getType(), var), c.scalar(elt, 1e-9));
  Value y = k.op<DivOp>(k.op<SubOp>(x, mean), stdev);
  if (!k.ok)
    return failure();
  c.setOutput(0, y);
  return success();
}

/// GlobalAveragePool / GlobalMaxPool: mean / max over dims [2, rank), kept as 1.
template <typename OpT> LogicalResult importGlobalPool(NodeContext &c) {
  if (failed(c.requireInputs(1)) || failed(requireFloat(c)))
    return failure();
  auto axes = spatialAxes(c);
  if (failed(axes))
    return failure();
  c.setOutput(0, buildReduce<OpT>(c, c.in(0), *axes, true));
  return success();
}

} // namespace

void addComposedNormOps(OpTable &t) {
  t["BatchNormalization"] = importBatchNorm;
  t["InstanceNormalization"] = importInstanceNorm;
  t["LpNormalization"] = importLpNorm;
  t["MeanVarianceNormalization"] = importMeanVarianceNorm;
  t["GlobalAveragePool"] = importGlobalPool<ReduceMeanOp>;
  t["GlobalMaxPool"] = importGlobalPool<ReduceMaxOp>;
}

} // namespace mm::onnx_import
