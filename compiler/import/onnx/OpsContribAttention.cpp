//===- OpsContribAttention.cpp - onnxruntime's attention and rotary ops ----===//
//
// The com.microsoft ops onnxruntime's transformer optimizer and onnxruntime-genai's model
// builder write for attention, imported straight to mm.attention / mm.rotary plus the
// KV-cache concat (present = concat(past, new), the KV slots of the plan):
//   RotaryEmbedding       -> mm.rotary (cos/sin gathered by position)
//   MultiHeadAttention    -> [bias] + mm.attention [+ past concat]
//   GroupQueryAttention   -> [packed QKV split] [+ mm.rotary] + past concat + mm.attention
// Semantics: onnxruntime's docs/ContribOperators.md and the CPU kernels in
// onnxruntime/contrib_ops/cpu/bert. What mmc does not take is refused by name:
// MultiHeadAttention's packed (5-D) layouts, the (B) and (3B+2) key_padding_mask forms and
// the qk output; GroupQueryAttention's local_window_size, smooth_softmax, head_sink,
// quantized cache, q/k norms and output_qk.
//
// GroupQueryAttention with a past: onnxruntime writes each row's new keys after its own
// valid past length (seqlens_k + 1 - S) in the past buffer. mmc appends them after the
// whole past (the KV-cache contract of every decoder) and hides, per row, the padded end
// of its past and its padded new keys (gqaKeyMask); rotary positions are the row's valid
// past length + s, as onnxruntime's. The values are the same; the present differs in
// layout (padding inside, not at the end) and length (P + S, where onnxruntime's shared
// past/present buffer keeps max(total_sequence_length, P)).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/AttentionBuilders.h"
#include "runtime/core/MaskRule.h"

#include <cmath>

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// The softmax scale: the attribute when set and not 0, else 1 / sqrt(head size).
FailureOr<float> attentionScale(NodeContext &c, int64_t headSize) {
  float scale = c.attrFloat("scale", 0.0f);
  if (scale != 0.0f)
    return scale;
  if (isDyn(headSize))
    return c.unsupported("a dynamic head size without a scale attribute");
  return 1.0f / std::sqrt(static_cast<float>(headSize));
}

/// `offset + [0, S)` as [1, S] i64, S = dim `seqAxis` of `x`: RotaryEmbedding's
/// position_ids of shape [1] (a base offset for every row), or the positions of new tokens
/// after a past of length `offset`.
FailureOr<Value> offsetPositions(NodeContext &c, Value offset, Value x, int64_t seqAxis) {
  Value steps = iota(c, dimScalar(c, x, seqAxis), shapeOf(x)[seqAxis]);
  Value base = shapeOf(offset).empty() ? offset : buildSqueeze(c, offset, 0);
  auto positions = buildBroadcast<AddOp>(c, steps, base);
  if (failed(positions))
    return failure();
  return buildUnsqueeze(c, *positions, 0);
}

/// cos and sin caches [M, R/2] gathered at `positions` [B|1, S] and widened to mm.rotary's
/// [B|1, S, R] tables.
FailureOr<std::pair<Value, Value>> rotaryTables(NodeContext &c, Value cosCache, Value sinCache,
                                                Value positions, bool interleaved) {
  auto gather = [&](Value cache) -> FailureOr<Value> {
    Shape cs = shapeOf(cache), ps = shapeOf(positions);
    if (cs.size() != 2)
      return c.error() << "cos_cache / sin_cache must be 2-D [max positions, rotary dim / 2], got "
                       << cache.getType();
    Shape out = ps;
    out.push_back(cs[1]);
    auto half = c.create<GatherOp>(withShape(cache, out), cache, positions, 0).getResult();
    return fullWidth(c, half, interleaved);
  };
  auto cosFull = gather(cosCache), sinFull = gather(sinCache);
  if (failed(cosFull) || failed(sinFull))
    return failure();
  return std::make_pair(*cosFull, *sinFull);
}

