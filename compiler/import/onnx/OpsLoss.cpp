//===- OpsLoss.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss -----===//
//
// Both spelled out with mm ops, following onnx/reference/ops/
// op_negative_log_likelihood_loss.py and op_softmax_cross_entropy_loss.py:
//   picked[n, d..] = input[n, target[n, d..], d..]   (mm.gather_elements on axis 1)
//   loss = -picked * w, w = weight[target] (1 without weights), 0 where target ==
//   ignore_index; reduction none / sum / mean, where mean = sum(loss) / sum(w) when
//   there are weights or an ignore_index (NLL: an ignore_index other than -1), else the
//   plain mean over every element.
// SoftmaxCrossEntropyLoss applies LogSoftmax over axis 1 first and may also return it.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include "llvm/ADT/Sequence.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// Reduces `v` over every axis to a 0-D value.
template <typename OpT> Value reduceAll(NodeContext &c, Value v) {
  const int64_t rank = static_cast<int64_t>(shapeOf(v).size());
  return buildReduce<OpT>(c, v, llvm::to_vector(llvm::seq<int64_t>(0, rank)), false);
}

/// The loss of log-probabilities `logp` [N, C, d..] at `target` [N, d..] (node inputs 1
/// and, optionally, 2 = weight). `sceSemantics`: SoftmaxCrossEntropyLoss's rule for
/// "mean" without weights (any ignore_index divides by the count of the others; NLL's
/// reference does so for an ignore_index other than -1 only).
FailureOr<Value> nllLoss(NodeContext &c, Value logp, bool sceSemantics) {
  Value target = c.in(1);
  RankedTensorType xt = cast<RankedTensorType>(logp.getType());
  RankedTensorType tt = c.type(1);
  Type elt = xt.getElementType();
  if (xt.getRank() < 2 || tt.getRank() != xt.getRank() - 1)
    return c.error() << "input must be [N, C, d...] and target [N, d...], got " << xt << " and "
                     << tt;
  if (!tt.getElementType().isSignlessInteger(32) && !tt.getElementType().isSignlessInteger(64))
    return c.error() << "target must be i32 or i64, got " << tt;
  std::string reduction = c.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return c.error() << "unknown reduction '" << reduction << "'";
  const onnx::AttributeProto *ignoreAttr = c.attr("ignore_index");
  Type it = tt.getElementType();
  Shape ts = shapeOf(target);

  // valid = target != ignore_index; the gathers read index 0 where it is not.
  Value valid, safeTarget = target;
  if (ignoreAttr) {
    auto eq = buildBroadcast<EqualOp>(c, target, c.scalar(it, double(ignoreAttr->i())), true);
    if (failed(eq))
      return failure();
    valid = c.create<NotOp>(eq->getType(), *eq);
    safeTarget = c.create<WhereOp>(tt, valid, target, c.scalar(it, 0));
  }
  Value index = buildUnsqueeze(c, safeTarget, 1);
  Value picked = c.create<GatherElementsOp>(withShape(logp, shapeOf(index)), logp, index,
                                            c.builder().getI64IntegerAttr(1));
  picked = buildSqueeze(c, picked, 1);
  auto lossType = RankedTensorType::get(ts, elt);
  Value loss = c.create<NegOp>(lossType, picked);
  Value zero = c.scalar(elt, 0);

  Value weights; // per element, when "mean" divides by their sum
  if (c.has(2)) {
    weights = c.create<GatherOp>(lossType, c.in(2), safeTarget, c.builder().getI64IntegerAttr(0));
    if (valid)
      weights = c.create<WhereOp>(lossType, valid, weights, zero);
  } else if (valid && (sceSemantics || ignoreAttr->i() != -1)) {
    weights = c.create<CastOp>(lossType, valid);
  }
  if (weights) {
    loss = c.create<MulOp>(lossType, loss, weights);
  } else if (valid) {
    loss = c.create<WhereOp>(lossType, valid, loss, zero);
  }
  if (reduction == "none")
    return loss;
  Value total = reduceAll<ReduceSumOp>(c, loss);
  if (reduction == "sum")
    return total;
  if (!weights)
    return reduceAll<ReduceMeanOp>(c, loss);
  Value wsum = reduceAll<ReduceSumOp>(c, weights);
  return c.create<DivOp>(total.getType(), total, wsum).getResult();
}

LogicalResult importNLLLoss(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  if (!isa<FloatType>(c.type(0).getElementType()))
    return c.error() << "input must be a float tensor, got " << c.type(0);
  auto loss = nllLoss(c, c.in(0), /*sceSemantics=*/false);
  if (failed(loss))
    return failure();
  c.setOutput(0, *loss);
  return success();
}

LogicalResult importSoftmaxCrossEntropyLoss(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  if (!isa<FloatType>(c.type(0).getElementType()) || c.type(0).getRank() < 2)
    return c.error() << "scores must be a float tensor [N, C, d...], got " << c.type(0);
  auto logp = buildLogSoftmax(c, c.in(0), {1});
  if (failed(logp))
    return failure();
  auto loss = nllLoss(c, *logp, /*sceSemantics=*/true);
  if (failed(loss))
    return failure();
  c.setOutput(0, *loss);
  if (c.numOutputs() > 1)
    c.setOutput(1, *logp);
  return success();
}

} // namespace

void addLossOps(OpTable &t) {
  t["NegativeLogLikelihoodLoss"] = importNLLLoss;
  t["SoftmaxCrossEntropyLoss"] = importSoftmaxCrossEntropyLoss;
}

} // namespace mm::onnx_import
