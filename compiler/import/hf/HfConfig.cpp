//===- HfConfig.cpp - the config.json fields that shape a model's graph ------===//
#include "compiler/import/hf/HfConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

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

namespace {

/// The largest size field read (a dim of 2^24 is past any model's) and the largest
/// head_dim and layer count: bounds that keep the graph built from a config small.
constexpr int64_t kMaxSize = int64_t(1) << 24, kMaxHeadDim = 65536, kMaxLayers = 4096;

/// Typed reads of one JSON object of config.json; the first bad field sets `error`
/// ("<file>: field 'text_config.rope_theta' is not a number") and later reads do nothing.
class Fields {
public:
  Fields(const json &obj, std::string where, std::string &error)
      : obj_(obj), where_(std::move(where)), error_(error) {}

  bool has(const char *key) const { return obj_.contains(key) && !obj_[key].is_null(); }
  bool isObject(const char *key) const { return has(key) && obj_[key].is_object(); }
  /// Whether `key` is given as null (which means "none", not "the default").
  bool isNull(const char *key) const { return obj_.contains(key) && obj_[key].is_null(); }

  int64_t integer(const char *key, int64_t fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_number_integer())
      return bad(key, "is not an integer"), fallback;
    return obj_[key].get<int64_t>();
  }
  /// A positive integer (a size or count) of at most `max`.
  int64_t size(const char *key, int64_t fallback, int64_t max = kMaxSize) {
    int64_t v = integer(key, fallback);
    if ((v <= 0 || v > max) && error_.empty())
      bad(key, "must be a positive integer of at most " + std::to_string(max));
    return v;
  }
  double number(const char *key, double fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_number())
      return bad(key, "is not a number"), fallback;
    return obj_[key].get<double>();
  }
  bool boolean(const char *key, bool fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_boolean())
      return bad(key, "is not true or false"), fallback;
    return obj_[key].get<bool>();
  }
  std::string string(const char *key, const std::string &fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_string())
      return bad(key, "is not a string"), fallback;
    return obj_[key].get<std::string>();
  }
  /// The nested object `key`, or an empty one when absent.
  Fields object(const char *key) {
    static const json empty = json::object();
    if (!has(key))
      return Fields(empty, where_ + key + ".", error_);
    if (!obj_[key].is_object() && error_.empty())
      bad(key, "is not an object");
    return Fields(obj_[key].is_object() ? obj_[key] : empty, where_ + key + ".", error_);
  }
  const json &raw(const char *key) const { return obj_[key]; }
  void bad(const char *key, const std::string &why) {
    if (error_.empty())
      error_ = "field '" + where_ + key + "' " + why;
  }
  bool ok() const { return error_.empty(); }

private:
  const json &obj_;
  std::string where_; ///< "text_config." etc.
  std::string &error_;
};

/// rope_parameters (transformers >= 5), else rope_theta with rope_scaling.
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
    scaling.bad(typeKey, "is '" + rope.type +
                             "', which mmc does not compile (supported: default, linear, llama3)");
  else if (rope.type != "default" && rope.factor <= 0)
    scaling.bad("factor", "must be positive");
  else if (rope.type == "llama3" &&
           (rope.highFreqFactor <= rope.lowFreqFactor || rope.originalMaxPositions <= 0))
    scaling.bad("high_freq_factor",
                "must exceed low_freq_factor, with a positive original_max_position_embeddings");
}

/// Which layers of a Mistral or Qwen2 decoder use its sliding window.
void readSlidingWindow(Fields &f, TextConfig &t, bool mistral) {
  const bool qwen2 = t.modelType == "qwen2";
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
  const int64_t from = f.integer("max_window_layers", 28);
  for (int64_t i = std::max<int64_t>(from, 0); i < t.numLayers; ++i)
    t.slidingLayers[i] = true;
}

void readText(Fields f, TextConfig &t) {
  t.modelType = f.string("model_type", "llama");
  const bool mistral = t.modelType == "mistral", qwen2 = t.modelType == "qwen2";
  if (!mistral && !qwen2 && t.modelType != "llama")
    return f.bad("model_type", "is '" + t.modelType +
                                   "'; a LLaVA text model mmc compiles is llama, mistral or qwen2");
  // The defaults of LlamaConfig, MistralConfig and Qwen2Config.
  t.hiddenSize = f.size("hidden_size", 4096);
  t.intermediateSize = f.size("intermediate_size", mistral ? 14336 : qwen2 ? 22016 : 11008);
  t.numLayers = f.size("num_hidden_layers", 32, kMaxLayers);
  t.numHeads = f.size("num_attention_heads", 32);
  // MistralConfig's default is 8 KV heads; null (and the others' default) means MHA.
  t.numKvHeads = f.size("num_key_value_heads", mistral && !f.isNull("num_key_value_heads") ? 8 : t.numHeads);
  const bool headDimGiven = f.has("head_dim");
  t.headDim = headDimGiven ? f.size("head_dim", 0, kMaxHeadDim)
                           : t.hiddenSize / std::max<int64_t>(t.numHeads, 1);
  t.vocabSize = f.size("vocab_size", qwen2 ? 151936 : 32000);
  t.rmsNormEps = f.number("rms_norm_eps", 1e-6);
  if (t.rmsNormEps < 0)
    f.bad("rms_norm_eps", "must be >= 0");
  readRope(f, t.rope);
  // Llama's attention_bias covers q/k/v/o and mlp_bias the MLP; Qwen2 always has q/k/v
  // biases and no others; Mistral has none (their modeling code hard-codes these).
  const bool llama = t.modelType == "llama";
  const bool attentionBias = llama && f.boolean("attention_bias", false);
  t.qkvBias = qwen2 || attentionBias;
  t.outputBias = attentionBias;
  t.mlpBias = llama && f.boolean("mlp_bias", false);
  if (f.ok())
    readSlidingWindow(f, t, mistral);
  const std::string act = f.string("hidden_act", "silu");
  if (!f.ok())
    return;
  if (act != "silu")
    f.bad("hidden_act", "is '" + act + "'; the gated MLP mmc compiles is SwiGLU (silu)");
  else if (t.numHeads % t.numKvHeads != 0)
    f.bad("num_key_value_heads", "must divide num_attention_heads (GQA)");
  else if (t.headDim % 2 != 0 || t.headDim == 0 || t.headDim > kMaxHeadDim)
    f.bad(headDimGiven ? "head_dim" : "hidden_size",
          headDimGiven ? "must be even (rotary embedding)"
                       : "/ num_attention_heads (the head dim) must be even and at most 65536");
}