/// RotaryEmbedding(input, position_ids, cos_cache, sin_cache): input [B, S, N*H] or
/// [B, N, S, H]; position_ids [B, S] or [1] (a base offset: position offset + s).
LogicalResult importContribRotary(NodeContext &c) {
  if (failed(c.requireInputs(4)))
    return failure();
  if (c.attrInt("is_packed_batching", 0))
    return c.unsupported("is_packed_batching");
  bool interleaved = c.attrInt("interleaved", 0) != 0;
  int64_t rank = c.type(0).getRank();
  Shape cs = shapeOf(c.in(2));
  if (cs.size() != 2 || isDyn(cs[1]))
    return c.error() << "cos_cache must be 2-D with a static width, got " << c.type(2);
  int64_t rot = c.attrInt("rotary_embedding_dim", 0), heads = c.attrInt("num_heads", 0);
  Value x = c.in(0);
  if (rank == 3) {
    int64_t hidden = shapeOf(x)[2];
    if (heads <= 0 && (rot > 0 || isDyn(hidden) || hidden % (2 * cs[1]) != 0))
      return c.error() << "num_heads is needed for input " << c.type(0);
    heads = heads > 0 ? heads : hidden / (2 * cs[1]);
    if (failed(requireHeads(c, x, heads, "num_heads")))
      return failure();
    x = splitHeads(c, x, heads);
  } else if (rank != 4) {
    return c.error() << "input must be 3-D [B, S, N*H] or 4-D [B, N, S, H], got " << c.type(0);
  }
  if (rot > 0 && rot != 2 * cs[1])
    return c.error() << "cos_cache is " << cs[1] << " wide for rotary_embedding_dim " << rot;
  RankedTensorType pt = c.type(1);
  FailureOr<Value> positions = c.in(1);
  if (pt.getNumElements() == 1 && pt.getRank() <= 1)
    positions = offsetPositions(c, c.in(1), c.in(0), rank == 3 ? 1 : 2);
  else if (pt.getRank() != 2)
    return c.error() << "position_ids must be [B, S] or [1], got " << pt;
  if (failed(positions))
    return failure();
  auto tables = rotaryTables(c, c.in(2), c.in(3), *positions, interleaved);
  if (failed(tables))
    return failure();
  Value y = c.create<RotaryOp>(x.getType(), x, tables->first, tables->second, interleaved);
  c.setOutput(0, rank == 3 ? mergeHeads(c, y) : y);
  return success();
}

/// Refuses the inputs and outputs an importer does not take, by position.
LogicalResult refuse(NodeContext &c, std::initializer_list<std::pair<unsigned, const char *>> inputs,
                     std::initializer_list<std::pair<unsigned, const char *>> outputs) {
  for (auto [i, what] : inputs)
    if (c.has(i))
      return c.unsupported(what);
  for (auto [i, what] : outputs)
    if (c.outputUsed(i))
      return c.unsupported(what);
  return success();
}

/// Slice [from, from + size) of the last dim of `x` (a static size).
Value lastDimSlice(NodeContext &c, Value x, int64_t from, int64_t size) {
  int64_t rank = shapeOf(x).size();
  Shape out = shapeOf(x);
  out.back() = size;
  return c.create<SliceOp>(withShape(x, out), x, c.constI64({from}), c.constI64({from + size}),
                           c.constI64({rank - 1}), c.constI64({1}));
}

