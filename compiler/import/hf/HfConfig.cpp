//===- HfConfig.cpp - the config.json fields that shape a model's graph ------===//
#include "compiler/import/hf/HfConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using json = nlohmann::json;

namespace mm::hf {

std::optional<Activation> activationNamed(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Activation>>(name)
      .Case("gelu", Activation::gelu)
      .Cases("gelu_new", "gelu_pytorch_tanh", "gelu_fast", Activation::gelu_tanh)
      .Case("quick_gelu", Activation::quick_gelu)
      .Cases("silu", "swish", Activation::silu)
      .Case("relu", Activation::relu)
      .Default(std::nullopt);
}

std::string unknownActivation(llvm::StringRef name) {
  return "is " + shownValue(name.str()) +
         ", no activation mmc compiles (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, "
         "quick_gelu, silu, swish, relu)";
}

namespace {

/// rope_parameters (transformers >= 5), else rope_theta with rope_scaling; `rope` holds the
/// model type's defaults.
void readRope(Fields &f, RopeConfig &rope) {
  const bool v5 = f.has("rope_parameters");
  const char *where = v5 ? "rope_parameters" : "rope_scaling";
  Fields scaling = f.object(where);
  if (v5 && f.ok())
    for (const char *layerType : {"full_attention", "sliding_attention"})
      if (scaling.isObject(layerType))
        return scaling.bad(layerType, "is a per-layer-type rope setting, which mmc does not compile");
  rope.theta = v5 ? scaling.number("rope_theta", f.number("rope_theta", rope.theta))
                  : f.number("rope_theta", rope.theta);
  // Both spellings of the type: "rope_type" (transformers >= 4.45) and "type".
  const char *typeKey = scaling.has("rope_type") ? "rope_type" : "type";
  rope.type = scaling.string(typeKey, "default");
  if (scaling.has("mrope_section")) {
    const json &section = scaling.raw("mrope_section");
    if (!section.is_array() || section.size() != 3)
      return scaling.bad("mrope_section", "is not a list of 3 band sizes (temporal, height, width)");
    for (const json &s : section) {
      if (!s.is_number_integer() || s.get<int64_t>() <= 0 || s.get<int64_t>() > kMaxHeadDim)
        return scaling.bad("mrope_section", "holds a value that is not a positive integer");
      rope.mropeSection.push_back(s.get<int64_t>());
    }
    if (rope.type == "mrope") // transformers 4.x's spelling of M-RoPE's default frequencies
      rope.type = "default";
  }
  rope.factor = scaling.number("factor", 1.0);
  rope.lowFreqFactor = scaling.number("low_freq_factor", rope.lowFreqFactor);
  rope.highFreqFactor = scaling.number("high_freq_factor", rope.highFreqFactor);
  rope.originalMaxPositions =
      scaling.integer("original_max_position_embeddings", rope.originalMaxPositions);
  if (!f.ok())
    return;
  if (rope.theta <= 0)
    f.bad("rope_theta", "must be positive");
  else if (rope.type != "default" && rope.type != "linear" && rope.type != "llama3")
    scaling.bad(typeKey, "is " + shownValue(rope.type) +
                             ", which mmc does not compile (supported: default, linear, llama3)");
  else if (rope.type != "default" && rope.factor <= 0)
    scaling.bad("factor", "must be positive");
  else if (rope.type == "llama3" &&
           (rope.highFreqFactor <= rope.lowFreqFactor || rope.originalMaxPositions <= 0))
    scaling.bad("high_freq_factor",
                "must exceed low_freq_factor, with a positive original_max_position_embeddings");
}

/// Which layers of a Mistral or Qwen2 decoder use its sliding window.
void readSlidingWindow(Fields &f, TextConfig &t, bool mistral) {
  const bool qwen2 = t.qwen2();
  t.slidingLayers.assign(t.numLayers, false);
  // A null sliding_window means none (Mistral v0.2 and later).
  if (!(mistral || (qwen2 && f.boolean("use_sliding_window", false))) || f.isNull("sliding_window"))
    return;
  t.slidingWindow = f.size("sliding_window", 4096); // both configs' default
  if (mistral) {
    t.slidingLayers.assign(t.numLayers, true);
    return;
  }
  // Qwen2Config: layer_types when given, else sliding from max_window_layers (default 28).
  if (f.has("layer_types")) {
    const json &types = f.raw("layer_types");
    if (!types.is_array() || static_cast<int64_t>(types.size()) != t.numLayers)
      return f.bad("layer_types", "is not a list of num_hidden_layers layer types");
    for (int64_t i = 0; i < t.numLayers; ++i) {
      const json &type = types[static_cast<size_t>(i)];
      if (!type.is_string() || (type != "sliding_attention" && type != "full_attention"))
        return f.bad("layer_types", "holds a value other than sliding_attention and full_attention");
      t.slidingLayers[i] = type == "sliding_attention";
    }
    return;
  }
  const int64_t from = f.integer("max_window_layers", t.modelType == "qwen2" ? 28 : 80);
  for (int64_t i = std::max<int64_t>(from, 0); i < t.numLayers; ++i)
    t.slidingLayers[i] = true;
}

/// The MLP's hidden_act: an activation of activationNamed, or relu2.
void readMlpActivation(Fields &f, const char *fallback, TextConfig &t) {
  const std::string act = f.string("hidden_act", fallback);
  if (!f.ok())
    return;
  t.mlpActSquared = act == "relu2";
  if (std::optional<Activation> a = activationNamed(t.mlpActSquared ? "relu" : act))
    t.mlpAct = *a;
  else
    f.bad("hidden_act", unknownActivation(act) + "; or relu2 (a text model's MLP)");
}

/// Persimmon's partial_rotary_factor: in rope_parameters (transformers 5), else at the top
/// of its config (4.x), else 0.5; the rotated channels head_dim * factor (rounded down,
/// as int()) must be even and nonzero.
void readPartialRotary(Fields &f, TextConfig &t) {
  const char *key = "partial_rotary_factor";
  Fields rope = f.object("rope_parameters");
  Fields &where = rope.has(key) ? rope : f;
  t.rope.partialFactor = where.number(key, 0.5);
  t.rotaryDim = static_cast<int64_t>(static_cast<double>(t.headDim) * t.rope.partialFactor);
  if (where.ok() && !(t.rope.partialFactor > 0 && t.rope.partialFactor <= 1))
    where.bad(key, "must be in (0, 1]");
  else if (where.ok() && (t.rotaryDim % 2 != 0 || t.rotaryDim == 0))
    where.bad(key, "gives " + std::to_string(t.rotaryDim) + " rotated channels of head_dim " +
                       std::to_string(t.headDim) + "; rotary embeddings need an even, nonzero count");
}

/// PersimmonConfig (and FuyuConfig's text model): MHA with head_dim = hidden / heads.
void readPersimmon(Fields &f, TextConfig &t) {
  t.hiddenSize = f.size("hidden_size", 4096);
  t.intermediateSize = f.size("intermediate_size", 16384);
  t.numLayers = f.size("num_hidden_layers", 36, kMaxLayers);
  t.numHeads = t.numKvHeads = f.size("num_attention_heads", 64);
  t.headDim = t.hiddenSize / std::max<int64_t>(t.numHeads, 1);
  t.vocabSize = f.size("vocab_size", 262144);
  t.normEps = f.number("layer_norm_eps", 1e-5);
  if (!(t.normEps >= 0 && t.normEps <= 1))
    f.bad("layer_norm_eps", "must be in [0, 1]");
  // PersimmonConfig 4.x's rope_theta (the trained checkpoints'); transformers 5's config
  // class has none of its own (its mixin's 10000 would apply).
  t.rope.theta = 25000.0;
  readRope(f, t.rope);
  readPartialRotary(f, t);
  t.qkvBias = t.outputBias = t.mlpBias = true;
  t.qkLayerNorm = f.boolean("qk_layernorm", true);
  t.slidingLayers.assign(t.numLayers, false);
  readMlpActivation(f, "relu2", t);
  if (f.ok() && t.headDim * t.numHeads != t.hiddenSize)
    f.bad("num_attention_heads", "must divide hidden_size");
}

/// LlamaConfig, MistralConfig, Qwen2Config, GemmaConfig and Qwen2VLTextConfig.
void readLlamaFamily(Fields &f, TextConfig &t) {
  const bool mistral = t.modelType == "mistral", qwen2 = t.qwen2();
  const bool gemma = t.modelType == "gemma", llama = t.modelType == "llama";
  const bool qwen2vl = t.modelType == "qwen2_vl_text";
  // The defaults of LlamaConfig, MistralConfig, Qwen2Config, GemmaConfig and
  // Qwen2VLTextConfig (Qwen2-VL-72B's shapes).
  t.hiddenSize = f.size("hidden_size", gemma ? 3072 : qwen2vl ? 8192 : 4096);
  t.intermediateSize = f.size("intermediate_size", mistral  ? 14336
                                                   : qwen2vl ? 29568
                                                   : qwen2   ? 22016
                                                   : gemma   ? 24576
                                                             : 11008);
  t.numLayers = f.size("num_hidden_layers", gemma ? 28 : qwen2vl ? 80 : 32, kMaxLayers);
  t.numHeads = f.size("num_attention_heads", gemma ? 16 : qwen2vl ? 64 : 32);
  // MistralConfig's and Qwen2VLTextConfig's default is 8 KV heads and GemmaConfig's 16;
  // null (and the others' default) means MHA.
  const int64_t kvDefault = f.isNull("num_key_value_heads") ? t.numHeads
                            : mistral || qwen2vl           ? 8
                            : gemma                        ? 16
                                                           : t.numHeads;
  t.numKvHeads = f.size("num_key_value_heads", kvDefault);
  // GemmaConfig's head_dim defaults to 256; the others' to hidden_size / heads.
  const bool headDimField = f.has("head_dim") || gemma;
  t.headDim = headDimField ? f.size("head_dim", 256, kMaxHeadDim)
                           : t.hiddenSize / std::max<int64_t>(t.numHeads, 1);
  t.vocabSize = f.size("vocab_size", qwen2vl ? 152064 : qwen2 ? 151936 : gemma ? 256000 : 32000);
  t.normEps = f.number("rms_norm_eps", qwen2vl ? 1e-5 : 1e-6);
  if (!(t.normEps >= 0 && t.normEps <= 1))
    f.bad("rms_norm_eps", "must be in [0, 1]");
  if (qwen2vl)
    t.rope.theta = 1000000.0; // Qwen2VLTextConfig.default_theta
  readRope(f, t.rope);
  t.rotaryDim = t.headDim; // LlamaModel and its copies rotate the whole head
  // Llama's attention_bias covers q/k/v/o and mlp_bias the MLP; Gemma's attention_bias
  // q/k/v/o; Qwen2 always has q/k/v biases and no others; Mistral has none (their
  // modeling code hard-codes these).
  const bool attentionBias = (llama || gemma) && f.boolean("attention_bias", false);
  t.qkvBias = qwen2 || attentionBias;
  t.outputBias = attentionBias;
  t.mlpBias = llama && f.boolean("mlp_bias", false);
  if (f.ok())
    readSlidingWindow(f, t, mistral);
  if (gemma) {
    // GemmaTextScaledWordEmbedding: hidden_size ** 0.5 as an f32 tensor.
    t.embedScale = static_cast<float>(std::sqrt(static_cast<double>(t.hiddenSize)));
    t.normScaleOffset = 1.0;
  }
  // Every one of these MLPs is down(act(gate(x)) * up(x)) with act = ACT2FN[hidden_act].
  readMlpActivation(f, gemma ? "gelu_pytorch_tanh" : "silu", t);
  if (!f.ok())
    return;
  const std::vector<int64_t> &bands = t.rope.mropeSection;
  const int64_t banded = bands.empty() ? 0 : bands[0] + bands[1] + bands[2];
  const char *ropeKey = f.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (t.numHeads % t.numKvHeads != 0)
    f.bad("num_key_value_heads", "must divide num_attention_heads (GQA)");
  else if (qwen2vl != !bands.empty())
    f.object(ropeKey).bad("mrope_section", qwen2vl ? "is missing: Qwen2-VL's decoder needs its M-RoPE bands"
                                                   : "is given, but only Qwen2-VL's decoder (qwen2_vl_text) "
                                                     "takes M-RoPE position ids");
  else if (!bands.empty() && 2 * banded != t.headDim)
    f.object(ropeKey).bad("mrope_section", "sums to " + std::to_string(banded) +
                                               "; the bands must cover head_dim / 2 = " +
                                               std::to_string(t.headDim / 2) + " frequencies");
  else if (t.headDim % 2 != 0 || t.headDim == 0 || t.headDim > kMaxHeadDim)
    f.bad(headDimField ? "head_dim" : "hidden_size",
          headDimField ? "must be even (rotary embedding)"
                       : "/ num_attention_heads (the head dim) must be even and at most 65536");
}

} // namespace

void readTextConfig(Fields f, const char *defaultType, TextConfig &t) {
  t.modelType = f.string("model_type", defaultType);
  if (t.persimmon())
    readPersimmon(f, t);
  else if (llvm::is_contained({"llama", "mistral", "qwen2", "gemma", "qwen2_vl_text"}, t.modelType))
    readLlamaFamily(f, t);
  else
    f.bad("model_type", "is " + shownValue(t.modelType) +
                            "; a text model mmc compiles is llama, mistral, qwen2, gemma, persimmon "
                            "or qwen2_vl_text");
}

void readVisionConfig(Fields f, const char *defaultType, VisionConfig &v, bool typeFromConfig) {
  v.modelType = typeFromConfig ? f.string("model_type", defaultType) : defaultType;
  const bool clip = v.modelType == "clip_vision_model", siglip = v.modelType == "siglip_vision_model";
  const bool navit = v.navit();
  if (!clip && !siglip && !navit)
    return f.bad("model_type", "is " + shownValue(v.modelType) +
                                   "; a vision tower mmc compiles is clip_vision_model, "
                                   "siglip_vision_model, idefics3_vision or smolvlm_vision");
  // The defaults of CLIPVisionConfig, SiglipVisionConfig and Idefics3VisionConfig /
  // SmolVLMVisionConfig (the families' own defaults for an absent vision_config are their
  // callers').
  v.hiddenSize = f.size("hidden_size", navit ? 1152 : 768);
  v.intermediateSize = f.size("intermediate_size", 3072);
  v.numLayers = f.size("num_hidden_layers", 12, kMaxLayers);
  v.numHeads = f.size("num_attention_heads", navit ? 16 : 12);
  v.imageSize = f.size("image_size", 224);
  v.patchSize = f.size("patch_size", siglip ? 16 : 32);
  v.numChannels = f.size("num_channels", 3);
  v.layerNormEps = f.number("layer_norm_eps", clip ? 1e-5 : 1e-6);
  if (!(v.layerNormEps >= 0 && v.layerNormEps <= 1))
    f.bad("layer_norm_eps", "must be in [0, 1]");
  v.hiddenAct = f.string("hidden_act", clip ? "quick_gelu" : "gelu_pytorch_tanh");
  if (!f.ok())
    return;
  if (v.hiddenSize % v.numHeads != 0)
    f.bad("num_attention_heads", "must divide hidden_size");
  else if (!activationNamed(v.hiddenAct))
    f.bad("hidden_act", unknownActivation(v.hiddenAct));
  else if (v.patchSize > v.imageSize)
    f.bad("patch_size", "is larger than image_size");
}

} // namespace mm::hf
