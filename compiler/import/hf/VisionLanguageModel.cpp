//===- VisionLanguageModel.cpp - what every architecture builder shares -------===//
#include "compiler/import/hf/VisionLanguageModel.h"

using namespace mlir;

namespace mm::hf {

const TextPrefixes kLanguageModelPrefixes = {{"model.language_model.", "language_model.model."},
                                             {"", "language_model."}};
const Prefixes kVisionTowerPrefixes = {"model.vision_tower.vision_model.", "vision_tower.vision_model.",
                                       "model.vision_tower.", "vision_tower."};
const Prefixes kProjectorPrefixes = {"model.multi_modal_projector.", "multi_modal_projector."};

PixelInput imagePixels(const VisionConfig &v) {
  return {"pixel_values", {kDyn, v.numChannels, v.imageSize, v.imageSize}, {"batch", "", "", ""}};
}

namespace {

LogicalResult buildVisionEncoder(ModuleOp module, Location loc, const PixelInput &in,
                                 const TensorMap &tensors, Type ft, ImageFeatures features,
                                 std::string &error) {
  std::vector<Port> args = {
      {in.name, RankedTensorType::get(in.shape, ft), in.dims, contract::ValueRole::pixelValues}};
  if (in.imageGridThw)
    args.push_back({"image_grid_thw", RankedTensorType::get({kDyn, 3}, IntegerType::get(module.getContext(), 64)),
                    {"images", ""}, contract::ValueRole::imageGridThw});
  func::FuncOp fn =
      createFunction(module, loc, "vision_encoder", contract::FunctionRole::visionEncoder, args);
  GraphBuilder g(fn.getBody().front(), loc, tensors, ft);
  Value x = features(g, fn.getArguments());
  if (g.failed()) {
    error = g.error();
    return failure();
  }
  finishFunction(fn, {x}, {{"image_features", x.getType(), {"batch", "", ""},
                            contract::ValueRole::imageFeatures}});
  return success();
}

} // namespace

LogicalResult buildVisionLanguageModel(ModuleOp module, const std::string &configPath,
                                       const PixelInput &pixels, ImageFeatures features,
                                       const TextConfig &t, bool tiedEmbeddings,
                                       const TextPrefixes &textPrefixes, const TensorMap &tensors,
                                       std::string &error) {
  MLIRContext *ctx = module.getContext();
  Location loc = FileLineColLoc::get(ctx, configPath, 0, 0);
  Type ft = Float32Type::get(ctx);
  if (failed(buildVisionEncoder(module, loc, pixels, tensors, ft, features, error)))
    return failure();
  return buildTextModel(module, loc, t, tiedEmbeddings, textPrefixes, tensors, ft, error);
}

} // namespace mm::hf
