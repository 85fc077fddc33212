//===- VisionLanguageModel.h - what every architecture builder shares ---------===//
//
// A family's builder (Architectures.h) reads its config and says what its vision encoder
// takes and how it computes the image features; this builds the three functions from
// that: @vision_encoder(<pixels>[, image_grid_thw]) -> image_features [batch, F, text
// hidden] (the roles pixel_values, image_grid_thw and image_features) and the text model's @embed_tokens and
// @decoder_model_merged (TextDecoder.h).
//
// The graph is built in f32 whatever the checkpoint's dtype (its weights cast, casts the
// plan writer folds): the compute type is the pipeline's (--dtype; auto: config.json's
// dtype, else the weights' own, modelFloatType), and the signature stays f32 as for an f32 export, so a bf16
// checkpoint compiled with --dtype f32 reads f32 pixels and writes f32 features.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_VISIONLANGUAGEMODEL_H
#define MM_COMPILER_IMPORT_HF_VISIONLANGUAGEMODEL_H

#include "compiler/import/hf/TextDecoder.h"
#include "compiler/import/hf/VisionTower.h"

namespace mm::hf {

/// The tensor-name spellings of LLaVA and PaliGemma (transformers >= 4.52 first, then
/// the earlier ones, which llava-hf's checkpoints and transformers 5's save_pretrained of
/// both write): language_model (text), vision_tower, multi_modal_projector.
extern const TextPrefixes kLanguageModelPrefixes;
extern const Prefixes kVisionTowerPrefixes, kProjectorPrefixes;

/// The vision encoder's input: its name, shape (kDyn for a dynamic dim) and dim names; its
/// element type is the graph's. `imageGridThw`: a second input, image_grid_thw [images,
/// 3] i64 (the role image_grid_thw; Qwen2-VL's).
struct PixelInput {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<std::string> dims;
  bool imageGridThw = false;
};

/// pixel_values [batch, channels, image_size, image_size] of a ViT.
PixelInput imagePixels(const VisionConfig &v);

/// Computes the image features [batch, F, text hidden] from the vision encoder's
/// arguments (the pixels, then image_grid_thw when PixelInput asks for it).
using ImageFeatures = llvm::function_ref<mlir::Value(GraphBuilder &, mlir::ValueRange)>;

/// The functions of a model from config.json at `configPath` into `module`; `features`
/// computes the image features from the vision encoder's inputs `pixels`. Fails with a
/// message in `error`.
mlir::LogicalResult
buildVisionLanguageModel(mlir::ModuleOp module, const std::string &configPath, const PixelInput &pixels,
                         ImageFeatures features,
                         const TextConfig &t, bool tiedEmbeddings, const TextPrefixes &textPrefixes,
                         const TensorMap &tensors, std::string &error);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_VISIONLANGUAGEMODEL_H
