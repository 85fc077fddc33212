//===- OpsTransformer.cpp - Attention and RotaryEmbedding (opset 23) ------===//
//
// ONNX Attention-23 -> mm.attention (plus the KV-cache concat, 3-D <-> 4-D head layout
// changes and, when the causal offset cannot be proven equal to mm.attention's, an
// explicit causal mask); with softcap or qk_matmul_output, spelled out as matmul / tanh /
// softmax / matmul.
// RotaryEmbedding-23 -> mm.rotary with full-width cos/sin built from the half-width
// caches. Semantics: onnx/reference/ops/op_attention.py and op_rotary_embedding.py.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace mm::onnx_import {

namespace {

bool isDyn(int64_t d) { return ShapedType::isDynamic(d); }

FailureOr<Value> matmulOf(NodeContext &c, Value a, Value b) {
  auto shape = matmulShape(shapeOf(a), shapeOf(b));
  if (!shape)
    return c.error() << "operands do not fit a matmul: " << a.getType() << " x " << b.getType();
  return c.create<MatMulOp>(withShape(a, *shape), a, b).getResult();
}

/// [B, S, H*D] -> [B, H, S, D].
Value splitHeads(NodeContext &c, Value x, int64_t heads) {
  return buildTranspose(c, buildReshape(c, x, {0, 0, heads, -1}), {0, 2, 1, 3});
}

/// [B, H, S, D] -> [B, S, H*D].
Value mergeHeads(NodeContext &c, Value x) {
  return buildReshape(c, buildTranspose(c, x, {0, 2, 1, 3}), {0, 0, -1});
}

/// Dim `axis` of `v` as a 0-D i64 value (mm.shape + squeeze).
Value dimScalar(NodeContext &c, Value v, int64_t axis) {
  Builder &b = c.builder();
  auto vecType = RankedTensorType::get({1}, b.getI64Type());
  Value vec = c.create<ShapeOp>(vecType, v, b.getI64IntegerAttr(axis), b.getI64IntegerAttr(axis + 1));
  return buildSqueeze(c, vec, 0);
}

/// [0, n) as a 1-D i64 tensor (static length when n is).
Value iota(NodeContext &c, Value n, int64_t staticLen) {
  Type i64 = c.builder().getI64Type();
  auto type = RankedTensorType::get({staticLen}, i64);
  return c.create<RangeOp>(type, c.scalar(i64, 0), n, c.scalar(i64, 1));
}

/// ONNX Attention's causal rule as a boolean [S, T] mask: key t is visible to query i
/// iff t <= i + past (past = the past_key length, 0 without a cache).
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

/// Pads a mask whose last dim is shorter than the key length with "masked" entries
/// (false, or -inf for additive masks), as the ONNX reference does.
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

/// KV heads repeated for GQA: [B, Hkv, T, D] -> [B, Hkv * rep, T, D], each head `rep`
/// times in a row (query head h reads KV head h / rep, as mm.attention does).
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

/// A boolean mask as an additive one (0 where true, -inf where false).
Value additiveMask(NodeContext &c, Value mask, Type elt) {
  if (!cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1))
    return mask;
  Value zero = c.scalar(elt, 0), ninf = c.scalar(elt, -std::numeric_limits<double>::infinity());
  return c.create<WhereOp>(RankedTensorType::get(shapeOf(mask), elt), mask, zero, ninf);
}

