//===- Qwen2VL.cpp - Qwen2VLForConditionalGeneration from a checkpoint -------===//
//
// modeling_qwen2_vl.py (Wang et al. 2024): Qwen2VisionTransformerPretrainedModel as the
// vision encoder, Qwen2VLTextModel (Qwen2 with M-RoPE, TextDecoder.h) as the decoder.
// @vision_encoder takes Qwen2VLImageProcessor's pixel_values [patches, C * T * P * P] (the
// images' patch rows one after another; within a frame of h x w patches, the merge
// windows' m x m patches in turn: runtime/image/Qwen2VlImageProcessor.h) and
// image_grid_thw [images, 3]; it returns the merged patches [1, patches / m^2, hidden].
//
//===----------------------------------------------------------------------===//
#include "compiler/import/hf/Architectures.h"

#include "compiler/import/hf/HfConfig.h"
#include "compiler/import/hf/VisionLanguageModel.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace mm::hf {
namespace {

// transformers >= 4.52 (model.language_model, model.visual) first; its save_pretrained
// and the Hub's checkpoints write the earlier names (model.layers, visual).
const TextPrefixes kQwen2VlTextPrefixes = {{"model.language_model.", "model."}, {""}};
const Prefixes kVisualPrefixes = {"model.visual.", "visual."};

/// Where each patch row of pixel_values sits, as [patches] i64 values: its row and column
/// in its frame (Qwen2VisionTransformerPretrainedModel.rot_pos_emb's hpos_ids and
/// wpos_ids) and the index of the frame's first row (the frames are the attention's
/// blocks: cu_seqlens).
struct PatchPlaces {
  Value row, column, frame;
};

PatchPlaces patchPlaces(GraphBuilder &g, Value pixels, Value grid, int64_t m) {
  Type i64 = g.builder().getI64Type();
  auto vec = [&](Value v) { return g.reshape(v, {-1}); };
  auto column = [&](int64_t j) { return vec(g.slice(grid, 1, j, j + 1)); }; // [images]
  auto at = [&](Value table, Value index) {                                    // table[index]
    return g.create<GatherOp>(g.tensorType({kDyn}, i64), table, index, 0);
  };
  auto mod = [&](Value a, Value b) { return g.sub(a, g.mul(g.div(a, b), b)); }; // a, b >= 0
  Value frameRows = g.mul(column(1), column(2));                // h * w per image
  Value imageRows = g.mul(column(0), frameRows);                // t * h * w
  Value ends = g.create<CumSumOp>(imageRows.getType(), imageRows, 0, false, false);
  Value r = g.create<RangeOp>(g.tensorType({kDyn}, i64), g.i64Scalar(0), g.scalarDim(pixels, 0),
                              g.i64Scalar(1));
  // The image of row r: how many images end at or before it.
  Value past = g.create<GreaterOrEqualOp>(g.tensorType({kDyn, kDyn}, g.builder().getI1Type()),
                                          g.unsqueeze(r, {1}), g.unsqueeze(ends, {0}));
  Value image = g.create<ReduceSumOp>(g.tensorType({kDyn}, i64), g.cast(past, i64),
                                      ArrayRef<int64_t>{1}, false);
  Value start = g.sub(at(ends, image), at(imageRows, image));
  Value local = g.sub(r, start), hw = at(frameRows, image), w = at(column(2), image);
  Value inFrame = mod(local, hw);
  Value frame = g.add(start, g.mul(g.div(local, hw), hw));
  // inFrame = ((bh * (w / m) + bw) * m + mh) * m + mw.
  Value mm = g.i64Scalar(m), window = g.i64Scalar(m * m);
  Value mw = mod(inFrame, mm), mh = mod(g.div(inFrame, mm), mm);
  Value bw = mod(g.div(inFrame, window), g.div(w, mm)), bh = g.div(inFrame, g.mul(mm, w));
  return {g.add(g.mul(bh, mm), mh), g.add(g.mul(bw, mm), mw), frame};
}

/// cos and sin [1, patches, head_dim] of the 2-D rotary embedding: VisionRotaryEmbedding(
/// head_dim / 2)'s frequencies at the row, then at the column (rotary_pos_emb), twice
/// (rotate-half), in f32.
std::pair<Value, Value> visionRotary(GraphBuilder &g, const Qwen2VlVisionConfig &v, const PatchPlaces &at) {
  Type f32 = g.builder().getF32Type();
  const int64_t dim = v.headDim() / 2, n = dim / 2;
  std::vector<float> inv;
  for (int64_t i = 0; i < dim; i += 2) // 1 / theta ** (arange(0, dim, 2) / dim), in f32
    inv.push_back(1.0f / std::pow(static_cast<float>(v.ropeTheta),
                                  static_cast<float>(i) / static_cast<float>(dim)));
  auto angles = [&](Value pos) {
    return g.create<MulOp>(g.tensorType({kDyn, n}, f32), g.unsqueeze(g.cast(pos, f32), {1}),
                           g.floats(inv, {n}, f32));
  };
  Value half = g.concat({angles(at.row), angles(at.column)}, 1);
  Value emb = g.unsqueeze(g.concat({half, half}, 1), {0}); // [1, patches, head_dim]
  Value cos = g.create<CosOp>(emb.getType(), emb), sin = g.create<SinOp>(emb.getType(), emb);
  if (g.floatType() != f32)
    cos = g.cast(cos, g.floatType()), sin = g.cast(sin, g.floatType());
  return {cos, sin};
}

/// The additive mask [1, 1, patches, patches]: 0 within a frame, -inf across frames (the
/// blocks of cu_seqlens).
Value frameMask(GraphBuilder &g, Value frame) {
  Value same = g.create<EqualOp>(g.tensorType({kDyn, kDyn}, g.builder().getI1Type()),
                                 g.unsqueeze(frame, {1}), g.unsqueeze(frame, {0}));
  Value allowed = g.unsqueeze(same, {0, 1});
  return g.create<WhereOp>(g.tensorType({1, 1, kDyn, kDyn}, g.floatType()), allowed,
                           g.floats({0.0f}, {1}, g.floatType()),
                           g.floats({-std::numeric_limits<float>::infinity()}, {1}, g.floatType()));
}

/// One Qwen2VLVisionBlock: LayerNorm, the fused qkv projection viewed as [1, patches, 3,
/// heads, head_dim], the 2-D rotary embedding on q and k, attention within each frame,
/// proj, residual add; LayerNorm, fc1 with hidden_act, fc2, residual add.
Value visionBlock(GraphBuilder &g, const Qwen2VlVisionConfig &v, int64_t i, Value x,
                  std::pair<Value, Value> rope, Value mask, Activation act) {
  const std::string p = "blocks." + std::to_string(i) + ".";
  const int64_t e = v.embedDim, heads = v.numHeads, hd = v.headDim();
  auto norm = [&](Value in, const std::string &name) {
    return g.layerNorm(in, g.weight(kVisualPrefixes, p + name + ".weight", {e}),
                       g.weight(kVisualPrefixes, p + name + ".bias", {e}), 1e-6);
  };
  g.at(kVisualPrefixes.front() + p + "attn");
  Value qkv = g.reshape(g.linear(norm(x, "norm1"), kVisualPrefixes, p + "attn.qkv", 3 * e, true),
                        {0, 0, 3, heads, hd});
  auto part = [&](int64_t j) {
    return g.transpose(g.reshape(g.slice(qkv, 2, j, j + 1), {0, 0, heads, hd}), {0, 2, 1, 3});
  };
  Value q = part(0), k = part(1), val = part(2);
  q = g.create<RotaryOp>(q.getType(), q, rope.first, rope.second, false);
  k = g.create<RotaryOp>(k.getType(), k, rope.first, rope.second, false);
  Value a = g.attention(q, k, val, mask, 1.0 / std::sqrt(static_cast<double>(hd)));
  x = g.add(x, g.linear(g.mergeHeads(a), kVisualPrefixes, p + "attn.proj", e, true));
  g.at(kVisualPrefixes.front() + p + "mlp");
  Value h = g.linear(norm(x, "norm2"), kVisualPrefixes, p + "mlp.fc1", v.mlpHidden(), true, act);
  return g.add(x, g.linear(h, kVisualPrefixes, p + "mlp.fc2", e, true));
}

/// Qwen2VisionTransformerPretrainedModel.forward: the patch embedding, the blocks, the
/// patch merger ([1, patches / m^2, hidden]).
Value qwen2VlFeatures(GraphBuilder &g, const Qwen2VlVisionConfig &v, Value pixels, Value grid) {
  const int64_t e = v.embedDim, m = v.spatialMergeSize, merged = e * m * m;
  g.expectLayers(kVisualPrefixes, "blocks.", v.depth, "vision_config.depth");
  if (g.failed())
    return pixels;
  g.at(kVisualPrefixes.front() + "patch_embed");
  // The Conv3d with stride = kernel over a row's [C, T, P, P] is a product with its weight
  // flattened to [embed_dim, C * T * P * P].
  const int64_t t = v.temporalPatchSize, ps = v.patchSize;
  Value w = g.weight(kVisualPrefixes, "patch_embed.proj.weight", {e, v.inChannels, t, ps, ps});
  Value wT = g.transpose(g.reshape(w, {e, v.patchDim()}), {1, 0});
  Value x = g.create<LinearOp>(g.tensorType({1, kDyn, e}, g.floatType()), g.unsqueeze(pixels, {0}), wT,
                               Value(), Activation::none);
  g.at(kVisualPrefixes.front() + "rotary_pos_emb");
  PatchPlaces places = patchPlaces(g, pixels, grid, m);
  auto rope = visionRotary(g, v, places);
  Value mask = frameMask(g, places.frame);
  const Activation act = *activationNamed(v.hiddenAct); // checked by parseQwen2VlConfig
  for (int64_t i = 0; i < v.depth && !g.failed(); ++i)
    x = visionBlock(g, v, i, x, rope, mask, act);
  // PatchMerger: ln_q, each merge window's m^2 patches side by side, Linear, GELU, Linear.
  g.at(kVisualPrefixes.front() + "merger");
  x = g.layerNorm(x, g.weight(kVisualPrefixes, "merger.ln_q.weight", {e}),
                  g.weight(kVisualPrefixes, "merger.ln_q.bias", {e}), 1e-6);
  x = g.linear(g.reshape(x, {0, -1, merged}), kVisualPrefixes, "merger.mlp.0", merged, true, Activation::gelu);
  return g.linear(x, kVisualPrefixes, "merger.mlp.2", v.hiddenSize, true);
}

} // namespace

LogicalResult buildQwen2VL(ModuleOp module, const nlohmann::json &config, const std::string &configPath,
                           const TensorMap &tensors, std::string &error) {
  Qwen2VlConfig c;
  if (failed(parseQwen2VlConfig(config, configPath, c, error)))
    return failure();
  const PixelInput patches{"pixel_values", {kDyn, c.vision.patchDim()}, {"patches", ""}, true};
  auto features = [&](GraphBuilder &g, ValueRange in) { return qwen2VlFeatures(g, c.vision, in[0], in[1]); };
  return buildVisionLanguageModel(module, configPath, patches, features, c.text, c.tieWordEmbeddings,
                                  kQwen2VlTextPrefixes, tensors, error);
}

} // namespace mm::hf