/// The mask of MultiHeadAttention's key_padding_mask (int32 [B, T] or [B, S, T]: a key is
/// kept where the value is > 0, as onnxruntime does) and attention_bias ([B|1, N|1, S, T],
/// added to the scores), for mm.attention: boolean, additive, or null when neither is
/// given. A masked key is hidden (-inf) when mask_filter_value hides it (at most -1e4, the
/// default -10000: runtime/core/MaskRule.h), else mask_filter_value is added.
FailureOr<Value> mhaMask(NodeContext &c, Type elt) {
  Value keep;
  if (c.has(4)) {
    RankedTensorType mt = c.type(4);
    if (mt.getRank() != 2 && mt.getRank() != 3)
      return c.unsupported("key_padding_mask of shape " +
                           Twine(mt.getRank() == 1 ? "[B] or [3B + 2] (key lengths)" : "other than [B, T] or [B, S, T]"));
    auto kept = buildBroadcast<GreaterOp>(c, c.in(4), c.scalar(mt.getElementType(), 0), /*boolResult=*/true);
    if (failed(kept))
      return failure();
    keep = mt.getRank() == 2 ? buildUnsqueeze(c, buildUnsqueeze(c, *kept, 1), 1) : buildUnsqueeze(c, *kept, 1);
  }
  const double filter = c.attrFloat("mask_filter_value", -10000.0f);
  const double fill = hidesKey(filter) ? -std::numeric_limits<double>::infinity() : filter;
  if (!c.has(5) && (!keep || std::isinf(fill)))
    return keep;
  Value bias = c.has(5) ? c.in(5) : c.scalar(elt, 0);
  if (!keep)
    return bias;
  auto shape = broadcastShapes({shapeOf(keep), shapeOf(bias)});
  if (!shape)
    return c.error() << "key_padding_mask and attention_bias do not broadcast";
  Value masked = c.scalar(elt, fill);
  if (!std::isinf(fill) && c.has(5)) { // a finite fill adds to the bias
    auto sum = buildBroadcast<AddOp>(c, bias, masked);
    if (failed(sum))
      return failure();
    masked = *sum;
    shape = broadcastShapes({*shape, shapeOf(masked)});
  }
  return c.create<WhereOp>(RankedTensorType::get(*shape, elt), keep, bias, masked).getResult();
}

/// MultiHeadAttention(query [B, S, D], key, value, [bias], [key_padding_mask],
/// [attention_bias], [past_key], [past_value]). key/value are [B, L, D] (projected here
/// into heads) or already [B, N, L, H] (cross attention). Keys masked with the default
/// mask_filter_value (-10000) are hidden (-inf): the same as onnxruntime's -10000 except
/// in rows whose every key is masked (mhaMask).
LogicalResult importMultiHeadAttention(NodeContext &c) {
  if (failed(c.requireInputs(1)) ||
      failed(refuse(c, {{8, "past_sequence_length (a shared past/present buffer)"},
                        {9, "cache_indirection (beam search)"}},
                    {{3, "the qk output"}})))
    return failure();
  if (c.type(0).getRank() != 3)
    return c.unsupported("a query of rank " + Twine(c.type(0).getRank()) +
                         " (packed QKV); only [B, S, D]");
  if (c.has(1) && c.type(1).getRank() == 5)
    return c.unsupported("a key of rank 5 (packed KV)");
  if (failed(c.requireInputs(3)))
    return failure();
  int64_t heads = c.attrInt("num_heads", 0);
  if (failed(requireHeads(c, c.in(0), heads, "num_heads")))
    return failure();
  int64_t keyRank = c.type(1).getRank();
  if (keyRank == 3 && (failed(requireHeads(c, c.in(1), heads, "num_heads")) ||
                       failed(requireHeads(c, c.in(2), heads, "num_heads"))))
    return failure();
  if (keyRank != 3 && keyRank != 4)
    return c.error() << "key must be [B, L, D] or [B, N, L, H], got " << c.type(1);
  bool cross = keyRank == 4;
  if (cross && (c.has(6) || c.has(7)))
    return c.error() << "a 4-D (projected) key takes no past_key / past_value";
  Value q = c.in(0), k = c.in(1), v = c.in(2);
  if (c.has(3)) { // bias [q | k | v] (onnxruntime adds no k / v bias to a projected key)
    int64_t d = shapeOf(q)[2], dv = cross ? ShapedType::kDynamic : shapeOf(v)[2];
    if (isDyn(d) || (!cross && isDyn(dv)))
      return c.unsupported("a bias with dynamic hidden sizes");
    auto qb = buildBroadcast<AddOp>(c, q, lastDimSlice(c, c.in(3), 0, d));
    if (failed(qb))
      return failure();
    q = *qb;
    if (!cross) {
      auto kb = buildBroadcast<AddOp>(c, k, lastDimSlice(c, c.in(3), d, d));
      auto vb = buildBroadcast<AddOp>(c, v, lastDimSlice(c, c.in(3), 2 * d, dv));
      if (failed(kb) || failed(vb))
        return failure();
      k = *kb;
      v = *vb;
    }
  }
  q = splitHeads(c, q, heads);
  if (!cross) {
    k = splitHeads(c, k, heads);
    v = splitHeads(c, v, heads);
  }
  auto presentK = concatPast(c, c.in(6), k), presentV = concatPast(c, c.in(7), v);
  auto scale = attentionScale(c, shapeOf(q)[3]);
  Type elt = cast<RankedTensorType>(q.getType()).getElementType();
  auto mask = mhaMask(c, elt);
  if (failed(presentK) || failed(presentV) || failed(scale) || failed(mask))
    return failure();
  // unidirectional: query s sees keys j <= past + s, mm.attention's causal rule when the
  // new keys are as many as the queries.
  bool causal = c.attrInt("unidirectional", 0) != 0;
  if (causal && !provablyEqualDims(q, 2, k, 2))
    return c.unsupported("unidirectional with a key length other than the query's");
  Value y = buildAttention(c, q, *presentK, *presentV, *mask, *scale, causal);
  c.setOutput(0, mergeHeads(c, y));
  c.setOutput(1, *presentK);
  c.setOutput(2, *presentV);
  return success();
}