/// softmax(softcap * tanh(scale * Q K^T / softcap) + bias) V, spelled out with mm ops for
/// what mm.attention cannot express (softcap; ONNX applies it before the mask). With
/// `qk`, also sets it to the qk_matmul_output of `qkMode` (onnx/reference op_attention.py:
/// 0 and 1: the scaled, softcapped Q K^T; 2: plus the bias; 3: the softmax).
FailureOr<Value> composedAttention(NodeContext &c, Value q, Value k, Value v, Value bias,
                                   float scale, float softcap, int64_t qkMode = 0,
                                   Value *qk = nullptr) {
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

LogicalResult importAttention(NodeContext &c) {
  if (failed(c.requireInputs(3)))
    return failure();
  if (c.has(6))
    return c.unsupported("Attention with nonpad_kv_seqlen");
  bool qkOutput = c.outputUsed(3);
  int64_t qkMode = c.attrInt("qk_matmul_output_mode", 0);
  if (qkOutput && (qkMode < 0 || qkMode > 3))
    return c.error() << "qk_matmul_output_mode " << qkMode << " is not 0, 1, 2 or 3";
  int64_t rank = c.type(0).getRank();
  if (rank != 3 && rank != 4)
    return c.error() << "Q must be 3-D or 4-D, got " << c.type(0);
  Value q = c.in(0), k = c.in(1), v = c.in(2);
  if (rank == 3) {
    int64_t qHeads = c.attrInt("q_num_heads", 0), kvHeads = c.attrInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return c.error() << "3-D inputs need q_num_heads and kv_num_heads";
    q = splitHeads(c, q, qHeads);
    k = splitHeads(c, k, kvHeads);
    v = splitHeads(c, v, kvHeads);
  }
  for (Value x : {k, v})
    if (cast<RankedTensorType>(x.getType()).getRank() != 4)
      return c.error() << "K and V must have Q's rank";

  auto concatPast = [&](Value past, Value cur) -> FailureOr<Value> {
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
  };
  auto presentK = concatPast(c.in(4), k), presentV = concatPast(c.in(5), v);
  if (failed(presentK) || failed(presentV))
    return failure();

  float scale;
  if (c.attr("scale")) {
    scale = c.attrFloat("scale", 1.0f);
  } else {
    int64_t d = shapeOf(q)[3];
    if (isDyn(d))
      return c.unsupported("Attention without a scale attribute and a dynamic head size");
    scale = 1.0f / std::sqrt(static_cast<float>(d));
  }

  Value mask = c.in(3);
  int64_t keyLen = shapeOf(*presentK)[2];
  if (mask) {
    auto padded = padMask(c, mask, keyLen);
    if (failed(padded))
      return failure();
    mask = *padded;
  }
  float softcap = c.attrFloat("softcap", 0.0f);
  bool causal = false;
  if (c.attrInt("is_causal", 0)) {
    // mm.attention's causal offset is T - S; ONNX's is the past length: equal when the new
    // keys are as many as the queries.
    if (provablyEqualDims(q, 2, k, 2) && softcap <= 0 && !qkOutput) {
      causal = true;
    } else {
      auto allowed = causalMask(c, q, *presentK, c.in(4));
      if (failed(allowed))
        return failure();
      FailureOr<Value> combined = *allowed;
      if (mask && cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1)) {
        combined = buildBroadcast<AndOp>(c, mask, *allowed);
      } else if (mask) {
        Type elt = cast<RankedTensorType>(mask.getType()).getElementType();
        Value ninf = c.scalar(elt, -std::numeric_limits<double>::infinity());
        auto shape = broadcastShapes({shapeOf(*allowed), shapeOf(mask)});
        if (!shape)
          return c.error() << "attn_mask " << mask.getType() << " does not fit the causal mask";
        combined = c.create<WhereOp>(RankedTensorType::get(*shape, elt), *allowed, mask, ninf)
                       .getResult();
      }
      if (failed(combined))
        return failure();
      mask = *combined;
    }
  }

  Value y, qk;
  if (softcap > 0 || qkOutput) {
    auto composed = composedAttention(c, q, *presentK, *presentV, mask, scale, softcap, qkMode,
                                      qkOutput ? &qk : nullptr);
    if (failed(composed))
      return failure();
    y = *composed;
  } else {
    Shape qs = shapeOf(q), vs = shapeOf(*presentV);
    Shape out{qs[0], qs[1], qs[2], vs[3]};
    if (isDyn(out[0]))
      out[0] = vs[0];
    y = c.create<AttentionOp>(withShape(q, out), q, *presentK, *presentV, mask,
                              c.builder().getF32FloatAttr(scale), c.builder().getBoolAttr(causal));
  }
  if (rank == 3)
    y = mergeHeads(c, y);
  c.setOutput(0, y);
  c.setOutput(1, *presentK);
  c.setOutput(2, *presentV);
  if (qkOutput)
    c.setOutput(3, qk);
  return success();
}

/// cos/sin caches [.., R/2] -> mm.rotary's full width [.., R]: halves repeated
/// (rotate-half) or each value twice in a row (interleaved).
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

LogicalResult importRotaryEmbedding(NodeContext &c) {
  if (failed(c.requireInputs(3)))
    return failure();
  bool interleaved = c.attrInt("interleaved", 0) != 0;
  int64_t rank = c.type(0).getRank();
  Value x = c.in(0);
  if (rank == 3) {
    int64_t heads = c.attrInt("num_heads", 0);
    if (heads <= 0)
      return c.error() << "3-D input needs num_heads";
    x = splitHeads(c, x, heads);
  } else if (rank != 4) {
    return c.error() << "input must be 3-D or 4-D, got " << c.type(0);
  }
  int64_t rot = c.attrInt("rotary_embedding_dim", 0);
  Value cosHalf = c.in(1), sinHalf = c.in(2);
  if (c.has(3)) {
    auto gather = [&](Value cache) -> FailureOr<Value> {
      Shape cs = shapeOf(cache), ps = shapeOf(c.in(3));
      if (cs.size() != 2)
        return c.error() << "with position_ids the caches must be 2-D, got " << cache.getType();
      Shape out = ps;
      out.push_back(cs[1]);
      return c.create<GatherOp>(withShape(cache, out), cache, c.in(3), 0).getResult();
    };
    auto gc = gather(cosHalf), gs = gather(sinHalf);
    if (failed(gc) || failed(gs))
      return failure();
    cosHalf = *gc;
    sinHalf = *gs;
  }
  int64_t halfWidth = shapeOf(cosHalf).back(), headDim = shapeOf(x)[3];
  if (rot != 0 && !isDyn(halfWidth) && 2 * halfWidth != rot)
    return c.error() << "cos/sin caches are " << halfWidth << " wide but rotary_embedding_dim is "
                     << rot;
  if (rot == 0 && !isDyn(halfWidth) && !isDyn(headDim) && 2 * halfWidth != headDim)
    return c.error() << "cos/sin caches are " << halfWidth << " wide for head size " << headDim;
  auto cosFull = fullWidth(c, cosHalf, interleaved), sinFull = fullWidth(c, sinHalf, interleaved);
  if (failed(cosFull) || failed(sinFull))
    return failure();
  Value y = c.create<RotaryOp>(x.getType(), x, *cosFull, *sinFull, interleaved);
  if (rank == 3)
    y = mergeHeads(c, y);
  c.setOutput(0, y);
  return success();
}

} // namespace

void addTransformerOps(OpTable &t) {
  t["Attention"] = importAttention;
  t["RotaryEmbedding"] = importRotaryEmbedding;
}

} // namespace mm::onnx_import
