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
struct RopeConfig {
  double theta = 10000.0;
  std::string type = "default";
  double factor = 1.0;
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
};

/// A Llama-family decoder: LlamaConfig, MistralConfig or Qwen2Config.
struct TextConfig {
  std::string modelType;            ///< llama, mistral or qwen2
  int64_t hiddenSize = 0, intermediateSize = 0, numLayers = 0, numHeads = 0, numKvHeads = 0;
  int64_t headDim = 0;              ///< head_dim, else hidden_size / num_attention_heads
  int64_t vocabSize = 0;
  double rmsNormEps = 1e-6;
  RopeConfig rope;
  bool qkvBias = false;             ///< q/k/v projection biases (attention_bias; always for qwen2)
  bool outputBias = false;          ///< o_proj bias (attention_bias for llama)
  bool mlpBias = false;             ///< gate/up/down biases (llama's mlp_bias)
  /// Sliding-window attention (Mistral; Qwen2 with use_sliding_window): the window, 0 =
  /// none, and which layers use it (Mistral: all; Qwen2: layer_types, else the layers from
  /// max_window_layers on).
  int64_t slidingWindow = 0;
  std::vector<bool> slidingLayers;
};

/// A ViT image encoder: CLIPVisionConfig or SiglipVisionConfig.
struct VisionConfig {
  std::string modelType;            ///< clip_vision_model or siglip_vision_model
  int64_t hiddenSize = 0, intermediateSize = 0, numLayers = 0, numHeads = 0;
  int64_t imageSize = 0, patchSize = 0, numChannels = 3;
  double layerNormEps = 1e-5;
  std::string hiddenAct;            ///< quick_gelu, gelu, gelu_pytorch_tanh, ...
  bool classToken() const { return modelType == "clip_vision_model"; }
  int64_t numPatches() const { return (imageSize / patchSize) * (imageSize / patchSize); }
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

/// The mm.linear epilogue for a transformers activation name (ACT2FN): gelu, gelu_new /
/// gelu_pytorch_tanh / gelu_fast (tanh approximation), quick_gelu, silu / swish, relu;
/// std::nullopt for another.
std::optional<Activation> activationNamed(llvm::StringRef name);

/// Reads a LLaVA config.json (`config`, parsed from `path`). Fails with a message naming
/// the file and the field in `error`.
mlir::LogicalResult parseLlavaConfig(const nlohmann::json &config, const std::string &path,
                                     LlavaConfig &out, std::string &error);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_HFCONFIG_H
