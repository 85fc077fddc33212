//===- Llava.cpp - LlavaForConditionalGeneration from a checkpoint -----------===//
#include "compiler/import/hf/Llava.h"

#include "compiler/import/hf/HfConfig.h"
#include "compiler/import/hf/TextDecoder.h"
#include "compiler/import/hf/VisionTower.h"

#include <limits>

using namespace mlir;
using namespace mm::contract;

namespace mm::hf {
namespace {

// The tensor-name spellings: transformers >= 4.52 first, then the earlier ones (which
// llava-hf's checkpoints and transformers 5's save_pretrained of LLaVA write).
const TextPrefixes kText = {{"model.language_model.", "language_model.model."},
                            {"", "language_model."}};
const Prefixes kVision = {"model.vision_tower.vision_model.", "vision_tower.vision_model.",
                          "model.vision_tower.", "vision_tower."};
const Prefixes kProjector = {"model.multi_modal_projector.", "multi_modal_projector."};

void buildVisionEncoder(ModuleOp module, Location loc, const LlavaConfig &c, const TensorMap &tensors,
                        Type ft, std::string &error) {
  const VisionConfig &v = c.vision;
  Port pixels{"pixel_values", RankedTensorType::get({kDyn, v.numChannels, v.imageSize, v.imageSize}, ft),
              {"batch", "", "", ""}, ValueRole::pixelValues};
  func::FuncOp fn = createFunction(module, loc, "vision_encoder", FunctionRole::visionEncoder, {pixels});
  GraphBuilder g(fn.getBody().front(), loc, tensors, ft);
  std::vector<int64_t> layers;
  int64_t upTo = 0;
  for (int64_t l : c.featureLayers) {
    layers.push_back(l < 0 ? v.numLayers + 1 + l : l);
    upTo = std::max(upTo, layers.back());
  }
  std::vector<Value> states = visionHiddenStates(g, v, kVision, fn.getArgument(0), upTo);
  Value x = fn.getArgument(0);
  if (!g.failed()) {
    SmallVector<Value> selected;
    for (int64_t l : layers)
      selected.push_back(states[l]);
    x = selected.size() == 1 ? selected[0] : g.concat(selected, 2);
    if (c.selectStrategy == "default")
      x = g.slice(x, 1, 1, std::numeric_limits<int64_t>::max());
    g.at(kProjector.front());
    x = g.linear(x, kProjector, "linear_1", c.text.hiddenSize, c.projectorBias,
                 *activationNamed(c.projectorAct)); // checked by parseLlavaConfig
    x = g.linear(x, kProjector, "linear_2", c.text.hiddenSize, c.projectorBias);
  }
  finishFunction(fn, {x}, {{"image_features", x.getType(), {"batch", "", ""}, ValueRole::imageFeatures}});
  if (g.failed())
    error = g.error();
}

} // namespace

LogicalResult buildLlava(ModuleOp module, const nlohmann::json &config, const std::string &configPath,
                         const TensorMap &tensors, std::string &error) {
  LlavaConfig c;
  if (failed(parseLlavaConfig(config, configPath, c, error)))
    return failure();
  MLIRContext *ctx = module.getContext();
  Location loc = FileLineColLoc::get(ctx, configPath, 0, 0);
  // The graph is built in f32 whatever the checkpoint's dtype (its weights cast, casts the
  // plan writer folds): the compute type is the pipeline's (--dtype; auto: the weights'
  // own, modelFloatType), and the signature stays f32 as for an f32 export, so a bf16
  // checkpoint compiled with --dtype f32 reads f32 pixels and writes f32 features.
  Type ft = Float32Type::get(ctx);
  buildVisionEncoder(module, loc, c, tensors, ft, error);
  if (!error.empty())
    return failure();
  return buildTextModel(module, loc, c.text, c.tieWordEmbeddings, kText, tensors, ft, error);
}

} // namespace mm::hf
