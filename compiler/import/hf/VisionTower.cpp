//===- VisionTower.cpp - CLIP, SigLIP and Idefics3 image encoders from a checkpoint ===//
#include "compiler/import/hf/VisionTower.h"

#include <cmath>

using namespace mlir;

namespace mm::hf {
namespace {

Value embeddings(GraphBuilder &g, const VisionConfig &v, const Prefixes &pre, Value pixels) {
  const int64_t h = v.hiddenSize, p = v.patchSize, grid = v.gridSide();
  g.at(pre.front() + "embeddings");
  if (v.imageSize % p != 0) // nn.Conv2d drops them: cropped, the convolution is an im2col
    pixels = g.slice(g.slice(pixels, 2, 0, grid * p), 3, 0, grid * p);
  Value w = g.weight(pre, "embeddings.patch_embedding.weight", {h, v.numChannels, p, p});
  // CLIP's patch embedding has no bias; SigLIP's and Idefics3's have one.
  Value b = v.classToken() ? Value() : g.weight(pre, "embeddings.patch_embedding.bias", {h});
  Value conv = g.create<ConvOp>(g.tensorType({kDyn, h, grid, grid}, g.floatType()), pixels, w, b,
                                ArrayRef<int64_t>{p, p}, ArrayRef<int64_t>{0, 0, 0, 0},
                                ArrayRef<int64_t>{1, 1}, 1);
  Value x = g.transpose(g.reshape(conv, {0, h, -1}), {0, 2, 1}); // [batch, patches, hidden]
  int64_t tokens = v.numPatches();
  if (v.classToken()) {
    Value cls = g.weight(pre, "embeddings.class_embedding", {h});
    Value shape = g.concat({g.dim(pixels, 0), g.i64s({1, h})}, 0);
    Value clsRow = g.create<ExpandOp>(g.tensorType({kDyn, 1, h}, g.floatType()), cls, shape);
    x = g.concat({clsRow, x}, 1);
    ++tokens;
  }
  x = g.add(x, g.weight(pre, "embeddings.position_embedding.weight", {tokens, h}));
  if (v.classToken()) {
    g.at(pre.front() + "pre_layrnorm");
    x = g.layerNorm(x, g.weight(pre, "pre_layrnorm.weight", {h}), g.weight(pre, "pre_layrnorm.bias", {h}),
                    v.layerNormEps);
  }
  return x;
}

Value encoderLayer(GraphBuilder &g, const VisionConfig &v, const Prefixes &pre, int64_t i, Value x,
                   Activation act) {
  const std::string p = "encoder.layers." + std::to_string(i) + ".";
  const int64_t h = v.hiddenSize, heads = v.numHeads, hd = h / heads;
  auto norm = [&](Value in, const std::string &name) {
    return g.layerNorm(in, g.weight(pre, p + name + ".weight", {h}), g.weight(pre, p + name + ".bias", {h}),
                       v.layerNormEps);
  };
  g.at(pre.front() + p + "self_attn");
  Value n = norm(x, "layer_norm1");
  Value q = g.splitHeads(g.linear(n, pre, p + "self_attn.q_proj", h, true), heads, hd);
  Value k = g.splitHeads(g.linear(n, pre, p + "self_attn.k_proj", h, true), heads, hd);
  Value val = g.splitHeads(g.linear(n, pre, p + "self_attn.v_proj", h, true), heads, hd);
  Value a = g.attention(q, k, val, Value(), 1.0 / std::sqrt(static_cast<double>(hd)));
  x = g.add(x, g.linear(g.mergeHeads(a), pre, p + "self_attn.out_proj", h, true));
  g.at(pre.front() + p + "mlp");
  n = norm(x, "layer_norm2");
  Value f = g.linear(n, pre, p + "mlp.fc1", v.intermediateSize, true, act);
  return g.add(x, g.linear(f, pre, p + "mlp.fc2", h, true));
}

} // namespace

std::vector<Value> visionHiddenStates(GraphBuilder &g, const VisionConfig &v, const Prefixes &pre,
                                      Value pixels, int64_t upTo) {
  const Activation act = *activationNamed(v.hiddenAct); // checked by readVisionConfig
  g.expectLayers(pre, "encoder.layers.", v.numLayers, "vision_config.num_hidden_layers");
  if (g.failed())
    return {};
  std::vector<Value> states = {embeddings(g, v, pre, pixels)};
  for (int64_t i = 0; i < upTo && !g.failed(); ++i)
    states.push_back(encoderLayer(g, v, pre, i, states.back(), act));
  return states;
}

Value visionLastHiddenState(GraphBuilder &g, const VisionConfig &v, const Prefixes &pre, Value pixels) {
  std::vector<Value> states = visionHiddenStates(g, v, pre, pixels, v.numLayers);
  if (g.failed())
    return pixels;
  g.at(pre.front() + "post_layernorm");
  return g.layerNorm(states.back(), g.weight(pre, "post_layernorm.weight", {v.hiddenSize}),
                     g.weight(pre, "post_layernorm.bias", {v.hiddenSize}), v.layerNormEps);
}

} // namespace mm::hf
