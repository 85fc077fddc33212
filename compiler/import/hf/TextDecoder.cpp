//===- TextDecoder.cpp - Llama-family decoders from a checkpoint -------------===//
#include "compiler/import/hf/TextDecoder.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mm::contract;

namespace mm::hf {

std::vector<float> rotaryInverseFrequencies(const TextConfig &t) {
  const RopeConfig &r = t.rope;
  std::vector<float> inv;
  for (int64_t i = 0; i < t.rotaryDim; i += 2) {
    // transformers: 1 / base ** (arange(0, dim, 2).float() / dim), in f32 (dim: the
    // rotated channels).
    float f = 1.0f / std::pow(static_cast<float>(r.theta),
                              static_cast<float>(i) / static_cast<float>(t.rotaryDim));
    if (r.type == "linear") {
      f = static_cast<float>(f / r.factor);
    } else if (r.type == "llama3") {
      // _compute_llama3_parameters: low frequencies divided by factor, high ones kept,
      // the band between interpolated.
      const double oldContext = static_cast<double>(r.originalMaxPositions);
      const double lowWavelen = oldContext / r.lowFreqFactor;
      const double highWavelen = oldContext / r.highFreqFactor;
      const double wavelen = 2 * M_PI / f;
      double scaled = wavelen > lowWavelen ? f / r.factor : f;
      if (!(wavelen < highWavelen) && !(wavelen > lowWavelen)) {
        const double smooth =
            (oldContext / wavelen - r.lowFreqFactor) / (r.highFreqFactor - r.lowFreqFactor);
        scaled = (1 - smooth) * scaled / r.factor + smooth * scaled;
      }
      f = static_cast<float>(scaled);
    }
    inv.push_back(f);
  }
  return inv;
}

namespace {

struct DecoderInputs {
  Value embeds, mask, positions;
  std::vector<Value> pastKeys, pastValues;
};

/// The additive attention mask [batch, 1, seq, total]: 0 where key position j <= query
/// position q = past + i (or, with `prefix` and no past, any key of this first call), where
/// attention_mask[b, j] is 1 and, with a sliding window W > 0 (transformers'
/// sliding_window_overlay), q - j < W; -inf elsewhere.
Value attentionMask(GraphBuilder &g, int64_t window, bool prefix, const DecoderInputs &in) {
  OpBuilder &b = g.builder();
  Type i64 = b.getI64Type(), i1 = b.getI1Type();
  Value total = g.scalarDim(in.mask, 1), seq = g.scalarDim(in.embeds, 1);
  Value past = g.scalarDim(in.pastKeys.front(), 2);
  Value zero = g.i64Scalar(0), one = g.i64Scalar(1);
  Value keys = g.create<RangeOp>(g.tensorType({kDyn}, i64), zero, total, one);
  Value queries = g.create<RangeOp>(g.tensorType({kDyn}, i64), zero, seq, one);
  queries = g.add(queries, past);
  Value k4 = g.unsqueeze(keys, {0, 1, 2});      // [1, 1, 1, total]
  Value q4 = g.unsqueeze(queries, {0, 1, 3});   // [1, 1, seq, 1]
  Value causal = g.create<LessOrEqualOp>(g.tensorType({1, 1, kDyn, kDyn}, i1), k4, q4);
  if (prefix) {
    // PaliGemma's prefix-LM (modeling_paligemma.py: block_sequence_ids 0 for the prompt's
    // token type 0, on the first iteration only): with no past, every key is visible.
    Value first = g.create<EqualOp>(g.tensorType({}, i1), past, zero);
    causal = g.create<OrOp>(causal.getType(), causal, first);
  }
  if (window > 0) {
    Value distance = g.create<SubOp>(g.tensorType({1, 1, kDyn, kDyn}, i64), q4, k4);
    Value inWindow = g.create<LessOp>(g.tensorType({1, 1, kDyn, kDyn}, i1), distance,
                                      g.i64Scalar(window));
    causal = g.create<AndOp>(causal.getType(), causal, inWindow);
  }
  Value padding = g.unsqueeze(g.cast(in.mask, i1), {1, 2}); // [batch, 1, 1, total]
  Value allowed = g.create<AndOp>(g.tensorType({kDyn, 1, kDyn, kDyn}, i1), causal, padding);
  Value zeroF = g.floats({0.0f}, {1}, g.floatType());
  Value minusInf = g.floats({-std::numeric_limits<float>::infinity()}, {1}, g.floatType());
  return g.create<WhereOp>(g.tensorType({kDyn, 1, kDyn, kDyn}, g.floatType()), allowed, zeroF,
                           minusInf);
}

/// The rotation angles [batch, seq, n] of `positions` [batch, seq] (i64) at the inverse
/// frequencies `inv` (n of them), in f32 as transformers computes them.
Value rotaryAngles(GraphBuilder &g, Value positions, llvm::ArrayRef<float> inv) {
  Type f32 = g.builder().getF32Type();
  const int64_t n = static_cast<int64_t>(inv.size());
  Value pos = g.unsqueeze(g.cast(positions, f32), {2}); // [batch, seq, 1]
  return g.create<MulOp>(g.tensorType({kDyn, kDyn, n}, f32), pos, g.floats(inv, {n}, f32));
}

/// cos and sin [batch, seq, rotaryDim] of the positions (plus the family's offset; HF's
/// rotate-half layout: the frequencies twice), computed in f32 and then cast to the
/// compute type. With M-RoPE, `positions` is [3, batch, seq] and frequency band k of
/// mrope_section takes its angles from row k (temporal, height, width), as
/// apply_multimodal_rotary_pos_emb selects them.
std::pair<Value, Value> rotaryTables(GraphBuilder &g, const TextConfig &t, Value positions) {
  Type f32 = g.builder().getF32Type();
  std::vector<float> inv = rotaryInverseFrequencies(t);
  if (t.positionOffset != 0)
    positions = g.add(positions, g.i64Scalar(t.positionOffset));
  Value freqs;
  if (t.rope.mropeSection.empty()) {
    freqs = rotaryAngles(g, positions, inv);
  } else {
    std::vector<Value> bands;
    size_t from = 0;
    for (int64_t k = 0; k < 3; ++k) {
      const size_t n = static_cast<size_t>(t.rope.mropeSection[k]);
      Value row = g.create<GatherOp>(g.tensorType({kDyn, kDyn}, g.builder().getI64Type()), positions,
                                     g.i64Scalar(k), 0);
      bands.push_back(rotaryAngles(g, row, llvm::ArrayRef<float>(inv).slice(from, n)));
      from += n;
    }
    freqs = g.concat(bands, 2);
  }
  Value emb = g.concat({freqs, freqs}, 2);
  Value cos = g.create<CosOp>(emb.getType(), emb), sin = g.create<SinOp>(emb.getType(), emb);
  if (g.floatType() != f32)
    cos = g.cast(cos, g.floatType()), sin = g.cast(sin, g.floatType());
  return {cos, sin};
}

struct LayerOut {
  Value hidden, key, value;
};

/// `x` after the MLP's activation epilogue, squared for relu2.
Value squaredIfRelu2(GraphBuilder &g, const TextConfig &t, Value x) {
  return t.mlpActSquared ? g.mul(x, x) : x;
}

/// One PersimmonDecoderLayer: LayerNorm, the fused query_key_value projection viewed as
/// [batch, seq, heads, 3, head_dim], q and k LayerNorms over head_dim, partial rotary, the
/// KV append, attention, dense, residual add; LayerNorm, dense_h_to_4h with hidden_act,
/// dense_4h_to_h, residual add.
LayerOut persimmonLayer(GraphBuilder &g, const TextConfig &t, const Prefixes &model, int64_t i, Value x,
                        Value mask, std::pair<Value, Value> rope, Value pastK, Value pastV) {
  const std::string p = "layers." + std::to_string(i) + ".";
  const int64_t h = t.hiddenSize, hd = t.headDim, heads = t.numHeads;
  auto norm = [&](Value in, const std::string &name, int64_t n) {
    return g.layerNorm(in, g.weight(model, p + name + ".weight", {n}), g.weight(model, p + name + ".bias", {n}),
                       t.normEps);
  };
  g.at(model.front() + p + "self_attn");
  Value n = norm(x, "input_layernorm", h);
  Value qkv = g.reshape(g.linear(n, model, p + "self_attn.query_key_value", 3 * h, true), {0, 0, heads, 3, hd});
  auto part = [&](int64_t j, const char *layerNorm) {
    Value s = g.reshape(g.slice(qkv, 3, j, j + 1), {0, 0, heads, hd}); // [batch, seq, heads, hd]
    if (layerNorm && t.qkLayerNorm)
      s = norm(s, std::string("self_attn.") + layerNorm, hd);
    return g.transpose(s, {0, 2, 1, 3});
  };
  Value q = part(0, "q_layernorm"), k = part(1, "k_layernorm"), v = part(2, nullptr);
  q = g.create<RotaryOp>(q.getType(), q, rope.first, rope.second, false);
  k = g.create<RotaryOp>(k.getType(), k, rope.first, rope.second, false);
  Value keys = g.concat({pastK, k}, 2), values = g.concat({pastV, v}, 2);
  Value a = g.attention(q, keys, values, mask, 1.0 / std::sqrt(static_cast<double>(hd)));
  x = g.add(x, g.linear(g.mergeHeads(a), model, p + "self_attn.dense", h, true));
  g.at(model.front() + p + "mlp");
  n = norm(x, "post_attention_layernorm", h);
  Value m = squaredIfRelu2(g, t, g.linear(n, model, p + "mlp.dense_h_to_4h", t.intermediateSize, true, t.mlpAct));
  x = g.add(x, g.linear(m, model, p + "mlp.dense_4h_to_h", h, true));
  return {x, keys, values};
}

LayerOut decoderLayer(GraphBuilder &g, const TextConfig &t, const Prefixes &model, int64_t i,
                      Value x, Value mask, std::pair<Value, Value> rope, Value pastK, Value pastV) {
  const std::string p = "layers." + std::to_string(i) + ".";
  const int64_t hd = t.headDim, qN = t.numHeads * hd, kvN = t.numKvHeads * hd;
  auto norm = [&](Value in, const std::string &name) {
    return g.rmsNorm(in, g.weight(model, p + name + ".weight", {t.hiddenSize}), t.normEps,
                     t.normScaleOffset);
  };
  g.at(model.front() + p + "self_attn");
  Value h = norm(x, "input_layernorm");
  Value q = g.splitHeads(g.linear(h, model, p + "self_attn.q_proj", qN, t.qkvBias), t.numHeads, hd);
  Value k = g.splitHeads(g.linear(h, model, p + "self_attn.k_proj", kvN, t.qkvBias), t.numKvHeads, hd);
  Value v = g.splitHeads(g.linear(h, model, p + "self_attn.v_proj", kvN, t.qkvBias), t.numKvHeads, hd);
  q = g.create<RotaryOp>(q.getType(), q, rope.first, rope.second, false);
  k = g.create<RotaryOp>(k.getType(), k, rope.first, rope.second, false);
  Value keys = g.concat({pastK, k}, 2), values = g.concat({pastV, v}, 2);
  Value a = g.attention(q, keys, values, mask, 1.0 / std::sqrt(static_cast<double>(hd)));
  Value o = g.linear(g.mergeHeads(a), model, p + "self_attn.o_proj", t.hiddenSize, t.outputBias);
  x = g.add(x, o);
  g.at(model.front() + p + "mlp");
  h = norm(x, "post_attention_layernorm");
  // down(act(gate(x)) * up(x)): SwiGLU for silu, GeGLU for either GELU (Gemma's), so
  // that gate and up merge into one projection (-mm-fuse-linear); else the activation
  // as gate's epilogue.
  const Activation act = t.mlpAct;
  const bool geglu = act == Activation::gelu || act == Activation::gelu_tanh;
  const bool gated = geglu || act == Activation::silu;
  Value gate = squaredIfRelu2(g, t, g.linear(h, model, p + "mlp.gate_proj", t.intermediateSize, t.mlpBias,
                                             gated ? Activation::none : act));
  Value up = g.linear(h, model, p + "mlp.up_proj", t.intermediateSize, t.mlpBias);
  Value s = act == Activation::silu ? Value(g.create<SwiGLUOp>(gate.getType(), gate, up))
            : geglu ? Value(g.create<GeGLUOp>(gate.getType(), gate, up,
                                              act == Activation::gelu_tanh ? GeluApproximation::tanh
                                                                           : GeluApproximation::none))
                    : g.mul(gate, up);
  x = g.add(x, g.linear(s, model, p + "mlp.down_proj", t.hiddenSize, t.mlpBias));
  return {x, keys, values};
}

void buildEmbedding(ModuleOp module, Location loc, const TextConfig &t, const TextPrefixes &prefixes,
                    const TensorMap &tensors, Type ft, std::string &error) {
  MLIRContext *ctx = module.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  Port ids{"input_ids", RankedTensorType::get({kDyn, kDyn}, i64), {"batch", "seq"}, ValueRole::inputIds};
  func::FuncOp fn = createFunction(module, loc, "embed_tokens", FunctionRole::embedding, {ids});
  GraphBuilder g(fn.getBody().front(), loc, tensors, ft);
  g.at(prefixes.model.front() + "embed_tokens");
  Value table = g.weight(prefixes.model, "embed_tokens.weight", {t.vocabSize, t.hiddenSize});
  Value e = g.create<GatherOp>(g.tensorType({kDyn, kDyn, t.hiddenSize}, ft), table,
                               fn.getArgument(0), 0);
  if (t.embedScale != 1.0)
    e = g.mul(e, g.floats({static_cast<float>(t.embedScale)}, {}, ft));
  finishFunction(fn, {e}, {{"inputs_embeds", e.getType(), {"batch", "seq", ""}, ValueRole::inputsEmbeds}});
  if (g.failed())
    error = g.error();
}

void buildDecoder(ModuleOp module, Location loc, const TextConfig &t, bool tied,
                  const TextPrefixes &prefixes, const TensorMap &tensors, Type ft, std::string &error) {
  MLIRContext *ctx = module.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  const bool mrope = !t.rope.mropeSection.empty();
  std::vector<Port> args = {
      {"inputs_embeds", RankedTensorType::get({kDyn, kDyn, t.hiddenSize}, ft), {"batch", "seq", ""},
       ValueRole::inputsEmbeds},
      {"attention_mask", RankedTensorType::get({kDyn, kDyn}, i64), {"batch", "total"},
       ValueRole::attentionMask},
      mrope ? Port{"position_ids", RankedTensorType::get({3, kDyn, kDyn}, i64), {"", "batch", "seq"},
                   ValueRole::positionIds}
            : Port{"position_ids", RankedTensorType::get({kDyn, kDyn}, i64), {"batch", "seq"},
                   ValueRole::positionIds}};
  Type kvType = RankedTensorType::get({kDyn, t.numKvHeads, kDyn, t.headDim}, ft);
  for (int64_t i = 0; i < t.numLayers; ++i)
    for (bool isValue : {false, true})
      args.push_back({"past_key_values." + std::to_string(i) + (isValue ? ".value" : ".key"),
                      kvType, {"batch", "", "past", ""}, ValueRole::kvPast, KvPosition{i, isValue}});
  func::FuncOp fn = createFunction(module, loc, "decoder_model_merged", FunctionRole::decoder, args);
  GraphBuilder g(fn.getBody().front(), loc, tensors, ft);
  g.expectLayers(prefixes.model, "layers.", t.numLayers, "text_config.num_hidden_layers");
  if (g.failed()) {
    error = g.error();
    return;
  }
  DecoderInputs in{fn.getArgument(0), fn.getArgument(1), fn.getArgument(2), {}, {}};
  for (int64_t i = 0; i < t.numLayers; ++i) {
    in.pastKeys.push_back(fn.getArgument(3 + 2 * i));
    in.pastValues.push_back(fn.getArgument(4 + 2 * i));
  }
  g.at(prefixes.model.front() + "rotary_emb");
  Value mask = attentionMask(g, 0, t.prefixAttention, in);
  Value slidingMask = llvm::is_contained(t.slidingLayers, true)
                          ? attentionMask(g, t.slidingWindow, t.prefixAttention, in)
                          : Value();
  auto rope = rotaryTables(g, t, in.positions);
  Value x = in.embeds;
  std::vector<Value> results(1);
  std::vector<Port> ports = {{"logits", Type(), {"batch", "seq", ""}, ValueRole::logits}};
  for (int64_t i = 0; i < t.numLayers && !g.failed(); ++i) {
    LayerOut l = (t.persimmon() ? persimmonLayer : decoderLayer)(
        g, t, prefixes.model, i, x, t.slidingLayers[i] ? slidingMask : mask, rope, in.pastKeys[i],
        in.pastValues[i]);
    x = l.hidden;
    for (bool isValue : {false, true}) {
      results.push_back(isValue ? l.value : l.key);
      ports.push_back({"present." + std::to_string(i) + (isValue ? ".value" : ".key"), Type(),
                       {"batch", "", "total", ""}, ValueRole::kvPresent, KvPosition{i, isValue}});
    }
  }
  if (t.persimmon()) {
    g.at(prefixes.model.front() + "final_layernorm");
    x = g.layerNorm(x, g.weight(prefixes.model, "final_layernorm.weight", {t.hiddenSize}),
                    g.weight(prefixes.model, "final_layernorm.bias", {t.hiddenSize}), t.normEps);
  } else {
    g.at(prefixes.model.front() + "norm");
    x = g.rmsNorm(x, g.weight(prefixes.model, "norm.weight", {t.hiddenSize}), t.normEps,
                  t.normScaleOffset);
  }
  g.at(tied ? prefixes.model.front() + "embed_tokens" : prefixes.lmHead.front() + "lm_head");
  Value head = tied ? g.linearWeight(prefixes.model, "embed_tokens.weight", t.vocabSize, t.hiddenSize)
                    : g.linearWeight(prefixes.lmHead, "lm_head.weight", t.vocabSize, t.hiddenSize);
  results[0] = g.create<LinearOp>(g.tensorType({kDyn, kDyn, t.vocabSize}, ft), x, head, Value(),
                                  Activation::none);
  if (g.failed()) { // the layers stopped early: no results to match the ports
    error = g.error();
    return;
  }
  finishFunction(fn, results, ports);
}

} // namespace

LogicalResult buildTextModel(ModuleOp module, Location loc, const TextConfig &t, bool tied,
                             const TextPrefixes &prefixes, const TensorMap &tensors, Type floatType,
                             std::string &error) {
  buildEmbedding(module, loc, t, prefixes, tensors, floatType, error);
  if (error.empty())
    buildDecoder(module, loc, t, tied, prefixes, tensors, floatType, error);
  return success(error.empty());
}

} // namespace mm::hf
