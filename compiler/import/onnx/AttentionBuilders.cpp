//===- AttentionBuilders.cpp - building blocks of the attention importers -===//
#include "compiler/import/onnx/AttentionBuilders.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace mm::onnx_import {

FailureOr<Value> matmulOf(NodeContext &c, Value a, Value b) {
  auto shape = matmulShape(shapeOf(a), shapeOf(b));
  if (!shape)
    return c.error() << "operands do not fit a matmul: " << a.getType() << " x " << b.getType();
  return c.create<MatMulOp>(withShape(a, *shape), a, b).getResult();
}

// The head size given when it is known, not inferred (-1 cannot be inferred from a zero
// sequence length).
Value splitHeads(NodeContext &c, Value x, int64_t heads) {
  int64_t hidden = shapeOf(x)[2];
  int64_t size = isDyn(hidden) || hidden % heads != 0 ? -1 : hidden / heads;
  return buildTranspose(c, buildReshape(c, x, {0, 0, heads, size}), {0, 2, 1, 3});
}

LogicalResult requireHeads(NodeContext &c, Value x, int64_t heads, StringRef what) {
  int64_t hidden = shapeOf(x)[2];
  if (heads <= 0)
    return c.error() << what << " must be positive, got " << heads;
  if (!isDyn(hidden) && hidden % heads != 0)
    return c.error() << what << " " << heads << " does not divide the hidden size " << hidden
                     << " of " << x.getType();
  return success();
}

Value mergeHeads(NodeContext &c, Value x) {
  Shape s = shapeOf(x);
  int64_t hidden = isDyn(s[1]) || isDyn(s[3]) ? -1 : s[1] * s[3];
  return buildReshape(c, buildTranspose(c, x, {0, 2, 1, 3}), {0, 0, hidden});
}

Value dimScalar(NodeContext &c, Value v, int64_t axis) {
  Builder &b = c.builder();
  auto vecType = RankedTensorType::get({1}, b.getI64Type());
  Value vec = c.create<ShapeOp>(vecType, v, b.getI64IntegerAttr(axis), b.getI64IntegerAttr(axis + 1));
  return buildSqueeze(c, vec, 0);
}

Value iota(NodeContext &c, Value n, int64_t staticLen) {
  Type i64 = c.builder().getI64Type();
  auto type = RankedTensorType::get({staticLen}, i64);
  return c.create<RangeOp>(type, c.scalar(i64, 0), n, c.scalar(i64, 1));
}

FailureOr<Value> causalMask(NodeContext &c, Value q, Value presentK, Value pastK) {
  int64_t s = shapeOf(q)[2], t = shapeOf(presentK)[2];
  Value rows = iota(c, dimScalar(c, q, 2), s);
  if (pastK) {
    auto shifted = buildBroadcast<AddOp>(c, rows, dimScalar(c, pastK, 2));
    if (failed(shifted))
      return failure();
    rows = *shifted;
  }
  Value cols = iota(c, dimScalar(c, presentK, 2), t);
  return buildBroadcast<LessOrEqualOp>(c, buildUnsqueeze(c, cols, 0), buildUnsqueeze(c, rows, 1),
                                       /*boolResult=*/true);
}

FailureOr<Value> padMask(NodeContext &c, Value mask, int64_t keyLen) {
  Shape ms = shapeOf(mask);
  int64_t last = ms.empty() ? 1 : ms.back();
  if (ms.empty() || isDyn(last) || isDyn(keyLen) || last == keyLen || last == 1)
    return mask;
  if (last > keyLen)
    return c.error() << "attn_mask has " << last << " key positions but there are only " << keyLen;
  Type elt = cast<RankedTensorType>(mask.getType()).getElementType();
  Value fill = elt.isInteger(1) ? c.scalar(elt, 0)
                                : c.scalar(elt, -std::numeric_limits<double>::infinity());
  SmallVector<int64_t> pads(2 * ms.size(), 0);
  pads.back() = keyLen - last;
  Shape out = ms;
  out.back() = keyLen;
  return c.create<PadOp>(withShape(mask, out), mask, fill, pads, PadMode::constant).getResult();
}

FailureOr<Value> repeatHeads(NodeContext &c, Value kv, int64_t rep) {
  if (rep == 1)
    return kv;
  Shape s = shapeOf(kv);
  if (isDyn(s[1]) || isDyn(s[3]))
    return c.unsupported("Attention with softcap and GQA needs static head counts and head size");
  Value u = buildUnsqueeze(c, kv, 2);
  Shape e = shapeOf(u);
  e[2] = rep;
  Value expanded = c.create<ExpandOp>(withShape(u, e), u, c.constI64({1, 1, rep, 1, 1}));
  return buildReshape(c, expanded, {0, s[1] * rep, -1, s[3]});
}