void readVision(Fields f, VisionConfig &v) {
  v.modelType = f.string("model_type", "clip_vision_model");
  const bool siglip = v.modelType == "siglip_vision_model";
  if (!siglip && v.modelType != "clip_vision_model")
    return f.bad("model_type", "is '" + v.modelType +
                                   "'; a LLaVA vision tower mmc compiles is clip_vision_model or "
                                   "siglip_vision_model");
  // LlavaConfig's default vision tower is CLIP ViT-L/14 at 336 px; otherwise the defaults
  // of CLIPVisionConfig and SiglipVisionConfig.
  v.hiddenSize = f.size("hidden_size", 768);
  v.intermediateSize = f.size("intermediate_size", 3072);
  v.numLayers = f.size("num_hidden_layers", 12, kMaxLayers);
  v.numHeads = f.size("num_attention_heads", 12);
  v.imageSize = f.size("image_size", 224);
  v.patchSize = f.size("patch_size", siglip ? 16 : 32);
  v.numChannels = f.size("num_channels", 3);
  v.layerNormEps = f.number("layer_norm_eps", siglip ? 1e-6 : 1e-5);
  if (v.layerNormEps < 0)
    f.bad("layer_norm_eps", "must be >= 0");
  v.hiddenAct = f.string("hidden_act", siglip ? "gelu_pytorch_tanh" : "quick_gelu");
  if (!f.ok())
    return;
  if (v.hiddenSize % v.numHeads != 0)
    f.bad("num_attention_heads", "must divide hidden_size");
  else if (!activationNamed(v.hiddenAct))
    f.bad("hidden_act", "is '" + v.hiddenAct + "', no activation mmc compiles (gelu, gelu_new, "
                        "gelu_pytorch_tanh, gelu_fast, quick_gelu, silu, swish, relu)");
  else if (v.imageSize % v.patchSize != 0)
    f.bad("patch_size", "must divide image_size");
}

} // namespace

mlir::LogicalResult parseLlavaConfig(const json &config, const std::string &path, LlavaConfig &out,
                                     std::string &error) {
  std::string why;
  Fields top(config, "", why);
  // LlavaConfig's defaults for an absent sub-config: CLIP ViT-L/14-336 and Llama.
  static const json clipL336 = {{"model_type", "clip_vision_model"}, {"hidden_size", 1024},
                                {"intermediate_size", 4096},         {"num_hidden_layers", 24},
                                {"num_attention_heads", 16},         {"image_size", 336},
                                {"patch_size", 14}};
  readVision(top.has("vision_config") ? top.object("vision_config")
                                      : Fields(clipL336, "vision_config.", why),
             out.vision);
  readText(top.object("text_config"), out.text);
  if (top.has("vision_feature_layer") && top.raw("vision_feature_layer").is_array()) {
    out.featureLayers.clear();
    for (const json &l : top.raw("vision_feature_layer")) {
      if (!l.is_number_integer()) {
        top.bad("vision_feature_layer", "holds a value that is not an integer");
        break;
      }
      out.featureLayers.push_back(l.get<int64_t>());
    }
  } else {
    out.featureLayers = {top.integer("vision_feature_layer", -2)};
  }
  out.selectStrategy = top.string("vision_feature_select_strategy", out.selectStrategy);
  out.projectorAct = top.string("projector_hidden_act", out.projectorAct);
  out.projectorBias = top.boolean("multimodal_projector_bias", out.projectorBias);
  // transformers >= 5 keeps tie_word_embeddings on the top-level config; older ones on
  // text_config.
  out.tieWordEmbeddings = top.boolean(
      "tie_word_embeddings", top.object("text_config").boolean("tie_word_embeddings", false));
  if (top.ok()) {
    const int64_t layers = out.vision.numLayers;
    if (out.featureLayers.empty())
      top.bad("vision_feature_layer", "is an empty list");
    for (int64_t l : out.featureLayers)
      if (l < -(layers + 1) || l > layers) {
        top.bad("vision_feature_layer", "holds " + std::to_string(l) + ", outside the " +
                                            std::to_string(layers + 1) + " hidden states of a " +
                                            std::to_string(layers) + "-layer vision tower");
        break;
      }
    if (out.selectStrategy != "default" && out.selectStrategy != "full")
      top.bad("vision_feature_select_strategy",
              "is '" + out.selectStrategy + "' (expected default or full)");
    else if (!activationNamed(out.projectorAct))
      top.bad("projector_hidden_act", "is '" + out.projectorAct + "', no activation mmc compiles "
              "(gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, quick_gelu, silu, swish, relu)");
  }
  if (!why.empty()) {
    error = path + ": " + why;
    return mlir::failure();
  }
  return mlir::success();
}

} // namespace mm::hf
