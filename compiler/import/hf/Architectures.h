//===- Architectures.h - one builder per config.json architecture -------------===//
//
// Each builds the three functions of the model contract into a module, from config.json
// (`config`, read from `configPath`) and the checkpoint's tensors, at the fused level:
//   @vision_encoder(pixel_values [batch, channels, size, size]) -> image_features [batch,
//     tokens, text hidden] (VisionTower.h);
//   @embed_tokens and @decoder_model_merged (TextDecoder.h).
// Each fails with a message in `error` naming the file and the field or tensor.
//
//   LlavaForConditionalGeneration (Llava.cpp; Liu et al. 2023, modeling_llava.py): the
//     vision tower's hidden states at vision_feature_layer, concatenated along the hidden
//     dim when it is a list, the first token dropped under the "default" select strategy,
//     then the multi_modal_projector (linear_1, projector_hidden_act, linear_2);
//   PaliGemmaForConditionalGeneration (PaliGemma.cpp; Beyer et al. 2024,
//     modeling_paligemma.py): SigLIP's last hidden state, multi_modal_projector.linear;
//     the decoder counts positions from 1 and attends bidirectionally within the prompt;
//   Idefics3ForConditionalGeneration, SmolVLMForConditionalGeneration (Idefics3.cpp;
//     modeling_idefics3.py, modeling_smolvlm.py): the ViT's last hidden state, the
//     connector's pixel shuffle and modality_projection;
//   FuyuForCausalLM (Fuyu.cpp; modeling_fuyu.py): @vision_encoder takes the processor's
//     image_patches [batch, patches, patch_size^2 * channels] through vision_embed_tokens;
//     the decoder is Persimmon's (TextDecoder.h);
//   Qwen2VLForConditionalGeneration (Qwen2VL.cpp; Wang et al. 2024, modeling_qwen2_vl.py):
//     @vision_encoder takes the processor's pixel_values [patches, C * T * P * P] and
//     image_grid_thw [images, 3] through the ViT with 2-D rotary and the patch merger; the
//     decoder is Qwen2's with M-RoPE (position_ids [3, batch, seq]).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_ARCHITECTURES_H
#define MM_COMPILER_IMPORT_HF_ARCHITECTURES_H

#include "compiler/import/hf/Safetensors.h"

#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

namespace mm::hf {

mlir::LogicalResult buildLlava(mlir::ModuleOp module, const nlohmann::json &config,
                               const std::string &configPath, const TensorMap &tensors,
                               std::string &error);
mlir::LogicalResult buildPaliGemma(mlir::ModuleOp module, const nlohmann::json &config,
                                   const std::string &configPath, const TensorMap &tensors,
                                   std::string &error);
mlir::LogicalResult buildFuyu(mlir::ModuleOp module, const nlohmann::json &config,
                              const std::string &configPath, const TensorMap &tensors,
                              std::string &error);
mlir::LogicalResult buildQwen2VL(mlir::ModuleOp module, const nlohmann::json &config,
                                 const std::string &configPath, const TensorMap &tensors,
                                 std::string &error);
mlir::LogicalResult buildIdefics3(mlir::ModuleOp module, const nlohmann::json &config,
                                  const std::string &configPath, const TensorMap &tensors,
                                  std::string &error);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_ARCHITECTURES_H
