//===- HfConfig.h - the config.json fields that shape a model's graph --------===//
//
// Hugging Face transformers' configuration classes, as saved by save_pretrained in
// config.json. A field a config omits takes the transformers default of its model_type
// (save_pretrained writes only what differs from the defaults, so llava-hf's
// llava-1.5-7b-hf gives no text hidden_size: LlamaConfig's 4096 applies). Only the
// fields that change the graph are read; a value the builders cannot compile (an
// unknown model_type, rope_type or activation) is an error naming the field.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_HFCONFIG_H
#define MM_COMPILER_IMPORT_HF_HFCONFIG_H

#include "compiler/import/hf/ConfigFields.h"
#include "mm/MMOps.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mm::hf {

/// Rotary position embedding (Su et al. 2021) of a decoder: inverse frequencies
/// theta^(-2i / head_dim), rescaled by rope_type (transformers' ROPE_INIT_FUNCTIONS):
/// "default"; "linear" (positions / factor); "llama3" (Llama 3.1's wavelength-banded
/// scaling: factor, low_freq_factor, high_freq_factor, original_max_position_embeddings).
/// M-RoPE (Qwen2-VL, Wang et al. 2024): mrope_section splits the head_dim / 2 frequencies
/// into temporal, height and width bands, each rotated by its own row of position ids.
struct RopeConfig {
  double theta = 10000.0;
  std::string type = "default";
  double factor = 1.0;
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
  /// partial_rotary_factor (Persimmon's; 0.5 by default): the share of head_dim rotated.
  double partialFactor = 1.0;
  /// mrope_section (rope_parameters in transformers 5, rope_scaling in 4.x, whose "type":
  /// "mrope" is the default type): the bands' sizes, summing to rotaryDim / 2; empty for
  /// 1-D positions.
  std::vector<int64_t> mropeSection;
};

/// A decoder: LlamaConfig, MistralConfig, Qwen2Config, GemmaConfig, PersimmonConfig or
/// Qwen2VLTextConfig (Qwen2's with M-RoPE).
struct TextConfig {
  std::string modelType;            ///< llama, mistral, qwen2, gemma, persimmon or qwen2_vl_text
  bool qwen2() const { return modelType == "qwen2" || modelType == "qwen2_vl_text"; }
  int64_t hiddenSize = 0, intermediateSize = 0, numLayers = 0, numHeads = 0, numKvHeads = 0;
  int64_t headDim = 0;              ///< head_dim, else hidden_size / num_attention_heads
  int64_t vocabSize = 0;
  double normEps = 1e-6;            ///< rms_norm_eps (Persimmon's LayerNorms: layer_norm_eps)
  int64_t rotaryDim = 0;            ///< the channels rotated: head_dim * partial_rotary_factor
  RopeConfig rope;
  bool qkvBias = false;             ///< q/k/v projection biases (attention_bias; always for qwen2)
  bool outputBias = false;          ///< o_proj bias (attention_bias for llama)
  bool mlpBias = false;             ///< gate/up/down biases (llama's mlp_bias)
  /// Sliding-window attention (Mistral; Qwen2 with use_sliding_window): the window, 0 =
  /// none, and which layers use it (Mistral: all; Qwen2: layer_types, else the layers from
  /// max_window_layers on).
  int64_t slidingWindow = 0;
  std::vector<bool> slidingLayers;
  /// Gemma (Team Gemma 2024; transformers' modeling_gemma.py): the embeddings times
  /// sqrt(hidden_size) (GemmaTextScaledWordEmbedding: text tokens only, not the image
  /// features spliced in after it) and RMSNorm scales of 1 + weight; 1 and 0 elsewhere.
  double embedScale = 1.0;
  double normScaleOffset = 0.0;
  /// The MLP's activation, hidden_act, for every model type: the gated MLPs' down(act(
  /// gate(x)) * up(x)) (SwiGLU for silu, Llama's default; GeGLU for gelu_pytorch_tanh,
  /// Gemma's), Persimmon's plain dense_4h_to_h(act(dense_h_to_4h(x))) (relu2).
  Activation mlpAct = Activation::silu;
  bool mlpActSquared = false;       ///< relu2 (So et al. 2021's squared ReLU): relu, then squared
  /// Persimmon (Fuyu's decoder; modeling_persimmon.py): LayerNorms with biases, one fused
  /// query_key_value projection (per head: its q, k and v rows in turn), LayerNorms over
  /// the head dim on q and k (qk_layernorm), a plain MLP (dense_h_to_4h, hidden_act,
  /// dense_4h_to_h), biases on every projection, partial rotary.
  bool persimmon() const { return modelType == "persimmon"; }
  bool qkLayerNorm = false;
  /// Set by the family, not by text_config: added to position_ids before the rotary
  /// embedding (PaliGemma counts positions from 1).
  int64_t positionOffset = 0;
  /// Set by the family: the tokens of the first decoder call (no past) attend to each
  /// other in both directions; later calls attend causally (PaliGemma's prefix-LM: the
  /// prompt, image and text, is the prefix, transformers' token_type_ids 0 block on its
  /// first iteration).
  bool prefixAttention = false;
};