/// GroupQueryAttention's q, k, v as [B, heads, S, H]: from query, key, value [B, S, *], or
/// split from a packed query [B, S, (N + 2 N_kv) H].
FailureOr<std::array<Value, 3>> gqaProjections(NodeContext &c, int64_t heads, int64_t kvHeads) {
  if (c.has(1) != c.has(2))
    return c.error() << "key and value must be both given or both absent";
  if (c.has(1)) {
    if (failed(requireHeads(c, c.in(0), heads, "num_heads")) ||
        failed(requireHeads(c, c.in(1), kvHeads, "kv_num_heads")) ||
        failed(requireHeads(c, c.in(2), kvHeads, "kv_num_heads")))
      return failure();
    return std::array<Value, 3>{splitHeads(c, c.in(0), heads), splitHeads(c, c.in(1), kvHeads),
                                splitHeads(c, c.in(2), kvHeads)};
  }
  int64_t packed = shapeOf(c.in(0))[2];
  if (isDyn(packed) || packed % (heads + 2 * kvHeads) != 0)
    return c.error() << "a packed query of width " << packed << " is not (num_heads + 2 "
                     << "kv_num_heads) head sizes";
  int64_t h = packed / (heads + 2 * kvHeads);
  Value q = lastDimSlice(c, c.in(0), 0, heads * h);
  Value k = lastDimSlice(c, c.in(0), heads * h, kvHeads * h);
  Value v = lastDimSlice(c, c.in(0), (heads + kvHeads) * h, kvHeads * h);
  return std::array<Value, 3>{splitHeads(c, q, heads), splitHeads(c, k, kvHeads),
                              splitHeads(c, v, kvHeads)};
}

/// Each row's lengths in GroupQueryAttention's KV cache, from seqlens_k (int32 [B]: the
/// row's valid total length minus 1) and the new tokens S: i64 [B] values.
struct GqaRows {
  Value last;      ///< seqlens_k: the row's last valid key position
  Value validPast; ///< max(seqlens_k + 1 - S, 0): the row's valid past length
};

