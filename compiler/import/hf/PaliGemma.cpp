//===- PaliGemma.cpp - PaliGemmaForConditionalGeneration from a checkpoint ---===//
#include "compiler/import/hf/Architectures.h"

#include "compiler/import/hf/HfConfig.h"
#include "compiler/import/hf/VisionLanguageModel.h"

using namespace mlir;

namespace mm::hf {

LogicalResult buildPaliGemma(ModuleOp module, const nlohmann::json &config, const std::string &configPath,
                             const TensorMap &tensors, std::string &error) {
  PaliGemmaConfig c;
  if (failed(parsePaliGemmaConfig(config, configPath, c, error)))
    return failure();
  // PaliGemmaModel.get_image_features: multi_modal_projector.linear of SigLIP's
  // last_hidden_state (transformers 5 no longer divides it by sqrt(hidden_size): Gemma's
  // embedding scale now applies to the text tokens only).
  auto features = [&](GraphBuilder &g, ValueRange in) {
    Value x = visionLastHiddenState(g, c.vision, kVisionTowerPrefixes, in[0]);
    if (g.failed())
      return x;
    g.at(kProjectorPrefixes.front() + "linear");
    return g.linear(x, kProjectorPrefixes, "linear", c.projectionDim, true);
  };
  return buildVisionLanguageModel(module, configPath, imagePixels(c.vision), features, c.text, c.tieWordEmbeddings,
                                  kLanguageModelPrefixes, tensors, error);
}

} // namespace mm::hf
