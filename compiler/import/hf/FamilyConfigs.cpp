//===- FamilyConfigs.cpp - the top-level config.json of each family ----------===//
//
// LlavaConfig, PaliGemmaConfig, Idefics3Config / SmolVLMConfig, FuyuConfig and Qwen2VLConfig
// as transformers (v5)
// reads them: their own fields, and their defaults for an absent sub-config (a present
// one takes the defaults of its own model_type, as CONFIG_MAPPING[model_type](**dict)).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/hf/HfConfig.h"

using json = nlohmann::json;

namespace mm::hf {
namespace {

/// transformers >= 5 keeps tie_word_embeddings on the top-level config; older ones on
/// text_config.
bool tieWordEmbeddings(Fields &top, bool fallback) {
  return top.boolean("tie_word_embeddings",
                     top.object("text_config").boolean("tie_word_embeddings", fallback));
}

mlir::LogicalResult finish(const std::string &why, const std::string &path, std::string &error) {
  if (why.empty())
    return mlir::success();
  error = path + ": " + why;
  return mlir::failure();
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
  readVisionConfig(top.has("vision_config") ? top.object("vision_config")
                                            : Fields(clipL336, "vision_config.", why),
                   "clip_vision_model", out.vision);
  readTextConfig(top.object("text_config"), "llama", out.text);
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
  out.tieWordEmbeddings = tieWordEmbeddings(top, false);
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
              "is " + shownValue(out.selectStrategy) + " (expected default or full)");
    else if (!activationNamed(out.projectorAct))
      top.bad("projector_hidden_act", unknownActivation(out.projectorAct));
  }
  return finish(why, path, error);
}

mlir::LogicalResult parsePaliGemmaConfig(const json &config, const std::string &path,
                                         PaliGemmaConfig &out, std::string &error) {
  std::string why;
  Fields top(config, "", why);
  // PaliGemmaConfig's defaults for an absent sub-config: SigLIP So400m/14 at 224 px and
  // Gemma-2B with one KV head.
  static const json so400m = {{"model_type", "siglip_vision_model"}, {"hidden_size", 1152},
                              {"intermediate_size", 4096},           {"num_hidden_layers", 27},
                              {"num_attention_heads", 16},           {"image_size", 224},
                              {"patch_size", 14}};
  readVisionConfig(top.has("vision_config") ? top.object("vision_config")
                                            : Fields(so400m, "vision_config.", why),
                   "siglip_vision_model", out.vision);
  const json gemma2b = {{"model_type", "gemma"},         {"hidden_size", 2048},
                        {"num_hidden_layers", 18},        {"intermediate_size", 16384},
                        {"num_attention_heads", 8},       {"num_key_value_heads", 1},
                        {"vocab_size", top.size("vocab_size", 257152)}};
  readTextConfig(top.has("text_config") ? top.object("text_config")
                                        : Fields(gemma2b, "text_config.", why),
                 "gemma", out.text);
  out.projectionDim = top.size("projection_dim", out.projectionDim);
  out.tieWordEmbeddings = tieWordEmbeddings(top, true);
  if (top.ok() && out.vision.classToken())
    top.object("vision_config").bad("model_type", "is " + shownValue(out.vision.modelType) +
                                                      "; PaliGemma's vision tower is SigLIP");
  else if (top.ok() && out.projectionDim != out.text.hiddenSize)
    top.bad("projection_dim", "is " + std::to_string(out.projectionDim) +
                                  "; the projected image features replace token embeddings, so it "
                                  "must equal text_config.hidden_size (" +
                                  std::to_string(out.text.hiddenSize) + ")");
  // modeling_paligemma.py: positions count from 1, and the prompt attends bidirectionally.
  out.text.positionOffset = 1;
  out.text.prefixAttention = true;
  return finish(why, path, error);
}

mlir::LogicalResult parseIdefics3Config(const json &config, const std::string &path,
                                        Idefics3Config &out, std::string &error) {
  std::string why;
  Fields top(config, "", why);
  // Idefics3Config and SmolVLMConfig build their own vision config from vision_config
  // whatever its model_type; the two towers are the same.
  readVisionConfig(top.object("vision_config"), "idefics3_vision", out.vision, false);
  // Idefics3Config's default text model: Llama with rms_norm_eps 1e-5.
  static const json llama = {{"model_type", "llama"}, {"rms_norm_eps", 1e-5}};
  readTextConfig(top.has("text_config") ? top.object("text_config")
                                        : Fields(llama, "text_config.", why),
                 "llama", out.text);
  out.scaleFactor = top.size("scale_factor", out.scaleFactor);
  out.tieWordEmbeddings = tieWordEmbeddings(top, false);
  if (top.ok() && out.vision.gridSide() % out.scaleFactor != 0)
    top.bad("scale_factor", "is " + std::to_string(out.scaleFactor) +
                                ", which does not divide the patch grid's side (" +
                                std::to_string(out.vision.gridSide()) +
                                " = image_size / patch_size): the pixel shuffle needs it to");
  return finish(why, path, error);
}