FailureOr<GqaRows> gqaRows(NodeContext &c) {
  if (c.type(5).getRank() != 1)
    return c.error() << "seqlens_k must be 1-D [B], got " << c.type(5);
  Type i64 = c.builder().getI64Type();
  Value last = c.create<CastOp>(RankedTensorType::get(shapeOf(c.in(5)), i64), c.in(5));
  auto plusOne = buildBroadcast<AddOp>(c, last, c.scalar(i64, 1));
  if (failed(plusOne))
    return failure();
  auto past = buildBroadcast<SubOp>(c, *plusOne, dimScalar(c, c.in(0), 1));
  if (failed(past) || failed(past = buildBroadcast<MaxOp>(c, *past, c.scalar(i64, 0))))
    return failure();
  return GqaRows{last, *past};
}

/// Rotary positions of the new tokens, validPast[b] + s: i64 [B, S].
FailureOr<Value> rowPositions(NodeContext &c, const GqaRows &rows) {
  Value steps = iota(c, dimScalar(c, c.in(0), 1), shapeOf(c.in(0))[1]);
  return buildBroadcast<AddOp>(c, buildUnsqueeze(c, rows.validPast, 1), buildUnsqueeze(c, steps, 0));
}

/// Which keys of present = concat(past [P], new [S]) row b sees: its valid past
/// (j < validPast[b]) and its valid new keys (P <= j, j - P + validPast[b] <= last[b]);
/// a past padded beyond validPast stays hidden. A boolean [B, 1, 1, P + S] (the causal
/// flag of mm.attention then hides the new keys after each query).
FailureOr<Value> gqaKeyMask(NodeContext &c, const GqaRows &rows, Value presentK, Value pastLen) {
  Value keys = buildUnsqueeze(c, iota(c, dimScalar(c, presentK, 2), shapeOf(presentK)[2]), 0);
  Value validPast = buildUnsqueeze(c, rows.validPast, 1), last = buildUnsqueeze(c, rows.last, 1);
  auto inPast = buildBroadcast<LessOp>(c, keys, validPast, /*boolResult=*/true);
  auto isNew = buildBroadcast<GreaterOrEqualOp>(c, keys, pastLen, /*boolResult=*/true);
  auto newPos = buildBroadcast<SubOp>(c, keys, pastLen);
  if (failed(inPast) || failed(isNew) || failed(newPos) ||
      failed(newPos = buildBroadcast<AddOp>(c, *newPos, validPast)))
    return failure();
  auto newValid = buildBroadcast<LessOrEqualOp>(c, *newPos, last, /*boolResult=*/true);
  if (failed(newValid) || failed(newValid = buildBroadcast<AndOp>(c, *isNew, *newValid)))
    return failure();
  auto visible = buildBroadcast<OrOp>(c, *inPast, *newValid);
  if (failed(visible))
    return failure();
  return buildUnsqueeze(c, buildUnsqueeze(c, *visible, 1), 1);
}