/// A ViT image encoder: CLIPVisionConfig, SiglipVisionConfig, or Idefics3VisionConfig /
/// SmolVLMVisionConfig (SigLIP with NaViT-style position ids; the same at full size).
struct VisionConfig {
  std::string modelType; ///< clip_vision_model, siglip_vision_model, idefics3_vision, smolvlm_vision
  int64_t hiddenSize = 0, intermediateSize = 0, numLayers = 0, numHeads = 0;
  int64_t imageSize = 0, patchSize = 0, numChannels = 3;
  double layerNormEps = 1e-5;
  std::string hiddenAct;            ///< quick_gelu, gelu, gelu_pytorch_tanh, ...
  bool classToken() const { return modelType == "clip_vision_model"; }
  /// Idefics3's NaViT-style ViT (Idefics3VisionEmbeddings), whose position ids for a
  /// full-size frame are the patch indices (VisionTower.h).
  bool navit() const {
    return modelType == "idefics3_vision" || modelType == "smolvlm_vision";
  }
  /// Patches per side: image_size / patch_size rounded down (the convolution drops the
  /// pixels past the last whole patch: SmolVLM's 384 px of 14 px patches give 27).
  int64_t gridSide() const { return imageSize / patchSize; }
  int64_t numPatches() const { return gridSide() * gridSide(); }
};

/// LlavaForConditionalGeneration (Liu et al. 2023, "Visual Instruction Tuning").
struct LlavaConfig {
  TextConfig text;
  VisionConfig vision;
  /// vision_feature_layer: the encoder hidden states whose concatenation (along the
  /// hidden dim) feeds the projector; -k counts from the last. Index 0 is the embeddings.
  std::vector<int64_t> featureLayers = {-2};
  std::string selectStrategy = "default"; ///< "default" drops the first token, "full" keeps all
  std::string projectorAct = "gelu";
  bool projectorBias = true;
  bool tieWordEmbeddings = false;
};

/// PaliGemmaForConditionalGeneration (Beyer et al. 2024): SigLIP's last hidden state
/// (post_layernorm applied), one linear projection, a Gemma decoder with the prompt as a
/// bidirectional prefix and positions counted from 1.
struct PaliGemmaConfig {
  TextConfig text;
  VisionConfig vision;
  int64_t projectionDim = 2048; ///< the projector's output: text_config.hidden_size
  bool tieWordEmbeddings = true;
};

/// Idefics3ForConditionalGeneration and SmolVLMForConditionalGeneration (Laurencon et al.
/// 2024; Marafioti et al. 2025): the ViT's last hidden state (post_layernorm applied),
/// pixel shuffle by scale_factor (s x s neighbouring patches into one token of s^2 times
/// the width), a linear projection without bias, a Llama-family decoder.
struct Idefics3Config {
  TextConfig text;
  VisionConfig vision;
  int64_t scaleFactor = 2;
  bool tieWordEmbeddings = false;
};

