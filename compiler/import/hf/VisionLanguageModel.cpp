//===- VisionLanguageModel.cpp - what every architecture builder shares -------===//
#include "compiler/import/hf/VisionLanguageModel.h"

using namespace mlir;

namespace mm::hf {

const TextPrefixes kLanguageModelPrefixes = {{"model.language_model.", "language_model.model."},
                                             {"", "language_model."}};
const Prefixes kVisionTowerPrefixes = {"model.vision_tower.vision_model.", "vision_tower.vision_model.",
                                       "model.vision_tower.", "vision_tower."};
const Prefixes kProjectorPrefixes = {"model.multi_modal_projector.", "multi_modal_projector."};

LogicalResult buildVisionLanguageModel(ModuleOp module, const std::string &configPath,
                                       const VisionConfig &v,
                                       llvm::function_ref<Value(GraphBuilder &, Value)> features,
                                       const TextConfig &t, bool tiedEmbeddings,
                                       const TextPrefixes &textPrefixes, const TensorMap &tensors,
                                       std::string &error) {
  MLIRContext *ctx = module.getContext();
  Location loc = FileLineColLoc::get(ctx, configPath, 0, 0);
  Type ft = Float32Type::get(ctx);
  if (failed(buildVisionEncoder(module, loc, v, tensors, ft, features, error)))
    return failure();
  return buildTextModel(module, loc, t, tiedEmbeddings, textPrefixes, tensors, ft, error);
}

} // namespace mm::hf
