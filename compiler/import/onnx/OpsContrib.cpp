//===- OpsContrib.cpp - onnxruntime's contrib ops, straight to fused mm ops --===//
//
// The ops onnxruntime's transformer optimizer and onnxruntime-genai's model builder write
// into the graphs they emit (docs/ContribOperators.md of onnxruntime; the CPU kernels in
// onnxruntime/contrib_ops/cpu are the reference semantics where the document is silent).
// Each becomes the fused mm op the fusion passes would have raised, so such a graph runs
// the same kernels as a plain export:
//   SimplifiedLayerNormalization (ai.onnx domain)    -> mm.rms_norm
//   SkipSimplifiedLayerNormalization                 -> mm.add_rms_norm
//   SkipLayerNormalization                           -> mm.add_layer_norm
//   Gelu, BiasGelu                                   -> mm.gelu
//   FastGelu                                         -> mm.gelu {approximate = tanh}
//   QuickGelu                                        -> mm.quick_gelu (alpha 1.702)
// Optional statistics outputs (mean, inv_std_var) are not supported: no exported
// transformer reads them.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include <cmath>

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// Refuses the optional statistics outputs `first`.. of a norm.
LogicalResult noStatistics(NodeContext &c, unsigned first, unsigned last) {
  for (unsigned i = first; i <= last; ++i)
    if (c.outputUsed(i))
      return c.unsupported("output " + Twine(i) + " (the norm's mean / inv_std_var statistics)");
  return success();
}

/// `x + bias` when input `i` (a bias) is present, else `x`.
FailureOr<Value> plusOptional(NodeContext &c, Value x, unsigned i) {
  return c.has(i) ? buildBroadcast<AddOp>(c, x, c.in(i)) : FailureOr<Value>(x);
}

/// The normalised axis of a contrib norm: only the last one (the `axis` attribute of
/// SimplifiedLayerNormalization, -1 by default; the Skip* ops always normalise it).
LogicalResult requireLastAxis(NodeContext &c) {
  int64_t rank = c.type(0).getRank();
  auto axis = c.normalizeAxis(c.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  if (*axis != rank - 1)
    return c.unsupported("normalising from axis " + Twine(*axis) + " (only the last axis)");
  return success();
}

/// SimplifiedLayerNormalization(X, scale): RMSNorm over the last axis, in f32 whatever
/// stash_type says (mm.rms_norm accumulates in f32).
LogicalResult importSimplifiedLayerNorm(NodeContext &c) {
  if (failed(c.requireInputs(2)) || failed(requireLastAxis(c)) || failed(noStatistics(c, 1, 1)))
    return failure();
  Builder &b = c.builder();
  c.setOutput(0, c.create<RMSNormOp>(c.type(0), c.in(0), c.in(1),
                                     b.getF32FloatAttr(c.attrFloat("epsilon", 1e-5f)),
                                     b.getF32FloatAttr(0.0f)));
  return success();
}

/// The residual operands of a Skip* norm: input and skip (+ bias), of one type, or a
/// failure naming why not (skip may broadcast in onnxruntime; mm's fused ops do not).
FailureOr<std::pair<Value, Value>> residualOperands(NodeContext &c, unsigned biasInput) {
  if (c.type(1) != c.type(0))
    return c.unsupported("a skip whose type differs from the input's (a broadcast skip)");
  auto skip = plusOptional(c, c.in(1), biasInput);
  if (failed(skip))
    return failure();
  if (skip->getType() != c.type(0))
    return c.unsupported("a bias that changes the skip's type");
  return std::make_pair(c.in(0), *skip);
}

/// SkipSimplifiedLayerNormalization(input, skip, gamma, [bias]) -> output and
/// input_skip_bias_sum (output 3).
LogicalResult importSkipSimplifiedLayerNorm(NodeContext &c) {
  if (failed(c.requireInputs(3)) || failed(noStatistics(c, 1, 2)))
    return failure();
  auto operands = residualOperands(c, 3);
  if (failed(operands))
    return failure();
  Builder &b = c.builder();
  auto t = c.type(0);
  auto op = c.create<AddRMSNormOp>(TypeRange{t, t}, operands->first, operands->second, c.in(2),
                                   b.getF32FloatAttr(c.attrFloat("epsilon", 1e-12f)),
                                   b.getF32FloatAttr(0.0f));
  c.setOutput(0, op.getResult());
  c.setOutput(3, op.getSum());
  return success();
}

/// SkipLayerNormalization(input, skip, gamma, [beta], [bias]) -> output and
/// input_skip_bias_sum (output 3).
LogicalResult importSkipLayerNorm(NodeContext &c) {
  if (failed(c.requireInputs(3)) || failed(noStatistics(c, 1, 2)))
    return failure();
  auto operands = residualOperands(c, 4);
  if (failed(operands))
    return failure();
  Builder &b = c.builder();
  auto t = c.type(0);
  auto op = c.create<AddLayerNormOp>(TypeRange{t, t}, operands->first, operands->second, c.in(2),
                                     c.in(3), b.getI64IntegerAttr(-1),
                                     b.getF32FloatAttr(c.attrFloat("epsilon", 1e-12f)));
  c.setOutput(0, op.getResult());
  c.setOutput(3, op.getSum());
  return success();
}

/// Gelu(X) / BiasGelu(A, B) / FastGelu(X, [bias]): GELU of the (biased) input, exact or
/// with the tanh approximation.
template <GeluApproximation kind, unsigned biasInput>
LogicalResult importContribGelu(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  auto x = plusOptional(c, c.in(0), biasInput);
  if (failed(x))
    return failure();
  c.setOutput(0, c.create<GeluOp>(x->getType(), *x, kind));
  return success();
}

/// QuickGelu(X) = X * sigmoid(alpha X): mm.quick_gelu for CLIP's alpha 1.702, else spelled
/// out (the fusion pass then keeps it as it is, as for any other constant).
LogicalResult importQuickGelu(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  float alpha = c.attrFloat("alpha", 1.702f);
  RankedTensorType t = c.type(0);
  if (alpha == 1.702f) {
    c.setOutput(0, c.create<QuickGeluOp>(t, c.in(0)));
    return success();
  }
  auto scaled = buildBroadcast<MulOp>(c, c.in(0), c.scalar(t.getElementType(), alpha));
  if (failed(scaled))
    return failure();
  Value gate = c.create<SigmoidOp>(t, *scaled);
  c.setOutput(0, c.create<MulOp>(t, c.in(0), gate));
  return success();
}

} // namespace

void addContribOps(OpTable &t) {
  t["SkipSimplifiedLayerNormalization"] = importSkipSimplifiedLayerNorm;
  t["SkipLayerNormalization"] = importSkipLayerNorm;
  t["Gelu"] = importContribGelu<GeluApproximation::none, 1>;
  t["BiasGelu"] = importContribGelu<GeluApproximation::none, 1>;
  t["FastGelu"] = importContribGelu<GeluApproximation::tanh, 1>;
  t["QuickGelu"] = importQuickGelu;
}

void addOnnxruntimeDefaultDomainOps(OpTable &t) {
  t["SimplifiedLayerNormalization"] = importSimplifiedLayerNorm;
}

} // namespace mm::onnx_import