mlir::LogicalResult parseFuyuConfig(const json &config, const std::string &path, FuyuConfig &out,
                                    std::string &error) {
  std::string why;
  Fields top(config, "", why);
  // FuyuConfig without a text_config makes a PersimmonConfig of its own top-level fields.
  json fromTop = config;
  fromTop["model_type"] = "persimmon";
  readTextConfig(top.has("text_config") ? top.object("text_config") : Fields(fromTop, "", why),
                 "persimmon", out.text);
  out.patchSize = top.size("patch_size", out.patchSize);
  out.numChannels = top.size("num_channels", out.numChannels);
  out.hiddenSize = top.size("hidden_size", out.hiddenSize);
  out.tieWordEmbeddings = tieWordEmbeddings(top, false);
  if (top.ok() && out.hiddenSize != out.text.hiddenSize)
    top.bad("hidden_size", "is " + std::to_string(out.hiddenSize) +
                               "; the patch embeddings replace token embeddings, so it must equal "
                               "text_config.hidden_size (" + std::to_string(out.text.hiddenSize) + ")");
  return finish(why, path, error);
}

namespace {

/// Qwen2VLVisionConfig, with its defaults (Qwen2-VL-7B's tower).
void readQwen2VlVision(Fields f, Qwen2VlVisionConfig &v) {
  v.depth = f.size("depth", v.depth, kMaxLayers);
  v.embedDim = f.size("embed_dim", v.embedDim);
  v.hiddenSize = f.size("hidden_size", v.hiddenSize);
  v.numHeads = f.size("num_heads", v.numHeads);
  v.mlpRatio = f.number("mlp_ratio", v.mlpRatio);
  v.hiddenAct = f.string("hidden_act", v.hiddenAct);
  v.inChannels = f.size("in_channels", v.inChannels);
  v.patchSize = f.size("patch_size", v.patchSize);
  v.spatialMergeSize = f.size("spatial_merge_size", v.spatialMergeSize);
  v.temporalPatchSize = f.size("temporal_patch_size", v.temporalPatchSize);
  v.ropeTheta = f.object("rope_parameters").number("rope_theta", v.ropeTheta);
  if (!f.ok())
    return;
  // VisionRotaryEmbedding(head_dim / 2): head_dim / 4 frequencies for each of the row and
  // the column, rotate-half over the whole head.
  if (v.embedDim % v.numHeads != 0 || v.headDim() % 4 != 0)
    f.bad("num_heads", "must divide embed_dim into heads of a multiple of 4 channels (the 2-D "
                       "rotary embedding's row and column halves)");
  else if (!(v.mlpRatio > 0) || v.mlpHidden() < 1 || v.mlpHidden() > kMaxSize)
    f.bad("mlp_ratio", "must give an MLP of 1 to 2^24 channels");
  else if (!activationNamed(v.hiddenAct))
    f.bad("hidden_act", unknownActivation(v.hiddenAct));
  else if (!(v.ropeTheta > 0))
    f.object("rope_parameters").bad("rope_theta", "must be positive");
}

} // namespace

mlir::LogicalResult parseQwen2VlConfig(const json &config, const std::string &path, Qwen2VlConfig &out,
                                       std::string &error) {
  std::string why;
  Fields top(config, "", why);
  readQwen2VlVision(top.object("vision_config"), out.vision);
  // Qwen2VLConfig without a text_config (the Hub's flat configs) reads its text model from
  // its own top-level fields.
  json fromTop = config;
  fromTop["model_type"] = "qwen2_vl_text";
  readTextConfig(top.has("text_config") ? top.object("text_config") : Fields(fromTop, "", why),
                 "qwen2_vl_text", out.text);
  out.tieWordEmbeddings = tieWordEmbeddings(top, false);
  if (top.ok() && out.text.modelType != "qwen2_vl_text")
    top.object("text_config").bad("model_type", "is " + shownValue(out.text.modelType) +
                                                    "; Qwen2-VL's decoder is qwen2_vl_text (M-RoPE)");
  else if (top.ok() && out.vision.hiddenSize != out.text.hiddenSize)
    top.object("vision_config").bad("hidden_size", "is " + std::to_string(out.vision.hiddenSize) +
                                                       "; the merged patches replace token embeddings, so "
                                                       "it must equal the text model's hidden_size (" +
                                                       std::to_string(out.text.hiddenSize) + ")");
  return finish(why, path, error);
}

} // namespace mm::hf
