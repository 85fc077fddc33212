//===- Fuyu.cpp - FuyuForCausalLM from a checkpoint --------------------------===//
#include "compiler/import/hf/Architectures.h"

#include "compiler/import/hf/HfConfig.h"
#include "compiler/import/hf/VisionLanguageModel.h"

using namespace mlir;

namespace mm::hf {
namespace {

// transformers >= 4.52 first (model.language_model, model.vision_embed_tokens, lm_head),
// then the earlier ones.
const TextPrefixes kFuyuTextPrefixes = {{"model.language_model.", "language_model.model."},
                                        {"", "language_model."}};
const Prefixes kPatchEmbeddingPrefixes = {"model.", ""};

} // namespace

LogicalResult buildFuyu(ModuleOp module, const nlohmann::json &config, const std::string &configPath,
                        const TensorMap &tensors, std::string &error) {
  FuyuConfig c;
  if (failed(parseFuyuConfig(config, configPath, c, error)))
    return failure();
  // FuyuModel.get_image_features: vision_embed_tokens of the patches (FuyuProcessor's
  // image_patches, row by row; its newline tokens are text tokens between the rows').
  const PixelInput patches{"image_patches", {kDyn, kDyn, c.patchSize * c.patchSize * c.numChannels},
                           {"batch", "patches", ""}};
  auto features = [&](GraphBuilder &g, ValueRange in) {
    g.at(kPatchEmbeddingPrefixes.front() + "vision_embed_tokens");
    return g.linear(in[0], kPatchEmbeddingPrefixes, "vision_embed_tokens", c.hiddenSize, true);
  };
  return buildVisionLanguageModel(module, configPath, patches, features, c.text, c.tieWordEmbeddings,
                                  kFuyuTextPrefixes, tensors, error);
}

} // namespace mm::hf
