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
#include "compiler/import/onnx/AttentionBuilders.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace mm::onnx_import {

namespace {

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
    if (failed(requireHeads(c, q, qHeads, "q_num_heads")) ||
        failed(requireHeads(c, k, kvHeads, "kv_num_heads")) ||
        failed(requireHeads(c, v, kvHeads, "kv_num_heads")))
      return failure();
    q = splitHeads(c, q, qHeads);
    k = splitHeads(c, k, kvHeads);
    v = splitHeads(c, v, kvHeads);
  }
  for (Value x : {k, v})
    if (cast<RankedTensorType>(x.getType()).getRank() != 4)
      return c.error() << "K and V must have Q's rank";

  auto presentK = concatPast(c, c.in(4), k), presentV = concatPast(c, c.in(5), v);
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
    y = buildAttention(c, q, *presentK, *presentV, mask, scale, causal);
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
    if (failed(requireHeads(c, x, heads, "num_heads")))
      return failure();
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
