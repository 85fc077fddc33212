//===- OpsNN.cpp - contractions, convolution, reductions, normalizations --===//
//
// MatMul, Gemm (transpose / matmul / mul / add), Conv (1-D and 2-D), Softmax, Reduce*,
// LayerNormalization, RMSNormalization. Einsum lives in OpsEinsum.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include <numeric>

using namespace mlir;

namespace mm::onnx_import {

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

FailureOr<Value> matmul(NodeContext &c, Value a, Value b) {
  auto shape = matmulShape(shapeOf(a), shapeOf(b));
  if (!shape)
    return c.error() << "MatMul operands do not fit: " << a.getType() << " x " << b.getType();
  return c.create<MatMulOp>(withShape(a, *shape), a, b).getResult();
}

template <typename OpT>
FailureOr<Value> broadcastOp(NodeContext &c, Value a, Value b) {
  return buildBroadcast<OpT>(c, a, b);
}

LogicalResult importMatMul(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto v = matmul(c, c.in(0), c.in(1));
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

/// Gemm: alpha * op(A) op(B) + beta * C with op = transpose when transA / transB.
LogicalResult importGemm(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  if (c.type(0).getRank() != 2 || c.type(1).getRank() != 2)
    return c.error() << "A and B must be 2-D, got " << c.type(0) << " and " << c.type(1);
  auto transpose = [&](Value v) { return buildTranspose(c, v, {1, 0}); };
  Value a = c.attrInt("transA", 0) ? transpose(c.in(0)) : c.in(0);
  Value b = c.attrInt("transB", 0) ? transpose(c.in(1)) : c.in(1);
  auto y = matmul(c, a, b);
  if (failed(y))
    return failure();
  Type elt = c.type(0).getElementType();
  float alpha = c.attrFloat("alpha", 1.0f), beta = c.attrFloat("beta", 1.0f);
  if (alpha != 1.0f && failed(y = broadcastOp<MulOp>(c, *y, c.scalar(elt, alpha))))
    return failure();
  if (c.has(2)) {
    Value bias = c.in(2);
    // C broadcasts to [M, N] one way only: the result is [M, N].
    if (!dims::broadcastsTo(c.type(2).getShape(), shapeOf(*y), ShapedType::kDynamic))
      return c.error() << "C " << c.type(2) << " does not broadcast to the product "
                       << y->getType();
    FailureOr<Value> scaled = bias;
    if (beta != 1.0f && failed(scaled = broadcastOp<MulOp>(c, bias, c.scalar(elt, beta))))
      return failure();
    if (failed(y = broadcastOp<AddOp>(c, *y, *scaled)))
      return failure();
  }
  c.setOutput(0, *y);
  return success();
}

} // namespace

FailureOr<WindowAttrs> windowAttrs(NodeContext &c, ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> kernelFromInput) {
  const size_t n = in.size();
  WindowAttrs w;
  if (auto k = c.attrInts("kernel_shape"))
    w.kernel = *k;
  else if (!kernelFromInput.empty())
    w.kernel.assign(kernelFromInput.begin(), kernelFromInput.end());
  else
    return c.error() << "the kernel_shape attribute is required";
  if (w.kernel.size() != n)
    return c.error() << "kernel_shape has " << w.kernel.size() << " entries for " << n
                     << " spatial dims";
  w.strides = c.attrInts("strides").value_or(SmallVector<int64_t>(n, 1));
  w.dilations = c.attrInts("dilations").value_or(SmallVector<int64_t>(n, 1));
  if (w.strides.size() != n || w.dilations.size() != n)
    return c.error() << "strides/dilations need " << n << " entries";
  // Bounds that keep (kernel - 1) * dilation + padding far from int64 overflow.
  constexpr int64_t kMaxWindow = int64_t(1) << 24;
  auto outOfRange = [](ArrayRef<int64_t> v, int64_t lo, int64_t hi) {
    return llvm::any_of(v, [&](int64_t x) { return !ShapedType::isDynamic(x) && (x < lo || x > hi); });
  };
  if (outOfRange(w.strides, 1, kMaxWindow) || outOfRange(w.dilations, 1, kMaxWindow) ||
      outOfRange(w.kernel, 0, kMaxWindow))
    return c.error() << "strides and dilations must be in [1, " << kMaxWindow
                     << "] and kernel dims in [0, " << kMaxWindow << "]";
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    w.pads = c.attrInts("pads").value_or(SmallVector<int64_t>(2 * n, 0));
    if (w.pads.size() != 2 * n)
      return c.error() << "pads has " << w.pads.size() << " entries for " << n << " spatial dims";
  } else if (autoPad == "VALID") {
    w.pads.assign(2 * n, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    w.pads.assign(2 * n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (ShapedType::isDynamic(in[i]) || ShapedType::isDynamic(w.kernel[i]))
        return c.unsupported("auto_pad " + autoPad + " with dynamic spatial dims");
      int64_t out = (in[i] + w.strides[i] - 1) / w.strides[i];
      int64_t total = std::max<int64_t>(
          (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - in[i], 0);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[n + i] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else {
    return c.error() << "unknown auto_pad '" << autoPad << "'";
  }
  if (outOfRange(w.pads, 0, kMaxDim))
    return c.error() << "pads must be in [0, " << kMaxDim << "]";
  return w;
}

namespace {

/// Conv over 1 or 2 spatial dims (1-D runs as 2-D with a unit height).
LogicalResult importConv(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  Value x = c.in(0), w = c.in(1);
  int64_t rank = c.type(0).getRank();
  if ((rank != 3 && rank != 4) || c.type(1).getRank() != rank)
    return c.unsupported("Conv over " + Twine(rank - 2) + " spatial dims (1-D and 2-D are supported)");
  size_t n = rank - 2;
  Shape xs = shapeOf(x), ws = shapeOf(w);
  auto win = windowAttrs(c, ArrayRef<int64_t>(xs).drop_front(2), ArrayRef<int64_t>(ws).drop_front(2));
  if (failed(win))
    return failure();
  auto [kernel, strides, dilations, pads] = std::move(*win);
  if (n == 1) { // add a unit height: [N, C, L] -> [N, C, 1, L]
    x = buildUnsqueeze(c, x, 2);
    w = buildUnsqueeze(c, w, 2);
    xs = shapeOf(x);
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  Shape out{xs[0], shapeOf(w)[0]};
  for (int i = 0; i < 2; ++i) {
    int64_t in = xs[2 + i], k = kernel[i];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k)) {
      out.push_back(kDyn);
      continue;
    }
    int64_t span = dilations[i] * (k - 1) + 1, padded = in + pads[i] + pads[i + 2];
    if (padded < span)
      return c.error() << "kernel larger than the padded input along spatial dim " << i;
    out.push_back((padded - span) / strides[i] + 1);
  }
  Value y = c.create<ConvOp>(withShape(x, out), x, w, c.in(2), strides, pads, dilations,
                             c.attrInt("group", 1));
  if (n == 1)
    y = buildSqueeze(c, y, 2);
  c.setOutput(0, y);
  return success();
}

/// Softmax: opset 13 semantics (one axis); older opsets coerce the input to 2-D at `axis`
/// (default 1) and normalize over dims [axis, rank) (buildCoerced2D).
LogicalResult importSoftmax(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  int64_t rank = c.type(0).getRank();
  auto axis = c.normalizeAxis(c.attrInt("axis", c.opset() >= 13 ? -1 : 1), rank, "axis");
  if (failed(axis))
    return failure();
  auto softmax = [&](Value v, int64_t a) -> FailureOr<Value> {
    return c.create<SoftmaxOp>(cast<RankedTensorType>(v.getType()), v, a).getResult();
  };
  auto y = c.opset() >= 13 ? softmax(c.in(0), *axis) : buildCoerced2D(c, c.in(0), *axis, softmax);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

/// The axes of a Reduce* node, normalized; std::nullopt means "no-op" (empty axes with
/// noop_with_empty_axes); no axes at all means every axis.
FailureOr<std::optional<SmallVector<int64_t>>> reduceAxes(NodeContext &c, int64_t axesInputSince) {
  int64_t rank = c.type(0).getRank();
  auto axes = c.axesOperand(1, axesInputSince);
  if (failed(axes))
    return failure();
  if (*axes && !(*axes)->empty()) {
    auto norm = c.normalizeAxes(**axes, rank);
    if (failed(norm))
      return failure();
    return std::optional<SmallVector<int64_t>>(*norm);
  }
  if (c.attrInt("noop_with_empty_axes", 0) != 0)
    return std::optional<SmallVector<int64_t>>();
  SmallVector<int64_t> all(rank);
  std::iota(all.begin(), all.end(), 0);
  return std::optional<SmallVector<int64_t>>(all);
}

/// ReduceMean/Sum/Max directly; ReduceMin = -max(-x), ReduceL1 = sum |x|, ReduceL2 =
/// sqrt(sum x^2), ReduceSumSquare = sum x^2, ReduceLogSum = log(sum x), ReduceLogSumExp =
/// m + log(sum exp(x - m)) with m the max over the same axes.
template <typename OpT>
LogicalResult importReduce(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  StringRef op = c.opType();
  auto axes = reduceAxes(c, op == "ReduceSum" ? 13 : 18);
  if (failed(axes))
    return failure();
  Value x = c.in(0);
  if (!*axes) {
    c.setOutput(0, x);
    return success();
  }
  bool keepdims = c.attrInt("keepdims", 1) != 0;
  // ReduceMax / ReduceMin over bool (opset 20): computed on 0/1 as i8, cast back.
  bool isBool = c.type(0).getElementType().isInteger(1);
  if (isBool && op != "ReduceMax" && op != "ReduceMin")
    return c.unsupported(op + " over bool (only ReduceMax and ReduceMin take bool)");
  if (isBool)
    x = c.create<CastOp>(RankedTensorType::get(c.type(0).getShape(), c.builder().getI8Type()), x);
  if (op == "ReduceMin")
    x = c.create<NegOp>(x.getType(), x);
  else if (op == "ReduceL1")
    x = c.create<AbsOp>(x.getType(), x);
  else if (op == "ReduceL2" || op == "ReduceSumSquare")
    x = c.create<MulOp>(x.getType(), x, x);
  Value maxKeep;
  if (op == "ReduceLogSumExp") {
    maxKeep = buildReduce<ReduceMaxOp>(c, x, **axes, /*keepdims=*/true);
    auto shifted = buildBroadcast<SubOp>(c, x, maxKeep);
    if (failed(shifted))
      return failure();
    x = c.create<ExpOp>(x.getType(), *shifted);
  }
  Value y = buildReduce<OpT>(c, x, **axes, keepdims);
  if (op == "ReduceMin")
    y = c.create<NegOp>(y.getType(), y);
  else if (op == "ReduceL2")
    y = c.create<SqrtOp>(y.getType(), y);
  else if (op == "ReduceLogSum" || op == "ReduceLogSumExp")
    y = c.create<LogOp>(y.getType(), y);
  if (maxKeep) {
    Value m = keepdims ? maxKeep : c.create<SqueezeOp>(y.getType(), maxKeep, **axes);
    y = c.create<AddOp>(y.getType(), y, m);
  }
  if (isBool)
    y = c.create<CastOp>(RankedTensorType::get(shapeOf(y), c.builder().getI1Type()), y);
  c.setOutput(0, y);
  return success();
}

/// LayerNormalization's optional Mean and InvStdDev outputs over dims [axis, rank), in
/// the stash type (f32 unless stash_type says otherwise), keeping the reduced dims as 1.
LogicalResult layerNormStatistics(NodeContext &c, int64_t axis, float eps) {
  Value x = c.in(0);
  RankedTensorType t = c.type(0);
  Type stash = elementType(c.attrInt("stash_type", 1), c.ctx());
  if (!stash || !isa<FloatType>(stash))
    return c.unsupported("stash_type " + dataTypeName(c.attrInt("stash_type", 1)));
  if (t.getElementType() != stash)
    x = c.create<CastOp>(RankedTensorType::get(t.getShape(), stash), x);
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < t.getRank(); ++i)
    axes.push_back(i);
  Value mean = buildReduce<ReduceMeanOp>(c, x, axes, /*keepdims=*/true);
  auto centered = broadcastOp<SubOp>(c, x, mean);
  if (failed(centered))
    return failure();
  Value sq = c.create<MulOp>(centered->getType(), *centered, *centered);
  Value var = buildReduce<ReduceMeanOp>(c, sq, axes, /*keepdims=*/true);
  auto shifted = broadcastOp<AddOp>(c, var, c.scalar(stash, eps));
  if (failed(shifted))
    return failure();
  Value stddev = c.create<SqrtOp>(shifted->getType(), *shifted);
  c.setOutput(1, mean);
  c.setOutput(2, c.create<ReciprocalOp>(stddev.getType(), stddev));
  return success();
}

LogicalResult importLayerNorm(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto axis = c.normalizeAxis(c.attrInt("axis", -1), c.type(0).getRank(), "axis");
  if (failed(axis))
    return failure();
  float eps = c.attrFloat("epsilon", 1e-5f);
  Builder &b = c.builder();
  c.setOutput(0, c.create<LayerNormOp>(c.type(0), c.in(0), c.in(1), c.in(2),
                                       b.getI64IntegerAttr(*axis), b.getF32FloatAttr(eps)));
  if (c.outputUsed(1) || c.outputUsed(2))
    return layerNormStatistics(c, *axis, eps);
  return success();
}

/// RMSNormalization (opset 23): mm.rms_norm when normalizing the last dim with a 1-D
/// scale; otherwise x / sqrt(mean(x^2 over [axis, rank)) + eps) * scale.
LogicalResult importRMSNorm(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  RankedTensorType t = c.type(0);
  auto axis = c.normalizeAxis(c.attrInt("axis", -1), t.getRank(), "axis");
  if (failed(axis))
    return failure();
  float eps = c.attrFloat("epsilon", 1e-5f);
  Builder &b = c.builder();
  if (*axis == t.getRank() - 1 && c.type(1).getRank() == 1) {
    c.setOutput(0, c.create<RMSNormOp>(t, c.in(0), c.in(1), b.getF32FloatAttr(eps),
                                       b.getF32FloatAttr(0.0f)));
    return success();
  }
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < t.getRank(); ++i)
    axes.push_back(i);
  Value x = c.in(0);
  Value sq = c.create<MulOp>(t, x, x);
  Value ms = buildReduce<ReduceMeanOp>(c, sq, axes, /*keepdims=*/true);
  auto den = broadcastOp<AddOp>(c, ms, c.scalar(t.getElementType(), eps));
  if (failed(den))
    return failure();
  Value rms = c.create<SqrtOp>(den->getType(), *den);
  auto y = broadcastOp<DivOp>(c, x, rms);
  if (failed(y) || failed(y = broadcastOp<MulOp>(c, *y, c.in(1))))
    return failure();
  c.setOutput(0, *y);
  return success();
}

} // namespace

void addNNOps(OpTable &t) {
  t["MatMul"] = importMatMul;
  t["Gemm"] = importGemm;
  t["Conv"] = importConv;
  t["Softmax"] = importSoftmax;
  t["ReduceMean"] = importReduce<ReduceMeanOp>;
  t["ReduceSum"] = importReduce<ReduceSumOp>;
  t["ReduceMax"] = importReduce<ReduceMaxOp>;
  t["ReduceMin"] = importReduce<ReduceMaxOp>;
  t["ReduceL1"] = importReduce<ReduceSumOp>;
  t["ReduceL2"] = importReduce<ReduceSumOp>;
  t["ReduceSumSquare"] = importReduce<ReduceSumOp>;
  t["ReduceLogSum"] = importReduce<ReduceSumOp>;
  t["ReduceLogSumExp"] = importReduce<ReduceSumOp>;
  t["LayerNormalization"] = importLayerNorm;
  t["RMSNormalization"] = importRMSNorm;
}

} // namespace mm::onnx_import
