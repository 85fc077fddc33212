//===- Llava.cpp - LlavaForConditionalGeneration from a checkpoint -----------===//
#include "compiler/import/hf/Architectures.h"

#include "compiler/import/hf/HfConfig.h"
#include "compiler/import/hf/VisionLanguageModel.h"

#include <limits>

using namespace mlir;

namespace mm::hf {
namespace {

/// modeling_llava.py's get_image_features: the hidden states at vision_feature_layer
/// (concatenated), the first token dropped under "default", the projector.
Value llavaFeatures(GraphBuilder &g, const LlavaConfig &c, Value pixels) {
  const VisionConfig &v = c.vision;
  std::vector<int64_t> layers;
  int64_t upTo = 0;
  for (int64_t l : c.featureLayers) {
    layers.push_back(l < 0 ? v.numLayers + 1 + l : l);
    upTo = std::max(upTo, layers.back());
  }
  std::vector<Value> states = visionHiddenStates(g, v, kVisionTowerPrefixes, pixels, upTo);
  if (g.failed())
    return pixels;
  SmallVector<Value> selected;
  for (int64_t l : layers)
    selected.push_back(states[l]);
  Value x = selected.size() == 1 ? selected[0] : g.concat(selected, 2);
  if (c.selectStrategy == "default")
    x = g.slice(x, 1, 1, std::numeric_limits<int64_t>::max());
  g.at(kProjectorPrefixes.front());
  x = g.linear(x, kProjectorPrefixes, "linear_1", c.text.hiddenSize, c.projectorBias,
               *activationNamed(c.projectorAct)); // checked by parseLlavaConfig
  return g.linear(x, kProjectorPrefixes, "linear_2", c.text.hiddenSize, c.projectorBias);
}

} // namespace

LogicalResult buildLlava(ModuleOp module, const nlohmann::json &config, const std::string &configPath,
                         const TensorMap &tensors, std::string &error) {
  LlavaConfig c;
  if (failed(parseLlavaConfig(config, configPath, c, error)))
    return failure();
  auto features = [&](GraphBuilder &g, ValueRange in) { return llavaFeatures(g, c, in[0]); };
  return buildVisionLanguageModel(module, configPath, imagePixels(c.vision), features, c.text, c.tieWordEmbeddings,
                                  kLanguageModelPrefixes, tensors, error);
}

} // namespace mm::hf