/// FuyuForCausalLM (Bavishi et al. 2023): no image encoder; the processor's patches
/// [batch, patches, patch_size^2 * channels] go through one linear (vision_embed_tokens)
/// into a Persimmon decoder.
struct FuyuConfig {
  TextConfig text;
  int64_t patchSize = 30, numChannels = 3;
  int64_t hiddenSize = 4096; ///< vision_embed_tokens' output: text_config.hidden_size
  bool tieWordEmbeddings = false;
};

/// Qwen2VisionTransformerPretrainedModel's Qwen2VLVisionConfig (modeling_qwen2_vl.py): a
/// linear patch embedding of temporal_patch_size frames of patch_size^2 pixels (a Conv3d
/// without bias, stride = kernel), depth blocks of LayerNorm (eps 1e-6), fused qkv
/// attention with a 2-D rotary embedding, fc1 / hidden_act / fc2 MLP, and the patch
/// merger (LayerNorm, spatial_merge_size^2 neighbouring patches concatenated, Linear,
/// GELU, Linear to hidden_size).
struct Qwen2VlVisionConfig {
  int64_t depth = 32, embedDim = 1280, hiddenSize = 3584, numHeads = 16;
  double mlpRatio = 4;
  std::string hiddenAct = "quick_gelu";
  int64_t inChannels = 3, patchSize = 14, spatialMergeSize = 2, temporalPatchSize = 2;
  double ropeTheta = 10000.0; ///< rope_parameters.rope_theta (transformers 5); 10000 before
  int64_t headDim() const { return embedDim / numHeads; }
  int64_t mlpHidden() const { return static_cast<int64_t>(static_cast<double>(embedDim) * mlpRatio); }
  /// A patch row of pixel_values: in_channels * temporal_patch_size * patch_size^2.
  int64_t patchDim() const { return inChannels * temporalPatchSize * patchSize * patchSize; }
};

/// Qwen2VLForConditionalGeneration (Wang et al. 2024, "Qwen2-VL"): text_config (transformers
/// 5), else the top level's text fields (the Hub's configs).
struct Qwen2VlConfig {
  TextConfig text;
  Qwen2VlVisionConfig vision;
  bool tieWordEmbeddings = false;
};

/// The mm.linear epilogue for a transformers activation name (ACT2FN): gelu, gelu_new /
/// gelu_pytorch_tanh / gelu_fast (tanh approximation), quick_gelu, silu / swish, relu;
/// std::nullopt for another.
std::optional<Activation> activationNamed(llvm::StringRef name);
/// The message for a config field holding the activation `name` that activationNamed
/// does not know: "is 'NAME', no activation mmc compiles (gelu, ...)".
std::string unknownActivation(llvm::StringRef name);

/// Reads a text_config (model_type defaulting to `defaultType`) and a vision_config
/// (likewise; a patch grid of image_size / patch_size, rounded down, as nn.Conv2d's
/// "valid" padding has it) into `t` / `v`, with the transformers defaults of their model_type; a bad
/// field is recorded in `f`'s error.
void readTextConfig(Fields f, const char *defaultType, TextConfig &t);
/// `typeFromConfig` false: the tower is `defaultType` whatever vision_config's model_type
/// says (Idefics3Config builds Idefics3VisionConfig(**vision_config)).
void readVisionConfig(Fields f, const char *defaultType, VisionConfig &v, bool typeFromConfig = true);

/// Read a config.json of the family (`config`, parsed from `path`). Each fails with a
/// message naming the file and the field in `error` (FamilyConfigs.cpp).
mlir::LogicalResult parseLlavaConfig(const nlohmann::json &config, const std::string &path,
                                     LlavaConfig &out, std::string &error);
mlir::LogicalResult parsePaliGemmaConfig(const nlohmann::json &config, const std::string &path,
                                         PaliGemmaConfig &out, std::string &error);
mlir::LogicalResult parseIdefics3Config(const nlohmann::json &config, const std::string &path,
                                        Idefics3Config &out, std::string &error);
mlir::LogicalResult parseFuyuConfig(const nlohmann::json &config, const std::string &path,
                                    FuyuConfig &out, std::string &error);
mlir::LogicalResult parseQwen2VlConfig(const nlohmann::json &config, const std::string &path,
                                       Qwen2VlConfig &out, std::string &error);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_HFCONFIG_H