/// GroupQueryAttention(query, [key], [value], [past_key], [past_value], seqlens_k,
/// total_sequence_length, [cos_cache], [sin_cache], [position_ids], [attention_bias]).
LogicalResult importGroupQueryAttention(NodeContext &c) {
  if (failed(c.requireInputs(1)) || !c.has(5) || !c.has(6))
    return c.error() << "needs query, seqlens_k and total_sequence_length";
  if (failed(refuse(c, {{11, "head_sink"}, {12, "k_scale (a quantized KV cache)"},
                        {13, "v_scale (a quantized KV cache)"}, {14, "q_norm_weight"},
                        {15, "k_norm_weight"}},
                    {{3, "output_qk"}})))
    return failure();
  if (c.attrInt("local_window_size", -1) >= 0)
    return c.unsupported("local_window_size (sliding-window attention)");
  if (c.attrInt("smooth_softmax", 0) || c.attrInt("sliding_window_cache", 0))
    return c.unsupported(c.attrInt("smooth_softmax", 0) ? "smooth_softmax" : "sliding_window_cache");
  if (c.attrString("k_quant_type", "NONE") != "NONE" || c.attrString("v_quant_type", "NONE") != "NONE")
    return c.unsupported("a quantized KV cache");
  if (!c.attrInt("causal", 1))
    return c.unsupported("causal = 0");
  int64_t heads = c.attrInt("num_heads", 0), kvHeads = c.attrInt("kv_num_heads", 0);
  if (heads <= 0 || kvHeads <= 0 || heads % kvHeads != 0)
    return c.error() << "num_heads " << heads << " must be a positive multiple of kv_num_heads "
                     << kvHeads;
  if (c.has(3) != c.has(4))
    return c.error() << "past_key and past_value must be both given or both absent";
  auto qkv = gqaProjections(c, heads, kvHeads);
  auto rows = gqaRows(c);
  if (failed(qkv) || failed(rows))
    return failure();
  auto [q, k, v] = *qkv;

  if (c.attrInt("do_rotary", 0)) {
    if (!c.has(7) || !c.has(8))
      return c.error() << "do_rotary needs cos_cache and sin_cache";
    // Without position_ids: each row's valid past length + s (onnxruntime's rule).
    FailureOr<Value> positions = c.has(9) ? c.in(9) : rowPositions(c, *rows);
    if (failed(positions))
      return failure();
    bool interleaved = c.attrInt("rotary_interleaved", 0) != 0;
    auto tables = rotaryTables(c, c.in(7), c.in(8), *positions, interleaved);
    if (failed(tables))
      return failure();
    q = c.create<RotaryOp>(q.getType(), q, tables->first, tables->second, interleaved);
    k = c.create<RotaryOp>(k.getType(), k, tables->first, tables->second, interleaved);
  }
  auto presentK = concatPast(c, c.in(3), k), presentV = concatPast(c, c.in(4), v);
  auto scale = attentionScale(c, shapeOf(q)[3]);
  if (failed(presentK) || failed(presentV) || failed(scale))
    return failure();
  Value pastLen = c.has(3) ? dimScalar(c, c.in(3), 2) : c.scalar(c.builder().getI64Type(), 0);
  auto visible = gqaKeyMask(c, *rows, *presentK, pastLen);
  if (failed(visible))
    return failure();
  Type elt = cast<RankedTensorType>(q.getType()).getElementType();
  Value mask = *visible;
  if (c.has(10)) {
    auto shape = broadcastShapes({shapeOf(mask), shapeOf(c.in(10))});
    if (!shape)
      return c.error() << "attention_bias " << c.type(10) << " does not fit [B, N, S, T]";
    Value ninf = c.scalar(elt, -std::numeric_limits<double>::infinity());
    mask = c.create<WhereOp>(RankedTensorType::get(*shape, elt), mask, c.in(10), ninf);
  }
  float softcap = c.attrFloat("softcap", 0.0f);
  Value y;
  if (softcap > 0) { // spelled out: mm.attention has no softcap
    auto causal = causalMask(c, q, *presentK, c.in(3));
    if (failed(causal))
      return failure();
    auto shape = broadcastShapes({shapeOf(mask), shapeOf(*causal)});
    if (!shape)
      return c.error() << "the mask " << mask.getType() << " does not fit the causal mask";
    auto both = cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1)
                    ? buildBroadcast<AndOp>(c, mask, *causal)
                    : FailureOr<Value>(c.create<WhereOp>(RankedTensorType::get(*shape, elt), *causal, mask,
                                                         c.scalar(elt, -std::numeric_limits<double>::infinity()))
                                           .getResult());
    if (failed(both))
      return failure();
    auto composed = composedAttention(c, q, *presentK, *presentV, *both, *scale, softcap);
    if (failed(composed))
      return failure();
    y = *composed;
  } else {
    y = buildAttention(c, q, *presentK, *presentV, mask, *scale, /*causal=*/true);
  }
  c.setOutput(0, mergeHeads(c, y));
  c.setOutput(1, *presentK);
  c.setOutput(2, *presentV);
  return success();
}

} // namespace

void addContribAttentionOps(OpTable &t) {
  t["RotaryEmbedding"] = importContribRotary;
  t["MultiHeadAttention"] = importMultiHeadAttention;
  t["GroupQueryAttention"] = importGroupQueryAttention;
}

} // namespace mm::onnx_import
