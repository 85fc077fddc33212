//===- ModelConfig.cpp - generation metadata from a Hugging Face config.json -===//
#include "compiler/plan/ModelConfig.h"
#include "compiler/import/hf/HfConfig.h"

#include "compiler/support/JsonFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

using json = nlohmann::json;

namespace mm {
namespace {

/// Reads integer field `key` of `obj` into `value` if present; fails on a non-integer.
mlir::LogicalResult readInt(const json &obj, const char *key, int64_t &value,
                            const std::string &path, std::string &error) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return mlir::success();
  if (!it->is_number_integer()) {
    error = "'" + path + "': field '" + key + "' is not an integer";
    return mlir::failure();
  }
  value = it->get<int64_t>();
  return mlir::success();
}

/// eos_token_id may be an integer or a list of integers.
mlir::LogicalResult readIds(const json &obj, const char *key, std::vector<int64_t> &ids,
                            const std::string &path, std::string &error) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return mlir::success();
  std::vector<int64_t> out;
  if (it->is_number_integer())
    out.push_back(it->get<int64_t>());
  else if (it->is_array()) {
    for (const json &v : *it) {
      if (!v.is_number_integer()) {
        error = "'" + path + "': field '" + key + "' holds a non-integer";
        return mlir::failure();
      }
      out.push_back(v.get<int64_t>());
    }
  } else {
    error = "'" + path + "': field '" + key + "' is not an integer or a list of integers";
    return mlir::failure();
  }
  ids = out;
  return mlir::success();
}

} // namespace

std::string findModelConfig(llvm::StringRef modelPath) {
  llvm::SmallString<256> dir(modelPath);
  if (!llvm::sys::fs::is_directory(dir))
    llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  for (int up = 0; up < 2; ++up) {
    llvm::SmallString<256> candidate(dir);
    llvm::sys::path::append(candidate, "config.json");
    if (llvm::sys::fs::exists(candidate))
      return std::string(candidate);
    if (llvm::sys::path::filename(dir) != "onnx")
      break;
    llvm::sys::path::remove_filename(dir);
  }
  return "";
}

mlir::LogicalResult readModelConfig(const std::string &configPath, ModelConfig &out,
                                    std::string &error) {
  json config;
  if (mlir::failed(readJsonObject(configPath, config, error)))
    return mlir::failure();
  out.path = configPath;
  // LLaVA-style configs nest the language model's fields under text_config.
  const json &text = config.contains("text_config") && config["text_config"].is_object()
                         ? config["text_config"]
                         : config;
  int64_t heads = -1;
  // The image token of the families' configuration classes (transformers 5), which
  // save_pretrained leaves out of config.json when a model keeps it.
  static const std::map<std::string, int64_t> imageTokenDefaults = {
      {"llava", 32000}, {"paligemma", 256000}, {"idefics3", 128257}, {"smolvlm", 128257}, {"fuyu", 71011},
      {"qwen2_vl", 151655}};
  const std::string modelType =
      config.contains("model_type") && config["model_type"].is_string() ? config["model_type"].get<std::string>() : "";
  if (auto it = imageTokenDefaults.find(modelType); it != imageTokenDefaults.end())
    out.imageTokenId = it->second;
  if (modelType == "qwen2_vl")
    out.spatialMergeSize = hf::Qwen2VlVisionConfig().spatialMergeSize; // the importer's default
  for (const json *obj : std::initializer_list<const json *>{&config, &text}) {
    if (mlir::failed(readInt(*obj, "image_token_index", out.imageTokenId, configPath, error)) ||
        mlir::failed(readInt(*obj, "image_token_id", out.imageTokenId, configPath, error)) ||
        mlir::failed(readInt(*obj, "bos_token_id", out.bosTokenId, configPath, error)) ||
        mlir::failed(readIds(*obj, "eos_token_id", out.eosTokenIds, configPath, error)))
      return mlir::failure();
  }
  if (mlir::failed(readInt(text, "hidden_size", out.hiddenSize, configPath, error)) ||
      mlir::failed(readInt(text, "vocab_size", out.vocabSize, configPath, error)) ||
      mlir::failed(readInt(text, "num_hidden_layers", out.numLayers, configPath, error)) ||
      mlir::failed(readInt(text, "num_attention_heads", heads, configPath, error)) ||
      mlir::failed(readInt(text, "num_key_value_heads", out.numKvHeads, configPath, error)) ||
      mlir::failed(readInt(text, "head_dim", out.headDim, configPath, error)) ||
      mlir::failed(readInt(text, "max_position_embeddings", out.maxPositions, configPath, error)))
    return mlir::failure();
  if (config.contains("vision_config") && config["vision_config"].is_object() &&
      mlir::failed(readInt(config["vision_config"], "spatial_merge_size", out.spatialMergeSize,
                           configPath, error)))
    return mlir::failure();
  if (out.numKvHeads < 0)
    out.numKvHeads = heads;
  if (out.headDim < 0 && heads > 0 && out.hiddenSize > 0)
    out.headDim = out.hiddenSize / heads;

  // generation_config.json overrides the token ids when present.
  llvm::SmallString<256> genPath(configPath);
  llvm::sys::path::remove_filename(genPath);
  llvm::sys::path::append(genPath, "generation_config.json");
  if (llvm::sys::fs::exists(genPath)) {
    json gen;
    std::string path(genPath);
    if (mlir::failed(readJsonObject(path, gen, error)) ||
        mlir::failed(readInt(gen, "bos_token_id", out.bosTokenId, path, error)) ||
        mlir::failed(readIds(gen, "eos_token_id", out.eosTokenIds, path, error)))
      return mlir::failure();
  }
  return mlir::success();
}

const std::vector<ModelFileKind> &keptModelFiles() {
  static const std::vector<ModelFileKind> files = {
      {"tokenizer.json", true},           {"tokenizer_config.json", true},
      {"special_tokens_map.json", true},  {"chat_template.json", true},
      {"chat_template.jinja", false},     {"preprocessor_config.json", true},
      {"processor_config.json", true},    {"generation_config.json", true}};
  return files;
}

mlir::LogicalResult readModelFiles(const std::string &configPath, std::vector<ModelFile> &out,
                                   std::string &error) {
  if (configPath.empty())
    return mlir::success();
  for (const ModelFileKind &kind : keptModelFiles()) {
    llvm::SmallString<256> path(configPath);
    llvm::sys::path::remove_filename(path);
    llvm::sys::path::append(path, kind.name);
    if (!llvm::sys::fs::exists(path))
      continue;
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    json parsed;
    if (mlir::failed(readModelFile(std::string(path), buffer, error)) ||
        (kind.json &&
         mlir::failed(parseJsonObject(buffer->getBuffer(), std::string(path), parsed, error))))
      return mlir::failure();
    out.push_back({kind.name, buffer->getBuffer().str()});
  }
  return mlir::success();
}

} // namespace mm
