//===- Llava.h - LlavaForConditionalGeneration from a checkpoint --------------===//
//
// LLaVA (Liu et al. 2023) as transformers' modeling_llava.py: @vision_encoder(pixel_values
// [batch, channels, size, size]) -> image_features [batch, tokens, text hidden] (the vision
// tower's hidden states at vision_feature_layer, concatenated along the hidden dim when
// it is a list, the first token dropped under the "default" select strategy, then the
// multi_modal_projector: linear_1, projector_hidden_act, linear_2), and the text model's
// @embed_tokens and @decoder_model_merged (TextDecoder.h).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_LLAVA_H
#define MM_COMPILER_IMPORT_HF_LLAVA_H

#include "compiler/import/hf/Safetensors.h"

#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

namespace mm::hf {

/// Builds the three functions into `module` from `config` (read from `configPath`).
mlir::LogicalResult buildLlava(mlir::ModuleOp module, const nlohmann::json &config,
                               const std::string &configPath, const TensorMap &tensors,
                               std::string &error);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_LLAVA_H
