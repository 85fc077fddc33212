//===- Idefics3.cpp - Idefics3 / SmolVLM from a checkpoint -------------------===//
#include "compiler/import/hf/Architectures.h"

#include "compiler/import/hf/HfConfig.h"
#include "compiler/import/hf/VisionLanguageModel.h"

using namespace mlir;

namespace mm::hf {
namespace {

const TextPrefixes kTextModelPrefixes = {{"model.text_model."}, {""}};
const Prefixes kVisionModelPrefixes = {"model.vision_model."};
const Prefixes kConnectorPrefixes = {"model.connector."};

/// Idefics3Connector.pixel_shuffle: [batch, n * n, E] -> [batch, (n / s)^2, E * s^2], each
/// output token the s x s block of neighbouring patches (its rows' patches side by side).
Value pixelShuffle(GraphBuilder &g, Value x, int64_t n, int64_t s) {
  const int64_t e = GraphBuilder::shapeOf(x).back();
  x = g.reshape(x, {0, n, n / s, e * s});
  x = g.transpose(x, {0, 2, 1, 3});
  x = g.reshape(x, {0, n / s, n / s, e * s * s});
  x = g.transpose(x, {0, 2, 1, 3});
  return g.reshape(x, {0, (n / s) * (n / s), e * s * s});
}

} // namespace

LogicalResult buildIdefics3(ModuleOp module, const nlohmann::json &config, const std::string &configPath,
                            const TensorMap &tensors, std::string &error) {
  Idefics3Config c;
  if (failed(parseIdefics3Config(config, configPath, c, error)))
    return failure();
  // Idefics3Model.get_image_features for full-size frames (the processor's tiles and
  // global image): the connector of the ViT's last_hidden_state.
  auto features = [&](GraphBuilder &g, ValueRange in) {
    Value x = visionLastHiddenState(g, c.vision, kVisionModelPrefixes, in[0]);
    if (g.failed())
      return x;
    g.at(kConnectorPrefixes.front() + "modality_projection");
    x = pixelShuffle(g, x, c.vision.gridSide(), c.scaleFactor);
    return g.linear(x, kConnectorPrefixes, "modality_projection.proj", c.text.hiddenSize, false);
  };
  return buildVisionLanguageModel(module, configPath, imagePixels(c.vision), features, c.text, c.tieWordEmbeddings,
                                  kTextModelPrefixes, tensors, error);
}

} // namespace mm::hf