Value additiveMask(NodeContext &c, Value mask, Type elt) {
  if (!cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1))
    return mask;
  Value zero = c.scalar(elt, 0), ninf = c.scalar(elt, -std::numeric_limits<double>::infinity());
  return c.create<WhereOp>(RankedTensorType::get(shapeOf(mask), elt), mask, zero, ninf);
}

FailureOr<Value> composedAttention(NodeContext &c, Value q, Value k, Value v, Value bias,
                                   float scale, float softcap, int64_t qkMode, Value *qk) {
  int64_t hq = shapeOf(q)[1], hkv = shapeOf(k)[1];
  if (isDyn(hq) || isDyn(hkv) || hkv == 0 || hq % hkv != 0)
    return c.error() << "query heads " << hq << " are not a multiple of key/value heads " << hkv;
  auto kr = repeatHeads(c, k, hq / hkv), vr = repeatHeads(c, v, hq / hkv);
  if (failed(kr) || failed(vr))
    return failure();
  Type elt = cast<RankedTensorType>(q.getType()).getElementType();
  Value kt = buildTranspose(c, *kr, {0, 1, 3, 2});
  auto scores = matmulOf(c, q, kt);
  if (failed(scores) || failed(scores = buildBroadcast<MulOp>(c, *scores, c.scalar(elt, scale))))
    return failure();
  if (softcap > 0) {
    Value cap = c.scalar(elt, softcap);
    auto scaled = buildBroadcast<DivOp>(c, *scores, cap);
    if (failed(scaled))
      return failure();
    Value t = c.create<TanhOp>(scaled->getType(), *scaled);
    if (failed(scores = buildBroadcast<MulOp>(c, t, cap)))
      return failure();
  }
  if (qk && qkMode <= 1)
    *qk = *scores;
  if (bias && failed(scores = buildBroadcast<AddOp>(c, *scores, additiveMask(c, bias, elt))))
    return failure();
  if (qk && qkMode == 2)
    *qk = *scores;
  Value probs = c.create<SoftmaxOp>(scores->getType(), *scores, -1);
  if (bias) {
    // A fully masked row (every score -inf) attends to nothing: zeros, as mm.attention
    // gives, not softmax's NaN.
    const int64_t last = static_cast<int64_t>(shapeOf(*scores).size()) - 1;
    Value rowMax = buildReduce<ReduceMaxOp>(c, *scores, {last}, true);
    auto masked = buildBroadcast<EqualOp>(
        c, rowMax, c.scalar(elt, -std::numeric_limits<double>::infinity()), /*boolResult=*/true);
    if (failed(masked))
      return failure();
    probs = c.create<WhereOp>(probs.getType(), *masked, c.scalar(elt, 0), probs);
  }
  if (qk && qkMode == 3)
    *qk = probs;
  return matmulOf(c, probs, *vr);
}

FailureOr<Value> fullWidth(NodeContext &c, Value half, bool interleaved) {
  int64_t rank = shapeOf(half).size();
  if (!interleaved) {
    Shape s = shapeOf(half);
    s.back() = isDyn(s.back()) ? ShapedType::kDynamic : 2 * s.back();
    return c.create<ConcatOp>(withShape(half, s), ValueRange{half, half}, rank - 1).getResult();
  }
  Value pairs = buildUnsqueeze(c, half, rank);
  Shape s = shapeOf(pairs);
  s.back() = 2;
  Value twice = c.create<ConcatOp>(withShape(pairs, s), ValueRange{pairs, pairs}, rank);
  SmallVector<int64_t> target(rank - 1, 0);
  target.push_back(-1);
  return buildReshape(c, twice, target);
}

Value buildAttention(NodeContext &c, Value q, Value k, Value v, Value mask, float scale, bool causal) {
  Shape qs = shapeOf(q), vs = shapeOf(v);
  Shape out{isDyn(qs[0]) ? vs[0] : qs[0], qs[1], qs[2], vs[3]};
  return c.create<AttentionOp>(withShape(q, out), q, k, v, mask, c.builder().getF32FloatAttr(scale),
                               c.builder().getBoolAttr(causal));
}

FailureOr<Value> concatPast(NodeContext &c, Value past, Value cur) {
  if (!past)
    return cur;
  Shape ps = shapeOf(past), cs = shapeOf(cur);
  if (ps.size() != 4)
    return c.error() << "past_key / past_value must be 4-D, got " << past.getType();
  Shape out = cs;
  out[2] = isDyn(ps[2]) || isDyn(cs[2]) ? ShapedType::kDynamic : ps[2] + cs[2];
  for (int i : {0, 1, 3})
    if (isDyn(out[i]))
      out[i] = ps[i];
  return c.create<ConcatOp>(withShape(cur, out), ValueRange{past, cur}, 2).getResult();
}

} // namespace mm::onnx_import
